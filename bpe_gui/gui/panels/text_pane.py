"""A fixed-height text area for text that changes on every training step.

A QLabel asks its layout to recompute whenever its text changes (its size hint may
have changed), and a whole panel of word-wrapped labels then lays out again: on a
busy window that was a third of the time one step took. This widget's size hint
never changes, so a new text only repaints it.
"""
from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import (QAbstractTextDocumentLayout, QPainter, QPalette, QTextDocument,
                           QTextOption, Qt)  # QtGui.Qt has mightBeRichText
from PySide6.QtWidgets import QSizePolicy, QWidget


class TextPane(QWidget):
    """``lines`` lines of (rich) text, wrapped to the width; API like QLabel's."""

    def __init__(self, text: str = "", lines: int = 1, parent: QWidget | None = None,
                 align=None):
        super().__init__(parent)
        self._lines = lines
        self._text = ""
        self._doc = QTextDocument(self)
        self._doc.setDocumentMargin(1)
        opt = QTextOption()
        opt.setWrapMode(QTextOption.WordWrap if lines > 1 else QTextOption.NoWrap)
        if align is not None:
            opt.setAlignment(align)
        self._doc.setDefaultTextOption(opt)
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)
        self.setFixedHeight(lines * self.fontMetrics().lineSpacing() + 4)
        self.setText(text)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        if text == self._text:
            return
        self._text = text
        self._doc.setDefaultFont(self.font())
        if Qt.mightBeRichText(text):
            self._doc.setHtml(text)
        else:
            self._doc.setPlainText(text)
        self.update()

    def setWordWrap(self, on: bool) -> None:  # QLabel compatibility; wrapping follows lines
        pass

    def setTextFormat(self, fmt) -> None:  # QLabel compatibility: rich text is detected
        pass

    def sizeHint(self) -> QSize:
        return QSize(200, self.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self.height())

    def paintEvent(self, event) -> None:
        self._doc.setTextWidth(max(1, self.width()))
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette = self.palette()
        ctx.palette.setColor(QPalette.Text, self.palette().color(self.foregroundRole()))
        painter = QPainter(self)
        painter.setClipRect(self.rect())
        self._doc.documentLayout().draw(painter, ctx)
        painter.end()
