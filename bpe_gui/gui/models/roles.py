"""Item roles, readable-text caching and token colours shared by the table models.

Models hand out plain data; the colours live here (not in widgets) because several
models and delegates must agree on them, and they depend only on the palette.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Sequence, Union

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette

from ...engine.display import gpt2_text, is_partial, readable
from .glyphs import shown

# Plain ints: looking up an attribute of PySide6's Qt namespace costs microseconds, and
# data() runs for every role of every visible cell at each repaint.
DISPLAY = int(Qt.ItemDataRole.DisplayRole)
TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
BACKGROUND = int(Qt.ItemDataRole.BackgroundRole)
FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
FONT = int(Qt.ItemDataRole.FontRole)
ALIGN = int(Qt.ItemDataRole.TextAlignmentRole)
ALIGN_RIGHT = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)
HORIZONTAL = Qt.Orientation.Horizontal

SORT_ROLE = Qt.ItemDataRole.UserRole + 1      # numbers/strings the proxy sorts by
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 2    # text the filter line edit matches
TOKENS_ROLE = Qt.ItemDataRole.UserRole + 3    # list[(text, partial)] drawn as chips
ID_ROLE = Qt.ItemDataRole.UserRole + 4        # token id of the row (or step index)
PARTIAL_ROLE = Qt.ItemDataRole.UserRole + 5   # the token holds part of a UTF-8 character
SPECIAL_ROLE = Qt.ItemDataRole.UserRole + 7   # a special token (never split or merged)

Chip = tuple  # (text, partial[, emphasised]): one token drawn as a block


class Cell(NamedTuple):
    """Everything a table cell shows, in one answer (see ``HeaderedTableModel.cell``).

    ``content`` is the text, or a sequence of chips for a cell drawn as token blocks.
    """

    content: Union[str, Sequence[Chip]] = ""
    right: bool = False              # right-aligned (numbers)
    bold: bool = False
    fg: QColor | None = None         # text colour; None: the palette's
    bg: QColor | None = None         # background; None: the view's


EMPTY_CELL = Cell()


class HeaderedTableModel(QAbstractTableModel):
    """A flat table whose columns are ``HEADERS`` (with ``TIPS`` as header tooltips).

    Subclasses give ``n_rows``, ``cell`` (what a cell shows, for the fast delegate in
    ``widgets/table_cells.py`` and the visual roles below) and ``data`` for the other roles
    (display text, tooltips, search and sort keys), falling back to ``visual_data``.
    """

    HEADERS: tuple[str, ...] = ()
    TIPS: tuple[str, ...] = ()
    _bold_font: QFont | None = None

    def cell(self, row: int, col: int) -> Cell:
        return EMPTY_CELL

    def replace_rows(self, old_n: int, new_n: int, assign) -> None:
        """Swap in new rows by calling ``assign()``: rows removed or added at the end,
        then one dataChanged for the rest. Unlike a model reset, the view keeps its
        header, scroll position and layout, and only repaints."""
        if new_n < old_n:
            self.beginRemoveRows(QModelIndex(), new_n, old_n - 1)
            assign()
            self.endRemoveRows()
        elif new_n > old_n:
            self.beginInsertRows(QModelIndex(), old_n, new_n - 1)
            assign()
            self.endInsertRows()
        else:
            assign()
        kept = min(old_n, new_n)
        if kept:
            self.dataChanged.emit(self.index(0, 0), self.index(kept - 1, len(self.HEADERS) - 1))

    def visual_data(self, row: int, col: int, role: int):
        """The alignment, font, colour and chip roles, read from :meth:`cell`."""
        if role == ALIGN:
            return ALIGN_RIGHT if self.cell(row, col).right else None
        if role == FONT:
            if not self.cell(row, col).bold:
                return None
            if HeaderedTableModel._bold_font is None:
                HeaderedTableModel._bold_font = QFont()
                HeaderedTableModel._bold_font.setBold(True)
            return HeaderedTableModel._bold_font
        if role == FOREGROUND:
            return self.cell(row, col).fg
        if role == BACKGROUND:
            return self.cell(row, col).bg
        if role == TOKENS_ROLE:
            content = self.cell(row, col).content
            return None if isinstance(content, str) else list(content)
        return None

    def n_rows(self) -> int:
        return 0

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self.n_rows()

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=DISPLAY):
        if orientation == HORIZONTAL:
            if role == DISPLAY:
                return self.HEADERS[section]
            if role == TOOLTIP and section < len(self.TIPS):
                return self.TIPS[section]
        return None

class ReadableCache:
    """bytes -> (readable text, partial flag), memoised; tokens repeat a lot.

    Example: ``ReadableCache()(b" the") -> ('·the', False)``;
    ``ReadableCache()(b"\\xe4\\xbd") -> ('<E4 BD>', True)``. A character no font here
    draws is its escape (``glyphs.shown``), so no view shows an empty box.
    """

    def __init__(self, gpt2: bool = False):
        self.gpt2 = gpt2
        self._memo: dict[bytes, tuple[str, bool]] = {}

    def __call__(self, token: bytes) -> tuple[str, bool]:
        got = self._memo.get(token)
        if got is None:
            text = gpt2_text(token) if self.gpt2 else readable(token)
            got = (shown(text), is_partial(token))
            if len(self._memo) > 200_000:
                self._memo.clear()
            self._memo[token] = got
        return got

    def text(self, token: bytes) -> str:
        return self(token)[0]


def plain_text(token: bytes) -> str:
    """What a user would type to find the token: its UTF-8 text, stray bytes dropped."""
    return token.decode("utf-8", "ignore")


def is_dark(palette: QPalette | None = None) -> bool:
    palette = palette or QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


@dataclass(frozen=True)
class TokenColors:
    """Colours for token blocks, readable on light and dark palettes alike."""

    block_a: QColor
    block_b: QColor
    partial: QColor
    partial_border: QColor
    special: QColor
    border: QColor
    hover: QColor
    winner: QColor
    tied: QColor
    future: QColor   # text of timeline steps beyond the current one
    text: QColor

    @classmethod
    def for_palette(cls, palette: QPalette | None = None) -> "TokenColors":
        palette = palette or QGuiApplication.palette()
        text = palette.color(QPalette.ColorRole.Text)
        future = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        if future == text:
            future = QColor(text)
            future.setAlpha(110)
        if is_dark(palette):
            return cls(QColor("#24466f"), QColor("#5b4318"), QColor("#6d2547"),
                       QColor("#ff8cc6"), QColor("#1f5a3a"), QColor("#8aa0bf"),
                       QColor("#b3261e"), QColor("#7a5f00"), QColor("#3f3a1c"),
                       future, text)
        return cls(QColor("#d3e6ff"), QColor("#ffe1ae"), QColor("#fbd0e4"),
                   QColor("#b0306a"), QColor("#cdeccf"), QColor("#7d8ea8"),
                   QColor("#ff6b5b"), QColor("#ffd24d"), QColor("#fff0c2"),
                   future, text)
