"""What was it trained on? The category proportions of a tokenizer's training data,
inferred from its merge order (engine/analysis/mixture.py: Hayase et al. 2024), given a
sample of text per category: files (each file a category, named by its name before the
first dot), or a folder of such files.

Shows the proportions as a bar chart, every merge with the category that explains it
best, and for the selected merge each category's count of the merged pair against the
runner-up's (a table and a chart): why a merge points to Chinese or to code. A note
says what the method assumes. The work runs on the controller's job runner (status bar
progress, Cancel) through ``Controller.side.infer_training_mixture``. Opened from
Analysis › What was it trained on? (:func:`show_training_mixture`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Protocol, Sequence

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QFileDialog,
                               QFormLayout, QHBoxLayout, QHeaderView, QLabel, QPushButton,
                               QSpinBox, QSplitter, QTableView, QTableWidget,
                               QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from ...engine.analysis import MixtureResult, MixtureStep, held_out_files, mixture_refusal
from ...engine.errors import BPEError
from ...engine.tokenizers import BaseTokenizer
from ..controller.jobs import Done, Ended
from ..models.reads import TokenizerReads
from ..models.mixture_steps import MixtureStepsModel, PairCountsModel, pair_text
from ..theme import colors, is_dark
from ..widgets.chart_data import Series
from ..widgets.chart_widget import ChartWidget
from ..widgets.grouped_bars import GroupedBarChart
from ..widgets.scrolled import scrolled
from ..widgets.elided_combo import ElidedComboBox
from ..widgets.default_button import make_default, not_auto_default
from ..widgets.last_folder import last_folder, remember
from ..widgets.wheel_guard import guard_wheel
from ..models.imported_name import imported_name
from . import one_dialog

EMPTY = "Add samples, then Infer."
SAMPLE_FILTER = "Text (*.txt *.md *.jsonl *.py *.gz *.xz);;All files (*)"
NOTE = ("<b>What the method assumes.</b> Each sample must resemble that category's part "
        "of the training data (the same kind of text, in the same proportions of its "
        "own sub-kinds): the answer is only as good as the samples. The categories must "
        "cover the training data: a category that is missing is absorbed by the nearest "
        "ones (text in a language you gave no sample of counts as the language closest to "
        "it). Proportions are of bytes of training text. A few hundred KB per category "
        "and a few thousand merges are enough for a rough answer; more of both sharpen "
        "it. (Hayase et al. 2024, “Data Mixture Inference: What do BPE Tokenizers Reveal "
        "about their Training Data?”)")


def category_of(path: str | Path) -> str:
    """A file's category: its name before the first dot ('zh.novels.txt.xz' -> 'zh')."""
    name = Path(path).name
    return name.split(".", 1)[0] or name


class ShareChart(ChartWidget):
    """Bars: one per category, its inferred share."""

    def __init__(self, parent=None):
        super().__init__("Proportions of the training data", "category", "share",
                         y_from_zero=True, empty_text=EMPTY,
                         parent=parent)
        self._names: list[str] = []

    def show_shares(self, shares: dict[str, float] | None) -> None:
        self.series.clear()
        self._names = list(shares or {})
        if shares:
            self.series["share"] = Series("share", list(map(float, range(len(shares)))),
                                          list(shares.values()), "bars", 0)
        self._changed()

    def _paint_legend(self, *args) -> None:
        pass   # one series: the axis names the categories

    def _x_ticks(self, x0, x1, plot_w: float):
        return [(float(k), n) for k, n in enumerate(self._names) if x0 <= k <= x1], []

    def readout(self, s: Series, i: int) -> str:
        return f"{self._names[i]}: {s.ys[i]:.1%}"


class PairChart(GroupedBarChart):
    """Grouped bars for one merge: per category, its count of the merged pair and of the
    runner-up."""

    def __init__(self, parent=None):
        super().__init__("The merge against the runner-up", "category",
                         "count per MB of sample", y_from_zero=True,
                         empty_text="Select a merge to compare its counts.", parent=parent)

    def show_step(self, step: MixtureStep | None, names: list[str]) -> None:
        if step is None:
            self.show_bars([], [])
            return
        self.show_bars(names, [
            ("merge " + pair_text(step.merge), lambda n: step.counts.get(n, 0.0)),
            ("runner-up " + pair_text(step.runner_up),
             lambda n: step.runner_up_counts.get(n, 0.0))])


class MixtureHost(TokenizerReads, Protocol):
    """What "What was it trained on?" reads of the controller: the run, the imported
    tokenizer, and which of them is on show."""

    use_imported: bool

    @property
    def side(self) -> _InfersMixture: ...


class _InfersMixture(Protocol):
    def infer_training_mixture(self, tok: BaseTokenizer, name: str,
                               samples: Mapping[str, Sequence[str]], merges: int | None,
                               on_done: Done, on_end: Ended,
                               max_rounds: int | None = None) -> bool: ...


class TrainingMixtureDialog(QDialog):
    def __init__(self, controller: MixtureHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle("What was it trained on?")
        self.samples: dict[str, list[str]] = {}     # category -> its files
        self.mixture: MixtureResult | None = None
        self._running = False
        self._told = False     # the status tells how the last run ended: kept until a change
        self._build()
        controller.busyChanged.connect(lambda _: self._update())
        controller.tokenizerChanged.connect(self._update)
        controller.trainerChanged.connect(self._update)
        self._update()

    # ----- layout -----------------------------------------------------------------------
    def _build(self) -> None:
        self.intro = QLabel(
            "A BPE tokenizer's merges are the most frequent pairs of its training data, in "
            "order. Give a sample of text for each category you suspect (languages, code, "
            "domains): the merges are replayed on every sample, and the mixture of "
            "categories that best explains their order is the answer.")
        self.intro.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Samples:", self._samples())
        form.addRow("Tokenizer:", self._tokenizer_row())
        self.status = QLabel()
        self.status.setWordWrap(True)
        form.addRow("", self.status)
        body = self._results()
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        bottom = QHBoxLayout()
        if self.tabs is None:   # wide: the note under the three side by side
            bottom.addWidget(self.note, 1)
        else:
            bottom.addStretch(1)
        bottom.addWidget(close, 0, Qt.AlignmentFlag.AlignBottom)
        lay = QVBoxLayout(self)
        lay.addWidget(self.intro)
        lay.addLayout(form)
        lay.addWidget(body, 1)
        lay.addLayout(bottom)
        not_auto_default(self.add_files, self.add_folder, self.remove, close)
        make_default(self.infer)
        guard_wheel(self)
        self._show_result()
        screen = self.screen().availableGeometry() if self.screen() else None
        if screen is not None:
            self.resize(min(1500, int(screen.width() * 0.92)), min(900, screen.height() - 40))
        self._share_out()

    def _samples(self) -> QVBoxLayout:
        """The samples, one category a row, and the buttons that add and remove them."""
        self.sample_table = QTableWidget(0, 3)
        self.sample_table.setHorizontalHeaderLabels(["Category", "Files", "Size"])
        self.sample_table.verticalHeader().hide()
        self.sample_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.sample_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        hh = self.sample_table.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.sample_table.setMinimumHeight(70)
        self.sample_table.setMaximumHeight(130)
        self.sample_table.itemSelectionChanged.connect(self._update)
        buttons = QHBoxLayout()
        self.add_files = QPushButton("Add &files…")
        self.add_files.setToolTip("Each file is a category, named by its name before the "
                                  "first dot (en.txt, zh.txt.xz, code.py.txt); files of one "
                                  "name go to one category")
        self.add_files.clicked.connect(self._pick_files)
        self.add_folder = QPushButton("Add f&older…")
        self.add_folder.setToolTip("Every text file of a folder, one category per file name "
                                   "(en.txt, zh.txt, python.txt …)")
        self.add_folder.clicked.connect(self._pick_folder)
        self.remove = QPushButton("&Remove")
        self.remove.clicked.connect(self._remove)
        for b in (self.add_files, self.add_folder, self.remove):
            buttons.addWidget(b)
        buttons.addStretch(1)
        box = QVBoxLayout()
        box.addWidget(self.sample_table)
        box.addLayout(buttons)
        return box


    def _tokenizer_row(self) -> QHBoxLayout:
        """Which tokenizer, how many of its merges, how many rounds, and Infer."""
        row = QHBoxLayout()
        # (its longest item, a long file name, made the dialog wider than an 800-pixel
        # screen: elided, whole in its tooltip and its list)
        self.tokenizer_box = ElidedComboBox()
        self.tokenizer_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.tokenizer_box.setMinimumContentsLength(16)
        self.tokenizer_box.setToolTip("The tokenizer whose training data to infer: the one "
                                      "being trained (as of the current step) or the "
                                      "imported one; byte-level BPE only")
        self.tokenizer_box.currentIndexChanged.connect(lambda _: self._changed())
        self.merges = QSpinBox()
        self.merges.setRange(0, 10_000_000)
        self.merges.setSpecialValueText("all")
        self.merges.setValue(0)
        self.merges.setGroupSeparatorShown(True)
        self.merges.setPrefix("first ")
        self.merges.setToolTip("Use only the first N merges (all: every merge). The first "
                               "few thousand carry most of the signal and run fast.")
        self.merges.valueChanged.connect(lambda _: self._changed())
        self.rounds = QSpinBox()
        self.rounds.setRange(0, 1_000_000)
        self.rounds.setSpecialValueText("until optimal")
        self.rounds.setValue(0)
        self.rounds.setPrefix("at most ")
        self.rounds.setToolTip("Stop the linear program after N rounds, even before its "
                               "optimum (the result then says it did not converge). "
                               "Until optimal: no limit.")
        self.rounds.valueChanged.connect(lambda _: self._changed())
        self.infer = QPushButton("&Infer")
        self.infer.clicked.connect(self.run)
        row.addWidget(self.tokenizer_box, 1)
        row.addWidget(QLabel("Merges:"))
        row.addWidget(self.merges)
        row.addWidget(QLabel("Rounds:"))
        row.addWidget(self.rounds)
        row.addWidget(self.infer)
        return row

    def _results(self) -> QWidget:
        """The proportions, the merges step by step and the selected merge's counts:
        side by side on a wide screen, else as tabs; the note on the method beside."""
        self.share_chart = ShareChart()
        self.shares_label = QLabel()
        self.shares_label.setWordWrap(True)
        self.shares_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        left = _column(self.shares_label, (self.share_chart, 1))
        steps, detail = self._steps_side(), self._detail_side()
        row_h = self.pair_view.fontMetrics().height() + 6
        screen = self.screen().availableGeometry() if self.screen() else None
        wide = screen is None or (screen.width() >= 1400 and screen.height() >= 850)
        self.note = QLabel(NOTE)
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.RichText)
        self.split = split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        self.tabs: QTabWidget | None = None
        if wide:   # the chart, the merges and the selected merge's counts side by side
            split.addWidget(left)
            body: QWidget = split
        else:      # a small screen: the proportions, the merges and the note as tabs (the
            # note under the chart was drawn over it at 800x600: the page was shorter
            # than the three of them)
            self.tabs = tabs = QTabWidget()
            tabs.addTab(left, "&Proportions")
            tabs.addTab(split, "&Merge by merge")
            tabs.addTab(scrolled(self.note), "What it &assumes")
            body = tabs
            self.sample_table.setMaximumHeight(row_h * 4 + 4)
        split.addWidget(steps)
        split.addWidget(detail)
        for k in range(split.count()):
            split.setStretchFactor(k, 2 if split.widget(k) is left else 3)
        return body

    def _steps_side(self) -> QWidget:
        """The merges step by step, filtered by the category that explains them best."""
        self.steps_model = MixtureStepsModel(self)
        self.steps_view = QTableView()
        self.steps_view.setModel(self.steps_model)
        self.steps_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.steps_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.steps_view.verticalHeader().hide()
        self.steps_view.verticalHeader().setDefaultSectionSize(
            self.steps_view.fontMetrics().height() + 6)
        self.steps_view.horizontalHeader().setStretchLastSection(True)
        self.steps_view.selectionModel().currentRowChanged.connect(
            lambda cur, _prev: self._show_step(cur.row()))
        self.evidence = QComboBox()
        self.evidence.setToolTip("Show only the merges one category explains best")
        self.evidence.currentIndexChanged.connect(self._on_evidence)
        steps_top = QHBoxLayout()
        steps_top.addWidget(QLabel("<b>Merges</b>, step by step:"))
        steps_top.addWidget(self.evidence, 1)
        steps = _column((self.steps_view, 1))
        lay = steps.layout()
        assert isinstance(lay, QVBoxLayout)
        lay.insertLayout(0, steps_top)
        return steps

    def _detail_side(self) -> QWidget:
        """The selected merge: why, and each category's counts of it and its runner-up."""
        self.pair_model = PairCountsModel(self)
        self.pair_view = QTableView()
        self.pair_view.setModel(self.pair_model)
        self.pair_view.verticalHeader().hide()
        self.pair_view.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.pair_view.horizontalHeader().setStretchLastSection(True)
        row_h = self.pair_view.fontMetrics().height() + 6
        for v in (self.pair_view, self.sample_table):
            v.verticalHeader().setDefaultSectionSize(row_h)
        # room for a few categories without scrolling
        self.pair_view.setMinimumHeight(row_h * 5)
        self.pair_chart = PairChart()
        self.pair_legend = QLabel()
        self.pair_legend.setWordWrap(True)
        self.why = QLabel()
        self.why.setWordWrap(True)
        self.why.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return _column(self.why, (self.pair_view, 1), self.pair_legend, (self.pair_chart, 2))

    def _share_out(self) -> None:
        """Give the chart, the merges and the selected merge's counts their room."""
        split = self.split
        total = max(split.width(), self.width() - 40)
        parts = (28, 32, 40) if split.count() == 3 else (44, 56)
        split.setSizes([total * k // 100 for k in parts])
        fm = self.steps_view.fontMetrics()
        for col, text in enumerate(("88,888", "·the + ·the", "Explained best by")):
            self.steps_view.setColumnWidth(col, fm.horizontalAdvance(text) + 24)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not getattr(self, "_shared", False):
            self._shared = True
            self._share_out()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "pair_legend"):
            self.pair_legend.setText(self.pair_chart.legend_html(is_dark(self)))

    # ----- samples ----------------------------------------------------------------------
    def add_sample_files(self, paths: list[str]) -> None:
        """Add files, each to the category its name says (see :func:`category_of`)."""
        for p in paths:
            files = self.samples.setdefault(category_of(p), [])
            if p not in files:
                files.append(p)
        self._fill_samples()

    def add_sample_folder(self, folder: str) -> bool:
        """Add every text file of a folder (one category per file name); False and a
        message when the folder holds none."""
        try:
            found = held_out_files(folder)
        except BPEError as e:
            self._say(str(e), "error")
            return False
        self.add_sample_files([str(p) for p in found.values()])
        return True

    def _pick_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Samples, one file per category",
                                                last_folder(), SAMPLE_FILTER)
        if paths:
            remember(paths[0])
            self.add_sample_files(paths)

    def _pick_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder of samples (one file per "
                                                  "category)", last_folder())
        if folder:
            remember(folder)
            self.add_sample_folder(folder)

    def _remove(self) -> None:
        rows = sorted({ix.row() for ix in self.sample_table.selectedIndexes()}, reverse=True)
        names = list(self.samples)
        for r in rows:
            if 0 <= r < len(names):
                del self.samples[names[r]]
        self._fill_samples()

    def _fill_samples(self) -> None:
        t = self.sample_table
        t.setRowCount(len(self.samples))
        for r, (cat, files) in enumerate(self.samples.items()):
            size = 0
            for f in files:
                try:
                    size += Path(f).stat().st_size
                except OSError:
                    pass
            names = ", ".join(Path(f).name for f in files)
            for c, text in enumerate((cat, names, _size(size))):
                item = QTableWidgetItem(text)
                item.setToolTip("\n".join(files) if c == 1 else text)
                if c == 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                t.setItem(r, c, item)
        self._changed()

    # ----- the tokenizer ----------------------------------------------------------------
    def _tokenizers(self) -> list[tuple[str, str]]:
        """(key, label) of the tokenizers the window holds: the trained one, the imported."""
        c = self.controller
        out = []
        if c.has_trainer:
            out.append(("step", "The trained tokenizer, as of the current step"))
        if c.imported is not None:
            out.append(("imported", "Imported: " + imported_name(c.imported_path)))
        return out

    def _resolve(self):
        """(tokenizer, its name in words) of the tokenizer box's choice."""
        c = self.controller
        key = self.tokenizer_box.currentData()
        if key == "imported" and c.imported is not None:
            return c.imported, self.tokenizer_box.currentText()
        if key == "step":
            v = c.view()
            if v is None:
                raise BPEError("The trained tokenizer is busy (training is running): wait "
                               "for it, or Cancel.")
            return v.tokenizer(), f"the trained tokenizer at step {v.n_steps:,}"
        raise BPEError("No tokenizer yet: train one, or import a tokenizer file.")

    def _update(self) -> None:
        box = self.tokenizer_box
        wanted = box.currentData()
        items = self._tokenizers()
        old = [box.itemData(i) for i in range(box.count())]
        if old != [k for k, _ in items] or \
                [box.itemText(i) for i in range(box.count())] != [t for _, t in items]:
            box.blockSignals(True)
            box.clear()
            for k, text in items:
                box.addItem(text, k)
            keys = [k for k, _ in items]
            # a tokenizer just imported for the encode view: that one; else as it was
            if "imported" in keys and self.controller.use_imported and \
                    ("imported" not in old or wanted is None):
                box.setCurrentIndex(keys.index("imported"))
            elif wanted in keys:
                box.setCurrentIndex(keys.index(wanted))
            box.blockSignals(False)
        self.remove.setEnabled(bool(self.sample_table.selectedIndexes()))
        refusal = None
        try:
            tok, _name = self._resolve()
            refusal = mixture_refusal(tok)
        except BPEError as e:
            refusal = str(e)
        ready = len(self.samples) >= 2 and refusal is None
        self.infer.setEnabled(ready and not self.controller.busy and not self._running)
        if not self._running and not self._told:
            if refusal is not None:
                self._say(refusal, "error")
            elif len(self.samples) < 2:
                self._say("Add samples of at least two categories (Add files… or Add "
                          "folder…), then Infer.")
            elif self.mixture is not None:
                self._say("Not inferred with these samples yet (the charts show the last "
                          "inference): press Infer.")
            else:
                self._say("Ready: press Infer.")

    def _changed(self) -> None:
        """The samples, tokenizer or merges changed: what the status said of the last run
        no longer holds."""
        self._told = False
        self._update()

    def _say(self, text: str, kind: str = "muted") -> None:
        self.status.setText(text)
        self.status.setStyleSheet(f"color: {colors(self)[kind]};")

    # ----- running ----------------------------------------------------------------------
    def run(self) -> bool:
        """Infer on the job runner; False (and a message) if it cannot start."""
        try:
            tok, name = self._resolve()
        except BPEError as e:
            self._say(str(e), "error")
            return False
        merges = self.merges.value() or None
        # running before it starts: a Cancel at once ends it inside the start
        self._running, self._told = True, False
        self._say(f"Inferring for {name}… (Cancel in the status bar stops it)")
        self._empty_charts("Inferring… (progress in the status bar)")
        started = self.controller.side.infer_training_mixture(
            tok, name, self.samples, merges, self._finished, self._ended,
            max_rounds=self.rounds.value() or None)
        if not started:
            if self._running:   # not refused with a reason (that ended it): busy
                self._running, self._told = False, True
                self._say("Busy: wait for the running job, or cancel it.", "error")
            self._update()
            return False
        self._update()
        return True

    def _empty_charts(self, text: str) -> None:
        self.share_chart.empty_text = text
        self.share_chart.update()

    def _finished(self, run) -> None:
        self._running, self._told = False, True
        self.mixture = run.result
        r = run.result
        skipped = f"; {r.merges_skipped:,} merges left out (their parts are not tokens)" \
            if getattr(r, "merges_skipped", 0) else ""
        solved = (f"optimal after {r.rounds:,} rounds" if r.converged else
                  f"NOT converged: stopped after {r.rounds:,} rounds")
        self._say(f"{run.tokenizer}: {r.merges_used:,} merges replayed on "
                  f"{len(r.proportions)} samples in {run.seconds:.1f} s{skipped}; "
                  f"{solved}.", "ok" if r.converged else "error")
        self._show_result()
        self._update()

    def _ended(self, end) -> None:
        self._empty_charts(EMPTY)
        if self._running:
            self._running, self._told = False, True
            if end.outcome.value == "failed":
                self._say(end.message or "Failed.", "error")
            else:
                self._say("Not inferred (cancelled). Press Infer to start again.")
        self._update()

    # ----- the result -------------------------------------------------------------------
    def _show_result(self) -> None:
        r = self.mixture
        shares = r.proportions if r is not None else None
        self.share_chart.show_shares(shares)
        if r is not None and shares:
            order = sorted(shares.items(), key=lambda kv: -kv[1])
            warn = colors(self)["error"]
            self.shares_label.setText("<b>Proportions:</b> " + ", ".join(
                f"{_escape(k)} {v:.1%}" for k, v in order) + "".join(
                f'<br><span style="color:{warn}">⚠ {_escape(w.message)}</span>'
                for w in r.warnings))
        else:
            self.shares_label.setText("<b>Proportions</b> of the training data, by "
                                      "category, appear here.")
        self.evidence.blockSignals(True)
        self.evidence.clear()
        self.evidence.addItem("every merge", "")
        if r is not None:
            for k in r.proportions:
                n = len(r.evidence.get(k, ()))
                self.evidence.addItem(f"explained best by {k} ({n:,})", k)
        self.evidence.blockSignals(False)
        self.steps_model.set_result(r)
        self.steps_view.resizeColumnToContents(0)
        if r is not None and r.steps:
            self.steps_view.selectRow(0)
        else:
            self._show_step(-1)

    def _on_evidence(self, _i: int = 0) -> None:
        self.steps_model.set_result(self.mixture, self.evidence.currentData() or "")
        if self.steps_model.rowCount():
            self.steps_view.selectRow(0)
        else:
            self._show_step(-1)

    def _show_step(self, row: int) -> None:
        s = self.steps_model.step_at(row)
        shares = self.mixture.proportions if self.mixture is not None else {}
        self.pair_model.set_step(s, shares)
        self.pair_chart.show_step(s, list(shares))
        self.pair_legend.setText(self.pair_chart.legend_html(is_dark(self)))
        if s is None:
            self.why.setText("Select a merge to see each category's count of it against "
                             "the runner-up's.")
            return
        lead = sum(shares.get(k, 0.0) * (s.counts.get(k, 0.0) - s.runner_up_counts.get(k, 0.0))
                   for k in shares)
        self.why.setText(
            f"<b>Step {s.step:,}</b> merges <b>{_escape(pair_text(s.merge))}</b>; the "
            f"runner-up is {_escape(pair_text(s.runner_up))}. Weighted by the shares, the "
            f"merge leads by {lead:,.0f} per MB"
            + (" (explained)" if lead >= 0 else " (not explained: a slack of the linear "
               "program absorbs it)")
            + f". <b>{_escape(s.best_category)}</b> (★) explains it best: it adds the most "
            "to that lead (share × difference).")


def _size(n: int) -> str:
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MB"
    return f"{n / 1024:.0f} KB" if n >= 1024 else f"{n} B"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _column(*parts) -> QWidget:
    """Widgets one above the other, without margins; a (widget, stretch) pair grows."""
    box = QWidget()
    lay = QVBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    for part in parts:
        w, stretch = part if isinstance(part, tuple) else (part, 0)
        lay.addWidget(w, stretch)
    return box


def show_training_mixture(controller: MixtureHost, window: QWidget) -> TrainingMixtureDialog:
    """Open (or bring to the front) the window's one "What was it trained on?" dialog."""
    return one_dialog(window, TrainingMixtureDialog, controller)
