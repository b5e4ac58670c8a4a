"""GUI responsiveness on the shared 20 MB corpus (benchmark; not run by default).

    python -m pytest bench/test_gui_responsiveness.py -s

A 10 ms QTimer on the GUI thread records the longest wait between ticks while the
window opens the file (worker thread), pre-tokenizes it (worker processes) and trains
to a 5,000-token vocabulary (worker thread). Target (issue 4): no wait over 100 ms.
The figures are printed per phase; run it on an otherwise idle machine.

The second benchmark measures one step in the window (engine step + every visible
panel's update and repaint) at several points of training on the same corpus, and a
live re-encode of 10 KB of text in the encode view. Target: p95 under 16 ms each.
"""
from __future__ import annotations

import os
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings, QTimer  # noqa: E402

import bpe_gui.gui  # noqa: E402,F401  (the PySide6 6.12.0 refcount guard; no-op elsewhere)
from bpe_gui.gui.app import apply_process_settings  # noqa: E402

apply_process_settings()   # measure the window as the app runs it (see app.main)

TARGET_GAP_S = 0.100
VOCAB = 5000


class Heartbeat:
    def __init__(self, interval_ms: int = 10):
        self.timer = QTimer(interval=interval_ms)
        self.timer.timeout.connect(self._tick)
        self.gaps: list[tuple[float, str]] = []
        self.phase = ""
        self._last = time.perf_counter()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append((now - self._last, self.phase))
        self._last = now

    def worst(self, phase: str | None = None) -> float:
        return max((g for g, p in self.gaps if phase is None or p == phase), default=0.0)


def test_20mb_corpus_keeps_the_gui_responsive(qtbot, corpora_dir, tmp_path, monkeypatch):
    from bpe_gui.engine.train.trainer import TrainSettings
    from bpe_gui.gui.window.main_window import MainWindow
    from bpe_gui.gui.window.sessions import Sessions

    big = corpora_dir / "en-gutenberg-20mb.txt.xz"
    if not big.exists():
        pytest.skip(f"{big} not found")
    monkeypatch.setattr(Sessions, "autosave_path", lambda self: tmp_path / "auto.bpesession")
    win = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    win.show()
    qtbot.waitExposed(win)
    c = win.controller
    assert c.set_settings(TrainSettings(vocab_size=VOCAB))
    beat = Heartbeat()
    beat.timer.start()
    times = {}
    t0 = time.perf_counter()
    beat.phase = "load"
    assert win.dock_layout.editor.open_files([str(big)])
    # a file over 1 MiB is streamed: the window holds its preview, training reads the file
    qtbot.waitUntil(lambda: c.streamed, timeout=120_000)
    times["load"] = time.perf_counter() - t0
    beat.phase = "pretokenize"
    qtbot.waitUntil(lambda: not c.busy and not c.stale and c.trainer is not None, timeout=300_000)
    times["pretokenize"] = time.perf_counter() - t0 - times["load"]
    beat.phase = "settle"
    qtbot.wait(500)  # as a user would: the panels show step 0 before Run is pressed
    beat.phase = "train"
    t1 = time.perf_counter()
    assert c.runs.to_target()
    qtbot.waitUntil(lambda: not c.busy, timeout=600_000)
    times["train"] = time.perf_counter() - t1
    beat.phase = "idle"
    qtbot.wait(300)
    beat.timer.stop()
    assert c.trainer.vocab_size == VOCAB
    report = ", ".join(f"{k} {v:.1f} s (max gap {beat.worst(k) * 1000:.0f} ms)"
                       for k, v in times.items())
    print(f"\n20 MB corpus: {report}; overall max GUI gap {beat.worst() * 1000:.0f} ms "
          f"over {len(beat.gaps)} ticks; gaps > 100 ms: "
          f"{sum(1 for g, _ in beat.gaps if g > TARGET_GAP_S)}")
    c.mark_corpus_saved()
    win.close()
    c.shutdown()
    # The target; on a loaded machine a lone spike may exceed it (see the printed report).
    assert beat.worst() < TARGET_GAP_S or (
        sum(1 for g, _ in beat.gaps if g > TARGET_GAP_S) <= 2 and beat.worst() < 3 * TARGET_GAP_S)


def _p(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] * 1000


def test_window_step_and_reencode_latency(qtbot, corpora_dir, tmp_path, monkeypatch):
    import lzma

    from PySide6.QtWidgets import QApplication

    from bpe_gui.engine.train.trainer import TrainSettings
    from bpe_gui.gui.window.main_window import MainWindow
    from bpe_gui.gui.window.sessions import Sessions

    big = corpora_dir / "en-gutenberg-20mb.txt.xz"
    if not big.exists():
        pytest.skip(f"{big} not found")
    monkeypatch.setattr(Sessions, "autosave_path", lambda self: tmp_path / "auto.bpesession")
    win = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    win.resize(1600, 1000)
    win.show()
    qtbot.waitExposed(win)
    c = win.controller
    assert c.set_settings(TrainSettings(vocab_size=12_000))
    assert win.dock_layout.editor.open_files([str(big)])
    qtbot.waitUntil(lambda: c.trainer is not None and not c.busy and not c.stale
                    and c.streamed, timeout=300_000)
    app = QApplication.instance()
    sample = lzma.open(big, "rt", encoding="utf-8").read(200_000)
    win.sessions.set_encode_text(sample[100_000:102_000])
    qtbot.wait(300)
    rows = []
    for start in (0, 1000, 5000, 10000):
        if c.trainer.n_steps < start:
            assert c.goto(start)
            qtbot.waitUntil(lambda: not c.busy, timeout=300_000)
        qtbot.wait(200)
        steps, undos = [], []
        for _ in range(60):
            t = time.perf_counter()
            c.step()
            app.processEvents()
            steps.append(time.perf_counter() - t)
        for _ in range(60):
            t = time.perf_counter()
            c.undo()
            app.processEvents()
            undos.append(time.perf_counter() - t)
        rows.append((start, steps, undos))
    ten_kb = sample[:10_240]
    edits = []
    for i in range(40):
        text = ten_kb[: 10_240 - i] + "x" * i
        t = time.perf_counter()
        win.dock_layout.encode_view.edit.setPlainText(text)
        app.processEvents()
        edits.append(time.perf_counter() - t)
    print("\none step in the window (20 MB corpus, all panels shown), ms:")
    for start, steps, undos in rows:
        print(f"  at step {start:>6,}: step p50 {_p(steps, .5):5.1f} p95 {_p(steps, .95):5.1f}"
              f" | undo p50 {_p(undos, .5):5.1f} p95 {_p(undos, .95):5.1f}")
    pooled = [x for _start, steps, undos in rows for x in steps + undos]
    print(f"  all {len(pooled)} steps and undos: p50 {_p(pooled, .5):.1f} p95 {_p(pooled, .95):.1f}"
          f" max {max(pooled) * 1000:.1f}; over 16 ms: {sum(x > 0.016 for x in pooled)}"
          " (target: p95 under 16 ms)")
    print(f"re-encode 10 KB in the encode view: p50 {_p(edits, .5):.1f} ms, "
          f"p95 {_p(edits, .95):.1f} ms (target 16 ms)")
    c.mark_corpus_saved()
    win.close()
    c.shutdown()
