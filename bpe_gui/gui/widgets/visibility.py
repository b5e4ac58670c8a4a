"""Whether a panel can be seen, so hidden panels skip their per-step work.

``QWidget.isVisible()`` is not enough in the main window: Qt does not hide the docks
behind the front tab of a tabbed dock area, it moves them out of the window (and they
stay "visible"). Their visible region is empty then. The main window calls a panel's
``catch_up()`` when its dock's tab comes to the front (``visibilityChanged``); a panel
that is shown by ``show()`` catches up in its ``showEvent``.
"""
from __future__ import annotations

from PySide6.QtWidgets import QDockWidget, QWidget


def on_screen(widget: QWidget) -> bool:
    """Shown, and not in a dock tab behind another one. (A part scrolled out of view
    inside its dock still counts as shown: nothing would tell it to catch up.)"""
    if not widget.isVisible():
        return False
    w = widget
    while w is not None and not isinstance(w, QDockWidget):
        w = w.parentWidget()
    return w is None or not w.visibleRegion().isEmpty()


class CatchesUp:
    """For a panel (mixed in before its Qt class) that skips its updates while it cannot
    be seen. The update starts with ``if self.skip_while_hidden(): return``, and the
    panel names it in ``catch_up_with``: it runs when the panel is seen again (shown,
    or its dock tab raised: the main window calls ``catch_up``)."""

    _behind = False            # an update was skipped while hidden

    @property
    def behind(self) -> bool:
        """True while the panel has skipped an update that it has not caught up with."""
        return self._behind

    def catch_up_with(self) -> None:
        raise NotImplementedError

    def skip_while_hidden(self) -> bool:
        """True (and noted) if the panel cannot be seen now."""
        self._behind = not on_screen(self)
        return self._behind

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.catch_up()

    def catch_up(self) -> None:
        """Do what was skipped while hidden."""
        if self._behind and on_screen(self):
            self._behind = False
            self.catch_up_with()
