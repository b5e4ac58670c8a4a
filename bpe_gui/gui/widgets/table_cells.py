"""Tables that paint all their visible cells in one Python call.

The merge panel's three tables repaint completely at every training step. A
QTableView with a Python model asks it for about eight roles per cell (each one a call
through the bindings), lays each text out with a fresh QTextLayout, and, with a Python
delegate, converts a style option per cell; for these tables that was most of the time
a step took in the window. :class:`CellTableView` instead paints the rows in view itself:
one ``model.cell(row, column)`` -> :class:`~..models.roles.Cell` per cell, text drawn
from a cache of prepared ``QStaticText`` (the same few hundred strings come back at
every step), token chips from cached pixmaps (:class:`ChipPainter`).

What it draws matches QTableView with the default delegate for these plain tables
(no spans, editors, icons or moved sections): the grid, the selection or the cell's
background, the text left- or right-aligned with a 4-pixel margin, elided with "…" when
it does not fit, bold when the cell says so, greyed in a disabled view. Everything
else (header, scrolling, selection, keyboard, tooltips, sorting) is QTableView's own.
"""
from __future__ import annotations

from typing import Protocol, Sequence, cast

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPalette, QStaticText
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

from ..models.roles import Cell
from .fit_columns import FittedTableView
from .token_chips import ChipPainter

TEXT_MARGIN = 3 + 1   # QCommonStyle's item text margin (focus frame + 1), each side
_PLAIN = Qt.TextFormat.PlainText
_ELIDE = Qt.TextElideMode.ElideRight
_GRID_HINT = QStyle.StyleHint.SH_Table_GridLineColor
_CACHE_LIMIT = 20_000


class CellPainter(ChipPainter):
    """Draws the cells of a model that has ``cell(row, col)``: text from prepared
    ``QStaticText`` (cached per text), chips as :class:`ChipPainter` does."""

    def __init__(self):
        super().__init__()
        self._texts: dict[tuple[str, bool, int], tuple[QStaticText, float, float]] = {}
        self._pal: tuple | None = None

    def set_colors(self, colors) -> None:
        super().set_colors(colors)
        self.forget_palette()

    def forget_palette(self) -> None:
        """The view's palette changed: look its colours up again."""
        self._pal = None

    def reset_fonts(self) -> None:
        super().reset_fonts()
        self._texts.clear()

    def palette_for(self, p: QPalette) -> tuple:
        """(text, disabled text, highlight, highlighted text) of the view (cached)."""
        pal = self._pal
        if pal is None:
            group, role = QPalette.ColorGroup, QPalette.ColorRole
            pal = self._pal = (p.color(group.Active, role.Text),
                               p.color(group.Disabled, role.Text),
                               p.brush(group.Active, role.Highlight),
                               p.color(group.Active, role.HighlightedText))
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

    def paint_cell(self, painter: QPainter, x: int, y: int, w: int, h: int, cell,
                   selected: bool, enabled: bool, fonts, pal) -> None:
        """Draw one cell in x, y, w, h (the grid excluded)."""
        content, right, bold, fg, bg = cell
        if selected:
            painter.fillRect(x, y, w, h, pal[2])
        elif bg is not None:
            painter.fillRect(x, y, w, h, bg)
        if not content:
            return
        if not isinstance(content, str):
            self.draw_chips(painter, x, y, w, h, content, fonts)
            return
        avail = w - 2 * TEXT_MARGIN
        st, tw, th = self._static(content, bold, fonts)
        if tw > avail:
            st, tw, th = self._elided(content, bold, avail, fonts)
        tx = x + w - TEXT_MARGIN - tw if right else x + TEXT_MARGIN
        painter.setFont(fonts[2] if bold else fonts[0])
        painter.setPen(pal[3] if selected else pal[1] if not enabled
                       else fg if fg is not None else pal[0])
        # whole pixels: the bindings took the int overload for floats too
        painter.drawStaticText(int(tx), int(y + (h - th) / 2), st)

    def cell_width(self, cell, fonts) -> int:
        """The width a cell needs to show its content whole."""
        content, bold = cell.content, cell.bold
        if not isinstance(content, str):
            return self.chips_width(content, fonts)
        return round(self._static(content, bold, fonts)[1]) + 2 * TEXT_MARGIN + 1


class CellModel(Protocol):
    """What a model painted by cells offers (pair table, affected words, playback)."""

    HEADERS: Sequence[str]

    def n_rows(self) -> int: ...
    def cell(self, row: int, col: int) -> Cell: ...


class CellTableView(FittedTableView):
    """A QTableView over a model with ``cell(row, col)`` and ``n_rows()`` (no proxy,
    no spans, no moved sections) that paints the cells in view in one call."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.cells: CellPainter | None = None
        self._grid: QColor | None = None
        # The scroll bar moves at every step (a new timeline row); it paints all of its
        # area, so what lies behind it (its container, the frame, a group box with its
        # title) need not be repainted each time.
        bar = self.verticalScrollBar()
        for w in (bar, bar.parentWidget()):
            if w is not None and w is not self:
                w.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)

    def setModel(self, model) -> None:
        super().setModel(model)
        self.cells = CellPainter() if hasattr(model, "cell") else None

    def set_colors(self, colors) -> None:
        if self.cells is not None:
            self.cells.set_colors(colors)
        self._grid = None
        self.viewport().update()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        et = event.type()
        if self.cells is not None and et in (event.Type.FontChange, event.Type.StyleChange):
            self.cells.reset_fonts()
        if et in (event.Type.PaletteChange, event.Type.StyleChange):
            self._grid = None
            if self.cells is not None:
                self.cells.forget_palette()

    def _grid_color(self) -> QColor:
        if self._grid is None:
            opt = QStyleOptionViewItem()
            opt.initFrom(self)
            rgb = self.style().styleHint(_GRID_HINT, opt, self)
            self._grid = QColor.fromRgba(rgb & 0xFFFFFFFF)
        return self._grid

    def sizeHintForColumn(self, column: int) -> int:
        """What double-clicking a header divider sizes the column to: its widest
        cell among the rows in view."""
        model, cells = self._cell_model(), self.cells
        first = self.rowAt(0)
        if cells is None or first < 0:
            return super().sizeHintForColumn(column)
        last = self.rowAt(self.viewport().height() - 1)
        last = model.n_rows() - 1 if last < 0 else last
        fonts = cells.fonts_for(self.font())
        return max(cells.cell_width(model.cell(r, column), fonts)
                   for r in range(first, last + 1))

    def _cell_model(self) -> CellModel:
        """The model, when ``cells`` is set (a model with ``cell``: setModel)."""
        return cast(CellModel, self.model())

    def paintEvent(self, event) -> None:
        model, cells = self._cell_model(), self.cells
        if cells is None:
            return super().paintEvent(event)
        n_rows, n_cols = model.n_rows(), len(model.HEADERS)
        area = event.rect()
        first, left = self.rowAt(area.top()), self.columnAt(area.left())
        if n_rows == 0 or n_cols == 0 or first < 0 or left < 0:
            return
        last, right = self.rowAt(area.bottom()), self.columnAt(area.right())
        last = n_rows - 1 if last < 0 else last
        right = n_cols - 1 if right < 0 else right
        cols = [(c, self.columnViewportPosition(c), self.columnWidth(c))
                for c in range(left, right + 1) if not self.isColumnHidden(c)]
        if not cols:
            return
        grid = 1 if self.showGrid() else 0
        selected = {ix.row() for ix in self.selectionModel().selectedIndexes()}
        enabled = self.isEnabled()
        fonts = cells.fonts_for(self.font())
        pal = cells.palette_for(self.palette())
        cell, paint = model.cell, cells.paint_cell
        painter = QPainter(self.viewport())
        rows = []
        for r in range(first, last + 1):
            y, h = self.rowViewportPosition(r), self.rowHeight(r)
            rows.append((y, h))
            sel = r in selected
            for c, x, w in cols:
                paint(painter, x, y, w - grid, h - grid, cell(r, c), sel, enabled, fonts, pal)
        if grid:
            painter.setPen(self._grid_color())
            x0 = cols[0][1]
            x1 = cols[-1][1] + cols[-1][2] - 1
            y0, y1 = rows[0][0], rows[-1][0] + rows[-1][1] - 1
            for y, h in rows:
                painter.drawLine(x0, y + h - 1, x1, y + h - 1)
            for _c, x, w in cols:
                painter.drawLine(x + w - 1, y0, x + w - 1, y1)
        painter.end()
