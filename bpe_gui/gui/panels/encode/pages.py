"""A long text in the encode view, shown and encoded one page at a time.

A text box holding 30 MB lays it all out on the GUI thread: setting it took 10 s, each
re-encode copied it twice more, and the window could not even quit on SIGTERM meanwhile
(issue 30). The view never holds more than a page (PAGE_CHARS characters, the most it
encodes and colours anyway): the whole text is kept here, the text box shows one page,
and a bar under the controls moves between pages. Edits of the page are part of the
text (``whole``); a paste that would make the page long pages the text again.

Pages end after a line break when there is one in a page's last tenth, so lines are not
cut in two; else at PAGE_CHARS characters.

Example::

    pages = TextPages()
    shown = pages.load("x" * 250_000)     # the first page: 100,000 characters
    pages.count, pages.index              # (3, 0)
    pages.whole(shown + "!")              # the text with the page as edited
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QWidget

PAGE_CHARS = 100_000   # characters a page holds: what the view encodes and colours


def page_starts(text: str, size: int = PAGE_CHARS) -> list[int]:
    """Where each page of ``text`` begins.

    Example: page_starts("ab\\ncd\\nef", size=4) -> [0, 3, 6]
    """
    starts, pos, n = [0], 0, len(text)
    while n - pos > size:
        end = pos + size
        nl = text.rfind("\n", pos + size * 9 // 10, end)
        pos = nl + 1 if nl >= 0 else end
        starts.append(pos)
    return starts


def chars_before(text: str, utf16_pos: int) -> int:
    """The characters (code points) of ``text`` before a text box position (which
    counts UTF-16 units: a character past U+FFFF counts two)."""
    if text.isascii():
        return min(utf16_pos, len(text))
    return len(text.encode("utf-16-le")[:2 * utf16_pos].decode("utf-16-le", "ignore"))


class TextPages:
    """The whole of a long text and the page on show (see the module docstring)."""

    def __init__(self):
        self.full: str | None = None   # None: the text box holds the whole text
        self.starts = [0]
        self.index = 0

    @property
    def active(self) -> bool:
        return self.full is not None

    @property
    def count(self) -> int:
        return len(self.starts)

    def span(self) -> tuple[int, int]:
        """The page on show, as character offsets into the whole text."""
        full = self.full or ""
        i = self.index
        return self.starts[i], self.starts[i + 1] if i + 1 < len(self.starts) else len(full)

    def load(self, text: str, at: int = 0) -> str:
        """Page ``text``; returns the page holding character ``at``."""
        self.full = text
        self.starts = page_starts(text)
        self.index = max(0, sum(1 for s in self.starts if s <= at) - 1)
        a, b = self.span()
        return text[a:b]

    def clear(self) -> None:
        self.full, self.starts, self.index = None, [0], 0

    def whole(self, page: str) -> str:
        """The whole text, with the page on show as ``page`` (as edited)."""
        if self.full is None:
            return page
        a, b = self.span()
        return self.full[:a] + page + self.full[b:]

    def go(self, index: int, page: str) -> str:
        """Keep the edits of the page on show, then show page ``index``."""
        text = self.whole(page)
        self.full = text
        self.starts = page_starts(text)
        self.index = max(0, min(index, len(self.starts) - 1))
        a, b = self.span()
        return text[a:b]

    def describe(self) -> str:
        a, b = self.span()
        n = len(self.full or "")
        return (f"Page {self.index + 1:,} of {self.count:,}: characters {a + 1:,}–{b:,} "
                f"of {n:,}")


class PageBar(QWidget):
    """"Page 2 of 299 ..." and the buttons to the previous and next page."""

    moved = Signal(int)   # the page to show

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = QLabel()
        self.label.setToolTip("A long text is shown, encoded and coloured a page at a time "
                              f"({PAGE_CHARS:,} characters), so the window stays quick; "
                              "the whole text is kept (sessions save it)")
        self.prev_button = QPushButton("◀ Previous page")
        self.next_button = QPushButton("Next page ▶")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.prev_button)
        lay.addWidget(self.next_button)
        self._index = 0
        self.prev_button.clicked.connect(lambda: self.moved.emit(self._index - 1))
        self.next_button.clicked.connect(lambda: self.moved.emit(self._index + 1))
        self.hide()

    def show_pages(self, pages: TextPages) -> None:
        if not pages.active:
            self.hide()
            return
        self._index = pages.index
        self.label.setText(pages.describe())
        self.prev_button.setEnabled(pages.index > 0)
        self.next_button.setEnabled(pages.index + 1 < pages.count)
        self.show()


class PagedEdit(QPlainTextEdit):
    """The encode view's text box: a paste or a drop that would make its text longer
    than a page goes to ``long_insert(text, start, end)`` (the characters of the page it
    replaces) instead of into the box, which would lay it all out at once."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.long_insert: Callable[[str, int, int], None] | None = None

    def insertFromMimeData(self, source) -> None:
        text = source.text() if source is not None and source.hasText() else ""
        doc_chars = self.document().characterCount()
        if self.long_insert is None or not text or len(text) + doc_chars <= PAGE_CHARS:
            super().insertFromMimeData(source)
            return
        page = self.toPlainText()
        cur = self.textCursor()
        a = chars_before(page, cur.selectionStart())
        b = chars_before(page, cur.selectionEnd())
        self.long_insert(text.replace("\r\n", "\n"), a, b)

