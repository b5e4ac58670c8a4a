"""Native pre-tokenizer for the GPT-2 (0), cl100k (1), o200k (2), Llama 3 (3) and Qwen2 (4)
patterns (``presets.KINDS``); ``_C_API`` is the scanner's function table that
``_count`` and ``_encode`` call (csrc/scan.h).

Use it through :mod:`bpe_gui.engine.text.scanner`, which installs run-time tables when the
installed ``regex`` differs from the one the built-in tables came from, and registers
the tables of other Unicode versions (``unicode_versions``). ``preset`` everywhere is a
scanner id: a kind, plus a registered tables slot << 8 (kind alone: the current tables).
A ``str`` with lone surrogates raises ``UnicodeEncodeError`` (a ``ValueError``).
"""
from array import array
from typing import Sequence

from typing_extensions import Buffer

GPT2: int
CL100K: int
O200K: int
LLAMA3: int
QWEN2: int
TEKKEN: int
_C_API: object  # a PyCapsule named "bpe_gui.engine.text._scan._C_API"
TABLES_REGEX_VERSION: str  # the regex release the built-in tables came from
simd: str  # the vector code compiled in: "sse2,avx2,avx512", "sse2" or "" (util/simd.h)
MAX_TABLE_SLOTS: int  # slots 1 .. MAX_TABLE_SLOTS - 1 hold registered tables

def words(preset: int, text: str) -> list[str]:
    """Exactly ``regex.findall(pattern, text)`` for the preset's pattern."""

def word_ends(preset: int, text: str) -> array[int]:
    """``array('q')``: the code-point offset where each word ends."""

def safe_cut(preset: int, text: str, lo: int, hi: int) -> int:
    """Largest p, lo < p <= hi (hi clamped to len(text) - 1), such that whatever follows
    text[p], words(x) == words(x[:p]) + words(x[p:]); -1 if none."""

def count_words(preset: int, data: str | Buffer) -> int:
    """Number of words of a str or of UTF-8 bytes; scans only (benchmarks)."""

def giant_cuts(preset: int, data: Buffer, n: int, limit: int) -> tuple[int, int, int]:
    """For a block reader that found no safe cut in data[:n] (data[0] starts a word or is
    a piece cut): (settled, reach, piece_cut). The words that start before ``settled`` are
    final, and data[:reach] scanned as a whole text gives them; ``piece_cut`` (-1: none)
    is one of word_limit's piece boundaries (every ``limit`` bytes from ``settled``)
    inside the word at ``settled``, where the text from it starts with the rest of that
    word. See csrc/scan_giant.inc."""

def set_tables(blob: Buffer | None) -> None:
    """Install character tables (``unicode_classes.table_blob()``); None: built-in ones.
    Raises ValueError for a malformed blob."""

def tables_blob() -> bytes:
    """The current tables, in ``unicode_classes.table_blob()`` format."""

def builtin_tables_blob() -> bytes:
    """The built-in tables (csrc/unicode_tables.h) in the same format."""

def tables_version() -> str:
    """The regex release the current tables came from."""

def register_tables(blob: Buffer) -> int:
    """Tables of another Unicode version into a slot of their own, kept for the life of
    the process: the slot (scanner ids ``kind | slot << 8``). ValueError for a malformed
    blob or when every slot is taken."""

def slot_version(slot: int) -> str:
    """The version named in a slot's tables (0: the current tables)."""

# the C API on raw UTF-8 bytes (byte offsets; invalid UTF-8 allowed), for tests
def _words_utf8(preset: int, data: Buffer) -> list[bytes]: ...
def _word_ends_utf8(preset: int, data: Buffer) -> list[int]: ...
def _safe_cut_utf8(preset: int, data: Buffer, lo: int, hi: int) -> int: ...

def all_in(text: str, bits: Buffer) -> bool:
    """Every character of text has its bit set in bits (65536 bits or more; characters
    past the bitmap are not in it)."""

def unsafe_spans(text: str, bits: Buffer, gap: int) -> list[int]:
    """[start, end, ...]: the stretches from the last character in bits before one not in
    it to the next character in bits; stretches fewer than gap characters apart joined."""

def normal_form(text: str, spans: list[int], tables: Buffer) -> str:
    """text with each stretch of spans ([start, end, ...], unsafe_spans') put in NFC or
    NFKC by tables (normal_forms.make_compose_tables); text itself when none changes.
    (normal_forms.normalize uses normal_form_of; the tests give stretches of their own
    here.)"""

def normal_form_of(text: str, bits: Buffer, gap: int, tables: Buffer,
                   known: Buffer) -> tuple[str, None] | tuple[None, bytes]:
    """unsafe_spans then normal_form in one call: (the form, None); or (None, missing)
    when text has characters above U+FFFF in blocks not set in known (544 bytes, as
    astral_blocks): missing names them (the bitmap must learn them first)."""

def astral_blocks(text: str) -> bytes:
    """544 bytes: bit b set when text holds a character above U+FFFF in the block of 256
    code points b (none, without a pass, for a text of 1- or 2-byte characters)."""

class SpecialFinder:
    """Where a text first holds one of ``strings`` (each of one character or more; a
    ValueError otherwise), in C: a memchr for their first characters, then a compare."""

    def __init__(self, strings: Sequence[str]) -> None: ...
    def search(self, text: str, pos: int = 0) -> tuple[int, int] | None:
        """(start, end) of the leftmost of the strings in text[pos:], there the longest,
        as one ``re`` search of their alternation longest first; None: none there."""
