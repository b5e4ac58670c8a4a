"""The merge timeline: every MergeStep record seen for the current trainer.

Row 0 is the start (no merges); row k is the record of merge k. Records beyond the
current step stay after stepping back (shown greyed) so the user can click forward
again. Stepping appends or removes rows (``beginInsertRows``); only a new trainer
resets the model.

Example: at step 3 after stepping back from 5, rows are
``start, 1, 2, 3 (current), 4 (grey), 5 (grey)``.
"""
from __future__ import annotations

from typing import Callable, Sequence

from PySide6.QtCore import QModelIndex

from ...engine.train import MergeStep
from ..controller.origin import Origin
from .inherited import block_color_for
from .glyphs import token_note
from .roles import (ALIGN, BACKGROUND, DISPLAY, FONT, FOREGROUND, ID_ROLE, SEARCH_ROLE,
                    SORT_ROLE, TOKENS_ROLE, TOOLTIP, Cell, HeaderedTableModel, ReadableCache,
                    TokenColors)

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
        # training on from a tokenizer: row 0 is its merges, one collapsed block
        self.origin: Origin | None = None
        # parity-aware training: whose turn step k was ("" if none), for the tooltip
        self.turn_of: Callable[[int], str] | None = None

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
        if n and self.records[n - 1] is not steps[n - 1]:
            self.records[n - 1] = steps[n - 1]   # the same merge, now with its detail
        self._verified = n
        self.set_current(n)

    def set_current(self, k: int) -> None:
        old, self.current = self.current, k
        if old != k and self.records:
            lo, hi = min(old, k), max(old, k)
            self.dataChanged.emit(self.index(lo, 0), self.index(min(hi, len(self.records)),
                                                                self.TIES))

    def set_origin(self, origin: Origin | None) -> None:
        """Row 0 as the source tokenizer's inherited merges (None: the plain start)."""
        if origin != self.origin:
            self.origin = origin
            self.dataChanged.emit(self.index(0, 0), self.index(0, self.TIES))

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

    def cell(self, k: int, col: int) -> Cell:
        current = self.current
        fg = self.colors.future if k > current else None
        now = k == current
        bg = self.colors.tied if now else None
        rec = self.record(k)
        if rec is None and self.origin is not None:   # row 0: the inherited block
            return self._block_cell(self.origin, col, now, fg)
        if rec is None:   # row 0: the start
            return Cell("0" if col == self.STEP else "start"   # (tooltip: before any merge)
                        if col == self.MERGE else "", col == self.STEP, now, fg, bg)
        if col == self.STEP:
            return Cell(str(k), True, now, fg, bg)
        if col == self.MERGE:
            return Cell((self.cache(rec.left), self.cache(rec.right)), False, now, fg, bg)
        if col == self.TOKEN:
            return Cell(f"{self.cache.text(rec.token)}  ({rec.new_id})", False, now, fg, bg)
        if col == self.COUNT:
            return Cell(f"{rec.count:,}", True, now, fg, bg)
        return Cell(str(rec.n_tied) if rec.n_tied > 1 else "", True, now, fg, bg)

    def data(self, index, role=DISPLAY):
        if role not in _ROLES:   # most roles a view asks for: answer fast
            return None
        k, col = index.row(), index.column()
        rec = self.record(k)
        if role == ID_ROLE or (role == SORT_ROLE and col == self.STEP):
            return k
        if role == DISPLAY:
            if rec is None and self.origin is not None and col == self.MERGE:
                return self.origin.block_text()
            if rec is not None and col == self.MERGE:
                return f"{self.cache.text(rec.left)} {self.cache.text(rec.right)}"
            return self.cell(k, col).content
        if role == TOOLTIP:
            if rec is None and self.origin is not None:
                return self.origin.block_tip()
            if rec is None:
                return "The start: the base vocabulary, before any merge. Click to go back here."
            state = "" if k <= self.current else "\n(undone: click to redo up to here)"
            turn = self.turn_of(k) if self.turn_of is not None else ""
            head = f"Merge {k}: count {rec.count:,}" + (f", {turn}'s turn" if turn else "")
            return (rec.reason or head) + state + token_note(rec.token)
        if rec is None:
            return None if role in (SORT_ROLE, SEARCH_ROLE) else self.visual_data(k, col, role)
        if role == SORT_ROLE:
            return {self.COUNT: rec.count, self.TIES: rec.n_tied}.get(col, k)
        if role == SEARCH_ROLE:
            return f"{self.cache.text(rec.left)} {self.cache.text(rec.right)}"
        return self.visual_data(k, col, role)

    def _block_cell(self, o: Origin, col: int, now: bool, fg) -> Cell:
        bg = self.colors.tied if now else block_color_for(self.colors)
        # read across the Merge and New token columns: "▸ 50,000 merges | inherited
        # from gpt2 (GPT-2 files)" (the table paints no spans: table_cells.py)
        text = {self.STEP: "0", self.MERGE: f"▸ {o.n_inherited:,} merges",
                self.TOKEN: f"inherited from {o.label}"}.get(col, "")
        return Cell(text, col == self.STEP, True, fg, bg)


def _same(a: MergeStep, b: MergeStep) -> bool:
    return a is b or (a.pair == b.pair and a.count == b.count and a.new_id == b.new_id)
