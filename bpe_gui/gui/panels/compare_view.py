"""Compare two tokenizers side by side on the same text.

Each side is one of: the current training step, another step of the same run, another
training configuration (a copy of the settings, trained on the corpus in a background
job), or an imported tokenizer. Both sides colour the text token by token with the
encode view's highlighter (alternating blocks from ``Encoding.offsets``), mark the cuts
only that side makes, and a table compares tokens, bytes per token, tokens per word and
the share of partial-character tokens, in all and per script (``engine.stats``).
"""
from __future__ import annotations

import time
from bisect import bisect_right
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import (QAbstractTableModel, QCoreApplication, QEvent, QModelIndex, QPointF,
                            Qt, QTimer, Signal)
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPen, QTextCursor, QTextOption
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFileDialog, QFrame, QGridLayout,
                               QHBoxLayout, QHeaderView, QLabel, QPlainTextEdit,
                               QProgressBar, QPushButton, QSizePolicy, QSlider, QSpinBox,
                               QSplitter, QStackedWidget, QTableView, QTextEdit, QToolTip,
                               QVBoxLayout, QWidget)

from ...engine import stats
from ...engine.display import hex_bytes, is_partial, readable
from ...engine.errors import BPEError
from ...engine.pretokenize import PRESET_LABELS, resolve_pattern
from ...engine.tokenizer import Encoding, Tokenizer
from ...engine.trainer import TIE_RULE_LABELS, Trainer, TrainSettings
from ..models.roles import TokenColors, is_dark
from ..worker import JobRunner
from .encode_view import TokenHighlighter
from .visibility import on_screen

SAMPLE_TEXT = (
    "The quick brown fox jumps over the lazy dog; tokenizers cut text into pieces.\n"
    "我们今天学习字节对编码：它把最常见的相邻符号对合并成新的词元。\n"
    "Byte-level BPE splits 汉字 into bytes until merges join them again. "
    "Привет, мир! ひらがなとカタカナ。"
)
DISPLAY_LIMIT = 50_000        # characters coloured per side; the table uses the whole text
DEBOUNCE_MS = 150
KINDS = (("current", "Current step"), ("step", "Another step of this run"),
         ("trained", "Another training configuration"), ("imported", "Imported tokenizer"))
MODE_LABELS = {"byte": "Byte-level", "char": "Character-level (</w>)"}
MODE_SHORT = {"byte": "byte-level", "char": "char-level </w>"}
PATTERN_SHORT = {"gpt2": "GPT-2", "cl100k": "GPT-4", "whitespace": "whitespace", "cjk": "CJK-aware"}


def cut_color(palette: QPalette) -> QColor:
    return QColor("#ff5c8a") if is_dark(palette) else QColor("#c2185b")


def fmt_cell(metric: str, v) -> str:
    """Example: ('bpt', 3.14159) -> '3.14'; ('partial', 0.125) -> '12.5 %'; None -> '–'"""
    if v is None:
        return "–"
    if metric in ("tokens", "chars"):
        return f"{v:,}"
    if metric == "partial":
        return f"{100 * v:.1f} %"
    return f"{v:.2f}"


# ----- one side's text ---------------------------------------------------------------------
class TokenTextView(QPlainTextEdit):
    """Read-only text coloured token by token (the encode view's TokenHighlighter), with
    bars at ``marks`` (cuts ``(char, k)``: k > 0 is inside the character, at k of its
    bytes) and a tooltip naming the token under the mouse."""

    hovered = Signal(int)   # token index, or -1

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        f = self.font()
        f.setPointSizeF(f.pointSizeF() * 1.2)
        self.setFont(f)
        self.colors = TokenColors.for_palette(self.palette())
        # what the highlighter reads (the same attributes EncodeView gives it)
        self.offsets: list[tuple[int, int]] = []
        self.starts: list[int] = []
        self.kinds: list[int] = []
        self._u16: list[int] | None = None
        self.enc = Encoding([], [], [], [])
        self.text = ""
        self.marks: list[stats.Cut] = []
        self._hover = -1
        self.highlighter = TokenHighlighter(self.document(), self)
        self.viewport().setMouseTracking(True)
        self.set_show_whitespace(True)

    # ----- the highlighter's interface --------------------------------------------------------
    def pos_of_char(self, i: int) -> int:
        u = self._u16
        return i if u is None else u[min(i, len(u) - 1)]

    def char_of_pos(self, p: int) -> int:
        u = self._u16
        return p if u is None else max(0, bisect_right(u, p) - 1)

    # ----- data -------------------------------------------------------------------------------
    def set_encoding(self, text: str, enc: Encoding | None, marks=()) -> None:
        text = text[:DISPLAY_LIMIT]
        enc = enc or Encoding([], [], [], [])
        keep = [i for i, (s, _) in enumerate(enc.offsets) if s < len(text)]
        if len(keep) < len(enc):
            enc = Encoding([enc.ids[i] for i in keep], [enc.tokens[i] for i in keep],
                           [enc.offsets[i] for i in keep],
                           [enc.special[i] for i in keep] if enc.special else [])
        self.enc = enc
        self.offsets = enc.offsets
        self.starts = [s for s, _ in enc.offsets]
        sp = enc.special
        self.kinds = [3 if sp and sp[i] else 2 if is_partial(t) else 0
                      for i, t in enumerate(enc.tokens)]
        self.marks = sorted(m for m in marks if m[0] < len(text))
        self._hover = -1
        if text != self.text:
            self.text = text
            self._u16 = None
            if len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text):
                u, acc = [], 0
                for ch in text:
                    u.append(acc)
                    acc += 2 if ord(ch) > 0xFFFF else 1
                u.append(acc)
                self._u16 = u
            bar = self.verticalScrollBar().value()
            self.setPlainText(text)   # rehighlights
            self.verticalScrollBar().setValue(bar)
        else:
            self.highlighter.rehighlight()
        self.viewport().update()

    def set_show_whitespace(self, on: bool) -> None:
        doc = self.document()
        opt = doc.defaultTextOption()
        flags = opt.flags()
        flags = flags | QTextOption.ShowTabsAndSpaces if on else flags & ~QTextOption.ShowTabsAndSpaces
        opt.setFlags(flags)
        doc.setDefaultTextOption(opt)

    # ----- cut markers ------------------------------------------------------------------------
    def _cursor_rect(self, pos: int):
        c = QTextCursor(self.document())
        c.setPosition(min(pos, self.document().characterCount() - 1))
        return self.cursorRect(c)

    def mark_x(self, char: int, k: int = 0):
        """Viewport (x, top, bottom) of a cut."""
        r = self._cursor_rect(self.pos_of_char(char))
        x = float(r.left())
        if k and char < len(self.text):
            r2 = self._cursor_rect(self.pos_of_char(char + 1))
            if r2.top() == r.top():
                x += (r2.left() - r.left()) * k / stats.utf8_len(self.text[char])
        return x, r.top(), r.bottom()

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if not self.marks:
            return
        vp = self.viewport()
        first = self.char_of_pos(self.cursorForPosition(vp.rect().topLeft()).position())
        last = self.char_of_pos(self.cursorForPosition(vp.rect().bottomRight()).position())
        lo = bisect_right(self.marks, (first, -1))
        hi = bisect_right(self.marks, (last + 1, 99))
        p = QPainter(vp)
        p.setRenderHint(QPainter.Antialiasing, True)
        p.setPen(QPen(cut_color(self.palette()), 1.8))
        for c, k in self.marks[lo:hi]:
            x, top, bottom = self.mark_x(c, k)
            p.drawLine(QPointF(x, top - 1), QPointF(x, bottom + 2))
        p.end()

    # ----- hover ------------------------------------------------------------------------------
    def token_at(self, pos) -> int:
        """Index of the token under a viewport point, or -1."""
        cur = self.cursorForPosition(pos)
        p = cur.position()
        block = cur.block()
        if pos.x() < self.cursorRect(cur).left() and p > block.position():
            p -= 1
        if p >= block.position() + block.length() - 1 or not self.offsets:
            return -1
        r = self._cursor_rect(p)
        if not (r.top() - 2 <= pos.y() <= r.bottom() + 2):
            return -1
        ch = self.char_of_pos(p)
        i = bisect_right(self.starts, ch) - 1
        while i >= 0 and self.offsets[i][1] <= ch:
            if self.offsets[i][0] < ch - 256:
                return -1
            i -= 1
        return i

    def describe_token(self, i: int) -> str:
        tok = self.enc.tokens[i]
        kind = {2: " (part of a character)", 3: " (special token)"}.get(self.kinds[i], "")
        return (f"token {i + 1:,} of {len(self.enc):,}{kind}\nid {self.enc.ids[i]}: "
                f"{readable(tok)}\n{len(tok)} bytes {hex_bytes(tok)}")

    def viewportEvent(self, event) -> bool:
        et = event.type()
        if et == QEvent.MouseMove:
            i = self.token_at(event.position().toPoint())
            if i != self._hover:
                self._set_hover(i)
            if i >= 0:
                QToolTip.showText(event.globalPosition().toPoint(), self.describe_token(i),
                                  self.viewport())
            else:
                QToolTip.hideText()
        elif et == QEvent.Leave:
            self._set_hover(-1)
        return super().viewportEvent(event)

    def _set_hover(self, i: int) -> None:
        self._hover = i
        self.hovered.emit(i)
        sels = []
        if i >= 0:
            sel = QTextEdit.ExtraSelection()
            cur = QTextCursor(self.document())
            s, e = self.offsets[i]
            cur.setPosition(self.pos_of_char(s))
            cur.setPosition(self.pos_of_char(e), QTextCursor.KeepAnchor)
            sel.cursor = cur
            sel.format.setBackground(self.colors.hover)
            sel.format.setForeground(QColor("white") if is_dark(self.palette()) else QColor("black"))
            sels.append(sel)
        self.setExtraSelections(sels)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.PaletteChange:
            self.colors = TokenColors.for_palette(self.palette())
            self.highlighter.set_colors(self.colors)
            self.highlighter.rehighlight()


# ----- one side: which tokenizer ------------------------------------------------------------
class ComparePane(QFrame):
    """One side: pick the tokenizer (kind + its controls) and show the coloured text."""

    changed = Signal()       # this side's tokenizer changed: re-encode
    trained = Signal()       # a background training of this side finished (or failed)

    def __init__(self, controller, name: str, kind: str = "current",
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.name = name
        self.jobs = JobRunner(self)
        self._trained_tok: Tokenizer | None = None
        self._trained_desc = ""
        self._trained_settings: TrainSettings | None = None
        self._file_tok: Tokenizer | None = None
        self._file_name = ""
        self.error = ""
        self.setFrameShape(QFrame.StyledPanel)

        self.kind = QComboBox()
        for key, label in KINDS:
            self.kind.addItem(label, key)
        self.stack = QStackedWidget()
        self.stack.addWidget(self._page_current())
        self.stack.addWidget(self._page_step())
        self.stack.addWidget(self._page_trained())
        self.stack.addWidget(self._page_imported())
        self.stack.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Maximum)
        self.caption = QLabel()
        self.caption.setTextInteractionFlags(Qt.TextSelectableByMouse)
        bold = QFont(self.caption.font())
        bold.setBold(True)
        self.caption.setFont(bold)
        self.caption.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)
        self.view = TokenTextView()

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
        self.jobs.progress.connect(lambda _l, d, t: self._progress(d, t))
        self.jobs.finished.connect(self._train_finished)
        self.jobs.failed.connect(self._train_failed)
        self.jobs.cancelled.connect(self._train_cancelled)
        controller.stepChanged.connect(self._on_step)
        controller.trainerChanged.connect(self._on_trainer)
        controller.busyChanged.connect(lambda _: self._on_step())
        controller.tokenizerChanged.connect(self._on_imported_maybe)
        self.set_kind(kind)
        self._on_trainer()

    # ----- pages ------------------------------------------------------------------------------
    def _page_current(self) -> QWidget:
        w = QWidget()
        self.current_label = QLabel()
        self.current_label.setWordWrap(True)
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.current_label)
        lay.addStretch(1)
        return w

    def _page_step(self) -> QWidget:
        w = QWidget()
        self.step_spin = QSpinBox()
        self.step_spin.setKeyboardTracking(False)
        self.step_slider = QSlider(Qt.Horizontal)
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
        self.t_mode = QComboBox()
        for key, label in MODE_LABELS.items():
            self.t_mode.addItem(label, key)
        self.t_pattern = QComboBox()
        for key, label in PRESET_LABELS.items():
            self.t_pattern.addItem(label, key)
        self.t_vocab = QSpinBox()
        self.t_vocab.setRange(1, 10_000_000)
        self.t_vocab.setSingleStep(100)
        self.t_vocab.setGroupSeparatorShown(True)
        self.t_tie = QComboBox()
        for key, label in TIE_RULE_LABELS.items():
            self.t_tie.addItem(label, key)
        self.train_btn = QPushButton("Train")
        self.train_btn.setToolTip("Train these settings on the corpus, in the background")
        self.train_btn.clicked.connect(self.train)
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.clicked.connect(self.jobs.cancel)
        self.cancel_btn.setEnabled(False)
        copy_btn = QPushButton("Copy current settings")
        copy_btn.clicked.connect(self.copy_settings)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.progress.setMaximumHeight(14)
        self.progress.setTextVisible(False)
        self.train_status = QLabel("Not trained yet: pick settings and click Train.")
        self.train_status.setWordWrap(True)
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(QLabel("Mode"), 0, 0)
        grid.addWidget(self.t_mode, 0, 1)
        grid.addWidget(QLabel("Pre-tokenizer"), 0, 2)
        grid.addWidget(self.t_pattern, 0, 3)
        grid.addWidget(QLabel("Vocab size"), 1, 0)
        grid.addWidget(self.t_vocab, 1, 1)
        grid.addWidget(QLabel("Tie rule"), 1, 2)
        grid.addWidget(self.t_tie, 1, 3)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.train_btn)
        buttons.addWidget(self.cancel_btn)
        buttons.addWidget(copy_btn)
        buttons.addWidget(self.progress, 1)
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(grid)
        lay.addLayout(buttons)
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
        self.imp_label = QLabel("Nothing imported: open a tokenizer file.")
        self.imp_label.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.imp_app)
        row.addWidget(open_btn)
        row.addStretch(1)
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(row)
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
            self.stack.widget(i).setSizePolicy(
                QSizePolicy.Preferred, QSizePolicy.Preferred if i == cur else QSizePolicy.Ignored)
        self.stack.setCurrentIndex(cur)
        self.stack.adjustSize()
        if self.kind_key() == "imported" and self._file_tok is None:
            self.use_app_imported(quiet=True)
        self._update_labels()
        self.changed.emit()

    def set_step(self, k: int) -> None:
        self.step_spin.setValue(k)
        self._step_timer.stop()
        self.changed.emit()

    def tokenizer(self) -> Tokenizer | None:
        """This side's tokenizer now, or None (``error`` says why)."""
        c, kind = self.controller, self.kind_key()
        self.error = ""
        if kind in ("current", "step"):
            t = c.trainer
            if t is None:
                self.error = "Nothing trained yet: load a corpus and step or run."
                return None
            if c.busy:
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
            return f"step {c.step_index:,} (current)" if c.trainer else "current step"
        if kind == "step":
            return f"step {self.step_spin.value():,}"
        if kind == "trained":
            return self._trained_desc or "another configuration (not trained)"
        return self._file_name or "imported (none)"

    def _update_labels(self) -> None:
        c = self.controller
        if c.trainer is None:
            self.current_label.setText("The current step of the training run (nothing "
                                       "trained yet).")
        else:
            s = c.trainer.settings
            self.current_label.setText(
                f"Step {c.step_index:,} of the current run: {MODE_LABELS[s.mode]}, "
                f"{_pattern_label(s.pattern)}, tie rule {s.tie_rule}.")
        self.step_max.setText(f"of {self.step_spin.maximum():,}")
        self.imp_app.setEnabled(c.imported is not None)

    # ----- controller signals ----------------------------------------------------------------------
    def _furthest(self) -> int:
        t = self.controller.trainer
        if t is None:
            return 0
        if not self.controller.busy:
            t.tokenizer()   # grow the shared tokenizer to the current step (cheap)
        return getattr(t, "furthest_step", t.n_steps)

    def _on_trainer(self) -> None:
        self._set_step_range()
        if self.kind_key() in ("current", "step"):
            self.changed.emit()
        self._update_labels()

    _behind = False

    def _on_step(self, *_) -> None:
        if not on_screen(self):   # another tab in front: catch up when shown
            self._behind = True
            return
        self._set_step_range()
        self._update_labels()
        if self.kind_key() in ("current", "step"):
            self.changed.emit()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.catch_up()

    def catch_up(self) -> None:
        """Do what was skipped while hidden (see panels/visibility.py)."""
        if self._behind and on_screen(self):
            self._behind = False
            self._on_step()

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

    def _on_imported_maybe(self) -> None:
        self._update_labels()

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
        t = self.controller.trainer
        if s.num_merges is not None:
            n_initial = t.n_initial if t is not None else 256 + len(s.special_tokens)
            self.t_vocab.setValue(n_initial + s.num_merges)
        else:
            self.t_vocab.setValue(s.vocab_size or 1000)

    def form_settings(self) -> TrainSettings:
        """A copy of the current settings with the form's mode, pattern, size and tie rule."""
        return replace(self.controller.settings, mode=self.t_mode.currentData(),
                       pattern=self.t_pattern.currentData(), vocab_size=self.t_vocab.value(),
                       num_merges=None, tie_rule=self.t_tie.currentData())

    def _form_edited(self, *_) -> None:
        if self._trained_settings is not None and not self.jobs.busy:
            same = self._trained_settings == self.form_settings()
            self.train_status.setText(self._trained_status if same else
                                      "Settings changed: click Train to train them.")

    def train(self) -> bool:
        """Train the form's settings on the corpus in a background job."""
        text = self.controller.corpus_text
        if not text.strip():
            self._train_error("The corpus is empty: load or type a corpus first.")
            return False
        try:
            settings = self.form_settings().validated()
            base = 256 + len(settings.special_tokens)
            if settings.mode == "byte" and settings.vocab_size < base:
                raise BPEError(f"Vocab size {settings.vocab_size} is below the base alphabet "
                               f"(256 bytes + {len(settings.special_tokens)} special tokens "
                               f"= {base}). Choose a vocab size of at least {base}.")
        except BPEError as e:
            self._train_error(str(e))
            return False

        def job(progress, cancelled):
            t0 = time.perf_counter()
            trainer = Trainer.from_text(text, settings, cancel=cancelled)
            trainer.run(progress=progress, cancel=cancelled, detail=False)
            return trainer, settings, len(text), time.perf_counter() - t0

        if not self.jobs.start(f"Training side {self.name}", job):
            return False
        self.train_btn.setEnabled(False)
        self.cancel_btn.setEnabled(True)
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.train_status.setText(f"Training on the corpus ({len(text):,} characters)…")
        return True

    @property
    def training(self) -> bool:
        return self.jobs.busy

    def _progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)

    def _train_done_ui(self) -> None:
        self.train_btn.setEnabled(True)
        self.cancel_btn.setEnabled(False)
        self.progress.setVisible(False)

    def _train_finished(self, _label: str, result) -> None:
        self._train_done_ui()
        trainer, settings, n_chars, secs = result
        self._trained_tok = trainer.tokenizer()
        self._trained_settings = settings
        self._trained_desc = (f"{MODE_SHORT[settings.mode]} · {_pattern_short(settings.pattern)}"
                              f" · vocab {trainer.vocab_size:,} · {settings.tie_rule}")
        self._trained_status = (f"Trained {trainer.n_steps:,} merges on the corpus "
                                f"({n_chars:,} characters) in {secs:.1f} s.")
        self.train_status.setText(self._trained_status)
        self.train_status.setStyleSheet("")
        self.trained.emit()
        if self.kind_key() == "trained":
            self.changed.emit()

    def _train_failed(self, _label: str, message: str, user_error: bool) -> None:
        self._train_done_ui()
        self._train_error(message if user_error else f"Unexpected error (please report it):\n"
                          f"{message.strip().splitlines()[-1]}")
        self.trained.emit()

    def _train_cancelled(self, _label: str) -> None:
        self._train_done_ui()
        self.train_status.setText("Training cancelled.")
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
        self.set_tokenizer(c.imported, Path(c.imported_path or "imported").name)

    def set_tokenizer(self, tok: Tokenizer, name: str) -> None:
        """Use this tokenizer on the imported side (and switch the side to it)."""
        self._file_tok, self._file_name = tok, name
        self.imp_label.setText(f"{name}: {len(tok.vocab):,} tokens, {tok.n_merges:,} merges, "
                               f"{tok.mode} mode.")
        self.imp_label.setStyleSheet("")
        if self.kind_key() != "imported":
            self.set_kind("imported")
        else:
            self.changed.emit()

    def open_file(self, path: str) -> bool:
        try:
            from ...engine.formats import load_tokenizer   # written by the formats work
            tok = load_tokenizer(path)
        except (BPEError, ImportError) as e:
            self.imp_label.setText(f"Cannot load {Path(path).name}: {e}")
            self.imp_label.setStyleSheet(f"color: {cut_color(self.palette()).name()}")
            return False
        self.set_tokenizer(tok, Path(path).name)
        return True

    def _ask_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, f"Tokenizer for side {self.name}", "",
            "Tokenizers (*.json *.tiktoken *.txt);;All files (*)")
        if path:
            self.open_file(path)

    def shutdown(self) -> None:
        self.jobs.stop_and_wait()


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


# ----- the table ----------------------------------------------------------------------------
METRICS = (("tokens", "Tokens", "How many tokens the text is cut into."),
           ("bpt", "Bytes per token", "UTF-8 bytes of the text / tokens. Per script: the "
            "bytes the script's tokens stand for / their number. Higher = better compression."),
           ("tpw", "Tokens per GPT-2 word", "Tokens / words. Words are GPT-2-pattern words that are "
            "not only whitespace (the same for both sides); a Chinese clause without spaces "
            "is one word."),
           ("partial", "Partial-character tokens", "Share of tokens that hold only part of a "
            "UTF-8 character (byte-level tokenizers on non-Latin text)."))


class CompareTableModel(QAbstractTableModel):
    """Rows: each metric for side A then B; columns: metric, side, All, then each script
    present in the text. Values come from two ``stats.encoding_stats`` snapshots."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.stats: list[dict | None] = [None, None]
        self.names = ["A", "B"]
        self.columns: list[str] = ["All"]

    def set_stats(self, a: dict | None, b: dict | None, names=("A", "B")) -> None:
        self.beginResetModel()
        self.stats = [a, b]
        self.names = list(names)
        present = set()
        for s in (a, b):
            if s is not None:
                present.update(stats.scripts_present(s))
        self.columns = ["All"] + [s for s in stats.SCRIPTS if s in present]
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else 2 * len(METRICS)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else 2 + len(self.columns)

    def value(self, row: int, column: str):
        """The raw number of a cell: metric of row // 2, side row % 2, column name."""
        key = METRICS[row // 2][0]
        s = self.stats[row % 2]
        if s is None:
            return None
        st = s[column]
        return {"tokens": st.tokens, "bpt": st.bytes_per_token, "tpw": st.tokens_per_word,
                "partial": st.partial_share}[key]

    def data(self, index: QModelIndex, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        key, label, tip = METRICS[r // 2]
        if role == Qt.DisplayRole:
            if c == 0:
                return label if r % 2 == 0 else ""
            if c == 1:
                return self.names[r % 2]
            return fmt_cell(key, self.value(r, self.columns[c - 2]))
        if role == Qt.UserRole and c >= 2:
            return self.value(r, self.columns[c - 2])
        if role == Qt.ToolTipRole:
            return tip
        if role == Qt.TextAlignmentRole and c >= 2:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.FontRole and c == 0:
            f = QFont()
            f.setBold(True)
            return f
        return None

    def headerData(self, section: int, orientation, role=Qt.DisplayRole):
        if orientation != Qt.Horizontal:
            return None
        if role == Qt.DisplayRole:
            if section == 0:
                return ""
            if section == 1:
                return "Side"
            col = self.columns[section - 2]
            chars = next((s[col].chars for s in self.stats if s is not None), 0)
            return f"{col} ({chars:,} chars)"
        if role == Qt.ToolTipRole and section >= 2:
            return ("Per script: a token counts for the script of the letters it covers; "
                    "tokens of only spaces, digits or punctuation, mixed tokens and special "
                    "tokens count as Other." if section > 2 else "The whole text")
        return None


# ----- the view -----------------------------------------------------------------------------
class CompareView(QWidget):
    """Two tokenizers on one text: coloured side by side, differing cuts marked, a table."""

    compared = Signal()      # after each re-encode of both sides (tests wait on it)

    def __init__(self, controller, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.edit = QPlainTextEdit()
        self.edit.setPlaceholderText("Text to compare: type or paste it here.")
        self.edit.setMaximumHeight(110)
        sample = QPushButton("Sample text")
        sample.setToolTip("English, Chinese, Russian and Japanese in a few lines")
        sample.clicked.connect(lambda: self.set_text(SAMPLE_TEXT))
        from_corpus = QPushButton("From corpus")
        from_corpus.setToolTip("The first 2,000 characters of the corpus")
        from_corpus.clicked.connect(lambda: self.set_text(controller.corpus_text[:2000]))
        self.fold = QCheckBox("Ignore where spaces go")
        self.fold.setChecked(True)
        self.fold.setToolTip("A cut before a run of whitespace counts as a cut after it, so "
                             "' cat' (space kept with the word) and 'cat</w>' (space dropped) "
                             "do not count as different cuts.")
        self.show_ws = QCheckBox("Show whitespace")
        self.show_ws.setChecked(True)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)

        self.pane_a = ComparePane(controller, "A", "current")
        self.pane_b = ComparePane(controller, "B", "step")
        self.pane_b.step_spin.setValue(max(0, controller.step_index // 2))
        sides = QSplitter(Qt.Horizontal)
        sides.addWidget(self.pane_a)
        sides.addWidget(self.pane_b)
        sides.setChildrenCollapsible(False)

        self.model = CompareTableModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionMode(QTableView.NoSelection)
        self.table.setFocusPolicy(Qt.NoFocus)
        lower = QWidget()
        lv = QVBoxLayout(lower)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.summary)
        lv.addWidget(self.table, 1)
        split = QSplitter(Qt.Vertical)
        split.addWidget(sides)
        split.addWidget(lower)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)

        top = QHBoxLayout()
        top.addWidget(QLabel("Text:"))
        top.addStretch(1)
        top.addWidget(sample)
        top.addWidget(from_corpus)
        top.addWidget(self.fold)
        top.addWidget(self.show_ws)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.edit)
        lay.addWidget(split, 1)

        self.encodings: list[Encoding | None] = [None, None]
        self.stats: list[dict | None] = [None, None]
        self.diff: tuple[set, set] = (set(), set())
        self.last_ms = 0.0
        self._timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._timer.timeout.connect(self.compare_now)
        self.edit.textChanged.connect(self._timer.start)
        self.fold.toggled.connect(self._timer.start)
        self.show_ws.toggled.connect(self._show_ws)
        for pane in (self.pane_a, self.pane_b):
            pane.changed.connect(self._timer.start)
            pane.kind.currentIndexChanged.connect(self._align_tops)
        self._align_tops()
        self._sync_scroll()
        self.edit.setPlainText(SAMPLE_TEXT)
        self.compare_now()
        app = QCoreApplication.instance()
        if app is not None:   # a side may still be training when the app quits
            app.aboutToQuit.connect(self.shutdown)

    def catch_up(self) -> None:
        """The dock's tab came to the front: let each side catch up (see visibility.py)."""
        for pane in (self.pane_a, self.pane_b):
            pane.catch_up()

    def _sync_scroll(self) -> None:
        a = self.pane_a.view.verticalScrollBar()
        b = self.pane_b.view.verticalScrollBar()
        a.valueChanged.connect(lambda v: b.setValue(v) if b.value() != v else None)
        b.valueChanged.connect(lambda v: a.setValue(v) if a.value() != v else None)

    def _align_tops(self, *_) -> None:
        """Give both sides' controls one height, so the two texts' lines line up."""
        tops = [self.pane_a.top, self.pane_b.top]
        for t in tops:
            t.setMinimumHeight(0)
        h = max(t.sizeHint().height() for t in tops)
        for t in tops:
            t.setMinimumHeight(h)

    def _show_ws(self, on: bool) -> None:
        for pane in (self.pane_a, self.pane_b):
            pane.view.set_show_whitespace(on)

    # ----- public API -----------------------------------------------------------------------------
    def text(self) -> str:
        return self.edit.toPlainText()

    def set_text(self, text: str) -> None:
        self.edit.setPlainText(text)
        self.compare_now()

    def compare_now(self) -> None:
        """Encode the text on both sides, mark differing cuts, fill the table."""
        t0 = time.perf_counter()
        self._timer.stop()
        text = self.text()
        panes = (self.pane_a, self.pane_b)
        for i, pane in enumerate(panes):
            tok = pane.tokenizer()
            enc, st = None, None
            if tok is not None:
                try:
                    enc = tok.encode_with_offsets(text)
                    st = stats.encoding_stats(text, enc, tok.mode)
                except BPEError as e:   # e.g. a character a char-level vocabulary lacks
                    pane.error = str(e)
                    enc = None
            self.encodings[i], self.stats[i] = enc, st
        ea, eb = self.encodings
        if ea is not None and eb is not None:
            self.diff = stats.boundary_diff(ea, eb, text, self.fold.isChecked())
        else:
            self.diff = (set(), set())
        for i, pane in enumerate(panes):
            pane.view.set_encoding(text, self.encodings[i], self.diff[i])
            enc = self.encodings[i]
            if enc is None:
                caption = f"{pane.name}: {pane.description()}. {pane.error}"
            else:
                nb = len(text.encode("utf-8", "surrogatepass"))
                ratio = f"{nb / len(enc):.2f}" if len(enc) else "–"
                caption = (f"{pane.name}: {pane.description()}: {len(enc):,} tokens, "
                           f"{ratio} bytes/token")
            pane.caption.setText(caption)
            pane.caption.setToolTip(caption)
        names = [f"{p.name}: {p.description()}" for p in panes]
        self.model.set_stats(self.stats[0], self.stats[1], names)
        self._summarize()
        self.last_ms = (time.perf_counter() - t0) * 1000
        self.compared.emit()

    def _summarize(self) -> None:
        a, b = self.diff
        if self.encodings[0] is None or self.encodings[1] is None:
            self.summary.setText("Pick a tokenizer on both sides to compare them.")
            return
        color = cut_color(self.palette()).name()
        ws = " (whitespace runs ignored)" if self.fold.isChecked() else ""
        self.summary.setText(
            f"<span style='color:{color}'>┃</span> cuts only one side makes{ws}: "
            f"<b>{len(a):,}</b> only in A, <b>{len(b):,}</b> only in B. Hover a token "
            "for its id and bytes.")

    def shutdown(self) -> None:
        """Stop the sides' background training (call before the window closes)."""
        for pane in (self.pane_a, self.pane_b):
            pane.shutdown()
