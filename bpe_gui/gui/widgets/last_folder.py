"""One remembered folder for every file dialog (open corpus, sessions, PNG/CSV, import),
so the next dialog starts where the last one ended, whatever kind it was."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

KEY = "lastFolder"


def last_folder() -> str:
    folder = str(QSettings().value(KEY, "") or "")
    return folder if folder and Path(folder).is_dir() else str(Path.home())


def in_last_folder(name: str) -> str:
    """A default path for a save dialog: ``name`` in the last folder."""
    return str(Path(last_folder()) / name)


def remember(path: str) -> None:
    """Remember the folder of a file (or a folder) the user picked."""
    if not path:
        return
    p = Path(path)
    QSettings().setValue(KEY, str(p if p.is_dir() else p.parent))
