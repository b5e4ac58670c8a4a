"""The GUI's garbage-collection policy, in one place: no cyclic collection while jobs
run (:class:`GCPause`, which the job runner calls), and otherwise only at safe moments,
from a GUI-thread timer (:class:`GuiThreadCollector`).

Automatic collection runs wherever Python happens to allocate. Inside a paint (a
Python ``paintEvent``, or a model's ``data()`` that a view calls while it paints), a
collection that frees an unreachable top-level widget (a closed panel or dialog caught
in a reference cycle) runs that widget's C++ destructor in the middle of the paint; its
backing store goes with it and the painter draws into freed memory (valgrind showed
exactly this: a ``QPainter::drawPixmap`` reading a ``QImage`` freed by
``QWidget::~QWidget`` called from ``gc_collect_main``). So automatic collection is off
and this timer collects instead, from the event loop, where nothing is being painted:
the generation whose threshold was passed, as Python would have (calibre collects the
same way, for the same reason). While jobs run (GCPause) it waits.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 250


class GCPause:
    """No cyclic garbage collection while jobs run; collect on the GUI thread instead.

    Python runs the cyclic GC in whichever thread happens to allocate, so during a job
    it ran in the worker: it freed unreachable Qt wrappers (widgets of closed dialogs)
    off the GUI thread, which crashes Qt, and each full pass rescanned the job's millions
    of records with the GIL held, freezing the window for 50-500 ms. So automatic
    collection stays off (:class:`GuiThreadCollector` turned it off when the job runner
    was made), the first job to start collects the garbage that is already there (on
    the GUI thread), and the collector waits while jobs run.

    With ``freeze_after_jobs`` (the application turns it on in ``app.main``; a library
    user or a test process keeps Python's own behaviour) the last job to end also moves
    everything alive into the permanent generation (gc.freeze: later passes skip it,
    reference counting still frees it).
    """

    running = 0
    freeze_after_jobs = False

    @classmethod
    def job_started(cls) -> None:
        if cls.running == 0:
            gc.collect()
            gc.disable()   # (off already: the collector's)
        cls.running += 1

    @classmethod
    def job_ended(cls) -> None:
        cls.running = max(0, cls.running - 1)
        if cls.running == 0 and cls.freeze_after_jobs:
            gc.freeze()


def freeze_after_jobs(on: bool = True) -> None:
    """After the last running job ends, gc.freeze() what is alive (see GCPause): a
    process-wide setting, so only the application's main() makes it."""
    GCPause.freeze_after_jobs = on


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
        if GCPause.running:
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
