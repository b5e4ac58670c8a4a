"""Counting pre-tokens (words) of a corpus in a native hash table.

Use it through :mod:`bpe_gui.engine.corpus`. While one thread counts, exports or merges
(without the GIL), the counter's other methods and properties raise RuntimeError on other
threads. A word's first appearance is the key (block << 32) | ordinal: a block holds at
most 2**32 words (OverflowError beyond).
"""
from collections.abc import Sequence
from typing_extensions import Buffer

TABLES_REGEX_VERSION: str

class WordCounter:
    def __init__(self, preset: int = -1, specials: Sequence[bytes] | None = ...) -> None:
        """preset: a ``_scan`` preset for count(), or -1 when words are given
        (count_words); specials: special tokens, never counted, never split."""
    def __len__(self) -> int:
        """Distinct words."""
    @property
    def total(self) -> int:
        """Words counted, with repeats."""
    @property
    def chars(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def preset(self) -> int: ...
    @property
    def memory(self) -> int:
        """Bytes the table holds (about)."""
    def count(self, text: str | Buffer, block: int = 0, ordinal: int = 0, /) -> int:
        """Count a whole text's words; returns the next ordinal of the block."""
    def count_words(self, words: Sequence[str], block: int = 0, ordinal: int = 0, /) -> int:
        """Count words given as str; returns the next ordinal of the block."""
    def merge(self, other: WordCounter, /) -> None:
        """Add another counter's words (the earlier first appearance wins)."""
    def export(self, firsts: bool = False) -> tuple[bytes, ...]:
        """(blob, starts, freqs[, firsts]) in order of first appearance: the words' UTF-8
        end to end, int64 offsets (n + 1), int64 counts, uint64 first-appearance keys."""
    def add_table(self, blob: Buffer, starts: Buffer, counts: Buffer,
                  firsts: Buffer | None = None, block: int = 0) -> None:
        """Add words as export() gives them (int64 starts and counts, uint64 firsts)."""
    def add_size(self, chars: int, bytes: int, /) -> None: ...
    def clear(self) -> None: ...

def utf8_error(data: Buffer, /) -> int:
    """Offset of the first byte that is not valid UTF-8, or -1."""

def safe_cut(preset: int, data: Buffer, lo: int, hi: int, /) -> int:
    """A byte offset in (lo, hi] where a block can be cut without changing a word, or -1."""

def set_tables(blob: Buffer | None, /) -> None: ...
def tables_version() -> str: ...
