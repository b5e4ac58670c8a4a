"""Encode files to ids: corpus files (text, or .jsonl with a text field) to one flat file
of token ids, documents joined by the end-of-text id, for a training script to memory-map
(``Tokenizer.encode_files``; on the command line ``bpe-gui encode --file ... --out``).
The tokenizer is the trained one as of the current step or the imported one; the work
runs on the controller's job runner (status bar progress, Cancel: no file is left).
Opened from File › Encode files to ids (:func:`show_ids_dialog`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QFileDialog,
                               QFormLayout, QHBoxLayout, QLabel, QLineEdit, QListWidget,
                               QPushButton, QVBoxLayout, QWidget)

from ...engine.errors import BPEError
from ...engine.tokenizers import typed_separator
from ..controller.jobs import Done, Ended, JobEnd
from ..models.imported_name import imported_name
from ..models.reads import TokenizerReads
from ..theme import colors
from ..widgets.default_button import make_default, not_auto_default
from ..widgets.last_folder import in_last_folder, last_folder, remember
from . import one_dialog

STEP, IMPORTED = "step", "imported"


class IdsHost(TokenizerReads, Protocol):
    """What the dialog reads of the controller: the run, the imported tokenizer
    (models/reads.py), and the job that encodes."""

    @property
    def side(self) -> _EncodesFiles: ...


class _EncodesFiles(Protocol):
    def encode_files(self, tok, paths, out: str, field: str, separator: str | None,
                     eot: int | None, on_done: Done, on_end: Ended) -> bool: ...


class IdsDialog(QDialog):
    def __init__(self, controller: IdsHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle("Encode files to ids")
        self.meta: dict | None = None   # the last file's sidecar
        self._running = False
        self._writing = ""   # the file the running job writes
        form = QFormLayout()
        self.source = QComboBox()
        form.addRow("&Tokenizer:", self.source)
        self.files = QListWidget()
        self.files.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.files.setMinimumHeight(90)
        add, self.remove = QPushButton("&Add files…"), QPushButton("&Remove")
        for b in (add, self.remove):
            not_auto_default(b)
        add.clicked.connect(self._pick_files)
        self.remove.clicked.connect(self._remove)
        buttons = QVBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(self.remove)
        buttons.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(self.files, 1)
        row.addLayout(buttons)
        form.addRow(_label("&Files:", self.files), row)
        self.separator = QLineEdit()
        self.separator.setPlaceholderText(r"none: a whole file is one document (\n\n: blank lines)")
        form.addRow("&Separator:", self.separator)
        self.field = QLineEdit("text")
        self.field.setToolTip("The field of each .jsonl line that holds its text")
        form.addRow("JSONL &field:", self.field)
        self.eot = QLineEdit()
        self.eot.setPlaceholderText("the tokenizer's <|endoftext|>")
        form.addRow("&End-of-text id:", self.eot)
        self.out = QLineEdit()
        browse = QPushButton("&Browse…")
        not_auto_default(browse)
        browse.clicked.connect(self._pick_out)
        row = QHBoxLayout()
        row.addWidget(self.out, 1)
        row.addWidget(browse)
        form.addRow(_label("&Output:", self.out), row)
        self.status = QLabel(wordWrap=True)
        self.encode_btn, close = QPushButton("E&ncode"), QPushButton("Close")
        self.encode_btn.clicked.connect(self.run)
        close.clicked.connect(self.close)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.encode_btn)
        bottom.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addLayout(bottom)
        make_default(self.encode_btn)   # Enter encodes, also after Browse…
        for edit in (self.out, self.separator, self.field, self.eot):
            edit.textChanged.connect(self._update)
        controller.busyChanged.connect(lambda _: self._update())
        controller.tokenizerChanged.connect(self._fill_sources)
        controller.stepChanged.connect(self._fill_sources)
        self._fill_sources()
        self.resize(620, 420)
        self._say("Add the files to encode, and where the ids go.")

    def _fill_sources(self, *_args) -> None:
        keep = self.source.currentData()
        self.source.clear()
        v = self.controller.view()
        if v is not None:
            self.source.addItem(f"The trained tokenizer, at step {v.n_steps:,}", STEP)
        if self.controller.imported is not None:
            self.source.addItem(f"The imported tokenizer: "
                                f"{imported_name(self.controller.imported_path)}", IMPORTED)
        i = self.source.findData(keep)
        self.source.setCurrentIndex(max(i, 0))
        self._update()

    def add_files(self, paths: list[str]) -> None:
        have = {self.files.item(i).text() for i in range(self.files.count())}
        self.files.addItems([p for p in paths if p not in have])
        if paths and not self.out.text():
            self.out.setText(str(Path(paths[0]).with_name("ids.bin")))
        self._update()

    def _pick_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self, "Files to encode", last_folder(),
            "Text and JSONL (*.txt *.md *.jsonl *.json *.xz *.gz);;All files (*)")
        if paths:
            remember(paths[0])
            self.add_files(paths)

    def _remove(self) -> None:
        for item in self.files.selectedItems():
            self.files.takeItem(self.files.row(item))
        self._update()

    def _pick_out(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Write the ids to",
                                              self.out.text() or in_last_folder("ids.bin"),
                                              "Ids (*.bin);;All files (*)")
        if path:
            remember(path)
            self.out.setText(path)

    def _update(self, *_args) -> None:
        self.remove.setEnabled(self.files.count() > 0)
        why = ("Train or import a tokenizer first." if self.source.count() == 0 else
               "Add the files to encode." if self.files.count() == 0 else
               "Name the file the ids go to." if not self.out.text().strip() else
               "A job is running: wait for it, or cancel it." if self.controller.busy else "")
        self.encode_btn.setEnabled(not why and not self._running)
        self.encode_btn.setToolTip(why)

    def _say(self, text: str, kind: str = "muted") -> None:
        self.status.setText(text)
        self.status.setStyleSheet(f"color: {colors(self)[kind]};")

    def run(self) -> bool:
        """Encode on the job runner; False (and a message) if it cannot start."""
        c = self.controller
        eot_text = self.eot.text().strip()
        try:
            typed = int(eot_text) if eot_text else None
            if typed is not None and typed < 0:
                raise ValueError
        except ValueError:
            self._say(f"The end-of-text id must be a whole number of 0 or more, not "
                      f"“{eot_text}”: type an id, or leave it empty for the tokenizer's "
                      "<|endoftext|>.", "error")
            return False
        if self.source.currentData() == IMPORTED:
            tok = c.imported
        else:
            v = c.view()
            tok = v.tokenizer() if v is not None else None
        paths = [self.files.item(i).text() for i in range(self.files.count())]
        out = self.out.text().strip()
        if tok is None or not paths or not out:
            self._update()
            self._say(self.encode_btn.toolTip() or "Nothing to encode.", "error")
            return False
        try:
            eot = typed if typed is not None else tok.eot_token
        except BPEError as e:
            self._say(f"{e} Type the id to put between documents in End-of-text id (or train "
                      "with <|endoftext|> as a special token).", "error")
            self.eot.setFocus()
            return False
        sep = typed_separator(self.separator.text()) if self.separator.text() else None
        if not c.side.encode_files(tok, paths, out, self.field.text().strip() or "text", sep,
                                   eot, self._done, self._ended):
            return False
        self._running, self._writing = True, out
        self._update()
        self._say("Encoding… (Cancel in the status bar stops it; no file is left then)")
        return True

    def _done(self, meta: dict) -> None:
        self.meta = meta
        out = self._writing   # (the field may have changed meanwhile)
        size = Path(out).stat().st_size if Path(out).exists() else 0
        size_text = f"{size / 1e6:,.1f} MB" if size >= 1e6 else f"{size / 1e3:,.1f} KB"
        self._say(f"Wrote {out}: {meta['count']:,} ids of {meta['documents']:,} document(s), "
                  f"{meta['dtype']}, {size_text}; {Path(out).name}.json beside it gives "
                  "numpy.memmap the dtype.", "ok")

    def _ended(self, end: JobEnd) -> None:
        self._running = False
        self._update()
        if not end.done:
            self._say(f"Not written ({end.outcome.value}). {end.message}".strip(),
                      "error" if end.message else "muted")


def _label(text: str, buddy: QWidget) -> QLabel:
    label = QLabel(text)
    label.setBuddy(buddy)   # (its Alt+letter)
    return label


def show_ids_dialog(controller: IdsHost, window: QWidget) -> IdsDialog:
    """Open (or bring to the front) the window's one Encode files to ids dialog."""
    return one_dialog(window, IdsDialog, controller)
