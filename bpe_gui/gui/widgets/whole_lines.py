"""A plain text box that never shows a line cut at its bottom edge.

A box whose height the layout shares out (a fifth of a view, say) is seldom a whole
number of lines, and lines differ in height (a line of Han characters drawn by a CJK
font is taller than a Latin one): the last line in sight was drawn cut in half. The box
keeps its height; its text area ends under the last line that fits whole, and the rest
of the box stays blank (the box's own background, the text area's colour). The text
area is fitted again when the box is shown, changes size, scrolls, or its text's lines
change.

A box that must show some lines at least (``least``) gets the minimum height that shows
that many lines of the tallest kind its text may hold (a line of Latin, Han, kana,
Hangul and Cyrillic together: ``PROBE``), so that fitting whole lines never leaves it
fewer; the minimum follows the box's font.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QFont, QPalette, QTextLayout
from PySide6.QtWidgets import QPlainTextEdit


PROBE = "Ag汉字ひらがなカタカナ한글Привет"


def line_height(font: QFont, text: str = PROBE) -> float:
    """The height of one line of ``text`` in ``font`` (fallback fonts included) as a
    plain text box lays it out, its leading included."""
    layout = QTextLayout(text, font)
    layout.beginLayout()
    line = layout.createLine()
    line.setLeadingIncluded(True)
    line.setLineWidth(1e6)
    layout.endLayout()
    return line.height()


class WholeLines(QObject):
    """Fits ``edit``'s text area to whole lines, ``least`` of them at least (see the
    module's note)."""

    def __init__(self, edit: QPlainTextEdit, least: int = 0):
        super().__init__(edit)
        self.edit = edit
        self.least = least
        self._keep_least()
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
            # and once the box has laid its lines out at its new width (a line that
            # wraps anew changes no document size: nothing else would say so)
            QTimer.singleShot(0, self, self.fit)
        elif obj is self.edit and event.type() == QEvent.Type.Show:
            QTimer.singleShot(0, self, self.fit)
        elif obj is self.edit and event.type() == QEvent.Type.FontChange:
            self._keep_least()
        return False

    def least_height(self, lines: int) -> int:
        """The box's height that shows ``lines`` whole lines of the tallest kind."""
        edit = self.edit
        top = edit.document().documentMargin()   # (above the first line, none below)
        return 2 * edit.frameWidth() + math.ceil(top + lines * line_height(edit.font()))

    def _keep_least(self) -> None:
        if self.least:
            self.edit.setMinimumHeight(self.least_height(self.least))

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
