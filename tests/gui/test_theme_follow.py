"""Style sheets built from the theme's colours follow a theme change (theme.follow_palette:
one helper for the panels that restyle themselves)."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel

from bpe_gui.gui import theme
from bpe_gui.gui.theme import apply_theme, colors


def test_follow_palette_restyles_now_and_on_each_palette_change(qtbot):
    label = QLabel("x")
    qtbot.addWidget(label)
    label.show()
    seen = []
    theme.follow_palette(label, lambda: seen.append(colors(label)["error"]))
    try:
        apply_theme("light")
        apply_theme("dark")
        assert seen[0] in (colors(None)["error"], "#b3261e", "#ff8a80")
        assert seen[-1] == "#ff8a80"          # the dark palette's error colour
        apply_theme("light")
        assert seen[-1] == "#b3261e"
    finally:
        apply_theme("light")


@pytest.mark.regression
def test_the_panels_take_the_new_theme_colours(window):
    """The sample notice kept the first theme's colours: it read the theme from its own
    palette, which its style sheet sets."""
    w = window
    w.themes.set("dark", save=False)
    try:
        dark = colors(w)
        assert dark["accent"] in w.dock_layout.editor.unsaved_label.styleSheet()
        assert dark["error"] in w.dock_layout.settings_panel.target_error.styleSheet()
        assert dark["info_bg"] in w.dock_layout.editor.notice.styleSheet()
        w.themes.set("light", save=False)
        light = colors(w)
        assert light != dark
        assert light["accent"] in w.dock_layout.editor.unsaved_label.styleSheet()
        assert light["error"] in w.dock_layout.settings_panel.target_error.styleSheet()
        assert light["info_bg"] in w.dock_layout.editor.notice.styleSheet()
    finally:
        w.themes.set("light", save=False)
