"""The vocabulary browser's dead weight (PickyBPE's intersection over self): its button,
threshold and "Other corpus…" controls, what it was measured on, and the measuring job.

:class:`DeadWeight` is a part of the browser, given its model, its table (the columns
and sort it shows) and how to ask the browser to say what changed (``changed``: the
summary line, the columns' fit).
"""
from __future__ import annotations

from typing import Callable, Protocol, Sequence

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QDoubleSpinBox, QFileDialog, QPushButton, QTableView, QWidget

from ....engine.analysis import THRESHOLD
from ....engine.tokenizers import BaseTokenizer
from ...controller.corpus_source import Corpus
from ...controller.jobs import Done, Ended, JobEnd
from ...controller.side_jobs import DeadWeightRun
from ...models.reads import TokenizerReads
from ...models.vocab_model import VocabModel
from ...widgets.last_folder import last_folder, remember


class DeadWeightHost(TokenizerReads, Protocol):
    """What measuring dead weight reads of the controller: the run, the imported
    tokenizer, and the corpus in the window."""

    corpus: Corpus

    @property
    def side(self) -> _MeasuresDeadWeight: ...


class _MeasuresDeadWeight(Protocol):
    def measure_dead_weight(self, tok: BaseTokenizer, key: object, paths: Sequence[str],
                            trained: bool, on_done: Done, on_end: Ended) -> bool: ...


class DeadWeight(QObject):
    """The controls and the state of dead weight (see the module docstring)."""

    def __init__(self, controller: DeadWeightHost, model: VocabModel, view: QTableView,
                 changed: Callable[[bool], None], parent: QWidget):
        super().__init__(parent)
        self.controller, self.model, self.view = controller, model, view
        self._changed = changed          # (columns: whether they come or go)
        self.run: DeadWeightRun | None = None   # the last run (its key says of what)
        self.asked: object = None        # the key a running job measures
        self.stopped: tuple | None = None   # (key, why): cancelled or failed
        self.paths: list[str] = []       # "Other corpus…" files ([]: the window's corpus)
        self.button = QPushButton("&Dead weight")
        self.button.setCheckable(True)
        self.button.setToolTip(
            "Measure dead weight on the corpus in the window (or on files: Other corpus…): "
            "for each token, how often it is merged further into a larger token, against "
            "how often it is a token of the encoding. The IoS column shows the share merged "
            "further (PickyBPE's intersection over self); the table keeps the merged tokens "
            "at or above the threshold: intermediate tokens the model almost never sees. "
            "Alt+D")
        self.button.toggled.connect(self._toggled)
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.0, 1.0)
        self.threshold.setDecimals(2)
        self.threshold.setSingleStep(0.05)
        self.threshold.setValue(THRESHOLD)
        self.threshold.setPrefix("IoS ≥ ")
        self.threshold.setToolTip("Show the merged tokens whose IoS is at least this "
                                  f"(PickyBPE's default: {THRESHOLD:g})")
        self.threshold.valueChanged.connect(self._on_threshold)
        self.files = QPushButton("Other corpus…")
        self.files.setToolTip("Measure dead weight on files of your choice instead of "
                              "the corpus in the window (a right click goes back to "
                              "the window's corpus)")
        self.files.clicked.connect(self._pick_files)
        self.files.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.files.customContextMenuRequested.connect(lambda _p: self.set_paths([]))
        self.threshold.hide()
        self.files.hide()

    @property
    def on(self) -> bool:
        return self.button.isChecked()

    def key(self) -> tuple | None:
        """What dead weight would be measured of now: (tokenizer, corpus), or None."""
        c = self.controller
        if self.model.source == "imported":
            tok_key: tuple = ("imported", id(c.imported))
        else:
            v = c.view()
            if v is None or c.peeking:
                return None
            tok_key = ("trained", id(v), v.n_steps)
        return tok_key + (tuple(self.paths) or ("window", id(c.corpus)))

    def _toggled(self, on: bool) -> None:
        self.threshold.setVisible(on)
        self.files.setVisible(on)
        for col in VocabModel.DEAD_COLUMNS:
            self.view.setColumnHidden(col, not on)
        if on:
            self.stopped = None   # asked for: measure again even after a Cancel
            if self.view.horizontalHeader().sortIndicatorSection() < 0:
                self.view.sortByColumn(VocabModel.IOS, Qt.SortOrder.DescendingOrder)
        self.model.set_dead_filter(self.threshold.value() if on else None)
        self.refresh()
        self._changed(True)

    def _on_threshold(self, value: float) -> None:
        if self.on:
            self.model.set_dead_filter(value)
            self._changed(False)

    def set_paths(self, paths: list[str]) -> None:
        """Measure dead weight on these files ([]: the corpus in the window)."""
        self.paths = list(paths)
        self.files.setText("Other corpus…" if not paths else
                           f"Corpus: {paths[0].replace(chr(92), '/').rsplit('/', 1)[-1]}"
                           + (f" +{len(paths) - 1}" if len(paths) > 1 else ""))
        self.stopped = None
        self.refresh()
        self._changed(False)

    def _pick_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self.button, "Measure dead weight on", last_folder(),
            "Text (*.txt *.jsonl *.md *.py *.gz *.xz);;All files (*)")
        if paths:
            remember(paths[0])
            self.set_paths(paths)

    def refresh(self) -> None:
        """Show the dead weight of what is shown, measuring it when it is not known."""
        if not self.on:
            return
        key, run = self.key(), self.run
        if run is not None and run.key == key:
            self.model.set_dead(run.dead, run.corpus)
            self._changed(False)
            return
        self.model.set_dead(None)
        c = self.controller
        if key is None or self.asked is not None or c.busy or \
                (self.stopped is not None and self.stopped[0] == key):
            self._changed(False)
            return
        tok: BaseTokenizer | None
        if self.model.source == "imported":
            tok, trained = c.imported, False
        else:
            v = c.view()
            tok, trained = (v.tokenizer() if v is not None else None), True
        if tok is None:
            return
        self.asked = key
        if not c.side.measure_dead_weight(tok, key, self.paths, trained, self._done,
                                          self._ended):
            self.asked = None
        self._changed(False)

    def _done(self, run: object) -> None:
        assert isinstance(run, DeadWeightRun)   # (the job's result)
        self.run = run
        self.refresh()

    def _ended(self, end: JobEnd) -> None:
        asked, self.asked = self.asked, None
        if not end.done and asked is not None and end.outcome.value != "dropped":
            why = "cancelled (press Dead weight again to measure)" \
                if end.outcome.value == "cancelled" else end.message
            self.stopped = (asked, why)
        self._changed(False)

    def text(self) -> str:
        """The summary's words on dead weight ('' when the button is up)."""
        if not self.on:
            return ""
        m = self.model
        if m.dead is not None:
            return f"dead weight on {m.dead_corpus}: {m.dead.summary(self.threshold.value())}"
        if self.stopped is not None and self.stopped[0] == self.key():
            return f"dead weight: {self.stopped[1]}"
        return "dead weight: measuring…"
