"""The text of one side of the compare view, coloured token by token.

:class:`TokenHighlighter` (the encode view's colouring, defined here so both views use
it) paints a :class:`~bpe_gui.gui.models.encoding.TokenSpans`; :class:`TokenTextView`
colours its text with it (blocks alternating token by token), draws a bar at each cut only this side
makes (``cut_color``) and names the token under the mouse in a tooltip. It shows at most
``DISPLAY_LIMIT`` characters; the compare table counts the whole text.
"""
from __future__ import annotations

from bisect import bisect_right

from PySide6.QtCore import QEvent, QPointF, Signal
from PySide6.QtGui import (QColor, QFont, QPainter, QPalette, QPen, QSyntaxHighlighter,
                           QTextCharFormat, QTextCursor, QTextOption)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QToolTip, QWidget

from ...engine import analysis
from ...engine.display import hex_bytes, readable
from ...engine.tokenizers import Encoding
from ..models.encoding import PARTIAL, SPECIAL, TokenSpans, kind_of, utf16_positions
from ..models.roles import TokenColors, is_dark

DISPLAY_LIMIT = 50_000        # characters coloured per side; the table uses the whole text


def cut_color(palette: QPalette) -> QColor:
    return QColor("#ff5c8a") if is_dark(palette) else QColor("#c2185b")


class TokenHighlighter(QSyntaxHighlighter):
    """Paints each token's character span in the format its :class:`TokenSpans` gives
    it (models/encoding.py: alternating blocks by groups of tokens that share a
    character, parts of a character with a dotted underline, special tokens bold, new
    tokens underlined in the mark colour). The view sets ``spans`` (``set_spans``); the
    lines coloured since are in ``coloured`` (a view may empty it to know which lines
    still show older spans)."""

    def __init__(self, document, colors: TokenColors, mark: QColor | None = None):
        super().__init__(document)
        self.spans = TokenSpans()
        self.coloured: set[int] = set()
        self.formats: tuple[QTextCharFormat, ...] = ()
        self.set_colors(colors, mark)

    def set_spans(self, spans: TokenSpans) -> None:
        """Colour with ``spans`` from now on (the lines are coloured again as asked)."""
        self.spans = spans

    def set_colors(self, c: TokenColors, mark: QColor | None = None) -> None:
        a, b, pa, pb, s = (QTextCharFormat() for _ in range(5))
        for f, bg in ((a, c.block_a), (b, c.block_b), (pa, c.block_a), (pb, c.block_b),
                      (s, c.special)):
            f.setBackground(bg)
            f.setForeground(c.text)
        for f in (pa, pb):
            # dotted, not wavy: a wavy red line reads as a spelling error (legend below)
            f.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
            f.setUnderlineColor(c.partial_border)
        s.setFontWeight(QFont.Weight.Bold)
        # tokens marked new: a solid underline in the mark colour (dotted for part of a
        # character)
        news = []
        for f in (a, b, pa, pb):
            n = QTextCharFormat(f)
            if f not in (pa, pb):
                n.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
            n.setUnderlineColor(mark if mark is not None else QColor("#17803d"))
            news.append(n)
        self.formats = (a, b, pa, pb, s, *news)   # (format_index's order)

    def highlightBlock(self, text: str) -> None:
        spans = self.spans
        if not spans.offsets:
            return
        block = self.currentBlock()
        self.coloured.add(block.blockNumber())
        pos = block.position()
        formats, set_format = self.formats, self.setFormat
        # block.length() counts UTF-16 units, as positions do; len(text) counts code
        # points, one short per emoji or flag half (which lost the colour at line ends)
        for ps, pe, fmt in spans.runs(pos, pos + block.length() - 1):
            set_format(ps - pos, pe - ps, formats[fmt])


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
        self.spans = TokenSpans()   # what the highlighter colours (alternating by index)
        self.enc = Encoding([], [], [], [])
        self.text = ""
        self.marks: list[analysis.Cut] = []
        self._hover = -1
        self.highlighter = TokenHighlighter(self.document(), self.colors)
        self.viewport().setMouseTracking(True)
        self.set_show_whitespace(True)

    # ----- data -------------------------------------------------------------------------------
    def pos_of_char(self, i: int) -> int:
        return self.spans.pos_of_char(i)

    def char_of_pos(self, p: int) -> int:
        return self.spans.char_of_pos(p)

    def set_encoding(self, text: str, enc: Encoding | None, marks=()) -> None:
        text = text[:DISPLAY_LIMIT]
        enc = enc or Encoding([], [], [], [])
        keep = [i for i, (s, _) in enumerate(enc.offsets) if s < len(text)]
        if len(keep) < len(enc):
            enc = Encoding([enc.ids[i] for i in keep], [enc.tokens[i] for i in keep],
                           [enc.offsets[i] for i in keep],
                           [enc.special[i] for i in keep] if enc.special else [])
        self.enc = enc
        sp = enc.special
        u16 = self.spans.u16 if text == self.text else utf16_positions(text)
        self.spans = TokenSpans(enc.offsets, [kind_of(t, bool(sp and sp[i]))
                                              for i, t in enumerate(enc.tokens)], u16=u16)
        self.highlighter.set_spans(self.spans)
        self.marks = sorted(m for m in marks if m[0] < len(text))
        self._hover = -1
        if text != self.text:
            self.text = text
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
        shown = QTextOption.Flag.ShowTabsAndSpaces
        flags = flags | shown if on else flags & ~shown
        opt.setFlags(flags)
        doc.setDefaultTextOption(opt)

    # ----- cut markers ------------------------------------------------------------------------
    def _cursor_rect(self, pos: int):
        c = QTextCursor(self.document())
        c.setPosition(min(pos, self.document().characterCount() - 1))
        return self.cursorRect(c)

    def mark_x(self, char: int, k: int = 0):
        """Viewport (x, top, bottom) of a cut: top and bottom of its line, not of the
        cursor (a fallback font's taller cursor, for Chinese, reached into the lines
        above and below)."""
        pos = self.pos_of_char(char)
        r = self._cursor_rect(pos)
        x = float(r.left())
        if k and char < len(self.text):
            r2 = self._cursor_rect(self.pos_of_char(char + 1))
            if r2.top() == r.top():
                x += (r2.left() - r.left()) * k / analysis.utf8_len(self.text[char])
        top, bottom = self._line_span(pos, r)
        return x, top, bottom

    def mark_line(self, char: int, k: int = 0) -> tuple[float, float, float]:
        """The mark as drawn: (x, y0, y1), a pixel inside its line at each end."""
        x, top, bottom = self.mark_x(char, k)
        return x, top + 1, bottom - 1

    def _line_span(self, pos: int, cursor_rect) -> tuple[float, float]:
        block = self.document().findBlock(pos)
        line = block.layout().lineForTextPosition(pos - block.position()) \
            if block.isValid() and block.layout() is not None else None
        if line is None or not line.isValid():
            return float(cursor_rect.top()), float(cursor_rect.bottom())
        y = self.blockBoundingGeometry(block).translated(self.contentOffset()).top() + line.y()
        return y, y + line.height()

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
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setPen(QPen(cut_color(self.palette()), 1.8))
        for c, k in self.marks[lo:hi]:
            x, y0, y1 = self.mark_line(c, k)
            p.drawLine(QPointF(x, y0), QPointF(x, y1))
        p.end()

    # ----- hover ------------------------------------------------------------------------------
    def token_at(self, pos) -> int:
        """Index of the token under a viewport point, or -1."""
        cur = self.cursorForPosition(pos)
        p = cur.position()
        block = cur.block()
        if pos.x() < self.cursorRect(cur).left() and p > block.position():
            p -= 1
        spans = self.spans
        if p >= block.position() + block.length() - 1 or not spans.offsets:
            return -1
        r = self._cursor_rect(p)
        if not (r.top() - 2 <= pos.y() <= r.bottom() + 2):
            return -1
        ch = self.char_of_pos(p)
        i = bisect_right(spans.starts, ch) - 1
        while i >= 0 and spans.offsets[i][1] <= ch:
            if spans.offsets[i][0] < ch - 256:
                return -1
            i -= 1
        return i

    def describe_token(self, i: int) -> str:
        tok = self.enc.tokens[i]
        kind = {PARTIAL: " (part of a character)", SPECIAL: " (special token)"}.get(
            self.spans.kinds[i], "")
        return (f"token {i + 1:,} of {len(self.enc):,}{kind}\nid {self.enc.ids[i]}: "
                f"{readable(tok)}\n{len(tok)} bytes {hex_bytes(tok)}")

    def viewportEvent(self, event) -> bool:
        et = event.type()
        if et == QEvent.Type.MouseMove:
            i = self.token_at(event.position().toPoint())
            if i != self._hover:
                self._set_hover(i)
            if i >= 0:
                QToolTip.showText(event.globalPosition().toPoint(), self.describe_token(i),
                                  self.viewport())
            else:
                QToolTip.hideText()
        elif et == QEvent.Type.Leave:
            self._set_hover(-1)
        return super().viewportEvent(event)

    def _set_hover(self, i: int) -> None:
        self._hover = i
        self.hovered.emit(i)
        sels = []
        if i >= 0:
            sel = QTextEdit.ExtraSelection()
            cur = QTextCursor(self.document())
            s, e = self.spans.offsets[i]
            cur.setPosition(self.pos_of_char(s))
            cur.setPosition(self.pos_of_char(e), QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cur
            sel.format.setBackground(self.colors.hover)
            sel.format.setForeground(QColor("white") if is_dark(self.palette()) else QColor("black"))
            sels.append(sel)
        self.setExtraSelections(sels)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.colors = TokenColors.for_palette(self.palette())
            self.highlighter.set_colors(self.colors)
            self.highlighter.rehighlight()
