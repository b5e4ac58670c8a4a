"""Tokens drawn as chips, so the cuts between tokens are visible.

:class:`ChipPainter` draws a list of chips (``[(text, partial[, emph])]``) as bordered
blocks with alternating colours. Partial-character tokens get a dashed
border and italics; the colours come from :class:`TokenColors` (light or dark palette).
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPen, QPixmap

from ..models.roles import TokenColors

PAD = 4        # inside a chip, left and right
GAP = 3        # between chips
MARGIN = 4     # around the chips in a cell
# Looked up once: attribute access on PySide6's Qt namespace is slow in paint loops.
CENTER = Qt.AlignmentFlag.AlignCenter
DASH = Qt.PenStyle.DashLine
ANTIALIAS = QPainter.RenderHint.Antialiasing
ELIDE = Qt.TextElideMode.ElideRight
LEFT_CENTER = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter


def chip_pen(colors: TokenColors, partial: bool, emph: bool = False) -> QPen:
    if partial:
        pen = QPen(colors.partial_border, 1.4, DASH)
    elif emph:
        pen = QPen(colors.hover, 2)
    else:
        pen = QPen(colors.border, 1)
    return pen


class ChipPainter:
    """Draws tokens as chips; each chip is rendered once into a cached pixmap (tables
    repaint every step, and the same tokens come back again and again)."""

    def __init__(self):
        self.colors = TokenColors.for_palette()
        self._widths: dict[tuple, int] = {}
        self._pixmaps: dict[tuple, QPixmap] = {}
        self._font_set: tuple[QFont, QFont, QFont, int] | None = None
        self._dpr: float | None = None

    def set_colors(self, colors: TokenColors) -> None:
        self.colors = colors
        self._pixmaps.clear()
        self._dpr = None

    def reset_fonts(self) -> None:
        """Call when the view's font changes (fonts are looked up once: it is slow)."""
        self._font_set = None
        self._widths.clear()
        self._pixmaps.clear()

    def fonts_for(self, font: QFont) -> tuple[QFont, QFont, QFont, int]:
        """(regular, italic, bold, chip height) for the view's font (cached)."""
        got = self._font_set
        if got is None:
            base = QFont(font)
            italic = QFont(base)
            italic.setItalic(True)
            bold = QFont(base)
            bold.setBold(True)
            got = self._font_set = (base, italic, bold, QFontMetrics(base).height() + 2)
        return got

    def _width(self, text: str, partial: bool, emph: bool, fonts) -> int:
        key = (text, partial, emph)
        w = self._widths.get(key)
        if w is None:
            font = fonts[1] if partial else fonts[2] if emph else fonts[0]
            w = QFontMetrics(font).horizontalAdvance(text) + 2 * PAD
            if len(self._widths) > 50_000:
                self._widths.clear()
            self._widths[key] = w
        return w

    def _pixmap(self, text: str, partial: bool, emph: bool, parity: int, fonts,
                dpr: float) -> QPixmap:
        key = (text, partial, emph, parity, dpr)
        pm = self._pixmaps.get(key)
        if pm is not None:
            return pm
        w, h = self._width(text, partial, emph, fonts), fonts[3]
        pm = QPixmap(max(1, round(w * dpr)), max(1, round(h * dpr)))
        pm.setDevicePixelRatio(dpr)
        pm.fill(Qt.GlobalColor.transparent)
        c = self.colors
        p = QPainter(pm)
        p.setRenderHint(ANTIALIAS)
        p.setPen(chip_pen(c, partial, emph))
        p.setBrush(c.partial if partial else (c.block_a if parity == 0 else c.block_b))
        box = QRectF(0, 0, w, h)
        p.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 3, 3)
        p.setFont(fonts[1] if partial else fonts[2] if emph else fonts[0])
        p.setPen(c.text)
        p.drawText(box, CENTER, text)
        p.end()
        if len(self._pixmaps) > 5000:
            self._pixmaps.clear()
        self._pixmaps[key] = pm
        return pm

    def chips_width(self, chips, fonts) -> int:
        """The width a cell needs to show ``chips`` whole."""
        return 2 * MARGIN + sum(self._width(c[0], c[1], len(c) > 2 and c[2], fonts) + GAP
                                for c in chips)

    def draw_chips(self, painter: QPainter, x: int, y: int, w: int, h: int, chips,
                   fonts) -> None:
        """Draw ``chips`` left to right in the cell x, y, w, h (background drawn)."""
        right = x + w - 1
        y = y + (h - fonts[3]) // 2
        x = x + MARGIN
        dpr = self._dpr
        if dpr is None:
            dpr = self._dpr = painter.device().devicePixelRatioF()
        for i, chip in enumerate(chips):
            if x > right:
                break
            emph = len(chip) > 2 and chip[2]
            cw = self._width(chip[0], chip[1], emph, fonts)
            if x + cw - 1 > right:   # the last chip that starts inside: elided to fit
                self._draw_elided(painter, x, y, right + 1 - x, chip, emph, i % 2, fonts, dpr)
                break
            painter.drawPixmap(x, y, self._pixmap(chip[0], chip[1], emph, i % 2, fonts, dpr))
            x += cw + GAP

    def _draw_elided(self, painter: QPainter, x: int, y: int, room: int, chip, emph: bool,
                     parity: int, fonts, dpr: float) -> None:
        """A chip cut short with "…" in ``room`` pixels; only "…" if no chip fits."""
        font = fonts[1] if chip[1] else fonts[2] if emph else fonts[0]
        fm = QFontMetrics(font)
        short = fm.elidedText(chip[0], ELIDE, room - 2 * PAD)
        if short and short != "…":
            painter.drawPixmap(x, y, self._pixmap(short, chip[1], emph, parity, fonts, dpr))
        elif room >= fm.horizontalAdvance("…"):
            painter.setFont(font)
            painter.setPen(self.colors.text)
            painter.drawText(QRectF(x, y, room, fonts[3]), LEFT_CENTER, "…")
