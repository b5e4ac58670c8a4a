"""Export of a big vocabulary runs on the worker thread (it froze the window while
every format was rendered and written on the GUI thread): the dialog shows progress,
a failure says why clearly, and Close cancels after the format being written, whose
files stay whole and are reported."""
from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt

import bpe_gui.gui.controller.tokenizer_files as tf
import bpe_gui.gui.dialogs.export_dialog as ed
from bpe_gui.engine.formats import load_tokenizer
from bpe_gui.engine.formats.exports import RECORD


@pytest.fixture
def trained(window, ready, monkeypatch):
    c = window.controller
    assert window.dock_layout.editor.load_sample("english")
    ready(c)
    assert c.goto(30)
    monkeypatch.setattr(ed, "BACKGROUND_TOKENS", 100)   # 286 tokens count as big here
    return window


@pytest.fixture
def gate(monkeypatch, trained):
    """Each format's export waits for the test to open the gate; records its thread."""
    state = {"threads": [], "open": threading.Event(), "entered": threading.Event()}
    real = tf.export_tokenizer

    def held(*args, **kwargs):
        state["threads"].append(threading.current_thread())
        state["entered"].set()
        assert state["open"].wait(20)
        return real(*args, **kwargs)
    monkeypatch.setattr(tf, "export_tokenizer", held)
    yield state
    state["open"].set()   # never leave the worker waiting when a test fails


def dialog(qtbot, window, folder, fmts=("gpt2", "hf", "native")):
    dlg = ed.ExportDialog(window.controller, window)
    dlg.show()
    qtbot.waitExposed(dlg)
    for fmt, cb in dlg.checks.items():
        cb.setChecked(fmt in fmts)
    dlg.folder_edit.setText(str(folder))
    dlg.name_edit.setText("big")
    return dlg


def test_big_export_runs_off_the_gui_thread_with_progress(trained, qtbot, tmp_path, gate):
    c = trained.controller
    expected = c.trainer.tokenizer().encode("The quick brown fox, 12345!", allowed_special="all")
    dlg = dialog(qtbot, trained, tmp_path / "out")
    qtbot.mouseClick(dlg.export_button, Qt.LeftButton)
    # the GUI thread is free while the worker writes: the dialog shows it is writing
    qtbot.waitUntil(lambda: gate["entered"].is_set())
    assert dlg.writing and dlg.progress.isVisible() and not dlg.export_button.isEnabled()
    assert not dlg.browse_button.isEnabled() and not dlg.folder_edit.isEnabled()
    assert dlg.progress.maximum() == 3
    gate["open"].set()
    qtbot.waitUntil(lambda: not dlg.writing, timeout=20_000)
    assert all(t is not threading.main_thread() for t in gate["threads"])
    assert len(gate["threads"]) == 3 and not dlg.failed
    assert not dlg.progress.isVisible() and dlg.export_button.isEnabled()
    assert dlg.files.count() == len(dlg.written) and "Wrote" in dlg.status.text()
    tok_json = tmp_path / "out" / "big-tokenizer.json"
    assert tok_json.exists() and load_tokenizer(tok_json).encode(
        "The quick brown fox, 12345!", allowed_special="all") == expected
    dlg.close()


def test_big_export_to_a_file_instead_of_a_folder_says_why(trained, qtbot, tmp_path, gate):
    c = trained.controller
    shown = []
    c.errorOccurred.connect(lambda title, msg: shown.append((title, msg)))
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file", encoding="utf-8")
    gate["open"].set()
    dlg = dialog(qtbot, trained, blocker / "sub")
    qtbot.mouseClick(dlg.export_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: gate["entered"].is_set() and not dlg.writing, timeout=20_000)
    assert set(dlg.failed) == {"gpt2", "hf", "native"} and not dlg.written
    assert len(shown) == 1 and "Traceback" not in shown[0][1]
    assert "not-a-folder" in shown[0][1] or "folder" in shown[0][1].lower()
    assert "Not written" in dlg.status.text()
    assert not (blocker / "sub").exists()
    dlg.close()


def test_closing_cancels_after_the_format_being_written(trained, qtbot, tmp_path, gate):
    c = trained.controller
    said = []
    c.message.connect(said.append)
    dlg = dialog(qtbot, trained, tmp_path / "out", fmts=("hf", "native"))
    qtbot.mouseClick(dlg.export_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: gate["entered"].is_set())
    dlg.reject()                      # Close while the first format is being written
    gate["open"].set()
    qtbot.waitUntil(lambda: not c.busy, timeout=20_000)
    written = sorted(p.name for p in (tmp_path / "out").iterdir() if p.name != RECORD)
    assert written == ["big-tokenizer.json"] and len(gate["threads"]) == 1   # the second never began
    assert load_tokenizer(tmp_path / "out" / "big-tokenizer.json").vocab == c.trainer.tokenizer().vocab
    assert any("Exported big-tokenizer.json" in m for m in said)
