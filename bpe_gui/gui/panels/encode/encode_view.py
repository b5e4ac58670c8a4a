"""Live encode view: type text, see its tokens as alternating coloured blocks and its ids.

The colouring comes purely from ``Encoding.offsets`` (character spans) of the
controller's tokenizer, so stepping or clicking the timeline re-colours at once. The
text and the id list are linked both ways on hover (widgets/text_links.py). Tokens that
hold part of a UTF-8 character show their hex bytes (``<E4 BD>``) in a dashed, italic
chip and are marked with a dotted underline in the text.

What is shown is worked out without Qt by :class:`~bpe_gui.gui.models.encode_state.
EncodeState` (the encoding, its spans, the counts, how a step changes them); this
widget lays it out and paints it.

Speed (10 KB of text is ~2,500 tokens): a training step does not re-encode but applies
or undoes the one merge on the current encoding (encode_state.py); only the visible
lines of the text are re-coloured at once, the others when scrolled into view; the id
list lays out cached chip widths in one loop.
"""
from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import QColor, QPalette, QTextOption
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QLabel, QSizePolicy,
                               QSplitter, QToolButton, QVBoxLayout, QWidget)

from ....engine.tokenizers import BaseTokenizer, Encoding
from ...controller.origin import Origin
from ...controller.trainer_view import TrainerView
from ...models.encode_state import EncodeState
from ...models.encoding import TokenTexts
from ...models.glyphs import token_note
from ...models.imported_name import imported_name
from ...models.inherited import new_color
from ...models.reads import ImportedReads
from ...models.roles import TokenColors
from ...widgets.elided_combo import ElidedComboBox
from ...widgets.exact_text import LOST_SEPARATORS
from ...widgets.flow_layout import FlowBar
from ...widgets.glyph_watch import watch_glyphs
from ...widgets.text_links import TextLinks
from ...widgets.text_pane import TextPane
from ...widgets.token_flow import TokenFlow
from ...widgets.token_text import TokenHighlighter
from ...widgets.visibility import CatchUp
from ...widgets.word_branches import WordColouring
from ...theme import colors
from .pages import PageBar, PagedEdit, PagedText

SYNC_CHARS = 20_000        # re-encode right after the keys below this size, else after a pause
DEBOUNCE_MS = 50
AFTER_KEYS_MS = 12         # keys closer than this (fast typing, a burst) are taken first


class EncodeHost(ImportedReads, Protocol):
    """What the encode view reads of the controller (mypy holds the real Controller to
    it): the tokenizer on show, and these."""

    busyChanged: SignalInstance
    message: SignalInstance

    @property
    def tokenizer_files(self) -> _TokenizerChoice: ...
    @property
    def train_on(self) -> _TrainedOn: ...
    @property
    def has_trainer(self) -> bool: ...
    @property
    def training_job(self) -> bool: ...
    def view(self) -> TrainerView | None: ...


class _TokenizerChoice(Protocol):
    switch_note: str

    def set_use_imported(self, on: bool, note: str = "") -> None: ...


class _TrainedOn(Protocol):
    def origin(self) -> Origin | None: ...


class EncodeView(QWidget):
    focusRequested = Signal()   # the Focus button: the window gives the view all its room
    needsChanged = Signal()     # wants_its_minimum() changed (the switch note)

    def __init__(self, controller: EncodeHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.catchup = CatchUp(self, self._on_tokenizer_changed)
        self.catch_up = self.catchup.catch_up   # the main window's call when its tab is raised
        self.controller = controller
        self.colors = TokenColors.for_palette(self.palette())
        # training on from a tokenizer: tokens learned here are marked (models/inherited.py)
        self.mark_color = new_color(self.palette())
        self.tok: BaseTokenizer | None = None
        self.texts = TokenTexts()
        self.state = EncodeState(self.texts.visible)
        self._reusable: set[int] = set()   # lines coloured before the last step (same text)
        self._colouring = False
        self._build()
        controller.tokenizerChanged.connect(self._on_tokenizer_changed)
        controller.busyChanged.connect(lambda _busy: self._update_source())
        # Words mode (issue 15): colour by pattern rule; a click hands the word on.
        self.words = WordColouring(self.edit, lambda: self.tok.pre if self.tok else None,
                                   displaced=self.highlighter)
        self.words.found.next_page = self._next_page   # a page's last word
        self.top_bar.insertWidget(2, self.words.toggle)
        self._outer.insertWidget(1, self.words.legend)
        self._outer.insertWidget(1, self._switch_band())
        controller.tokenizerChanged.connect(self.words.refresh)
        self._on_tokenizer_changed()

    # ----- layout -------------------------------------------------------------------------
    def _build(self) -> None:
        self.page_bar = PageBar()
        self._outer = outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.addWidget(self._top_bar())
        outer.addWidget(self.page_bar)
        outer.addWidget(self._text_and_ids(), 1)
        self._timer = QTimer(self, singleShot=True)
        self._timer.timeout.connect(self.encode_now)
        self.edit.textChanged.connect(self._on_text_changed)
        self.edit.verticalScrollBar().valueChanged.connect(self._colour_visible)
        self.edit.updateRequest.connect(lambda *_: self._colour_visible())
        self.show_ws.toggled.connect(self._on_show_ws)
        self.source.activated.connect(self._on_source)
        self._on_show_ws(True)

    def _top_bar(self) -> FlowBar:
        """The Tokenizer box, Show whitespace, the counts and Focus: one row when there
        is room, else two."""
        self.source = ElidedComboBox()
        self.source.setToolTip("Which tokenizer encodes the text: the one being trained (as of "
                               "the current step) or an imported one")
        self.source.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.source.setMinimumContentsLength(16)   # room for the counts in a narrow dock
        self.source.addItem("Trained")
        self.show_ws = QCheckBox("Show whitespace")
        self.show_ws.setChecked(True)
        self.show_ws.setToolTip("Draw spaces as · and tabs as → in the text and the tokens")
        # changes on every step and keystroke: a TextPane never makes the view lay out again
        # (on the same row as the controls when there is room, else on the next one)
        self.counts = TextPane(hint_width=self.fontMetrics().horizontalAdvance(
            "12,345 tokens · 12,345 characters · 12,345 bytes · 1.23 bytes/token") + 8)
        # its hint counts in a FlowBar, and at the end of a row it takes the rest of it
        self.counts.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        # focus mode (the window's View > Focus, Ctrl+Shift+F): the whole window for the
        # text and its tokens, again to go back (a sliver at 800x600: issue 30)
        self.focus_button = QToolButton()
        self.focus_button.setText("Focus")
        self.focus_button.setCheckable(True)
        self.focus_button.setToolTip("Give the encode view the whole window (Ctrl+Shift+F); "
                                     "again to put it back. Step and Train keep working.")
        self.focus_button.clicked.connect(lambda _c: self.focusRequested.emit())
        top = self.top_bar = FlowBar(spacing=8)
        top.addWidget(_row(QLabel("Tokenizer:"), self.source))
        top.addWidget(self.show_ws)
        counts_row = _row(self.counts, self.focus_button, grow=self.counts)   # Focus at its end
        counts_row.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        top.addWidget(counts_row)
        return top

    def _text_and_ids(self) -> QSplitter:
        """The text above, its chips below, in a splitter whose strip is whole rows."""
        # a long text is shown a page at a time (pages.py): a 30 MB paste or session
        # text laid out whole held the window for many seconds, past a SIGTERM (issue 30)
        self.edit = PagedEdit()
        watch_glyphs(self.edit)   # a character no font draws is a box here
        self.paging = PagedText(self.edit, self.page_bar, self._page_shown)
        self.edit.separators_lost = lambda: self.controller.message.emit(LOST_SEPARATORS)
        self.pages = self.paging.pages
        self.edit.setPlaceholderText("Type or paste text to see how the tokenizer cuts it.")
        f = self.edit.font()
        f.setPointSizeF(f.pointSizeF() * 1.25)
        self.edit.setFont(f)
        # Connected before the highlighter's own slot, so that an edit drops the old
        # spans before the highlighter re-colours the edited line with them.
        self.edit.document().contentsChange.connect(self._on_contents_change)
        self.highlighter = TokenHighlighter(self.edit.document(), self.colors, self.mark_color)
        self.flow = TokenFlow()
        self.flow.tip_of = self.token_tip
        self.flow.set_mark_color(self.mark_color)
        self.links = TextLinks(self.edit, self.flow, lambda: self.state.spans,
                               lambda: self.colors)
        # one short line (the rest in its tooltip): in a 1024x700 window the dock is
        # short, and two lines of help left no room for the ids themselves (issue 21)
        self.list_label = QLabel("Tokens and ids: hover one to find it in the text")
        self.list_label.setToolTip("Hover a token or an id to find it in the text. Part of "
                                   "a character: dotted underline in the text, dashed chip "
                                   "with hex bytes below")
        self.list_label.setWordWrap(True)
        # training on: in the id list's title line (a row of its own pushed the ids out
        # of a short dock), one line, the whole legend in its tooltip
        self.origin_legend = TextPane()
        self.origin_legend.setTextFormat(Qt.TextFormat.RichText)
        self.origin_legend.hide()
        lower = QWidget()
        lv = QVBoxLayout(lower)
        lv.setContentsMargins(0, 0, 0, 0)
        for w in (self.list_label, self.origin_legend):
            lv.addWidget(w)
        lv.addWidget(self.flow, 1)
        self.splitter = split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.edit)
        split.addWidget(lower)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        self.edit.setMinimumHeight(2 * self.edit.fontMetrics().lineSpacing() + 12)
        self.flow.setMinimumHeight(self.flow.height_for_rows(1))   # a row of ids at least
        # the strip is whole rows high: what a row does not fill goes to the text, or the
        # text gives what a row lacks when over half of it is there (the strip's last row
        # showed cut through its labels: 1.7 rows at 1024x700, a sliver at 800x600)
        self._fit_timer = QTimer(self, singleShot=True, interval=0)
        self._fit_timer.timeout.connect(self._fit_strip)
        self._strip_moved = 0   # (a handle dragged: where it was let go is the height given)
        split.splitterMoved.connect(lambda *_: setattr(self, "_strip_moved", 0))
        self.flow.installEventFilter(self)
        return split

    def _switch_band(self) -> QWidget:
        """A switch of the Tokenizer box the user did not make stays in sight until the
        user chooses again (the status bar's word of it is gone at the next message);
        one line, the whole in its tooltip: two lines of it pushed the ids out of a
        short dock (800x600, 1024x700), and the window gives the view its minimum while
        it shows (wants_its_minimum)."""
        self.switch_note = TextPane()
        self.switch_band = QWidget()   # the warning's background, behind the pane
        self.switch_band.setAutoFillBackground(True)
        band = QHBoxLayout(self.switch_band)
        band.setContentsMargins(4, 1, 4, 1)
        band.addWidget(self.switch_note)
        self.switch_band.hide()
        return self.switch_band

    # ----- public API (the main window saves/restores the text) -----------------------------
    @property
    def encoding(self) -> Encoding:
        return self.state.encoding

    def pos_of_char(self, i: int) -> int:
        return self.state.spans.pos_of_char(i)

    def char_of_pos(self, p: int) -> int:
        return self.state.spans.char_of_pos(p)

    def wants_its_minimum(self) -> bool:
        """In Words mode the rules and their legend stand above the text, and a switch
        of the Tokenizer box the user did not make is said above it: on a short screen
        the window gives the view its whole minimum height, or the ids strip went below
        the fold (docks.py; ``needsChanged`` when this changes)."""
        return self.words.enabled or not self.switch_band.isHidden()

    def text(self) -> str:
        """The whole text (a long one: every page, as edited)."""
        return self.paging.text()

    def set_text(self, text: str) -> None:
        """Show ``text``: a long one a page at a time (pages.py)."""
        self.paging.set_text(text)

    def show_page(self, index: int) -> None:
        """Page ``index`` of a long text (its edits on the page shown are kept)."""
        self.paging.show_page(index)

    # ----- controller -------------------------------------------------------------------------
    def _on_tokenizer_changed(self) -> None:
        tok = self.controller.tokenizer()
        if tok is None and self.controller.training_job:
            return   # the trainer belongs to a job: keep the last tokenizer until it ends
        self.tok = tok
        if self.catchup.skip():
            return
        self._update_source()
        before = self.state.encoding
        if self.state.text != self._raw_text() or \
                not self.state.follow(tok, self._run(), self._marks()):
            self.encode_now()
        elif self.state.encoding is not before:
            self._show()
        else:   # a step that changed none of its tokens: the counts only
            self.counts.set_variants(self.state.counts_variants())

    def _run(self) -> TrainerView | None:
        """The training run the trained tokenizer on show is of (None: an imported one)."""
        c = self.controller
        return None if c.use_imported else c.view()

    def _marks(self) -> Origin | None:
        """Training on: where the trained tokenizer's tokens come from (new ones marked)."""
        c = self.controller
        return None if c.use_imported or self.tok is None else c.train_on.origin()

    def _update_source(self) -> None:
        c = self.controller
        first = f"Trained, as of step {c.step_index:,}" if c.has_trainer else \
            "Trained (nothing trained yet)"
        want = [first]
        if c.imported is not None:
            want.append(f"Imported: {imported_name(c.imported_path)}")
        have = [self.source.itemText(i) for i in range(self.source.count())]
        self.source.blockSignals(True)
        if len(have) != len(want):
            self.source.clear()
            self.source.addItems(want)
        else:
            for i, (h, w) in enumerate(zip(have, want)):
                if h != w:
                    self.source.setItemText(i, w)
        self.source.setCurrentIndex(1 if c.use_imported and c.imported is not None else 0)
        self.source.setEnabled(c.imported is not None)
        self.source.blockSignals(False)
        self._show_switch_note(c.tokenizer_files.switch_note)

    def _show_switch_note(self, note: str) -> None:
        if note:
            col = colors(self)
            pal = self.switch_band.palette()
            pal.setColor(QPalette.ColorRole.Window, QColor(col["warn_bg"]))
            pal.setColor(QPalette.ColorRole.WindowText, QColor(col["warn_fg"]))
            self.switch_band.setPalette(pal)
            self.switch_note.set_variants([
                f"{note}: pick it again in the Tokenizer box to encode with it.",
                f"{note}: pick it again in the Tokenizer box.", f"{note}.",
                "Tokenizer box switched from the imported one."])
        if self.switch_band.isHidden() == bool(note):
            self.switch_band.setVisible(bool(note))
            self.needsChanged.emit()

    def _on_source(self, i: int) -> None:
        self.controller.tokenizer_files.set_use_imported(i == 1)

    # ----- encoding ----------------------------------------------------------------------------
    def _raw_text(self) -> str:
        return self.edit.document().toRawText().replace("\u2029", "\n")

    def _on_contents_change(self, _pos: int, removed: int, added: int) -> None:
        if (removed or added) and self.state.spans.offsets and \
                self._raw_text() != self.state.text:
            self.state.forget_spans()
            self.highlighter.set_spans(self.state.spans)

    def _on_text_changed(self) -> None:
        # Re-colouring also emits textChanged: only an edit of the text counts.
        if self._raw_text() == self.state.text:
            return
        # Never encode between two keys of a burst: each key restarts the wait, so the
        # keys all reach the text box first and the text is encoded once after them.
        small = self.edit.document().characterCount() < SYNC_CHARS
        self._timer.start(AFTER_KEYS_MS if small else DEBOUNCE_MS)

    def _next_page(self) -> int | None:
        """The number of the page after the one on show, or None (the last page, or a
        text shown whole): a word at the page's end ends with the page."""
        pages = self.paging.pages
        return pages.index + 2 if pages.active and pages.index + 1 < pages.count else None

    def _page_shown(self) -> None:
        """A new text or page in the box: encoded, and the ids brought to the tokens at
        the cursor (the strip kept the last page's scroll: its first row showed ids cut
        off; after a long paste the box showed its end and the strip its start)."""
        self.encode_now()
        self.flow.verticalScrollBar().setValue(0)
        rows = self.state.spans.tokens_at(self.char_of_pos(self.edit.textCursor().position()))
        if rows:
            self.flow.ensure_visible(rows[-1])

    def encode_now(self) -> None:
        """Encode the text with the current tokenizer and re-colour everything."""
        self._timer.stop()
        state = self.state
        state.set_text(self.edit.document().toRawText())
        self.paging.page_edited(state.text)   # the bar says what the page holds now
        state.encode(self.tok, self._run(), self._marks())
        self._show()

    def _show(self) -> None:
        """Draw what the state shows: chips, colours (the lines whose tokens did not
        change keep theirs), counts, the training-on legend."""
        state = self.state
        self._reusable = self.highlighter.coloured if state.prev is not None else set()
        self.highlighter.coloured = set()
        self.highlighter.set_spans(state.spans)
        self._show_legend(state.marks if isinstance(state.marks, Origin) else None)
        self.links.forget()
        self._flow_tokens()
        self._colour_visible()
        if self.tok is None:
            self.counts.setText("No tokenizer yet: train (Step) or import one.")
        else:
            self.counts.set_variants(state.counts_variants())

    # ----- training on: old and new tokens ---------------------------------------------------
    def _show_legend(self, origin: Origin | None) -> None:
        """Which tokens the trained tokenizer learned here, when it trained on from
        another (inherited ones stay plain); the legend says which is which."""
        if origin is not None:
            self.origin_legend.setText(origin.legend_html(self.mark_color.name()))
            self.origin_legend.setToolTip(
                f"Tokens learned here (new merges, ids from {origin.n_initial:,}) have a "
                f"green outline below and a green underline in the text; the others are "
                f"{origin.label}'s, inherited with their ids. Hover a token to see which.")
        self.origin_legend.setVisible(origin is not None)
        self.list_label.setVisible(origin is None)
        self.links.tip_of = self.token_tip if origin is not None else None

    def token_tip(self, i: int) -> str:
        """What the tooltip says of token ``i``: its id, and inherited or learned when."""
        enc, origin = self.state.encoding, self.state.marks
        if not 0 <= i < len(enc):
            return ""
        tid = enc.ids[i]
        text = self.texts(enc.tokens[i], True)
        note = token_note(enc.tokens[i])
        if not isinstance(origin, Origin):
            return f"{text}  (id {tid:,}){note}"
        return f"{text}  —  {origin.id_tip(tid)}{note}"

    # ----- colouring ---------------------------------------------------------------------------
    def _colour_visible(self, *_args) -> None:
        """Colour the lines on screen that still show an older encoding."""
        if self._colouring:      # re-colouring a line asks for a repaint, which lands here
            return
        self._colouring = True
        try:
            self._colour_visible_now()
        finally:
            self._colouring = False

    def _colour_visible_now(self) -> None:
        edit = self.edit
        block = edit.firstVisibleBlock()
        if not block.isValid():
            return
        height = edit.viewport().height()
        y = edit.contentOffset().y()
        fresh, reusable = self.highlighter.coloured, self._reusable
        # Find the lines on screen first: asking for a line's place after re-colouring
        # the one above it would lay that one out again at once.
        stale = []
        while block.isValid():
            if edit.blockBoundingGeometry(block).top() + y > height:
                break
            n = block.blockNumber()
            if n not in fresh:
                if n in reusable and self.state.same_line(n):
                    fresh.add(n)
                else:
                    stale.append(block)
            block = block.next()
        for block in stale:
            self.highlighter.rehighlightBlock(block)

    def colour_all(self) -> None:
        """Colour every line now (for screenshots and tests)."""
        self.highlighter.rehighlight()

    def format_kinds(self) -> list[int]:
        """The colour format index (-1: none) at each character position of the document,
        as the highlighter laid it out (for tests: compare with Encoding.offsets)."""
        doc = self.edit.document()
        out = [-1] * max(0, doc.characterCount() - 1)
        formats = self.highlighter.formats
        block = doc.begin()
        while block.isValid():
            for r in block.layout().formats():
                k = next((i for i, f in enumerate(formats) if f == r.format), -1)
                start = block.position() + r.start
                out[start:start + r.length] = [k] * r.length
            block = block.next()
        return out

    # ----- the ids strip -----------------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.flow and event.type() == QEvent.Type.Resize:
            self._fit_timer.start()   # (after the splitter has laid its parts out)
        return super().eventFilter(obj, event)

    def _fit_strip(self) -> None:
        """Move the splitter so that the ids strip is whole rows high: the number of rows
        nearest to the height the splitter gave it (``_strip_moved``: how far this moved
        it last time, so that a dock grown a pixel at a time grows the strip too)."""
        flow = self.flow
        if not flow.isVisible():
            return
        given = flow.height() - self._strip_moved
        rows = max(1, int((given - flow.height_for_rows(0)) / flow.row_h + 0.5))
        more = flow.height_for_rows(rows) - flow.height()
        if more:
            sizes = self.splitter.sizes()
            self.splitter.setSizes([sizes[0] - more, sizes[1] + more])
        self._strip_moved = flow.height() - given

    def _flow_tokens(self) -> None:
        show = self.show_ws.isChecked()
        texts, state = self.texts, self.state
        self.flow.set_tokens(state.encoding.tokens, state.encoding.ids, state.spans.kinds,
                             lambda t: texts(t, show), show, marks=state.spans.news)

    def token_texts(self) -> list[str]:
        """What the id list shows for each token (for tests)."""
        return [self.flow.text_of(t) for t in self.state.encoding.tokens]

    # ----- look --------------------------------------------------------------------------------
    def _on_show_ws(self, on: bool) -> None:
        doc = self.edit.document()
        opt = doc.defaultTextOption()
        flags = opt.flags()
        if on:
            flags |= QTextOption.Flag.ShowTabsAndSpaces
        else:
            flags &= ~QTextOption.Flag.ShowTabsAndSpaces
        opt.setFlags(flags)
        doc.setDefaultTextOption(opt)
        if self.state.encoding.ids:
            self._flow_tokens()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.colors = TokenColors.for_palette(self.palette())
            self.mark_color = new_color(self.palette())
            self.flow.set_colors(self.colors)
            self.flow.set_mark_color(self.mark_color)
            self.highlighter.set_colors(self.colors, self.mark_color)
            self._show_legend(self.state.marks if isinstance(self.state.marks, Origin)
                              else None)
            self.highlighter.coloured, self._reusable = set(), set()
            self._colour_visible()

    def sizeHint(self) -> QSize:
        return QSize(720, 520)


def _row(*widgets: QWidget, grow: QWidget | None = None) -> QWidget:
    """Widgets side by side, without margins; ``grow`` takes what is left."""
    row = QWidget()
    lay = QHBoxLayout(row)
    lay.setContentsMargins(0, 0, 0, 0)
    for w in widgets:
        lay.addWidget(w, 1 if w is grow else 0)
    return row
