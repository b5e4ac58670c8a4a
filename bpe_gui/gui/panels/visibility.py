"""Whether a panel can be seen, so hidden panels skip their per-step work.

``QWidget.isVisible()`` is not enough in the main window: Qt does not hide the docks
behind the front tab of a tabbed dock area, it moves them out of the window (and they
stay "visible"). Their visible region is empty then. The main window calls a panel's
``catch_up()`` when its dock's tab comes to the front (``visibilityChanged``); a panel
that is shown by ``show()`` catches up in its ``showEvent``.
"""
from __future__ import annotations

from PySide6.QtWidgets import QWidget


def on_screen(widget: QWidget) -> bool:
    """Shown, and not a dock tab behind another one."""
    return widget.isVisible() and not widget.visibleRegion().isEmpty()
