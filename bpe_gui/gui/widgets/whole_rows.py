"""A tree whose viewport shows whole rows, never one cut at its bottom edge.

A tree's height is what its layout shares out, seldom a whole number of rows: at
800x600 the merge lineage drew its last row in sight cut in half. The tree keeps its
height; its viewport ends under the last whole row and the strip below it stays blank
(the tree's own background, the rows' colour). Rows are of one height (the tree's
``uniformRowHeights``) and scrolled by whole rows (Qt's ScrollPerItem), so the rows in
sight are whole wherever the tree is scrolled to.
"""
from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QAbstractItemView, QTreeWidget, QWidget


class WholeRowsTree(QTreeWidget):
    """A QTreeWidget whose viewport is a whole number of rows high (see the module)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setUniformRowHeights(True)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerItem)
        self.setBackgroundRole(QPalette.ColorRole.Base)   # the blank strip as the rows'
        self.setAutoFillBackground(True)

    def updateGeometries(self) -> None:
        # QTreeView lays its header out here and sets the viewport's margins to it (the
        # bottom one to 0): the bottom margin is added after, each time
        super().updateGeometries()
        top = self.viewportMargins().top()
        room = self.height() - 2 * self.frameWidth() - top
        bar = self.horizontalScrollBar()
        if bar.isVisible():
            room -= bar.height()
        row = self.sizeHintForRow(0) if self.topLevelItemCount() else 0
        spare = room % row if 0 < row <= room else 0
        if self.viewportMargins().bottom() != spare:
            self.setViewportMargins(0, top, 0, spare)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.updateGeometries()
