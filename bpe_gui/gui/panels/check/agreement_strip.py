"""A timeline of two merge lists: one thin bar per step, tinted where they agree, where
they part and where only one side has a merge; the current step is outlined. Click or
drag to go to a step; a step too thin to see is still drawn (parting steps win over
agreeing ones in a pixel column), so a lone difference among thousands of merges shows.
"""
from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from ...models.check_steps import STATUS_WORDS, status_colors

RANK = {"same": 0, "moved": 1, "ours-only": 2, "theirs-only": 2, "part": 3}   # wins a pixel


class AgreementStrip(QWidget):
    stepClicked = Signal(int)     # 1-based step

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.statuses: list[str] = []
        self.current = 0
        self.colors = status_colors(self.palette())
        self.setMinimumHeight(22)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMouseTracking(True)
        self.setToolTip("Each step: green where your merge and the reference's are the same, "
                        "amber where yours is the reference's at another step, red where the "
                        "reference never makes yours. Click to go to a step.")

    def sizeHint(self) -> QSize:
        return QSize(400, 26)

    def set_statuses(self, statuses: Sequence[str]) -> None:
        self.statuses = list(statuses)
        self.current = min(self.current, len(self.statuses))
        self.update()

    def set_current(self, step: int) -> None:
        if step != self.current:
            self.current = step
            self.update()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange:
            self.colors = status_colors(self.palette())
            self.update()

    def _step_at(self, x: int) -> int:
        n = len(self.statuses)
        if n == 0:
            return 0
        return max(1, min(n, int(x / max(1, self.width()) * n) + 1))

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.statuses:
            self.stepClicked.emit(self._step_at(int(event.position().x())))

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton and self.statuses:
            self.stepClicked.emit(self._step_at(int(event.position().x())))
        elif self.statuses:
            k = self._step_at(int(event.position().x()))
            self.setToolTip(f"Step {k:,}: {STATUS_WORDS[self.statuses[k - 1]]}")

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        w, h, n = self.width(), self.height(), len(self.statuses)
        p.fillRect(self.rect(), self.palette().base())
        if n == 0:
            p.end()
            return
        if n > w:   # several steps a pixel: the column shows its "worst" step
            columns: dict[int, str] = {}
            for k, status in enumerate(self.statuses):
                x = k * w // n
                if RANK[status] >= RANK[columns.get(x, "same")]:
                    columns[x] = status
            for x, status in columns.items():
                p.fillRect(QRect(x, 2, 1, h - 4), self.colors[status])
        else:
            for k, status in enumerate(self.statuses):
                x0, x1 = k * w // n, (k + 1) * w // n
                p.fillRect(QRect(x0, 2, max(1, x1 - x0 - (1 if n < w // 4 else 0)), h - 4),
                           self.colors[status])
        if self.current:
            x0 = int((self.current - 1) * w / n)
            x1 = max(x0 + 3, int(self.current * w / n))
            pen = QPen(self.palette().text().color(), 2)
            p.setPen(pen)
            p.drawRect(QRect(x0, 1, x1 - x0, h - 2))
        p.setPen(QPen(QColor(self.palette().mid().color()), 1))
        p.drawRect(self.rect().adjusted(0, 0, -1, -1))
        p.end()
