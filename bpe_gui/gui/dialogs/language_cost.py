"""Per-language cost: a folder of held-out texts (one file per language) encoded by up
to four tokenizers -- the current training step, the imported tokenizer, tokenizer
files -- with a table and a chart of bytes per token, tokens per character, parity with
a reference language and Rényi efficiency; exported as CSV.

The work runs on the controller's job runner (status bar progress, Cancel), through
``Controller.side.measure_language_cost``; the numbers come from ``engine/analysis/per_language.py``. Opened from
Analysis › Per-language cost (:func:`show_language_cost`).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Protocol

from PySide6.QtCore import QEvent, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QFileDialog,
                               QFormLayout, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QListWidget, QMessageBox, QPushButton, QSplitter, QTableView,
                               QVBoxLayout, QWidget)

from ...engine.errors import BPEError
from ...engine.analysis import CostTable, held_out_files, tokenizer_labels
from ..controller.jobs import Done, Ended
from ..models.reads import TokenizerReads
from ..models.imported_name import imported_name
from ..theme import colors, is_dark
from ..widgets.default_button import make_default, not_auto_default
from ..widgets.wheel_guard import guard_wheel
from ..widgets.last_folder import in_last_folder, last_folder, remember
from .cost_parts import METRICS, SORT_ROLE, CostChart, CostModel
from .import_dialog import TOKENIZER_FILTER
from . import one_dialog

MAX_TOKENIZERS = 4


class CostHost(TokenizerReads, Protocol):
    """What Per-language cost reads of the controller: the run and the imported
    tokenizer (models/reads.py), and the job that measures."""

    @property
    def side(self) -> _MeasuresCost: ...


class _MeasuresCost(Protocol):
    def measure_language_cost(self, folder: str, tokenizers: Mapping[str, object],
                              reference: str | None, on_done: Done, on_end: Ended) -> bool: ...


@dataclass(frozen=True)
class Source:
    """One tokenizer to measure: the current step, the imported one, or a file."""

    kind: str            # "step" | "imported" | "file"
    path: str = ""

    def text(self, imported: str = "") -> str:
        """How the list names it; ``imported``: the imported tokenizer's name."""
        if self.kind == "step":
            return "The trained tokenizer, as of the current step"
        if self.kind == "imported":
            return f"The imported tokenizer: {imported}" if imported else \
                "The imported tokenizer (none now)"
        return self.path


class LanguageCostDialog(QDialog):
    def __init__(self, controller: CostHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle("Per-language cost")
        self.sources: list[Source] = []
        self.table: CostTable | None = None
        self.languages: list[str] = []
        self._running = False
        self._folder = ""
        self._build()
        controller.busyChanged.connect(lambda _: self._update())
        controller.tokenizerChanged.connect(self._name_sources)   # another one imported
        self._update()

    # ----- layout -----------------------------------------------------------------------
    def _build(self) -> None:
        self.intro = QLabel(
            "Bytes per token and tokens per character of each text, for each tokenizer. "
            "<b>Parity</b> divides a text's tokens by the reference language's: it "
            "compares like with like only when the texts say the same thing (parallel "
            "texts: translations of one document).")
        self.intro.setWordWrap(True)
        form = QFormLayout()
        row = QHBoxLayout()
        self.folder_edit = QLineEdit()
        self.folder_edit.setPlaceholderText("A folder with one text file per language: "
                                            "en.txt, de.txt, zh.txt.xz …")
        self.folder_edit.editingFinished.connect(self._folder_edited)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._pick_folder)
        row.addWidget(self.folder_edit, 1)
        row.addWidget(browse)
        form.addRow("Held-out texts:", row)
        self.folder_info = QLabel()
        self.folder_info.setWordWrap(True)
        form.addRow("", self.folder_info)

        self.source_list = QListWidget()
        self.source_list.setMaximumHeight(90)
        self.source_list.currentRowChanged.connect(lambda _: self._update())
        buttons = QHBoxLayout()
        self.add_step = QPushButton("Add current step")
        self.add_step.clicked.connect(lambda: self.add_source(Source("step")))
        self.add_imported = QPushButton("Add imported")
        self.add_imported.clicked.connect(lambda: self.add_source(Source("imported")))
        self.add_file = QPushButton("Add file…")
        self.add_file.clicked.connect(self._pick_file)
        self.remove = QPushButton("Remove")
        self.remove.clicked.connect(self._remove)
        for b in (self.add_step, self.add_imported, self.add_file, self.remove):
            buttons.addWidget(b)
        buttons.addStretch(1)
        box = QVBoxLayout()
        box.addWidget(self.source_list)
        box.addLayout(buttons)
        form.addRow(f"Tokenizers (up to {MAX_TOKENIZERS}):", box)

        row = QHBoxLayout()
        self.reference = QComboBox()
        self.reference.setToolTip("Parity divides each text's tokens by this language's "
                                  "(meaningful when the texts are translations of one "
                                  "document)")
        self.reference.currentTextChanged.connect(lambda _: self._not_measured())
        self.measure = QPushButton("Measure")
        self.measure.clicked.connect(self.run)
        self.status = QLabel()
        self.status.setWordWrap(True)
        row.addWidget(self.reference)
        row.addWidget(self.measure)
        row.addWidget(self.status, 1)
        form.addRow("Reference language:", row)

        self.model = CostModel(self)
        proxy = QSortFilterProxyModel(self)
        proxy.setSourceModel(self.model)
        proxy.setSortRole(SORT_ROLE)
        self.view = QTableView()
        self.view.setModel(proxy)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.verticalHeader().hide()
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.view.setSortingEnabled(True)
        # the engine's order until clicked
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.chart = CostChart()
        self.metric_box = QComboBox()
        self.metric_box.addItems(list(METRICS))
        self.metric_box.currentTextChanged.connect(self._show_chart)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.metric_box)
        top.addWidget(self.legend, 1)
        rl.addLayout(top)
        rl.addWidget(self.chart, 1)
        # side by side on a wide screen; table above chart on a small one
        screen = self.screen().availableGeometry() if self.screen() else None
        wide = screen is None or screen.width() >= 1400
        self.split = split = QSplitter(Qt.Orientation.Horizontal if wide
                                       else Qt.Orientation.Vertical)
        split.addWidget(self.view)
        split.addWidget(right)
        split.setStretchFactor(0, 3 if wide else 2)
        split.setStretchFactor(1, 2 if wide else 3)

        bottom = QHBoxLayout()
        self.export = QPushButton("Export CSV…")
        self.export.clicked.connect(self._export)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        bottom.addWidget(self.export)
        bottom.addStretch(1)
        bottom.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.intro)
        lay.addLayout(form)
        lay.addWidget(split, 1)
        lay.addLayout(bottom)
        # Enter measures, also after Browse…, Add file… or Export CSV… was clicked
        not_auto_default(browse, self.add_step, self.add_imported, self.add_file,
                         self.remove, self.export)
        make_default(self.measure)
        self._show_chart()
        self._not_measured()
        guard_wheel(self)
        if screen is not None:
            self.resize(min(1400, int(screen.width() * 0.9)), min(820, screen.height() - 40))

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "legend"):
            self._show_chart()   # the legend's colours follow the theme

    def _show_chart(self) -> None:
        self.chart.show_table(self.table, self.metric_box.currentText())
        self.legend.setText(self.chart.legend_html(is_dark(self)))

    # ----- inputs -----------------------------------------------------------------------
    def set_folder(self, folder: str) -> None:
        self.folder_edit.setText(folder)
        self._folder_changed()

    def _folder_edited(self) -> None:
        # editingFinished also comes when the box merely loses focus: only a new folder
        # is read again (and drops the status of the last measurement)
        if self.folder_edit.text().strip() != self._folder:
            self._folder_changed()

    def _pick_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder of held-out texts",
                                                  self.folder_edit.text() or last_folder())
        if folder:
            remember(folder)
            self.set_folder(folder)

    def _folder_changed(self) -> None:
        folder = self._folder = self.folder_edit.text().strip()
        old = self.reference.currentText()
        self.reference.clear()
        self.languages = []
        if not folder:
            self._say(self.folder_info, "")
        else:
            try:
                self.languages = list(held_out_files(folder))
            except BPEError as e:
                self._say(self.folder_info, str(e), "error")
            else:
                self._say(self.folder_info, f"{len(self.languages)} text(s): "
                          f"{', '.join(self.languages)}")
                self.reference.addItems(self.languages)
                pick = old if old in self.languages else "en"
                if pick in self.languages:
                    self.reference.setCurrentText(pick)
        self._not_measured()
        self._update()

    def add_source(self, source: Source) -> None:
        """Add a tokenizer to measure (at most MAX_TOKENIZERS; the same one once)."""
        if source in self.sources or len(self.sources) >= MAX_TOKENIZERS:
            return
        self.sources.append(source)
        self.source_list.addItem(source.text(self._imported_name()))
        self._not_measured()
        self._update()

    def _imported_name(self) -> str:
        """'cl100k_base', 'gpt2 (GPT-2 files)': the imported tokenizer's name, or ''."""
        c = self.controller
        return imported_name(c.imported_path) if c.imported is not None else ""

    def _name_sources(self) -> None:
        name = self._imported_name()
        for k, s in enumerate(self.sources):
            self.source_list.item(k).setText(s.text(name))
        self._update()

    def _pick_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Tokenizer to measure", last_folder(),
                                              TOKENIZER_FILTER)
        if path:
            remember(path)
            self.add_source(Source("file", path))

    def _remove(self) -> None:
        k = self.source_list.currentRow()
        if 0 <= k < len(self.sources):
            del self.sources[k]
            self.source_list.takeItem(k)
            self._not_measured()
        self._update()

    def _update(self) -> None:
        c = self.controller
        full = len(self.sources) >= MAX_TOKENIZERS
        self.add_step.setEnabled(not full and c.has_trainer
                                 and Source("step") not in self.sources)
        self.add_imported.setEnabled(not full and c.imported is not None
                                     and Source("imported") not in self.sources)
        self.add_file.setEnabled(not full)
        self.remove.setEnabled(self.source_list.currentRow() >= 0)
        ready = bool(self.sources) and bool(self.languages)
        self.measure.setEnabled(ready and not c.busy)
        self.export.setEnabled(self.table is not None)

    def _not_measured(self) -> None:
        """The texts, tokenizers or reference changed: what the status said of the last
        run (its numbers, or that it failed) no longer holds."""
        if self._running:
            return
        text = "Not measured yet: press Measure."
        if self.table is not None:
            text = ("Not measured yet with these texts and tokenizers (the table shows "
                    "the last measurement).")
        self._say(self.status, text)

    def _say(self, label: QLabel, text: str, kind: str = "muted") -> None:
        label.setText(text)
        label.setStyleSheet(f"color: {colors(self)[kind]};")

    # ----- running ----------------------------------------------------------------------
    def run(self) -> bool:
        """Measure on the job runner; False (and a message) if it cannot start."""
        c = self.controller
        try:
            toks = self._resolve()
        except BPEError as e:
            self._say(self.status, str(e), "error")
            return False
        folder, ref = self.folder_edit.text().strip(), self.reference.currentText() or None
        if not c.side.measure_language_cost(folder, toks, ref, self._job_finished,
                                            lambda _end: self._job_ended()):
            self._say(self.status, "Busy: wait for the running job, or cancel it.", "error")
            return False
        self._running = True
        self._say(self.status, "Measuring… (Cancel in the status bar stops it)")
        return True

    def _resolve(self) -> dict[str, object]:
        """label -> tokenizer (or a path, loaded on the worker thread)."""
        c = self.controller
        out: dict[str, object] = {}
        files = [s.path for s in self.sources if s.kind == "file"]
        names = iter(tokenizer_labels(files))
        for s in self.sources:
            if s.kind == "step":
                v = c.view()
                if v is None:
                    raise BPEError("There is no trained tokenizer yet (or training is "
                                   "running): train first, or remove “current step”.")
                out[f"step {v.n_steps:,}"] = v.tokenizer()
            elif s.kind == "imported":
                if c.imported is None:
                    raise BPEError("No tokenizer is imported now: import one, or remove "
                                   "“imported”.")
                out[f"imported: {self._imported_name()}"] = c.imported
            else:
                out[next(names)] = s.path
        return out

    def _job_finished(self, result) -> None:
        self._running = False
        self.table = result
        self.model.set_table(self.table)
        self._show_chart()
        self._fit_table()
        t = self.table
        self._say(self.status, f"{len(t.languages)} text(s) × {len(t.tokenizers)} "
                  f"tokenizer(s); parity against {t.reference}.", "ok")
        self._update()

    def _fit_table(self) -> None:
        """Side by side, give the table the width its columns need (up to 65%), once."""
        if self.split.orientation() != Qt.Orientation.Horizontal or \
                getattr(self, "_fitted", False):
            return
        self._fitted = True
        v = self.view
        need = v.horizontalHeader().length() + v.verticalScrollBar().sizeHint().width() \
            + 2 * v.frameWidth() + 4
        total = sum(self.split.sizes())
        first = min(need, int(total * 0.65))
        self.split.setSizes([first, total - first])

    def _job_ended(self) -> None:
        if self._running:
            self._running = False
            self._say(self.status, "Not measured (cancelled or failed).", "muted")
        self._update()

    def _export(self) -> None:
        if self.table is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export per-language cost",
                                              in_last_folder("language-cost.csv"), "CSV (*.csv)")
        if not path:
            return
        remember(path)
        from ...engine.io import write_files
        p = Path(path)
        try:
            write_files(p.parent, {p.name: self.table.to_csv().encode("utf-8")})
        except BPEError as e:
            QMessageBox.warning(self, "Export failed", str(e))
            return
        self._say(self.status, f"Wrote {p}.", "ok")


def show_language_cost(controller: CostHost, window: QWidget) -> LanguageCostDialog:
    """Open (or bring to the front) the window's one per-language cost dialog."""
    return one_dialog(window, LanguageCostDialog, controller)
