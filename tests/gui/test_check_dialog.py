"""Check my BPE in the window: the dialog opened from the Training menu checks a
learner's result against the corpus in the window (or a file) on the job runner, shows
the first difference and its cause, steps both lists side by side, lists the words where
the two pairs occur, and checks an encoder's ids."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

import bpe_learners as L
from bpe_gui.gui.dialogs.check_dialog import CheckDialog, show_check_dialog

VOCAB = 256 + 1 + 150
TEXT = L.tutorial_text()
pytestmark = pytest.mark.controller(TEXT, vocab_size=VOCAB, special_tokens=(L.EOT,))


@pytest.fixture
def dialog(qtbot, controller):
    dlg = CheckDialog(controller)
    qtbot.addWidget(dlg)
    dlg.show()
    return dlg


def run_check(qtbot, dlg) -> None:
    panel = dlg.panel
    with qtbot.waitSignal(panel.controller.jobs.finished, timeout=30_000):
        assert panel.run_check()
    qtbot.waitUntil(lambda: panel.check is not None and not panel.controller.busy)


def test_a_wrong_trainer_is_explained_and_stepped_through(qtbot, dialog, tmp_path):
    vocab, merges = L.train(TEXT, VOCAB, pick=L.first_seen)
    panel = dialog.panel
    panel.set_result(str(L.write_pickle(tmp_path, vocab, merges)))   # the window's corpus
    run_check(qtbot, dialog)
    view = panel.merges
    d = panel.check.report.difference
    assert (d.step, d.cause) == (16, "tie")
    assert "Merge 16 differs" in view.headline.text()
    assert "a tie broken another way" in view.headline.text()
    assert view.sentence.text() == d.sentence
    assert "Settings found" in view.found.text()
    assert view.step == 16 and view.strip.current == 16
    assert view.steps_model.statuses[:15] == ["same"] * 15
    assert view.steps_model.statuses[15] == "part"
    view.go_first_difference()
    qtbot.keyClick(view.steps_view, Qt.Key_Down)
    assert view.step == 17
    view.go(1)
    view.go_next_difference()
    assert view.step == 16
    view.jump_to_words()
    assert view.bottom.currentIndex() == 0
    title, model, _ = view.words["yours"]
    assert model.rowCount() == len(d.their_words) and "·a n" in title.text()
    assert "⟦" in model.data(model.index(0, 1))


def test_a_corpus_file_and_given_settings(qtbot, dialog, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    vocab, merges = L.train(TEXT, VOCAB, pick=L.first_seen)
    panel = dialog.panel
    panel.set_result(str(L.write_pickle(tmp_path, vocab, merges)), str(corpus))
    panel.tie_box.setCurrentIndex(panel.tie_box.findData("first-seen"))
    run_check(qtbot, dialog)
    assert panel.check.report.agree
    assert "All 150 merges agree" in panel.merges.headline.text()
    assert panel.check.corpus_name == "corpus.txt"


def test_a_result_that_cannot_be_read_says_why(qtbot, dialog, tmp_path):
    bad = tmp_path / "bad.pkl"
    bad.write_bytes(b"\x80\x04garbage")
    panel = dialog.panel
    panel.set_result(str(bad))
    panel.controller.errorOccurred.connect(lambda *a: None)
    with qtbot.waitSignal(panel.controller.jobs.failed, timeout=30_000):
        panel.run_check()
    qtbot.waitUntil(lambda: "not a readable pickle" in panel.status.text())
    assert panel.check is None


def test_an_encoders_ids(qtbot, dialog, tmp_path):
    vocab, merges = L.train(TEXT, VOCAB)
    panel = dialog.panel
    panel.set_result(str(L.write_pickle(tmp_path, vocab, merges)))
    sample = "The newest café<|endoftext|>Hmmm, the lowest road"
    wrong = L.encode(sample, vocab, merges, pick=max)
    panel.encode.text_edit.setPlainText(sample)
    panel.encode.ids_edit.setPlainText(" ".join(map(str, wrong)))
    with qtbot.waitSignal(panel.controller.jobs.finished, timeout=30_000):
        assert panel.run_ids(sample, panel.encode.ids_edit.toPlainText())
    qtbot.waitUntil(lambda: panel.encode.report is not None)
    r = panel.encode.report
    assert r is not None and r.cause == "order"
    assert "merges applied out of rank order" in panel.encode.sentence.text().lower()
    assert panel.encode.playback_rule.count() == len(r.word.playback.steps) + 1
    assert panel.encode.playback_theirs.count() == len(r.word.their_steps) + 1
    assert any(panel.encode.theirs_flow.marks)


def test_opened_from_the_training_menu(qtbot, window):
    action = window.actions_menus.acts["check"]
    assert action.shortcut().toString() == "Ctrl+Shift+B"
    titles = [a.text() for m in window.menuBar().actions() if "Training" in m.text()
              for a in m.menu().actions()]
    assert "Check &my BPE…" in titles
    action.trigger()
    dlg = window.findChild(CheckDialog)
    assert dlg is not None and dlg.isVisible()
    assert show_check_dialog(window.controller, window) is dlg     # one dialog, brought to the front
    assert "The corpus in the window" in dlg.panel.use_window.text()
    dlg.close()


def test_a_word_count_table_in_the_window_is_no_corpus_for_the_check(controller):
    from bpe_gui.engine import PretokenTable
    from bpe_gui.gui.controller.corpus_source import TableCorpus
    controller.corpus = TableCorpus(PretokenTable.from_counter({"low": 5}))
    source, why = controller.checking.window_corpus()
    assert source is None and "word-count table" in why


def test_cancel_drops_a_running_check(qtbot, dialog, tmp_path):
    vocab, merges = L.train(TEXT, VOCAB, count=L.count_runs_halved)
    panel = dialog.panel
    panel.set_result(str(L.write_pickle(tmp_path, vocab, merges)))
    assert panel.run_check()
    assert panel.controller.busy
    panel.controller.cancel()
    qtbot.waitUntil(lambda: "cancelled" in panel.status.text(), timeout=10_000)
    qtbot.waitUntil(lambda: not panel.controller.busy, timeout=10_000)
    assert panel.check is None and panel.check_btn.isEnabled()


@pytest.mark.regression
def test_enter_after_browse_checks(qtbot, dialog, tmp_path, monkeypatch):
    """Enter after Browse… opened the file dialog again instead of checking: Browse…, not
    Check merges, was the dialog's default button."""
    from PySide6.QtWidgets import QFileDialog, QPushButton
    vocab, merges = L.train(TEXT, VOCAB, pick=L.first_seen)
    path = str(L.write_pickle(tmp_path, vocab, merges))
    picked = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda *a, **k: picked.append(a) or (path, ""))
    qtbot.waitExposed(dialog)
    panel = dialog.panel
    browse = next(b for b in dialog.findChildren(QPushButton) if b.text() == "Browse…")
    target = browse
    qtbot.mouseClick(browse, Qt.MouseButton.LeftButton)
    assert len(picked) == 1 and panel.check_btn.isEnabled()
    with qtbot.waitSignal(panel.controller.jobs.finished, timeout=30_000):
        assert dialog.focusWidget() is target
        qtbot.keyClick(target, Qt.Key.Key_Return)
    assert len(picked) == 1
    qtbot.waitUntil(lambda: panel.check is not None and not panel.controller.busy)


def check_two_mistakes(qtbot, dialog, tmp_path):
    vocab, merges = L.train(TEXT, VOCAB, words_of=L.whole_documents, pick=L.first_seen)
    dialog.panel.set_result(str(L.write_pickle(tmp_path, vocab, merges)))
    run_check(qtbot, dialog)
    return dialog.panel.check.report


@pytest.mark.regression
def test_every_cause_and_a_count_of_0_are_shown(qtbot, dialog, tmp_path):
    """The window named only the first cause and left "count 0" and an empty word list
    unexplained."""
    report = check_two_mistakes(qtbot, dialog, tmp_path)
    view = dialog.panel.merges
    assert "then at merge" in view.headline.text()
    assert "a tie broken another way" in view.headline.text()
    for d in report.differences:
        assert d.sentence in view.sentence.text()
    _, _, counted = view.pair_labels["yours"]
    assert counted.text() == "count 0"
    assert view.zero.isVisibleTo(view) and "across a boundary" in view.zero.text()
    title = view.words["yours"][0].text()
    assert "(0)" in title and "across a boundary" in title
    box = dialog.panel.pattern_box
    assert box.findData("none") >= 0


def test_the_wrong_corpus_is_asked_about_in_the_window(qtbot, dialog, tmp_path, corpora_dir):
    import lzma
    other = tmp_path / "other.txt"
    other.write_text(lzma.open(corpora_dir / "en-tinyshakespeare.txt.xz", "rt",
                               encoding="utf-8").read()[:30_000], encoding="utf-8")
    vocab, merges = L.train(TEXT, VOCAB)
    dialog.panel.set_result(str(L.write_pickle(tmp_path, vocab, merges)), str(other))
    run_check(qtbot, dialog)
    warning = dialog.panel.merges.warning
    assert warning.isVisible() and "Is this the corpus you trained on?" in warning.text()


@pytest.mark.regression
@pytest.mark.parametrize("size", [(800, 600), (1024, 700), (1920, 1080)])
def test_the_dialog_fits_the_screen_with_lists_to_read(qtbot, dialog, tmp_path, size):
    """At 800x600 the dialog was taller than the screen (the lower tables out of reach);
    at 1024x700 the side-by-side list showed about 3 rows."""
    w, h = size[0] - 40, size[1] - 60   # as the dialog sizes itself on such a screen
    dialog.setMaximumSize(w, h)   # (the offscreen screen is 800x800, not the one simulated)
    dialog.resize(w, h)
    qtbot.waitUntil(lambda: dialog.height() == h)
    check_two_mistakes(qtbot, dialog, tmp_path)
    hint = dialog.minimumSizeHint()
    assert hint.width() <= w and hint.height() <= h, hint
    view = dialog.panel.merges

    def rows(table) -> int:
        return table.viewport().height() // table.verticalHeader().defaultSectionSize()
    small = h < 600
    qtbot.waitUntil(lambda: rows(view.steps_view) >= (2 if small else 4))
    view.jump_to_words()    # ("Words where both pairs occur": the lists get the room)
    want = 3 if small else 6    # rows of each word list at least: more where there is room
    shown = [t for _, m, t in view.words.values() if m.rowCount()]
    assert shown
    for table in shown:
        qtbot.waitUntil(lambda: rows(table) >= want)
        assert table.isVisible()
    assert view.info_scroll.viewport().height() >= view.fontMetrics().height() * 2


def whole(widget) -> bool:
    """Shown, and nothing of it scrolled or clipped away."""
    return widget.isVisible() and widget.visibleRegion().boundingRect() == widget.rect()


@pytest.mark.regression
@pytest.mark.parametrize("size", [(800, 600), (1024, 700), (1920, 1080)])
def test_the_inputs_are_never_squeezed_into_a_scroll_area(qtbot, dialog, tmp_path, size):
    """At 1024x700 a check's findings left the inputs a one-row scroll area: now they
    are whole, or folded away behind the Inputs button, which brings them back whole."""
    w, h = size[0] - 40, size[1] - 60   # as the dialog sizes itself on such a screen
    dialog.setMaximumSize(w, h)
    dialog.resize(w, h)
    qtbot.waitUntil(lambda: dialog.height() == h)
    panel = dialog.panel
    inputs = (panel.result_edit, panel.corpus_edit, panel.specials_edit, panel.mode_box)
    assert all(whole(x) for x in inputs)   # before a check: all of them
    check_two_mistakes(qtbot, dialog, tmp_path)
    scroll = panel.form_scroll
    if scroll.isVisible():
        assert not panel.inputs_btn.isVisible() and h >= 650
    else:
        assert h < 650 and whole(panel.inputs_btn) and panel.inputs_btn.text() == "Inputs"
        qtbot.mouseClick(panel.inputs_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: all(whole(x) for x in inputs))
    assert scroll.verticalScrollBar().maximum() == 0, scroll.verticalScrollBar().maximum()
    assert whole(panel.check_btn)
    table = panel.merges.steps_view   # and the findings keep rows to read below them
    assert table.viewport().height() >= 2 * table.verticalHeader().defaultSectionSize()
