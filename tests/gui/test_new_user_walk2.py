"""More of what a new user met walking the window under Xvfb (test_new_user_walk.py's
walk, its leftovers), each a regression test: a chart title cut, a message naming a
command-line flag, a line that did not say which run it describes, a tree and a table
scrolled or cut, a session file taken for a tokenizer.

Geometry is measured offscreen in the default layout of each screen size.
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QPainter, QWheelEvent
from PySide6.QtWidgets import QApplication

from screens import SIZES, open_at
from test_parity_glance import quiet, raise_dock, train_parity
from test_small_screens import in_sight, raise_below
from text_lines import cut_lines


def drawn_texts(widget, monkeypatch) -> list[str]:
    """The strings ``widget`` draws, in the order it paints them."""
    drawn: list[str] = []
    real = QPainter.drawText

    def record(self, *args):
        drawn.extend(a for a in args if isinstance(a, str))
        return real(self, *args)
    with monkeypatch.context() as m:
        m.setattr(QPainter, "drawText", record)
        widget.grab()
    return drawn


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES[:2])
def test_a_parity_runs_zipf_title_is_drawn_whole(make_window, qtbot, monkeypatch, size):
    """At 1024x700 a parity run's Zipf chart read "Token frequency on the training
    fil…" beside its "step N": the title had grown after the columns were chosen, and
    the note took its room. It wraps now, its note beside it."""
    win = open_at(make_window, qtbot, monkeypatch, size)
    train_parity(qtbot, win, merges=20)
    dl = win.dock_layout
    view = dl.charts_view
    raise_below(win, qtbot, dl.charts_dock, view)
    zipf = view.zipf
    qtbot.waitUntil(lambda: zipf.note == "step 20", timeout=10_000)
    title = "Token frequency on the training files (Zipf)"
    assert zipf.title == title
    drawn = drawn_texts(zipf, monkeypatch)
    # the title comes first, on one line or two, every word of it
    assert title in (drawn[0], " ".join(drawn[:2])), drawn[:3]
    assert "step 20" in drawn, drawn
    quiet(qtbot, win)   # (the charts lay out again once the run's charts are shown)
    dl.charts_dock.widget().ensureWidgetVisible(zipf, 0, 0)
    qtbot.waitUntil(lambda: in_sight(win, zipf))


@pytest.mark.regression
def test_chat_without_a_template_says_what_to_do_in_the_window(qtbot, tmp_path):
    """With a tokenizer that brings no chat template, the Chat view said "pick a
    template file (--template FILE)": a flag of the command line, in the window."""
    from bpe_gui.engine.train import TrainSettings
    from bpe_gui.gui.controller.controller import Controller
    from bpe_gui.gui.panels.chat.chat_view import ChatView
    c = Controller()
    try:
        c.set_settings(TrainSettings(num_merges=10))
        c.set_corpus_text("the weather in the city " * 20, dirty=False)
        assert c.training.train()
        qtbot.waitUntil(lambda: not c.busy and c.view() is not None, timeout=20_000)
        v = ChatView(c)
        qtbot.addWidget(v)
        v.render_now()
        qtbot.waitUntil(lambda: not v.rendering, timeout=10_000)
        message = v.warnings.text()
        assert v.result is None and "no chat template" in message
        assert "--" not in message, message
        items = [v.renderer.itemText(i) for i in range(v.renderer.count())]
        # it names the list's own items: the template file, the renderers that are code
        for item in ("Template file…", "mistral-common", "harmony", "llama3-meta"):
            assert item in items and item in message, (item, message)
        # doing what it says: a template file, and the prompt renders
        template = tmp_path / "chat.jinja"
        template.write_text("{% for m in messages %}{{ m.role }}: {{ m.content }}\n"
                            "{% endfor %}", encoding="utf-8")
        v.set_template_file(str(template))
        qtbot.waitUntil(lambda: not v.rendering, timeout=10_000)
        assert v.result is not None and v.warnings.text() == ""
        assert v.result.text.startswith("system: You answer in one line.\n")
    finally:
        c.shutdown()


@pytest.mark.regression
@pytest.mark.parametrize("width", [260, 500, 1400])
def test_compares_current_step_line_says_it_is_a_parity_run(qtbot, width):
    """Compare's "Step N of the current run: Byte-level, GPT-2 …" was the same for a
    parity run, whose merges served several languages' files: now every form of the
    line says so, and the whole of it (in the tooltip where cut) names the languages."""
    from test_chart_modes import LANGS, parity_controller, train

    from bpe_gui.gui.panels.compare.compare_pane import ComparePane
    c = parity_controller(20)
    try:
        train(c)
        pane = ComparePane(c, "A", "current")
        qtbot.addWidget(pane)
        pane.resize(width, 200)
        pane.show()
        label = pane.current_label
        qtbot.waitUntil(lambda: "Step 20" in label.text())
        assert "parity" in label.text(), label.text()
        whole = label.full_text()
        assert whole.startswith("Step 20 of the current parity-aware run over "), whole
        assert all(f"{name}," in whole or f"{name} " in whole for name in LANGS), whole
        assert "base" in whole and "dev files" in whole, whole
        assert whole in (label.text(), label.toolTip())
    finally:
        c.shutdown()


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_the_merge_lineage_fits_its_width(make_window, qtbot, monkeypatch, size):
    """The merge lineage's tree had fixed columns (190, 60, 70 pixels and the Count)
    wider than its room at 1024x700 and 1920x1080: it scrolled sideways to show the
    Count. The numbers keep their width, the token column takes the rest and cuts a
    long token with "…", the whole of it in the tooltip."""
    from bpe_gui.engine.train import TrainSettings
    win = open_at(make_window, qtbot, monkeypatch, size)
    c = win.controller
    c.set_settings(TrainSettings(num_merges=60))
    c.set_corpus_text("the extraordinarily quick brown fox jumps over the lazy dog " * 40,
                      dirty=False)
    assert win.actions_menus.flow.train()
    qtbot.waitUntil(lambda: not c.busy and c.view() is not None and c.view().is_done,
                    timeout=60_000)
    dl = win.dock_layout
    browser = dl.vocab_browser
    raise_dock(qtbot, win, dl.vocab_dock)
    longest = max(c.view().tokenizer().vocab.items(), key=lambda kv: len(kv[1]))[0]
    assert browser.select_id(longest)
    tree = browser.tree
    qtbot.waitUntil(lambda: tree.topLevelItemCount() == 1)
    root = tree.topLevelItem(0)
    assert root.childCount() == 2 and int(root.text(1)) == longest
    qtbot.waitUntil(lambda: tree.horizontalScrollBar().maximum() == 0)
    width = sum(tree.columnWidth(col) for col in range(tree.columnCount()))
    assert width <= tree.viewport().width(), (width, tree.viewport().width(), size)
    for col in (1, 2, 3):   # numbers and steps whole
        assert tree.columnWidth(col) >= tree.sizeHintForColumn(col), (col, size)
    items = [root]
    while items:
        item = items.pop()
        assert item.toolTip(0).startswith(item.text(0) + " · "), item.toolTip(0)
        items.extend(item.child(i) for i in range(item.childCount()))


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("superbpe", [True, False])
def test_the_timelines_last_row_is_whole_after_a_run(make_window, qtbot, monkeypatch, size,
                                                     superbpe):
    """After a SuperBPE run at 1024x700 the timeline's selected last row was half
    below the table's bottom edge: the table had been scrolled to it, then grew
    shorter (the panels around it settled after the run). The row the panel shows
    stays in sight when the table's height changes, here a window made shorter."""
    from test_superbpe_window import TEXT

    from bpe_gui.gui.controller import training
    win = open_at(make_window, qtbot, monkeypatch, size)
    c = win.controller
    monkeypatch.setattr(training, "SYNC_CHARS", 1000)   # a job, as a real corpus runs
    c.set_corpus_text(TEXT, dirty=False)
    settings = win.dock_layout.settings_panel
    settings.byte_radio.setChecked(True)
    settings.preset_combo.setCurrentIndex(settings.preset_combo.findData("gpt2"))
    settings.vocab_radio.setChecked(True)
    settings.vocab_spin.setValue(600)
    settings.superbpe.check.setChecked(superbpe)
    settings.superbpe.spin.setValue(300)
    assert settings.check(), settings.errors
    assert win.actions_menus.flow.train()
    qtbot.waitUntil(lambda: not c.busy and c.view() is not None and c.view().is_done,
                    timeout=60_000)
    assert (c.view().transition is not None) == superbpe
    panel = win.dock_layout.merge_panel
    view = panel.timeline_view
    if panel.compact or panel.one_column:
        panel.right_tabs.setCurrentWidget(panel.timeline_box)
    qtbot.waitUntil(view.isVisible)
    last = view.model().rowCount() - 1
    assert view.currentIndex().row() == last

    def last_row_whole() -> bool:
        return view.viewport().rect().contains(view.visualRect(view.model().index(last, 0)))
    qtbot.waitUntil(last_row_whole, timeout=3000)
    before = view.viewport().height()
    win.resize(win.width(), win.height() - 60)
    qtbot.waitUntil(lambda: view.viewport().height() < before)
    quiet(qtbot, win)
    assert view.viewport().height() >= view.rowHeight(last)   # (room for it whole)
    assert last_row_whole(), (size, view.viewport().height())
    # the user scrolls up: a change of height leaves the rows where the user put them
    wheel = QWheelEvent(QPointF(20, 20), QPointF(20, 20), QPoint(0, 0), QPoint(0, 240),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(view.viewport(), wheel)
    top = view.verticalScrollBar().value()
    assert top < view.verticalScrollBar().maximum()
    win.resize(win.width(), win.height() - 40)
    quiet(qtbot, win)
    assert view.verticalScrollBar().value() == top


@pytest.mark.regression
@pytest.mark.parametrize("name", ["work.json", "work", "work.session"])
def test_a_session_opens_from_the_command_line_whatever_its_name(make_window, qtbot,
                                                                   tmp_path, name):
    """A session saved as parity.bpe-session.json and given to `bpe-gui NAME` was
    taken for a tokenizer ("is JSON, but of no tokenizer format"); with no suffix at
    all it opened as the corpus, its JSON as text. It opens by its content."""
    import json

    from bpe_gui.engine.train import TrainSettings
    first = make_window()
    c = first.controller
    c.set_settings(TrainSettings(num_merges=12, min_frequency=2))
    c.set_corpus_text("a session with a name of its own " * 30, dirty=False)
    assert c.training.train()
    qtbot.waitUntil(lambda: not c.busy and c.view() is not None and c.view().is_done)
    c.goto(7)
    path = tmp_path / name
    c.opening.session().save(path)
    assert json.loads(path.read_text(encoding="utf-8"))["format"] == "bpe-gui-session"
    win = make_window(load=False)
    errors: list = []
    win.status.show_error = lambda title, message: errors.append((title, message))
    win.sessions.load_initial([str(path)])
    o = win.controller
    qtbot.waitUntil(lambda: not o.busy and o.view() is not None and o.step_index == 7)
    assert errors == []
    assert o.settings == c.settings and o.trainer.merges == c.trainer.merges[:7]
    assert o.session_path == str(path)


@pytest.mark.regression
def test_a_json_file_that_is_neither_says_so(make_window, tmp_path):
    """A .json that is neither a session nor a tokenizer: the message names both kinds
    the window opens, and what the file lacks for each."""
    path = tmp_path / "notes.json"
    path.write_text('{"notes": ["one", "two"]}', encoding="utf-8")
    win = make_window(load=False)
    errors: list = []
    win.status.show_error = lambda title, message: errors.append((title, message))
    before = win.controller.imported
    win.sessions.load_initial([str(path)])
    assert len(errors) == 1, errors
    title, message = errors[0]
    assert str(path) in message
    assert "no tokenizer format" in message and "bpe-gui session" in message
    assert '"format": "bpe-gui-session"' in message and "Save session" in message
    assert win.controller.imported is before and win.controller.session_path != str(path)


@pytest.mark.regression
@pytest.mark.controller("low lower newest widest " * 30, vocab_size=280, step=20)
def test_compares_text_box_shows_whole_lines(controller, qtbot):
    """Compare's text box is a share of the view's height, between two and six lines:
    at 1024x700 it showed two lines and the top half of a third. Its Latin and Han
    lines differ in height; none is drawn cut at any height."""
    from bpe_gui.gui.panels.compare.compare_view import SAMPLE_TEXT, CompareView
    view = CompareView(controller)
    qtbot.addWidget(view)
    view.resize(700, 420)
    view.show()
    view.set_text(SAMPLE_TEXT * 3)
    edit = view.edit
    heights = set()
    for h in range(380, 1100, 23):
        view.resize(700, h)
        qtbot.waitUntil(lambda: view.height() == h)
        QApplication.processEvents()
        heights.add(edit.height())
        assert edit.viewport().height() > 0
        assert cut_lines(edit) == [], (h, edit.height(), edit.viewport().height())
    assert len(heights) >= 2   # (two lines in a short view, more in a tall one)
    # scrolled a line down, and after typing: still no line cut
    edit.verticalScrollBar().setValue(1)
    QApplication.processEvents()
    assert cut_lines(edit) == []
    edit.moveCursor(edit.textCursor().MoveOperation.Start)
    edit.insertPlainText("東京 " * 40 + "\n")
    QApplication.processEvents()
    assert cut_lines(edit) == []
