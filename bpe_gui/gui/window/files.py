"""Files dropped on or opened in the main window: sessions, tokenizer files or corpus
files, told apart by name; unsaved corpus edits (Save / Discard / Cancel); a corpus that
is not UTF-8 (the encoding dialog).

:class:`Files` is a part of :class:`~bpe_gui.gui.window.main_window.MainWindow`,
given the window (the parent of its dialogs), the controller, the corpus editor, how to
open a session, how to show an error and how to note one a dialog of its own shows.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QMainWindow, QMessageBox

from ...engine.formats import describe_file, looks_like_tokenizer
from ...engine.train import looks_like_session
from ..controller.controller import Controller
from ..controller.corpus_source import not_a_file
from ..dialogs.encoding_dialog import EncodingDialog
from ..dialogs.import_dialog import BACKGROUND_BYTES, _size
from ..panels.corpus.corpus_editor import SESSION_SUFFIX

TOKENIZER_SUFFIXES = {".json", ".tiktoken", ".model", ".gguf"}


class Files:
    """Opening what the user picks or drops."""

    def __init__(self, window: QMainWindow, controller: Controller, editor,
                 open_session: Callable[[str], bool], show_error: Callable[[str, str], object],
                 note_error: Callable[[str, str], object]):
        self.window, self.controller, self.editor = window, controller, editor
        self.open_session, self.show_error, self.note_error = open_session, show_error, note_error
        self.encoding_dialog: EncodingDialog | None = None
        self.discarded = False   # the last question about unsaved edits was answered Discard

    def on_not_utf8(self, paths: list, bad: str, offset: int, message: str) -> None:
        self.note_error("Not UTF-8", message)
        dlg = EncodingDialog(list(paths), bad, offset, message, self.window)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.accepted.connect(lambda: self.controller.opening.open_files(
            list(paths), encoding=dlg.encoding()))
        self.encoding_dialog = dlg
        dlg.open()

    # ----- files ------------------------------------------------------------------------
    def open_paths(self, paths: Sequence[str]) -> bool:
        """Open what was dropped or picked: sessions, tokenizer files or corpus files."""
        paths = [str(p) for p in paths if str(p)]
        if not paths:
            return False
        # a session by its name, or by its content whatever its name (work.json)
        sessions = [p for p in paths if p.endswith(SESSION_SUFFIX) or looks_like_session(p)]
        if sessions:
            return self.open_session(sessions[0])
        tokenizers = [p for p in paths if Path(p).is_dir()
                      or Path(p).suffix.lower() in TOKENIZER_SUFFIXES
                      or Path(p).name.lower().endswith("merges.txt")
                      or looks_like_tokenizer(p)]   # by content: tokenizer.model.v3, CLIP's .gz
        if tokenizers:
            # a pipe or a device named like a tokenizer file would block open() here
            why = not_a_file([p for p in tokenizers[:1] if not Path(p).is_dir()])
            if why is not None:
                self.show_error("Import failed", why)
                return False
            why = neither_json(tokenizers[0])
            if why is not None:
                self.show_error("Not opened", why)
                return False
            if _size(tokenizers[0]) > BACKGROUND_BYTES:   # progress in the status bar
                return self.controller.tokenizer_files.import_in_background(tokenizers[0])
            return self.controller.tokenizer_files.import_tokenizer(tokenizers[0]) is not None
        return self.editor.open_files(paths)

    # the window's drag and drop events: True when taken here
    @staticmethod
    def drag_enter(event) -> bool:
        md = event.mimeData()
        if md.hasUrls() and any(u.isLocalFile() for u in md.urls()):
            event.acceptProposedAction()
            return True
        return False

    @staticmethod
    def drag_move(event) -> bool:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
            return True
        return False

    def drop(self, event) -> bool:
        files = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if not files:
            return False
        event.acceptProposedAction()
        # after the drop returns, so a message box never runs inside the drag loop
        QTimer.singleShot(0, lambda: self.open_paths(files))
        return True

    def confirm_clear(self) -> bool:
        """Corpus > Clear and New: ask first when it throws away trained steps or edits
        not saved to a file (confirm_replace). True = go ahead."""
        return self.confirm_replace("Clear the corpus and start an empty one")

    def confirm_replace(self, what: str) -> bool:
        """Before ``what`` ("Open a.txt", "Load the sample …", Clear) replaces the corpus:
        the same question on every route. Trained steps of a run that reads the corpus
        (not parity's, which reads its languages) are said with the edits not saved;
        edits alone get Save / Discard / Cancel. True = go ahead."""
        self.editor.flush()
        c = self.controller
        steps = c.training.at_stake()
        if not steps:
            return self.maybe_save_corpus()
        gone = [f"• the training: {steps:,} merge{'s' if steps != 1 else ''} "
                f"(step {c.step_index:,} on show)"]
        if c.corpus_dirty:
            gone.append("• edits to the corpus that are not saved to a file")
        box = QMessageBox(QMessageBox.Icon.Warning, f"{what}?",
                          f"{what}? This throws away:\n" + "\n".join(gone),
                          parent=self.window)
        box.setInformativeText(
            "It cannot be undone. To keep the training, save a session first (File > "
            "Save session); to keep the text, save the corpus (Save as…).")
        go = box.addButton(what.split()[0], QMessageBox.ButtonRole.DestructiveRole)
        save = box.addButton("Save corpus as…", QMessageBox.ButtonRole.AcceptRole) \
            if c.corpus_dirty else None
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        box.exec()
        chosen = box.clickedButton()
        if save is not None and chosen is save:
            return self.editor.save_as_dialog()
        return chosen is go

    def confirm_drop(self, what: str, steps: int) -> bool:
        """Before ``what`` (Step after an edit, a mode change, Train from scratch again)
        trains anew and the run's ``steps`` trained merges go. True = go ahead."""
        box = QMessageBox(QMessageBox.Icon.Warning, f"{what}: train again?",
                          f"{what} trains again from step 0 on what the panels show now. "
                          f"This throws away the {steps:,} trained merge"
                          f"{'s' if steps != 1 else ''} of the run on show.",
                          parent=self.window)
        box.setInformativeText("It cannot be undone. To keep the training, save a session "
                               "first (File > Save session).")
        go = box.addButton("Train again", QMessageBox.ButtonRole.DestructiveRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        box.exec()
        return box.clickedButton() is go

    def maybe_save_corpus(self) -> bool:
        """Unsaved corpus edits: ask Save / Discard / Cancel. True = go ahead."""
        self.editor.flush()
        c = self.controller
        if not c.corpus_dirty:
            return True
        ans = QMessageBox.question(
            self.window, "Unsaved corpus",
            "The corpus has edits that are not saved to a file. Save them first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        # always through the dialog: it asks before overwriting
        if ans == QMessageBox.StandardButton.Save:
            return self.editor.save_as_dialog()
        # (closing: the autosave must not bring the discarded edits back)
        self.discarded = ans == QMessageBox.StandardButton.Discard
        return self.discarded


def neither_json(path: str) -> str | None:
    """Why a ``.json`` file is opened neither as a session nor as a tokenizer (None when
    its content makes it one of them, or the loader has more to say): the window opens
    both kinds, so its message names both."""
    p = Path(path)
    if p.suffix.lower() != ".json" or not p.is_file() or looks_like_tokenizer(p) \
            or looks_like_session(p):
        return None
    fmt, why = describe_file(p)
    if fmt is not None:
        return None
    return (f"{why} Nor is it a bpe-gui session: a session file starts with "
            f"{{\"format\": \"bpe-gui-session\", …}} (File > Save session writes one). "
            "Open a session (.bpesession) or a tokenizer file here; a text file opens as the "
            "corpus with Corpus > Open.")
