"""The compare view's table: each metric for side A and B, in all and per script.

:class:`CompareTableModel` is a model over two ``analysis.encoding_stats`` snapshots (one
per side), reset whenever the compare view encodes the text again; ``METRICS`` names
its rows and ``fmt_cell`` formats a value.
"""
from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from ...engine import analysis


def fmt_cell(metric: str, v) -> str:
    """Example: ('bpt', 3.14159) -> '3.14'; ('partial', 0.125) -> '12.5 %'; None -> '–'"""
    if v is None:
        return "–"
    if metric in ("tokens", "chars"):
        return f"{v:,}"
    if metric == "partial":
        return f"{100 * v:.1f} %"
    return f"{v:.2f}"


# ----- the table ----------------------------------------------------------------------------
METRICS = (("tokens", "Tokens", "How many tokens the text is cut into."),
           ("bpt", "Bytes per token", "UTF-8 bytes of the text / tokens. Per script: the "
            "bytes the script's tokens stand for / their number. Higher = better compression."),
           ("tpw", "Tokens per GPT-2 word", "Tokens / words. Words are GPT-2-pattern words that are "
            "not only whitespace (the same for both sides); a Chinese clause without spaces "
            "is one word."),
           ("partial", "Partial-character tokens", "Share of tokens that hold only part of a "
            "UTF-8 character (byte-level tokenizers on non-Latin text)."))
# the row names of the compact table (a narrow, short dock), the full ones in the tooltips
SHORT_LABELS = {"tokens": "Tokens", "bpt": "Bytes/token", "tpw": "Tokens/word",
                "partial": "Partial-char"}


class CompareTableModel(QAbstractTableModel):
    """Rows: each metric for side A then B; columns: metric, side, All, then each script
    present in the text. Values come from two ``analysis.encoding_stats`` snapshots.
    Compact (:meth:`set_compact`): short row names and the sides by letter alone, for a
    dock too narrow for the script columns and long names both."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.stats: list[dict | None] = [None, None]
        self.names = ["A", "B"]
        self.columns: list[str] = ["All"]
        self.compact = False

    def set_compact(self, on: bool) -> None:
        if on != self.compact:
            self.beginResetModel()
            self.compact = on
            self.endResetModel()

    def side_name(self, side: int) -> str:
        """Example: 'A: step 3' -> 'A' when compact."""
        name = self.names[side]
        return name.split(":", 1)[0] if self.compact else name

    def set_stats(self, a: dict | None, b: dict | None, names=("A", "B")) -> None:
        self.beginResetModel()
        self.stats = [a, b]
        self.names = list(names)
        present = set()
        for s in (a, b):
            if s is not None:
                present.update(analysis.scripts_present(s))
        self.columns = ["All"] + [s for s in analysis.SCRIPTS if s in present]
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else 2 * len(METRICS)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else 2 + len(self.columns)

    def value(self, row: int, column: str):
        """The raw number of a cell: metric of row // 2, side row % 2, column name."""
        key = METRICS[row // 2][0]
        s = self.stats[row % 2]
        if s is None:
            return None
        st = s[column]
        return {"tokens": st.tokens, "bpt": st.bytes_per_token, "tpw": st.tokens_per_word,
                "partial": st.partial_share}[key]

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        key, label, tip = METRICS[r // 2]
        if role == Qt.ItemDataRole.DisplayRole:
            if c == 0:
                return "" if r % 2 else SHORT_LABELS[key] if self.compact else label
            if c == 1:
                return self.side_name(r % 2)
            return fmt_cell(key, self.value(r, self.columns[c - 2]))
        if role == Qt.ItemDataRole.UserRole and c >= 2:
            return self.value(r, self.columns[c - 2])
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{label}, {self.names[r % 2]}: {tip}" if self.compact else tip
        if role == Qt.ItemDataRole.TextAlignmentRole and c >= 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and c == 0:
            f = QFont()
            f.setBold(True)
            return f
        return None

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if section == 0:
                return ""
            if section == 1:
                return "" if self.compact else "Side"
            col = self.columns[section - 2]
            chars = next((s[col].chars for s in self.stats if s is not None), 0)
            # two lines: on one ("Latin (113 chars)") the script columns were past the
            # right edge of an 800 or 1024-pixel window, Han's among them; compact: one
            # line, the count in the tooltip
            return col if self.compact else f"{col}\n{chars:,} chars"
        if role == Qt.ItemDataRole.ToolTipRole and section >= 2:
            col = self.columns[section - 2]
            chars = next((s[col].chars for s in self.stats if s is not None), 0)
            return f"{col}: {chars:,} characters. " + ("Per script: a token counts for the script of the letters it covers; "
                    "tokens of only spaces, digits or punctuation, mixed tokens and special "
                    "tokens count as Other." if section > 2 else "The whole text.")
        return None
