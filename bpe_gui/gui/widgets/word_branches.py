"""Pre-tokenization view: colour each word of a text edit by the pattern rule that took it.

:class:`WordColouring` attaches to any ``QPlainTextEdit`` (the encode view's text, the
corpus editor). While on, a :class:`BranchHighlighter` replaces the edit's own
highlighter (handed over as ``displaced`` and put back when off); hovering a word shows
which rule took it and why it ended there; a click on a word (in either mode) emits
``wordClicked`` with a :class:`~..models.edit_words.ClickedWord`.

Only the lines on screen are coloured, from the words found around them (see
models/edit_words.py), so a 1 MB corpus costs no more than a page.
"""
from __future__ import annotations

from bisect import bisect_right
from contextlib import contextmanager
from html import escape
from typing import Callable

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QSyntaxHighlighter, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QCheckBox, QPlainTextEdit, QToolTip

from ...engine.errors import BPEError
from ...engine.text import Pretokenizer
from ...engine.tokenizers import matcher_for, show
from ..models.edit_words import ClickedWord, EditWords  # noqa: F401  (ClickedWord: re-exported)
from ..models.roles import TokenColors
from .branch_legend import BranchColors, BranchLegend
from .exact_text import exact_text

CLICK_SLOP = 4           # pixels a click may move and still count as a click


class BranchHighlighter(QSyntaxHighlighter):
    """Paints the words of the lines on screen in their rule's colour."""

    def __init__(self, words: "WordColouring"):
        super().__init__(words)   # a QObject parent: no document until switched on
        self.words = words

    def highlightBlock(self, _text: str) -> None:
        words = self.words
        w = words.found
        block = self.currentBlock()
        pos = block.position()
        if w.text is None:
            words.ensure_visible()
        c0, c1 = w.char_of_pos(pos), w.char_of_pos(pos + block.length() - 1)
        if not w.covers(c0, c1):
            return   # off screen: coloured when it scrolls into view
        w.fresh.add(block.blockNumber())
        spans = w.spans
        i = max(0, bisect_right(w.starts, c0) - 1)
        while i < len(spans) and spans[i][0] < c1:
            s, e, _k = spans[i]
            if e > c0:
                ps, pe = w.pos_of_char(max(s, c0)), w.pos_of_char(min(e, c1))
                self.setFormat(ps - pos, pe - ps, words.format_of(i))
            i += 1


class WordColouring(QObject):
    """The words mode of one text edit: toggle, legend, colours, hover text, clicks."""

    wordClicked = Signal(object)      # ClickedWord
    # the last clicked word as a new pattern cuts it (a new tokenizer): its span changed
    wordRecut = Signal(object)        # ClickedWord
    # the text changed at the last clicked word or before it: it may be another word now
    wordGone = Signal()
    modeChanged = Signal(bool)

    def __init__(self, edit: QPlainTextEdit, source: Callable[[], Pretokenizer | None],
                 displaced: QSyntaxHighlighter | None = None):
        super().__init__(edit)
        # the words around what the edit shows (the model, no Qt)
        self.found = EditWords(self._read_text, self._pattern_failed)
        self.edit, self.source, self.displaced = edit, source, displaced
        self.enabled = False
        self.toggle = QCheckBox("Words")
        self.toggle.setToolTip("Colour each word by the rule of the pre-tokenizer pattern "
                               "that cut it; hover a word to see why it ended there")
        self.legend = BranchLegend()
        self.legend.setVisible(False)
        self.highlighter = BranchHighlighter(self)
        self._key: tuple | None = ()           # () : never looked; None: no pattern
        self._press: QPoint | None = None
        self._last: tuple[int, ClickedWord] | None = None   # (character, word) last clicked
        self._set_palette()
        self._timer = QTimer(self, singleShot=True, interval=0)
        self._timer.timeout.connect(self.colour_visible)
        edit.viewport().installEventFilter(self)
        edit.installEventFilter(self)
        edit.document().contentsChange.connect(self._on_change)
        edit.verticalScrollBar().valueChanged.connect(lambda _v: self._timer.start())
        edit.updateRequest.connect(lambda *_: self.enabled and self._timer.start())
        self.toggle.toggled.connect(self.set_enabled)

    # ----- mode and source --------------------------------------------------------------
    def set_enabled(self, on: bool) -> None:
        if on == self.enabled:
            return
        self.enabled = on
        self.toggle.blockSignals(True)
        self.toggle.setChecked(on)
        self.toggle.blockSignals(False)
        self.legend.setVisible(on)
        doc = self.edit.document()
        if on:
            self.refresh()
            self.found.text, self.found.fresh = None, set()
            with _quiet(doc):
                if self.displaced is not None:
                    self.displaced.setDocument(None)
                self.highlighter.setDocument(doc)
                # now, not from the pass setDocument leaves pending (which, unlike this
                # one, would tell the edit's owner that the text changed)
                self.highlighter.rehighlight()
        else:
            with _quiet(doc):
                self.highlighter.setDocument(None)
            if self.displaced is not None:
                self.displaced.setDocument(doc)
        self.modeChanged.emit(on)

    def refresh(self) -> None:
        """The tokenizer or settings may have changed: pick up a new pattern."""
        try:
            pre = self.source()
        except BPEError as e:
            pre, self.found.error = None, str(e)
        own = None if pre is None else pre.matcher   # an imported pre-tokenizer's pieces
        key = None if pre is None else (pre.pattern, pre.special_tokens, pre.timeout, id(own))
        if key == self._key:
            return
        self._key, self.found.pre = key, pre
        matcher = None if pre is None else own or matcher_for(pre.pattern, pre.timeout)
        self.found.matcher = matcher
        if matcher is not None and pre is not None:
            self.found.error = ""
            self.legend.set_branches(matcher.branches, pre.preset,
                                     getattr(matcher, "title", None))
        else:
            self.legend.set_branches([], None)
            self.legend.title.setText(self.found.error or "No tokenizer yet: train (Step) "
                                      "or import one to see its pattern's rules.")
        self._invalidate()
        self._recut()

    def _recut(self) -> None:
        """Tell whoever plays back the last clicked word that the new pattern cuts it
        otherwise (" world" under one tokenizer is "world" under another), so it never
        shows a word this view no longer has."""
        if self._last is None or self.found.matcher is None:
            return
        ch, last = self._last
        word = self.found.word_at(ch)
        if word is not None and (word.start, word.end, word.text) != \
                (last.start, last.end, last.text):
            self._last = ch, word
            self.wordRecut.emit(word)

    def _invalidate(self) -> None:
        self.found.text, self.found.fresh = None, set()
        if self.enabled:
            self._timer.start()

    def _on_change(self, pos: int, removed: int, added: int) -> None:
        if removed or added:      # not a re-colouring
            # the clicked character may now be another word's (a change after the word
            # leaves it and its place as they were)
            if self._last is not None and pos <= self.found.pos_of_char(self._last[1].end):
                self._last = None
                self.wordGone.emit()
            self._invalidate()

    # ----- words (models/edit_words.py finds them) --------------------------------------------
    def _read_text(self) -> str:
        return exact_text(self.edit.document())   # as the encode view reads it

    def _pattern_failed(self, message: str) -> None:
        self.legend.title.setText(message)

    def ensure_visible(self) -> None:
        blocks = self._visible_blocks()
        if blocks:
            if self.found.text is None:
                self.found.read()
            self.found.ensure(self.found.char_of_pos(blocks[0].position()),
                              self._char_after(blocks[-1]))

    def _char_after(self, block) -> int:
        if self.found.text is None:
            self.found.read()
        return self.found.char_of_pos(block.position() + block.length() - 1)

    # ----- colours --------------------------------------------------------------------------
    def _set_palette(self) -> None:
        pal = self.edit.palette()
        self.colors = BranchColors(pal)
        self._special = TokenColors.for_palette(pal).special
        self._formats: dict[tuple[int, int], QTextCharFormat] = {}

    def format_of(self, i: int) -> QTextCharFormat:
        key = (self.found.spans[i][2], self.found.shades[i])
        fmt = self._formats.get(key)
        if fmt is None:
            fmt = QTextCharFormat()
            fmt.setForeground(self.colors.text)
            if key[0] < 0:
                fmt.setBackground(self._special)
                fmt.setFontWeight(QFont.Weight.Bold)
            else:
                fmt.setBackground(self.colors.of(*key))
            self._formats[key] = fmt
        return fmt

    def _visible_blocks(self) -> list:
        edit = self.edit
        block, out = edit.firstVisibleBlock(), []
        height, y = edit.viewport().height(), edit.contentOffset().y()
        while block.isValid() and edit.blockBoundingGeometry(block).top() + y <= height:
            out.append(block)
            block = block.next()
        return out

    def colour_visible(self) -> None:
        """Colour the lines on screen that are not coloured with the current words."""
        if not self.enabled or self.found.matcher is None:
            return
        blocks = self._visible_blocks()
        if not blocks:
            return
        if self.found.text is None:
            self.found.read()
        self.found.ensure(self.found.char_of_pos(blocks[0].position()),
                          self._char_after(blocks[-1]))
        with _quiet(self.edit.document()):
            for block in blocks:
                if block.blockNumber() not in self.found.fresh:
                    self.highlighter.rehighlightBlock(block)

    # ----- mouse ----------------------------------------------------------------------------
    def char_at(self, pos: QPoint) -> int | None:
        """The character under a viewport point, or None (past a line's end, say)."""
        edit = self.edit
        cur = edit.cursorForPosition(pos)
        p, block = cur.position(), cur.block()
        if pos.x() < edit.cursorRect(cur).left() and p > block.position():
            p -= 1
        if p >= block.position() + block.length() - 1:
            return None
        c = QTextCursor(edit.document())
        c.setPosition(p)
        left = edit.cursorRect(c)
        c.setPosition(p + 1)
        right = edit.cursorRect(c)
        x1 = right.left() if right.top() == left.top() else left.left() + left.height()
        if not (left.left() - 1 <= pos.x() <= x1 + 1 and left.top() - 1 <= pos.y() <= left.bottom() + 1):
            return None
        if self.found.text is None:
            self.found.read()
        return self.found.char_of_pos(p)

    def tooltip_at(self, pos: QPoint) -> str:
        """What hovering a viewport point says ('' off any word)."""
        ch = self.char_at(pos)
        w = None if ch is None else self.found.word_at(ch)
        matcher = self.found.matcher
        if w is None or matcher is None:   # (a word was found with the matcher)
            return ""
        if w.branch < 0:
            about = "Never split or merged."
        else:
            about = escape(matcher.branches[w.branch].about)
        return (f"<table width=360><tr><td><b>“{escape(show(w.text, 40))}”</b>: "
                f"{escape(w.label)}<br>{about}<br><i>{escape(w.reason)}</i><br>"
                "Click it to play back its merges.</td></tr></table>")

    def eventFilter(self, obj, event) -> bool:
        et = event.type()
        if obj is self.edit:
            if et == QEvent.Type.PaletteChange:
                self._set_palette()
                self._invalidate()
            return False
        if et == QEvent.Type.ToolTip and self.enabled:
            text = self.tooltip_at(event.pos())
            if text:
                QToolTip.showText(event.globalPos(), text, self.edit.viewport())
            else:
                QToolTip.hideText()
            return True
        if et == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
            self._press = event.position().toPoint()
        elif et == QEvent.Type.MouseButtonRelease and self._press is not None:
            pos, press, self._press = event.position().toPoint(), self._press, None
            moved = (pos - press).manhattanLength()
            if moved <= CLICK_SLOP and not self.edit.textCursor().hasSelection():
                self._clicked(pos)
        return False

    def _clicked(self, pos: QPoint) -> None:
        if self.found.matcher is None:
            self.refresh()
        ch = self.char_at(pos)
        word = None if ch is None else self.found.word_at(ch)
        if word is not None and ch is not None:
            self._last = ch, word
            self.wordClicked.emit(word)


@contextmanager
def _quiet(doc):
    """Re-colouring without the document's change signals: QPlainTextEdit would report
    a format change as ``textChanged``, and the corpus editor would call it an edit."""
    was = doc.blockSignals(True)
    try:
        yield
    finally:
        doc.blockSignals(was)
