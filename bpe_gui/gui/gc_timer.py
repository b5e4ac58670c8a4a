"""Python's cyclic garbage collection only at safe moments: from a GUI-thread timer.

Automatic collection runs wherever Python happens to allocate. Inside a paint (a
Python ``paintEvent``, or a model's ``data()`` that a view calls while it paints), a
collection that frees an unreachable top-level widget (a closed panel or dialog caught
in a reference cycle) runs that widget's C++ destructor in the middle of the paint; its
backing store goes with it and the painter draws into freed memory (valgrind showed
exactly this: a ``QPainter::drawPixmap`` reading a ``QImage`` freed by
``QWidget::~QWidget`` called from ``gc_collect_main``). So automatic collection is off
and this timer collects instead, from the event loop, where nothing is being painted:
the generation whose threshold was passed, as Python would have (calibre collects the
same way, for the same reason). While jobs run (worker._GCPause) it waits.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 250


class GuiThreadCollector(QObject):
    _instance: "GuiThreadCollector | None" = None

    @classmethod
    def install(cls) -> "GuiThreadCollector":
        """Once per process, on the GUI thread (after the QApplication exists)."""
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def __init__(self):
        super().__init__()
        gc.disable()
        self.timer = QTimer(self, interval=INTERVAL_MS)
        self.timer.timeout.connect(self.check)
        self.timer.start()

    def check(self) -> None:
        from .worker import _GCPause
        if _GCPause.running:
            return   # jobs hold millions of records: collect when they are done
        counts, limits = gc.get_count(), gc.get_threshold()
        gen = next((g for g in (2, 1, 0) if counts[g] > limits[g]), None)
        if gen is not None:
            gc.collect(gen)


def _malloc_trim():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):   # not glibc (musl has no malloc_trim)
        return None


_TRIM = _malloc_trim()


def release_freed_memory() -> None:
    """Give the heap that a dropped trainer freed back to the system (glibc keeps freed
    blocks for reuse, so a replaced 1 GiB-corpus trainer's ~300 MB stayed resident)."""
    if _TRIM is not None:
        _TRIM(0)
