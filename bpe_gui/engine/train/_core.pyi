"""Incremental BPE training state in C (see csrc/core.h for the data structures).

Use it through :class:`bpe_gui.engine.train.trainer.Trainer`. Ids are ints below 2**31 - 1.
Every call that builds or changes the state (construction, step, undo, merge, replay,
run; ColumnCore's too) releases the GIL while it works; meanwhile every other method and
property of the same object raises RuntimeError("Core is busy ...") on other threads.
After a failed allocation inside a step the Core is "broken": methods that read or
change the training state raise RuntimeError.
"""
from collections.abc import Sequence

from typing_extensions import Buffer

GREATEST: int     # ties: the greater (bytes(a), bytes(b)) wins; equal bytes: greater ids
FIRST_SEEN: int   # ties: the pair whose first live occurrence comes first
LOWEST_IDS: int   # ties: the smaller (a, b) wins
LOWEST_HF: int    # ties: the smaller (a, b) in tokenizers' numbering (its BpeTrainer)
GREATEST_HF: int  # ties: the greater pair of GPT-2 spellings (its ParityBpeTrainer)
simd: str  # the vector code compiled in: "sse2,avx2,avx512", "sse2" or "" (util/simd.h)

Pair = tuple[int, int, int]   # (a, b, count)

class Core:
    def __new__(cls, symbols: Buffer | Sequence[int], starts: Buffer | Sequence[int],
                freqs: Buffer | Sequence[int], token_bytes: Sequence[bytes | bytearray],
                tie_rule: int = ..., undo: bool = True) -> Core:
        """symbols: int32 buffer, bytes (each byte a symbol id) or ints; starts: int64,
        n_words + 1 offsets into symbols (0 first, len(symbols) last); freqs: int64, each
        >= 1; token_bytes: the bytes of every initial token id. ValueError if any of it
        is inconsistent (or too large: at most 2**30 words and tokens). undo=False keeps
        no undo log (less memory): undo() then raises RuntimeError."""
    @property
    def n_tokens(self) -> int: ...
    @property
    def n_steps(self) -> int: ...
    @property
    def n_words(self) -> int: ...
    @property
    def n_pairs(self) -> int:
        """Pairs with a count > 0."""
    @property
    def tie_rule(self) -> int: ...
    @property
    def total_symbols(self) -> int:
        """Frequency-weighted number of symbols in all words now."""
    def best(self) -> Pair | None:
        """The pair the next step merges, or None."""
    def top(self, k: int, /) -> list[Pair]:
        """Up to k pairs, best first."""
    def tied(self, limit: int, /) -> tuple[int, list[Pair]]:
        """How many pairs share the top count, and the first ``limit`` of them."""
    def step(self) -> tuple[int, int, int, int] | None:
        """Merge the best pair: (a, b, new_id, count), or None if no pair is left."""
    def undo(self) -> tuple[int, int, int]:
        """Undo the last step: (a, b, new_id). IndexError at step 0; RuntimeError if the
        Core was made with undo=False."""
    def merge(self, a: int, b: int, into: int = -1, /) -> tuple[int, int]:
        """Merge the pair (a, b), best or not: (new_id, its count before). A pair that
        does not occur still makes its token (a merge list replayed on another sample).
        ``into``: the pair makes that existing token (its bytes a's then b's), as
        tokenizers' parity trainer keeps a token's id when a merge makes it again; an
        undo keeps it. ValueError if an id does not exist or ``into`` is another
        token."""
    def replay(self, pairs: Buffer | Sequence[int], top_k: int = 0
               ) -> tuple[bytes, bytes, bytes, bytes]:
        """Merge the pairs a0, b0, a1, b1, ... (int32) in order without the GIL (a = -1:
        skip that merge, no token made). Returns bytes: counts (int64 per merge, before
        it), ends (int64 per merge, changed records so far), changed (records of
        (a int32, b int32, count int64): the pairs each merge changed and their counts
        after it), tops (top_k records per merge: the best pairs before it, a = b = -1
        past the last). ValueError when an id does not exist at its merge."""
    def run(self, n: int, min_count: int = 1) -> int:
        """Up to n steps without the GIL, stopping when the best count < min_count;
        returns the number done."""
    def history(self, start: int, /) -> list[tuple[int, int, int, int, int, int, int]]:
        """(a, b, new_id, count, n_tied, merged, gone) of the steps from ``start`` on;
        gone: bit 0 set if a no longer occurs on its own, bit 1 for b."""
    def history_columns(self, start: int, /) -> bytes:
        """``history(start)`` as seven int64 columns end to end (a, b, new_id, count,
        n_tied, merged, gone), each as long as the steps."""
    def touched(self, limit: int, /) -> tuple[int, list[int]]:
        """Words the last step changed: how many, and up to ``limit`` word ids by
        frequency (descending), then id."""
    def word(self, w: int, /) -> list[int]:
        """The symbol ids of word w now."""
    def segmentation(self) -> tuple[bytes, bytes]:
        """Every word now: its symbol ids (int32) and n_words + 1 starts (int64), as bytes."""
    def pair_count(self, a: int, b: int, /) -> int: ...
    def symbol_count(self, t: int, /) -> int:
        """Frequency-weighted occurrences of token t on its own."""
    def token(self, t: int, /) -> bytes: ...
    def _check(self) -> None:
        """Full consistency check against a recount (AssertionError if broken)."""
    def _stats(self) -> dict[str, int]:
        """Sizes of the internal structures (benchmarks)."""

Table = tuple[Buffer, Buffer | Sequence[int], Buffer | Sequence[int]]   # (blob, starts, counts)

class ColumnCore:
    """Parity training's one core (core/core.h, "Columns"): the union of the tables'
    words, each with a count per table (column). Columns 0 .. n_train - 1 are the first
    n_train tables, with pair counts and a heap each; with with_sum, column n_train is
    their sum (heaped too); the other tables follow, one column each, whose symbols
    only are counted. The 256 bytes are the base tokens."""
    def __new__(cls, tables: Sequence[Table], n_train: int, with_sum: bool = False,
                tie_rule: int = ..., undo: bool = True) -> ColumnCore: ...
    @property
    def n_tokens(self) -> int: ...
    @property
    def n_steps(self) -> int: ...
    @property
    def n_words(self) -> int: ...
    @property
    def n_columns(self) -> int: ...
    @property
    def n_heaped(self) -> int: ...
    def best(self, col: int, /) -> Pair | None: ...
    def top(self, col: int, k: int, /) -> list[Pair]: ...
    def tied(self, col: int, limit: int, /) -> tuple[int, list[Pair]]: ...
    def merge(self, a: int, b: int, into: int = -1, /) -> int:
        """Merge (a, b) in every word (into: an existing token, as Core.merge): the id."""
    def undo(self) -> tuple[int, int, int]: ...
    def totals(self) -> tuple[int, ...]:
        """Each column's count-weighted symbols now."""
    def rows(self, col: int, /) -> bytes:
        """int32: the word number of each row of column col's table."""
    def touched(self, col: int, limit: int, /) -> tuple[int, list[int]]:
        """The rows of col's table the last step changed: how many, and up to limit of
        them by their count there (descending), then row."""
    def word(self, w: int, /) -> list[int]: ...
    def symbol_count(self, t: int, /) -> int:
        """Occurrences of token t weighted by the first n_train columns."""
    def token(self, t: int, /) -> bytes: ...
    def pair_count(self, col: int, a: int, b: int, /) -> int: ...
    def _check(self) -> None: ...
    def _stats(self) -> dict[str, int]: ...
