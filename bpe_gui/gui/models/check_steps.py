"""Check my BPE's tables: the learner's merges and the reference's side by side, one row
per step (:class:`CheckStepsModel`), and the words where a pair occurs at the step where
they part (:class:`PairWordsModel`). Both over immutable engine records (a
``CheckReport``, ``PairWord``s).

Example: a tie broken the other way at step 3 ->
``1 | s t | s t | 5 | same``, ``2 | e st | e st | 5 | same``, ``3 | o w | w i | 3 | part``.
"""
from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QGuiApplication, QPalette

from ...engine.check import CheckReport, PairWord
from ...engine.display import readable

DISPLAY, TOOLTIP = int(Qt.ItemDataRole.DisplayRole), int(Qt.ItemDataRole.ToolTipRole)
BACKGROUND, FONT = int(Qt.ItemDataRole.BackgroundRole), int(Qt.ItemDataRole.FontRole)
ALIGN = int(Qt.ItemDataRole.TextAlignmentRole)
STATUS_WORDS = {"same": "same", "moved": "at another step", "part": "part",
                "theirs-only": "yours only", "ours-only": "reference only"}


def status_colors(palette: QPalette | None = None) -> dict[str, QColor]:
    """Row tints for each status (light or dark palette)."""
    palette = palette or QGuiApplication.palette()
    if palette.color(QPalette.ColorRole.Window).lightness() < 128:
        return {"same": QColor("#1f4a2c"), "moved": QColor("#5c4a12"), "part": QColor("#6b2420"),
                "theirs-only": QColor("#4a4a4a"), "ours-only": QColor("#4a4a4a")}
    return {"same": QColor("#dff3e1"), "moved": QColor("#ffe9b0"), "part": QColor("#ffc9c2"),
            "theirs-only": QColor("#e6e6e6"), "ours-only": QColor("#e6e6e6")}


def pair_text(pair) -> str:
    return "" if pair is None else f"{readable(pair[0])} {readable(pair[1])}"


class CheckStepsModel(QAbstractTableModel):
    """Step | Yours | Reference | Count | Status, over a CheckReport."""

    STEP, THEIRS, OURS, COUNT, STATUS = range(5)
    HEADERS = ("Step", "Your merge", "Reference's merge", "Count", "")
    TIPS = ("Merge k (1 = learned first)", "The pair your trainer merged at this step",
            "The pair the reference merged at this step",
            "How often the reference's pair occurred when it merged it",
            "Same pair on both sides, or where they part")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.report: CheckReport | None = None
        self.statuses: list[str] = []
        self.colors = status_colors()
        self._bold = QFont()
        self._bold.setBold(True)

    def set_report(self, report: CheckReport | None) -> None:
        self.beginResetModel()
        self.report = report
        self.statuses = report.statuses() if report is not None else []
        self.endResetModel()

    def set_palette(self, palette: QPalette) -> None:
        self.colors = status_colors(palette)
        if self.statuses:
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(len(self.statuses) - 1, self.STATUS))

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.statuses)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation, role: int = DISPLAY):
        if orientation == Qt.Orientation.Horizontal:
            if role == DISPLAY:
                return self.HEADERS[section]
            if role == TOOLTIP:
                return self.TIPS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = DISPLAY):
        r = self.report
        if r is None or not index.isValid():
            return None
        row, col = index.row(), index.column()
        status = self.statuses[row]
        if role == BACKGROUND:
            return QBrush(self.colors[status]) if status != "same" or col == self.STATUS \
                else None
        if role == FONT and status != "same" and col in (self.THEIRS, self.OURS):
            return self._bold
        if role == ALIGN and col in (self.STEP, self.COUNT):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role not in (DISPLAY, TOOLTIP):
            return None
        if col == self.STEP:
            return str(row + 1)
        if col == self.THEIRS:
            return pair_text(r.theirs[row]) if row < len(r.theirs) else "—"
        if col == self.OURS:
            return pair_text(r.ours[row]) if row < len(r.ours) else "—"
        if col == self.COUNT:
            return f"{r.our_counts[row]:,}" if row < len(r.our_counts) else ""
        if status == "moved":
            return f"yours is the reference's step {r.our_step_of(r.theirs[row]):,}"
        return STATUS_WORDS[status]

    def step_of_row(self, row: int) -> int:
        return row + 1


class PairWordsModel(QAbstractTableModel):
    """Count | Word (its symbols at that step, the pair in ⟦ ⟧), most frequent first."""

    HEADERS = ("Count", "Word, as its symbols stand")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.words: Sequence[PairWord] = ()

    def set_words(self, words: Sequence[PairWord]) -> None:
        self.beginResetModel()
        self.words = tuple(words)
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.words)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else 2

    def headerData(self, section: int, orientation, role: int = DISPLAY):
        if orientation == Qt.Orientation.Horizontal and role == DISPLAY:
            return self.HEADERS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = DISPLAY):
        if not index.isValid() or role not in (DISPLAY, TOOLTIP, ALIGN):
            return None
        w = self.words[index.row()]
        if index.column() == 0:
            if role == ALIGN:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return f"{w.freq:,}×"
        if role == ALIGN:
            return None
        if role == TOOLTIP:
            return f"“{readable(w.text.encode('utf-8', 'surrogatepass'))}”: the pair at " \
                   f"{len(w.at)} place(s)"
        return marked_symbols(w)


def marked_symbols(w: PairWord) -> str:
    """A word's symbols with each occurrence of the pair in ⟦ ⟧.
    Example: symbols (·a, n, d), at (0,) -> '⟦·a n⟧ d'."""
    out, i, at = [], 0, set(w.at)
    syms = w.symbols
    while i < len(syms):
        if i in at and i + 1 < len(syms):
            out.append(f"⟦{readable(syms[i])} {readable(syms[i + 1])}⟧")
            i += 2
        else:
            out.append(readable(syms[i]))
            i += 1
    return " ".join(out)
