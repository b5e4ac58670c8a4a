"""The line between SuperBPE's two stages in the timeline: drawn over the table, between
the rows of steps T and T+1, with a label "stage 2: superwords from step T".

Painted after the table's own cells (``TimelineView.paintEvent`` calls :meth:`paint`)
rather than as an extra row, so the model's rows stay one per step.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPen


def stage_label(T: int) -> str:
    return f"stage 2: superwords from step {T:,}"


class StageMarks:
    """Where the transition is (None: ordinary training, nothing drawn)."""

    def __init__(self):
        self.transition: int | None = None
        self.drawn_y: float | None = None   # where the last paint drew the line (tests)

    def set_transition(self, view, T: int | None) -> None:
        if T != self.transition:
            self.transition = T
            view.viewport().update()

    def line_y(self, view) -> float | None:
        """The line's y in the viewport: the top of step T+1's row (the bottom of step
        T's row while T is the last step made); None when T has no row yet."""
        T = self.transition
        model = view.model()
        if T is None or model is None:
            return None
        n = model.rowCount()
        row_of = getattr(model, "row_of_step", lambda k: k)
        if row_of(T) >= n:
            return None
        if row_of(T + 1) < n:
            return float(view.rowViewportPosition(row_of(T + 1)))
        return float(view.rowViewportPosition(row_of(T)) + view.rowHeight(row_of(T)))

    def paint(self, view) -> None:
        self.drawn_y = None
        y = self.line_y(view)
        vp = view.viewport()
        if y is None or not -4 <= y <= vp.height() + 4:
            return
        self.drawn_y = y
        dark = vp.palette().color(QPalette.Base).lightness() < 128
        col = QColor("#f783ac" if dark else "#c2255c")
        p = QPainter(vp)
        p.setPen(QPen(col, 2))
        p.drawLine(0, int(y), vp.width(), int(y))
        font = QFont(view.font())
        font.setPointSizeF(max(6.0, font.pointSizeF() * 0.85))
        fm = QFontMetrics(font)
        text = fm.elidedText(stage_label(self.transition), Qt.ElideRight, vp.width() - 12)
        w, h = fm.horizontalAdvance(text) + 10, fm.height() + 2
        box = QRectF(vp.width() - w - 4, y - h / 2, w, h)
        p.setRenderHint(QPainter.Antialiasing, True)
        p.setPen(Qt.NoPen)
        p.setBrush(col)
        p.drawRoundedRect(box, 4, 4)
        p.setFont(font)
        p.setPen(QColor("#1a1a1a" if dark else "#ffffff"))
        p.drawText(box, Qt.AlignCenter, text)
        p.end()
