"""The main window's status bar, whose messages never run into the labels beside them.

QStatusBar draws a temporary message itself, in whatever room its permanent widgets
leave, cut at that edge without "…" and without a gap: at 1024 pixels "Restored where
you left off." ran straight into "No training yet" and the progress text (issue 30).
Here the message is a label of its own, the first widget of the bar, given the room the
others leave: cut with "…" (the whole of it in the tooltip), with a gap before each
permanent label. ``showMessage``, ``clearMessage``,
``currentMessage`` and ``messageChanged`` work as QStatusBar's do.
"""
from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QStatusBar, QWidget

from .text_pane import TextPane


class StatusLine(QStatusBar):
    """A QStatusBar whose temporary message is an elided label (module docstring)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._message = ""
        self.message_pane = TextPane()
        self.message_pane.setObjectName("statusMessage")
        # room for a message's first words however long the labels beside it are (the
        # labels give way down to their own least widths first)
        self.message_pane.setMinimumWidth(MESSAGE_LEAST)
        self.addWidget(self.message_pane, 1)
        self._clear = QTimer(self, singleShot=True)
        self._clear.timeout.connect(self.clearMessage)
        self.setSizeGripEnabled(False)   # the window's frame resizes it; a grip took room

    # ----- QStatusBar's message API ------------------------------------------------------
    def showMessage(self, text: str, timeout: int | None = 0) -> None:
        self._clear.stop()
        if timeout is not None and timeout > 0:
            self._clear.start(timeout)
        if text != self._message:
            self._message = text
            self.message_pane.setText(text)
            self.setToolTip(text)   # the bar's too: read whole wherever it is hovered
            self.messageChanged.emit(text)

    def clearMessage(self) -> None:
        self._clear.stop()
        if self._message:
            self._message = ""
            self.message_pane.setText("")
            self.setToolTip("")
            self.messageChanged.emit("")

    def currentMessage(self) -> str:
        return self._message

    # ----- permanent widgets, apart from each other --------------------------------------
    def addPermanentWidget(self, widget: QWidget, stretch: int | None = 0) -> None:
        """A permanent widget, a gap before it (texts side by side read as one)."""
        widget.setContentsMargins(GAP, 0, 0, 0)
        super().addPermanentWidget(widget, stretch)


GAP = 12   # pixels between the message and each permanent label
MESSAGE_LEAST = 100   # pixels the message keeps
