"""The application shell, driven as a user would: window, sample, steps, files, drops, close."""
from __future__ import annotations

import gzip
import json
import lzma

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QMessageBox


def merges(controller) -> list[str]:
    t = controller.trainer
    return [t.render_pair(s.pair) for s in t.steps]


def test_window_opens_with_the_sample_ready_to_step(window, qtbot):
    c = window.controller
    assert c.corpus_sample == "tutorial"
    assert "low low lower" in window.dock_layout.editor.edit.toPlainText()
    assert c.trainer is not None and c.step_index == 0 and not c.corpus_dirty
    assert "tutorial" in window.windowTitle()
    window.actions_menus.acts["step"].trigger()
    window.actions_menus.acts["step"].trigger()
    window.actions_menus.acts["step"].trigger()
    assert merges(c) == ["t </w>", "s t</w>", "e st</w>"]
    assert "Step 3 / 10" in window.status.step_label.text()
    assert "tie rule: greatest" in window.status.step_label.toolTip()   # the label stays short
    window.actions_menus.acts["back"].trigger()
    assert c.step_index == 2
    window.actions_menus.acts["reset"].trigger()
    assert c.step_index == 0
    window.actions_menus.acts["run"].trigger()
    qtbot.waitUntil(lambda: not c.busy and c.step_index > 0, timeout=10_000)
    assert c.trainer.is_done


@pytest.mark.regression
def test_the_tutorial_puts_the_end_of_word_marker_after_the_word(window, qtbot):
    """The tutorial sample trained with </w> as a prefix ("</w> w i d est"), unlike the
    command line's default and every classic tutorial."""
    c = window.controller
    panel = window.dock_layout.settings_panel
    assert c.settings.mode == "char" and c.settings.end_of_word == "suffix"
    assert panel.eow_combo.currentData() == "suffix"
    c.goto(5)   # w i, wi d merged; e st</w> before them
    qtbot.waitUntil(lambda: not c.busy)
    ids = c.trainer.tokenizer().encode("widest", allowed_special="all")
    assert [c.trainer.render(i) for i in ids] == ["wid", "est</w>"]


def test_stepping_keys_leave_text_editing_keys_alone(window, qtbot):
    """Ctrl+arrows move the cursor by words in a text box; Alt+arrows step anywhere."""
    c = window.controller
    edit = window.dock_layout.merge_panel.filter_edit
    edit.setText("one two three")
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    edit.setCursorPosition(0)
    qtbot.keyClick(edit, Qt.Key_Right, Qt.ControlModifier)
    assert edit.cursorPosition() > 0 and c.step_index == 0
    qtbot.keyClick(edit, Qt.Key_Right, Qt.AltModifier)
    assert c.step_index == 1
    qtbot.keyClick(edit, Qt.Key_Left, Qt.AltModifier)
    assert c.step_index == 0


def test_training_shortcuts_follow_the_brief(window):
    def keys(act):
        return {k.toString() for k in act.shortcuts()}
    assert keys(window.actions_menus.acts["step"]) == {"Alt+Right", "F10"}
    assert keys(window.actions_menus.acts["back"]) == {"Alt+Left", "Shift+F10"}
    assert keys(window.actions_menus.acts["play"]) == {"Ctrl+P"}
    assert {"Ctrl+Return", "F5"} <= keys(window.actions_menus.acts["run"])
    assert keys(window.actions_menus.acts["goto"]) == {"Ctrl+G"}
    assert keys(window.actions_menus.acts["reset"]) == {"Alt+Home"}
    assert keys(window.actions_menus.acts["cancel"]) == {"Esc"}
    assert keys(window.actions_menus.acts["retrain"]) == {"Ctrl+R"}
    assert window.actions_menus.acts["open"].shortcut() == QKeySequence(QKeySequence.Open)
    assert keys(window.actions_menus.acts["save_corpus"]) == {"Ctrl+Shift+S"}
    assert keys(window.actions_menus.acts["import"]) == {"Ctrl+I"}
    assert keys(window.actions_menus.acts["export"]) == {"Ctrl+E"}
    assert keys(window.actions_menus.acts["quit"]) == {"Ctrl+Q"}


def test_keyboard_steps_and_play(window, qtbot):
    c = window.controller
    window.activateWindow()
    window.dock_layout.merge_panel.setFocus()
    qtbot.keyClick(window.dock_layout.merge_panel, Qt.Key_F10)
    assert c.step_index == 1
    qtbot.keyClick(window.dock_layout.merge_panel, Qt.Key_Left, Qt.AltModifier)
    assert c.step_index == 0
    qtbot.keyClick(window.dock_layout.merge_panel, Qt.Key_P, Qt.ControlModifier)
    assert c.playing and window.actions_menus.acts["play"].isChecked()
    qtbot.waitUntil(lambda: c.step_index >= 2, timeout=5_000)
    qtbot.keyClick(window.dock_layout.merge_panel, Qt.Key_P, Qt.ControlModifier)
    assert not c.playing


@pytest.fixture
def corpus_files(tmp_path):
    """One file of each kind the editor opens: txt, md, jsonl, xz, gz."""
    files = {
        "a.txt": "plain text file",
        "b.md": "# markdown heading\n\nsome *markdown*",
        "c.jsonl": json.dumps({"text": "first json doc"}) + "\n"
                   + json.dumps({"text": "second json doc", "id": 2}) + "\n",
    }
    paths = []
    for name, text in files.items():
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        paths.append(p)
    xz = tmp_path / "d.txt.xz"
    with lzma.open(xz, "wt", encoding="utf-8") as f:
        f.write("xz compressed words")
    gz = tmp_path / "e.jsonl.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as f:
        f.write(json.dumps({"text": "gzipped jsonl doc"}) + "\n")
    return [*paths, xz, gz]


def test_open_several_files_of_every_kind(window, corpus_files, ready):
    c = window.controller
    assert window.dock_layout.editor.open_files([str(p) for p in corpus_files])
    ready(c)
    text = c.corpus_text
    for piece in ("plain text file", "# markdown heading", "first json doc", "second json doc",
                  "xz compressed words", "gzipped jsonl doc"):
        assert piece in text
    assert '"text"' not in text  # the jsonl field, not the raw line
    assert window.dock_layout.editor.edit.toPlainText() == text
    assert window.dock_layout.editor.source_label.text().startswith("5 files:")
    assert not c.corpus_dirty and window.dock_layout.editor.unsaved_label.text() == ""
    counts = window.dock_layout.editor.counts()
    assert counts["chars"] == len(text) and counts["bytes"] == len(text.encode())
    assert counts["pretokens"] and counts["unique_pretokens"]
    assert window.recent.paths()[0].endswith("a.txt")
    assert len(window.recent.paths()) == 5


def test_drag_and_drop_files_onto_the_window(window, corpus_files, ready, qtbot):
    c = window.controller
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(corpus_files[0])), QUrl.fromLocalFile(str(corpus_files[3]))])
    enter = QDragEnterEvent(window.rect().center(), Qt.CopyAction, mime, Qt.LeftButton,
                            Qt.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(window.rect().center()), Qt.CopyAction, mime, Qt.LeftButton,
                      Qt.NoModifier)
    QApplication.sendEvent(window, drop)
    assert drop.isAccepted()
    qtbot.waitUntil(lambda: "plain text file" in c.corpus_text, timeout=10_000)
    ready(c)
    assert "xz compressed words" in c.corpus_text
    assert len(c.corpus_paths) == 2


def test_drop_on_the_editor_opens_files_instead_of_pasting_paths(window, corpus_files, qtbot):
    c = window.controller
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(corpus_files[1]))])
    window.dock_layout.editor.edit.insertFromMimeData(mime)
    qtbot.waitUntil(lambda: "markdown heading" in c.corpus_text, timeout=10_000)
    assert str(corpus_files[1]) not in window.dock_layout.editor.edit.toPlainText()


def test_typing_retrains_and_marks_unsaved(window, qtbot, ready):
    c = window.controller
    window.dock_layout.editor.edit.selectAll()
    qtbot.keyClicks(window.dock_layout.editor.edit, "aaa bbb aaa")
    assert window.dock_layout.editor.unsaved_label.text() == "● unsaved"
    qtbot.waitUntil(lambda: c.corpus_text == "aaa bbb aaa", timeout=5_000)
    ready(c)
    assert c.corpus_dirty and window.isWindowModified()
    assert c.trainer.table.total == 5   # (the tutorial splits on whitespace: aaa, " ", bbb, " ", aaa)
    assert "Typed" in window.dock_layout.editor.source_label.text()
    # counts of one in the singular ("1 lines" was shown for a one-line corpus)
    stats = window.dock_layout.editor.stats_label.text().replace("\u00a0", " ")
    assert stats == "11 characters · 11 bytes · 1 line · 5 pre\u2011tokens (3 unique)"
    qtbot.keyClick(window.dock_layout.editor.edit, Qt.Key_Return)
    qtbot.keyClicks(window.dock_layout.editor.edit, "b")
    qtbot.waitUntil(lambda: c.corpus_text == "aaa bbb aaa\nb", timeout=5_000)
    ready(c)
    stats = window.dock_layout.editor.stats_label.text().replace("\u00a0", " ")
    assert stats.startswith("13 characters · 13 bytes · 2 lines · ")


@pytest.mark.parametrize("answer", ["cancel", "discard", "save"])
def test_close_with_unsaved_edits_asks(make_window, qtbot, monkeypatch, tmp_path, answer):
    from PySide6.QtWidgets import QFileDialog
    window = make_window()
    c = window.controller
    window.dock_layout.editor.edit.selectAll()
    qtbot.keyClicks(window.dock_layout.editor.edit, "my precious corpus")
    asked = []
    buttons = {"cancel": QMessageBox.Cancel, "discard": QMessageBox.Discard,
               "save": QMessageBox.Save}

    def question(*args, **kw):
        asked.append(args[1:3])
        return buttons[answer]

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    target = tmp_path / "saved.txt"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(target), "")))
    closed = window.close()
    assert asked and "Unsaved" in asked[0][0]  # the pending edit was flushed first
    if answer == "cancel":
        assert not closed and window.isVisible()
        assert c.corpus_text == "my precious corpus" and c.corpus_dirty
    elif answer == "discard":
        assert closed and not target.exists()
        # and the next start does not bring the discarded edits back (it did, from the
        # autosaved session): the tutorial as it was
        again = make_window()
        assert "my precious corpus" not in again.controller.corpus_text
        assert again.controller.corpus_text.startswith("low low lower")
        assert again.controller.corpus_sample == "tutorial" and not again.controller.corpus_dirty
    else:
        assert closed
        assert target.read_text(encoding="utf-8") == "my precious corpus"
        assert not c.corpus_dirty and c.corpus_paths == [str(target)]


def test_loading_a_sample_over_edits_asks_first(window, qtbot, monkeypatch):
    c = window.controller
    window.dock_layout.editor.edit.selectAll()
    qtbot.keyClicks(window.dock_layout.editor.edit, "unsaved words")
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.Cancel))
    assert not window.dock_layout.editor.load_sample("english")
    assert c.corpus_text == "unsaved words"


@pytest.mark.regression
def test_a_floating_corpus_dock_still_asks_before_its_edits_go(window, qtbot, monkeypatch):
    """The corpus editor looked for the window's maybe_save_corpus through self.window(),
    which is the dock itself once floated: loading a sample dropped the edits unasked."""
    c, editor = window.controller, window.dock_layout.editor
    window.dock_layout.corpus_dock.setFloating(True)
    qtbot.waitUntil(lambda: editor.window() is window.dock_layout.corpus_dock)
    editor.edit.selectAll()
    qtbot.keyClicks(editor.edit, "unsaved words")
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        staticmethod(lambda *a, **k: asked.append(a[1]) or QMessageBox.Cancel))
    assert not editor.load_sample("english")
    assert asked == ["Unsaved corpus"] and c.corpus_text == "unsaved words"


def test_samples_load_with_their_settings(window, ready):
    c = window.controller
    expected = {"tutorial-bytes": ["s t", "e st", "w i", "wi d"],
                "tutorial-prefix": ["s t", "e st", "w i", "wi d"],
                "tutorial": ["t </w>", "s t</w>", "e st</w>", "w i"]}
    window.dock_layout.editor.ask_to_save = lambda what: True   # (yes: the steps may go)
    for sid, first in expected.items():
        assert window.dock_layout.editor.load_sample(sid)
        ready(c)
        c.goto(4)
        assert merges(c) == first
    assert window.dock_layout.editor.load_sample("zh-en")
    ready(c)
    assert c.settings.pattern == "cjk" and "分词器" in c.corpus_text
    assert window.dock_layout.settings_panel.preset_combo.currentData() == "cjk"
    titles = [a.text() for a in window.actions_menus.samples_menu.actions()]
    assert len(titles) == 5 and any("中文" in t for t in titles)


@pytest.mark.slow
def test_layout_recent_files_and_theme_are_remembered(make_window, corpus_files, ready):
    first = make_window()
    first.dock_layout.editor.open_files([str(corpus_files[0])])
    ready(first.controller)
    first.dock_layout.vocab_dock.hide()
    first.themes.set("dark")
    first.resize(1300, 900)
    first.close()
    second = make_window(load=False)
    assert not second.dock_layout.vocab_dock.isVisible()
    assert second.themes.name == "dark" and second.actions_menus.theme_actions["dark"].isChecked()
    assert second.recent.paths()[0] == str(corpus_files[0].resolve())
    second.actions_menus.recent_menu.aboutToShow.emit()
    assert any("a.txt" in a.text() for a in second.actions_menus.recent_menu.actions())
    second.themes.set("light")
    second.dock_layout.reset_layout()
    assert second.dock_layout.vocab_dock.isVisible()


def test_dark_palette_is_dark_and_light_is_light(window, qtbot):
    from bpe_gui.gui.theme import is_dark
    window.themes.set("dark", save=False)
    qtbot.wait(1)
    assert is_dark() and is_dark(window) and is_dark(window.dock_layout.settings_panel)
    window.themes.set("light", save=False)
    qtbot.wait(1)
    assert not is_dark() and not is_dark(window.dock_layout.editor)


def test_status_bar_progress_and_cancel_follow_jobs(window, qtbot, idle):
    c = window.controller
    assert window.status.progress_bar.isHidden() and window.status.cancel_button.isHidden()
    assert not window.actions_menus.acts["cancel"].isEnabled()
    # a job that waits for cancel
    import time

    def job(progress, cancelled):
        from bpe_gui.engine.corpus.counting import Cancelled
        for i in range(500):
            if cancelled():
                raise Cancelled()
            progress(i, 500)
            time.sleep(0.01)

    from bpe_gui.gui.controller.jobs import Job
    assert c.start(Job("Slow job", job))
    qtbot.waitUntil(lambda: window.status.progress_bar.isVisible(), timeout=2_000)
    assert window.status.cancel_button.isVisible()
    assert window.actions_menus.acts["cancel"].isEnabled()
    assert not window.actions_menus.acts["step"].isEnabled()
    qtbot.waitUntil(lambda: window.status.progress_bar.value() > 0, timeout=3_000)
    assert "Slow job" in window.status.progress_label.text()
    window.status.cancel_button.click()
    idle(c)
    assert window.status.progress_bar.isHidden() and window.actions_menus.acts["step"].isEnabled()
    assert "cancelled" in window.statusBar().currentMessage()


@pytest.mark.slow
def test_last_session_reopens_unless_turned_off(make_window, tmp_path, ready, qtbot):
    first = make_window()
    c = first.controller
    # on by default: work comes back after a quit
    assert first.actions_menus.acts["reopen"].isChecked()
    first.dock_layout.editor.load_sample("english")
    ready(c)
    c.goto(7)
    first.close()
    assert (tmp_path / "autosave.bpesession").exists()
    second = make_window()
    assert second.controller.corpus_sample == "english"
    assert second.controller.step_index == 7
    assert "Restored where you left off" in second.statusBar().currentMessage()
    second.actions_menus.acts["reopen"].trigger()   # File > Reopen last session at startup: off
    assert not second.actions_menus.acts["reopen"].isChecked()
    third = make_window()
    assert third.controller.corpus_sample == "tutorial"  # back to the built-in sample


def test_window_fits_a_small_screen(window):
    hint = window.minimumSizeHint()
    assert hint.width() <= 1280 and hint.height() <= 720
    for dock in window.dock_layout.docks():
        assert dock.objectName()  # needed for saveState
    names = {d.windowTitle() for d in window.dock_layout.docks()}
    assert {"Corpus", "Training settings", "Encode", "Vocabulary"} <= names


def test_unexpected_error_in_a_slot_shows_a_dialog(window, qtbot, monkeypatch):
    from bpe_gui.gui import app as app_module
    shown = []
    monkeypatch.setattr(app_module.QMessageBox, "open", lambda self: shown.append(
        (self.text(), self.detailedText())))
    try:
        raise RuntimeError("slot bug")
    except RuntimeError:
        import sys
        app_module._excepthook(*sys.exc_info())
    assert shown and "RuntimeError: slot bug" in shown[0][0]
    assert "Traceback" in shown[0][1]


def test_sample_fills_the_encode_view_but_keeps_user_text(window, qtbot):
    from bpe_gui import resources
    win = window
    win.dock_layout.editor.load_sample("zh-en")
    expected = resources.sample("zh-en").encode_text
    qtbot.waitUntil(lambda: win.sessions.encode_text() == expected, timeout=3000)
    win.sessions.set_encode_text("my own text")
    win.dock_layout.editor.load_sample("tutorial")
    assert win.sessions.encode_text() == "my own text"
