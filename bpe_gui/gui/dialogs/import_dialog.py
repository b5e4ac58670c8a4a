"""Import dialog: pick a tokenizer file (or a folder with vocab.json + merges.txt).

Shows the format it recognises before loading; loading goes through
``controller.import_tokenizer``, which reports malformed files (with the line or key)
in a message and changes nothing.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFileDialog, QHBoxLayout, QLabel,
                               QLineEdit, QPushButton, QVBoxLayout, QWidget)

from ...engine.errors import BPEError
from ..app import colors

TOKENIZER_FILTER = ("Tokenizers (*.json *.txt *.tiktoken *.csv *.model);;"
                    "Hugging Face tokenizer.json (tokenizer.json *.json);;"
                    "GPT-2 vocab.json / merges.txt (*.json *.txt);;"
                    "tiktoken ranks (*.tiktoken);;All files (*)")


def describe_format(path: str) -> tuple[str | None, str]:
    """(format key or None, a line for the user) for a file or folder."""
    from ...engine.formats import FORMATS, detect_format
    try:
        fmt = detect_format(path)
    except BPEError as e:
        return None, str(e)
    except OSError as e:
        return None, f"{path}: cannot be read ({e.strerror})."
    if not fmt:
        return None, ("Format not recognised. Pick a tokenizer.json, a GPT-2 vocab.json "
                      "(with merges.txt beside it), a .tiktoken file or a bpe-gui export.")
    return fmt, f"Format: {FORMATS.get(fmt, fmt)}"


class ImportDialog(QDialog):
    """Choose a tokenizer to load into the encode view and the vocabulary browser."""

    def __init__(self, controller, parent: QWidget | None = None, path: str = ""):
        super().__init__(parent)
        self.controller = controller
        self.tokenizer = None
        self.setWindowTitle("Import tokenizer")
        lay = QVBoxLayout(self)
        intro = QLabel("Load a trained tokenizer (GPT-2 vocab.json + merges.txt, Hugging Face "
                       "tokenizer.json, tiktoken ranks, or a bpe-gui export). The encode view "
                       "and the vocabulary browser then use it; Training > Encode with "
                       "imported tokenizer switches back and forth.", wordWrap=True)
        lay.addWidget(intro)
        row = QHBoxLayout()
        last = QSettings().value("import/last", "") or ""
        self.path_edit = QLineEdit(path or str(last))
        self.path_edit.textChanged.connect(self._detect)
        file_button = QPushButton("File…")
        file_button.clicked.connect(self._pick_file)
        folder_button = QPushButton("Folder…")
        folder_button.clicked.connect(self._pick_folder)
        row.addWidget(self.path_edit, 1)
        row.addWidget(file_button)
        row.addWidget(folder_button)
        lay.addLayout(row)
        self.format_label = QLabel(wordWrap=True)
        self.format_label.setTextFormat(Qt.PlainText)
        lay.addWidget(self.format_label)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Cancel)
        self.import_button = self.buttons.addButton("Import", QDialogButtonBox.AcceptRole)
        self.import_button.setDefault(True)
        self.buttons.accepted.connect(self.do_import)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self._detect()
        self.resize(560, 200)

    def _pick_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import tokenizer", self.path_edit.text(),
                                              TOKENIZER_FILTER)
        if path:
            self.path_edit.setText(path)

    def _pick_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Folder with vocab.json and merges.txt",
                                                self.path_edit.text())
        if path:
            self.path_edit.setText(path)

    def _detect(self) -> None:
        path = self.path_edit.text().strip()
        col = colors(self)
        if not path:
            self.format_label.setText("")
            self.import_button.setEnabled(False)
            return
        if not Path(path).exists():
            self.format_label.setStyleSheet(f"color: {col['error']};")
            self.format_label.setText(f"{path}: not found.")
            self.import_button.setEnabled(False)
            return
        fmt, text = describe_format(path)
        self.format_label.setStyleSheet(f"color: {col['ok'] if fmt else col['error']};")
        self.format_label.setText(text)
        self.import_button.setEnabled(True)  # the loader has the last word, with details

    def do_import(self) -> None:
        path = self.path_edit.text().strip()
        tok = self.controller.import_tokenizer(path)
        if tok is None:
            return  # the controller showed why; keep the dialog open to pick another
        QSettings().setValue("import/last", path)
        self.tokenizer = tok
        self.accept()
