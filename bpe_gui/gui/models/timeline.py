"""The merge timeline: every MergeStep record seen for the current trainer.

Row 0 is the start (no merges); row k is the record of merge k. Records beyond the
current step stay after stepping back (shown greyed) so the user can click forward
again. Stepping appends or removes rows (``beginInsertRows``); only a new trainer
resets the model.

Example: at step 3 after stepping back from 5, rows are
``start, 1, 2, 3 (current), 4 (grey), 5 (grey)``.
"""
from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QModelIndex
from PySide6.QtGui import QFont

from ...engine.trainer import MergeStep
from .roles import (ALIGN, ALIGN_RIGHT, BACKGROUND, DISPLAY, FONT, FOREGROUND, ID_ROLE,
                    SEARCH_ROLE, SORT_ROLE, TOKENS_ROLE, TOOLTIP, HeaderedTableModel,
                    ReadableCache, TokenColors)

_ROLES = frozenset({DISPLAY, ID_ROLE, SORT_ROLE, FOREGROUND, FONT, BACKGROUND, TOKENS_ROLE,
                    SEARCH_ROLE, ALIGN, TOOLTIP})


class TimelineModel(HeaderedTableModel):
    STEP, MERGE, TOKEN, COUNT, TIES = range(5)
    HEADERS = ("Step", "Merge", "New token", "Count", "Ties")
    TIPS = ("Click a step to jump there",
            "The pair merged at this step",
            "The token it created (and its id)",
            "How often the pair occurred when it was merged",
            "How many pairs shared that count (the tie rule chose among them)")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.records: list[MergeStep] = []
        self.current = 0
        self._verified = 0   # records[:_verified] are known to match the trainer's steps
        self.cache = ReadableCache()
        self.colors = TokenColors.for_palette()
        self._bold = QFont()
        self._bold.setBold(True)

    # ----- updates ------------------------------------------------------------------
    def reset(self, steps: Sequence[MergeStep] = (), current: int | None = None) -> None:
        """A new trainer: forget every record."""
        self.beginResetModel()
        self.records = list(steps)
        self.current = len(self.records) if current is None else current
        self._verified = self.current
        self.cache = ReadableCache()
        self.endResetModel()

    def sync(self, steps: Sequence[MergeStep]) -> None:
        """Follow the trainer's step list (its length is the current step).

        Records past the current step are kept while they agree with what the trainer
        redoes; a record that differs drops it and everything after it.
        """
        n = len(steps)
        i = min(self._verified, n, len(self.records))
        while i < n and i < len(self.records) and _same(self.records[i], steps[i]):
            i += 1
        if i < n and i < len(self.records):   # the trainer went another way: drop the tail
            self.beginRemoveRows(QModelIndex(), i + 1, len(self.records))
            del self.records[i:]
            self.endRemoveRows()
        if len(self.records) < n:
            first = len(self.records)
            self.beginInsertRows(QModelIndex(), first + 1, n)
            self.records.extend(steps[first:n])
            self.endInsertRows()
        self._verified = n
        self.set_current(n)

    def set_current(self, k: int) -> None:
        old, self.current = self.current, k
        if old != k and self.records:
            lo, hi = min(old, k), max(old, k)
            self.dataChanged.emit(self.index(lo, 0), self.index(min(hi, len(self.records)),
                                                                self.TIES))

    def set_colors(self, colors: TokenColors) -> None:
        self.colors = colors
        self.dataChanged.emit(self.index(0, 0), self.index(len(self.records), self.TIES))

    # ----- Qt model -------------------------------------------------------------------
    def n_rows(self) -> int:
        return len(self.records) + 1



    def step_of_row(self, row: int) -> int:
        return row

    def record(self, k: int) -> MergeStep | None:
        return self.records[k - 1] if 1 <= k <= len(self.records) else None

    def data(self, index, role=DISPLAY):
        if role not in _ROLES:   # most roles a view asks for: answer fast
            return None
        k, col = index.row(), index.column()
        rec = self.record(k)
        if role == ID_ROLE or (role == SORT_ROLE and col == self.STEP):
            return k
        if role == FOREGROUND and k > self.current:
            return self.colors.future
        if role == FONT and k == self.current:
            return self._bold
        if role == BACKGROUND and k == self.current:
            return self.colors.tied
        if rec is None:   # row 0: the start
            if role == DISPLAY:
                return {self.STEP: "0", self.MERGE: "start: base vocabulary"}.get(col, "")
            if role == TOOLTIP:
                return "Before any merge. Click to go back to the start."
            return None
        if role == DISPLAY:
            if col == self.STEP:
                return str(k)
            if col == self.MERGE:
                return f"{self.cache.text(rec.left)} {self.cache.text(rec.right)}"
            if col == self.TOKEN:
                return f"{self.cache.text(rec.token)}  ({rec.new_id})"
            if col == self.COUNT:
                return f"{rec.count:,}"
            return str(rec.n_tied) if rec.n_tied > 1 else ""
        if role == TOKENS_ROLE and col == self.MERGE:
            (lt, lp), (rt, rp) = self.cache(rec.left), self.cache(rec.right)
            return [(lt, lp), (rt, rp)]
        if role == SORT_ROLE:
            return {self.COUNT: rec.count, self.TIES: rec.n_tied}.get(col, k)
        if role == SEARCH_ROLE:
            return f"{self.cache.text(rec.left)} {self.cache.text(rec.right)}"
        if role == ALIGN and col in (self.STEP, self.COUNT, self.TIES):
            return ALIGN_RIGHT
        if role == TOOLTIP:
            state = "" if k <= self.current else "\n(undone: click to redo up to here)"
            return (rec.reason or f"Merge {k}: count {rec.count:,}") + state
        return None


def _same(a: MergeStep, b: MergeStep) -> bool:
    return a is b or (a.pair == b.pair and a.count == b.count and a.new_id == b.new_id)
