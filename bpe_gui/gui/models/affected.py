"""Words (pre-tokens) a merge changed, before and after, with their frequencies.

The rows are rendered once from a MergeStep when it becomes the last merge (at most
``AFFECTED_LIMIT`` words), so the model never touches the trainer afterwards.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...engine.trainer import MergeStep
from .roles import (ALIGN, DISPLAY, SORT_ROLE, TOKENS_ROLE, TOOLTIP, Cell, HeaderedTableModel,
                    ReadableCache)

Chips = tuple[tuple[str, bool, bool], ...]   # (text, partial, is the new token)

_ROLES = frozenset({DISPLAY, ALIGN, SORT_ROLE, TOKENS_ROLE, TOOLTIP})


@dataclass(frozen=True)
class AffectedView:
    freq: int
    before: Chips
    after: Chips
    new_id: int
    after_ids: tuple[int, ...]


def affected_rows(rec: MergeStep | None, vocab_bytes: Sequence[bytes],
                  cache: ReadableCache) -> tuple[AffectedView, ...]:
    """Render a record's affected words as chips (token texts, partial flags)."""
    if rec is None:
        return ()

    def chips(ids: Sequence[int], mark: int = -1) -> Chips:
        return tuple((*cache(vocab_bytes[i]), i == mark) for i in ids)
    return tuple(AffectedView(w.freq, chips(w.before), chips(w.after, rec.new_id), rec.new_id,
                              w.after) for w in rec.affected)


class AffectedModel(HeaderedTableModel):
    FREQ, BEFORE, AFTER = range(3)
    HEADERS = ("Freq", "Before", "After")
    TIPS = ("How many times the word occurs in the corpus",
            "The word's tokens before the merge",
            "The word's tokens after it (the new token is marked)")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: tuple[AffectedView, ...] = ()

    def set_rows(self, rows: tuple[AffectedView, ...]) -> None:
        self.replace_rows(len(self.rows), len(rows), lambda: setattr(self, "rows", rows))

    def n_rows(self) -> int:
        return len(self.rows)

    def cell(self, r: int, col: int) -> Cell:
        row = self.rows[r]
        if col == self.FREQ:
            return Cell(f"{row.freq:,}", True)
        return Cell(row.before if col == self.BEFORE else row.after)

    def data(self, index, role=DISPLAY):
        if role not in _ROLES:   # most roles a view asks for: answer fast
            return None
        r, col = index.row(), index.column()
        row = self.rows[r]
        if col == self.FREQ:
            if role == DISPLAY:
                return f"{row.freq:,}"
            if role == SORT_ROLE:
                return row.freq
            return self.visual_data(r, col, role)
        chips = row.before if col == self.BEFORE else row.after
        if role == DISPLAY or role == SORT_ROLE:
            return " | ".join(c[0] for c in chips)
        if role == TOOLTIP:
            return f"{len(chips)} tokens: " + " | ".join(c[0] for c in chips)
        return self.visual_data(r, col, role)
