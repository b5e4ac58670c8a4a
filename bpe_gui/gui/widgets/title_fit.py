"""A small dialog made as wide as its title bar needs: a window manager shows the title
as Qt hands it over (the title, then " — " and the application's display name) beside
the window's icon and buttons, and cuts it with "…" when the dialog is narrower
(openbox keeps its two ends: "Run t… pe-gui")."""
from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetrics, QGuiApplication
from PySide6.QtWidgets import QLayout, QWidget

# the title bar's icon and its three buttons (minimize, maximize, close) and the padding
# around the title: about 24 pixels each in common themes (openbox, KDE, GNOME, Windows)
TITLE_BAR_EXTRA = 5 * 24


def shown_title(window: QWidget) -> str:
    """The title as the window manager receives it (QPlatformWindow::formatWindowTitle:
    the display name is appended unless the title already is it)."""
    title = window.windowTitle()
    name = QGuiApplication.applicationDisplayName()
    return title if not name or title == name or not title else f"{title} \u2014 {name}"


def title_bar_width(window: QWidget) -> int:
    """The width the title bar needs to show the whole title, in a bold font of the
    application's size (title bars use a bold font about that size, or smaller)."""
    font = QFont(window.font())
    font.setBold(True)
    return QFontMetrics(font).horizontalAdvance(shown_title(window)) + TITLE_BAR_EXTRA


def fit_title(window: QWidget) -> None:
    """At least as wide as its title bar needs (never wider than the screen)."""
    width = title_bar_width(window)
    screen = window.screen()
    if screen is not None:
        width = min(width, screen.availableGeometry().width())
    lay = window.layout()
    if lay is not None:   # (QInputDialog's own constraint resets any minimum set here)
        lay.setSizeConstraint(QLayout.SizeConstraint.SetDefaultConstraint)
        window.setMinimumHeight(lay.minimumSize().height())   # its contents' height kept
    window.setMinimumWidth(max(window.minimumWidth(), width))
    window.resize(max(window.width(), width), window.height())
