"""A wrapping flow of token chips (text on top, id below) for the encode view.

Why not a QListView in wrapping mode: it asks the delegate for every item's size hint
through a Python call (tens of microseconds each) and 10 KB of text is ~2,500 tokens.
Here the layout is one Python loop over cached widths, and only the visible chips are
painted, each from a cached pixmap.
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Callable, Iterable, Sequence, cast

from PySide6.QtCore import QEvent, QPoint, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QAbstractScrollArea, QToolTip

from ..models.encoding import PARTIAL, PLAIN, SPECIAL, TokenKind
from ..models.roles import TokenColors
from .token_chips import chip_pen

PAD, GAP, MARGIN = 5, 3, 4
ROW_SHIFT = MARGIN - GAP   # a row scrolled to the top stands GAP below the edge
# (the token kinds, re-exported for the chat view's prompt pane)
__all__ = ["TokenFlow", "PLAIN", "PARTIAL", "SPECIAL"]
CENTER = Qt.AlignmentFlag.AlignCenter
ANTIALIAS = QPainter.RenderHint.Antialiasing


def _first_difference(old: tuple, new: tuple) -> int:
    """The first index where the parallel lists of ``old`` and ``new`` differ."""
    n = min(len(old[0]), len(new[0]))
    for a, b in zip(old, new):
        if a[:n] != b[:n]:
            n = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
    return n


class TokenFlow(QAbstractScrollArea):
    hovered = Signal(int)        # token index under the mouse, or -1

    def __init__(self, parent=None):
        super().__init__(parent)
        self.viewport().setMouseTracking(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.colors = TokenColors.for_palette(self.palette())
        self.tokens: Sequence[bytes] = []
        self.ids: Sequence[int] = []
        self.text_of: Callable[[bytes], str] = lambda t: t.decode("utf-8", "replace")
        self._text_key = None
        self.kinds: Sequence[TokenKind] = []
        # chips outlined in ``mark_color`` (training on: tokens learned here, not inherited)
        self.marks: list[bool] | None = None
        self.mark_color = QColor("#17803d")
        # a fill per chip instead of the alternating blocks (the chat view: by role)
        self.fills: list[QColor | None] | None = None
        self.tip_of: Callable[[int], str] | None = None   # a chip's tooltip, if given
        self.highlight: frozenset[int] = frozenset()
        self._x: list[int] = []          # left edge of each chip
        self._w: list[int] = []
        self._row_first: list[int] = [0]  # index of the first chip of each row
        self._hover = -1
        self._widths: dict[tuple, int] = {}
        self._pixmaps: dict[tuple, QPixmap] = {}
        self._laid_out_width = -1
        self._setup_fonts()
        self.verticalScrollBar().actionTriggered.connect(self._scroll_by_rows)

    # ----- content ------------------------------------------------------------------------
    def set_tokens(self, tokens: Sequence[bytes], ids: Sequence[int], kinds: Sequence[TokenKind],
                   text_of: Callable[[bytes], str] | None = None, text_key=None,
                   marks: Sequence[bool] | None = None,
                   fills: Sequence[QColor | None] | None = None) -> None:
        """Show these tokens; ``text_of`` renders one (called only for new widths and
        painted chips); change ``text_key`` whenever ``text_of`` renders differently.
        ``marks``: one flag per token, True to outline it (in ``mark_color``);
        ``fills``: one colour per token (None: the usual block colours)."""
        old = (self.tokens, self.ids, self.kinds)
        before = self._visible_chips()
        old_marks, self.marks = self.marks, list(marks) if marks is not None else None
        old_fills, self.fills = self.fills, list(fills) if fills is not None else None
        # same places, other outlines or fills: repaint
        marks_changed = old_marks != self.marks or old_fills != self.fills
        self.tokens, self.ids, self.kinds = tokens, ids, kinds
        if text_of is not None:
            self.text_of = text_of
        same_texts = text_key == self._text_key
        if not same_texts:
            self._text_key = text_key
            self._widths.clear()
            self._pixmaps.clear()
        # A training step changes a few tokens: chips before the first change keep
        # their places (lay out again from its row), and the view repaints only if
        # what it shows changed.
        first = _first_difference(old, (tokens, ids, kinds)) if same_texts else 0
        had_highlight = bool(self.highlight)
        self.highlight = frozenset()
        self._hover = -1
        self._relayout(first)
        if had_highlight or not same_texts or marks_changed or \
                self._visible_chips() != before:
            self.viewport().update()

    def set_highlight(self, rows: Iterable[int], scroll: bool = True) -> None:
        rows = [r for r in rows if 0 <= r < len(self.tokens)]
        new = frozenset(rows)
        if new == self.highlight:
            return
        self.highlight = new
        if rows and scroll:
            self.ensure_visible(rows[0])
        self.viewport().update()

    def set_mark_color(self, color: QColor) -> None:
        self.mark_color = QColor(color)
        self._pixmaps.clear()
        self.viewport().update()

    def set_colors(self, colors: TokenColors) -> None:
        self.colors = colors
        self._pixmaps.clear()
        self.viewport().update()

    # ----- geometry -------------------------------------------------------------------------
    def _setup_fonts(self) -> None:
        base = QFont(self.font())
        self._fonts = {PLAIN: base, PARTIAL: QFont(base), SPECIAL: QFont(base)}
        self._fonts[PARTIAL].setItalic(True)
        self._fonts[SPECIAL].setBold(True)
        self._small = QFont(base)
        self._small.setPointSizeF(max(6.0, base.pointSizeF() * 0.8))
        fm, sm = QFontMetrics(base), QFontMetrics(self._small)
        self._fm = {k: QFontMetrics(f) for k, f in self._fonts.items()}
        self._sm = sm
        self._text_h = fm.height()
        self.chip_h = fm.height() + sm.height() + 6
        self.row_h = self.chip_h + GAP
        self.verticalScrollBar().setSingleStep(self.row_h)
        self._widths.clear()
        self._pixmaps.clear()
        self._laid_out_width = -1

    def _width(self, token: bytes, tid: int, kind: TokenKind) -> int:
        w = max(self._fm[kind].horizontalAdvance(self.text_of(token)),
                self._sm.horizontalAdvance(str(tid))) + 2 * PAD
        if len(self._widths) > 100_000:
            self._widths.clear()
        self._widths[(token, tid, kind)] = w
        return w

    def _relayout(self, from_token: int = 0) -> None:
        """Place the chips in rows; those before ``from_token`` are known not to have
        changed (at the same width), so rows before its row are kept."""
        avail = max(40, self.viewport().width() - MARGIN)
        if avail != self._laid_out_width or from_token <= 0 or not self._x:
            row, start = 0, 0
        else:
            # from the row before: a narrower token that began a row may now fit there
            row = max(0, min(self._row_of(min(from_token, len(self._x)) - 1),
                             len(self._row_first) - 1))
            start = self._row_first[row]
        self._laid_out_width = avail
        xs, firsts = self._x[:start], self._row_first[:row + 1]
        keys = list(zip(self.tokens[start:], self.ids[start:], self.kinds[start:]))
        get = self._widths.get
        known = list(map(get, keys))
        if None in known:
            # each new chip measured once: a page of Chinese is ~95k tokens but ~3k
            # distinct chips, and measuring every token took 0.7 s on the GUI thread
            width = self._width
            for k in {k for w, k in zip(known, keys) if w is None}:
                width(*k)
            known = list(map(get, keys))
        new_ws = cast("list[int]", known)   # every width is known now
        x = MARGIN
        append = xs.append
        for i, w in enumerate(new_ws, start):
            if x + w > avail and x > MARGIN:
                firsts.append(i)
                x = MARGIN
            append(x)
            x += w + GAP
        self._x, self._w, self._row_first = xs, self._w[:start] + new_ws, firsts
        total = len(firsts) * self.row_h + MARGIN
        sb = self.verticalScrollBar()
        sb.setPageStep(self.rows_shown() * self.row_h)
        # scrolled to the end, the top row shown is whole too: the end is rounded up to a
        # row (a little room under the last row) rather than the last row's bottom
        rest = max(0, total - self.shown_height())
        sb.setRange(0, self.row_top(-(-(rest - ROW_SHIFT) // self.row_h)) if rest else 0)

    def _visible_range(self) -> tuple[int, int, int]:
        """(first row, first chip, end chip) of what the viewport shows."""
        top = self.verticalScrollBar().value()
        h = self.shown_height()
        first_row = max(0, (top - MARGIN) // self.row_h)
        last_row = min(len(self._row_first) - 1, (top + h - 1 - MARGIN) // self.row_h)
        if first_row >= len(self._row_first) or not self.tokens:
            return first_row, 0, 0
        start = self._row_first[first_row]
        end = self._row_first[last_row + 1] if last_row + 1 < len(self._row_first) \
            else len(self.tokens)
        return first_row, start, end

    def _visible_chips(self) -> tuple:
        """What the viewport shows (compared before and after new tokens)."""
        row, a, z = self._visible_range()
        # (row breaks show in the x positions: a chip that begins a row is at MARGIN)
        return (row, a, z, self.verticalScrollBar().value(), self.tokens[a:z], self.ids[a:z],
                self.kinds[a:z], self._x[a:z], self._w[a:z])

    def _row_of(self, i: int) -> int:
        return bisect_right(self._row_first, i) - 1

    def item_rect(self, i: int) -> QRect:
        """The chip of token i, in viewport coordinates."""
        y = MARGIN + self._row_of(i) * self.row_h - self.verticalScrollBar().value()
        return QRect(self._x[i], y, self._w[i], self.chip_h)

    def ensure_visible(self, i: int) -> None:
        """Scroll token i's chip into view, by whole rows: the top row shown is whole (a
        scroll by pixels left the row above it as a strip of ids with their labels cut off,
        seen at 1024x700, where the strip holds under two rows)."""
        r = self.item_rect(i)
        sb = self.verticalScrollBar()
        if r.top() < 0:
            sb.setValue(self.row_top(self._row_of(i)))   # its row at the top
        elif r.bottom() > self.shown_height():
            least = sb.value() + r.bottom() - self.shown_height() + MARGIN
            rows = -(-(least - ROW_SHIFT) // self.row_h)   # whole rows scrolled past, enough
            sb.setValue(self.row_top(min(rows, self._row_of(i))))   # (its own top kept)

    def rows_shown(self) -> int:
        """The whole rows the viewport holds (one at least)."""
        return max(1, (self.viewport().height() - GAP) // self.row_h)

    def shown_height(self) -> int:
        """The height of the viewport that shows chips: whole rows, scrolled anywhere
        row_top puts them; a row that would cross its bottom is not drawn (the strip
        showed its bottom row cut through its labels, 1.7 rows of it at 1024x700)."""
        return self.rows_shown() * self.row_h + GAP

    def height_for_rows(self, rows: int) -> int:
        """The widget's height that shows ``rows`` whole rows and nothing more."""
        return rows * self.row_h + GAP + 2 * self.frameWidth()

    def row_top(self, row: int) -> int:
        """The scroll value that shows ``row`` first, whole, and nothing of the row above
        (its chips' last pixel row too: GAP above it, not MARGIN)."""
        return row * self.row_h + ROW_SHIFT if row > 0 else 0

    def _scroll_by_rows(self, _action: int) -> None:
        """The wheel, paging and the dragged handle land where ensure_visible puts a row
        (row_top): scrolled by pixels they left the row above cut at the top, its labels
        at 1024x700, its last pixel line at 1920x1080. (Qt calls this before the new
        position is taken, so the strip never shows the one between.)"""
        sb = self.verticalScrollBar()
        pos, now = sb.sliderPosition(), sb.value()
        if pos == now:
            return
        row = round(pos / self.row_h)
        if not sb.isSliderDown():   # the wheel, a step, a page: a row that way at least
            at = round(now / self.row_h)
            row = max(row, at + 1) if pos > now else min(row, at - 1)
        top = min(self.row_top(max(0, row)), sb.maximum())
        if top != pos:
            sb.setSliderPosition(top)

    def index_at(self, pos: QPoint) -> int:
        y = pos.y() + self.verticalScrollBar().value() - MARGIN
        if y < 0 or pos.y() >= self.shown_height() or not self.tokens:
            return -1
        row = y // self.row_h
        if row >= len(self._row_first) or y - row * self.row_h > self.chip_h:
            return -1
        first = self._row_first[row]
        end = self._row_first[row + 1] if row + 1 < len(self._row_first) else len(self.tokens)
        i = bisect_right(self._x, pos.x(), first, end) - 1
        if i >= first and pos.x() <= self._x[i] + self._w[i]:
            return i
        return -1

    # ----- events ---------------------------------------------------------------------------
    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._relayout()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        from PySide6.QtCore import QEvent
        if event.type() == QEvent.Type.FontChange:
            self._setup_fonts()
            self._relayout()
        elif event.type() == QEvent.Type.PaletteChange:
            self.set_colors(TokenColors.for_palette(self.palette()))

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        self.viewport().update()

    def mouseMoveEvent(self, event) -> None:
        i = self.index_at(event.position().toPoint())
        if i != self._hover:
            self._hover = i
            self.hovered.emit(i)
        super().mouseMoveEvent(event)

    def leaveEvent(self, event) -> None:
        if self._hover != -1:
            self._hover = -1
            self.hovered.emit(-1)
        super().leaveEvent(event)

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip and self.tip_of is not None:
            i = self.index_at(event.pos())
            tip = self.tip_of(i) if i >= 0 else ""
            if tip:
                QToolTip.showText(event.globalPos(), tip, self.viewport())
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(event)

    def sizeHint(self) -> QSize:
        return QSize(400, 4 * self.row_h)

    def _pixmap(self, i: int, dpr: float) -> QPixmap:
        token, tid, kind = self.tokens[i], self.ids[i], self.kinds[i]
        parity = i % 2 if kind == PLAIN else 0
        marked = bool(self.marks and i < len(self.marks) and self.marks[i])
        own = self.fills[i] if self.fills and i < len(self.fills) else None
        key = (token, tid, kind, parity, dpr, marked, own.rgba() if own is not None else None)
        pm = self._pixmaps.get(key)
        if pm is not None:
            return pm
        c = self.colors
        w, h = self._w[i], self.chip_h
        pm = QPixmap(max(1, round(w * dpr)), max(1, round(h * dpr)))
        pm.setDevicePixelRatio(dpr)
        pm.fill(Qt.GlobalColor.transparent)
        p = QPainter(pm)
        p.setRenderHint(ANTIALIAS)
        fill = own if own is not None else c.partial if kind == PARTIAL else \
            c.special if kind == SPECIAL else (c.block_a if parity == 0 else c.block_b)
        p.setPen(chip_pen(c, kind == PARTIAL))
        p.setBrush(fill)
        p.drawRoundedRect(QRectF(0.5, 0.5, w - 1, h - 1), 4, 4)
        if marked:   # a second, thick outline inside the chip: readable on both themes
            p.setPen(QPen(self.mark_color, 2.2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(QRectF(1.6, 1.6, w - 3.2, h - 3.2), 3.5, 3.5)
        p.setPen(c.text)
        p.setFont(self._fonts[kind])
        p.drawText(QRectF(0, 2, w, self._text_h), CENTER, self.text_of(token))
        p.setFont(self._small)
        # the id in the text colour, a little softer: the disabled grey was too faint on
        # the dark theme's chips
        ids = QColor(c.text)
        ids.setAlpha(170)
        p.setPen(ids)
        p.drawText(QRectF(0, 2 + self._text_h, w, h - self._text_h - 3), CENTER, str(tid))
        p.end()
        if len(self._pixmaps) > 20_000:
            self._pixmaps.clear()
        self._pixmaps[key] = pm
        return pm

    def paintEvent(self, event) -> None:
        if not self.tokens:
            return
        first_row, start, end = self._visible_range()
        if start >= end:
            return
        p = QPainter(self.viewport())
        p.setClipRect(0, 0, self.viewport().width(), self.shown_height())   # whole rows
        dpr = self.viewport().devicePixelRatioF()
        top = self.verticalScrollBar().value()
        row = first_row
        next_first = self._row_first[row + 1] if row + 1 < len(self._row_first) else end
        for i in range(start, end):
            while i >= next_first:
                row += 1
                next_first = self._row_first[row + 1] if row + 1 < len(self._row_first) \
                    else end
            y = MARGIN + row * self.row_h - top
            p.drawPixmap(self._x[i], y, self._pixmap(i, dpr))
        if self.highlight:
            p.setRenderHint(ANTIALIAS)
            p.setPen(QPen(self.colors.hover, 2.5))
            p.setBrush(Qt.BrushStyle.NoBrush)
            for i in self.highlight:
                if start <= i < end:
                    p.drawRoundedRect(QRectF(self.item_rect(i)).adjusted(1, 1, -1, -1), 4, 4)
        p.end()
