"""The Qt application. The engine (``bpe_gui.engine``) never imports anything from here."""
from __future__ import annotations

import sys


def _guard_singleton_refcounts() -> None:
    """Work around a PySide6 6.12 reference-count bug on Python < 3.12.

    Shiboken drops one reference too many to None when C++ calls a Python ``data()``
    override that returns None (every model does, for roles it does not handle), and
    to True/False when a bool signal reaches a lambda (``busyChanged``, ``toggled``...).
    Views ask for many roles on every repaint, so after a while the count reaches zero
    and the interpreter aborts ("Fatal Python error: none_dealloc" / "bool_dealloc").
    Python 3.12+ makes these objects immortal; on older versions give them a
    reference count no program can exhaust. Harmless: they are never freed anyway.
    """
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return
    import ctypes
    for obj in (None, True, False):
        refcnt = ctypes.c_ssize_t.from_address(id(obj))
        if refcnt.value < 1 << 40:
            refcnt.value += 1 << 40


_guard_singleton_refcounts()

# Every Python call the GUI thread makes (a slot, a model's data(), a delegate's paint)
# needs the GIL; while a job runs Python on the worker thread, each handover waits up
# to the switch interval (5 ms by default), and a repaint makes hundreds of such calls.
# A shorter interval keeps the window responsive during training at a tiny cost.
GIL_SWITCH_INTERVAL_S = 0.0005
if sys.getswitchinterval() > GIL_SWITCH_INTERVAL_S:
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
