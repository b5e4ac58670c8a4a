"""The compare view's table of counts per script, fitted to its width (compare_view.py
lays it out; models/compare_table.py is its model)."""
from __future__ import annotations

from PySide6.QtWidgets import QHeaderView, QTableView


class FittedCompareTable(QTableView):
    """The table of counts per script, its columns as wide as their contents unless
    that is wider than the table: then the row names and the sides give way (cut with
    "…"), never a script's column (in Focus at 1024x700 Han's and Cyrillic's were past
    the right edge, behind a sideways scroll bar)."""

    FLOORS = (90, 80)   # the least of the row names' and the sides' columns
    COMPACT_FLOORS = (48, 18)   # compact: short names ("Bytes/token") and A or B

    def setModel(self, model) -> None:
        super().setModel(model)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for sig in (model.modelReset, model.layoutChanged, model.dataChanged,
                    model.headerDataChanged):
            sig.connect(lambda *_: self.fit())

    def fit(self) -> None:
        model, header = self.model(), self.horizontalHeader()
        if model is None or model.columnCount() == 0:
            return
        self.resizeColumnsToContents()
        widths = [header.sectionSize(c) for c in range(model.columnCount())]
        over = sum(widths) - self.viewport().width()
        floors = self.COMPACT_FLOORS if getattr(model, "compact", False) else self.FLOORS
        for c, floor in enumerate(floors):
            if over <= 0 or c >= len(widths):
                break
            cut = max(0, min(over, widths[c] - floor))
            widths[c] -= cut
            over -= cut
        for c, w in enumerate(widths):
            if header.sectionSize(c) != w:
                header.resizeSection(c, w)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit()
