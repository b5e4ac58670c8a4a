"""Where the tokens of a trainer that trained on from another tokenizer come from (no Qt).

An :class:`Origin` says it: ids below ``n_initial`` and merge ranks below
``n_inherited`` are the source's, kept as they are; id ``n_initial + k - 1`` and rank
``n_inherited + k - 1`` were learned at step k. The timeline, the encode view and the
word playback ask it (``controller.train_on.origin()``); models/inherited.py has the
colour of what is new.

Example: Origin("gpt2 (GPT-2 files)", 50000, 50257): id 262 is inherited, id 50260 was
learned at step 4, rank 50003 too.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Origin:
    label: str          # the source, e.g. "gpt2 (GPT-2 files)" or "cl100k_base"
    n_inherited: int    # merges taken as they are
    n_initial: int      # ids taken as they are (0 .. n_initial-1)

    def new_flags(self, ids: Sequence[int]) -> list[bool]:
        """One flag per id: True if it was learned here (not the source's)."""
        n = self.n_initial
        return [i >= n for i in ids]

    def step_of_id(self, token_id: int) -> int:
        """The step that learned ``token_id`` (0 for an inherited one)."""
        return token_id - self.n_initial + 1 if token_id >= self.n_initial else 0

    def id_tip(self, token_id: int) -> str:
        if token_id >= self.n_initial:
            return f"id {token_id:,}: learned at step {self.step_of_id(token_id):,} (new)"
        return f"id {token_id:,}: inherited from {self.label}"

    def rank_is_new(self, rank: int | None) -> bool:
        return rank is not None and rank >= self.n_inherited

    def step_of_rank(self, rank: int) -> int:
        """The step that learned the merge of rank ``rank`` (the engine's, from 0)."""
        return rank - self.n_inherited + 1

    def rank_tip(self, rank: int | None) -> str:
        if rank is None:
            return ""
        if rank >= self.n_inherited:
            return f"learned at step {self.step_of_rank(rank):,} (new merge)"
        return f"inherited from {self.label} (its merge #{rank + 1:,})"

    def block_text(self) -> str:
        """The timeline's collapsed first row."""
        return (f"{self.n_inherited:,} inherited merges · {self.label} "
                f"(ids 0–{self.n_initial - 1:,})")

    def block_tip(self) -> str:
        return (f"Step 0 is {self.label} as it was: its {self.n_inherited:,} merges and "
                f"ids 0–{self.n_initial - 1:,}, kept as they are. The rows after it are the "
                "merges learned here, with new ids from "
                f"{self.n_initial:,}. Click to go back to the source tokenizer.")

    def legend_html(self, color: str) -> str:
        return (f"<span style='color:{color}; font-weight:bold'>▭ outlined / underlined</span>"
                f": learned here (ids from {self.n_initial:,}) · plain: inherited from "
                f"{_esc(self.label)}")


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
