"""The window's dialogs (docs/ARCHITECTURE.md); :func:`one_dialog` opens the modeless ones."""
from __future__ import annotations

from typing import TypeVar

from PySide6.QtWidgets import QDialog, QWidget

D = TypeVar("D", bound=QDialog)


def one_dialog(window: QWidget, cls: type[D], controller: object) -> D:
    """Open (or bring to the front) the window's one dialog of class ``cls``, made as
    ``cls(controller, window)`` the first time."""
    dlg = window.findChild(cls)
    if dlg is None:
        dlg = cls(controller, window)  # type: ignore[arg-type]  # (each takes these two)
    dlg.show()
    dlg.raise_()
    dlg.activateWindow()
    return dlg
