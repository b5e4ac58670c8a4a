"""The light/dark palettes and the theme-aware colours every panel uses, so each stays
legible in both palettes. A leaf module (it only reads the style sheet from
:mod:`.resources`): widgets import their colours from here, not from app.py.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory, QWidget

from .resources import resources

THEMES = ("system", "light", "dark")


def dark_palette() -> QPalette:
    """A dark Fusion palette with enough contrast for text, links and disabled items."""
    p = QPalette()
    window, base, text = QColor(45, 45, 48), QColor(30, 30, 32), QColor(230, 230, 230)
    disabled = QColor(130, 130, 130)
    R = QPalette.ColorRole
    for role, color in [
        (R.Window, window), (R.WindowText, text), (R.Base, base),
        (R.AlternateBase, QColor(40, 40, 44)), (R.ToolTipBase, QColor(60, 60, 64)),
        (R.ToolTipText, text), (R.PlaceholderText, QColor(150, 150, 150)),
        (R.Text, text), (R.Button, QColor(55, 55, 58)),
        (R.ButtonText, text), (R.BrightText, QColor(255, 110, 110)),
        (R.Link, QColor(110, 170, 255)), (R.LinkVisited, QColor(170, 140, 255)),
        (R.Highlight, QColor(42, 110, 190)), (R.HighlightedText, QColor(255, 255, 255)),
        (R.Light, QColor(75, 75, 78)), (R.Midlight, QColor(62, 62, 65)),
        (R.Mid, QColor(40, 40, 42)), (R.Dark, QColor(25, 25, 27)),
        (R.Shadow, QColor(10, 10, 10)),
    ]:
        p.setColor(role, color)
    for role in (R.WindowText, R.Text, R.ButtonText, R.HighlightedText):
        p.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return p


def system_prefers_dark() -> bool:
    hints = QGuiApplication.styleHints()
    try:
        return hints.colorScheme() == Qt.ColorScheme.Dark
    except AttributeError:  # Qt < 6.5
        return False


def apply_theme(name: str, app: QApplication | None = None) -> str:
    """Apply "light", "dark" or "system"; returns the palette actually used."""
    found = app or QApplication.instance()
    if not isinstance(found, QApplication):
        raise RuntimeError("apply_theme needs the QApplication: create it first.")
    app = found
    if name not in THEMES:
        name = "system"
    dark = name == "dark" or (name == "system" and system_prefers_dark())
    style = QStyleFactory.create("Fusion")
    if style is not None:
        app.setStyle(style)
    app.setPalette(dark_palette() if dark else app.style().standardPalette())
    try:
        sheet = resources().style_sheet(dark)
    except (ImportError, OSError):
        sheet = ""
    app.setStyleSheet(sheet)
    return "dark" if dark else "light"


def is_dark(widget=None) -> bool:
    pal = widget.palette() if widget is not None else QApplication.palette()
    return pal.color(QPalette.ColorRole.Window).lightness() < 128


def colors(widget=None) -> dict[str, str]:
    """Theme-aware colours for messages and banners (CSS strings)."""
    if is_dark(widget):
        return {"error": "#ff8a80", "ok": "#8bd48b", "warn_bg": "#4a3f1c", "warn_fg": "#ffe6a6",
                "info_bg": "#1f3550", "info_fg": "#d6e6ff", "accent": "#f2b134",
                "muted": "#a0a0a0"}
    return {"error": "#b3261e", "ok": "#2e7d32", "warn_bg": "#fff3cd", "warn_fg": "#5c4400",
            "info_bg": "#e3efff", "info_fg": "#0b3a75", "accent": "#a05a00", "muted": "#666666"}


class _PaletteFollower(QObject):
    """Calls ``restyle`` when its widget's palette changes (see :func:`follow_palette`)."""

    def __init__(self, widget: QWidget, restyle: Callable[[], None]):
        super().__init__(widget)   # lives as long as the widget
        self._restyle = restyle
        widget.installEventFilter(self)

    def eventFilter(self, _obj, event) -> bool:
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()   # before the widget's own changeEvent, as panels did it
        return False


def follow_palette(widget: QWidget, restyle: Callable[[], None]) -> None:
    """Style ``widget`` now with ``restyle`` and again whenever its palette changes (a
    theme change): for style sheets made of :func:`colors`, which Qt does not update.
    ``restyle`` should set a style sheet only if it differs (setting one is itself a
    palette change)."""
    restyle()
    _PaletteFollower(widget, restyle)
