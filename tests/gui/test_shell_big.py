"""A big corpus loads and trains off the GUI thread, the GUI thread running meanwhile;
the app starts and shows its window.

How responsive (the longest GUI-thread wait, the time to the first window) is measured
on purpose by bench/test_gui_responsiveness.py and bench/test_gui_latency.py: timings
flake on a loaded machine, so none is asserted here.
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

pytestmark = pytest.mark.slow   # big files, memory bounds: CI runs it

ROOT = Path(__file__).resolve().parents[2]


class Heartbeat:
    """A GUI-thread timer that counts its ticks, and those that came while a job ran
    (which shows the GUI thread was free while the worker worked)."""

    def __init__(self, controller, interval_ms: int = 10):
        self.controller = controller
        self.timer = QTimer(interval=interval_ms)
        self.timer.timeout.connect(self._tick)
        self.ticks = 0
        self.ticks_while_busy = 0

    def _tick(self) -> None:
        self.ticks += 1
        self.ticks_while_busy += bool(self.controller.busy)

    def __enter__(self):
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.stop()


def make_big_corpus(path: Path, size: int = 5_000_000) -> Path:
    rng = random.Random(4)
    words = ["".join(rng.choice("etaoinshrdlucmfwypvbgk") for _ in range(rng.randint(2, 9)))
             for _ in range(6000)]
    lines, n = [], 0
    while n < size:
        line = " ".join(rng.choices(words, k=rng.randint(6, 16))) + ".\n"
        lines.append(line)
        n += len(line)
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_big_file_loads_and_trains_while_the_gui_keeps_ticking(window, tmp_path, qtbot, ready):
    c = window.controller
    big = make_big_corpus(tmp_path / "big.txt")
    with Heartbeat(c) as beat:
        assert window.dock_layout.editor.open_files([str(big)])
        qtbot.waitUntil(lambda: window.status.progress_bar.isVisible(), timeout=5_000)
        qtbot.waitUntil(lambda: c.streamed, timeout=30_000)
        # never read whole: the window holds the first MiB as a read-only preview
        assert 0 < len(c.corpus_text.encode()) <= 1 << 20
        assert big.read_text(encoding="utf-8").startswith(c.corpus_text)
        editor = window.dock_layout.editor
        assert editor.is_preview and not editor.banner.isHidden()
        assert "read-only" in editor.banner.text()
        assert "whole corpus" in editor.banner.text()
        assert editor.edit.isReadOnly()
        assert len(window.dock_layout.editor.edit.toPlainText()) <= 1_000_000
        ready(c, 60_000)
        load_ticks = beat.ticks_while_busy
        c.set_settings(c.settings.__class__(vocab_size=600))
        assert c.training.retrain()
        ready(c, 60_000)
        assert c.training.to_target()
        qtbot.waitUntil(lambda: not c.busy, timeout=60_000)
    assert c.trainer.vocab_size == 600
    qtbot.waitUntil(lambda: window.dock_layout.editor.counts()["bytes"] is not None, timeout=5_000)
    counts = window.dock_layout.editor.counts()
    assert counts["bytes"] == big.stat().st_size and counts["pretokens"] > 500_000
    # the GUI thread kept running while the reading and the training went on
    assert load_ticks > 0 and beat.ticks_while_busy > load_ticks


def test_big_paste_goes_to_the_preview_not_the_editor(window, qtbot):
    from PySide6.QtCore import QMimeData
    c = window.controller
    mime = QMimeData()
    mime.setText("word " * 900_000)   # over the editor's 4 million characters
    window.dock_layout.editor.edit.selectAll()
    window.dock_layout.editor.edit.insertFromMimeData(mime)
    assert len(c.corpus_text) == 4_500_000 and c.corpus_dirty
    assert window.dock_layout.editor.is_preview


@pytest.mark.skipif(sys.platform == "win32", reason="uses a POSIX environment")
def test_app_starts_shows_its_window_and_quits(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BPE_GUI_STARTUP_PROBE="quit",
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "bpe_gui.gui.app"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert any(ln.startswith("first window shown after ") for ln in proc.stdout.splitlines())
    assert "Traceback" not in proc.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_termination_signal_closes_the_window_like_quit(tmp_path, sig):
    """`kill` (SIGTERM, as at logout) or Ctrl+C in the terminal (SIGINT): the app saves
    its layout, exits with status 0 and prints no traceback; before, Python never got to
    run its handler inside Qt's loop (SIGTERM killed the process with nothing saved)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BPE_GUI_STARTUP_PROBE="1",
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "bpe_gui.gui.app"], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()          # blocks until the window is shown
        assert line.startswith("first window shown after "), proc.stderr.read()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    conf = tmp_path / "config" / "bpe-gui" / "bpe-gui.conf"
    assert conf.exists() and "windowState" in conf.read_text()


def test_quit_for_a_signal_asks_nothing_and_keeps_unsaved_edits(make_window, ready, qtbot,
                                                                  monkeypatch, tmp_path):
    """Nothing may ask a question while the session ends: unsaved corpus edits go into
    the autosaved session, which the next start offers back."""
    from PySide6.QtWidgets import QMessageBox

    def no_questions(*a, **k):
        raise AssertionError("a dialog was opened while quitting for a signal")
    monkeypatch.setattr(QMessageBox, "question", no_questions)
    win = make_window()
    c = win.controller
    ready(c)
    # "Reopen last session at startup" off (it is on by default)
    win.actions_menus.acts["reopen"].trigger()
    assert not win.actions_menus.acts["reopen"].isChecked()
    win.dock_layout.editor.edit.setPlainText("unsaved words, typed just now")
    win.dock_layout.editor.flush()
    assert c.corpus_dirty
    win.quit_for_signal()
    qtbot.waitUntil(lambda: not win.isVisible())
    auto = win.sessions.autosave_path()
    assert auto.exists() and "unsaved words, typed just now" in auto.read_text(encoding="utf-8")
    # the next start opens them again, although "Reopen last session" is off
    messages = []
    again = make_window(load=False)
    assert not again.actions_menus.acts["reopen"].isChecked()
    again.controller.message.connect(messages.append)
    again.sessions.load_initial([])
    ready(again.controller)
    assert again.controller.corpus_text == "unsaved words, typed just now"
    assert any("closed by a signal" in m for m in messages)
    # only once: a later start opens the sample as usual
    third = make_window()
    ready(third.controller)
    assert third.controller.corpus_text != "unsaved words, typed just now"


@pytest.mark.regression
def test_a_corpus_of_a_few_mb_opens_editable(window, tmp_path, qtbot, ready):
    """A 1.1 MB corpus opened read-only and streamed: a file that small is edited."""
    c, editor = window.controller, window.dock_layout.editor
    path = make_big_corpus(tmp_path / "mid.txt", 1_100_000)
    with Heartbeat(c, interval_ms=5) as beat:
        assert editor.open_files([str(path)])
        qtbot.waitUntil(lambda: not c.streamed and len(c.corpus_text) >= 1_000_000,
                        timeout=30_000)
        assert c.corpus_text == path.read_text(encoding="utf-8")
        # put in a slice per tick (the window goes on meanwhile), then editable
        qtbot.waitUntil(lambda: not editor.preview_loading and not editor.edit.isReadOnly(),
                        timeout=30_000)
        assert beat.ticks > 1
    assert not editor.is_preview and editor.banner.isHidden()
    assert editor.edit.toPlainText() == c.corpus_text
    ready(c, 60_000)
    editor.edit.moveCursor(editor.edit.textCursor().MoveOperation.End)
    qtbot.keyClicks(editor.edit, " zyx")
    qtbot.waitUntil(lambda: c.corpus_text.endswith(" zyx"), timeout=10_000)
    assert c.corpus_dirty
