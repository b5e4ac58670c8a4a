"""The Qt application. The engine (``bpe_gui.engine``) never imports anything from here."""
from __future__ import annotations

import sys

import PySide6

# The one PySide6 release known to lose references to None, True and False (see below).
# pyproject.toml excludes it; this guard is for an environment that has it anyway.
BROKEN_PYSIDE6 = "6.12.0"


def _guard_singleton_refcounts() -> None:
    """Work around PySide6 6.12.0's reference-count bug on None/True/False (CPython < 3.12).

    In 6.12.0 (and not in 6.11.3), reproduced without any bpe-gui code: each time C++
    calls a Python ``data()`` override that returns None, None loses a reference (1,000
    calls: -1,000), and each ``Signal(bool)`` emitted to a Python slot takes one from
    True or False (100 emits: -100). Views ask models for many roles per repaint, so
    after a while a count reaches zero and the interpreter aborts ("Fatal Python error:
    none_dealloc" / "bool_dealloc"). On 6.12.0 only, give the three objects a
    reference count no program can exhaust; they are never freed anyway. CPython 3.12+
    makes them immortal, so nothing is needed there. Our own C extensions are checked
    without this guard (tests/engine/test_singleton_refcounts.py).
    """
    if PySide6.__version__ != BROKEN_PYSIDE6:
        return
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return
    import ctypes
    for obj in (None, True, False):
        refcnt = ctypes.c_ssize_t.from_address(id(obj))
        if refcnt.value < 1 << 40:
            refcnt.value += 1 << 40


_guard_singleton_refcounts()
