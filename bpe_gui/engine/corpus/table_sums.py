"""Several word-count tables summed, and tables checked against training settings.

A table holds words its pattern already cut, with its special tokens already cut out, so
summing tables or training from one is only right with the same pattern and special
tokens: anything else is refused, saying which table, what differs and why. The file
format is in table_file.py.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from .table import PretokenTable
from .table_file import (
    _check_totals, _count, check_count_sums, iter_row_chunks, read_header, read_table)
from ..errors import FormatError, SettingsError
from .files import open_binary
from ..text.presets import PRESET_LABELS
from .table import MAX_COUNT, CountMeta
from ..text.pretokenize import resolve_pattern, validate_special_tokens


def read_tables(paths: str | Path | Sequence[str | Path]) -> PretokenTable:
    """Tables summed in the order given: a word's count is its sum, and words come in
    order of first appearance in the tables one after the other, which is the order
    counting their corpora one after the other gives. Tables made with another pattern,
    other special tokens or for other modes are refused (SettingsError says which)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    paths = list(paths)
    if not paths:
        raise SettingsError("No word-count table was given.")
    if len(paths) == 1:
        return read_table(paths[0])
    counter = _count.WordCounter()
    metas: list[tuple[str, CountMeta | None]] = []
    grand = 0
    for k, p in enumerate(paths):
        with open_binary(p) as (stream, _):
            meta, line = read_header(stream, p)
            if metas:
                check_same(metas[0], (str(p), meta))
            metas.append((str(p), meta))
            ordinal, total0 = 0, counter.total
            for blob, ends, c in iter_row_chunks(stream, p, line, base=0):
                grand += sum(memoryview(c).cast("q"))
                if grand > MAX_COUNT:   # before the native sum could wrap around
                    raise FormatError(p, "the counts of the tables add up past 2**63 - 1, so "
                                      "they cannot be summed (the trainer counts in 64 bits). "
                                      "Scale the counts down, or train from fewer tables.")
                ordinal = counter.add_table(blob, bytes(8) + ends, c, block=k, ordinal=ordinal)
        if meta is not None and (ordinal != meta.words or counter.total - total0 != meta.total):
            _check_totals(_Sizes(ordinal, counter.total - total0), meta, p, line + ordinal)
    first = metas[0][1]
    chars = sum(m.chars for _, m in metas if m is not None)
    nbytes = sum(m.bytes for _, m in metas if m is not None)
    table = PretokenTable.from_native(counter, chars, nbytes)
    table.cuts = sum(m.cuts for _, m in metas if m is not None)
    counter.clear()
    check_count_sums(table, table_names(paths))
    if first is not None:
        first = replace(first, sources=tuple(s for _, m in metas if m is not None for s in m.sources),
                        words=len(table), total=table.total, chars=chars, bytes=nbytes,
                        cuts=table.cuts)
    table.meta = first
    table.source = table_names(paths)
    return table


def table_names(paths) -> str:
    return f"the count tables ({', '.join(map(str, paths))})"


@dataclass
class _Sizes:  # the two numbers _check_totals reads from a table
    n: int
    total: int

    def __len__(self) -> int:
        return self.n


def check_same(a: tuple[str, CountMeta | None], b: tuple[str, CountMeta | None]) -> None:
    """Two tables can be summed only if the same pattern and special tokens cut their words."""
    (pa, ma), (pb, mb) = a, b
    if (ma is None) != (mb is None):
        none, other = (pa, pb) if ma is None else (pb, pa)
        raise SettingsError(f"{none} records no pattern (it has no metadata line), so it "
                            f"cannot be checked against {other}: train from it alone.")
    if ma is None or mb is None:   # both (checked above)
        return
    if ma.pattern != mb.pattern:
        same_name = ma.describe_pattern() == mb.describe_pattern()
        how = (f" (both name it, but bpe-gui {mb.bpe_gui or '?'} and {ma.bpe_gui or '?'} "
               f"had different regexes: {pattern_difference(mb.pattern, ma.pattern)})"
               if same_name else "")
        raise SettingsError(f"{pb} was counted with {mb.describe_pattern()}, but {pa} with "
                            f"{ma.describe_pattern()}{how}: words cut by different patterns "
                            "cannot be summed. Count both corpora with the same pattern.")
    if set(ma.special_tokens) != set(mb.special_tokens):
        raise SettingsError(f"{pb} was counted with special tokens {list(mb.special_tokens)}, "
                            f"but {pa} with {list(ma.special_tokens)}: special tokens are cut "
                            "out before words are counted, so such tables cannot be summed. "
                            "Count both corpora with the same special tokens.")
    if ma.lines != mb.lines:
        raise SettingsError(f"{pb} was counted {_how(mb.lines)}, but {pa} {_how(ma.lines)}: "
                            "their words were cut from different texts, so they cannot be "
                            "summed. Count both corpora the same way (bpe-gui count --lines, "
                            "or without it).")
    if tuple(ma.modes) != tuple(mb.modes):
        raise SettingsError(f"{pb} holds words for mode(s) {', '.join(mb.modes)}, but {pa} "
                            f"for {', '.join(ma.modes)}: they cannot be summed.")


def _how(lines: bool) -> str:
    return "one text per line" if lines else "from whole files (words may span lines)"


def settings_for_table(settings, meta: CountMeta | None, pattern: bool = False,
                       specials: bool = False, lines: bool = False):
    """``settings`` with the table's pattern, special tokens and ``lines``, except those
    the user chose (``pattern``/``specials``/``lines`` True): those must then agree with
    the table."""
    if meta is None:
        return settings
    kw: dict[str, object] = {}
    if not lines:
        kw["lines"] = meta.lines
    if not pattern:
        kw["pattern"] = meta.preset or meta.pattern
    if not specials:
        kw["special_tokens"] = tuple(meta.special_tokens)
    return replace(settings, **kw) if kw else settings


def check_settings(meta: CountMeta | None, settings, where: str = "the count table") -> None:
    """Refuse to train with a pattern, special tokens, mode or way of reading lines
    (``lines``) the table was not made for."""
    lines = getattr(settings, "lines", False)
    if getattr(settings, "special_text", "cut") == "word":
        raise SettingsError(
            f"{where} holds no special tokens' own text, which special_text 'word' counts "
            "as words: train from the corpus itself, or read them another way.")
    if meta is None:
        if lines:
            raise SettingsError(
                f"{where} records nothing about how its text was read (it has no metadata "
                "line), so it cannot serve one text per line (--lines): its words may span "
                "lines. Train from the corpus files with --lines, or count them with "
                "bpe-gui count --lines.")
        return
    pattern, preset = resolve_pattern(settings.pattern)
    if pattern != meta.pattern and preset and preset == meta.preset:
        raise SettingsError(   # one name, two regexes: say what differs
            f"{where} was counted with {meta.describe_pattern()} of bpe-gui "
            f"{meta.bpe_gui or '(unknown release)'}, whose pattern differs from this "
            f"release's {preset} pattern ({pattern_difference(meta.pattern, pattern)}): its "
            "words were cut by the old pattern. Count the corpus again with this release, or "
            "train with the table's own regex (--pattern, as in its line 1).")
    if pattern != meta.pattern:
        asked = (f"the {PRESET_LABELS.get(preset, preset)} preset" if preset
                 else f"the pattern {pattern}")
        raise SettingsError(
            f"{where} was counted with {meta.describe_pattern()}, but training asks for "
            f"{asked}: a table holds words its pattern already cut, so it cannot train "
            f"with another. Train with its pattern ({meta.preset or meta.pattern}), or "
            "count the corpus again with this one.")
    specials = validate_special_tokens(getattr(settings, "cut_at", settings.special_tokens))
    if set(specials) != set(meta.special_tokens):
        raise SettingsError(
            f"{where} was counted with special tokens {list(meta.special_tokens)}, but "
            f"training cuts at {list(specials)}: special tokens are cut out of the text "
            "before words are counted, so the table's words depend on them. Train with "
            "its special tokens, or count the corpus again with these.")
    if lines != meta.lines:
        fix = ("Train from the corpus files with --lines, or count them again with "
               "bpe-gui count --lines." if lines else
               "Train with one text per line too (--lines, TrainSettings(lines=True)), or "
               "count the corpus again without --lines.")
        raise SettingsError(
            f"{where} was counted {_how(meta.lines)}, but training asks for "
            f"{_how(lines)}: a table holds words already cut from its texts, so it cannot "
            f"be read the other way. {fix}")
    if settings.mode not in meta.modes:
        raise SettingsError(
            f"{where} holds words for mode(s) {', '.join(meta.modes)}, not {settings.mode}. "
            f"Train in {meta.modes[0]} mode (--mode {meta.modes[0]}), or count the corpus "
            "again.")


def pattern_difference(a: str, b: str) -> str:
    """Where two regexes part, for a message: 'at character 12: ...\\p{L}+ here, ...\\p{L}]+ there'."""
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    lo = max(0, k - 8)
    return (f"at character {k + 1}: the table's has {a[lo:k + 12]!r}, this release's "
            f"{b[lo:k + 12]!r}")


__all__ = ["check_same", "check_settings", "read_tables", "settings_for_table"]
