"""A long text in the encode (and compare) view, shown and encoded one page at a time.

A text box holding 30 MB lays it all out on the GUI thread: setting it took 10 s, each
re-encode copied it twice more, and the window could not even quit on SIGTERM meanwhile
(issue 30). The view never holds more than a page (PAGE_CHARS characters, the most it
encodes and colours anyway): the whole text is kept here, the text box shows one page,
and a bar under the controls moves between pages. Edits of the page are part of the
text (``whole``); a paste that would make the page long pages the text again.

Pages end after a line break when there is one in a page's last tenth, so lines are not
cut in two; else before a space there (a word of the published patterns starts with its
space, so the words on either side, and their tokens, stay what the whole text has:
pages cut inside a word showed a count one token off the whole text's); else at
PAGE_CHARS characters. An edited page keeps its place: the pages
after it move with the edit (a page emptied is dropped, one that outgrew a page is
split, when the user leaves it), and the bar says what the page holds now (issue 37:
it still said "characters 1–99,962" of a page replaced by 19 characters). Ctrl+A selects
the whole text, every page (the bar says so): typing, pasting or deleting then replaces
the whole text, Ctrl+C copies it, and Ctrl+Z brings it back (:class:`PagedEdit`).
:class:`PagedText` is the part a view holds for all this.

Example::

    pages = TextPages()
    shown = pages.load("x" * 250_000)     # the first page: 100,000 characters
    pages.count, pages.index              # (3, 0)
    pages.whole(shown + "!")              # the text with the page as edited
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QApplication, QHBoxLayout, QPlainTextEdit, QPushButton,
                               QSizePolicy, QWidget)

from ...models.encoding import char_index, doc_position, utf16_positions
from ...widgets.exact_text import exact_text, lost_separators, plain_enter
from ...widgets.text_pane import TextPane

PAGE_CHARS = 100_000   # characters a page holds: what the view encodes and colours


def page_starts(text: str, size: int = PAGE_CHARS) -> list[int]:
    """Where each page of ``text`` begins: after a line break, else at a space, in the
    last tenth of a page.

    Examples: page_starts("aaaaaaaaa\\nbbbbbbbbb\\ncc", size=10) -> [0, 10, 20];
    page_starts("aaaaaaaaa bbbbbbbbb cc", size=10) -> [0, 9, 19]
    """
    starts, pos, n = [0], 0, len(text)
    while n - pos > size:
        end = pos + size
        nl = text.rfind("\n", pos + size * 9 // 10, end)
        if nl >= 0:
            pos = nl + 1
        else:
            sp = text.rfind(" ", pos + size * 9 // 10, end + 1)
            pos = sp if sp > pos else end
        starts.append(pos)
    return starts


def chars_before(text: str, utf16_pos: int) -> int:
    """The characters (code points) of ``text`` before a text box position (which
    counts UTF-16 units: a character past U+FFFF counts two)."""
    return min(char_index(utf16_positions(text), utf16_pos), len(text))


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
        """Keep the edits of the page on show, then show page ``index`` (numbered as the
        bar numbered them). The other pages keep their text: those after the edited
        page move by what it gained or lost; an emptied page is dropped, one that grew
        past PAGE_CHARS is split."""
        i = self.index
        a, b = self.span()
        full = self.full or ""
        text = full[:a] + page + full[b:]
        delta = len(page) - (b - a)
        inner = [a + s for s in page_starts(page)] if page else []
        starts = self.starts[:i] + inner + [s + delta for s in self.starts[i + 1:]]
        if not starts:                     # (the only page, emptied)
            starts = [0]
        target = index if index <= i else index + len(inner) - 1
        self.full, self.starts = text, starts
        self.index = max(0, min(target, len(starts) - 1))
        a, b = self.span()
        return text[a:b]

    def _now(self, page_len: int | None) -> tuple[int, int, int]:
        """(the page's first character, its characters, the whole text's) with the page
        holding ``page_len`` characters now, as edited (None: as paged)."""
        a, b = self.span()
        n = b - a if page_len is None else page_len
        return a, n, len(self.full or "") - (b - a) + n

    def variants(self, page_len: int | None = None) -> list[str]:
        """What the bar says of the page on show, longest first (the bar shows the
        longest that fits); ``page_len``: the characters the page holds now, as edited."""
        a, n, total = self._now(page_len)
        i, count = self.index + 1, self.count
        head = f"Page {i:,} of {count:,}"
        if n == 0:
            return [f"{head}: empty (dropped when you leave it) · {total:,} characters "
                    "in all", f"{head}: empty · {total:,} characters", f"{head}: empty",
                    f"{i:,}/{count:,}"]
        # (the range alone before the bare head: at 800x600 page 1 said its range and
        # page 2, whose numbers are longer, said nothing but "Page 2 of 4")
        return [f"{head}: characters {a + 1:,}–{a + n:,} of {total:,}",
                f"{head}: {a + 1:,}–{a + n:,} of {total:,}", f"{head}: {a + 1:,}–{a + n:,}",
                head, f"{i:,}/{count:,}"]

    def all_variants(self, page_len: int | None = None) -> list[str]:
        """What the bar says while the whole text is selected (Ctrl+A)."""
        total = self._now(page_len)[2]
        count = self.count
        return [f"All {total:,} characters selected, every page: typing, pasting or "
                "Delete replaces them all (Ctrl+Z brings them back)",
                f"All {total:,} characters selected ({count:,} pages)",
                f"All {count:,} pages selected", "All selected"]


class PageBar(QWidget):
    """"Page 2 of 299 ..." and the buttons to the previous and next page.

    The buttons have a fixed width at the bar's right end, so they stay put from page to
    page (a label that grew with the numbers pushed them about: Next clicked three times
    in one spot went to pages 2, 1, 2); the label says the longest of its forms that fits
    and never widens the bar; a narrow bar gets "◀" and "▶" (issue 37)."""

    moved = Signal(int)   # the page to show

    WIDE = ("◀ Previous page", "Next page ▶")
    NARROW = ("◀", "▶")

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = TextPane(hint_width=self.fontMetrics().horizontalAdvance(
            "Page 88 of 88: characters 8,888,888–8,888,888 of 88,888,888"))
        self.label.setToolTip("A long text is shown, encoded and coloured a page at a time "
                              f"({PAGE_CHARS:,} characters), so the window stays quick; "
                              "the whole text is kept (sessions save it)")
        self.prev_button = QPushButton()
        self.next_button = QPushButton()
        self.prev_button.setToolTip("The previous page (the edits of this one are kept)")
        self.next_button.setToolTip("The next page (the edits of this one are kept)")
        self._widths = {}
        for texts in (self.WIDE, self.NARROW):
            self._set_texts(texts)
            self._widths[texts] = max(b.sizeHint().width()
                                      for b in (self.prev_button, self.next_button))
        # a button's size hint is at least the style's 80 px: the arrows alone need a
        # third of it (80 px each kept the bar 207 px wide, past a narrow dock)
        fm = self.fontMetrics()
        self._widths[self.NARROW] = min(self._widths[self.NARROW], max(
            fm.horizontalAdvance(t) for t in self.NARROW) + 2 * fm.height())
        self._texts = self.NARROW
        for b in (self.prev_button, self.next_button):
            b.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self._fit_buttons(self.WIDE)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.prev_button)
        lay.addWidget(self.next_button)
        self._index = 0
        self.prev_button.clicked.connect(lambda: self.moved.emit(self._index - 1))
        self.next_button.clicked.connect(lambda: self.moved.emit(self._index + 1))
        self.hide()

    def _set_texts(self, texts: tuple[str, str]) -> None:
        self.prev_button.setText(texts[0])
        self.next_button.setText(texts[1])

    def _fit_buttons(self, texts: tuple[str, str]) -> None:
        if texts == self._texts:
            return
        self._texts = texts
        self._set_texts(texts)
        for b in (self.prev_button, self.next_button):
            b.setFixedWidth(self._widths[texts])

    def minimumSizeHint(self):
        hint = super().minimumSizeHint()
        lay = self.layout()
        spacing = max(0, lay.spacing()) if lay is not None else 6
        hint.setWidth(2 * self._widths[self.NARROW] + 2 * spacing
                      + self.fontMetrics().horizontalAdvance("88/88"))
        return hint

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        # the long buttons while the label keeps room for "Page 12 of 34" beside them
        room = self.width() - 2 * self._widths[self.WIDE] - 12
        self._fit_buttons(self.WIDE if room >= self.fontMetrics().horizontalAdvance(
            "Page 888 of 888") else self.NARROW)

    def show_pages(self, pages: TextPages, page_len: int | None = None,
                   all_selected: bool = False) -> None:
        """The page on show (``page_len``: its characters now, as edited)."""
        if not pages.active:
            self.hide()
            return
        self._index = pages.index
        self.label.set_variants(pages.all_variants(page_len) if all_selected
                                else pages.variants(page_len))
        self.prev_button.setEnabled(pages.index > 0)
        self.next_button.setEnabled(pages.index + 1 < pages.count)
        self.show()


_TYPED_OK = frozenset("\t\r\n")
_DELETE_KEYS = (Qt.Key.Key_Backspace, Qt.Key.Key_Delete)
_CTRL = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.MetaModifier
_MODIFIER_KEYS = (Qt.Key.Key_Control, Qt.Key.Key_Shift, Qt.Key.Key_Alt, Qt.Key.Key_Meta,
                  Qt.Key.Key_AltGr, Qt.Key.Key_Super_L, Qt.Key.Key_Super_R)


class PagedEdit(QPlainTextEdit):
    """The view's text box: a paste or a drop that would make its text longer than a page
    goes to ``long_insert(text, start, end)`` (the characters of the page it replaces)
    instead of into the box, which would lay it all out at once.

    With a long text (``pages`` active), Select All (Ctrl+A, the context menu) selects
    the whole text, every page (``allSelectedChanged``); then typing, pasting or
    deleting goes to ``replace_all(text)``, copying copies the whole text, and Ctrl+Z
    (once the box has nothing left to undo) brings the replaced text back; Ctrl+Shift+Z
    or Ctrl+Y then puts the replacement back (:meth:`undo_step`, :meth:`redo_step`)."""

    allSelectedChanged = Signal(bool)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.long_insert: Callable[[str, int, int], None] | None = None
        self.replace_all: Callable[[str, int | None], None] | None = None
        self.pages: TextPages | None = None
        self.all_selected = False
        # the whole text before replace_all or a long paste, and where its cursor was
        # (Ctrl+Z brings it back there)
        self._replaced: tuple[str, int] | None = None
        # the whole text a whole-text Ctrl+Z took away, and its cursor (Ctrl+Shift+Z / Ctrl+Y
        # puts it back while nothing was edited since)
        self._redo: tuple[str, int] | None = None
        # typing went on from the replacing key (Ctrl+A, "hello": one Ctrl+Z undoes it all)
        self._typing_on = False
        self._cursor_before_all = 0
        self.selectionChanged.connect(self._selection_changed)
        # told when a text given to the box holds U+2029, which it can keep only as a line
        # break (exact_text.py): the view says so
        self.separators_lost: Callable[[], None] = lambda: None

    # ----- the whole text selected ----------------------------------------------------------
    def _paged(self) -> bool:
        return self.pages is not None and self.pages.active and self.replace_all is not None

    def whole_text(self) -> str:
        page = self.toPlainText()
        return self.pages.whole(page) if self.pages is not None else page

    def select_everything(self) -> None:
        """Select All: the page in the box, and with a long text every page."""
        if not self.all_selected:
            self._cursor_before_all = self.whole_cursor()   # (where Ctrl+Z comes back to)
        self.selectAll()
        self._set_all(self._paged())

    def _set_all(self, on: bool) -> None:
        if on != self.all_selected:
            self.all_selected = on
            self.allSelectedChanged.emit(on)

    def _selection_changed(self) -> None:
        if self.all_selected:
            cur = self.textCursor()
            if cur.selectionStart() != 0 or \
                    cur.selectionEnd() != self.document().characterCount() - 1:
                self._set_all(False)

    def whole_cursor(self) -> int:
        """The cursor's place in the whole text (characters)."""
        page = self.toPlainText()
        at = chars_before(page, self.textCursor().position())
        return at + (self.pages.span()[0] if self.pages is not None and self.pages.active else 0)

    def _replace(self, text: str) -> None:
        """Replace the whole text (every page) with ``text``; Ctrl+Z brings it back."""
        before = (self.whole_text(),
                  self._cursor_before_all if self.all_selected else self.whole_cursor())
        self._set_all(False)
        if self.replace_all is not None:
            self.replace_all(text, None)   # (the view forgets any older replaced text)
        self._replaced = before
        self._redo = None

    def undo_step(self) -> None:
        """Ctrl+Z: the box's own undo; once it has nothing left (or right after a
        whole-text replacement, typing included), the replaced whole text comes back."""
        if self._replaced is not None and self.replace_all is not None and \
                (self._typing_on or not self.document().isUndoAvailable()):
            saved, self._replaced = self._replaced, None
            self._redo = self._bring_back(saved)
            return
        self._typing_on = False
        if not self.isReadOnly():
            self.undo()

    def redo_step(self) -> None:
        """Ctrl+Shift+Z / Ctrl+Y: the box's own redo, or the whole text a whole-text
        undo took away (while nothing was edited since)."""
        if self._redo is not None and self.replace_all is not None and \
                not self.document().isRedoAvailable():
            saved, self._redo = self._redo, None
            self._replaced = self._bring_back(saved)
            return
        self._typing_on = False
        if not self.isReadOnly():
            self.redo()

    def _bring_back(self, saved: tuple[str, int]) -> tuple[str, int]:
        """Show the whole text ``saved`` (text, cursor); returns the one it replaced."""
        now = (self.whole_text(), self.whole_cursor())
        self._typing_on = False
        assert self.replace_all is not None
        self.replace_all(*saved)
        return now

    def remember_replaced(self, text: str, cursor: int) -> None:
        """``text`` was the whole text before a change the box cannot undo (a long
        paste): Ctrl+Z, once the box has nothing left to undo, brings it back."""
        self._replaced = (text, cursor)
        self._redo = None

    def forget_replaced(self) -> None:
        """A new text came from elsewhere (a file, a session): Ctrl+Z no longer brings
        back a text replaced before it."""
        self._replaced = None
        self._redo = None

    def _copy_whole(self) -> None:
        cb = QApplication.clipboard()
        if cb is not None:
            cb.setText(self.whole_text())

    def _cut_whole(self) -> None:
        self._copy_whole()
        self._replace("")

    def toPlainText(self) -> str:
        """The text exactly (no-break spaces and U+2028 kept: exact_text.py)."""
        return exact_text(self.document())

    def keyPressEvent(self, e) -> None:
        e = plain_enter(e)   # (Shift+Enter: a line break, as the text's own U+2028 is not)
        typed = e.text()   # a character typed: no Ctrl or Meta, printable (or a line break)
        typed_char = bool(typed) and not e.modifiers() & _CTRL and \
            all(c.isprintable() or c in _TYPED_OK for c in typed)
        if e.matches(QKeySequence.StandardKey.SelectAll):
            self.select_everything()
            return
        if self.all_selected and not self.isReadOnly():
            if e.matches(QKeySequence.StandardKey.Copy):
                self._copy_whole()
                return
            if e.matches(QKeySequence.StandardKey.Cut):
                self._cut_whole()
                return
            if e.key() in _DELETE_KEYS:
                self._replace("")
                return
            if typed_char:
                self._replace(typed.replace("\r", "\n"))
                self._typing_on = True
                return
        if e.matches(QKeySequence.StandardKey.Undo):
            self.undo_step()
            return
        if e.matches(QKeySequence.StandardKey.Redo) or (
                e.key() == Qt.Key.Key_Y and e.modifiers() == Qt.KeyboardModifier.ControlModifier):
            self.redo_step()
            return
        if typed_char or e.key() in _DELETE_KEYS:
            self._redo = None   # an edit: what was undone stays undone
        if e.key() not in _MODIFIER_KEYS and not (typed_char and typed.isprintable()):
            self._typing_on = False     # (a key other than a character ends the run)
        super().keyPressEvent(e)

    def mousePressEvent(self, e) -> None:
        self._typing_on = False
        super().mousePressEvent(e)

    def inputMethodEvent(self, e) -> None:
        if self.all_selected and e.commitString():
            self._replace(e.commitString())
            return
        super().inputMethodEvent(e)

    def contextMenuEvent(self, e) -> None:
        menu = self.createStandardContextMenu(e.pos())
        if self._paged():
            whole = {"select-all": self.select_everything}
            if self.all_selected:
                whole.update({"edit-copy": self._copy_whole,
                              "edit-cut": self._cut_whole,
                              "edit-delete": lambda: self._replace("")})
            for act in menu.actions():
                slot = whole.get(act.objectName())
                if slot is not None:
                    act.triggered.disconnect()
                    act.triggered.connect(lambda _checked=False, f=slot: f())
        menu.exec(e.globalPos())
        menu.deleteLater()

    def insertFromMimeData(self, source) -> None:
        self._typing_on = False
        self._redo = None
        text = source.text() if source is not None and source.hasText() else ""
        if lost_separators(text):
            self.separators_lost()
        if self.all_selected and text:
            self._replace(text.replace("\r\n", "\n"))
            return
        doc_chars = self.document().characterCount()
        if self.long_insert is None or not text or len(text) + doc_chars <= PAGE_CHARS:
            super().insertFromMimeData(source)
            return
        page = self.toPlainText()
        cur = self.textCursor()
        a = chars_before(page, cur.selectionStart())
        b = chars_before(page, cur.selectionEnd())
        self.long_insert(text.replace("\r\n", "\n"), a, b)


class PagedText:
    """What a view with a long text does with its text box, its pages and its bar: show
    a text (a long one a page at a time), move between pages, take a long paste, select
    and replace the whole text, and keep the bar saying what the page holds.

    ``shown()`` is the view's: encode what the box holds now (the page)."""

    def __init__(self, edit: PagedEdit, bar: PageBar, shown: Callable[[], None]):
        self.edit, self.bar, self.pages = edit, bar, TextPages()
        self._shown = shown
        edit.pages = self.pages
        edit.long_insert = self._long_insert
        edit.replace_all = self.replace_all
        edit.allSelectedChanged.connect(lambda _on: self.page_edited())
        bar.moved.connect(self.show_page)
        # Ctrl+Z / Ctrl+Shift+Z with a page button focused (just clicked) act on the text
        # as in the box, and the box takes the focus (the bar may go: a short text); the
        # box, when focused, takes them itself
        redo = QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)
        for keys, step in ((QKeySequence.keyBindings(QKeySequence.StandardKey.Undo),
                            edit.undo_step),
                           (redo + [QKeySequence("Ctrl+Y")] * (QKeySequence("Ctrl+Y") not in redo),
                            edit.redo_step)):
            sc = QShortcut(bar)
            sc.setKeys(keys)
            sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            sc.activated.connect(lambda step=step: (step(), edit.setFocus()))

    def text(self) -> str:
        """The whole text (a long one: every page, as edited)."""
        return self.edit.whole_text()

    def set_text(self, text: str) -> None:
        """Show ``text``: a long one a page at a time."""
        self.edit.forget_replaced()
        if lost_separators(text):
            self.edit.separators_lost()
        self._set(text)

    def _set(self, text: str, cursor_at: int | None = None) -> None:
        """Show ``text`` (a long one: the page holding character ``cursor_at``) with
        the cursor at that character."""
        if len(text) > PAGE_CHARS:
            page = self.pages.load(text, at=cursor_at or 0)
            self._show(page, None if cursor_at is None else cursor_at - self.pages.span()[0])
        else:
            self.pages.clear()
            self._show(text, cursor_at)

    def replace_all(self, text: str, cursor_at: int | None = None) -> None:
        """The whole text replaced (Ctrl+A, then typing, pasting, deleting; Ctrl+Z): the
        cursor at ``cursor_at`` (Ctrl+Z: where it was), else after a short text and at
        the start of a long one."""
        if cursor_at is None:
            cursor_at = len(text) if len(text) <= PAGE_CHARS else 0
        self._set(text, min(cursor_at, len(text)))

    def show_page(self, index: int) -> None:
        """Page ``index`` of a long text (its edits on the page shown are kept); a text
        edited down to a page is shown whole again."""
        if not self.pages.active:
            return
        page = self.pages.go(index, self.edit.toPlainText())
        full = self.pages.full or ""
        if len(full) <= PAGE_CHARS:
            at = self.pages.span()[0]
            self.pages.clear()
            self._show(full, at)
        else:
            self._show(page)

    def page_edited(self, page: str | None = None) -> None:
        """The bar says what the page holds now (``page``: its text, if at hand)."""
        if not self.pages.active:
            return
        n = len(page if page is not None else self.edit.toPlainText())
        self.bar.show_pages(self.pages, n, self.edit.all_selected)

    def _show(self, page: str, cursor_at: int | None = None) -> None:
        self.bar.show_pages(self.pages)
        self.edit.setPlainText(page)
        if cursor_at is not None:
            cur = self.edit.textCursor()
            cur.setPosition(doc_position(utf16_positions(page), min(cursor_at, len(page))))
            self.edit.setTextCursor(cur)
            self.edit.ensureCursorVisible()
        self._shown()

    def _long_insert(self, text: str, a: int, b: int) -> None:
        """A paste or drop longer than a page, replacing characters a..b of the page on
        show: the whole text is paged again, showing the page where the paste begins,
        with the cursor after the paste if it ends on that page, else where it begins
        (the end of the page was an empty line: the box looked empty, issue 37)."""
        start = self.pages.span()[0] if self.pages.active else 0
        whole = self.text()
        new = whole[:start + a] + text + whole[start + b:]
        page = self.pages.load(new, at=start + a)
        first = self.pages.span()[0]
        end = start + a + len(text) - first
        self._show(page, end if end <= len(page) else start + a - first)
        self.edit.remember_replaced(whole, start + a)   # (Ctrl+Z takes the paste back)
