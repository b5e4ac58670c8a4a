"""How the ``bpe-gui`` process ends once its command returned.

``sys.exit`` tears the interpreter down: every module and object is freed, and the cyclic
collector walks what is left. A headless command has nothing left that needs it: its
files are written and closed. So when nothing else runs, the process runs its ``atexit``
functions and flushes its standard streams, as ``sys.exit`` would, and then ends at once.
"""
from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def end_process(rc: int | str | None) -> NoReturn:
    """End the process with exit status ``rc`` (what a command returned), as
    ``sys.exit(rc)`` does, less the interpreter's teardown when it can be skipped:
    ``rc`` is an int, no other thread runs (one might still be writing), and Qt was
    never imported (the window's objects shut down on their own)."""
    if type(rc) is not int or threading.active_count() != 1 or "PySide6" in sys.modules:
        sys.exit(rc)
    atexit._run_exitfuncs()   # (they run once: this also empties the list)
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except Exception:   # noqa: BLE001 - e.g. a closed pipe: said as sys.exit says it
        sys.exit(rc)
    os._exit(rc & 0xFF)   # (as the C exit() keeps it)
