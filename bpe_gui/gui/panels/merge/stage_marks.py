"""The line between SuperBPE's two stages in the timeline: the row of step T+1 is made
twice as tall, and its upper half holds a band "stage 2: superwords from step T" with
a line on top (between the rows of steps T and T+1); its cells are drawn again in the
lower half.

Painted after the table's own cells (``TimelineView.paintEvent`` calls :meth:`paint`)
rather than as an extra row, so the model's rows stay one per step; nothing of the
row is covered (a label over the rows hid their counts).
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPen


def stage_label(T: int) -> str:
    return f"stage 2: superwords from step {T:,}"


def accent(dark: bool) -> QColor:
    return QColor("#f783ac" if dark else "#c2255c")


class StageMarks:
    """Where the transition is (None: ordinary training, nothing drawn)."""

    def __init__(self):
        self.transition: int | None = None
        self._tall: int | None = None       # the row made tall
        self.drawn_y: float | None = None   # where the last paint drew the line (tests)

    @staticmethod
    def _row_of(view, k: int) -> int:
        return getattr(view.model(), "row_of_step", lambda s: s)(k)

    def sync(self, view, T: int | None) -> None:
        """Follow the trainer's transition (None: none) and the rows made so far."""
        if T != self.transition:
            self.transition = T
            view.viewport().update()
        model = view.model()
        base = view.verticalHeader().defaultSectionSize()
        row = None if T is None or model is None else self._row_of(view, T + 1)
        if row is not None and row >= model.rowCount():
            row = None
        if self._tall is not None and self._tall != row and self._tall < model.rowCount():
            view.setRowHeight(self._tall, base)
        if row is not None and view.rowHeight(row) != 2 * base:
            view.setRowHeight(row, 2 * base)
        self._tall = row

    def paint(self, view) -> None:
        self.drawn_y = None
        T, row = self.transition, self._tall
        vp = view.viewport()
        if T is None or row is None or row >= view.model().rowCount():
            return
        y, H = view.rowViewportPosition(row), view.rowHeight(row)
        base = view.verticalHeader().defaultSectionSize()
        band = H - base
        if band <= 0 or y + H < 0 or y > vp.height():
            return
        self.drawn_y = float(y)
        pal = vp.palette()
        dark = pal.color(QPalette.ColorRole.Base).lightness() < 128
        col = accent(dark)
        p = QPainter(vp)
        p.fillRect(0, y, vp.width(), H, pal.color(QPalette.ColorRole.Base))
        tint = QColor(col)
        tint.setAlpha(45)
        p.fillRect(0, y, vp.width(), band, tint)
        p.setPen(QPen(col, 2))
        p.drawLine(0, y + 1, vp.width(), y + 1)
        font = QFont(view.font())
        font.setBold(True)
        p.setFont(font)
        p.setPen(QColor("#ffc9de" if dark else "#a61e4d"))
        text = QFontMetrics(font).elidedText(stage_label(T), Qt.TextElideMode.ElideRight,
                                             vp.width() - 16)
        p.drawText(QRectF(8, y + 2, vp.width() - 16, band - 2),
                   Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
        self._paint_cells(view, p, row, y + band, base)
        p.end()

    @staticmethod
    def _paint_cells(view, p: QPainter, row: int, y: int, h: int) -> None:
        """The row's cells again, in the lower half (what CellTableView draws)."""
        cells, model = view.cells, view.model()
        if cells is None:
            return
        fonts = cells.fonts_for(view.font())
        pal = cells.palette_for(view.palette())
        sel = any(ix.row() == row for ix in view.selectionModel().selectedIndexes())
        grid = 1 if view.showGrid() else 0
        line = view.palette().color(QPalette.ColorRole.Mid)
        for c in range(len(model.HEADERS)):
            if view.isColumnHidden(c):
                continue
            x, w = view.columnViewportPosition(c), view.columnWidth(c)
            cells.paint_cell(p, x, y, w - grid, h - grid, model.cell(row, c), sel,
                             view.isEnabled(), fonts, pal)
            if grid:
                p.setPen(line)
                p.drawLine(x + w - 1, y, x + w - 1, y + h - 1)
        if grid:
            p.setPen(line)
            p.drawLine(0, y + h - 1, view.viewport().width(), y + h - 1)
