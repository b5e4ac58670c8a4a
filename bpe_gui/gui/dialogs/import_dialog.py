"""Import dialog: pick a tokenizer file (or a folder with vocab.json + merges.txt).

Shows the format it recognises before loading (and, for a bare .tiktoken file, which
well-known encoding it is); loading goes through the controller, which reports
malformed files (with the line or key) in a message and changes nothing. Files over
BACKGROUND_BYTES load on the worker thread while the dialog shows progress.
"""
from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QSettings, Qt, SignalInstance
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFileDialog, QHBoxLayout,
                               QLabel, QLineEdit, QProgressBar, QPushButton, QVBoxLayout,
                               QWidget)

from ...engine.errors import BPEError
from ...engine.text import PRESET_LABELS
from ...engine.tokenizers import BaseTokenizer
from ..theme import colors
from ..widgets.default_button import make_default
from ..widgets.wheel_guard import guard_wheel
from .file_sniff import content_problem, not_importable, unknown_content, why_not

BACKGROUND_BYTES = 1 << 20   # bigger files load off the GUI thread, with progress
TOKENIZER_FILTER = ("Tokenizers (*.json *.txt *.bpe *.tiktoken *.csv *.model *.model.* *.gguf "
                    "*.txt.gz);;"
                    "Hugging Face tokenizer.json (tokenizer.json *.json);;"
                    "GPT-2 vocab.json / merges.txt, encoder.json / vocab.bpe "
                    "(*.json *.txt *.bpe);;"
                    "tiktoken ranks (*.tiktoken);;GGUF model files (*.gguf);;"
                    "Mistral tekken.json (tekken*.json);;"
                    "CLIP merges (bpe_simple_vocab_16e6.txt.gz *.txt.gz);;All files (*)")


def describe_format(path: str) -> tuple[str | None, str]:
    """(format key or None, a line for the user) for a file or folder, recognised by its
    content (the engine's sniffer, engine.formats.describe_file): its format, or why it
    cannot open. A format picked by the name alone is checked against the file's content
    (file_sniff.py): a file whose content is not that format gets a red line saying what
    it is ("Not a tokenizer file: ..."), never a green "Format: ..."."""
    from ...engine.formats import describe_file
    p = Path(path)
    try:
        fmt, what = describe_file(path)
    except BPEError as e:
        if not p.is_file():
            return None, str(e)
        return None, (not_importable(p)
                      or f"Not a tokenizer file: {p.name} {why_not(e, p)}")
    except OSError as e:
        return None, f"{path}: cannot be read ({e.strerror})."
    if not fmt:
        return None, (unknown_content(p) if p.is_file() else None) or what
    for f in _files_of(p, fmt):
        why = content_problem(f, fmt)
        if why is not None:
            return None, why
    return fmt, f"Format: {what}{_which_encoding(fmt, path)}"


# the files of a folder each format loads (engine/formats: the folder order)
_FOLDER_FILES = {"gpt2": ("vocab.json", "merges.txt", "encoder.json", "vocab.bpe"),
                 "hf": ("tokenizer.json",), "tiktoken": ("*.tiktoken",),
                 "native": ("*.bpe-gui.json",), "tekken": ("tekken*.json",),
                 "gguf": ("*.gguf",), "clip": ("bpe_simple_vocab_*.txt.gz",)}


def _files_of(p: Path, fmt: str) -> list[Path]:
    """The file itself, or the files of a folder the format reads (those present)."""
    if p.is_file():
        return [p]
    if not p.is_dir():
        return []
    return [f for glob in _FOLDER_FILES.get(fmt, ()) for f in sorted(p.glob(glob))
            if f.is_file()]


def _which_encoding(fmt: str, path: str) -> str:
    """' — recognised: cl100k_base (GPT-4, GPT-3.5)' for a well-known bare ranks file."""
    from ...engine.io import read_bytes
    from ...engine.formats import meta_beside
    from ...engine.formats import recognise
    p = Path(path)
    if fmt != "tiktoken" or not p.is_file() or meta_beside(p) is not None:
        return ""
    try:   # read_bytes refuses a huge or binary file from its head, unread
        known = recognise(read_bytes(p, "ranks"))
    except BPEError:
        return ""
    if known is None:
        return (" — not a well-known encoding and no NAME.tiktoken.json beside it: the "
                "GPT-4 (cl100k) pattern will be used")
    return f" — recognised: {known.label}; its pattern and special tokens are set"


# the pre-tokenizers a bare ranks file can be run with (the file does not say which)
TIKTOKEN_PATTERNS = ("gpt2", "cl100k", "o200k", "llama3", "qwen2", "tekken")
_PATTERN_LABELS = {"gpt2": "GPT-2 (r50k, p50k, Whisper)", "llama3": "Llama 3",
                   "qwen2": "Qwen2", "tekken": "Mistral (tekken)"}


def bare_tiktoken(path: str) -> tuple[bool, str | None]:
    """(a .tiktoken ranks file with no NAME.tiktoken.json beside it, the label of the
    well-known encoding it is, if any): such a file does not say its pattern."""
    from ...engine.io import read_bytes
    from ...engine.formats import meta_beside, recognise
    p = Path(path)
    if not p.is_file() or meta_beside(p) is not None:
        return False, None
    try:
        known = recognise(read_bytes(p, "ranks"))
    except BPEError:
        return False, None
    return True, known.label if known is not None else None


class ImportHost(Protocol):
    """What the Import dialog reads of the controller."""

    importFinished: SignalInstance
    progress: SignalInstance

    @property
    def tokenizer_files(self) -> Imports: ...
    def cancel(self) -> None: ...


class Imports(Protocol):
    """What the Import and Open model dialogs call of the controller's tokenizer files."""

    def import_tokenizer(self, path: str, pattern: str | None = None) \
            -> BaseTokenizer | None: ...
    def import_in_background(self, path: str, pattern: str | None = None) -> bool: ...


class ImportDialog(QDialog):
    """Choose a tokenizer to load into the encode view and the vocabulary browser."""

    def __init__(self, controller: ImportHost, parent: QWidget | None = None, path: str = ""):
        super().__init__(parent)
        self.controller = controller
        self.tokenizer = None
        self.setWindowTitle("Import tokenizer")
        lay = QVBoxLayout(self)
        intro = QLabel("Load a trained tokenizer (GPT-2 vocab.json + merges.txt, Hugging Face "
                       "tokenizer.json, tiktoken ranks, a SentencePiece .model, Mistral's "
                       "tekken.json, a GGUF model file, CLIP's merges, or a bpe-gui export). "
                       "The encode view "
                       "and the vocabulary browser then use it; Training > Encode with "
                       "imported tokenizer switches back and forth.", wordWrap=True)
        lay.addWidget(intro)
        row = QHBoxLayout()
        last = QSettings().value("import/last", "") or ""
        self.path_edit = QLineEdit(path or str(last))
        self.path_edit.textChanged.connect(self._detect)
        # Enter in the path imports it: the line edit passes Enter on to the dialog, whose
        # default is Import (make_default below); File… and Folder… never take it
        file_button = QPushButton("File…", autoDefault=False)
        file_button.clicked.connect(self._pick_file)
        folder_button = QPushButton("Folder…", autoDefault=False)
        folder_button.clicked.connect(self._pick_folder)
        row.addWidget(self.path_edit, 1)
        row.addWidget(file_button)
        row.addWidget(folder_button)
        lay.addLayout(row)
        self.format_label = QLabel(wordWrap=True)
        self.format_label.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.format_label)
        # a bare .tiktoken: which pattern to run it with (the file holds only ranks)
        self.pattern_row = QWidget()
        prow = QHBoxLayout(self.pattern_row)
        prow.setContentsMargins(0, 0, 0, 0)
        self.pattern_combo = QComboBox()
        self.pattern_combo.setToolTip("A .tiktoken file holds only the ranks: the "
                                      "pre-tokenizer pattern it runs with is chosen here")
        prow.addWidget(QLabel("Pattern:"))
        prow.addWidget(self.pattern_combo, 1)
        self.pattern_row.hide()
        lay.addWidget(self.pattern_row)
        self.progress = QProgressBar()
        self.progress.setRange(0, 3)
        self.progress.setFormat("%p%")
        self.progress.hide()
        lay.addWidget(self.progress)
        controller.importFinished.connect(self._on_loaded)
        controller.progress.connect(self._on_progress)
        self.loading = False
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.import_button = self.buttons.addButton("Import",
                                                    QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.do_import)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        make_default(self.import_button)    # once in the dialog, or Cancel took Enter
        self._detect()
        self.resize(560, 200)
        guard_wheel(self)
        # the last path is offered selected: typing replaces it (it was appended to)
        self.path_edit.setFocus()
        self.path_edit.selectAll()

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
        self._offer_patterns(fmt == "tiktoken" and Path(path).is_file(), path)

    def _offer_patterns(self, maybe: bool, path: str) -> None:
        bare, known = bare_tiktoken(path) if maybe else (False, None)
        self.pattern_row.setVisible(bare)
        if not bare:
            return
        combo = self.pattern_combo
        combo.clear()
        # first (the default): what the file is recognised as, else the assumed pattern
        combo.addItem(f"As recognised: {known}" if known else
                      f"{PRESET_LABELS['cl100k']} (assumed: not a well-known encoding)", None)
        for key in TIKTOKEN_PATTERNS:
            combo.addItem(_PATTERN_LABELS.get(key) or PRESET_LABELS.get(key, key), key)

    def pattern(self) -> str | None:
        """The pattern chosen for a bare .tiktoken (None: as recognised or assumed)."""
        return None if self.pattern_row.isHidden() else self.pattern_combo.currentData()

    def do_import(self) -> None:
        path = self.path_edit.text().strip()
        pattern = self.pattern()
        if _size(path) > BACKGROUND_BYTES:
            if self.controller.tokenizer_files.import_in_background(path, pattern=pattern):
                self.loading = True
                self.path_edit.setEnabled(False)
                self.import_button.setEnabled(False)
                self.progress.setValue(0)
                self.progress.show()
                self.format_label.setText(f"Loading {Path(path).name}…")
            return
        tok = self.controller.tokenizer_files.import_tokenizer(path, pattern=pattern)
        if tok is None:
            return  # the controller showed why; keep the dialog open to pick another
        self._done(path, tok)

    def _on_progress(self, _label: str, done: int, total: int) -> None:
        if self.loading and total:
            self.progress.setRange(0, total)
            self.progress.setValue(done)

    def _on_loaded(self, tok) -> None:
        if not self.loading:
            return
        self.loading = False
        self.progress.hide()
        self.path_edit.setEnabled(True)
        self.import_button.setEnabled(True)
        if tok is None:   # the controller showed why; pick another file
            self._detect()
            return
        self._done(self.path_edit.text().strip(), tok)

    def _done(self, path: str, tok) -> None:
        QSettings().setValue("import/last", path)
        self.tokenizer = tok
        self.accept()

    def reject(self) -> None:
        if self.loading:
            self.controller.cancel()
        super().reject()


def _size(path: str) -> int:
    p = Path(path)
    try:
        return p.stat().st_size if p.is_file() else sum(
            f.stat().st_size for f in p.iterdir() if f.is_file())
    except OSError:
        return 0
