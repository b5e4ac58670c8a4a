"""A merge list replayed on a sample: the trainer's incremental core, told which pair to
merge at each step instead of choosing the best, reporting what every merge changed.

Data-mixture inference (``analysis.mixture``) needs, for each category's sample, the count
of every pair before every merge of a published tokenizer. Recounting a sample per step
costs its size times the number of merges; the core touches only the occurrences of the
merged pair and their neighbours (as training does), and says which pair counts changed.

Ids: the 256 bytes are ids 0-255 (the byte's value), and merge k makes id 256 + k, on
every sample alike, so pairs are comparable across samples by their ids alone.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass

from ..corpus.table import PretokenTable
from .trainer import new_core

BYTE_TOKENS = [bytes([i]) for i in range(256)]
# a changed pair or a top pair: (left id, right id, count), as the core writes them
PAIR_RECORD = (("a", "<i4"), ("b", "<i4"), ("count", "<i8"))
SKIP = -1   # a merge to leave out (its parts are not tokens): no id is made


@dataclass(frozen=True)
class ReplayChunk:
    """What replaying some merges did, as raw little-endian arrays (numpy reads them
    with ``frombuffer``): ``counts`` int64, each merge's count before it; ``ends`` int64,
    the ``changed`` records up to each merge; ``changed``: PAIR_RECORD records, the pairs
    a merge changed with their counts after it (0: gone); ``tops``: ``top_k`` records per
    merge, the best pairs before it (ids -1 past the last pair)."""

    counts: bytes
    ends: bytes
    changed: bytes
    tops: bytes


class MergeReplay:
    """One sample's words (a byte-level table) under a merge list, merge by merge.

    Example::

        >>> r = MergeReplay(table_from_text("abab ab", Pretokenizer("gpt2")))
        >>> r.pairs()                      # [(97, 98, 3), (98, 97, 1), (32, 97, 1)] in some order
        >>> r.replay(array("i", [97, 98])).counts   # int64 3: (a, b) occurred 3 times
    """

    def __init__(self, table: PretokenTable):
        # a replay only goes forward: no undo log
        self.core = new_core(table.blob, table.starts, table.counts, BYTE_TOKENS, "lowest-ids",
                             undo=False)
        self.n_merges = 0

    def pairs(self) -> list[tuple[int, int, int]]:
        """Every pair that occurs now, with its count."""
        return self.core.top(self.core.n_pairs)

    def replay(self, pairs: array, top_k: int = 0) -> ReplayChunk:
        """Merge ``pairs`` (int32 ids a0, b0, a1, b1, ...; ``SKIP``, SKIP leaves one out)
        in order; ``top_k`` > 0 also records the best pairs before each merge."""
        counts, ends, changed, tops = self.core.replay(pairs, top_k)
        self.n_merges += len(pairs) // 2
        return ReplayChunk(counts, ends, changed, tops)
