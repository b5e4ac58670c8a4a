"""Files the engine computes once and keeps between runs, in the user's cache folder.

What is kept here can always be made again (e.g. the scanner's Unicode tables for the
installed ``regex``): a missing, unreadable or damaged file is made again, and a folder
that cannot be written only costs the time of making it at every start. Each file ends
with the CRC-32 of its content, so a file cut short or changed is never used.

The folder: ``BPE_GUI_CACHE_DIR`` if set, else the platform's cache folder
(``%LOCALAPPDATA%\\bpe-gui\\Cache`` on Windows, ``~/Library/Caches/bpe-gui`` on macOS,
``$XDG_CACHE_HOME/bpe-gui`` or ``~/.cache/bpe-gui`` elsewhere).
"""
from __future__ import annotations

import os
import sys
import zlib
from pathlib import Path

from .atomic import temp_beside

ENV = "BPE_GUI_CACHE_DIR"


def cache_dir() -> Path:
    """The folder the cached files go in (not created here)."""
    given = os.environ.get(ENV)
    if given:
        return Path(given)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "bpe-gui" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "bpe-gui"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "bpe-gui"


def read_cached(name: str) -> bytes | None:
    """The content of cached file ``name``, or None if it is missing or damaged."""
    try:
        data = (cache_dir() / name).read_bytes()
    except (OSError, RuntimeError):   # (RuntimeError: no home folder to expand)
        return None
    if len(data) < 4:
        return None
    body = data[:-4]
    if zlib.crc32(body).to_bytes(4, "little") != data[-4:]:
        return None
    return body


def write_cached(name: str, data: bytes) -> bool:
    """Keep ``data`` as cached file ``name``, whole or not at all (a new temporary file,
    then a rename: a reader elsewhere never sees half of it).
    False if the folder cannot be written; the caller goes on without it."""
    try:
        folder = cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
    except (OSError, RuntimeError):
        return False
    try:
        with temp_beside(folder / name) as tmp:
            Path(tmp).write_bytes(data + zlib.crc32(data).to_bytes(4, "little"))
            os.replace(tmp, folder / name)
        return True
    except OSError:
        return False
