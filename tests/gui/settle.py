"""Waiting for a window to be quiet, as a condition rather than a guessed time."""
from __future__ import annotations

from PySide6.QtCore import QObject, QTimer


def pending_timers(*roots: QObject) -> list[QTimer]:
    """The single-shot timers under roots that have not fired yet: the debounces,
    throttles and deferred redraws that some work started."""
    return [t for r in roots for t in r.findChildren(QTimer)
            if t.isActive() and t.isSingleShot()]


def settle(qtbot, *roots: QObject, timeout: int = 20_000) -> None:
    """Until every single-shot timer under roots has fired and every event posted before
    now has been delivered (a zero-timer posted last runs after them).

    A throttled update that should not happen (a hidden panel redrawing) would run
    before this returns, so a test can then assert that nothing changed; a quiet window
    returns at once."""
    qtbot.waitUntil(lambda: not pending_timers(*roots), timeout=timeout)
    done: list[int] = []
    QTimer.singleShot(0, lambda: done.append(1))
    qtbot.waitUntil(lambda: bool(done), timeout=timeout)
