"""Charts of training: compression, chosen-pair count, token lengths, Zipf.

:class:`ChartWidget` is a small QPainter chart (no QtCharts: only PySide6-Essentials is
a dependency): lines, points or bars, linear or log axes with ticks and labels, a hover
readout, palette-aware colours. Long series are cut to a few points per pixel column
before drawing (first/min/max/last per column), so 10,000 steps draw as fast as 500.

:class:`ChartsView` keeps the four charts up to date as training steps: it appends the
records of new steps (and drops undone ones) instead of recomputing, redraws at most a
few times a second, and encodes the held-out text at sampled steps a slice at a time
on an idle timer, so the window stays responsive.

The parts: :class:`ChartWidget` is in chart_widget.py, the Qt-free data, ticks, number
formats and decimation it uses in chart_data.py; this module holds the panel.
"""
from __future__ import annotations

import csv
import io
import math
import time
from collections import Counter
from pathlib import Path

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFileDialog, QGridLayout,
                               QLabel, QMessageBox, QPlainTextEdit,
                               QPushButton, QVBoxLayout, QWidget)

from ...engine import stats
from ...engine.errors import BPEError
from .chart_data import (STYLES, Series, decimate, fmt_num, fmt_value, linear_ticks,
                         log_ticks, nice_step)
from ..last_folder import in_last_folder, last_folder, remember
from .flow_layout import FlowBar
from .text_pane import TextPane
from .chart_widget import ChartWidget, series_colors
from .visibility import CatchesUp

# names this module held before it was split, still importable from here
__all__ = ["HELD_OUT_MAX_CHARS", "REDRAW_MS", "IDLE_SLICE_S", "ChartsView", "ChartWidget",
           "Series", "STYLES", "series_colors", "nice_step", "linear_ticks", "log_ticks",
           "fmt_num", "fmt_value", "decimate"]

HELD_OUT_MAX_CHARS = 1_000_000
REDRAW_MS = 150          # at most this often while steps arrive
IDLE_SLICE_S = 0.02      # held-out encoding work per idle tick


# ----- the charts view ---------------------------------------------------------------------
class ChartsView(CatchesUp, QWidget):
    """Four charts of the controller's training run, kept up to date step by step."""

    updated = Signal()       # after each (throttled) redraw; tests wait on it

    def __init__(self, controller, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.compression = ChartWidget("Compression", "step", "bytes per token",
                                       empty_text="No training yet: load a corpus and step.")
        self.pair_count = ChartWidget("Count of the chosen pair", "step", "count", ylog=True)
        self.lengths = ChartWidget("Token lengths in the vocabulary", "length (bytes)",
                                   "tokens", y_from_zero=True)
        self.zipf = ChartWidget("Token frequency on the corpus (Zipf)", "rank", "frequency",
                                xlog=True, ylog=True)
        self.charts = {"compression": self.compression, "pair_count": self.pair_count,
                       "token_lengths": self.lengths, "zipf": self.zipf}

        self.held_label = QLabel("Held-out text: none")
        self.held_label.setToolTip("Bytes per token of a text the tokenizer was not trained "
                                   "on, encoded at sampled steps (about 64 points).")
        open_btn = QPushButton("Open held-out file…")
        open_btn.clicked.connect(self._open_held_out)
        paste_btn = QPushButton("Paste held-out text…")
        paste_btn.clicked.connect(self._paste_held_out)
        self.clear_btn = QPushButton("Clear")
        self.clear_btn.clicked.connect(lambda: self.set_held_out_text(None))
        self.clear_btn.setEnabled(False)
        png_btn = QPushButton("Save PNG…")
        png_btn.clicked.connect(self._ask_png)
        csv_btn = QPushButton("Save CSV…")
        csv_btn.clicked.connect(self._ask_csv)
        self.status = TextPane(lines=2)   # long: wraps, never widens the dock

        top = FlowBar(spacing=6)   # wraps in a narrow dock instead of scrolling sideways
        top.addWidget(self.held_label)
        for w in (open_btn, paste_btn, self.clear_btn, png_btn, csv_btn):
            top.addWidget(w)
        grid = QGridLayout()
        grid.setSpacing(6)
        grid.addWidget(self.compression, 0, 0)
        grid.addWidget(self.pair_count, 0, 1)
        grid.addWidget(self.lengths, 1, 0)
        grid.addWidget(self.zipf, 1, 1)
        self.grid_host = QWidget()
        self.grid_host.setLayout(grid)
        grid.setContentsMargins(0, 0, 0, 0)
        lay = QVBoxLayout(self)
        lay.addWidget(top)
        lay.addWidget(self.grid_host, 1)
        lay.addWidget(self.status)

        # incremental state
        self._trainer = None
        self._n = 0                     # steps whose points are in the series
        self._bpt: list[float] = []     # corpus bytes/token at step 0..n
        self._counts: list[int] = []    # chosen pair count at steps 1..n
        self._hist: Counter = Counter()
        self._merge_len: list[int] = []  # histogram length of the token of step k+1
        self._n_special = 0
        self._tokens0 = 0
        self._mode = "byte"
        self._held_text: str | None = None
        self._held_name = ""
        self._held: stats.HeldOut | None = None
        self._held_key = None
        self._held_points: dict[int, float] = {}
        self._held_job = None           # (step, generator)
        self.last_update_ms = 0.0

        self._redraw = QTimer(self, singleShot=True, interval=REDRAW_MS)
        self._redraw.timeout.connect(self.refresh)
        self._idle = QTimer(self, interval=0)
        self._idle.timeout.connect(self._held_tick)
        controller.trainerChanged.connect(self._trainer_changed)
        controller.stepChanged.connect(lambda _: self.schedule())
        controller.busyChanged.connect(lambda _: self.schedule())
        controller.progress.connect(lambda *_: self.schedule())
        self._trainer_changed()

    # ----- scheduling -----------------------------------------------------------------------
    def schedule(self) -> None:
        """Ask for a redraw soon: throttled (not debounced), so a long play still updates.

        A hidden view (another tab in front) only notes it; it catches up when shown."""
        if self.skip_while_hidden():
            return
        if not self._redraw.isActive():
            self._redraw.start()

    def catch_up_with(self) -> None:
        self.schedule()

    def _trainer_changed(self) -> None:
        t = self.controller.trainer
        self._trainer = t
        self._n = 0
        self._bpt, self._counts, self._hist, self._merge_len = [], [], Counter(), []
        self._held_points, self._held_job = {}, None
        if t is not None:
            self._mode = t.settings.mode
            self._tokens0 = stats.tokens_at_start(t.steps, t.corpus_tokens)
            self._n_special = self._specials_in_corpus(t)
            self._hist.update(stats.token_length(tok, self._mode) for tok in t.base)
            self.lengths.xlabel = "length (characters)" if self._mode == "char" else "length (bytes)"
            self._bpt = [t.table.n_bytes / (self._tokens0 + self._n_special)]
        self._prepare_held_out()
        self.refresh()

    def _specials_in_corpus(self, t) -> int:
        """Special tokens in the corpus: the trainer never counts them, yet each is one
        token when the corpus is encoded. Counted in the controller's text when it is
        the text the trainer was built from (same byte count), else taken as 0."""
        specials = t.settings.special_tokens
        text = self.controller.corpus_text
        if not specials or len(text) > 4 * t.table.n_bytes + 4:
            return 0
        if len(text.encode("utf-8", "surrogatepass")) != t.table.n_bytes:
            return 0
        return stats.count_specials(text, specials)

    # ----- incremental update ---------------------------------------------------------------
    def _sync_steps(self) -> None:
        """Append the records of new steps, drop undone ones (records are append-only
        during a background run, so reading them from this thread is safe)."""
        t = self._trainer
        if t is None:
            return
        steps = t.steps
        n = len(steps)
        if n < self._n:
            for k in range(n, self._n):
                self._hist[self._merge_len[k]] -= 1
            del self._bpt[n + 1:]
            del self._counts[n:]
            del self._merge_len[n:]
        elif n > self._n:
            new = steps[self._n:n]
            nb = t.table.n_bytes
            extra = self._n_special
            self._bpt.extend(nb / (s.corpus_tokens + extra) for s in new)
            self._counts.extend(s.count for s in new)
            lens = [stats.token_length(s.token, self._mode) for s in new]
            self._merge_len.extend(lens)
            self._hist.update(lens)
        self._n = n

    def refresh(self) -> None:
        """Bring the charts up to the trainer's current step and redraw."""
        if self.skip_while_hidden():
            return
        t0 = time.perf_counter()
        t = self._trainer
        if t is not self.controller.trainer:
            self._trainer_changed()
            return
        if t is None:
            for c in self.charts.values():
                c.clear()
            self.status.setText("No trainer yet.")
            self.updated.emit()
            return
        self._sync_steps()
        n = self._n
        self.compression.set_series("corpus", range(n + 1), self._bpt, "line", color=0)
        self.pair_count.set_series("chosen pair", range(1, n + 1), self._counts, "line", color=1)
        hist = sorted((k, v) for k, v in self._hist.items() if v > 0)
        self.lengths.set_series("tokens", [k for k, _ in hist], [v for _, v in hist], "bars",
                                color=2)
        busy = self.controller.busy
        if not busy:
            ranks, freqs = stats.zipf(stats.token_frequencies(t))
            self.zipf.set_series("tokens", ranks, freqs, "points", color=3)
            self.zipf.note = f"step {n}"
        else:
            self.zipf.note = "updates when the run ends"
            self.zipf.update()
        self._update_held_series()
        if self._held is not None and not busy:
            self._queue_held_samples()
        self.last_update_ms = (time.perf_counter() - t0) * 1000
        ratio = (f"{self._bpt[-1]:.3f} bytes/token on the corpus" if self._bpt else "")
        note = ""
        if self.controller.corpus_table is not None and t.settings.special_tokens:
            note = (" The corpus is a word-count table, which does not record how often the "
                    "special tokens occur: bytes per token leaves them out.")
        if self.controller.streamed and t.settings.special_tokens:
            ratio += (" (special tokens in a streamed corpus are not counted, so it is "
                      "slightly high)")
        self.status.setText(f"Step {n:,}: {ratio}; {len(t.vocab_bytes):,} tokens in the "
                            "vocabulary. Hover a chart to read values; right-click for log "
                            "scale and saving one chart." + note)
        self.updated.emit()

    # ----- held-out text ----------------------------------------------------------------------
    def set_held_out_text(self, text: str | None, name: str = "pasted text") -> None:
        """Use this text (None clears) as the held-out text of the compression chart."""
        if text is not None and not text.strip():
            QMessageBox.information(self, "Held-out text", "The held-out text is empty. "
                                    "Paste some text or open a non-empty file.")
            return
        note = ""
        if text is not None and len(text) > HELD_OUT_MAX_CHARS:
            text = text[:HELD_OUT_MAX_CHARS]
            note = f" (first {HELD_OUT_MAX_CHARS:,} characters)"
        self._held_text = text
        self._held_name = name
        self.clear_btn.setEnabled(text is not None)
        if text is None:
            self.held_label.setText("Held-out text: none")
        else:
            self.held_label.setText(f"Held-out text: {name}, {len(text):,} characters{note}")
        self._held_key = None
        self._prepare_held_out()
        self.refresh()

    def _prepare_held_out(self) -> None:
        t = self._trainer
        if self._held_text is None or t is None:
            self._held = None
            self._held_points, self._held_job = {}, None
            self._idle.stop()
            return
        key = (id(self._held_text), t.settings.pattern, t.settings.special_tokens)
        if key != self._held_key:
            self._held_key = key
            self._held = stats.held_out(self._held_text, t.settings.pattern,
                                        t.settings.special_tokens)
            self._held_points, self._held_job = {}, None

    def _queue_held_samples(self) -> None:
        if self._pending_held():
            self._idle.start()

    def _pending_held(self) -> list[int]:
        n = self._n
        return [k for k in stats.sample_steps(n) if k not in self._held_points]

    def _held_tick(self) -> None:
        """One slice of held-out encoding (about 20 ms), then back to the event loop."""
        t = self._trainer
        if t is None or self._held is None or self.controller.busy or t is not self.controller.trainer:
            self._idle.stop()
            return
        deadline = time.perf_counter() + IDLE_SLICE_S
        while time.perf_counter() < deadline:
            if self._held_job is None:
                pending = self._pending_held()
                if not pending:
                    self._idle.stop()
                    self._update_held_series()
                    self.compression.update()
                    return
                k = pending[-1] if self._n in pending else pending[0]
                tok = t.tokenizer(at_step=k)
                self._held_job = (k, stats.held_out_tokens(tok, self._held, batch=20))
            k, gen = self._held_job
            if k > t.n_steps:  # undone meanwhile
                self._held_job = None
                continue
            got = next(gen, None)
            if got is not None:
                self._held_points[k] = self._held.n_bytes / got if got else math.nan
                self._held_job = None
                self._update_held_series()

    def _update_held_series(self) -> None:
        if self._held is None:
            self.compression.remove_series("held-out")
            return
        pts = sorted((k, v) for k, v in self._held_points.items() if k <= self._n)
        # only the grid points, plus the current step: stale "current" points drop out
        grid = set(stats.sample_steps(self._n))
        pts = [(k, v) for k, v in pts if k in grid]
        self.compression.set_series("held-out", [k for k, _ in pts], [v for _, v in pts],
                                    "linepoints", color=1)

    def held_out_done(self) -> bool:
        return self._held is None or not self._pending_held()

    def _open_held_out(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Held-out text", last_folder(),
                                              "Text (*.txt *.md *.jsonl *.xz *.gz);;All files (*)")
        if not path:
            return
        remember(path)
        self.open_held_out(path)

    def open_held_out(self, path: str) -> None:
        """Only the start of a big file is read: the chart uses at most
        HELD_OUT_MAX_CHARS characters of it."""
        from ...engine.files import read_head
        try:
            text, _complete = read_head(path, 4 * HELD_OUT_MAX_CHARS)
        except BPEError as e:
            QMessageBox.warning(self, "Held-out text", str(e))
            return
        self.set_held_out_text(text, Path(path).name)

    def _paste_held_out(self) -> None:
        dlg = QDialog(self)
        dlg.setWindowTitle("Held-out text")
        edit = QPlainTextEdit(self._held_text or "")
        edit.setPlaceholderText("Paste text the tokenizer was not trained on.")
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(dlg.accept)
        buttons.rejected.connect(dlg.reject)
        lay = QVBoxLayout(dlg)
        lay.addWidget(QLabel("Bytes per token of this text is charted at sampled steps."))
        lay.addWidget(edit)
        lay.addWidget(buttons)
        dlg.resize(560, 360)
        if dlg.exec() == QDialog.Accepted:
            self.set_held_out_text(edit.toPlainText(), "pasted text")

    # ----- saving -------------------------------------------------------------------------------
    def chart_data(self) -> dict[str, dict[str, tuple[list[float], list[float]]]]:
        return {key: {name: c.data(name) for name in c.series} for key, c in self.charts.items()}

    def save_png(self, path: str | Path) -> bool:
        """The four charts as one PNG image."""
        return self.grid_host.grab().save(str(path), "PNG")

    def csv_text(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["chart", "series", "x", "y"])
        for key, c in self.charts.items():
            for row in c.csv_rows():
                w.writerow([key, *row])
        return buf.getvalue()

    def save_csv(self, path: str | Path) -> None:
        """All series of all charts, long form: chart, series, x, y."""
        Path(path).write_text(self.csv_text(), encoding="utf-8")

    def _ask_png(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save charts as PNG",
                                              in_last_folder("bpe-charts.png"),
                                              "PNG image (*.png)")
        remember(path)
        if path and not self.save_png(path):
            QMessageBox.warning(self, "Save failed", f"Could not write {path}. Pick a folder "
                                "you can write to.")

    def _ask_csv(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save chart data as CSV",
                                              in_last_folder("bpe-charts.csv"),
                                              "CSV (*.csv)")
        if not path:
            return
        remember(path)
        try:
            self.save_csv(path)
        except OSError as e:
            QMessageBox.warning(self, "Save failed", f"Could not write {path}: {e.strerror}. "
                                "Pick a folder you can write to.")
