"""A widget in a frameless scroll area that sizes it: it scrolls only when the area is
smaller than its minimum size (the docks' panels, so the window always fits the screen
however they are arranged, and the parts of panels that must not be cut off)."""
from __future__ import annotations

from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


def scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(widget)
    return area
