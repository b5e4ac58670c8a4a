"""The main window opened at the screen sizes its layout is checked at."""
from __future__ import annotations

from bpe_gui.gui.window.docks import DockLayout
from settle import settle

SIZES = [(800, 600), (1024, 700), (1920, 1080)]


def open_at(make_window, qtbot, monkeypatch, size):
    """A window as it opens on a screen of ``size`` (its default layout, quiet)."""
    w, h = size
    monkeypatch.setattr(DockLayout, "_screen_height", staticmethod(lambda: h))
    monkeypatch.setattr(DockLayout, "_default_size", lambda self: (w, h - 30))
    win = make_window()
    win.resize(w, h - 30)
    qtbot.waitUntil(lambda: win.width() == w)
    win.dock_layout.reset_layout()
    settle(qtbot, win, win.controller)
    return win


def in_focus(make_window, qtbot, monkeypatch, size, panel: str):
    """A window opened at ``size`` with the panel ``panel`` ('compare', 'chat' ...) raised
    and in Focus (quiet)."""
    win = open_at(make_window, qtbot, monkeypatch, size)
    dl = win.dock_layout
    dock, view = getattr(dl, f"{panel}_dock"), getattr(dl, f"{panel}_view")
    dock.raise_()
    qtbot.waitUntil(view.isVisible)
    assert dl.toggle_focus(dock)
    settle(qtbot, win, win.controller)
    return win
