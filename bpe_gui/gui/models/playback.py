"""The steps of one word's merge playback as a table: row 0 the start, row k merge k.

Columns: step, the merge's number, the pair merged, and the symbols after it (chips;
the new tokens emphasised). Rows after the current step are greyed,
the current one is bold, as in the merge timeline.

One numbering in the whole window: merge #k is the k-th merge learned, the training
step that made it (the timeline's and the vocabulary browser's step), counted from 1.
The engine's ``rank`` counts from 0 (merges.txt's order, the merge table): #k is rank
k - 1. Playback said "rank 105" for the merge the timeline calls step 106 (issue 30).

Example (``lowest`` with merges ``l o``, ``lo w``): rows ``start | l o w e s t``,
``1 | #1 | l o | lo w e s t``, ``2 | #2 | lo w | low e s t``.
"""
from __future__ import annotations

from ...engine.tokenizers import Playback
from .inherited import new_color_for
from .roles import (DISPLAY, TOOLTIP, Cell, HeaderedTableModel, ReadableCache, TokenColors)


class PlaybackModel(HeaderedTableModel):
    STEP, RANK, MERGE, AFTER = range(4)
    HEADERS = ("Step", "Merge #", "Merge", "Symbols after")
    TIPS = ("0 is the word's symbols before any merge",
            "The merge's number: #1 was learned first, and lower numbers apply first. "
            "For a trained tokenizer it is the training step that learned it (the "
            "timeline's and the vocabulary browser's step); for an imported one, its place "
            "in the file's merge list counted from 1 (the vocabulary browser's step). "
            "Files and the engine count ranks from 0: rank = number − 1",
            "The pair merged, at every place it occurs in the word, left to right",
            "The word's symbols after this step; the new tokens are outlined")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.playback: Playback | None = None
        self.current = 0
        self.cache = ReadableCache()
        self.colors = TokenColors.for_palette()
        self.origin = None   # training on: an Origin (controller/origin.py) tells new merges

    def set_playback(self, pb: Playback | None, current: int) -> None:
        old = self.n_rows()
        new = 0 if pb is None else len(pb.steps) + 1

        def assign():
            self.playback, self.current = pb, current
        self.replace_rows(old, new, assign)

    def set_current(self, k: int) -> None:
        if k != self.current and self.n_rows():
            lo, hi = min(k, self.current), max(k, self.current)
            self.current = k
            self.dataChanged.emit(self.index(lo, 0), self.index(hi, self.AFTER))

    def n_rows(self) -> int:
        return 0 if self.playback is None else len(self.playback.steps) + 1

    def _chips(self, symbols, emph=()) -> list[tuple]:
        return [(*self.cache(t), i in emph) for i, t in enumerate(symbols)]

    def cell(self, row: int, col: int) -> Cell:
        pb = self.playback
        if pb is None or row > len(pb.steps):
            return Cell()
        fg = self.colors.future if row > self.current else None
        bold = row == self.current
        if row == 0:
            if col == self.STEP:
                return Cell("start", False, bold, fg)
            if col == self.AFTER:
                return Cell(self._chips(pb.symbols))
            return Cell("", fg=fg)
        st = pb.steps[row - 1]
        if col == self.STEP:
            return Cell(str(row), True, bold, fg)
        if col == self.RANK:
            if self.origin is not None and self.origin.rank_is_new(st.rank):
                # a merge learned here: marked "new" in the mark colour (inherited: plain);
                # its number is the step that learned it, as in the timeline
                return Cell(f"new #{self.origin.step_of_rank(st.rank):,}", True, bold,
                            new_color_for(self.colors))
            return Cell("rule" if st.rank is None else merge_number(st.rank), True, bold, fg)
        if col == self.MERGE:
            if st.rank is None:
                return Cell("whole word", False, bold, fg)
            return Cell(self._chips(st.pair))
        return Cell(self._chips(st.symbols, set(st.new_positions())))

    def data(self, index, role=DISPLAY):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        if role == DISPLAY:
            content = self.cell(row, col).content
            return content if isinstance(content, str) else " ".join(c[0] for c in content)
        if role == TOOLTIP and row > 0 and self.playback is not None:
            st = self.playback.steps[row - 1]
            if st.rank is None:
                return st.rule
            where = f"\n{_first_up(self.origin.rank_tip(st.rank))}." \
                if self.origin is not None else ""
            return (f"Merge {merge_number(st.rank)} (rank {st.rank:,} counting from 0): every "
                    f"“{self.cache.text(st.pair[0])} {self.cache.text(st.pair[1])}” becomes "
                    f"“{self.cache.text(st.token)}” (id {st.token_id}); no pair left in the "
                    f"word has a lower number.{where}")
        return self.visual_data(row, col, role)


def merge_number(rank: int) -> str:
    """The window's number of the merge of engine rank ``rank`` (counted from 0): the
    training step that learned it. Example: 105 -> '#106'."""
    return f"#{rank + 1:,}"


def _first_up(s: str) -> str:
    return s[:1].upper() + s[1:]
