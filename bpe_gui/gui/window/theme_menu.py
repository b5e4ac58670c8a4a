"""The main window's theme: light, dark or the system's (View › Theme), remembered in
QSettings. The palettes and the style sheet are in gui/theme.py.

:class:`ThemeMenu` is a part of :class:`~bpe_gui.gui.window.main_window.MainWindow`,
given the settings that remember the choice, the menu's actions (one per theme) and
what to re-colour after a change.
"""
from __future__ import annotations

from typing import Callable, Mapping

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction

from ..theme import THEMES, apply_theme


class ThemeMenu:
    """View › Theme."""

    def __init__(self, settings: QSettings, actions: Mapping[str, QAction],
                 recolour: Callable[[], None]):
        self.settings, self.actions, self.recolour = settings, actions, recolour
        self.name = str(settings.value("theme", "system"))

    def set(self, name: str, save: bool = True) -> None:
        if name not in THEMES:
            name = "system"
        self.name = name
        self.actions[name].setChecked(True)
        apply_theme(name)
        self.recolour()
        if save:
            self.settings.setValue("theme", name)
