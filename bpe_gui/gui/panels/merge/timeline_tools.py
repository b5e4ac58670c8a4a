"""Above the timeline: a scrubber over every step made so far, and "find the step that
made token X" (a table shows a few rows; 10,000 steps need both)."""
from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt, QTimer, SignalInstance
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QSlider, QWidget

from ...models.roles import plain_text
from ...models.timeline import TimelineModel


class ScrubHost(Protocol):
    """What the scrubber and the search read of the controller."""

    message: SignalInstance

    @property
    def busy(self) -> bool: ...
    @property
    def step_index(self) -> int: ...
    def goto(self, k: int) -> bool: ...


class TimelinePanel(Protocol):
    """What they read of the merge panel: its timeline and its controller."""

    timeline: TimelineModel

    @property
    def controller(self) -> ScrubHost: ...


def find_step(records, query: str, readable) -> int | None:
    """The step whose new token is ``query`` (as shown, e.g. '·the', or as typed, ' the');
    else the first whose token contains it; None if none.

    Example: tokens ['st', 'est', 'wi'] and query 'est' -> 2
    """
    q = query.strip("\n")
    if not q:
        return None
    first_partial = None
    for rec in records:
        shown, typed = readable(rec.token), plain_text(rec.token)
        if q in (shown, typed):
            return rec.index
        if first_partial is None and (q in shown or q in typed):
            first_partial = rec.index
    return first_partial


class TimelineTools(QWidget):
    THROTTLE_MS = 80

    def __init__(self, panel: TimelinePanel, parent: QWidget | None = None):
        super().__init__(parent)
        self.panel = panel
        self.scrubber = QSlider(Qt.Orientation.Horizontal)
        # while dragged, the panels follow at most every THROTTLE_MS (a step's redraw
        # takes tens of ms: a goto at every pixel would fall behind the mouse); the
        # step let go at is always the one shown last
        self.scrubber.setTracking(False)
        self._follow = QTimer(self)
        self._follow.setSingleShot(True)
        self._follow.setInterval(self.THROTTLE_MS)
        self._follow.timeout.connect(self._catch_up)
        self._wanted: int | None = None
        self.scrubber.setToolTip("Drag to any step made so far (undone steps included)")
        self.find_edit = QLineEdit()
        self.find_edit.setPlaceholderText("Find the step that made a token…")
        self.find_edit.setToolTip("Type a token as shown (·the) or as text, then Enter")
        self.find_edit.setClearButtonEnabled(True)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.scrubber, 3)
        lay.addWidget(self.find_edit, 2)
        self.scrubber.valueChanged.connect(self._scrubbed)
        self.scrubber.sliderMoved.connect(self._dragged)
        # (let go where it started: no valueChanged, but the drag went elsewhere)
        self.scrubber.sliderReleased.connect(
            lambda: self._scrubbed(self.scrubber.sliderPosition()))
        self.find_edit.returnPressed.connect(self.search)

    def sync(self) -> None:
        """Follow the timeline: its length and the current step."""
        tl = self.panel.timeline
        self.scrubber.blockSignals(True)
        self.scrubber.setRange(0, len(tl.records))
        if not self.scrubber.isSliderDown():   # (the handle stays under the mouse)
            self.scrubber.setValue(tl.current)
        self.scrubber.setPageStep(max(1, len(tl.records) // 20))
        self.scrubber.blockSignals(False)

    def _scrubbed(self, k: int) -> None:
        self._wanted = None
        self._follow.stop()
        if k != self.panel.controller.step_index:
            self.panel.controller.goto(k)

    def _dragged(self, k: int) -> None:
        """The handle moved under the mouse: go there now, or when the last go is
        THROTTLE_MS old."""
        self._wanted = k
        if not self._follow.isActive():
            self._catch_up()

    def _catch_up(self) -> None:
        k, c = self._wanted, self.panel.controller
        if k is None:
            return
        if c.busy:   # a long jump still runs: look again shortly
            self._follow.start()
            return
        self._wanted = None
        if k != c.step_index:
            c.goto(k)
            self._follow.start()

    def search(self) -> bool:
        tl = self.panel.timeline
        k = find_step(tl.records, self.find_edit.text(), tl.cache.text)
        if k is None:
            self.panel.controller.message.emit(
                f"No step so far made a token like “{self.find_edit.text()}”.")
            return False
        self.panel.controller.goto(k)
        return True
