"""The hot loop of byte-level encoding in C: a merge table and a word cache.

Use it through :class:`bpe_gui.engine.tokenizers.trained.Tokenizer`. Any number of threads can
encode with one Merger at once (``encode_text`` runs without the GIL; ``add`` waits until
no thread is in it). A WordCache serves one thread at a time: while ``encode_text`` uses
it, its methods raise RuntimeError on other threads. Ids are ints from 0 to 2**31 - 2.
"""
from collections.abc import Sequence

from typing_extensions import Buffer

MAX_TABLE_SLOTS: int
TABLES_REGEX_VERSION: str   # the regex release of the scanner's built-in tables

class WordCache:
    """Word bytes -> token ids, in native memory; cleared when it holds max_words."""
    def __init__(self, max_words: int = 262144) -> None: ...
    def __len__(self) -> int: ...
    def clear(self) -> None: ...

class Merger:
    """Merge table for byte-level BPE encoding (lowest rank first, leftmost first)."""
    def __init__(self, byte_ids: Sequence[int]) -> None:
        """byte_ids: the token id of each of the 256 bytes. Only once per object."""
    @classmethod
    def wrap(cls, table: object, /) -> Merger:
        """A Merger reading an imported model's merge table (the capsule of
        ``_pipeline.Model.merge_table()``); it takes no merges (add raises RuntimeError)."""
    @property
    def n_merges(self) -> int:
        """Distinct merge pairs."""
    def add(self, a: int, b: int, rank: int, new_id: int, /) -> bool:
        """Register a merge; False if the pair is known (its first rank stays)."""
    def merge(self, ids: Sequence[int], limit: int, /) -> tuple[int, ...]:
        """Apply the merges of rank < limit to one word's ids."""
    def encode_words(self, words: list[str], cache: dict[str, tuple[int, ...]], limit: int,
                     cache_limit: int, /) -> list[int]:
        """The ids of the words (pre-tokens) one after another; ``cache`` is filled on
        misses and cleared when it reaches cache_limit entries."""
    def encode_pieces(self, blob: bytes, starts: Buffer, joins: bytes, limit: int,
                      cache: WordCache, /) -> tuple[bytes, bytes]:
        """Words ``blob[starts[i]:starts[i + 1]]`` (int64 starts), each cut between bytes
        x, y where ``joins[x << 8 | y]`` is 0 and the segments merged through the cache,
        without the GIL: (int32 ids, int64 starts of each word's ids), as bytes."""
    def encode_text(self, preset: int, text: str, limit: int, cache: WordCache, /) -> list[int]:
        """A whole text without special tokens, cut by the native scanner (preset as in
        ``_scan``) and merged, without the GIL. UnicodeEncodeError for lone surrogates."""

def set_tables(blob: Buffer | None, /) -> None:
    """The scanner's character tables (``unicode_classes.table_blob()``); None: built-in.
    The scanner is ``_scan``'s (shared, csrc/scan.h): so are its tables."""

def tables_version() -> str: ...
def register_tables(blob: Buffer, /) -> int: ...
def slot_version(slot: int, /) -> str: ...
