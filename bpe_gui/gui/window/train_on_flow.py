"""The window's side of training on from the imported tokenizer: the Training menu's
"Train on from the imported tokenizer…" (Ctrl+Shift+T) opens the dialog that asks for
the number of new merges, and "Train from scratch again" ends the mode; which of them
are enabled follows the controller (a tokenizer imported, a corpus, no job running).

:class:`TrainOnFlow` is a composed part of the main window.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMainWindow

from ..controller.controller import Controller
from ..dialogs.train_on_dialog import TrainOnDialog
from ..panels.corpus.corpus_editor import CorpusEditor


class TrainOnFlow(QObject):
    """Given the window (the dialog's parent), the controller, the corpus editor (its
    text is flushed to the corpus first) and how to show an error."""

    def __init__(self, window: QMainWindow, controller: Controller, editor: CorpusEditor,
                 show_error: Callable[[str, str], object]):
        super().__init__(window)
        self.window, self.controller, self.editor = window, controller, editor
        self.show_error = show_error
        self.dialog: TrainOnDialog | None = None

    def active(self) -> bool:
        c = self.controller
        return c.train_on.active and not c.busy

    def ask(self) -> TrainOnDialog | None:
        """Open the dialog (not modal: the window stays live); None, and the reason in
        a message box, when training on cannot start now."""
        c = self.controller
        why = c.train_on.why_not()
        if why is not None:
            self.show_error("Train on from the imported tokenizer", why)
            return None
        if self.dialog is not None and self.dialog.isVisible():   # open: bring it up
            self.dialog.raise_()
            self.dialog.activateWindow()
            return self.dialog
        self.editor.flush()   # the corpus as typed
        dlg = TrainOnDialog(c, self.window)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.destroyed.connect(lambda *_: setattr(self, "dialog", None))
        self.dialog = dlg
        dlg.open()
        return dlg

    def leave(self) -> bool:
        return self.controller.train_on.end()
