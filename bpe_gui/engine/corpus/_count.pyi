"""Counting pre-tokens (words) of a corpus in a native hash table (csrc/countmodule.c), and
the rows of word-count table files (csrc/tsv.c). Arrays go in and out as bytes of
int64/uint64.

Use it through :mod:`bpe_gui.engine.corpus.counting` and :mod:`bpe_gui.engine.corpus.table_file`. While one
thread counts, exports or merges (without the GIL), the counter's other methods and
properties raise RuntimeError on other threads. A word's first appearance is the key
(block << 32) | ordinal: word k of a text counted with (block, ordinal) has key
(block << 32) | (ordinal + k); a word keeps its smallest key, and export() orders by key.
A block holds at most 2**32 words (OverflowError beyond).
"""
import builtins
from collections.abc import Sequence
from typing_extensions import Buffer

MAX_TABLE_SLOTS: int
TABLES_REGEX_VERSION: str
simd: str  # the vector code compiled in: "sse2,avx2,avx512", "sse2" or "" (util/simd.h)

class WordCounter:
    def __init__(self, preset: int = -1, specials: Sequence[bytes] | None = ...,
                 lines: bool = False, special_words: bool = False) -> None:
        """preset: a ``_scan`` preset for count(), or -1 when words are given
        (count_words); specials: special tokens, never split; lines: count() takes each
        line of a text (with its \\n) as a text of its own; special_words: each special
        token found is counted as a word of its own (else it is not counted)."""
    def __len__(self) -> int:
        """Distinct words."""
    @property
    def total(self) -> int:
        """Words counted, with repeats."""
    @property
    def chars(self) -> int:
        """Characters of the texts given to count (and add_size)."""
    @property
    def bytes(self) -> int:
        """Their UTF-8 bytes."""
    @property
    def preset(self) -> int:
        """Scanner preset (0 gpt2, 1 cl100k, 2 o200k), -1 for none."""
    @property
    def memory(self) -> int:
        """Bytes the table holds (about)."""
    def count(self, text: str | Buffer, block: int = 0, ordinal: int = 0, stop: int = -1,
              /) -> int:
        """A whole text (bytes: valid UTF-8), cut at special tokens then by the scanner;
        returns the next ordinal of the block. stop >= 0 (a byte offset): only the words
        that start before it are counted, the rest is the text that follows them."""
    def count_words(self, words: Sequence[str], block: int = 0, ordinal: int = 0, /) -> int:
        """Words cut elsewhere (regex patterns); returns the next ordinal of the block."""
    def merge(self, other: WordCounter, /) -> None:
        """Add another counter's words (the earlier first appearance wins)."""
    def export(self, firsts: bool = False) -> tuple[builtins.bytes, ...]:  # (bytes: a method here)
        """(blob, starts, freqs[, firsts]) in order of first appearance: the words' UTF-8
        end to end, int64 offsets (n + 1), int64 counts, uint64 first-appearance keys."""
    def add_table(self, blob: Buffer, starts: Buffer, counts: Buffer,
                  firsts: Buffer | None = None, block: int = 0, ordinal: int = 0) -> int:
        """Add exported arrays; without firsts, word i has key (block, ordinal + i).
        Returns ordinal + the number of words."""
    def add_size(self, chars: int, bytes: int, /) -> None: ...
    def clear(self) -> None: ...

def export_merged(counters: Sequence[WordCounter], firsts: bool = False,
                  threads: int = 0) -> tuple[bytes, ...]:
    """export() of the counters' union (as merging them all into one, without the copy);
    two or more are spent: left empty. Their counts are gathered on ``threads`` threads
    (0: one per counter); the result is the same for any number."""

def utf8_error(data: Buffer, /) -> int:
    """Offset of the first byte that is not valid UTF-8, or -1."""

def longest_gap(starts: Buffer, /) -> int:
    """The greatest ``starts[i + 1] - starts[i]`` of a buffer of int64 (a table's word
    starts: its longest word); 0 for fewer than two entries."""

def safe_cut(preset: int, data: Buffer, lo: int, hi: int, /) -> int:
    """The largest safe cut p, lo < p <= hi (see csrc/scan.h), or -1."""

def format_tsv(blob: Buffer, starts: Buffer, counts: Buffer, lo: int = 0, hi: int = -1) -> bytes:
    """Rows lo..hi as "COUNT<TAB>WORD<LF>", the word escaped (\\\\ \\t \\n \\r \\0)."""

def parse_tsv(data: Buffer, base: int = 0) -> tuple[bytes, bytes, bytes]:
    """Whole rows -> (blob, ends + base, counts); ValueError((row, message)) names the
    first malformed row, counted from 0."""

def set_tables(blob: Buffer | None, /) -> None: ...
def tables_version() -> str: ...
def register_tables(blob: Buffer, /) -> int: ...
def slot_version(slot: int, /) -> str: ...
