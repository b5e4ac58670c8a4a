"""A check box or radio button whose text wraps: the button keeps no text, a word-wrapped
label beside it holds it, and a click on the label clicks the button.

QCheckBox and QRadioButton never wrap their text: in the Training settings dock at
800x600, "Byte-level (256 bytes, GPT-2)" and "Prune tokens no longer used alone" made
the panel wider than the dock, and their ends were cut off at its edge.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QAbstractButton, QHBoxLayout, QLabel, QWidget


class WrappedChoice(QWidget):
    """``button`` (a QCheckBox or QRadioButton) with its text moved to a label beside it;
    the label follows the button's tooltip and enabled state."""

    def __init__(self, button: QAbstractButton, parent: QWidget | None = None):
        super().__init__(parent)
        self.button = button
        text = button.text()
        self.label = QLabel(text, wordWrap=True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setToolTip(button.toolTip())
        self.label.setEnabled(button.isEnabled())
        button.setText("")
        button.setAccessibleName(text)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(button)   # (the mark level with the text's middle, as Qt's own are)
        lay.addWidget(self.label, 1)
        button.installEventFilter(self)
        self.label.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        et = event.type()
        if obj is self.label and isinstance(event, QMouseEvent) \
                and et == QEvent.Type.MouseButtonRelease \
                and event.button() == Qt.MouseButton.LeftButton and self.button.isEnabled():
            self.button.click()   # (a radio button already on stays on, as Qt's do)
            self.button.setFocus(Qt.FocusReason.MouseFocusReason)
        elif obj is self.button and et == QEvent.Type.EnabledChange:
            self.label.setEnabled(self.button.isEnabled())
        elif obj is self.button and et == QEvent.Type.ToolTipChange:
            self.label.setToolTip(self.button.toolTip())
        return False
