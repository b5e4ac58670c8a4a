"""A list of tokens (byte strings) shown as readable text: the compare view's overlap
lists (shared, only in A, only in B), in the order given (by bytes).

One row per token; the text is made only for the rows painted (``ReadableCache``), so a
list of 100k tokens costs nothing until it is scrolled.
"""
from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QAbstractListModel, QModelIndex

from .roles import DISPLAY, FONT, TOOLTIP, ReadableCache


class TokenListModel(QAbstractListModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.tokens: Sequence[bytes] = ()
        self.cache = ReadableCache()
        self._italic = None

    def set_tokens(self, tokens: Sequence[bytes]) -> None:
        self.beginResetModel()
        self.tokens = tokens
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.tokens)

    def texts(self) -> list[str]:
        """Every row's text, in order (for tests and copying)."""
        return [self.cache.text(t) for t in self.tokens]

    def data(self, index, role=DISPLAY):
        if not index.isValid():
            return None
        token = self.tokens[index.row()]
        if role == DISPLAY:
            return self.cache.text(token)
        if role == TOOLTIP:
            return f"{self.cache.text(token)}\nbytes {token.hex(' ').upper()}"
        if role == FONT and self.cache(token)[1]:   # part of a character: italic
            if self._italic is None:
                from PySide6.QtGui import QFont
                self._italic = QFont()
                self._italic.setItalic(True)
            return self._italic
        return None
