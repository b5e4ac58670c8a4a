"""Whether a panel can be seen, so hidden panels skip their per-step work.

``QWidget.isVisible()`` is not enough in the main window: Qt does not hide the docks
behind the front tab of a tabbed dock area, it moves them out of the window (and they
stay "visible"). Their visible region is empty then. The main window calls a panel's
``catch_up()`` when its dock's tab comes to the front (``visibilityChanged``); a panel
that is shown by ``show()`` catches up on its Show event (:class:`CatchUp` watches it).
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QDockWidget, QWidget


def on_screen(widget: QWidget) -> bool:
    """Shown, and not in a dock tab behind another one. (A part scrolled out of view
    inside its dock still counts as shown: nothing would tell it to catch up.)"""
    if not widget.isVisible():
        return False
    w: QWidget | None = widget
    while w is not None and not isinstance(w, QDockWidget):
        w = w.parentWidget()
    return w is None or not w.visibleRegion().isEmpty()


class CatchUp(QObject):
    """The part of a panel that skips its updates while it cannot be seen, and does
    them when the panel is seen again; given the panel and its update (what to run
    then), and whether an update is owed from the start (nothing shown yet). The update
    starts with ``if self.catchup.skip(): return``; :meth:`catch_up` runs on the panel's
    Show events and when the main window raises the panel's dock tab (the panel's
    ``catch_up``)."""

    def __init__(self, widget: QWidget, update: Callable[[], None], behind: bool = False):
        super().__init__(widget)
        self.widget, self.update = widget, update
        self.behind = behind       # an update was skipped and is not caught up with yet
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.widget and event.type() == QEvent.Type.Show:
            self.catch_up()
        return False

    def skip(self) -> bool:
        """True (and noted) if the panel cannot be seen now."""
        self.behind = not on_screen(self.widget)
        return self.behind

    def catch_up(self) -> None:
        """Do what was skipped while hidden."""
        if self.behind and on_screen(self.widget):
            self.behind = False
            self.update()
