"""Merge playback of one word: its symbols at the start, then each merge in rank order.

Click a word in the encode view (or the corpus editor in words mode) and this panel
shows how the tokenizer builds its tokens: the bytes (or characters) it starts from,
then every merge that applies, lowest rank first, until no learned merge applies. A
slider, the buttons and the keys ← → Home End move through the steps; the table lists
them all (click a row to go there). The playback follows the encode view's tokenizer:
the trained one as of the current step, or an imported one.
"""
from __future__ import annotations

from html import escape
from typing import Protocol, Sequence

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QLabel, QSizePolicy, QSlider,
                               QStyle, QToolButton, QVBoxLayout, QWidget)

from ....engine.display import counted
from ....engine.errors import BPEError
from ....engine.tokenizers import PLAYBACK_MAX, Playback, playback, show
from ...controller.origin import Origin
from ...models.edit_words import ClickedWord
from ...models.encoding import TokenTexts, kind_of
from ...models.inherited import new_color
from ...models.playback import PlaybackModel, merge_number
from ...models.reads import ImportedReads
from ...models.roles import TokenColors
from ...widgets.table_cells import CellTableView
from ...widgets.text_pane import TextPane
from ...widgets.token_flow import TokenFlow
from ...widgets.visibility import CatchUp
from ...models.imported_name import imported_name

QUOTE = 24   # characters of the clicked word quoted in the title (show(): an ellipsis past them)

HINT = ("Click a word in the encode view to see how its tokens are built: the symbols "
        "it starts from, then each learned merge, lowest rank first.")
# Longer words are not played back (engine: explain.PLAYBACK_MAX): the replay runs on the
# window's thread in Python and slows with the square of the length (a whole pasted text
# that a pre-tokenizer leaves as one piece: over a minute, the window frozen).


class PlaybackHost(ImportedReads, Protocol):
    """What word playback reads of the controller: the tokenizer on show, and this."""

    @property
    def train_on(self) -> _TrainedOn: ...


class _TrainedOn(Protocol):
    def origin(self) -> Origin | None: ...


class WordPlayback(QWidget):
    def __init__(self, controller: PlaybackHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.catchup = CatchUp(self, self._on_tokenizer_changed)
        self.catch_up = self.catchup.catch_up   # the main window's call when its tab is raised
        self.controller = controller
        self.word: ClickedWord | None = None
        self.playback: Playback | None = None
        self.texts = TokenTexts()
        self.origin: Origin | None = None   # training on from a tokenizer: tells its merges from new ones
        self._wide_rank = False
        self._selecting = False
        self._build()
        self._show_empty("")
        controller.tokenizerChanged.connect(self._on_tokenizer_changed)

    # ----- layout -------------------------------------------------------------------------
    def _build(self) -> None:
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.reason = QLabel()
        self.reason.setWordWrap(True)
        self.flow = TokenFlow()
        self.flow.setFixedHeight(self.flow.height_for_rows(2))
        self.flow.set_mark_color(new_color(self.palette()))
        self.flow.tip_of = self._chip_tip
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.hide()
        icon = self.style().standardIcon
        # (ignore[call-arg]: PySide6 takes Qt properties as keywords; its stubs omit them)
        self.first_button = QToolButton(  # type: ignore[call-arg]
            icon=icon(QStyle.StandardPixmap.SP_MediaSkipBackward))
        self.back_button = QToolButton(text="Back",  # type: ignore[call-arg]
                                       icon=icon(QStyle.StandardPixmap.SP_MediaSeekBackward))
        self.step_button = QToolButton(text="Step",  # type: ignore[call-arg]
                                       icon=icon(QStyle.StandardPixmap.SP_MediaSeekForward))
        self.last_button = QToolButton(  # type: ignore[call-arg]
            icon=icon(QStyle.StandardPixmap.SP_MediaSkipForward))
        for b in (self.back_button, self.step_button):
            b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for b, tip in ((self.first_button, "The start: no merge yet (Home)"),
                       (self.back_button, "One merge back (←)"),
                       (self.step_button, "Apply the next merge (→)"),
                       (self.last_button, "All merges: the word's tokens (End)")):
            b.setToolTip(tip)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setToolTip("Steps of this word: 0 is the start, the last is its tokens")
        self.slider.setPageStep(1)
        # the step's sentence whole, on the lines it needs at the dock's width
        self.step_label = TextPane(grow=True)
        bar = QHBoxLayout()
        for w in (self.first_button, self.back_button, self.step_button, self.last_button):
            bar.addWidget(w)
        bar.addWidget(self.slider, 1)
        self.model = PlaybackModel(self)
        self.table = CellTableView()
        self.table.setObjectName("playbackTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        em = self.fontMetrics().horizontalAdvance("M")
        # the columns share the table's width, each at least its header (in the left
        # dock at 1024x700 "Symbols after" was cut, with a scroll bar sideways); the
        # merge and the symbols get what is left (1: room for "#24,223")
        self.table.fit_columns((0, 0, 2, 3), (3 * em, 5 * em, 5 * em, 7 * em))
        # the rows it has room for, at least three: its preferred height (a dozen rows)
        # would count in the panel's height for its width and make the dock scroll
        self.table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.table.setMinimumHeight(self.table.horizontalHeader().sizeHint().height()
                                    + 3 * self.table.verticalHeader().defaultSectionSize()
                                    + 2 * self.table.frameWidth())
        lay = QVBoxLayout(self)
        lay.addWidget(self.title)
        lay.addWidget(self.reason)
        lay.addWidget(self.flow)
        lay.addWidget(self.legend)
        lay.addLayout(bar)
        lay.addWidget(self.step_label)
        lay.addWidget(self.table, 1)

        self.first_button.clicked.connect(lambda: self.set_step(0))
        self.back_button.clicked.connect(self.back)
        self.step_button.clicked.connect(self.step)
        self.last_button.clicked.connect(lambda: self.set_step(self.slider.maximum()))
        self.slider.valueChanged.connect(self._on_slider)
        self.table.selectionModel().currentRowChanged.connect(self._on_row)
        for key, slot in ((Qt.Key.Key_Right, self.step), (Qt.Key.Key_Left, self.back),
                          (Qt.Key.Key_Home, lambda: self.set_step(0)),
                          (Qt.Key.Key_End, lambda: self.set_step(self.slider.maximum()))):
            sc = QShortcut(QKeySequence(key), self)
            sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            sc.activated.connect(slot)

    # ----- public API -----------------------------------------------------------------------
    def show_word(self, word: ClickedWord | str) -> None:
        """Play back this word (a click from a text view, or plain text)."""
        if isinstance(word, str):
            word = ClickedWord(word, 0, len(word), 0, "", "")
        self.word = word
        self._recompute(at_end=True)

    def let_go(self) -> None:
        """The text changed where the word was clicked: its playback is no longer of
        the text shown (it stayed after the text was replaced)."""
        w, self.word = self.word, None
        if w is not None:
            self._show_empty("", f"The text changed since <b>“{escape(show(w.text, QUOTE))}”"
                             f"</b> was clicked. {HINT}")
            self.reason.setText("")

    def current_step(self) -> int:
        return self.slider.value()

    def shown_symbols(self) -> list[bytes]:
        """The symbols the chips show now (for tests)."""
        return list(self.flow.tokens)

    def step(self) -> None:
        self.set_step(self.slider.value() + 1)

    def back(self) -> None:
        self.set_step(self.slider.value() - 1)

    def set_step(self, k: int) -> None:
        self.slider.setValue(max(0, min(k, self.slider.maximum())))

    # ----- updates --------------------------------------------------------------------------
    def _on_tokenizer_changed(self) -> None:
        if self.word is None or self.catchup.skip():
            return
        self._recompute(at_end=self.slider.value() == self.slider.maximum())

    def _source(self) -> str:
        c = self.controller
        if c.use_imported and c.imported is not None:
            name = imported_name(c.imported_path)
            return f"imported tokenizer {escape(name)}"
        return f"trained tokenizer as of step {c.step_index:,}"

    def _recompute(self, at_end: bool) -> None:
        w, tok = self.word, self.controller.tokenizer()
        if w is None:
            return
        label = f" · {escape(w.label)}" if w.label else ""
        # (a short quote: a word of letters has no place to wrap, and 60 of them in bold
        # widened the label past the dock, the message cut off on the right)
        head = f"<b>“{escape(show(w.text, QUOTE))}”</b>{label}"
        self.reason.setText(w.reason)
        if w.branch < 0:
            self._show_empty("", f"{head}: a special token, one id, never split or merged.")
            return
        if tok is None:
            self._show_empty("", f"{head}: no tokenizer yet (train or import one).")
            return
        if len(w.text) > PLAYBACK_MAX:
            # its ids only, as explain() gives them (merged in one call, not replayed)
            try:
                ids = tok.encode_word(w.text)
            except BPEError as e:
                self._show_empty("", f"{head}: {escape(str(e))}")
                return
            self._show_empty("", f"{head}: {len(w.text):,} characters → "
                             f"{counted(len(ids), 'token')} · {self._source()}. "
                             f"Longer than the {PLAYBACK_MAX:,} characters a merge-by-merge "
                             "playback shows: its tokens only. (A pre-tokenizer that keeps "
                             "the whole text as one piece, as Metaspace without split does, "
                             "makes a long paste one word: click into a shorter text.)",
                             [(tok.vocab.get(i, b""), i) for i in ids])
            return
        try:
            pb = playback(tok, w.text)
        except BPEError as e:   # e.g. a character a char-level vocabulary lacks
            self._show_empty("", f"{head}: {escape(str(e))}")
            return
        k = len(pb.steps) if at_end else min(self.slider.value(), len(pb.steps))
        self.playback = pb
        c = self.controller
        self.origin = None if c.use_imported else c.train_on.origin()
        self.model.origin = self.origin
        if self.origin is not None:
            self.legend.setText(self.origin.legend_html(new_color(self.palette()).name()))
        self.legend.setVisible(self.origin is not None)
        if (self.origin is not None) != self._wide_rank:   # room for "new 50,123"
            self._wide_rank = self.origin is not None
            em = self.fontMetrics().horizontalAdvance("M")
            self.table.set_column_minimum(1, (8 if self._wide_rank else 5) * em)
        # characters, not bytes, for a tokenizer.json whose model starts from characters
        unit = "byte" if tok.mode == "byte" and all(len(t) == 1 for t in pb.symbols) \
            else "symbol"
        n0, n1 = len(pb.symbols), len(pb.final_symbols)
        self.title.setText(f"{head} · {counted(n0, unit)} → {counted(n1, 'token')} in "
                           f"{counted(len(pb.steps), 'step')} · {self._source()}")
        self.model.set_playback(pb, k)
        for b in (self.first_button, self.back_button, self.step_button, self.last_button,
                  self.slider):
            b.setEnabled(bool(pb.steps))
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(pb.steps))
        self.slider.setValue(k)
        self.slider.blockSignals(False)
        self._on_slider(k)

    def _show_empty(self, reason: str, title: str = "",
                    tokens: Sequence[tuple[bytes, int]] = ()) -> None:
        """No playback: the hint, or ``title`` saying why; ``tokens`` (bytes, id): a
        word's tokens shown without their merges (a word too long to play back)."""
        self.playback = None
        self.title.setText(title or HINT)
        if reason or not title:
            self.reason.setText(reason)
        self.model.set_playback(None, 0)
        texts = self.texts
        self.flow.set_tokens([t for t, _ in tokens], [i for _, i in tokens],
                             [kind_of(t) for t, _ in tokens],
                             lambda t: texts(t, True), True)
        self.step_label.setText("")
        self.slider.setRange(0, 0)
        for b in (self.first_button, self.back_button, self.step_button, self.last_button,
                  self.slider):
            b.setEnabled(False)

    def _on_slider(self, k: int) -> None:
        pb = self.playback
        if pb is None:
            return
        symbols, ids = pb.symbols_at(k), pb.ids_at(k)
        kinds = list(map(kind_of, symbols))
        texts = self.texts
        marks = self.origin.new_flags(ids) if self.origin is not None else None
        self.flow.set_tokens(list(symbols), list(ids), kinds, lambda t: texts(t, True), True,
                             marks=marks)
        st = pb.steps[k - 1] if k else None
        self.flow.set_highlight(st.new_positions() if st else [], scroll=False)
        self.model.set_current(k)
        if self.table.currentIndex().row() != k:
            self._selecting = True
            self.table.selectRow(k)
            self._selecting = False
        self.step_label.setText(self._describe(pb, k))

    def _on_row(self, current, _previous) -> None:
        if current.isValid() and not self._selecting:
            self.set_step(current.row())

    def _describe(self, pb: Playback, k: int) -> str:
        n = len(pb.steps)
        if not pb.symbols:
            return "No symbols: a character-level tokenizer leaves whitespace out."
        if k == 0:
            what = "the start" if n else "the start; no learned merge applies to any pair"
            return f"Step 0 of {n}: {what}."
        st = pb.steps[k - 1]
        t = self.texts
        if st.rank is None:   # a rule of the kind (tiktoken, ignore_merges): its own words
            did = st.rule.rstrip(".") if st.rule else "a rule of this tokenizer"
            did = did[:1].lower() + did[1:]
        else:
            places = "once" if len(st.at) == 1 else f"at {len(st.at)} places"
            # the merge's number is the step that learned it, as the timeline and the
            # vocabulary browser say (the engine's rank counts from 0)
            did = (f"merge {merge_number(st.rank)}: {t(st.pair[0])} + {t(st.pair[1])} → "
                   f"{t(st.token)}, {places}")
            if self.origin is not None:   # training on: the source's merge, or a new one
                did += f" ({self.origin.rank_tip(st.rank)})"
            elif not self.controller.use_imported:
                did += f" (learned at step {st.rank + 1:,})"
        end = "; no learned merge applies to what is left" if k == n else ""
        return f"Step {k} of {n}: {did}{end}."

    def _chip_tip(self, i: int) -> str:
        pb = self.playback
        if pb is None or self.origin is None:
            return ""
        ids = pb.ids_at(self.slider.value())
        return self.origin.id_tip(ids[i]) if 0 <= i < len(ids) else ""

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange:
            self.flow.set_mark_color(new_color(self.palette()))
            if self.origin is not None:
                self.legend.setText(self.origin.legend_html(new_color(self.palette()).name()))
            colors = TokenColors.for_palette(self.palette())
            self.flow.set_colors(colors)
            self.table.set_colors(colors)
            self.model.colors = colors

    def sizeHint(self) -> QSize:
        return QSize(520, 360)
