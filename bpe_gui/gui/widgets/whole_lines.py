"""A plain text box that never shows a line cut at its bottom edge.

A box whose height the layout shares out (a fifth of a view, say) is seldom a whole
number of lines, and lines differ in height (a line of Han characters drawn by a CJK
font is taller than a Latin one): the last line in sight was drawn cut in half. The box
keeps its height; its text area ends under the last line that fits whole, and the rest
of the box stays blank (the box's own background, the text area's colour). The text
area is fitted again when the box changes height, scrolls, or its text's lines change.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QPlainTextEdit


class WholeLines(QObject):
    """Fits ``edit``'s text area to whole lines (see the module's note)."""

    def __init__(self, edit: QPlainTextEdit):
        super().__init__(edit)
        self.edit = edit
        edit.setBackgroundRole(QPalette.ColorRole.Base)   # the blank strip as the text's
        edit.setAutoFillBackground(True)
        edit.installEventFilter(self)
        edit.verticalScrollBar().valueChanged.connect(lambda _v: self.fit())
        edit.document().documentLayout().documentSizeChanged.connect(lambda _s: self.fit())
        self.fit()

    def eventFilter(self, obj, event) -> bool:
        # (before the box lays out its text area for the new size: the margin set here
        # is part of that layout)
        if obj is self.edit and event.type() == QEvent.Type.Resize:
            self.fit(event.size().height())
        return False

    def fit(self, height: int | None = None) -> None:
        edit = self.edit
        room = (edit.height() if height is None else height) - 2 * edit.frameWidth()
        bar = edit.horizontalScrollBar()
        if bar.isVisible():
            room -= bar.height()
        margin = max(0, room - self.whole_bottom(room))
        if edit.viewportMargins().bottom() != margin:
            edit.setViewportMargins(0, 0, 0, margin)

    def whole_bottom(self, room: int) -> int:
        """Where the text area ends for ``room`` pixels of height: under the last line
        in sight that fits whole, or ``room`` where no line is cut (the text ends above
        the bottom, or not even one line fits)."""
        edit = self.edit
        offset = edit.contentOffset()
        block = edit.firstVisibleBlock()
        bottom = None
        while block.isValid():
            top = edit.blockBoundingGeometry(block).translated(offset).top()
            if top >= room:
                break
            layout = block.layout()
            for i in range(layout.lineCount()):
                line = layout.lineAt(i)
                line_top = top + line.y()
                line_bottom = line_top + line.height()
                if line_bottom <= room:
                    bottom = line_bottom
                elif line_top < room:   # this line would be cut
                    return room if bottom is None else math.ceil(bottom)
            block = block.next()
        return room
