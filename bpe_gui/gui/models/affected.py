"""Words (pre-tokens) a merge changed, before and after, with their frequencies.

The rows come from a MergeStep when it becomes the last merge (at most
``AFFECTED_LIMIT`` words) with a copy of the vocabulary then, so the model never
touches the trainer afterwards; a row renders its chips when first shown.
"""
from __future__ import annotations

from typing import Callable, Sequence

from ...engine.train import MergeStep
from .roles import (ALIGN, DISPLAY, SORT_ROLE, TOKENS_ROLE, TOOLTIP, Cell, HeaderedTableModel,
                    ReadableCache)

Chips = tuple[tuple[str, bool, bool], ...]   # (text, partial, is the new token)

_ROLES = frozenset({DISPLAY, ALIGN, SORT_ROLE, TOKENS_ROLE, TOOLTIP})


class AffectedView:
    """One changed word: its frequency and its tokens before and after the merge. The
    chips (token texts, partial flags, the new token marked) are rendered the first
    time the row is shown: a merge can change many words, a table shows a few."""

    __slots__ = ("freq", "before_ids", "after_ids", "new_id", "_render", "_before", "_after")

    def __init__(self, freq: int, before_ids: Sequence[int], after_ids: Sequence[int],
                 new_id: int, render: Callable[[Sequence[int], int], Chips]):
        self.freq, self.before_ids, self.after_ids, self.new_id = (freq, before_ids,
                                                                   after_ids, new_id)
        self._render = render
        self._before: Chips | None = None
        self._after: Chips | None = None

    @property
    def before(self) -> Chips:
        if self._before is None:
            self._before = self._render(self.before_ids, -1)
        return self._before

    @property
    def after(self) -> Chips:
        if self._after is None:
            self._after = self._render(self.after_ids, self.new_id)
        return self._after


def affected_rows(rec: MergeStep | None, vocab_bytes: Sequence[bytes],
                  cache: ReadableCache) -> tuple[AffectedView, ...]:
    """A record's affected words, as rows whose chips render when first needed."""
    if rec is None:
        return ()
    vocab = tuple(vocab_bytes)   # the trainer's list changes with later steps

    def chips(ids: Sequence[int], mark: int) -> Chips:
        return tuple((*cache(vocab[i]), i == mark) for i in ids)
    return tuple(AffectedView(w.freq, w.before, w.after, rec.new_id, chips)
                 for w in rec.affected)


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
