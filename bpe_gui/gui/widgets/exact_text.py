"""The text of a text box exactly as typed or pasted, for the engine.

``QPlainTextEdit.toPlainText`` turns a no-break space (U+00A0) into a space and a line
separator (U+2028) into a line feed: a text encoded from it gave other ids than the
same text given to the engine (``bpe-gui encode``, the library). The document's raw
text keeps both; only the separator Qt puts between its blocks (U+2029, one per line
break) is a line feed. A U+2029 in the text itself cannot be held apart from a line
break by the document: it is read as one (:func:`lost_separators` says whether a text
holds any, for a notice).

Shift+Enter in a text box inserts U+2028; :func:`plain_enter` makes it a line break as
Enter is, so a U+2028 in the raw text is one the text brought.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QTextDocument

BLOCK = "\u2029"   # between the document's blocks (lines)
LOST_SEPARATORS = ("The text holds carriage returns (\\r, Windows line ends) or U+2029 "
                   "(paragraph separator): a text box keeps them only as line breaks, so "
                   "they are encoded as \\n. `bpe-gui encode --file` encodes the text as it "
                   "is.")


def exact_text(doc: QTextDocument) -> str:
    """The document's characters, its line breaks as "\\n", nothing else changed."""
    return doc.toRawText().replace(BLOCK, "\n")


def lost_separators(text: str) -> bool:
    """True if ``text`` holds a U+2029 or a carriage return, which a text box can only
    keep as a line break."""
    return BLOCK in text or "\r" in text


def plain_enter(event: QKeyEvent) -> QKeyEvent:
    """Shift+Enter as Enter (a line break, not a U+2028 line separator); other keys as
    they are."""
    if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and \
            event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
        return QKeyEvent(event.type(), event.key(),
                         event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier, "\r",
                         event.isAutoRepeat(), event.count())
    return event
