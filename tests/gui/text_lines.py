"""The lines a text box draws, measured with Qt's own cursor rectangles (viewport
coordinates): which its viewport shows whole, and which its bottom edge cuts."""
from __future__ import annotations

from PySide6.QtGui import QTextCursor


def line_spans(edit) -> list[tuple[int, int]]:
    """(top, bottom) of each laid-out line of ``edit``, in order."""
    out = []
    block = edit.document().firstBlock()
    while block.isValid():
        layout = block.layout()
        for i in range(layout.lineCount()):
            cursor = QTextCursor(block)
            cursor.setPosition(block.position() + layout.lineAt(i).textStart())
            r = edit.cursorRect(cursor)
            out.append((r.top(), r.top() + r.height()))
        block = block.next()
    return out


def cut_lines(edit) -> list[tuple[int, int]]:
    """The lines that ``edit``'s text area shows in part (its bottom edge runs through)."""
    height = edit.viewport().height()
    return [(top, bottom) for top, bottom in line_spans(edit) if top < height < bottom]


def lines_whole(edit) -> int:
    """How many of ``edit``'s lines its text area shows whole."""
    height = edit.viewport().height()
    return sum(0 <= top and bottom <= height for top, bottom in line_spans(edit))
