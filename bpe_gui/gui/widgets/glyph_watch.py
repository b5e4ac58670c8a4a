"""Text boxes ask about the characters put in them: one no font draws is an empty box
there, whatever the tokens show, and the status bar names its script (models/glyphs.py).
"""
from __future__ import annotations

from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QPlainTextEdit

from ..models.glyphs import glyphs


def watch_glyphs(edit: QPlainTextEdit) -> None:
    """The characters typed, pasted or loaded into ``edit`` (only the span that changed,
    each distinct character once: typing costs a look-up) go to the application's
    Glyphs."""
    doc = edit.document()

    def changed(pos: int, _removed: int, added: int) -> None:
        if added:
            cur = QTextCursor(doc)
            cur.setPosition(pos)
            cur.setPosition(min(pos + added, doc.characterCount() - 1),
                            QTextCursor.MoveMode.KeepAnchor)
            glyphs().note_text(cur.selectedText())
    doc.contentsChange.connect(changed)
