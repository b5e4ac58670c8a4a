"""Columns that share a table's width, so a table never scrolls sideways while its
columns' minimum widths fit (a narrow dock used to cut "After", "Count" and
"New token" off, with a horizontal scroll bar under a few rows).

Each column gets at least its minimum width (never less than its header's text), and
the width left over is shared out by weight. Below the sum of the minimums, columns
that say the least (``drop``: e.g. "Merges into", whose token the pair's chips already
spell) give way first, one at a time, and come back when there is room again; only then
does the table scroll sideways, as a last resort (at 800x600 the pair table cut its
second chip and the timeline its Ties column: issue 30). A column the user drags keeps
the width it was given until the view changes width again.

Example: weights (1, 2, 1), minimums (40, 80, 40) in 400 pixels -> 100, 200, 100;
in 170 pixels -> 42, 86, 42 (the spare 10 pixels by weight; what rounding leaves
over goes to the heaviest column).

It is the view class itself, :class:`FittedTableView` (subclass it for a view of
your own, as CellTableView does). (A first version was a helper QObject watching the
viewport; with it the test suite crashed in a later paint of a merge panel, for
reasons not understood: nothing outside the view is involved now.)
"""
from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QHeaderView, QStyle, QTableView

HEADER_PAD = 16   # header text margins (a sort arrow may cover a little of them)
_RESIZE = QEvent.Type.Resize


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


class FittedTableView(QTableView):
    """A QTableView with fitted columns: ``fit_columns(weights, minimums)`` once, and the
    columns follow the viewport's width from then on."""

    _fit_weights: list[float] = []
    _fit_minimums: list[int] = []
    _fit_width = -1
    _fit_drop: tuple[int, ...] = ()
    _dropped: frozenset[int] = frozenset()

    def fit_columns(self, weights: Sequence[float], minimums: Sequence[int] = (),
                    drop: Sequence[int] = ()) -> None:
        """``drop``: the columns that give way, first first, when the minimums do not
        fit the width."""
        self._fit_weights = list(weights)
        self._fit_minimums = list(minimums) + [0] * (len(weights) - len(minimums))
        self._fit_drop = tuple(drop)
        header = self.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.refit()

    def set_column_minimum(self, col: int, width: int) -> None:
        """A new floor for one column (e.g. room for the largest count now shown)."""
        if self._fit_minimums and self._fit_minimums[col] != width:
            self._fit_minimums[col] = width
            self.refit()

    @property
    def dropped(self) -> frozenset[int]:
        """The columns given way for lack of width now."""
        return self._dropped

    def header_minimums(self) -> list[int]:
        fm = self.horizontalHeader().fontMetrics()
        model = self.model()
        out = []
        for col, floor in enumerate(self._fit_minimums):
            text = model.headerData(col, Qt.Orientation.Horizontal) if model is not None else ""
            out.append(max(floor, fm.horizontalAdvance(str(text or "")) + HEADER_PAD))
        return out

    def least_width(self) -> int:
        """The view's width at which every shown column that never gives way (not in
        ``drop``) has its minimum, beside a vertical scroll bar."""
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        keep = sum(m for c, m in enumerate(self.header_minimums())
                   if c not in self._fit_drop and not (self.isColumnHidden(c)
                                                       and c not in self._dropped))
        return keep + bar + 2 * self.frameWidth()

    def refit(self) -> None:
        model = self.model()
        if not self._fit_weights or model is None:
            return
        n = min(len(self._fit_weights), model.columnCount())
        avail = self.viewport().width()
        self._fit_width = avail
        if avail <= 0 or n == 0:
            return
        mins = self.header_minimums()
        # hidden by the view's owner (not by dropping): never shown here
        shown = [not self.isColumnHidden(c) or c in self._dropped for c in range(n)]
        dropped = set()
        for col in self._fit_drop:
            if sum(m for c, (m, on) in enumerate(zip(mins, shown))
                   if on and c not in dropped) <= avail:
                break
            if col < n and shown[col]:
                dropped.add(col)
        for col in self._dropped | dropped:
            if col < n:
                self.setColumnHidden(col, col in dropped)
        self._dropped = frozenset(dropped)
        shown = [on and c not in dropped for c, on in enumerate(shown)]
        widths = share_widths(avail, [w if on else 0 for w, on in zip(self._fit_weights, shown)],
                              [m if on else 0 for m, on in zip(mins, shown)])
        header = self.horizontalHeader()
        for col, w in enumerate(widths):
            if shown[col] and header.sectionSize(col) != w:
                header.resizeSection(col, w)

    def viewportEvent(self, event) -> bool:
        # the viewport's width changes with the view and with its vertical scroll bar
        if event.type() == _RESIZE and self._fit_weights \
                and self.viewport().width() != self._fit_width:
            self.refit()
        return super().viewportEvent(event)
