"""Issue 67, layout: each panel readable at the sizes the issue names, measured offscreen
against the panels' own texts (widths from font metrics, rows from the views' viewports)."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QApplication

from screens import open_at
from settle import settle as quiet


def bold_width(widget, text: str) -> int:
    font = QFont(widget.font())
    font.setBold(True)
    return QFontMetrics(font).horizontalAdvance(text)


@pytest.mark.regression
def test_run_to_step_dialog_fits_its_title(make_window, qtbot, monkeypatch):
    """The title bar reads "Run to step — bpe-gui" whole: the window manager adds the
    application's name, an icon and three buttons (about 20 pixels each) to the dialog's
    width; at the spin box's width openbox showed "Run t… pe-gui"."""
    win = open_at(make_window, qtbot, monkeypatch, (800, 600))
    dlg = win.actions_menus.goto_dialog()
    qtbot.waitUntil(dlg.isVisible)
    name = QApplication.applicationDisplayName()   # (the test runner's, here)
    assert dlg.windowTitle() == "Run to step" and name
    needed = bold_width(dlg, f"Run to step \u2014 {name}") + 4 * 20
    assert dlg.width() >= needed, (dlg.width(), needed)
    dlg.setIntValue(3)     # and it still runs to the step asked for
    dlg.accept()
    qtbot.waitUntil(lambda: win.controller.step_index == 3)
