"""Charts of training: compression, Rényi efficiency, chosen-pair count, token lengths,
Zipf.

:class:`ChartWidget` is a small QPainter chart (no QtCharts: only PySide6-Essentials is
a dependency): lines, points or bars, linear or log axes with ticks and labels, a hover
readout, palette-aware colours. Long series are cut to a few points per pixel column
before drawing (first/min/max/last per column), so 10,000 steps draw as fast as 500.

:class:`ChartsView` keeps the five charts up to date as training steps: the run's
numbers are appended step by step (chart_series.RunSeries: new records added, undone
ones dropped, also at each look during a long run), redrawn at most a few times a
second; the held-out text is read and pre-tokenized by a job of the controller's and
encoded at sampled steps a slice at a time on an idle timer, so the window stays
responsive.

The parts: :class:`ChartWidget` is in chart_widget.py, the Qt-free data, ticks, number
formats and decimation it uses in chart_data.py, the run's series in chart_series.py;
this module holds the panel.
"""
from __future__ import annotations

import csv
import io
import math
import time
from pathlib import Path
from typing import Iterator, Protocol, Sequence

from PySide6.QtCore import QTimer, Signal, SignalInstance
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFileDialog, QGridLayout,
                               QLabel, QMessageBox, QPlainTextEdit,
                               QPushButton, QVBoxLayout, QWidget)

from ....engine import analysis
from ...controller.jobs import Done, Ended
from ...controller.side_jobs import HELD_OUT_MAX_CHARS, HeldOutText
from ...models.reads import RunReads
from ...widgets.chart_data import (STYLES, Series, decimate, fmt_num, fmt_value, linear_ticks,
                         log_ticks, nice_step)
from .chart_series import CORPUS, RunSeries, compression_title, measured_on, zipf_title
from ...widgets.last_folder import in_last_folder, last_folder, remember
from ...widgets.flow_layout import FlowBar
from ...widgets.text_pane import TextPane
from ...widgets.chart_widget import ChartWidget, series_colors
from ...widgets.visibility import CatchUp

# names this module held before it was split, still importable from here
__all__ = ["HELD_OUT_MAX_CHARS", "REDRAW_MS", "IDLE_SLICE_S", "ChartsView", "ChartWidget",
           "Series", "STYLES", "series_colors", "nice_step", "linear_ticks", "log_ticks",
           "fmt_num", "fmt_value", "decimate"]

REDRAW_MS = 150          # at most this often while steps arrive
IDLE_SLICE_S = 0.02      # held-out encoding work per idle tick


# ----- the charts view ---------------------------------------------------------------------
class ChartsHost(RunReads, Protocol):
    """What the charts read of the controller: the run, and these."""

    livePeek: SignalInstance

    @property
    def corpus_table(self) -> object | None: ...
    @property
    def queries(self) -> _CountsSpecials: ...
    @property
    def side(self) -> _HeldOut: ...
    def plain_curve(self, run: object, n: int) -> list[tuple[int, ...]] | None: ...


class _CountsSpecials(Protocol):
    def corpus_special_counts(self) -> dict[str, int] | None: ...


class _HeldOut(Protocol):
    def prepare_held_out(self, text: str, pattern: str, special_tokens: Sequence[str],
                         on_done: Done, on_end: Ended) -> bool: ...
    def read_held_out(self, path: str, on_done: Done, on_end: Ended) -> bool: ...


class ChartsView(QWidget):
    """Five charts of the controller's training run, kept up to date step by step."""

    updated = Signal()       # after each (throttled) redraw; tests wait on it

    def __init__(self, controller: ChartsHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.catchup = CatchUp(self, self.schedule)
        self.catch_up = self.catchup.catch_up   # the main window's call when its tab is raised
        self.controller = controller
        self.compression = ChartWidget(compression_title(CORPUS), "step", "bytes per token",
                                       empty_text="No training yet: load a corpus and step.")
        self.renyi = ChartWidget(f"Rényi efficiency (α = {analysis.RENYI_ALPHA:g})", "step",
                                 "efficiency", empty_text="No training yet: load a corpus "
                                 "and step.")
        self._renyi_tip(CORPUS)
        self.pair_count = ChartWidget("Count of the chosen pair", "step", "count", ylog=True)
        self.lengths = ChartWidget("Token lengths in the vocabulary", "length (bytes)",
                                   "tokens", y_from_zero=True)
        self.zipf = ChartWidget(zipf_title(CORPUS), "rank", "frequency",
                                xlog=True, ylog=True)
        # parity-aware training: each language's tokens, parity against plain BPE
        self.parity = ChartWidget("Tokens per language on the dev set", "step", "tokens",
                                  empty_text="Parity-aware training only.")
        self.parity.dashed_label = "plain BPE"
        self.parity.hide()
        self.charts = {"compression": self.compression, "renyi": self.renyi,
                       "pair_count": self.pair_count, "token_lengths": self.lengths,
                       "zipf": self.zipf, "parity": self.parity}

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
        grid = QGridLayout()   # three, two or one column of charts: _reflow
        grid.setSpacing(6)
        self.grid = grid
        self.columns = 0
        self._parity_on = False
        self._reflow(3)
        self.grid_host = QWidget()
        self.grid_host.setLayout(grid)
        self.parity.setParent(self.grid_host)   # out of the grid until a parity run
        self.parity.hide()
        grid.setContentsMargins(0, 0, 0, 0)
        lay = QVBoxLayout(self)
        lay.addWidget(top)
        lay.addWidget(self.grid_host, 1)
        lay.addWidget(self.status)

        self.series: RunSeries | None = None   # the run's numbers (chart_series.py)
        self._new_run = True                   # make a RunSeries at the next chance
        self._held_text: str | None = None
        self._held: analysis.HeldOut | None = None
        self._held_key: tuple | None = None    # (text, pattern, specials) of _held
        self._held_asked: tuple | None = None  # the key a running job prepares
        self._held_points: dict[int, float] = {}
        self._held_job: tuple[int, Iterator[int | None]] | None = None   # (step, generator)
        self.last_update_ms = 0.0

        self._redraw = QTimer(self, singleShot=True, interval=REDRAW_MS)
        self._redraw.timeout.connect(self.refresh)
        self._idle = QTimer(self, interval=0)
        self._idle.timeout.connect(self._held_tick)
        controller.trainerChanged.connect(self._trainer_changed)
        controller.stepChanged.connect(lambda _: self.schedule())
        controller.busyChanged.connect(self._busy_changed)
        controller.livePeek.connect(self._live_peek)
        self._trainer_changed()

    # ----- layout ---------------------------------------------------------------------------
    def columns_for(self, width: int) -> int:
        """How many charts side by side a grid ``width`` pixels wide holds with every
        title whole, each chart as wide as _reflow makes it (at 800x600, three in a row
        read "Rényi efficiency (…", "Count of the cho…")."""
        spacing = self.grid.spacing()
        for n in (3, 2):
            column = (width - (n - 1) * spacing) / n
            if all(c.whole_width() <= span * column + (span - 1) * spacing
                   for c, span in self._spans(n)):
                return n
        return 1

    def _spans(self, columns: int) -> list[tuple[ChartWidget, int]]:
        """The charts in reading order, each with the columns it spans: the Zipf chart
        (many ranks on a log axis) takes the rest of its row; a parity run's chart comes
        first, in view without scrolling."""
        charts = ([self.parity] if self._parity_on else []) + [
            self.compression, self.renyi, self.pair_count, self.lengths, self.zipf]
        return [(c, columns - i % columns if c is self.zipf else 1)
                for i, c in enumerate(charts)]

    def _reflow(self, columns: int) -> None:
        """The charts in ``columns`` columns, in reading order (_spans)."""
        if columns == self.columns:
            return
        self.columns = columns
        grid = self.grid
        spans = self._spans(columns)
        for c, _span in spans:
            grid.removeWidget(c)
        for i, (c, span) in enumerate(spans):
            row, col = divmod(i, columns)
            grid.addWidget(c, row, col, 1, span)
        for col in range(3):
            grid.setColumnStretch(col, 1 if col < columns else 0)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """As many columns as keep every title whole (columns_for): after a resize, and
        after a title changed its length."""
        self._reflow(self.columns_for(self.grid_host.width() if self.grid_host.width() > 0
                                      else self.width()))

    # ----- scheduling -----------------------------------------------------------------------
    def schedule(self) -> None:
        """Ask for a redraw soon: throttled (not debounced), so a long play still updates.

        A hidden view (another tab in front) only notes it; it catches up when shown."""
        if self.catchup.skip():
            return
        if not self._redraw.isActive():
            self._redraw.start()

    def _busy_changed(self, busy: bool) -> None:
        if not busy and self._held_text is not None and self._held is None:
            self._prepare_held_out()   # a job was running when it was asked for
        self.schedule()

    def _trainer_changed(self) -> None:
        self._new_run = True
        self._held_points, self._held_job = {}, None
        self._take_series()
        self._prepare_held_out()
        self.refresh()

    def _take_series(self) -> None:
        """A new RunSeries for a new trainer, once the trainer may be read."""
        if not self._new_run:
            return
        c = self.controller
        v = c.view()
        if v is None and c.has_trainer:
            return   # a job runs it: at its next look or its end
        self._new_run = False
        self.series = RunSeries(v, c.queries.corpus_special_counts()) if v is not None else None
        if v is not None:
            self.lengths.xlabel = ("length (characters)" if v.settings.mode == "char"
                                   else "length (bytes)")

    def _live_peek(self, _step: int) -> None:
        """A long run holds the trainer still for a moment: take its new steps now (the
        moment is over when the throttled redraw comes)."""
        self._take_series()
        if self.series is not None and self.series.view is self.controller.view():
            self.series.sync()
        self.schedule()

    # ----- drawing --------------------------------------------------------------------------
    def refresh(self) -> None:
        """Bring the charts up to the trainer's current step and redraw."""
        if self.catchup.skip():
            return
        t0 = time.perf_counter()
        c = self.controller
        self._take_series()
        run = self.series
        v = c.view()
        if v is not None and (run is None or run.view is not v):
            self._trainer_changed()   # a trainer this view has not seen
            return
        if run is None:
            for chart in self.charts.values():
                chart.clear()
            self.status.setText("No trainer yet." if not c.has_trainer else
                                "Training is running: the charts follow it.")
            self.updated.emit()
            return
        if v is not None:
            run.sync()
        n = run.n
        self.compression.set_series("corpus", range(n + 1), run.bpt, "line", color=0)
        self.renyi.set_series("corpus", *run.renyi_points(), "line", color=4)
        self.pair_count.set_series("chosen pair", range(1, n + 1), run.counts, "line", color=1)
        self.lengths.set_series("tokens", *run.lengths(), "bars", color=2)
        if v is not None and not c.peeking:
            ranks, freqs = analysis.zipf(v.symbol_counts())
            self.zipf.set_series("tokens", ranks, freqs, "points", color=3)
            self.zipf.note = f"step {n}"
        else:
            self.zipf.note = "updates when the run ends"
            self.zipf.update()
        T = run.view.transition   # SuperBPE: the line between the stages
        marks = [(T, f"stage 2 from {T:,}")] if T is not None else []
        for chart in (self.compression, self.renyi, self.pair_count):
            chart.set_markers(marks)
        self._update_parity(run)
        self._name_the_text(run)
        self._update_held_series()
        if self._held is not None and not c.busy:
            self._queue_held_samples()
        self.last_update_ms = (time.perf_counter() - t0) * 1000
        self.status.setText(self._status_text(run))
        self.updated.emit()

    def _show_parity(self, on: bool) -> None:
        """A parity run: its chart first (top left), the others after it (_spans)."""
        if on == self._parity_on:
            return
        self._parity_on = on
        if not on:
            self.grid.removeWidget(self.parity)
        columns, self.columns = self.columns, 0   # the order changed: lay out again
        self._reflow(columns or 3)
        self._fit_columns()   # (the Zipf chart's span changed with the order)
        self.parity.setVisible(on)   # after _reflow: in the grid, not a window of its own

    def _renyi_tip(self, text: str) -> None:
        self.renyi.setToolTip(
            f"How evenly the tokens of {text} use the vocabulary after each merge (Zouhar "
            f"et al. 2023): H_α of the token distribution, α = {analysis.RENYI_ALPHA:g}, "
            "divided by ln |V| (every id of the vocabulary then). 1 is perfectly even.")

    def _name_the_text(self, run: RunSeries) -> None:
        """The titles and tooltips name the text the run read: a parity run reads its
        languages' files, not the corpus in the window."""
        text = measured_on(run.view)
        title = zipf_title(text)
        if self.zipf.title != title:
            self.zipf.title = title
            self.compression.title = compression_title(text)
            self.zipf.update()
            self.compression.update()
            self._renyi_tip(text)
            self._fit_columns()

    def _update_parity(self, run: RunSeries) -> None:
        info = run.view.parity
        self._show_parity(info is not None)
        if info is None:
            self.parity.clear()
            return
        n = run.n
        recs = info.steps[:n]
        self.parity.title = "Dev-set tokens" if info.kind == "dev" else "Training tokens"
        text = ("its dev text (the same sentences in every language)" if info.kind == "dev"
                else "its training text (no dev set: balanced on ratios)")
        self.parity.setToolTip(
            f"Each language's tokens on {text} after each step: solid lines for the "
            "parity-aware run, dashed for plain BPE trained on the same data. Parity "
            "brings the lines together.")
        xs = range(n + 1)
        curve = self.controller.plain_curve(info, n)   # plain BPE's, beside it
        for i, name in enumerate(info.names):
            ys = [info.initial_tokens[i]] + [r.tokens[i] for r in recs]
            self.parity.set_series(name, xs, ys, "line", color=i)
            if curve is not None:
                plain = [row[i] for row in curve]
                self.parity.set_series(f"{name} plain BPE", range(len(plain)), plain,
                                       "dashed", color=i)

    def _status_text(self, run: RunSeries) -> str:
        c = self.controller
        ratio = f"{run.bpt[-1]:.3f} bytes/token" if run.bpt else ""
        renyi = run.renyi.values[run.n] if run.n < len(run.renyi.values) else None
        eff = f", Rényi efficiency {renyi:.3f}" if renyi is not None else ""
        note = ""
        if not run.specials_known and run.view.settings.special_tokens:
            what = ("a word-count table, which does not record how often the special "
                    "tokens occur" if c.corpus_table is not None else
                    "streamed from its files, and only their start is in the window")
            note = (f" The corpus is {what}: bytes per token and Rényi efficiency leave the "
                    "special tokens out (bytes per token is slightly high).")
        return (f"Step {run.n:,}: {ratio}{eff} on {measured_on(run.view)}; "
                f"{len(run.view.vocab_bytes):,} "
                "tokens in the vocabulary. Hover a chart to read values; right-click for "
                "log scale and saving one chart." + note)

    # ----- held-out text ----------------------------------------------------------------------
    def set_held_out_text(self, text: str | None, name: str = "pasted text",
                          cut: bool = False) -> None:
        """Use this text (None clears) as the held-out text of the compression chart; it
        is pre-tokenized with the trainer's pattern by a job of the controller's."""
        if text is not None and not text.strip():
            QMessageBox.information(self, "Held-out text", "The held-out text is empty. "
                                    "Paste some text or open a non-empty file.")
            return
        if text is not None and len(text) > HELD_OUT_MAX_CHARS:
            text, cut = text[:HELD_OUT_MAX_CHARS], True
        note = f" (first {HELD_OUT_MAX_CHARS:,} characters)" if cut else ""
        self._held_text = text
        self.clear_btn.setEnabled(text is not None)
        if text is None:
            self.held_label.setText("Held-out text: none")
        else:
            self.held_label.setText(f"Held-out text: {name}, {len(text):,} characters{note}")
        self._held_key = None
        self._held = None
        self._held_points, self._held_job = {}, None
        self._prepare_held_out()
        self.refresh()

    def _prepare_held_out(self) -> None:
        """Ask the controller to pre-tokenize the held-out text with the current
        trainer's pattern and special tokens, unless that is done or under way."""
        v = self.controller.view()
        if self._held_text is None or v is None:
            if self._held_text is None:
                self._held, self._held_key = None, None
            self._held_points, self._held_job = {}, None
            self._idle.stop()
            return
        s = v.settings
        key = (id(self._held_text), s.pattern, s.special_tokens)
        if key == self._held_key or key == self._held_asked or self.controller.busy:
            return   # done, under way, or asked again when the running job ends
        self._held, self._held_points, self._held_job = None, {}, None
        if self.controller.side.prepare_held_out(
                self._held_text, s.pattern, s.special_tokens,
                lambda held: self._held_out_ready(key, held), self._held_out_ended):
            self._held_asked = key

    def _held_out_ready(self, key: tuple, held) -> None:
        v = self.controller.view()
        s = v.settings if v is not None else None
        if s is not None and key == (id(self._held_text), s.pattern, s.special_tokens):
            self._held_key, self._held = key, held
            self._held_points, self._held_job = {}, None
            self.schedule()

    def _held_out_ended(self, _end) -> None:
        self._held_asked = None

    def _queue_held_samples(self) -> None:
        if self._pending_held():
            self._idle.start()

    def _pending_held(self) -> list[int]:
        n = self.series.n if self.series is not None else 0
        return [k for k in analysis.sample_steps(n) if k not in self._held_points]

    def _held_tick(self) -> None:
        """One slice of held-out encoding (about 20 ms), then back to the event loop."""
        c = self.controller
        v = c.view()
        run = self.series
        if v is None or run is None or run.view is not v or self._held is None or c.busy:
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
                k = pending[-1] if run.n in pending else pending[0]
                tok = v.tokenizer(at_step=k)
                self._held_job = (k, analysis.held_out_tokens(tok, self._held, batch=20))
            k, gen = self._held_job
            if k > v.n_steps:  # undone meanwhile
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
        n = self.series.n if self.series is not None else 0
        pts = sorted((k, v) for k, v in self._held_points.items() if k <= n)
        # only the grid points, plus the current step: stale "current" points drop out
        grid = set(analysis.sample_steps(n))
        pts = [(k, v) for k, v in pts if k in grid]
        self.compression.set_series("held-out", [k for k, _ in pts], [v for _, v in pts],
                                    "linepoints", color=1)

    def held_out_done(self) -> bool:
        """True when every sampled step of the held-out text is charted (or there is
        no held-out text)."""
        if self._held_text is None:
            return True
        return self._held is not None and not self._pending_held()

    def _open_held_out(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Held-out text", last_folder(),
                                              "Text (*.txt *.md *.jsonl *.xz *.gz);;All files (*)")
        if not path:
            return
        remember(path)
        self.open_held_out(path)

    def open_held_out(self, path: str) -> bool:
        """Read the file by a job of the controller's (only its start: the chart uses
        at most HELD_OUT_MAX_CHARS characters of it); False if another job runs."""
        # a failed read is reported once, by the controller's errorOccurred (the
        # window's error dialog); nothing to show here when it ends
        def read(r: object) -> None:
            assert isinstance(r, HeldOutText)   # (the job's result)
            self.set_held_out_text(r.text, r.name, r.cut)
        return self.controller.side.read_held_out(path, read, lambda _end: None)

    def _paste_held_out(self) -> None:
        dlg = QDialog(self)
        dlg.setWindowTitle("Held-out text")
        edit = QPlainTextEdit(self._held_text or "")
        edit.setPlaceholderText("Paste text the tokenizer was not trained on.")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(dlg.accept)
        buttons.rejected.connect(dlg.reject)
        lay = QVBoxLayout(dlg)
        lay.addWidget(QLabel("Bytes per token of this text is charted at sampled steps."))
        lay.addWidget(edit)
        lay.addWidget(buttons)
        dlg.resize(560, 360)
        if dlg.exec() == QDialog.DialogCode.Accepted:
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
