"""Views whose viewport shows whole rows, never one cut at its bottom edge.

A view's height is what its layout shares out, seldom a whole number of rows: at
800x600 the merge lineage drew its last row in sight cut in half, and the merge
panel's pair table a sliver of a fourth row. The view keeps its height; its viewport
ends under the last whole row and the strip below it stays blank (the view's own
background, the rows' colour). Rows are of one height (a tree's ``uniformRowHeights``,
a table's fixed vertical header) and scrolled by whole rows (Qt's ScrollPerItem), so
the rows in sight are whole wherever the view is scrolled to.
"""
from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QWidget

from .table_cells import CellTableView


def _whole_rows(view: QAbstractItemView, row: int) -> None:
    """Give ``view``'s viewport a bottom margin of what is left under its last whole
    row of height ``row`` (the other margins, its headers', kept)."""
    m = view.viewportMargins()
    room = view.height() - 2 * view.frameWidth() - m.top()
    bar = view.horizontalScrollBar()
    if bar.isVisible():
        room -= bar.height()
    spare = room % row if 0 < row <= room else 0
    if m.bottom() != spare:
        view.setViewportMargins(m.left(), m.top(), m.right(), spare)


def _blank_strip_as_rows(view: QAbstractItemView) -> None:
    view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerItem)
    view.setBackgroundRole(QPalette.ColorRole.Base)   # the blank strip as the rows'
    view.setAutoFillBackground(True)


class WholeRowsTree(QTreeWidget):
    """A QTreeWidget whose viewport is a whole number of rows high (see the module)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setUniformRowHeights(True)
        _blank_strip_as_rows(self)

    def updateGeometries(self) -> None:
        # QTreeView lays its header out here and sets the viewport's margins to it (the
        # bottom one to 0): the bottom margin is added after, each time
        super().updateGeometries()
        _whole_rows(self, self.sizeHintForRow(0) if self.topLevelItemCount() else 0)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.updateGeometries()


class WholeRowsTable(CellTableView):
    """A CellTableView whose viewport is a whole number of rows high (see the module):
    its rows are the vertical header's default size, which this fixes."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        _blank_strip_as_rows(self)

    def updateGeometries(self) -> None:
        # QTableView sets the viewport's margins to its headers here (the bottom one to
        # 0): the bottom margin is added after, each time
        super().updateGeometries()
        _whole_rows(self, self.verticalHeader().defaultSectionSize())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.updateGeometries()
