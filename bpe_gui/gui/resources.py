"""The built-in resources (samples, icon, style sheet) and the application icon.

A leaf module: panels, dialogs and the window read resources from here, not from the
application entry module (app.py), so none of them imports what imports them.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from PySide6.QtCore import QByteArray
from PySide6.QtGui import QIcon, QPixmap


def resources() -> ModuleType:
    """``bpe_gui.resources``; from a source checkout (no install) it is loaded from
    the top-level ``resources/`` folder beside the package, as pyproject maps it."""
    try:
        from bpe_gui import resources as res  # type: ignore[attr-defined]
        return res
    except ImportError:
        folder = Path(__file__).resolve().parents[2] / "resources"
        spec = importlib.util.spec_from_file_location(
            "bpe_gui.resources", folder / "__init__.py", submodule_search_locations=[str(folder)])
        if spec is None or spec.loader is None:
            raise
        mod = importlib.util.module_from_spec(spec)
        sys.modules["bpe_gui.resources"] = mod
        spec.loader.exec_module(mod)
        return mod


def app_icon() -> QIcon:
    pix = QPixmap()
    try:
        pix.loadFromData(QByteArray(resources().icon_svg()), "SVG")
    except (OSError, ImportError):
        return QIcon()
    return QIcon(pix)
