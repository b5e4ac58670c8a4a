"""The hot loop of byte-level encoding in C: a merge table, word caches, the one-pass
encoder of whole texts.

Use it through :class:`bpe_gui.engine.tokenizers.trained.Tokenizer` and the imported
tokenizers' pipeline. Any number of threads can encode with one Merger and one Encoder at
once (encoding runs without the GIL; ``add`` waits until no thread is in it). A WordCache
serves one thread at a time: while ``encode_pieces`` uses it, its methods raise RuntimeError
on other threads. Ids are ints from 0 to 2**31 - 2.
"""
from array import array
from collections.abc import Sequence

from typing_extensions import Buffer

MAX_TABLE_SLOTS: int
ENC_CHUNK: int   # characters of a long str turned into UTF-8 at a time
simd: str  # the vector code compiled in: "sse2,avx2,avx512", "sse2" or "" (util/simd.h)
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

class Encoder:
    """Whole texts to ids in one pass (csrc/merge/encoder.h): the special tokens found in
    C (leftmost, the longest at a place), the words cut by the native scanner (``preset``
    as in ``_scan``; the common ASCII words decided from one 8-byte load), each word's ids
    from a word cache every thread shares (``cache_words`` words, fixed memory: 64 bytes
    a word) or merged with the merges of rank < ``limit`` on a miss. Raises
    UnicodeEncodeError for a text with lone surrogates (UTF-8 cannot hold them)."""
    def __init__(self, merger: Merger, preset: int, limit: int = 2**31 - 1,
                 specials: dict[str, int] | None = None, cache_words: int = 131072) -> None: ...
    def encode(self, text: str, /) -> list[int]:
        """The ids of a text, special tokens found."""
    def encode_ordinary(self, text: str, /) -> list[int]:
        """The ids of a text whose special tokens are plain text."""
    def encode_to_array(self, text: str,
                        around: tuple[Sequence[int], Sequence[int]] | None = None, /
                        ) -> array[int]:
        """``encode`` as an ``array('I')`` (4 bytes an id; no int object per id);
        ``around``: (ids before, ids after) put around the text's (a post-processor's
        BOS and EOS) in the same array, with no second copy of the ids."""
    def encode_ordinary_to_array(self, text: str,
                                 around: tuple[Sequence[int], Sequence[int]] | None = None, /
                                 ) -> array[int]: ...
    def encode_batch(self, texts: list[str], threads: int = 1, as_array: bool = False,
                     ordinary: bool = False) -> list[list[int]] | list[array[int]]:
        """``[encode(t) for t in texts]`` on ``threads`` native threads that share the
        cache (merge/batch.c: each list made empty with the GIL, its items written on the
        threads without it)."""
    def encode_offsets(self, text: str, lengths: Buffer, tokens: list[bytes],
                       ordinary: bool = False,
                       align: tuple[Buffer, Buffer] | None = None,
                       trim: tuple[Buffer, Buffer, bool] | None = None
                       ) -> tuple[list[int], list[bytes], list[tuple[int, int]], list[int]] | None:
        """``encode`` (``encode_ordinary`` when ``ordinary``) with each token's character
        span, read off its id's byte length: ``lengths`` int32 by id, a special token found
        the bytes it matched; a token holding part of a character covers all of it.
        ``align``: (starts, ends), int64 by character of ``text``, a normal form: the
        original span each of its characters stands for. ``trim``: (lead, trail, prefix),
        int32 by id: tokenizers' ByteLevel offset trimming. -> (ids, ``tokens[id]`` of
        each, spans, indices of the special tokens found), or None when the lengths do not
        tile the text's UTF-8 or an id has no token (the caller's slow path then runs)."""
    def clear(self) -> None:
        """Forget every cached word, the idle tables of long words too (RuntimeError while
        another thread encodes)."""
    def holds(self, word: bytes, /) -> bool:
        """Whether the shared cache holds the word (its UTF-8 as the pattern cut it, up to
        32 bytes), in its set or its victim set: for tests."""
    @property
    def cached_words(self) -> int: ...
    @property
    def idle(self) -> tuple[int, int]:
        """(scratches kept between calls: one per thread that encoded at once; bytes of
        their tables of long words, at most 64 MB)."""

def trim_offsets(ids: list[int], offsets: list[tuple[int, int]], lead: Buffer, trail: Buffer,
                 prefix: bool, /) -> list[tuple[int, int]]:
    """tokenizers' ByteLevel offset trimming (csrc/imported/offsets.c): each span leaves
    out lead[id] leading and trail[id] trailing spaces (int32 by id), never crossing its
    other end; with ``prefix`` (add_prefix_space) a first token's one space stays."""

def _fast_word(preset: int, data: bytes, /) -> int:
    """The one-load word scanner (csrc/scan/scan_fast.h) at the 8 bytes data[:8]: the word's
    length 1..7, 8 when a letter run fills them, 0 undecided; with 16 bytes and 8, -1 or
    8 + the run's end in data[8:16]. For the tests against ``regex``."""

def _pretok_words(preset: int, data: bytes, /) -> list[int]:
    """The byte offsets where the encoder's words of data end, in the current
    pre-tokenizer mode (csrc/scan/scan_mask.h's windows, the scanner for the rest). For the
    tests against ``regex``."""

def set_pretok_mode(name: str, /) -> str:
    """The cl100k family's pre-tokenizer for encodes from now on: 'mask' (64-byte windows
    of class masks, the default) or 'word' (a word at a time, as ``BPE_GUI_PRETOK=word``);
    the mode before. ValueError for any other name."""
def pretok_mode() -> str:
    """'mask' or 'word'."""

def set_tables(blob: Buffer | None, /) -> None:
    """The scanner's character tables (``unicode_classes.table_blob()``); None: built-in.
    The scanner is ``_scan``'s (shared, csrc/scan.h): so are its tables."""

def tables_version() -> str: ...
def register_tables(blob: Buffer, /) -> int: ...
def slot_version(slot: int, /) -> str: ...

def merge_strategies() -> list[tuple[str, str, str, str, bool]]:
    """(name, the instruction set it needs or "", the words it applies to, its invariant,
    whether this build and CPU run it)."""
def set_merge_strategy(name: str, /) -> str:
    """Force a merge strategy ('auto': none) on tables made from now on; the one before."""
def merge_strategy_used() -> dict[str, int]:
    """Words each strategy merged in tables made while one was forced."""
