"""The native scanner for the GPT-2, cl100k, o200k, Llama 3, Qwen2 and Mistral tekken
patterns (and SuperBPE's stage 2), with `regex` as fallback.

``native_scanner("gpt2")`` returns a :class:`NativeScanner` whose ``words`` equal
``regex.findall(GPT2_PATTERN, text)``, or None when the kind is None (whitespace, cjk,
custom patterns: :func:`.pattern_kinds.scanner_kind` recognises the others however they
are spelled) or the C extension ``_scan`` was not built. Set
``BPE_GUI_NATIVE_SCAN=0`` to turn it off (benchmarks, debugging).

Example::

    >>> native_scanner("gpt2").words("Hello world's 42!")   # doctest: +SKIP
    ['Hello', ' world', "'s", ' 42', '!']

Character classes: ``_scan`` carries tables generated from one ``regex`` release
(``_scan.TABLES_REGEX_VERSION``). If the installed ``regex`` is another release, the
first call here computes the tables from it (:mod:`.unicode_classes`) and installs them,
so the scanner keeps agreeing with the ``regex`` in use; the tables are kept in the user's
cache folder, so that is done once per ``regex`` release, not at every start. A scanner for
another library's Unicode tables (``native_scanner("cl100k", unicode_versions.TIKTOKEN)``)
registers that version's tables in a slot of their own once (:func:`scan_id`), and
scans with ids ``kind | slot << 8``: the words ``regex`` would give if its classes were
that version's.
"""
from __future__ import annotations

import os
from array import array
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Collection, Sequence

from .presets import KIND_PATTERNS, PRESET_IDS
from .regex_release import regex_version

if TYPE_CHECKING:
    from .unicode_versions import Classes

try:
    from . import _scan
except ImportError:  # no C compiler at install time: Pretokenizer uses regex
    _scan = None  # type: ignore[assignment]  # optional C extension: None where it was not built

# the scanner's number of each kind (csrc/scan.h)
# Lone surrogates match exactly the classes U+FFFD matches (none but "other"), and the
# substitution keeps code-point offsets, so safe boundaries of such texts stay exact.
_SURROGATES = r"[\ud800-\udfff]"


@lru_cache(maxsize=1)
def runtime_table_blob() -> bytes:
    """The character tables computed from the installed ``regex``: kept in the user's
    cache folder (:mod:`..io.cache`), so each ``regex`` release computes them once."""
    from ..io.cache import read_cached, write_cached
    from .unicode_classes import cached_tables_name, note_fold_masks, table_blob, \
        tables_blob_matches
    name = cached_tables_name()
    blob = read_cached(name)
    if blob is not None and tables_blob_matches(blob):
        note_fold_masks(blob)   # (as compute_tables does: fold_masks() needs no regex pass)
        return blob
    blob = table_blob()
    write_cached(name, blob)
    return blob


def install_tables(module) -> bool:
    """Make the scanner use the tables of the installed regex; True if they are not its
    built-in ones.

    ``module`` is ``_scan`` or an extension that scans through it (``_count``,
    ``_encode``: one scanner, one set of tables, see csrc/scan.h); it needs
    ``TABLES_REGEX_VERSION``, ``tables_version()`` and ``set_tables(blob)``. Tables
    already installed through another of them are not installed again.
    """
    if module.TABLES_REGEX_VERSION == regex_version():
        return False
    if module.tables_version() != regex_version():
        module.set_tables(runtime_table_blob())
    return True


@lru_cache(maxsize=1)
def _ready() -> bool:
    """True once ``_scan`` is there and agrees with the installed regex (checked once)."""
    if _scan is None or os.environ.get("BPE_GUI_NATIVE_SCAN", "1") == "0":
        return False
    install_tables(_scan)   # (built-in tables that are the installed regex's: see
    return True             # unicode_classes.fold_masks, which reads their fold masks)


_SLOTS: dict[Classes, int] = {}


def scan_id(kind: str, classes: Classes | None = None) -> int:
    """The scanner id of a kind with a library's Unicode tables (None: the installed
    regex's), registering those tables at the first use. Example: ('gpt2', None) -> 0."""
    if classes is None:
        return PRESET_IDS[kind]
    slot = _SLOTS.get(classes)
    if slot is None:
        from .unicode_versions import scanner_blob
        slot = _SLOTS[classes] = _scan.register_tables(scanner_blob(classes))
    return PRESET_IDS[kind] | slot << 8


class NativeScanner:
    """Words, word ends and safe boundaries of one kind of pattern, computed in C, with
    the classes of the installed ``regex`` or of a library's Unicode version (``classes``;
    then the fallback for lone surrogates runs the pattern pinned to that version)."""

    def __init__(self, kind: str, classes: Classes | None = None):
        self.preset = kind
        self.classes = classes
        self.preset_id = scan_id(kind, classes)

    @cached_property
    def _regex(self):
        """The pattern for texts UTF-8 cannot hold, pinned when first needed."""
        from .dialects import pinned
        return pinned(KIND_PATTERNS[self.preset], self.classes)

    def words(self, text: str) -> list[str]:
        """``regex.findall(pattern, text)``. Example: 'a  b' -> ['a', ' ', ' b']."""
        try:
            return _scan.words(self.preset_id, text)
        except UnicodeEncodeError:  # lone surrogates have no UTF-8 form
            return self._regex.findall(text)

    def word_ends(self, text: str) -> Sequence[int]:
        """Code-point offset of each word's end. Example: 'a  b' -> array('q', [1, 2, 4])."""
        try:
            return _scan.word_ends(self.preset_id, text)
        except UnicodeEncodeError:
            return array("q", (m.end() for m in self._regex.finditer(text)))

    def safe_cut(self, text: str, lo: int, hi: int) -> int:
        """The largest p, lo < p <= hi < len(text), where the text can be cut whatever
        follows text[p] (see csrc/scan.h), or -1. Example: ('ab cd', 0, 4) -> 2."""
        try:
            return _scan.safe_cut(self.preset_id, text, lo, hi)
        except UnicodeEncodeError:
            import regex
            return _scan.safe_cut(self.preset_id, regex.sub(_SURROGATES, "\ufffd", text), lo, hi)


def giant_cuts(preset_id: int, buf: bytearray, n: int, limit: int) -> tuple[int, int, int] | None:
    """Where a giant stretch of ``buf[:n]`` may be split (csrc/scan_giant.inc): (settled,
    reach, cut), or None without the C scanner. ``preset_id`` is a native preset's number
    (``PRESET_IDS``); ``limit`` the piece length of ``corpus.word_limit``."""
    if _scan is None:
        return None
    return _scan.giant_cuts(preset_id, buf, n, limit)


def special_finder(strings: Collection[str]) -> "_scan.SpecialFinder | None":
    """A finder in C of where a text first holds one of ``strings`` (special tokens'
    text): ``search(text, pos=0)`` gives ``(start, end)`` of the leftmost place, there
    the longest of them, as one ``re`` search of their alternation longest first would,
    or None. None where ``_scan`` was not built or a string is empty (the caller then
    searches with ``re``)."""
    if _scan is None or not strings or "" in strings:
        return None
    return _scan.SpecialFinder(tuple(strings))


def native_scanner(kind: str | None, classes: Classes | None = None) -> NativeScanner | None:
    """A NativeScanner for a kind (presets.KINDS: gpt2, cl100k, o200k, llama3, qwen2,
    superbpe2, tekken) with the classes of the installed regex (None) or of a library
    (unicode_versions.LIBRARIES), else None (also when BPE_GUI_NATIVE_SCAN=0: checked
    before the cache of scanners)."""
    if kind not in PRESET_IDS or not _ready():
        return None
    return _scanner(kind, classes)


@lru_cache(maxsize=64)
def _scanner(kind: str, classes: Classes | None) -> NativeScanner:
    return NativeScanner(kind, classes)
