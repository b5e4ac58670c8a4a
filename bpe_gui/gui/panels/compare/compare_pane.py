"""One side of the compare view: which tokenizer it uses, and its coloured text.

:class:`ComparePane` holds a kind chooser (the current step, another step of this run,
another training configuration trained on the corpus by the controller's job runner --
``Controller.train_other``, with the status bar's progress and Cancel -- or an
imported tokenizer), the controls of that kind, a caption and a
:class:`~.token_text.TokenTextView`. It emits ``changed`` when its tokenizer changes;
:class:`~.compare_view.CompareView` then encodes the text again on both sides.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Protocol

from PySide6.QtCore import QTimer, Qt, Signal, SignalInstance
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFrame, QGridLayout, QHBoxLayout,
                               QLabel, QPushButton, QSizePolicy, QSlider,
                               QSpinBox, QStackedWidget, QVBoxLayout, QWidget)

from ....engine.text import PRESET_LABELS
from ....engine.text import resolve_pattern
from ....engine.tokenizers import BaseTokenizer, Tokenizer
from ....engine.train import TIE_RULE_LABELS, TrainSettings
from ...dialogs.import_dialog import TOKENIZER_FILTER
from ...controller.corpus_source import Corpus, corpus_name, same_source
from ...controller.parity_setup import ParitySetup
from ...models.reads import TokenizerReads
from ...controller.jobs import Done, Ended, JobEnd, Outcome
from ...models.parity_text import run_words
from ...models.settings_changes import rule_label
from ...widgets.flow_layout import FlowBar
from ...widgets.text_pane import TextPane
from ...widgets.token_text import TokenTextView, cut_color
from ...widgets.visibility import CatchUp
from ...widgets.whole_lines import WholeLines
from ...widgets.elided_combo import ElidedComboBox
from .compare_session import apply_side, side_state
from ...models.imported_name import imported_name

DEBOUNCE_MS = 150
KINDS = (("current", "Current step"), ("step", "Another step of this run"),
         ("trained", "Another training configuration"), ("imported", "Imported tokenizer"))
MODE_LABELS = {"byte": "Byte-level", "char": "Character-level (</w>)"}
MODE_SHORT = {"byte": "byte-level", "char": "char-level </w>"}
PATTERN_SHORT = {"gpt2": "GPT-2", "cl100k": "GPT-4", "o200k": "GPT-4o",
                 "whitespace": "whitespace", "cjk": "CJK-aware"}


# ----- one side: which tokenizer ------------------------------------------------------------
class PaneHost(TokenizerReads, Protocol):
    """What a side of Compare reads of the controller: the run, the imported
    tokenizer, and these."""

    corpusChanged: SignalInstance
    parityChanged: SignalInstance
    settings: TrainSettings
    parity: ParitySetup
    corpus: Corpus

    @property
    def retrain_pending(self) -> bool: ...
    @property
    def step_index(self) -> int: ...
    @property
    def corpus_text(self) -> str: ...
    @property
    def corpus_table(self) -> object | None: ...
    @property
    def streamed(self) -> bool: ...
    @property
    def side(self) -> TrainsAndReads: ...
    def cancel(self) -> None: ...


class TrainsAndReads(Protocol):
    def train_other(self, settings: TrainSettings, side: str, on_done: Done,
                    on_end: Ended) -> bool: ...
    def read_tokenizer(self, path: str, on_done: Done, on_end: Ended) -> bool: ...

class _CurrentPageStack(QStackedWidget):
    """A stack as tall as the page it shows (QStackedWidget asks for the tallest page:
    the training form's height was kept free above a one-line caption)."""

    def sizeHint(self):
        page = self.currentWidget()
        return page.sizeHint() if page is not None else super().sizeHint()

    def minimumSizeHint(self):
        page = self.currentWidget()
        return page.minimumSizeHint() if page is not None else super().minimumSizeHint()


class ComparePane(QFrame):
    """One side: pick the tokenizer (kind + its controls) and show the coloured text."""

    changed = Signal()       # this side's tokenizer changed: re-encode
    trained = Signal()       # a background training of this side finished (or failed)

    def __init__(self, controller: PaneHost, name: str, kind: str = "current",
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.catchup = CatchUp(self, self._on_step)
        self.catch_up = self.catchup.catch_up   # the main window's call when its tab is raised
        self.controller = controller
        self.name = name
        self.training = False    # this side's configuration is being trained
        self._trained_tok: Tokenizer | None = None
        self._trained_desc = ""
        self._trained_settings: TrainSettings | None = None
        self._trained_corpus: Corpus | None = None   # the corpus value it was trained on
        self._training_corpus: Corpus | None = None   # the one a running training reads
        self._trained_earlier = False   # the window holds another corpus now
        self._trained_on = ""   # the name of the corpus it was trained on
        self._trained_stats = (0, 0, 0.0)   # merges, characters, seconds
        self._file_tok: BaseTokenizer | None = None
        self._file_name = ""
        self._file_path: str | None = None   # None: the app's imported tokenizer
        # a side restored from a session, applied once the controller is idle (the
        # session's corpus is read and trained back first): see restore()
        self._pending: dict | None = None
        self._note: Callable[[str], None] = lambda _text: None
        self._keep_empty = False   # the imported kind shown without a tokenizer (its file gone)
        self.error = ""
        self.setFrameShape(QFrame.Shape.StyledPanel)

        self.kind = ElidedComboBox(items=KINDS)
        self.kind.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.kind.setMinimumContentsLength(10)
        self.stack = _CurrentPageStack()
        self.stack.addWidget(self._page_current())
        self.stack.addWidget(self._page_step())
        self.stack.addWidget(self._page_trained())
        self.stack.addWidget(self._page_imported())
        self.stack.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        # TextPanes: fixed heights (both sides' texts line up), long text cut with …
        self.caption = TextPane(lines=1)
        bold = QFont(self.caption.font())
        bold.setBold(True)
        self.caption.setFont(bold)
        self.view = TokenTextView()
        # two whole lines at least, of Han as of Latin (a short dock: the table of counts
        # below needs its rows), and no line cut at its bottom edge
        self.whole_lines = WholeLines(self.view, least=2)

        self.top = QWidget()   # kind + its controls; CompareView aligns both sides' tops
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(QLabel(f"<b>{name}</b>"))
        head.addWidget(self.kind, 1)
        tl = QVBoxLayout(self.top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addLayout(head)
        tl.addWidget(self.stack)
        tl.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(self.top)
        lay.addWidget(self.caption)
        lay.addWidget(self.view, 1)

        self._step_timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._step_timer.timeout.connect(self.changed)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        controller.stepChanged.connect(self._on_step)
        controller.trainerChanged.connect(self._on_trainer)
        controller.busyChanged.connect(lambda _: self._on_step())
        controller.corpusChanged.connect(self._on_corpus)
        controller.tokenizerChanged.connect(self._update_labels)
        controller.parityChanged.connect(self._on_parity)
        # a side still to restore waits for the session's training (a job, or at once)
        for sig in (controller.busyChanged, controller.trainerChanged, controller.stepChanged):
            sig.connect(lambda *_: None if self._pending is None
                        else QTimer.singleShot(0, self, self._apply_pending))
        self.set_kind(kind)
        self._on_trainer()

    # ----- pages ------------------------------------------------------------------------------
    def _page_current(self) -> QWidget:
        w = QWidget()
        # one line (the whole in its tooltip): two lines of it were taken from the
        # coloured texts below, which showed about two lines at 1920x1080 (issue 30)
        self.current_label = TextPane(lines=1)
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.current_label)
        lay.addStretch(1)
        return w

    def _page_step(self) -> QWidget:
        w = QWidget()
        self.step_spin = QSpinBox()
        self.step_spin.setKeyboardTracking(False)
        self.step_slider = QSlider(Qt.Orientation.Horizontal)
        self.step_max = QLabel()
        self.step_spin.valueChanged.connect(self._step_value)
        self.step_slider.valueChanged.connect(self.step_spin.setValue)
        row = QHBoxLayout(w)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("Step"))
        row.addWidget(self.step_spin)
        row.addWidget(self.step_slider, 1)
        row.addWidget(self.step_max)
        w.setToolTip("Any step up to the furthest one trained in this run (steps you "
                     "went back from still count: training is deterministic).")
        outer = QWidget()
        lay = QVBoxLayout(outer)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(w)
        lay.addStretch(1)
        return outer

    def _page_trained(self) -> QWidget:
        w = QWidget()
        self.t_mode = ElidedComboBox(items=MODE_LABELS.items())
        self.t_pattern = ElidedComboBox(items=PRESET_LABELS.items())
        self.t_vocab = QSpinBox()
        self.t_vocab.setRange(1, 10_000_000)
        self.t_vocab.setSingleStep(100)
        self.t_vocab.setGroupSeparatorShown(True)
        self.t_tie = ElidedComboBox(items=TIE_RULE_LABELS.items())
        self.train_btn = QPushButton("Train")
        self.train_btn.setToolTip("Train these settings on the corpus, in the background")
        self.train_btn.clicked.connect(self.train)
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setToolTip("Stop this training (as Cancel in the status bar, Esc)")
        self.cancel_btn.clicked.connect(self.controller.cancel)
        self.cancel_btn.setEnabled(False)
        copy_btn = QPushButton("Copy current settings")
        copy_btn.clicked.connect(self.copy_settings)
        self.train_status = TextPane("Not trained yet: pick settings and click Train.", lines=2)
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        # two columns, so each side fits half of a narrow Compare dock
        for row, (label, field) in enumerate((("Mode", self.t_mode),
                                              ("Pre-tokenizer", self.t_pattern),
                                              ("Vocab size", self.t_vocab),
                                              ("Tie rule", self.t_tie))):
            grid.addWidget(QLabel(label), row, 0)
            grid.addWidget(field, row, 1)
        grid.setColumnStretch(1, 1)
        buttons = FlowBar(spacing=6)   # wraps when the pane is narrow
        buttons.addWidget(self.train_btn)
        buttons.addWidget(self.cancel_btn)
        buttons.addWidget(copy_btn)
        for combo in (self.t_mode, self.t_pattern, self.t_tie):   # shrink, never scroll
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(6)
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(grid)
        lay.addWidget(buttons)
        lay.addWidget(self.train_status)
        for combo in (self.t_mode, self.t_pattern, self.t_tie):
            combo.currentIndexChanged.connect(self._form_edited)
        self.t_vocab.valueChanged.connect(self._form_edited)
        self.copy_settings()
        return w

    def _page_imported(self) -> QWidget:
        w = QWidget()
        self.imp_app = QPushButton("Use the app's imported tokenizer")
        self.imp_app.clicked.connect(self.use_app_imported)
        open_btn = QPushButton("Open file…")
        open_btn.setToolTip("vocab.json (+ merges.txt beside it), tokenizer.json, "
                            ".tiktoken, or this app's own JSON")
        open_btn.clicked.connect(self._ask_open)
        self.imp_label = TextPane("Nothing imported: open a tokenizer file.", lines=2)
        row = FlowBar(spacing=6)
        row.addWidget(self.imp_app)
        row.addWidget(open_btn)
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(row)
        lay.addWidget(self.imp_label)
        lay.addStretch(1)
        return w

    # ----- which tokenizer ----------------------------------------------------------------------
    def kind_key(self) -> str:
        return self.kind.currentData()

    def set_kind(self, kind: str) -> None:
        i = [k for k, _ in KINDS].index(kind)
        if i == self.kind.currentIndex():
            self._kind_changed()
        self.kind.setCurrentIndex(i)

    def _kind_changed(self) -> None:
        cur = self.kind.currentIndex()
        for i in range(self.stack.count()):  # the stack takes the height of the shown page
            page = self.stack.widget(i)
            if page is not None:
                page.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred
                                   if i == cur else QSizePolicy.Policy.Ignored)
        self.stack.setCurrentIndex(cur)
        self.stack.updateGeometry()
        if self.kind_key() == "imported" and self._file_tok is None and not self._keep_empty:
            self.use_app_imported(quiet=True)
        self._update_labels()
        self.changed.emit()

    def set_step(self, k: int) -> None:
        self.step_spin.setValue(k)
        self._step_timer.stop()
        self.changed.emit()

    def tokenizer(self) -> BaseTokenizer | None:
        """This side's tokenizer now, or None (``error`` says why)."""
        c, kind = self.controller, self.kind_key()
        self.error = ""
        if kind in ("current", "step"):
            t = c.view()
            if t is None and not c.has_trainer:
                self.error = "Nothing trained yet: load a corpus and step or run."
                return None
            if t is None or c.peeking:
                self.error = "Training is running: this side updates when it ends."
                return None
            if kind == "current":
                return t.tokenizer()
            return t.tokenizer(at_step=self.step_spin.value(), redo=True)
        if kind == "trained":
            if self._trained_tok is None:
                self.error = "Not trained yet: pick settings and click Train."
            return self._trained_tok
        if self._file_tok is None:
            self.error = "Nothing imported: open a tokenizer file."
        return self._file_tok

    def description(self) -> str:
        c, kind = self.controller, self.kind_key()
        if kind == "current":
            return f"step {c.step_index:,} (current)" if c.has_trainer else "current step"
        if kind == "step":
            return f"step {self.step_spin.value():,}"
        if kind == "trained":
            earlier = " · an earlier corpus" if self._trained_earlier else \
                f" · on {self._trained_on}" if self._parity_on() else ""
            return self._trained_desc + earlier if self._trained_desc else \
                "another configuration (not trained)"
        return self._file_name or "imported (none)"

    def _update_labels(self) -> None:
        c = self.controller
        t = c.view()
        if not c.has_trainer:
            self.current_label.setText("The current step of the training run (nothing "
                                       "trained yet).")
        elif t is not None:
            s = t.settings
            how = (f"{MODE_LABELS[s.mode]}, {_pattern_label(s.pattern)}, tie rule: "
                   f"{rule_label(s.tie_rule)}.")
            step = f"Step {c.step_index:,}"
            if t.parity is None:
                self.current_label.setText(f"{step} of the current run: {how}")
            else:   # a parity run says so in every form, the settings giving way first
                long, short = run_words(t.parity)
                self.current_label.set_variants([
                    f"{step} of the current {long}: {how}", f"{step} of the current {short}: "
                    f"{how}", f"{step} of the current {short}.", f"{step}, {short}.",
                    f"{step}, parity-aware run."])
        self.step_max.setText(f"of {self.step_spin.maximum():,}")
        self.imp_app.setEnabled(c.imported is not None)

    # ----- controller signals ----------------------------------------------------------------------
    def _furthest(self) -> int:
        t = self.controller.view()
        if t is None:   # none, or a job runs it: keep the range
            return self.step_spin.maximum() if self.controller.has_trainer else 0
        return t.furthest_step

    def _on_trainer(self) -> None:
        self._set_step_range()
        if self.kind_key() in ("current", "step"):
            self.changed.emit()
        self._update_labels()

    def _on_step(self, *_) -> None:
        if self.catchup.skip():   # another tab in front: catch up when shown
            return
        self._set_step_range()
        self._update_labels()
        if self.kind_key() in ("current", "step"):
            self.changed.emit()

    def _set_step_range(self) -> None:
        top = self._furthest()
        for w in (self.step_spin, self.step_slider):
            w.blockSignals(True)
            w.setMaximum(top)
            w.blockSignals(False)
        self.step_slider.blockSignals(True)
        self.step_slider.setValue(self.step_spin.value())
        self.step_slider.blockSignals(False)
        self.step_max.setText(f"of {top:,}")

    def _step_value(self, v: int) -> None:
        self.step_slider.blockSignals(True)
        self.step_slider.setValue(v)
        self.step_slider.blockSignals(False)
        if self.kind_key() == "step":
            self._step_timer.start()

    # ----- another configuration ---------------------------------------------------------------
    def copy_settings(self) -> None:
        """Fill the form from the controller's current settings."""
        s = self.controller.settings
        _select(self.t_mode, s.mode)
        key = resolve_pattern(s.pattern)[1]
        if key is None:
            if self.t_pattern.findData(s.pattern) < 0:
                self.t_pattern.addItem(f"Custom: {s.pattern[:40]}", s.pattern)
            key = s.pattern
        _select(self.t_pattern, key)
        _select(self.t_tie, s.tie_rule)
        t = self.controller.view()
        if s.num_merges is not None:
            n_initial = t.n_initial if t is not None else 256 + len(s.special_tokens)
            self.t_vocab.setValue(n_initial + s.num_merges)
        else:
            self.t_vocab.setValue(s.vocab_size or 1000)

    def form_settings(self) -> TrainSettings:
        """A copy of the current settings with the form's mode, pattern, size and tie rule
        (plain BPE: a SuperBPE run is compared with the ordinary BPE of the same size)."""
        return replace(self.controller.settings, mode=self.t_mode.currentData(),
                       pattern=self.t_pattern.currentData(), vocab_size=self.t_vocab.value(),
                       num_merges=None, tie_rule=self.t_tie.currentData(), superbpe_from=None)

    def _form_edited(self, *_) -> None:
        if self._trained_settings is not None and not self.training:
            same = self._trained_settings == self.form_settings()
            self.train_status.setText(self._trained_line() if same else
                                      "Settings changed: click Train to train them.")

    def _parity_on(self) -> bool:
        """Parity mode: the current run reads its languages' files, while this side
        trains plain BPE on the window's corpus, so the side names what it read."""
        return self.controller.parity.active

    def _where(self, name: str) -> str:
        if self._parity_on():
            return f"on {name}, the window's corpus (not the parity languages' files)"
        return "on the corpus"

    def _trained_line(self) -> str:
        if self._trained_earlier:
            return ("Trained on a corpus no longer in the window: click Train to train on "
                    "this one.")
        n, chars, secs = self._trained_stats
        return (f"Trained {n:,} merges {self._where(self._trained_on)} ({chars:,} "
                f"characters) in {secs:.1f} s.")

    def _on_parity(self, _setup=None) -> None:
        if self._trained_tok is None:
            return
        if not self.training:
            self._form_edited()
        if self.kind_key() == "trained":
            self.changed.emit()   # (its caption names the corpus in parity mode)

    def train(self) -> bool:
        """Train the form's settings on the corpus: a job of the controller's (the status
        bar shows its progress and Cancel)."""
        if not self.controller.side.train_other(self.form_settings(), self.name,
                                               self._trained_other, self._training_ended):
            if self.controller.busy:   # else its end has said why
                self._train_error("Another job is running: wait for it, or cancel it (Esc).")
            return False
        self.training = True
        self._training_corpus = self.controller.corpus
        self.train_btn.setEnabled(False)
        self.cancel_btn.setEnabled(True)
        c = self.controller
        where = self._where(corpus_name(c.corpus))
        self.train_status.setText(
            "Training on the word-count table…" if c.corpus_table is not None else
            f"Training {where} (reading its files)…" if c.streamed else
            f"Training {where} ({len(c.corpus_text):,} characters)…")
        self.train_status.setStyleSheet("")
        return True

    @property
    def trained_tokenizer(self) -> Tokenizer | None:
        """The other configuration's tokenizer, once trained (whatever kind is shown)."""
        return self._trained_tok

    def _train_done_ui(self) -> None:
        self.training = False
        self.train_btn.setEnabled(True)
        self.cancel_btn.setEnabled(False)

    def _file_loaded(self, result) -> None:
        path, tok = result
        self.set_tokenizer(tok, Path(path).name)
        self._file_path = str(path)

    def _file_ended(self, end: JobEnd) -> None:
        if end.outcome is Outcome.FAILED:
            self.imp_label.setText(f"Cannot load the file: {end.message}")
            self.imp_label.setStyleSheet(f"color: {cut_color(self.palette()).name()}")

    def _trained_other(self, result) -> None:
        self._trained_tok = result.tokenizer
        settings = self._trained_settings = result.settings
        self._trained_corpus, self._trained_earlier = self._training_corpus, False
        self._trained_desc = (f"{MODE_SHORT[settings.mode]} · {_pattern_short(settings.pattern)}"
                              f" · vocab {result.vocab_size:,} · {rule_label(settings.tie_rule)}")
        self._trained_on = "the corpus" if self._trained_corpus is None else \
            corpus_name(self._trained_corpus)
        self._trained_stats = (result.n_steps, result.n_chars, result.seconds)
        self.train_status.setText(self._trained_line())
        self.train_status.setStyleSheet("")
        if self.kind_key() == "trained":
            self.changed.emit()

    def _on_corpus(self) -> None:
        """Another corpus in the window: a configuration trained on the one before says
        so (its tokenizer stays, to compare), until it is trained again."""
        if self._trained_tok is None or self._trained_corpus is None:
            return
        earlier = not same_source(self.controller.corpus, self._trained_corpus)
        if earlier == self._trained_earlier:
            return
        self._trained_earlier = earlier
        if not self.training:
            self.train_status.setText(self._trained_line())
        if self.kind_key() == "trained":
            self.changed.emit()   # (its captions say it)

    def _training_ended(self, end: JobEnd) -> None:
        self._train_done_ui()
        if end.outcome is Outcome.CANCELLED:
            self.train_status.setText("Training cancelled.")
        elif end.outcome is Outcome.FAILED:
            self._train_error(end.message)
        self.trained.emit()

    def _train_error(self, message: str) -> None:
        self.train_status.setText(message)
        self.train_status.setStyleSheet(f"color: {cut_color(self.palette()).name()}")

    # ----- imported ------------------------------------------------------------------------------
    def use_app_imported(self, quiet: bool = False) -> None:
        c = self.controller
        if c.imported is None:
            if not quiet:
                self.imp_label.setText("The app has no imported tokenizer: open a file here.")
            return
        self.set_tokenizer(c.imported, imported_name(c.imported_path))
        self._file_path = None

    def set_tokenizer(self, tok: BaseTokenizer, name: str) -> None:
        """Use this tokenizer on the imported side (and switch the side to it)."""
        self._file_tok, self._file_name, self._file_path = tok, name, None
        self.imp_label.setText(f"{name}: {len(tok.vocab):,} tokens, {tok.n_merges:,} merges, "
                               f"{tok.mode} mode.")
        self.imp_label.setStyleSheet("")
        if self.kind_key() != "imported":
            self.set_kind("imported")
        else:
            self.changed.emit()

    def open_file(self, path: str) -> bool:
        """Load a tokenizer file for this side (through the controller: a big one on
        its job runner). False if it cannot be loaded (the label says why)."""
        self.imp_label.setText(f"Loading {Path(path).name}…")
        self.imp_label.setStyleSheet("")
        return self.controller.side.read_tokenizer(path, self._file_loaded, self._file_ended)

    def _ask_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, f"Tokenizer for side {self.name}", "",
            TOKENIZER_FILTER)
        if path:
            self.open_file(path)

    # ----- sessions (compare_session.py) ---------------------------------------------------------
    @property
    def file_path(self) -> str | None:
        """The imported side's own file (None: the app's imported tokenizer, or none)."""
        return self._file_path if self._file_tok is not None else None

    @property
    def trained_settings(self) -> TrainSettings | None:
        """The settings the other configuration was last trained with."""
        return self._trained_settings

    def set_step_within(self, k: int) -> None:
        """Step ``k``, or the furthest step trained if the run is shorter."""
        self._set_step_range()
        self.set_step(min(k, self.step_spin.maximum()))

    def show_missing(self, name: str) -> None:
        """The imported kind, empty: its file ``name`` is gone (the app's imported
        tokenizer is not put in its place)."""
        self._keep_empty = True
        try:
            self.set_kind("imported")
        finally:
            self._keep_empty = False
        self.imp_label.setText(f"{name} was not found: open a tokenizer file.")

    def state(self) -> dict:
        """What a session keeps of this side (engine Session.compare_b). A side still to
        be restored is kept as it was read."""
        return dict(self._pending) if self._pending is not None else side_state(self)

    def restore(self, side: dict, note: Callable[[str], None]) -> None:
        """Come back as a session kept this side (``state``), once the controller is
        idle: the session's corpus is read and trained back first, so the step range,
        the app's imported tokenizer and the job runner are there. ``note`` gets what
        could not come back (a tokenizer file gone)."""
        self._pending, self._note = dict(side), note
        self._apply_pending()

    def _apply_pending(self) -> None:
        c, side = self.controller, self._pending
        if side is None or c.busy or c.retrain_pending:
            return
        self._pending = None
        apply_side(self, side, self._note)


def _select(combo: QComboBox, key) -> None:
    i = combo.findData(key)
    if i >= 0:
        combo.setCurrentIndex(i)


def _pattern_short(pattern: str) -> str:
    key = resolve_pattern(pattern)[1]
    return PATTERN_SHORT[key] if key else "custom pattern"


def _pattern_label(pattern: str) -> str:
    key = resolve_pattern(pattern)[1]
    return PRESET_LABELS[key] if key else f"custom pattern {pattern[:30]}"
