"""Counting pre-tokens in a native hash table (csrc/countmodule.c), and the rows of
word-count table files (csrc/tsv.c). Arrays go in and out as bytes of int64/uint64."""
from typing_extensions import Buffer

TABLES_REGEX_VERSION: str

class WordCounter:
    """Words of UTF-8 texts counted without the GIL. First appearance: word k of a text
    counted with (block, ordinal) has key (block << 32) | (ordinal + k); a word keeps its
    smallest key, and export() orders by key."""

    total: int    # words counted, repeats included
    chars: int    # characters of the texts given to count (and add_size)
    bytes: int    # their UTF-8 bytes
    preset: int   # scanner preset (0 gpt2, 1 cl100k, 2 o200k), -1 for none
    memory: int   # bytes the table holds, about

    def __init__(self, preset: int = -1, specials: list[bytes] | tuple[bytes, ...] = ()) -> None: ...
    def count(self, text: str | Buffer, block: int = 0, ordinal: int = 0) -> int:
        """A whole text, cut at special tokens then by the scanner; returns the next ordinal."""
    def count_words(self, words: list[str], block: int = 0, ordinal: int = 0) -> int:
        """Words cut elsewhere (regex patterns); returns the next ordinal."""
    def add_size(self, chars: int, nbytes: int) -> None: ...
    def merge(self, other: "WordCounter") -> None: ...
    def export(self, firsts: bool = False) -> tuple[bytes, ...]:
        """(blob, starts, counts[, firsts]) in order of first appearance."""
    def add_table(self, blob: Buffer, starts: Buffer, counts: Buffer,
                  firsts: Buffer | None = None, block: int = 0, ordinal: int = 0) -> int:
        """Add exported arrays; without firsts, word i has key (block, ordinal + i).
        Returns ordinal + the number of words."""
    def clear(self) -> None: ...
    def __len__(self) -> int: ...

def utf8_error(data: Buffer) -> int:
    """Offset of the first byte that is not valid UTF-8, or -1."""

def safe_cut(preset: int, data: Buffer, lo: int, hi: int) -> int:
    """The largest safe cut p, lo < p <= hi (see csrc/scan.h), or -1."""

def format_tsv(blob: Buffer, starts: Buffer, counts: Buffer, lo: int = 0, hi: int = -1) -> bytes:
    """Rows lo..hi as "COUNT<TAB>WORD<LF>", the word escaped (\\\\ \\t \\n \\r \\0)."""

def parse_tsv(data: Buffer, base: int = 0) -> tuple[bytes, bytes, bytes]:
    """Whole rows -> (blob, ends + base, counts); ValueError((row, message)) names the
    first malformed row, counted from 0."""

def set_tables(blob: Buffer | None) -> None: ...
def tables_version() -> str: ...
