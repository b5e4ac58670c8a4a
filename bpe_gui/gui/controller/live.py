"""A look at the trainer while a job on the worker thread runs it.

The trainer is not thread-safe, so while a job steps it the window must not read it.
A :class:`LiveView` lets the job stop for a moment between two steps, a few times a
second, and hands the GUI thread a consistent trainer to read during that moment:

- the job holds ``lock`` while it works and calls :meth:`checkpoint` between steps;
- a checkpoint (at most every ``interval`` s) releases the lock, signals ``ready`` to
  the GUI thread and waits a little for it to look;
- the GUI thread only *tries* the lock: if the job has moved on (the window was slow)
  it skips that look. So the window never blocks on the job, and the job never
  waits more than ``max_wait`` s on the window (closing the window waits for the job).
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Callable

from PySide6.QtCore import QObject, Signal, Slot


class LiveView(QObject):
    ready = Signal()      # worker -> GUI thread (queued): the trainer may be read now
    look = Signal()       # GUI thread: read the trainer now (it holds still meanwhile)

    def __init__(self, interval: float = 0.25, max_wait: float = 0.1,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.interval = interval
        self.max_wait = max_wait
        self.looking = False
        self._lock = threading.Lock()
        self._looked = threading.Event()
        self._last = 0.0
        self.ready.connect(self._on_ready)

    @contextmanager
    def holding(self):
        """In the job: the trainer is the job's while this block runs."""
        self._lock.acquire()
        self._last = time.monotonic()
        try:
            yield self
        finally:
            self._lock.release()

    def checkpoint(self) -> None:
        """In the job, between two steps: let the window look if it is time."""
        now = time.monotonic()
        if now - self._last < self.interval:
            return
        self._looked.clear()
        self._lock.release()
        try:
            self.ready.emit()
            self._looked.wait(self.max_wait)
        finally:
            self._lock.acquire()
            self._last = time.monotonic()

    def wrap(self, progress: Callable[[int, int], None]) -> Callable[[int, int], None]:
        """A progress callback that is also a checkpoint (Trainer.run calls it between
        steps, every 50 ms)."""
        def report(done: int, total: int) -> None:
            progress(done, total)
            self.checkpoint()
        return report

    @Slot()
    def _on_ready(self) -> None:
        if not self._lock.acquire(blocking=False):
            return  # the job went on already; look next time
        self.looking = True
        try:
            self.look.emit()
        finally:
            self.looking = False
            self._lock.release()
            self._looked.set()
