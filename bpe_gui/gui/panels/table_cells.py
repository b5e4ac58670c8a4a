"""A delegate that paints a whole table row by row with one model call per cell.

The merge panel's three tables repaint completely at every training step. Qt's default
delegate asks a model for about eight roles per cell (each one a Python call through
the bindings) and lays the text out with a fresh QTextLayout at every paint; for these
tables that was most of the time a step took in the window. :class:`CellDelegate` asks
the model once, ``model.cell(row, column)`` -> :class:`~..models.roles.Cell`, and draws
text from a cache of prepared ``QStaticText`` (the same few hundred strings come back
at every step), and token chips as :class:`ChipDelegate` does.

What it draws matches the default delegate for these plain tables: the selection or
the cell's background, then the text left- or right-aligned with a 3-pixel margin,
elided with "…" when it does not fit, bold when the cell says so, greyed in a disabled
view.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPalette, QStaticText
from PySide6.QtWidgets import QStyle

from .token_chips import ChipDelegate

TEXT_MARGIN = 3 + 1   # QCommonStyle's item text margin (focus frame + 1), each side
_SELECTED = QStyle.StateFlag.State_Selected.value
_ENABLED = QStyle.StateFlag.State_Enabled.value
_PLAIN = Qt.TextFormat.PlainText
_ELIDE = Qt.TextElideMode.ElideRight
_CACHE_LIMIT = 20_000


class CellDelegate(ChipDelegate):
    """Paints every cell of a view whose model has ``cell(row, col)``."""

    def __init__(self, model, parent=None):
        super().__init__(parent)
        self.model = model
        self._texts: dict[tuple[str, bool, int], tuple[QStaticText, float, float]] = {}
        self._pal: tuple | None = None

    def set_colors(self, colors) -> None:
        super().set_colors(colors)
        self._pal = None

    def reset_fonts(self) -> None:
        super().reset_fonts()
        self._texts.clear()

    def _palette(self, option) -> tuple:
        pal = self._pal
        if pal is None:
            p = option.palette
            pal = self._pal = (p.color(QPalette.Active, QPalette.Text),
                               p.color(QPalette.Disabled, QPalette.Text),
                               p.brush(QPalette.Active, QPalette.Highlight),
                               p.color(QPalette.Active, QPalette.HighlightedText))
        return pal

    def _static(self, text: str, bold: bool, fonts) -> tuple[QStaticText, float, float]:
        """The prepared text, its width and its height."""
        key = (text, bold, -1)
        got = self._texts.get(key)
        if got is None:
            got = self._texts[key] = self._prepare(text, fonts[2] if bold else fonts[0])
        return got

    def _elided(self, text: str, bold: bool, avail: int, fonts) -> tuple[QStaticText, float, float]:
        """The text cut to ``avail`` pixels with "…", prepared."""
        key = (text, bold, avail)
        got = self._texts.get(key)
        if got is None:
            font = fonts[2] if bold else fonts[0]
            shown = QFontMetrics(font).elidedText(text, _ELIDE, max(0, avail))
            got = self._texts[key] = self._prepare(shown, font)
        return got

    def _prepare(self, text: str, font) -> tuple[QStaticText, float, float]:
        if len(self._texts) > _CACHE_LIMIT:
            self._texts.clear()
        st = QStaticText(text)
        st.setTextFormat(_PLAIN)
        st.prepare(font=font)
        size = st.size()
        return st, size.width(), size.height()

    def paint(self, painter: QPainter, option, index) -> None:
        content, right, bold, fg, bg = self.model.cell(index.row(), index.column())
        rect = option.rect
        state = option.state.value
        text_color, disabled, highlight, highlighted_text = self._palette(option)
        selected = state & _SELECTED
        if selected:
            painter.fillRect(rect, highlight)
        elif bg is not None:
            painter.fillRect(rect, bg)
        if not content:
            return
        fonts = self._fonts(option)
        if not isinstance(content, str):
            self.draw_chips(painter, rect, content, fonts)
            return
        avail = rect.width() - 2 * TEXT_MARGIN
        st, w, h = self._static(content, bold, fonts)
        if w > avail:
            st, w, h = self._elided(content, bold, avail, fonts)
        x = rect.right() + 1 - TEXT_MARGIN - w if right else rect.left() + TEXT_MARGIN
        y = rect.top() + (rect.height() - h) / 2
        painter.setFont(fonts[2] if bold else fonts[0])
        painter.setPen(highlighted_text if selected else disabled if not state & _ENABLED
                       else fg if fg is not None else text_color)
        painter.drawStaticText(x, y, st)

    def sizeHint(self, option, index):
        content = self.model.cell(index.row(), index.column()).content
        if isinstance(content, str):
            return super(ChipDelegate, self).sizeHint(option, index)
        return super().sizeHint(option, index)
