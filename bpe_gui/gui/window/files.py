"""Files dropped on or opened in the main window: sessions, tokenizer files or corpus
files, told apart by name; unsaved corpus edits (Save / Discard / Cancel); a corpus that
is not UTF-8 (the encoding dialog).

:class:`FilesAndDrops` is a part of :class:`~bpe_gui.gui.main_window.MainWindow` (a
mixin).
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (QMessageBox)

from ..controller.corpus_source import not_a_file
from ..panels.corpus.corpus_editor import SESSION_SUFFIX

TOKENIZER_SUFFIXES = {".json", ".tiktoken", ".model"}


class FilesAndDrops:
    """Opening what the user picks or drops."""

    def _on_not_utf8(self, paths: list, bad: str, offset: int, message: str) -> None:
        from ..dialogs.encoding_dialog import EncodingDialog
        self.last_error = ("Not UTF-8", message)
        dlg = EncodingDialog(list(paths), bad, offset, message, self)
        dlg.setAttribute(Qt.WA_DeleteOnClose)
        dlg.accepted.connect(lambda: self.controller.open_files(list(paths),
                                                                encoding=dlg.encoding()))
        self.encoding_dialog = dlg
        dlg.open()

    # ----- files ------------------------------------------------------------------------
    def open_paths(self, paths: Sequence[str]) -> bool:
        """Open what was dropped or picked: sessions, tokenizer files or corpus files."""
        paths = [str(p) for p in paths if str(p)]
        if not paths:
            return False
        sessions = [p for p in paths if p.endswith(SESSION_SUFFIX)]
        if sessions:
            return self.open_session(sessions[0])
        tokenizers = [p for p in paths if Path(p).is_dir()
                      or Path(p).suffix.lower() in TOKENIZER_SUFFIXES
                      or Path(p).name.lower().endswith("merges.txt")]
        if tokenizers:
            # a pipe or a device named like a tokenizer file would block open() here
            why = not_a_file([p for p in tokenizers[:1] if not Path(p).is_dir()])
            if why is not None:
                self.show_error("Import failed", why)
                return False
            from ..dialogs.import_dialog import BACKGROUND_BYTES, _size
            if _size(tokenizers[0]) > BACKGROUND_BYTES:   # progress in the status bar
                return self.controller.import_in_background(tokenizers[0])
            return self.controller.import_tokenizer(tokenizers[0]) is not None
        return self.editor.open_files(paths)

    def dragEnterEvent(self, event) -> None:
        md = event.mimeData()
        if md.hasUrls() and any(u.isLocalFile() for u in md.urls()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event) -> None:
        files = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if files:
            event.acceptProposedAction()
            # after the drop returns, so a message box never runs inside the drag loop
            QTimer.singleShot(0, lambda: self.open_paths(files))
        else:
            super().dropEvent(event)

    def maybe_save_corpus(self) -> bool:
        """Unsaved corpus edits: ask Save / Discard / Cancel. True = go ahead."""
        self.editor.flush()
        c = self.controller
        if not c.corpus_dirty:
            return True
        ans = QMessageBox.question(
            self, "Unsaved corpus",
            "The corpus has edits that are not saved to a file. Save them first?",
            QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        if ans == QMessageBox.Save:   # always through the dialog: it asks before overwriting
            return self.editor.save_as_dialog()
        return ans == QMessageBox.Discard
