"""The window on a corpus too big to hold (issue #9): open a file, pre-tokenize it (read in
blocks), train to a target, and Cancel in each phase, in a fresh process whose whole
tree's peak memory is measured (treemem.py). Offscreen; nothing is asserted.

    python bench/bench_big_corpus_window.py FILE [--vocab-size 32000] [--no-cancel]
                                                 [--walkthrough]

Prints the time to the preview, to the end of pre-tokenizing and of training, the
longest GUI-thread wait meanwhile, Cancel's delay (Esc to a free window) while reading
and while merging, and the peak memory of the app against the CLI's (``bpe-gui train``
on the same file, measured in the same run). ``--walkthrough`` adds a new user's first
session: the tutorial sample first, then the file, 32k, train, and a look around.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def rss_mb() -> float:
    """This process's resident memory now (MB)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1000
    return 0.0


def child(path: str, vocab_size: int, cancel_at: str | None) -> None:
    """In the measured process: the window, driven through its own actions."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from PySide6.QtCore import QSettings, QStandardPaths, QTimer
    from PySide6.QtWidgets import QApplication
    QStandardPaths.setTestModeEnabled(True)   # no autosave of the user's is opened
    app = QApplication([])
    import bpe_gui.gui  # noqa: F401
    from bpe_gui.engine.train.trainer import TrainSettings
    from bpe_gui.gui.app import apply_process_settings
    from bpe_gui.gui.window.main_window import MainWindow
    apply_process_settings()   # as app.main: gc.freeze after jobs, GIL interval
    win = MainWindow(settings=QSettings(tempfile.mkdtemp() + "/s.ini", QSettings.IniFormat))
    win.resize(1600, 1000)
    win.show()
    c = win.controller
    if cancel_at == "walkthrough":
        walkthrough(app, win, path, vocab_size)
        return
    out: dict = {}
    gaps = {"max": 0.0, "last": time.perf_counter()}

    def beat() -> None:
        now = time.perf_counter()
        gaps["max"] = max(gaps["max"], now - gaps["last"])
        gaps["last"] = now
    timer = QTimer(interval=10)
    timer.timeout.connect(beat)
    timer.start()

    def pump(until, limit: float = 3600) -> None:
        end = time.perf_counter() + limit
        while not until() and time.perf_counter() < end:
            app.processEvents()
            time.sleep(0.002)

    def cancel_now() -> float:
        t = time.perf_counter()
        win.actions_menus.acts["cancel"].trigger()
        pump(lambda: not c.busy, 30)
        return time.perf_counter() - t

    t0 = time.perf_counter()
    c.set_settings(TrainSettings(vocab_size=vocab_size))
    win.dock_layout.editor.open_files([path])
    pump(lambda: c.streamed)
    out["preview_s"] = time.perf_counter() - t0
    if cancel_at == "reading":
        pump(lambda: c.busy and c.jobs.label.startswith("Reading and"))
        time.sleep(3)                        # well into the file
        app.processEvents()
        out["cancel_reading_s"] = cancel_now()
        print(json.dumps(out))
        c.shutdown()   # waits for the dropped job's thread to notice and end
        return
    pump(lambda: not c.busy and c.trainer is not None)
    out["pretokenized_s"] = time.perf_counter() - t0
    out["unique_words"] = len(c.trainer.table)
    t1 = time.perf_counter()
    win.actions_menus.acts["run"].trigger()
    if cancel_at == "merging":
        pump(lambda: c.trainer.n_steps > 2000 or not c.busy)
        out["cancel_merging_at_step"] = c.trainer.n_steps
        out["cancel_merging_s"] = cancel_now()
        print(json.dumps(out))
        c.shutdown()
        return
    pump(lambda: not c.busy)
    out["train_s"] = time.perf_counter() - t1
    out["steps"] = c.step_index
    out["last_has_detail"] = bool(c.trainer.steps[-1].reason)
    pump(lambda: False, 1.0)                 # the panels catch up
    out["max_gui_gap_ms"] = round(gaps["max"] * 1000)
    print(json.dumps(out))
    c.shutdown()


def walkthrough(app, win, path: str, vocab_size: int) -> None:
    """A new user's first session: the app starts on the tutorial sample, opens the big
    file, sets byte-level 32k in Training settings, trains (F5), then looks around:
    steps back and forth on the timeline, the vocabulary tab, the charts."""
    from bpe_gui.engine.train.trainer import TrainSettings
    c = win.controller
    out: dict = {}

    def pump(until, limit: float = 3600) -> None:
        end = time.perf_counter() + limit
        while not until() and time.perf_counter() < end:
            app.processEvents()
            time.sleep(0.002)
    win.sessions.load_initial([])
    pump(lambda: not c.busy and c.trainer is not None)
    out["start_mb"] = rss_mb()
    win.dock_layout.editor.open_files([path])
    pump(lambda: c.streamed and not c.busy)
    c.set_settings(TrainSettings(vocab_size=vocab_size))
    win.actions_menus.acts["run"].trigger()
    pump(lambda: not c.busy and c.trainer is not None and c.trainer.is_done)
    pump(lambda: False, 1.0)
    out["trained_steps"] = c.step_index
    out["trained_mb"] = rss_mb()
    for k in (c.step_index // 2, 100, c.step_index):   # the timeline, back and forth
        c.goto(k)
        pump(lambda: not c.busy)
        pump(lambda: False, 0.3)
    d = win.dock_layout
    for dock in (d.vocab_dock, d.charts_dock, d.compare_dock, d.vocab_dock):
        dock.raise_()
        pump(lambda: False, 1.0)
        pump(lambda: not c.busy, 120)
    out["after_session_mb"] = rss_mb()
    print(json.dumps(out))
    c.shutdown()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--vocab-size", type=int, default=32_000)
    ap.add_argument("--no-cancel", action="store_true")
    ap.add_argument("--walkthrough", action="store_true",
                    help="also a new user's first session (tutorial sample first, then the "
                    "file, 32k, train, look around)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child is not None:
        child(a.file, a.vocab_size, a.child or None)
        return
    from treemem import run_measured
    size = Path(a.file).stat().st_size
    print(f"{a.file}: {size / 1e9:.2f} GB on disk, vocab size {a.vocab_size:,}")
    cli = run_measured([sys.executable, "-m", "bpe_gui.cli", "train", a.file, "--vocab-size",
                        str(a.vocab_size), "--out", tempfile.mkdtemp(), "-q"])
    print(f"  the CLI, bpe-gui train on the same file: {cli['secs']:.1f} s, peak memory "
          f"{cli['peak_mb']:.0f} MB")
    phases = [""] if a.no_cancel else ["", "reading", "merging"]
    for phase in phases + (["walkthrough"] if a.walkthrough else []):
        res = run_measured([sys.executable, __file__, a.file, "--vocab-size",
                            str(a.vocab_size), "--child", phase],
                           env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        lines = [ln for ln in res["stdout"].splitlines() if ln.startswith("{")]
        if res["returncode"] != 0 or not lines:
            print(f"  run {phase or 'train'} failed:\n{res['stderr'][-2000:]}")
            continue
        got = json.loads(lines[-1])
        print(f"  {phase or 'open + train'}: {got}; peak memory of the app "
              f"{res['peak_mb']:.0f} MB ({res['peak_mb'] / cli['peak_mb']:.2f}x the CLI's)")


if __name__ == "__main__":
    main()
