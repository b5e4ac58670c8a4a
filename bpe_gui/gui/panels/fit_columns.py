"""Columns that share a table's width, so a table never scrolls sideways while its
columns' minimum widths fit (a narrow dock used to cut "After", "Count" and
"New token" off, with a horizontal scroll bar under a few rows).

Each column gets at least its minimum width (never less than its header's text), and
the width left over is shared out by weight. Below the sum of the minimums the table
scrolls sideways as a last resort. A column the user drags keeps the width it was
given until the view is resized again.

Example: weights (1, 2, 1), minimums (40, 80, 40) in 400 pixels -> 100, 200, 100;
in 170 pixels -> 42, 86, 42 (the spare 10 pixels by weight; what rounding leaves
over goes to the heaviest column).
"""
from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView

HEADER_PAD = 16   # header text margins (a sort arrow may cover a little of them)


def share_widths(avail: int, weights: Sequence[float], minimums: Sequence[int]) -> list[int]:
    """Widths for the columns in ``avail`` pixels (see the module example)."""
    mins = list(minimums)
    spare = avail - sum(mins)
    if spare <= 0 or not any(weights):
        return mins
    total = float(sum(weights))
    widths = [m + int(spare * w / total) for m, w in zip(mins, weights)]
    left = avail - sum(widths)
    if left > 0:   # rounding leftovers go to the heaviest column
        widths[max(range(len(widths)), key=lambda i: weights[i])] += left
    return widths


class FitColumns(QObject):
    """Keeps a view's columns filling its viewport (see the module docstring)."""

    def __init__(self, view: QAbstractItemView, weights: Sequence[float],
                 minimums: Sequence[int] = ()):
        super().__init__(view)
        self.view = view
        self.weights = list(weights)
        self.minimums = list(minimums) + [0] * (len(self.weights) - len(minimums))
        header = view.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.Interactive)
        view.setHorizontalScrollBarPolicy(Qt.ScrollBarAsNeeded)
        view.viewport().installEventFilter(self)
        model = view.model()
        if model is not None:
            model.headerDataChanged.connect(lambda *_: self.fit())
            model.modelReset.connect(self.fit)
        self.fit()

    def set_minimum(self, col: int, width: int) -> None:
        """A new floor for one column (e.g. room for the largest count now shown)."""
        if self.minimums[col] != width:
            self.minimums[col] = width
            self.fit()

    def header_minimums(self) -> list[int]:
        header = self.view.horizontalHeader()
        fm = header.fontMetrics()
        model = self.view.model()
        out = []
        for col, floor in enumerate(self.minimums):
            text = model.headerData(col, Qt.Horizontal) if model is not None else ""
            out.append(max(floor, fm.horizontalAdvance(str(text or "")) + HEADER_PAD))
        return out

    def fit(self) -> None:
        model = self.view.model()
        if model is None:
            return
        n = min(len(self.weights), model.columnCount())
        avail = self.view.viewport().width()
        if avail <= 0 or n == 0:
            return
        widths = share_widths(avail, self.weights[:n], self.header_minimums()[:n])
        header = self.view.horizontalHeader()
        for col, w in enumerate(widths):
            if header.sectionSize(col) != w:
                header.resizeSection(col, w)

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Resize and event.size().width() != event.oldSize().width():
            self.fit()
        return False
