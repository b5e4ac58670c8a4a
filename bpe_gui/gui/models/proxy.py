"""A filter proxy whose sorting is done by the source model, in Python, in one go.

QSortFilterProxyModel sorts by calling ``data()`` twice per comparison; with a Python
model that is a million Python calls for a 50k-token vocabulary. The source models
here sort their own row order with a key function instead (a ``sort(column, order)``
that emits layoutChanged), and this proxy forwards the view's sort requests to them,
keeping the filtering (a regular expression over SEARCH_ROLE, matched in C++).
"""
from __future__ import annotations

from PySide6.QtCore import QSortFilterProxyModel, Qt

from .roles import SEARCH_ROLE


class SourceSortProxy(QSortFilterProxyModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFilterRole(SEARCH_ROLE)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterKeyColumn(0)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        src = self.sourceModel()
        if src is not None and hasattr(src, "sort"):
            src.sort(column, order)
