"""The per-language cost dialog's table model and chart (see language_cost.py).

:class:`CostModel` is a table over an immutable :class:`~bpe_gui.engine.analysis.per_language.CostTable`
(one row per language and tokenizer); :class:`CostChart` is the app's QPainter
:class:`~bpe_gui.gui.panels.chart_widget.ChartWidget` with languages as groups of bars,
one bar per tokenizer.
"""
from __future__ import annotations

import html
from typing import Callable

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt

from ...engine.analysis import CostRow, CostTable
from ..widgets.grouped_bars import GroupedBarChart

SORT_ROLE = Qt.ItemDataRole.UserRole + 1

# (header, tooltip, value of a row, format)
Column = tuple[str, str, Callable[[CostRow], object], str]
COLUMNS: list[Column] = [
    ("Language", "The file's name before its first dot", lambda r: r.language, ""),
    ("Tokenizer", "", lambda r: r.tokenizer, ""),
    ("Characters", "Characters of the text", lambda r: r.chars, ",d"),
    ("Tokens", "Tokens the tokenizer cuts the text into", lambda r: r.tokens, ",d"),
    ("Bytes/token", "UTF-8 bytes of the text per token (higher: fewer tokens)",
     lambda r: r.bytes_per_token, ".2f"),
    ("Tokens/char", "Tokens per character", lambda r: r.tokens_per_char, ".3f"),
    ("Parity", "Tokens of this text / tokens of the reference language's text, same "
     "tokenizer (Petrov et al. 2023). Meaningful only for parallel texts, which say the "
     "same thing: translations of one document", lambda r: r.parity, ".2f"),
    ("Rényi eff.", "Rényi efficiency, alpha 2.5 (Zouhar et al. 2023): the Rényi entropy "
     "of the token frequencies over ln of the vocabulary size; higher: the vocabulary is "
     "used more evenly", lambda r: r.renyi, ".3f"),
]

# chart metrics: label in the menu -> (axis label, row value)
METRICS: dict[str, tuple[str, Callable[[CostRow], float | None]]] = {
    "Parity (tokens / reference's tokens)": ("parity", lambda r: r.parity),
    "Bytes per token": ("bytes/token", lambda r: r.bytes_per_token),
    "Tokens per character": ("tokens/char", lambda r: r.tokens_per_char),
    "Rényi efficiency (α 2.5)": ("Rényi efficiency", lambda r: r.renyi),
}


class CostModel(QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.table: CostTable | None = None

    def set_table(self, table: CostTable | None) -> None:
        self.beginResetModel()
        self.table = table
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() or self.table is None else len(self.table.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        head, tip, _, _ = COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole:
            if head == "Parity" and self.table is not None:
                return f"Parity ({self.table.reference})"
            return head
        if role == Qt.ItemDataRole.ToolTipRole:   # rich text, so Qt wraps the longer ones
            return f"<p>{html.escape(tip, quote=False)}</p>" if tip else None
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self.table is None:
            return None
        row = self.table.rows[index.row()]
        _, _, get, fmt = COLUMNS[index.column()]
        value = get(row)
        if role == Qt.ItemDataRole.DisplayRole:
            if value is None:
                return "–"
            return format(value, fmt) if fmt else str(value)
        if role == SORT_ROLE:
            return value if value is not None else float("-inf")
        if role == Qt.ItemDataRole.TextAlignmentRole and fmt:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class CostChart(GroupedBarChart):
    """Grouped bars: one group per language, one bar (colour) per tokenizer."""

    def __init__(self, parent=None):
        super().__init__("Per-language cost", "language", "", y_from_zero=True,
                         empty_text="Pick a folder and tokenizers, then Measure.", parent=parent)

    def show_table(self, table: CostTable | None, metric: str) -> None:
        self.ylabel, get = METRICS[metric]
        if table is None:
            self.show_bars([], [])
            return
        rows = table

        def of(name: str) -> Callable[[str], float | None]:
            return lambda lang: get(rows.row(lang, name))
        self.show_bars(table.languages, [(name, of(name)) for name in table.tokenizers])
