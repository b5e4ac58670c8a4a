"""A text box and its token chips lit together: hover a character, its tokens light up
in the text and in the chips; hover a chip, its characters light up in the text.

:class:`TextLinks` is given the text box, the chip flow and where the tokens lie (a
callable returning the current :class:`~bpe_gui.gui.models.encoding.TokenSpans`); it
watches the box's viewport (mouse moves, leaving, scrolling under a still pointer) and
the flow's ``hovered`` signal. A tooltip per token (``tip_of``) is shown over the text
when given.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject, QPoint
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QToolTip

from ..models.encoding import TokenSpans
from ..models.roles import TokenColors
from .token_flow import TokenFlow


class TextLinks(QObject):
    """The hover link between ``edit`` and ``flow`` (see the module docstring)."""

    def __init__(self, edit: QPlainTextEdit, flow: TokenFlow,
                 spans: Callable[[], TokenSpans], colors: Callable[[], TokenColors]):
        super().__init__(edit)
        self.edit, self.flow, self._spans, self._colors = edit, flow, spans, colors
        self.hovered: list[int] = []
        self.tip_of: Callable[[int], str] | None = None   # a tooltip over the text, if any
        # the pointer's place over the text (None: not over it): the wheel scrolls the
        # text under a still pointer, and the token lit must follow it
        self._pointer: QPoint | None = None
        edit.viewport().setMouseTracking(True)
        edit.viewport().installEventFilter(self)
        edit.verticalScrollBar().valueChanged.connect(self._after_scroll)
        edit.horizontalScrollBar().valueChanged.connect(self._after_scroll)
        flow.hovered.connect(lambda i: self.clear() if i < 0 else self.hover_token(i))

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        et = event.type()
        if et == QEvent.Type.MouseMove:
            self._pointer = event.position().toPoint()   # type: ignore[attr-defined]
            self.hover_text_at(self._pointer)
        elif et == QEvent.Type.ToolTip and self.tip_of is not None:
            ch = self.char_at(event.pos())   # type: ignore[attr-defined]
            tips = [self.tip_of(i) for i in (self._spans().tokens_at(ch)
                                             if ch is not None else [])]
            if tips:
                QToolTip.showText(event.globalPos(), "\n".join(tips),   # type: ignore[attr-defined]
                                  self.edit.viewport())
            else:
                QToolTip.hideText()
            return True
        elif et == QEvent.Type.Leave:
            self._pointer = None
            self.clear()
        return False

    def _after_scroll(self, _value: int = 0) -> None:
        """The text scrolled under the pointer (the wheel, the keys, the scroll bar):
        light the token under it now (the one lit before stayed lit, out of sight)."""
        if self._pointer is not None:
            self.hover_text_at(self._pointer)

    # ----- where --------------------------------------------------------------------------
    def char_at(self, pos: QPoint) -> int | None:
        """The character (code-point index) under a viewport point, or None."""
        edit = self.edit
        doc = edit.document()
        cur = edit.cursorForPosition(pos)
        p = cur.position()
        block = cur.block()
        if pos.x() < edit.cursorRect(cur).left() and p > block.position():
            p -= 1
        if p >= block.position() + block.length() - 1:   # the line's end, not a character
            return None
        c = QTextCursor(doc)
        c.setPosition(p)
        left = edit.cursorRect(c)
        c.setPosition(p + 1)
        right = edit.cursorRect(c)
        x1 = right.left() if right.top() == left.top() else left.left() + left.height()
        if not (left.left() - 1 <= pos.x() <= x1 + 1
                and left.top() - 1 <= pos.y() <= left.bottom() + 1):
            return None
        return self._spans().char_of_pos(p)

    def char_rect(self, ch: int):
        """Viewport rectangle of character ``ch`` (for tests that move the mouse)."""
        spans = self._spans()
        c = QTextCursor(self.edit.document())
        c.setPosition(spans.pos_of_char(ch))
        left = self.edit.cursorRect(c)
        c.setPosition(spans.pos_of_char(ch + 1))
        right = self.edit.cursorRect(c)
        left.setRight(max(left.left() + 1, right.left() - 1))
        return left

    # ----- lighting -----------------------------------------------------------------------
    def hover_text_at(self, pos: QPoint) -> list[int]:
        ch = self.char_at(pos)
        return self.hover_char(ch) if ch is not None else self._set([], from_text=True)

    def hover_char(self, ch: int) -> list[int]:
        return self._set(self._spans().tokens_at(ch), from_text=True)

    def hover_token(self, row: int) -> None:
        self._set([row] if 0 <= row < len(self._spans()) else [], from_text=False)

    def clear(self) -> None:
        self._set([], from_text=False)

    def forget(self) -> None:
        """A new encoding: nothing lit."""
        self.hovered = []
        if self.edit.extraSelections():
            self.edit.setExtraSelections([])

    def _set(self, rows: list[int], from_text: bool) -> list[int]:
        if rows == self.hovered:
            return rows
        self.hovered = rows
        self.flow.set_highlight(rows, scroll=from_text)
        colors, spans = self._colors(), self._spans()
        fmt = QTextCharFormat()
        fmt.setBackground(colors.hover)
        fmt.setForeground(QColor("white") if colors.text.lightness() > 128
                          else QColor("black"))
        sels = []
        for r in rows:
            s, e = spans.offsets[r]
            sel = QTextEdit.ExtraSelection()
            cur = QTextCursor(self.edit.document())
            cur.setPosition(spans.pos_of_char(s))
            cur.setPosition(self._cluster_end(spans.pos_of_char(e)),
                            QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cur
            sel.format = fmt
            sels.append(sel)
        self.edit.setExtraSelections(sels)
        return rows

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

    def lit_ranges(self) -> list[tuple[int, int]]:
        """Document ranges lit up in the text by hovering (for tests)."""
        return [(s.cursor.selectionStart(), s.cursor.selectionEnd())
                for s in self.edit.extraSelections()]
