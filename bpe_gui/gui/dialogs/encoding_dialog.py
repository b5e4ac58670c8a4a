"""A file is not UTF-8: say where, preview other decodings, retry with the one chosen.

The preview decodes a few hundred bytes around the failing offset, so the user can see
which encoding turns the text readable before the whole file is read again (through
``controller.opening.open_files(paths, encoding=...)``, on the worker thread).
"""
from __future__ import annotations

import gzip
import lzma
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFormLayout, QLabel, QPlainTextEdit,
                               QVBoxLayout, QWidget)

from ..widgets.elided_combo import ElidedComboBox
from ..widgets.wheel_guard import guard_wheel

ENCODINGS = [
    ("gb18030", "Chinese, Simplified (GB18030 / GBK)"),
    ("big5", "Chinese, Traditional (Big5)"),
    ("cp1252", "Western European (Windows-1252)"),
    ("latin-1", "Western European (ISO-8859-1, never fails)"),
    ("shift_jis", "Japanese (Shift JIS)"),
    ("euc-kr", "Korean (EUC-KR)"),
    ("cp1251", "Cyrillic (Windows-1251)"),
    ("utf-16", "UTF-16 (with byte-order mark)"),
]
PEEK_BYTES = 1 << 20
CONTEXT = 300


def peek(path: str, limit: int = PEEK_BYTES) -> bytes:
    """The first ``limit`` bytes of a file, decompressing .xz/.gz."""
    p = Path(path)
    opener = lzma.open if p.suffix == ".xz" else gzip.open if p.suffix == ".gz" else open
    try:
        with opener(p, "rb") as f:
            return f.read(limit)
    except (OSError, lzma.LZMAError, EOFError):
        return b""


class EncodingDialog(QDialog):
    """Offer to re-open files with another encoding; ``encoding()`` is the choice."""

    def __init__(self, paths: list[str], bad_path: str, offset: int, message: str,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.paths, self.bad_path, self.offset = list(paths), bad_path, offset
        self.setWindowTitle("Not UTF-8")
        lay = QVBoxLayout(self)
        head = QLabel(f"<b>{Path(bad_path).name}</b> is not valid UTF-8: the first bad byte is "
                      f"at byte offset <b>{offset:,}</b>.", wordWrap=True)
        lay.addWidget(head)
        # the engine's message ends with the same advice as the line below: say it once
        detail = QLabel(message.split(" Re-save")[0].strip(), wordWrap=True)
        detail.setTextFormat(Qt.TextFormat.PlainText)
        detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(detail)
        lay.addWidget(QLabel("Re-save the file as UTF-8, or open it with the encoding it was "
                             "written in (the text is converted as it is read):", wordWrap=True))
        form = QFormLayout()
        self.combo = ElidedComboBox(items=ENCODINGS)
        self.combo.setEditable(False)
        form.addRow("Encoding", self.combo)
        lay.addLayout(form)
        self.preview = QPlainTextEdit(readOnly=True)
        self.preview.setMaximumBlockCount(200)
        lay.addWidget(QLabel("Preview around the bad byte:"))
        lay.addWidget(self.preview, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.retry_button = self.buttons.addButton("Open with this encoding",
                                                   QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self._data = peek(bad_path, max(PEEK_BYTES, offset + CONTEXT))
        self.combo.currentIndexChanged.connect(self._update_preview)
        self._guess()
        self._update_preview()
        self.resize(560, 420)
        guard_wheel(self)

    def encoding(self) -> str:
        return self.combo.currentData()

    def _guess(self) -> None:
        """Pick the first encoding that decodes the start of the file cleanly."""
        for i, (enc, _) in enumerate(ENCODINGS):
            try:
                self._data[:65536].decode(enc)
            except UnicodeDecodeError as e:
                if e.start < len(self._data[:65536]) - 4:
                    continue
            except LookupError:
                continue
            self.combo.setCurrentIndex(i)
            return

    def _update_preview(self) -> None:
        start = max(0, self.offset - CONTEXT)
        chunk = self._data[start:self.offset + CONTEXT]
        try:
            text = chunk.decode(self.encoding(), errors="replace")
        except LookupError as e:
            text = str(e)
        self.preview.setPlainText(text)
