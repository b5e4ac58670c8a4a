"""The main window's theme: light, dark or the system's (View › Theme), remembered in
QSettings. The palettes and the dark style sheet are in app.py.

:class:`Theme` is a part of :class:`~bpe_gui.gui.main_window.MainWindow` (a mixin).
"""
from __future__ import annotations

from ..theme import THEMES, apply_theme


class Theme:
    """View › Theme."""

    def set_theme(self, name: str, save: bool = True) -> None:
        if name not in THEMES:
            name = "system"
        self.theme = name
        self.theme_actions[name].setChecked(True)
        apply_theme(name)
        self._on_stale(self.controller.stale)
        if save:
            self.settings.setValue("theme", name)
