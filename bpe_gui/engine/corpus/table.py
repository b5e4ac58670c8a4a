"""The pre-token table (the unique words of a corpus with their counts) and what produced
it (:class:`CountMeta`, line 1 of a word-count table file, ``table_file.py``).

Below counting, reading and training alike, so each can take a table without importing
the others.
"""
from __future__ import annotations

import json
from array import array
from dataclasses import asdict, dataclass, replace
from itertools import islice
from operator import mul, sub
from typing import Sequence

from ..display import bpe_gui_version
from ..errors import FormatError, PatternError, SettingsError
from ..io import json_problem
from ..text.presets import PRESET_LABELS, PRESETS
from ..text.pretokenize import compile_pattern, validate_special_tokens
from ..text.regex_release import regex_version

MAGIC = b"#bpe-gui-counts"
FORMAT_VERSION = 1
# counts are 64-bit in the trainer: a table whose counts (times word lengths, which is
# what pair counts can reach) add up past this is refused, not wrapped around
MAX_COUNT = (1 << 63) - 1
MODES = ("byte", "char")      # a table of pre-tokens serves both training modes


class PretokenTable:
    """Unique words in order of first appearance, with their frequencies.

    Stored compactly (the words' UTF-8 bytes end to end, their start offsets and counts);
    ``words`` decodes them to a list of str when first asked.

    Example: "a b a" with the whitespace preset -> words ['a', ' ', 'b'], freqs [2, 2, 1].
    """

    meta: "CountMeta | None"
    source: str   # the table file(s) it was read from (set only then)

    def __init__(self, blob: bytes, starts: array, counts: array, n_chars: int = 0,
                 n_bytes: int = 0):
        self.blob, self.starts, self.counts = blob, starts, counts
        self.n_chars, self.n_bytes = n_chars, n_bytes
        # places in the text where a word over word_limit's limit was cut into pieces,
        # counted where each cut is made (a word at the limit is no cut)
        self.cuts = 0
        self._words: list[str] | None = None
        # what produced it (a CountMeta): set by count_corpus and by reading a table
        self.meta = None

    @classmethod
    def from_words(cls, words: Sequence[str], freqs: Sequence[int], n_chars: int = 0,
                   n_bytes: int = 0) -> "PretokenTable":
        encoded = [w.encode("utf-8") for w in words]
        starts = array("q", [0])
        pos = 0
        for e in encoded:
            pos += len(e)
            starts.append(pos)
        table = cls(b"".join(encoded), starts, array("q", freqs), n_chars, n_bytes)
        table._words = list(words)
        return table

    @classmethod
    def from_counter(cls, counts: dict[str, int], n_chars: int = 0, n_bytes: int = 0):
        return cls.from_words(list(counts), list(counts.values()), n_chars, n_bytes)

    @classmethod
    def from_native(cls, counter, n_chars: int, n_bytes: int) -> "PretokenTable":
        blob, starts, counts = counter.export()[:3]
        return cls.from_arrays(blob, starts, counts, n_chars, n_bytes)

    @classmethod
    def from_arrays(cls, blob: bytes, starts_b: bytes, counts_b: bytes, n_chars: int,
                    n_bytes: int) -> "PretokenTable":
        """From a counter's export: the words end to end, int64 starts and counts as bytes."""
        starts, counts = array("q"), array("q")
        starts.frombytes(starts_b)
        counts.frombytes(counts_b)
        return cls(blob, starts, counts, n_chars, n_bytes)

    @property
    def words(self) -> list[str]:
        if self._words is None:
            blob, st = self.blob, self.starts
            self._words = [blob[st[i]:st[i + 1]].decode("utf-8") for i in range(len(self))]
        return self._words

    @property
    def freqs(self) -> list[int]:
        return self.counts.tolist()

    def word_bytes(self, i: int) -> bytes:
        return self.blob[self.starts[i]:self.starts[i + 1]]

    @property
    def total(self) -> int:
        """Words in the corpus, repeats included."""
        return sum(self.counts)

    @property
    def total_word_bytes(self) -> int:
        """UTF-8 bytes of all words, repeats included (the corpus minus special tokens)."""
        st = self.starts   # (the loops in C: a table has up to millions of words)
        return sum(map(mul, map(sub, islice(st, 1, None), st), self.counts))

    def __len__(self) -> int:
        return len(self.counts)

    def __repr__(self) -> str:
        return f"PretokenTable({len(self):,} words, {self.n_bytes:,} bytes)"


@dataclass(frozen=True)
class CountMeta:
    """What produced a table: the pre-tokenizer (``pattern`` is the regex itself,
    ``preset`` its name if it is one), the special tokens cut out before counting, the
    training modes the words serve, whether each line was a text of its own (``lines``),
    the bpe-gui and ``regex`` releases (the Unicode
    classes), the sources (``{"path", "bytes"}``: files as given, with their size on
    disk) and totals (unique words, words, characters and UTF-8 bytes of the text, and
    the places where a word over 64 KiB was cut, ``PretokenTable.cuts``)."""

    pattern: str
    preset: str | None = None
    special_tokens: tuple[str, ...] = ()
    modes: tuple[str, ...] = MODES
    lines: bool = False
    bpe_gui: str = ""
    regex: str = ""
    sources: tuple[dict, ...] = ()
    words: int = 0
    total: int = 0
    chars: int = 0
    bytes: int = 0
    cuts: int = 0

    @classmethod
    def for_counting(cls, pre, sources: Sequence[dict] = (), lines: bool = False) -> "CountMeta":
        return cls(pattern=pre.pattern, preset=pre.preset,
                   special_tokens=tuple(pre.special_tokens), lines=lines,
                   bpe_gui=bpe_gui_version() or "unknown",
                   regex=regex_version(), sources=tuple(sources))

    def with_totals(self, table: PretokenTable) -> "CountMeta":
        return replace(self, words=len(table), total=table.total, chars=table.n_chars,
                       bytes=table.n_bytes, cuts=table.cuts)

    def describe_pattern(self) -> str:
        """'the GPT-2 preset' or 'the pattern \\S+' (for messages and the window)."""
        if self.preset:
            return f"the {PRESET_LABELS.get(self.preset, self.preset)} preset"
        return f"the pattern {self.pattern}"

    def to_json(self) -> str:
        d = asdict(self)
        d = {"format": "bpe-gui-counts", "version": FORMAT_VERSION, **d}
        return json.dumps(d, ensure_ascii=True, separators=(", ", ": "))

    @classmethod
    def from_json(cls, text: str, path) -> "CountMeta":
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise FormatError(path, f"the metadata after {MAGIC.decode()} is not valid JSON "
                              f"({json_problem(e)}).", line=1) from None
        if not isinstance(d, dict):
            raise FormatError(path, "the metadata must be a JSON object.", line=1)
        if d.get("version") != FORMAT_VERSION:
            raise FormatError(path, f"table format version {d.get('version')!r}: this "
                              f"bpe-gui reads version {FORMAT_VERSION}. Update bpe-gui.",
                              line=1, key="version")
        kw = {}
        for f in cls.__dataclass_fields__.values():
            if f.name in d:
                kw[f.name] = d[f.name]
        _check_types(kw, path)
        kw["special_tokens"] = tuple(kw.get("special_tokens", ()))
        kw["modes"] = tuple(kw.get("modes", MODES))
        kw["sources"] = tuple(kw.get("sources", ()))
        return cls(**kw)


def _check_types(kw: dict, path) -> None:
    def bad(key: str, what: str):
        return FormatError(path, f"metadata {key!r} must be {what}.", line=1, key=key)
    if not isinstance(kw.get("pattern"), str) or not kw["pattern"]:
        raise bad("pattern", "the pre-tokenizer pattern (a non-empty string)")
    if kw.get("preset") is not None and not isinstance(kw["preset"], str):
        raise bad("preset", "a preset name or null")
    for key in ("special_tokens", "modes"):
        v = kw.get(key, [])
        if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
            raise bad(key, "a list of strings")
    modes = kw.get("modes", list(MODES))
    if not modes or not set(modes) <= set(MODES):
        raise bad("modes", f"a non-empty list of training modes: one or both of "
                  f"{', '.join(MODES)}")
    if not isinstance(kw.get("lines", False), bool):
        raise bad("lines", "true or false")
    if not isinstance(kw.get("sources", []), list) or \
            not all(isinstance(s, dict) for s in kw.get("sources", [])):
        raise bad("sources", "a list of objects")
    for key in ("words", "total", "chars", "bytes", "cuts"):
        v = kw.get(key, 0)
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= MAX_COUNT:
            raise bad(key, f"a whole number from 0 to {MAX_COUNT:,} (2**63 - 1)")
    _check_values(kw, path)


def _check_values(kw: dict, path) -> None:
    """Header values that have the right types but cannot have come from counting: the
    pattern must compile, a preset be one this bpe-gui has, the
    special tokens be usable (the modes are checked with the types)."""
    def bad(key: str, what: str):
        return FormatError(path, f"metadata {key!r} {what}", line=1, key=key)
    preset = kw.get("preset")
    if preset is not None and preset not in PRESETS:
        raise bad("preset", f"is {preset!r}, which is not a preset (the presets are "
                  f"{', '.join(PRESETS)}; a custom pattern has null).")
    try:
        compile_pattern(kw["pattern"])
        validate_special_tokens(kw.get("special_tokens", []))
    except PatternError as e:
        raise bad("pattern", f"cannot be used: {e}") from None
    except SettingsError as e:
        raise bad("special_tokens", f"cannot be used: {e}") from None
