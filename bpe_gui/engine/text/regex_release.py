"""The installed ``regex`` module's release (``regex.__version__``), known without
importing it.

The native scanner and the counter check that their built-in Unicode tables were made
with the installed ``regex``, and the exports look up which Unicode version the release
carries (formats/onig_presets.py); on the presets' paths nothing else needs ``regex``,
and importing it costs a start-up ~10 ms and ~2 MB. So the release is read from the assignment
``__version__ = "..."`` in the package's own ``_main.py``, the file that would run; where
that cannot be read (another layout, compiled files only), ``regex`` is imported.
"""
from __future__ import annotations

import sys
from functools import lru_cache

_ASSIGN = '\n__version__ = "'


def regex_version() -> str:
    """``regex.__version__``. Example: '2026.5.9'."""
    module = sys.modules.get("regex")
    if module is not None:
        return module.__version__
    return _read_version() or _imported_version()


@lru_cache(maxsize=1)
def _read_version() -> str | None:
    import importlib.util
    import os
    try:
        spec = importlib.util.find_spec("regex")
    except (ImportError, ValueError):
        return None
    places = spec.submodule_search_locations if spec is not None else None
    if not places:
        return None
    try:
        with open(os.path.join(list(places)[0], "_main.py"), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    at = text.find(_ASSIGN)
    if at < 0 or text.find(_ASSIGN, at + 1) >= 0:   # none, or more than one: ask regex
        return None
    start = at + len(_ASSIGN)
    end = text.find('"', start)
    version = text[start:end]
    return version if 0 < len(version) < 40 and "\n" not in version else None


def _imported_version() -> str:
    import regex
    return regex.__version__
