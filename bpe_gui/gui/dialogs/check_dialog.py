"""Check my BPE's window: a dialog holding the check panel (panels/check/), opened from
Training › Check my BPE… (:func:`show_check_dialog`). Not modal: the main window stays
usable beside it (its corpus is the check's default corpus)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QVBoxLayout, QWidget

from ..panels.check.check_panel import CheckHost, CheckPanel
from ..widgets.default_button import make_default
from . import one_dialog


class CheckDialog(QDialog):
    def __init__(self, controller: CheckHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Check my BPE")
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint, True)
        self.panel = CheckPanel(controller, self)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.panel)
        make_default(self.panel.check_btn)   # Enter checks, also after Browse…
        self.setFocusProxy(self.panel.result_edit)   # typing starts in "Your result"
        self.panel.result_edit.setFocus()
        screen = (parent.screen() if parent is not None else self.screen()).availableGeometry()
        # (60 pixels short of an 800x600 screen cut the intro: 40 leave room for a title bar)
        self.resize(min(1300, screen.width() - 40), min(900, screen.height() - 40))
        # never taller or wider than the screen: the parts inside scroll or share a splitter
        self.setMaximumSize(screen.size())


def show_check_dialog(controller: CheckHost, window: QWidget) -> CheckDialog:
    """Open (or bring to the front) the window's one Check my BPE dialog."""
    return one_dialog(window, CheckDialog, controller)
