"""What a new user's walk found (Xvfb + openbox at 800x600, 1024x700, 1920x1080),
each measured offscreen against Qt's own geometry of the rows and lines drawn."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from panel_helpers import trained_side_b
from screens import SIZES, open_at
from settle import settle as quiet
from text_lines import cut_lines, lines_whole


def rows_cut(tree) -> list[str]:
    """The rows of ``tree`` drawn in part: the viewport's bottom edge runs through them."""
    height = tree.viewport().height()
    out, items = [], [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    while items:
        item = items.pop()
        r = tree.visualItemRect(item)
        if r.top() < height < r.top() + r.height():
            out.append(item.text(0))
        items.extend(item.child(i) for i in range(item.childCount()))
    return out


def raised(qtbot, win, dock, view):
    """``view`` on screen, its dock's tab raised, the window quiet after it."""
    dock.raise_()
    qtbot.waitUntil(view.isVisible)
    quiet(qtbot, win)
    return view


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_the_merge_lineage_draws_no_row_cut(make_window, qtbot, monkeypatch, size):
    """At 800x600 the lineage tree's last row in sight was drawn half cut: its
    viewport was not a whole number of rows. Whole rows, at least a token and its two
    parts; scrolled to its end, the last row is whole."""
    win = open_at(make_window, qtbot, monkeypatch, size)
    dl, c = win.dock_layout, win.controller
    assert c.goto(10)
    dl.vocab_dock.raise_()
    vb = dl.vocab_browser
    qtbot.waitUntil(vb.isVisible)
    quiet(qtbot, win, c)
    tree = vb.tree
    deepest = max(vb.visible_ids(), key=lambda tid: len(vb.model.entry_by_id(tid).token))
    assert vb.select_id(deepest)
    quiet(qtbot, win, c)
    rows = tree.sizeHintForRow(0)
    assert rows > 0 and tree.topLevelItem(0).childCount() == 2
    assert tree.viewport().height() >= 3 * rows, (tree.viewport().height(), rows, size)
    assert rows_cut(tree) == [], (size, tree.viewport().height(), rows)
    bar = tree.verticalScrollBar()
    bar.setValue(bar.maximum())
    QApplication.processEvents()
    assert rows_cut(tree) == [], size
    last = tree.topLevelItem(0)
    while last.childCount():
        last = last.child(last.childCount() - 1)
    r = tree.visualItemRect(last)
    assert 0 <= r.top() and r.bottom() < tree.viewport().height(), (size, r)
    # a window made a little shorter: still whole rows
    win.resize(win.width(), win.height() - 17)
    quiet(qtbot, win, c)
    assert rows_cut(tree) == [], size


def drag(split, dy: int) -> None:
    """Drag the splitter's handle ``dy`` pixels down (up when negative)."""
    handle = split.handle(1)
    mid = handle.rect().center()
    QTest.mousePress(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, mid)
    QTest.mouseMove(handle, mid + QPoint(0, dy))
    QTest.mouseRelease(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       mid + QPoint(0, dy))


def least_side(view) -> int:
    sides = view.split.widget(0)
    return max(sides.minimumSizeHint().height(), sides.minimumHeight())


@pytest.mark.regression
@pytest.mark.controller("low lower newest widest " * 30, vocab_size=280, step=20)
def test_compares_sides_show_two_whole_lines_at_their_least(controller, qtbot):
    """The sides' coloured texts at their two-line minimum (the results given the
    splitter's height) drew a taller Han line cut at the bottom. They show two whole
    lines there, of Han and Latin alike, and never a line cut at any height."""

    from bpe_gui.gui.panels.compare.compare_view import SAMPLE_TEXT, CompareView
    view = CompareView(controller)
    qtbot.addWidget(view)
    view.resize(700, 900)
    view.show()
    qtbot.waitExposed(view)
    han = "字节对编码：它把最常见的相邻符号对合并成新的词元。" * 4
    for text in (han + "\n" + SAMPLE_TEXT * 3, SAMPLE_TEXT * 3):
        view.set_text(text)
        with qtbot.waitSignal(view.compared, timeout=10_000):
            view.compare_now()
        sides = [p.view for p in (view.pane_a, view.pane_b)]
        qtbot.waitUntil(lambda: all(s.toPlainText().startswith(text[:10]) for s in sides))
        for least in (True, False):
            drag(view.split, -900 if least else 200)   # the user drags the handle
            qtbot.waitUntil(lambda: view.split.sizes()[0] == least_side(view) if least
                            else view.split.sizes()[0] > least_side(view) + 100)
            quiet(qtbot, view)
            for side in sides:
                assert side.isVisible()
                if least:
                    assert side.height() == side.minimumHeight(), (side.height(),)
                assert cut_lines(side) == [], (least, side.height(), side.viewport().height())
                assert lines_whole(side) >= 2, (least, side.height(), side.viewport().height())


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_compares_text_box_shows_whole_lines_in_the_window(make_window, qtbot, monkeypatch,
                                                            size):
    """At 800x600, Compare's tab raised in the window, its text box showed the sample's
    Han line cut in half under two whole lines: the box was fitted to whole lines
    before its lines were laid out at their final width."""
    win = open_at(make_window, qtbot, monkeypatch, size)
    view = raised(qtbot, win, win.dock_layout.compare_dock, win.dock_layout.compare_view)
    assert cut_lines(view.edit) == [], (size, view.edit.viewport().height())
    assert lines_whole(view.edit) >= 2, size


def whole_text(label) -> str:
    return label.full_text() if hasattr(label, "full_text") else label.text()


def shown_whole_or_marked(label) -> tuple[bool, str]:
    """Whether ``label`` draws its text whole, or cut with "…" and the whole text in its
    tooltip; and what it draws."""
    full = whole_text(label)
    shown = label.shown() if hasattr(label, "shown") else label.text()
    fits = label.fontMetrics().horizontalAdvance(shown) <= label.width()
    shorter = label.variants()[1:] if hasattr(label, "variants") else []   # whole forms
    marked = shown == full or ((shown.endswith("…") or shown in shorter)
                               and full in label.toolTip())
    return fits and marked, shown


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_chats_tokenizer_and_template_lines_are_whole_or_marked(make_window, qtbot,
                                                                monkeypatch, size):
    """At 800x600 Chat's first line read "Tokenizer: the t", cut at its edge with no
    sign that more was there. A line that does not fit ends with "…" and says the
    whole of it on hover."""
    win = open_at(make_window, qtbot, monkeypatch, size)
    view = raised(qtbot, win, win.dock_layout.chat_dock, win.dock_layout.chat_view)
    qtbot.waitUntil(lambda: whole_text(view.tok_label).startswith("Tokenizer: "))
    assert "trained, as of step 0" in whole_text(view.tok_label)
    for label in (view.tok_label, view.origin):
        ok, shown = shown_whole_or_marked(label)
        assert ok, (size, shown, label.width())


@pytest.mark.regression
@pytest.mark.parametrize("change", ["settings", "parity"])
def test_the_real_corpus_notice_goes_when_its_settings_no_longer_apply(window, ready,
                                                                       tmp_path, change):
    """After opening a real corpus over a sample, the notice said "this corpus is trained
    with the defaults for a real corpus" and offered the sample's settings back; it
    stayed after the user applied other settings, and after parity-aware training (which
    does not train on the corpus at all) had been turned on and trained."""
    from dataclasses import replace

    from bpe_gui.gui.controller.parity_setup import Language, ParitySetup
    c = window.controller
    assert c.corpus_sample == "tutorial"
    path = tmp_path / "mine.txt"
    path.write_text("a real corpus of its own, not a sample at all\n" * 200, encoding="utf-8")
    assert window.dock_layout.editor.open_files([str(path)])
    ready(c)
    notice = window.dock_layout.editor.notice
    assert notice.isVisible() and "defaults for a real corpus" in notice.label.text()
    assert c.set_settings(replace(c.settings))   # the same settings again: it stays
    assert notice.isVisible()
    if change == "settings":
        assert c.set_settings(replace(c.settings, vocab_size=1200))
    else:
        langs = tuple(Language(n, str(path)) for n in ("en", "de"))
        assert c.set_parity(ParitySetup(enabled=True, languages=langs))
    assert notice.isHidden()


@pytest.mark.regression
@pytest.mark.controller("low lower newest widest " * 30, vocab_size=280, step=5)
def test_chat_says_which_step_its_tokens_are_of(controller, qtbot):
    """Chat said "Tokenizer: the trained one" whatever the step, while its ids are those
    of the tokenizer as of the window's step (the encode view says "Trained, as of step
    N"). It names the step, and follows it."""
    from bpe_gui.gui.panels.chat.chat_view import ChatView
    view = ChatView(controller)
    qtbot.addWidget(view)
    view.resize(1000, 600)
    view.show()
    qtbot.waitUntil(lambda: "step 5" in view.tok_label.full_text())
    assert controller.goto(9)
    qtbot.waitUntil(lambda: "step 9" in view.tok_label.full_text())
    assert view.tok_label.full_text() == "Tokenizer: trained, as of step 9"


@pytest.mark.regression
@pytest.mark.controller("low lower newest widest " * 30, vocab_size=280, step=5)
def test_another_configuration_says_when_it_was_trained_on_an_earlier_corpus(controller,
                                                                              qtbot):
    """Compare's "another training configuration" kept saying "Trained … on the corpus"
    after another corpus was opened: its counts were of a tokenizer trained on a text
    no longer in the window. It says so until trained again; the same text back (saved
    or not) is the corpus it was trained on."""
    from bpe_gui.engine.train import Trainer
    first = controller.corpus_text
    pane = trained_side_b(controller, qtbot)
    assert "earlier" not in pane.description() and "Trained" in pane.train_status.text()
    with qtbot.waitSignal(pane.changed, timeout=5000):
        controller.set_corpus_text("quite another corpus of other words " * 20, dirty=False)
    assert "an earlier corpus" in pane.description()
    assert "no longer in the window" in pane.train_status.text()
    # what it shows is still the tokenizer of the first corpus (trained here again)
    ref = Trainer.from_text(first, pane.form_settings())
    ref.run(detail=False)
    assert pane.tokenizer().merges == ref.tokenizer().merges
    controller.set_corpus_text(first, dirty=True)   # the same text again
    qtbot.waitUntil(lambda: "earlier" not in pane.description())
    assert pane.train_status.text().startswith(f"Trained {ref.n_steps:,} merges on the corpus")
