"""Live encode view: type text, see its tokens as alternating coloured blocks and its ids.

The colouring comes purely from ``Encoding.offsets`` (character spans) of the
controller's tokenizer, so stepping or clicking the timeline re-colours at once. The
text and the id list are linked both ways on hover. Tokens that hold part of a UTF-8
character show their hex bytes (``<E4 BD>``) in a dashed, italic chip and are marked
with a wavy underline in the text.

Speed (10 KB of text is ~2,500 tokens): a training step does not re-encode but applies
or undoes the one merge on the current encoding (see models/encoding.py); only the
visible lines of the text are re-coloured at once, the others when scrolled into view;
the id list lays out cached chip widths in one loop.
"""
from __future__ import annotations

import time
from bisect import bisect_left
from operator import itemgetter

from PySide6.QtCore import QEvent, QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (QColor, QPalette, QTextCharFormat, QTextCursor,
                           QTextOption)
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QLabel, QSizePolicy,
                               QSplitter, QTextEdit, QToolButton, QToolTip, QVBoxLayout,
                               QWidget)

from ....engine.errors import BPEError
from ....engine.tokenizers import Encoding, apply_merge, char_of_byte, undo_merge, word_numbers
from ...models.encoding import (TokenTexts, char_index, doc_position, group_parity,
                               token_kinds, tokens_at, utf16_positions)
from ...models.glyphs import token_note
from ...models.inherited import new_color
from ...models.roles import TokenColors
from ...widgets.exact_text import LOST_SEPARATORS
from ...widgets.flow_layout import FlowBar
from ...widgets.token_text import TokenHighlighter
from ...widgets.text_pane import TextPane
from ...widgets.token_flow import TokenFlow
from ...widgets.visibility import CatchUp
from ...widgets.word_branches import WordColouring
from ...widgets.elided_combo import ElidedComboBox
from ...widgets.glyph_watch import watch_glyphs
from ...theme import colors
from .pages import PageBar, PagedEdit, PagedText
from ...models.imported_name import imported_name

SYNC_CHARS = 20_000        # re-encode right after the keys below this size, else after a pause
DEBOUNCE_MS = 50
AFTER_KEYS_MS = 12         # keys closer than this (fast typing, a burst) are taken first
MAX_STEP_DELTA = 64        # follow up to this many steps merge by merge, else re-encode
ENCODE_LIMIT = 100_000     # characters encoded and coloured; the rest is left plain
WORDS_PENDING: list[int] = []   # marker: word numbers not worked out yet


def _tokens_in(offsets, starts, c0: int, c1: int) -> tuple[int, int]:
    """The index range of the tokens that cover any of the characters c0..c1-1."""
    a, z = bisect_left(starts, c0), bisect_left(starts, c1)
    while a > 0 and offsets[a - 1][1] > c0:
        a -= 1
    return a, z


class EncodeView(QWidget):
    focusRequested = Signal()   # the Focus button: the window gives the view all its room
    needsChanged = Signal()     # wants_its_minimum() changed (the switch note)

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.catchup = CatchUp(self, self._on_tokenizer_changed)
        self.catch_up = self.catchup.catch_up   # the main window's call when its tab is raised
        self.controller = controller
        self.colors = TokenColors.for_palette(self.palette())
        # training on from a tokenizer: tokens learned here are marked (models/inherited.py)
        self.mark_color = new_color(self.palette())
        self.origin = None                # the trained tokenizer's Origin, when marked
        self.news: list[bool] | None = None   # per token: learned here (None: no marks)
        self.tok = None
        self.encoding = Encoding([], [], [], [])
        self.offsets: list[tuple[int, int]] = []
        self.starts: list[int] = []
        self.kinds: list[int] = []       # 0 plain, 2 part of a character, 3 special
        self.parity: list[int] = []      # alternating colour of each token's group
        self.fresh_blocks: set[int] = set()   # lines coloured for the current encoding
        # After a step: lines coloured for the previous encoding, which need no new
        # colours if their tokens did not change (checked when they are on screen).
        self._reusable: set[int] = set()
        self._prev: tuple | None = None       # (offsets, starts, parity, kinds) before
        self._shown_text = ""                 # the text of the shown encoding
        self.block_starts: list[int] = [0]    # the character each line begins at
        self._colouring = False
        self._u16: list[int] | None = None
        self._text = ""
        self._nbytes = 0
        self.hovered: list[int] = []
        self.last_encode_ms = 0.0
        self.last_mode = ""              # "full" or "step": how the last update was made
        # What the current encoding follows, for step-by-step updates.
        self._trainer = None
        self._step = -1
        self._records: list = []         # the merge records 1..step it was built with
        self._words: list[int] | None = None
        self._cob: list[int] | None = None
        self._build()
        controller.tokenizerChanged.connect(self._on_tokenizer_changed)
        controller.busyChanged.connect(lambda _busy: self._update_source())
        # Words mode (issue 15): colour by pattern rule; a click hands the word on.
        self.words = WordColouring(self.edit, lambda: self.tok and self.tok.pre,
                                   displaced=self.highlighter)
        self.words.found.next_page = self._next_page   # a page's last word
        self.top_bar.insertWidget(2, self.words.toggle)
        self.layout().insertWidget(1, self.words.legend)
        # a switch of the Tokenizer box the user did not make stays in sight until the
        # user chooses again (the status bar's word of it is gone at the next message);
        # one line, the whole in its tooltip: two lines of it pushed the ids out of a
        # short dock (800x600, 1024x700), and the window gives the view its minimum
        # while it shows (wants_its_minimum)
        self.switch_note = TextPane()
        self.switch_band = QWidget()   # the warning's background, behind the pane
        self.switch_band.setAutoFillBackground(True)
        band = QHBoxLayout(self.switch_band)
        band.setContentsMargins(4, 1, 4, 1)
        band.addWidget(self.switch_note)
        self.switch_band.hide()
        self.layout().insertWidget(1, self.switch_band)
        # training on: in the id list's title line (a row of its own pushed the ids out
        # of a short dock), one line, the whole legend in its tooltip
        self.origin_legend = TextPane()
        self.origin_legend.setTextFormat(Qt.TextFormat.RichText)
        self.origin_legend.hide()
        self.list_label.parentWidget().layout().insertWidget(1, self.origin_legend)
        self.flow.tip_of = self._chip_tip
        self.flow.set_mark_color(self.mark_color)
        controller.tokenizerChanged.connect(self.words.refresh)
        self._on_tokenizer_changed()

    # ----- layout -------------------------------------------------------------------------
    def _build(self) -> None:
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
        source = QWidget()
        sl = QHBoxLayout(source)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(QLabel("Tokenizer:"))
        sl.addWidget(self.source)
        # focus mode (the window's View > Focus, Ctrl+Shift+F): the whole window for the
        # text and its tokens, again to go back (a sliver at 800x600: issue 30)
        self.focus_button = QToolButton()
        self.focus_button.setText("Focus")
        self.focus_button.setCheckable(True)
        self.focus_button.setToolTip("Give the encode view the whole window (Ctrl+Shift+F); "
                                     "again to put it back. Step and Train keep working.")
        self.focus_button.clicked.connect(lambda _c: self.focusRequested.emit())
        top = self.top_bar = FlowBar(spacing=8)
        top.addWidget(source)
        top.addWidget(self.show_ws)
        counts_row = QWidget()   # the counts and Focus: one piece, Focus at its end
        cl = QHBoxLayout(counts_row)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(self.counts, 1)
        cl.addWidget(self.focus_button)
        counts_row.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        top.addWidget(counts_row)

        # a long text is shown a page at a time (pages.py): a 30 MB paste or session
        # text laid out whole held the window for many seconds, past a SIGTERM (issue 30)
        self.page_bar = PageBar()
        self.edit = PagedEdit()
        watch_glyphs(self.edit)   # a character no font draws is a box here
        self.paging = PagedText(self.edit, self.page_bar, self._page_shown)
        self.edit.separators_lost = lambda: self.controller.message.emit(LOST_SEPARATORS)
        self.pages = self.paging.pages
        self.edit.setPlaceholderText("Type or paste text to see how the tokenizer cuts it.")
        f = self.edit.font()
        f.setPointSizeF(f.pointSizeF() * 1.25)
        self.edit.setFont(f)
        self.edit.viewport().setMouseTracking(True)
        self.edit.viewport().installEventFilter(self)
        # the pointer's place over the text (None: not over it): the wheel scrolls the text
        # under a still pointer, and the token lit must follow it
        self._pointer: QPoint | None = None
        self.edit.verticalScrollBar().valueChanged.connect(self._hover_after_scroll)
        self.edit.horizontalScrollBar().valueChanged.connect(self._hover_after_scroll)
        # Connected before the highlighter's own slot, so that an edit drops the old
        # spans before the highlighter re-colours the edited line with them.
        self.edit.document().contentsChange.connect(self._on_contents_change)
        self.highlighter = TokenHighlighter(self.edit.document(), self)

        self.texts = TokenTexts()
        self.flow = TokenFlow()
        # one short line (the rest in its tooltip): in a 1024x700 window the dock is
        # short, and two lines of help left no room for the ids themselves (issue 21)
        self.list_label = QLabel("Tokens and ids: hover one to find it in the text")
        self.list_label.setToolTip("Hover a token or an id to find it in the text. Part of "
                                   "a character: dotted underline in the text, dashed chip "
                                   "with hex bytes below")
        self.list_label.setWordWrap(True)

        lower = QWidget()
        lv = QVBoxLayout(lower)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.list_label)
        lv.addWidget(self.flow, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.edit)
        split.addWidget(lower)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        self.splitter = split

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
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.addWidget(top)
        outer.addWidget(self.page_bar)
        outer.addWidget(split, 1)

        self._timer = QTimer(self, singleShot=True)
        self._timer.timeout.connect(self.encode_now)
        self.edit.textChanged.connect(self._on_text_changed)
        self.edit.verticalScrollBar().valueChanged.connect(self._colour_visible)
        self.edit.updateRequest.connect(lambda *_: self._colour_visible())
        self.show_ws.toggled.connect(self._on_show_ws)
        self.source.activated.connect(self._on_source)
        self.flow.hovered.connect(self._on_flow_hovered)
        self._on_show_ws(True)

    # ----- public API (the main window saves/restores the text) -----------------------------
    def pos_of_char(self, i: int) -> int:
        return doc_position(self._u16, i)

    def char_of_pos(self, p: int) -> int:
        return char_index(self._u16, p)

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
        if not self._follow_step():
            self.encode_now()

    def _update_source(self) -> None:
        c = self.controller
        first = f"Trained, as of step {c.step_index:,}" if c.has_trainer else \
            "Trained (nothing trained yet)"
        want = [first]
        if c.imported is not None:
            name = imported_name(c.imported_path)
            want.append(f"Imported: {name}")
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
    def _raw_text(self, raw: str | None = None) -> str:
        if raw is None:
            raw = self.edit.document().toRawText()
        return raw.replace("\u2029", "\n")   # (exact_text.py: U+2028 is the text's own)

    def _note_blocks(self, raw: str) -> None:
        """Where each line (text block) of ``raw`` (the document's text, with U+2029
        between blocks) begins, in characters."""
        starts, i = [0], raw.find("\u2029")
        while i >= 0:
            starts.append(i + 1)
            i = raw.find("\u2029", i + 1)
        self.block_starts = starts

    def _on_contents_change(self, _pos: int, removed: int, added: int) -> None:
        if (removed or added) and self.offsets and self._raw_text() != self._text:
            self.offsets, self.starts = [], []

    def _on_text_changed(self) -> None:
        # Re-colouring also emits textChanged: only an edit of the text counts.
        if self._raw_text() == self._text:
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
        rows = self.tokens_at(char_index(self._u16, self.edit.textCursor().position()))
        if rows:
            self.flow.ensure_visible(rows[-1])

    def encode_now(self) -> None:
        """Encode the text with the current tokenizer and re-colour everything."""
        t0 = time.perf_counter()
        self._timer.stop()
        raw = self.edit.document().toRawText()
        text = self._raw_text(raw)
        self._text = text
        self._note_blocks(raw)
        self.paging.page_edited(text)   # the bar says what the page holds now
        tok = self.tok
        enc = Encoding([], [], [], [])
        error = None
        part = text[:ENCODE_LIMIT]   # the window stays responsive with a pasted book
        if tok is not None and part:
            try:
                enc = tok.encode_with_offsets(part, allowed_special="all", add_special_tokens=False)
            except BPEError as e:   # e.g. a character missing from a char-level vocabulary
                error = str(e)
        self._remember(tok, enc, part)
        if len(part) < len(text):
            self._words = None       # no step-by-step updates on a cut text
        self._show(enc, error)
        self.last_mode = "full"
        self.last_encode_ms = (time.perf_counter() - t0) * 1000

    def _remember(self, tok, enc: Encoding, text: str) -> None:
        """Note what this encoding follows, so steps can update it merge by merge."""
        c = self.controller
        self._nbytes = len(text.encode("utf-8"))
        self._trainer = None
        self._words = None
        t = c.view()
        if tok is None or c.use_imported or t is None or tok.mode != "byte":
            return
        if sum(map(len, enc.tokens)) != self._nbytes:
            return   # a custom pattern skipped some text: byte positions would not line up
        self._trainer, self._step, self._records = t, t.n_steps, list(t.steps)
        self._words = WORDS_PENDING   # worked out at the first step: typing need not pay

    def _follow_step(self) -> bool:
        """Update the encoding for a training step by applying/undoing merges. False if
        it cannot (new trainer, imported tokenizer, far jump, text edited meanwhile)."""
        c = self.controller
        t = c.view()
        if (self._words is None or t is None or t is not self._trainer or c.use_imported
                or self.tok is None or self._raw_text() != self._text):
            return False
        t0 = time.perf_counter()
        k, new_k = self._step, t.n_steps
        if new_k == k or abs(new_k - k) > MAX_STEP_DELTA:
            return False
        if not t.same_pretokenizer(k, new_k):   # SuperBPE's transition: other words
            return False
        common = min(k, new_k)
        if common and t.steps[common - 1].pair != self._records[common - 1].pair:
            return False
        enc, words = self.encoding, self._words
        if words is WORDS_PENDING:
            word_starts = [s for s, _e, _sp in self.tok.pre.spans(self._text)]
            words = word_numbers(word_starts, enc.offsets)
            self._cob = char_of_byte(self._text)
        if new_k > k:
            for rec in t.steps[k:new_k]:
                enc, words = apply_merge(enc, words, rec.pair[0], rec.pair[1], rec.new_id,
                                        rec.token)
        else:
            for rec in reversed(self._records[new_k:k]):
                enc, words = undo_merge(enc, words, rec.new_id, rec.pair[0], rec.pair[1],
                                        rec.left, rec.right, self._cob)
        self._step, self._records, self._words = new_k, list(t.steps), words
        if enc is not self.encoding:
            self._show(enc, None)
        else:
            self._update_counts(None)
        self.last_mode = "step"
        self.last_encode_ms = (time.perf_counter() - t0) * 1000
        return True

    def _show(self, enc: Encoding, error: str | None) -> None:
        """Make ``enc`` the shown encoding: colours, id list, counts."""
        if self._text == self._shown_text and self.offsets:
            # The same text as what is coloured: lines whose tokens stay the same keep
            # their colours (see _colour_visible_now).
            self._prev = (self.offsets, self.starts, self.parity, self.kinds)
            self._reusable = self.fresh_blocks
        else:
            self._prev, self._reusable = None, set()
        self._shown_text = self._text
        self.encoding = enc
        self.offsets = enc.offsets
        self.starts = list(map(itemgetter(0), enc.offsets))
        n = len(enc.ids)
        if self._text.isascii() and not any(enc.special):
            self.kinds = [0] * n   # no token can hold part of a character: fast path
        else:
            self.kinds = token_kinds(enc, self.texts.visible)
        self.parity = group_parity(enc.offsets, self.block_starts)
        self._mark_new(enc)
        self._u16 = utf16_positions(self._text)
        self.hovered = []
        if self.edit.extraSelections():
            self.edit.setExtraSelections([])
        self._flow_tokens()
        self.fresh_blocks = set()
        self._colour_visible()
        self._update_counts(error)

    # ----- training on: old and new tokens ---------------------------------------------------
    def _mark_new(self, enc: Encoding) -> None:
        """Which tokens the trained tokenizer learned here, when it trained on from
        another (inherited ones stay plain); the legend says which is which."""
        c = self.controller
        origin = None if c.use_imported or self.tok is None else c.train_on.origin()
        self.origin = origin
        self.news = origin.new_flags(enc.ids) if origin is not None else None
        if origin is not None:
            self._set_legend()
        self.origin_legend.setVisible(origin is not None)
        self.list_label.setVisible(origin is None)

    def _set_legend(self) -> None:
        self.origin_legend.setText(self.origin.legend_html(self.mark_color.name()))
        self.origin_legend.setToolTip(
            f"Tokens learned here (new merges, ids from {self.origin.n_initial:,}) have a "
            f"green outline below and a green underline in the text; the others are "
            f"{self.origin.label}'s, inherited with their ids. Hover a token to see which.")

    def token_tip(self, i: int) -> str:
        """What the tooltip says of token ``i``: its id, and inherited or learned when."""
        if not 0 <= i < len(self.encoding):
            return ""
        tid = self.encoding.ids[i]
        text = self.texts(self.encoding.tokens[i], True)
        note = token_note(self.encoding.tokens[i])
        if self.origin is None:
            return f"{text}  (id {tid:,}){note}"
        return f"{text}  —  {self.origin.id_tip(tid)}{note}"

    def _chip_tip(self, i: int) -> str:
        return self.token_tip(i)

    def _update_counts(self, error: str | None) -> None:
        if error:
            self.counts.setText(error)
            return
        if self.tok is None:
            self.counts.setText("No tokenizer yet: train (Step) or import one.")
            return
        n = len(self.encoding)
        nbytes = self._nbytes
        ratio = f"{nbytes / n:.2f}" if n else "–"
        partial = self.kinds.count(2)
        extra = f" · {partial:,} partial-character tokens" if partial else ""
        chars = min(len(self._text), ENCODE_LIMIT)
        if chars < len(self._text):
            extra += f" (first {ENCODE_LIMIT:,} characters only)"
        # the first that fits the width: the counts are never cut off mid-number
        toks = f"{n:,} token{'' if n == 1 else 's'}"   # ("1 tokens" after a typed word)
        chs = f"{chars:,} character{'' if chars == 1 else 's'}"
        nb = f"{nbytes:,} byte{'' if nbytes == 1 else 's'}"
        self.counts.set_variants([
            f"{toks} · {chs} · {nb} · {ratio} bytes/token{extra}",
            f"{toks} · {chars:,} chars · {nb} · {ratio} bytes/token",
            f"{toks} · {ratio} bytes/token", toks])

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
        offset = edit.contentOffset()
        fresh = self.fresh_blocks
        reusable = self._reusable
        # Find the lines on screen first: asking for a line's place after re-colouring
        # the one above it would lay that one out again at once.
        stale = []
        y = offset.y()
        while block.isValid():
            geometry = edit.blockBoundingGeometry(block)
            if geometry.top() + y > height:
                break
            n = block.blockNumber()
            if n not in fresh:
                if n in reusable and self._same_tokens(n):
                    fresh.add(n)
                else:
                    stale.append(block)
            block = block.next()
        rehighlight = self.highlighter.rehighlightBlock
        for block in stale:
            rehighlight(block)

    def _same_tokens(self, n: int) -> bool:
        """Line ``n`` shows the same tokens, kinds and colours as before the last step."""
        prev = self._prev
        if prev is None or n >= len(self.block_starts):
            return False
        c0 = self.block_starts[n]
        c1 = self.block_starts[n + 1] if n + 1 < len(self.block_starts) else 1 << 62
        old_offsets, old_starts, old_parity, old_kinds = prev
        a, z = _tokens_in(old_offsets, old_starts, c0, c1)
        b, y = _tokens_in(self.offsets, self.starts, c0, c1)
        return (old_offsets[a:z] == self.offsets[b:y] and old_parity[a:z] == self.parity[b:y]
                and old_kinds[a:z] == self.kinds[b:y])

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

    # ----- hover linking ---------------------------------------------------------------------
    def eventFilter(self, obj, event) -> bool:
        if obj is self.flow and event.type() == QEvent.Type.Resize:
            self._fit_timer.start()   # (after the splitter has laid its parts out)
        elif obj is self.edit.viewport():
            et = event.type()
            if et == QEvent.Type.MouseMove:
                self._pointer = event.position().toPoint()
                self.hover_text_at(self._pointer)
            elif et == QEvent.Type.ToolTip and self.origin is not None:
                ch = self.char_at(event.pos())
                tips = [self.token_tip(i) for i in (self.tokens_at(ch) if ch is not None
                                                    else [])]
                if tips:
                    QToolTip.showText(event.globalPos(), "\n".join(tips), obj)
                else:
                    QToolTip.hideText()
                return True
            elif et == QEvent.Type.Leave:
                self._pointer = None
                self.clear_hover()
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

    def _hover_after_scroll(self, _value: int = 0) -> None:
        """The text scrolled under the pointer (the wheel, the keys, the scroll bar): light
        the token under it now (the one lit before stayed lit, out of sight)."""
        if self._pointer is not None:
            self.hover_text_at(self._pointer)

    def char_at(self, pos: QPoint) -> int | None:
        """The character (code-point index) under a viewport point, or None."""
        doc = self.edit.document()
        cur = self.edit.cursorForPosition(pos)
        p = cur.position()
        block = cur.block()
        if pos.x() < self.edit.cursorRect(cur).left() and p > block.position():
            p -= 1
        if p >= block.position() + block.length() - 1:   # the line's end, not a character
            return None
        c = QTextCursor(doc)
        c.setPosition(p)
        left = self.edit.cursorRect(c)
        c.setPosition(p + 1)
        right = self.edit.cursorRect(c)
        x1 = right.left() if right.top() == left.top() else left.left() + left.height()
        if not (left.left() - 1 <= pos.x() <= x1 + 1
                and left.top() - 1 <= pos.y() <= left.bottom() + 1):
            return None
        return self.char_of_pos(p)

    def char_rect(self, ch: int):
        """Viewport rectangle of character ``ch`` (for tests that move the mouse)."""
        c = QTextCursor(self.edit.document())
        c.setPosition(self.pos_of_char(ch))
        left = self.edit.cursorRect(c)
        c.setPosition(self.pos_of_char(ch + 1))
        right = self.edit.cursorRect(c)
        left.setRight(max(left.left() + 1, right.left() - 1))
        return left

    def hover_text_at(self, pos: QPoint) -> list[int]:
        ch = self.char_at(pos)
        rows = [] if ch is None else self.tokens_at(ch)
        self._set_hover(rows, from_text=True)
        return rows

    def hover_char(self, ch: int) -> list[int]:
        rows = self.tokens_at(ch)
        self._set_hover(rows, from_text=True)
        return rows

    def tokens_at(self, ch: int) -> list[int]:
        """Indices of the tokens covering character ``ch`` (several for a split character)."""
        return tokens_at(self.offsets, self.starts, ch)

    def _flow_tokens(self) -> None:
        show = self.show_ws.isChecked()
        texts = self.texts
        self.flow.set_tokens(self.encoding.tokens, self.encoding.ids, self.kinds,
                             lambda t: texts(t, show), show, marks=self.news)

    def token_texts(self) -> list[str]:
        """What the id list shows for each token (for tests)."""
        return [self.flow.text_of(t) for t in self.encoding.tokens]

    def _on_flow_hovered(self, i: int) -> None:
        if i < 0:
            self.clear_hover()
        else:
            self.hover_token(i)

    def hover_token(self, row: int) -> None:
        self._set_hover([row] if 0 <= row < len(self.encoding) else [], from_text=False)

    def clear_hover(self) -> None:
        self._set_hover([], from_text=False)

    def _set_hover(self, rows: list[int], from_text: bool) -> None:
        if rows == self.hovered:
            return
        self.hovered = rows
        self.flow.set_highlight(rows, scroll=from_text)
        sels = []
        fmt = QTextCharFormat()
        fmt.setBackground(self.colors.hover)
        fmt.setForeground(QColor("white") if self.colors.text.lightness() > 128
                          else QColor("black"))
        for r in rows:
            s, e = self.offsets[r]
            sel = QTextEdit.ExtraSelection()
            cur = QTextCursor(self.edit.document())
            cur.setPosition(self.pos_of_char(s))
            cur.setPosition(self._cluster_end(self.pos_of_char(e)), QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cur
            sel.format = fmt
            sels.append(sel)
        self.edit.setExtraSelections(sels)

    def _cluster_end(self, pos: int) -> int:
        """pos, or the end of the grapheme cluster it falls inside. A token may end
        before the combining marks of its last letter (a normalizer's offsets: NFC's "é"
        from "e" + U+0301 spans the "e" alone in tokenizers too); lit up to there, the
        letter was drawn in the highlight's colours and its mark, split off, not at all."""
        doc = self.edit.document()
        block = doc.findBlock(pos)
        layout = block.layout() if block.isValid() else None
        if layout is None or layout.lineCount() == 0:
            return pos
        at = pos - block.position()
        while at < block.length() - 1 and not layout.isValidCursorPosition(at):
            at += 1
        return block.position() + at

    def hovered_text_ranges(self) -> list[tuple[int, int]]:
        """Document ranges lit up in the text by hovering (for tests)."""
        return [(s.cursor.selectionStart(), s.cursor.selectionEnd())
                for s in self.edit.extraSelections()]

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
        if self.encoding.ids:
            self._flow_tokens()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.colors = TokenColors.for_palette(self.palette())
            self.mark_color = new_color(self.palette())
            self.flow.set_colors(self.colors)
            self.flow.set_mark_color(self.mark_color)
            self.highlighter.set_colors(self.colors)
            if self.origin is not None:
                self._set_legend()
            self.fresh_blocks, self._reusable = set(), set()
            self._colour_visible()

    def sizeHint(self) -> QSize:
        return QSize(720, 520)
