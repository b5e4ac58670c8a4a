"""The window on a corpus too big to hold (issue #9): open a file, pre-tokenize it (read in
blocks), train to a target, and Cancel in each phase, in a fresh process whose whole
tree's peak memory is measured (treemem.py). Offscreen; nothing is asserted.

    python bench/bench_big_corpus_window.py FILE [--vocab-size 32000] [--no-cancel]

Prints the time to the preview, to the end of pre-tokenizing and of training, the
longest GUI-thread wait meanwhile, Cancel's delay (Esc to a free window) while reading
and while merging, and the peak memory of the app.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def child(path: str, vocab_size: int, cancel_at: str | None) -> None:
    """In the measured process: the window, driven through its own actions."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import tempfile

    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    import bpe_gui.gui  # noqa: F401
    from bpe_gui.engine.trainer import TrainSettings
    from bpe_gui.gui.main_window import MainWindow
    win = MainWindow(settings=QSettings(tempfile.mkdtemp() + "/s.ini", QSettings.IniFormat))
    win.resize(1600, 1000)
    win.show()
    c = win.controller
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
        win.act_cancel.trigger()
        pump(lambda: not c.busy, 30)
        return time.perf_counter() - t

    t0 = time.perf_counter()
    c.set_settings(TrainSettings(vocab_size=vocab_size))
    win.editor.open_files([path])
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
    win.act_run.trigger()
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--vocab-size", type=int, default=32_000)
    ap.add_argument("--no-cancel", action="store_true")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child is not None:
        child(a.file, a.vocab_size, a.child or None)
        return
    from treemem import run_measured
    size = Path(a.file).stat().st_size
    print(f"{a.file}: {size / 1e9:.2f} GB on disk, vocab size {a.vocab_size:,}")
    for phase in ([""] if a.no_cancel else ["", "reading", "merging"]):
        res = run_measured([sys.executable, __file__, a.file, "--vocab-size",
                            str(a.vocab_size), "--child", phase],
                           env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        lines = [ln for ln in res["stdout"].splitlines() if ln.startswith("{")]
        if res["returncode"] != 0 or not lines:
            print(f"  run {phase or 'train'} failed:\n{res['stderr'][-2000:]}")
            continue
        got = json.loads(lines[-1])
        print(f"  {phase or 'open + train'}: {got}; peak memory of the app "
              f"{res['peak_mb']:.0f} MB")


if __name__ == "__main__":
    main()
