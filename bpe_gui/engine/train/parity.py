"""Parity-aware BPE (Foroutan et al. 2025): one vocabulary for several languages, each
merge chosen for the language whose text is compressed worst.

The merges equal those of Hugging Face tokenizers' ``ParityBpeTrainer`` trained with
the pre-tokenizer ``ByteLevel(add_prefix_space=False)`` (GPT-2's split) on the same
texts: ``lines=True`` feeds each line of a file as its own text, as HF reads files
(the newline stays at the end of its line); ``lines=False`` feeds each file as one text.

How a step is chosen (the rules are HF's, so the merges are theirs):

- the first ``global_merges`` steps are plain BPE on all languages together;
- then a language is chosen by its *measure* -- with a dev set (parallel text, one file
  per language), the language with the most dev tokens now; with target ``ratios``,
  the language with the lowest ``(initial training tokens / tokens now) / ratio``;
  with neither, the one with the most training tokens. Ties go to the language given
  first.
- variant ``window``: a language that had more than ``alpha / n_languages`` of the last
  ``window_size`` turns is passed over for the next best (all passed over: the best).
- the chosen language's most frequent pair (in its own training text) is merged, in
  every language. Ties between pairs go to the greatest pair, comparing the two tokens'
  GPT-2 byte-level spellings (``Ġthe``) as strings, left token first. A merge whose
  token an earlier merge made keeps that token's id.
- the pairs, their counts and the merges are the training core's (``parity_cores.py``:
  one core over every language's words, each word with a count per language, the C
  core or its pure-Python twin); this module only chooses the language and records
  the step.
- a language with no pair left is set aside for good (``exhausted``); ``base`` skips it,
  ``window`` still counts its turn. Training ends when all are set aside, or when the
  global phase finds no pair.

Example (two languages with a dev set; the chosen language's dev text stays the longest,
so it keeps its turn)::

    >>> data = ParityData.from_texts({"en": "the cat sat on the mat",
    ...                               "de": "die Katze sass auf der Matte"},
    ...                              dev={"en": "the cat", "de": "die Katze"})
    >>> t = ParityTrainer(data, ParitySettings(num_merges=2))
    >>> [(data.names[s.language], t.render_pair(s.pair), s.tokens) for s in t.run()]
    [('de', 'a t', (6, 8)), ('de', 'Ġ s', (6, 8))]

Records: every merge is a frozen :class:`ParityStep` -- the pair, which language's turn
it was (None in the global phase) and why (each language's measure before the step,
the languages passed over), and each language's tokens after it (:attr:`ParityStep.tokens`,
on the dev set when there is one, else on the training text). ``parity_plain.PlainCurve``
gives the same per-language token counts for plain BPE on the same data, for comparison.

Stepping works as for :class:`~.trainer.Trainer`: ``step``, ``undo``, ``goto``, ``run``,
``reset``; ``steps``/``n_steps``, ``merges``, ``vocab``, ``tokenizer(at_step=k)``. The
trainer is a :class:`~.trainer.RunCommon` run (``build_run`` makes it for a
parity spec): what a run answers that parity training has not, it answers as a
one-stage byte-level run with no special tokens (``n_inherited`` 0, ``transition``
None), and its ``settings`` are its own (GPT-2's pattern, byte level, HF's tie rule),
whatever the window's fields say.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, AbstractSet, Callable, Iterable, Mapping, Sequence, Union

from ..corpus import PretokenTable, count_corpus
from ..corpus.count_each import count_each
from ..display import bytes_to_unicode, readable
from ..errors import CancelFn, CorpusError, SettingsError
from ..text.pretokenize import Pretokenizer
from .parity_cores import ParityCores
from .parity_dev import dev_file_lines, text_lines, unparallel_warning
from .trainer import (AFFECTED_LIMIT, RELEASED_CORE, AffectedWord, MergeStep, PairRow,
                      Released, RunCommon, Stop, TrainSettings, step_asked)

if TYPE_CHECKING:   # (imported when a tokenizer is made: the command line exports without)
    from ..tokenizers.trained import Tokenizer

PARITY_VARIANTS = ("base", "window")
PATTERN = "gpt2"   # HF's ByteLevel(use_regex=True) split
RULE = "greatest"   # HF's tie rule: the greatest pair by its GPT-2 spelling
# where the window sets target ratios (the training settings' parity box)
WINDOW_RATIOS = " (Parity: balance on target ratios, in the training settings)"

Named = Union[Mapping[str, object], Sequence[tuple[str, object]]]


# ----- settings and data ---------------------------------------------------------------
@dataclass(frozen=True)
class ParitySettings:
    """How parity training runs (HF ``ParityBpeTrainer``'s parameters).

    ``num_merges``: merges to make; ``variant``: "base" or "window"; ``global_merges``:
    plain-BPE merges first; ``window_size`` and ``alpha``: the window variant's
    turn share (a language may take at most ``alpha / n_languages`` of the last
    ``window_size`` turns); ``ratios``: target compression ratios, one per language in
    the data's order (instead of a dev set; only their relative sizes matter);
    ``total_symbols``: count the alphabet (word-inner plus word-final characters) in
    ``num_merges``, as HF's ``total_symbols``; ``min_frequency``: a language whose most
    frequent pair occurs fewer times than this has no pair left (its turns pass to the
    others), and global merges end there, as HF's ``min_frequency``.
    """

    num_merges: int = 1000
    variant: str = "base"
    global_merges: int = 0
    window_size: int = 100
    alpha: float = 2.0
    ratios: tuple[float, ...] | None = None
    total_symbols: bool = False
    min_frequency: int = 0

    def __post_init__(self) -> None:
        if self.ratios is not None:
            object.__setattr__(self, "ratios", tuple(self.ratios))

    def validated(self, n_languages: int | None = None) -> "ParitySettings":
        """These settings checked; SettingsError says what to change."""
        for name in ("num_merges", "global_merges", "window_size", "min_frequency"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise SettingsError(f"{name} is {v!r}: give a whole number.")
        if self.num_merges < 0:
            raise SettingsError(f"Number of merges is {self.num_merges}; it must be 0 or more.")
        if self.global_merges < 0:
            raise SettingsError(f"Global merges is {self.global_merges}; it must be 0 or more.")
        if self.min_frequency < 0:
            raise SettingsError(f"Minimum pair frequency is {self.min_frequency}; it must be "
                                "0 or more.")
        if self.variant not in PARITY_VARIANTS:
            raise SettingsError(f"Unknown parity variant {self.variant!r}: use 'base' or "
                                "'window'.")
        if self.window_size < 1:
            raise SettingsError(f"Window size is {self.window_size}; it must be 1 or more.")
        if not isinstance(self.alpha, (int, float)) or isinstance(self.alpha, bool) \
                or not math.isfinite(self.alpha) or self.alpha <= 0:
            raise SettingsError(f"Alpha is {self.alpha!r}; it must be a positive number.")
        if self.ratios is not None:
            for i, r in enumerate(self.ratios):
                if isinstance(r, bool) or not isinstance(r, (int, float)) \
                        or not math.isfinite(r) or r <= 0:
                    raise SettingsError(f"Ratio {r!r} (language {i + 1}) must be a positive "
                                        "number.")
            if n_languages is not None and len(self.ratios) != n_languages:
                raise SettingsError(f"{len(self.ratios)} ratio(s) for {n_languages} "
                                    "languages: give one ratio per language.")
        return self


def hf_lines(text: str) -> list[str]:
    """The texts HF makes of a file read line by line: each line with its ``\\n``; a
    last line without one stays as it is. Example: 'a\\nb' -> ['a\\n', 'b']."""
    out = text.split("\n")
    last = out.pop()
    out = [line + "\n" for line in out]
    if last:
        out.append(last)
    return out


def _pairs(named: Named | None, what: str) -> list[tuple[str, object]]:
    if named is None:
        return []
    items = list(named.items()) if isinstance(named, Mapping) else list(named)
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)):
            raise SettingsError(f"{what}: give (language name, value) pairs or a mapping "
                                f"of language name to value, not {item!r}.")
    return items


@dataclass
class ParityData:
    """The words of each language's training text and dev text, counted once.

    ``names``: the languages, in order (ties between languages go to the first);
    ``tables[i]``: language i's training words and their counts (a count table, as
    counting makes it: the core is built from these); ``dev_tables[i]``: its dev words,
    or None without a dev set. ``words`` and ``dev`` give the same as dicts (made when
    asked: for reading, not for training).
    Build with :meth:`from_texts` or :meth:`from_files`.
    """

    names: tuple[str, ...]
    tables: list[PretokenTable]
    dev_tables: list[PretokenTable] | None = None
    sources: tuple[str, ...] = field(default=())
    # each language's dev text: its file ("" for a text given in memory) and its lines
    dev_sources: tuple[str, ...] = field(default=())
    dev_lines: tuple[int, ...] = field(default=())

    def unparallel(self, ratios_how: str = "") -> str | None:
        """A sentence when the dev texts have different numbers of lines (they are then
        not one text in every language: see parity_dev), else None. ``ratios_how``:
        where target ratios are given, e.g. " with --ratio NAME=R"."""
        return unparallel_warning(self.names, self.dev_sources, self.dev_lines, ratios_how)

    @property
    def words(self) -> list[dict[bytes, int]]:
        """Each language's training words as {word bytes: count}."""
        return [_words(t) for t in self.tables]

    @property
    def dev(self) -> dict[bytes, list[int]] | None:
        """Each dev word's counts per language (None without a dev set)."""
        if self.dev_tables is None:
            return None
        out: dict[bytes, list[int]] = {}
        for i, t in enumerate(self.dev_tables):
            for w, f in _words(t).items():
                out.setdefault(w, [0] * len(self.names))[i] += f
        return out

    @classmethod
    def from_texts(cls, train: Named, dev: Named | None = None) -> "ParityData":
        """From texts: ``train`` maps each language name to its texts (a string is one
        text, a list several: e.g. one per line); ``dev`` likewise, for every language
        or none. Each text is cut with GPT-2's pattern, as HF's ByteLevel does."""
        items = _pairs(train, "training texts")
        dev_items = _pairs(dev, "dev texts")
        names = check_language_names([n for n, _ in items], [n for n, _ in dev_items],
                             dev is not None)
        pre = Pretokenizer(PATTERN)

        def count(texts: object, who: str) -> PretokenTable:
            if isinstance(texts, str):
                texts = [texts]
            if not isinstance(texts, Iterable):
                raise SettingsError(f"{who}: give a text or a list of texts, not "
                                    f"{type(texts).__name__}.")
            texts = list(texts)
            for t in texts:
                if not isinstance(t, str):
                    raise SettingsError(f"{who}: texts must be strings, not "
                                        f"{type(t).__name__}.")
            return count_corpus(texts=texts, pre=pre)

        tables = [count(texts, f"training text of {n!r}") for n, texts in items]
        dev_tables: list[PretokenTable] | None = None
        dev_lines: tuple[int, ...] = ()
        if dev is not None:
            by_name = {n: count(texts, f"dev text of {n!r}") for n, texts in dev_items}
            dev_tables = [by_name[n] for n in names]
            texts_of = dict(dev_items)   # (each checked a text or a list of them above)
            dev_lines = tuple(_lines_of(texts_of[n]) for n in names)
        return cls(tuple(names), tables, dev_tables, dev_sources=("",) * len(dev_lines),
                   dev_lines=dev_lines)

    @classmethod
    def from_files(cls, train: Named, dev: Named | None = None, *,
                   lines: bool = False, encoding: str = "utf-8") -> "ParityData":
        """From files (optionally .gz/.xz) in ``encoding``: ``train`` maps each language
        name to its file, ``dev`` likewise. ``lines``: each line is its own text, as HF
        reads files (else the whole file is one text)."""
        items = _pairs(train, "training files")
        dev_items = _pairs(dev, "dev files")
        names = check_language_names([n for n, _ in items], [n for n, _ in dev_items],
                             dev is not None)
        named = [(n, p, "training") for n, p in items] + [(n, p, "dev") for n, p in dev_items]
        for n, p, what in named:
            if not isinstance(p, (str, Path)) or not str(p):
                raise SettingsError(f"Language {n!r} has no {what} file: give its path.")
        # every file in one go, the threads shared among them (a table each)
        counted: list[PretokenTable] = []
        for (n, p, what), table in zip(named, count_each(
                [p for _, p, _ in named], Pretokenizer(PATTERN),  # type: ignore[misc]
                lines=lines, encoding=encoding)):
            if table is None or not len(table):
                raise CorpusError(f"the {what} file of language {n!r} is empty (no "
                                  f"text): give a {what} file with {n!r} text in it.", str(p))
            counted.append(table)
        tables = counted[:len(items)]
        dev_tables: list[PretokenTable] | None = None
        dev_sources: tuple[str, ...] = ()
        if dev is not None:
            by_name = dict(zip([n for n, _ in dev_items], counted[len(items):]))
            dev_tables = [by_name[n] for n in names]
            path_of = {n: str(p) for n, p in dev_items}
            dev_sources = tuple(path_of[n] for n in names)
        dev_lines = tuple(dev_file_lines(t, p, encoding)
                          for t, p in zip(dev_tables or (), dev_sources))
        return cls(tuple(names), tables, dev_tables, tuple(str(p) for _, p in items),
                   dev_sources, dev_lines)


def _lines_of(texts: object) -> int:
    """Lines of a text or a list of texts (each text's own)."""
    assert isinstance(texts, Iterable)
    return sum(map(text_lines, [texts] if isinstance(texts, str) else texts))


def _words(table: PretokenTable) -> dict[bytes, int]:
    """A counted table as {word bytes: count}."""
    blob, starts = table.blob, table.starts
    return {blob[starts[i]:starts[i + 1]]: c for i, c in enumerate(table.counts)}


def check_language_names(names: list[str], dev_names: list[str], with_dev: bool) -> list[str]:
    if not names:
        raise SettingsError("Parity training needs at least one language with its training "
                            "text.")
    for n in names:
        if not n.strip():
            raise SettingsError("A language has an empty name: name every language.")
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise SettingsError(f"Language {n!r} is given twice: give each language once.")
        seen.add(n)
    if with_dev:
        _by_name(names, [(n, None) for n in dev_names], "Dev text",
                 "a dev set needs the same (parallel) text in every language.")
    return names


def _by_name(names: Sequence[str], items: list[tuple[str, object]], what: str,
             why: str) -> dict[str, object]:
    """``items`` (language name, value) by name: each a training language's, given once,
    and one for every language (SettingsError says which is not; ``what`` names the
    values, ``why`` says why every language needs one)."""
    out: dict[str, object] = {}
    for n, v in items:
        if n not in names:
            raise SettingsError(f"{what} for {n!r}, which is not a training language "
                                f"({', '.join(names)}): name a training language.")
        if n in out:
            raise SettingsError(f"{what} for {n!r} is given twice: give it once.")
        out[n] = v
    missing = [n for n in names if n not in out]
    if missing:
        raise SettingsError(f"No {what.lower()} for {', '.join(map(repr, missing))}: {why}")
    return out


def ratios_for(names: Sequence[str], ratios: Named) -> tuple[float, ...]:
    """Ratios given by language name -> the tuple in the languages' order; every
    language needs one, and only those."""
    by_name = _by_name(names, _pairs(ratios, "ratios"), "Ratio",
                       "give a ratio for every language.")
    out = []
    for n in names:
        r = by_name[n]
        try:
            out.append(float(r))   # type: ignore[arg-type]
        except (TypeError, ValueError):
            out.append(math.nan)
        if isinstance(r, bool) or not math.isfinite(out[-1]) or out[-1] <= 0:
            raise SettingsError(f"Ratio for {n!r} is {r!r}: give a positive number.")
    return tuple(out)


# ----- records --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class ParityStep(MergeStep):
    """One parity merge: a :class:`~.trainer.MergeStep` (the run's record: ``reason`` and
    the words it changed when stepped with detail) and parity's own facts below.
    ``index`` k is 1-based: the state after it is step k.

    ``language``: whose turn it was (an index into the data's names), None in the
    global phase. ``measure``: each language's measure when it was chosen (``kind``
    says which: "dev" tokens on the dev set, "train" tokens on the training text --
    the most is served; "ratio" compression over ratio -- the least is served; "global":
    no choice). ``passed``: languages passed over because they had too many of the last
    ``window_size`` turns (window variant); ``exhausted``: languages found without a pair
    while choosing this step (set aside from then on). ``count``: the pair's count in
    the chosen language's training text (all languages in the global phase).
    ``tokens``: each language's tokens after this merge (dev set, else training text).
    """

    language: int | None
    kind: str
    measure: tuple[float, ...]
    tokens: tuple[int, ...]
    passed: tuple[int, ...] = ()
    exhausted: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ParityChoice:
    """What the next step does, chosen without doing it (:func:`choose_turn`): whose
    turn (None: global), the pair and its count there, each language's measure, the
    languages the window passed over and those found without a pair, and the window of
    turns after it."""

    language: int | None
    pair: tuple[int, int]
    count: int
    measure: tuple[float, ...]
    passed: tuple[int, ...]
    exhausted: tuple[int, ...]
    window: tuple[int, ...]


def window_pick(values: Sequence[float], window: Sequence[int],
                s: ParitySettings) -> tuple[int, list[int], bool]:
    """HF's moving-window choice: the greatest of ``values`` (one a language; ties: the
    first) whose share of ``window`` (the last turns) is at most ``s.alpha / n``; else
    the next greatest; all passed over: the last one tried. Also the languages passed
    over, and whether HF's loop would never end here (``stalled``)."""
    threshold = s.alpha / len(values)
    mask = [True] * len(values)
    passed: list[int] = []
    while True:
        best, best_v = 0, -math.inf
        for i, v in enumerate(values):
            if mask[i] and v > best_v:
                best, best_v = i, v
        share = window.count(best) / s.window_size
        if share <= threshold:
            return best, passed, False
        if not mask[best]:
            # only set-aside languages are left unmasked and the default (0) is over
            # its share: HF's loop never ends here; take the last language tried
            return passed[-1], passed[:-1], True
        mask[best] = False
        passed.append(best)
        if not any(mask):
            return best, passed[:-1], False


def pick_turn(measure: Sequence[float], exhausted: AbstractSet[int], window: tuple[int, ...],
              s: ParitySettings, kind: str) -> tuple[int, list[int], bool, tuple[int, ...]]:
    """The language whose turn it is by each language's ``measure`` (``kind`` "ratio":
    the least is served, else the most; ties: the first), skipping ``exhausted``; those
    the window passed over; whether HF's loop would stall; and the window after the turn
    (the window variant counts it; base leaves the window as it is)."""
    sign = -1 if kind == "ratio" else 1
    if s.variant == "base":
        best, best_v = 0, -math.inf
        for i, v in enumerate(measure):
            if sign * v > best_v and i not in exhausted:
                best, best_v = i, sign * v
        return best, [], False, window
    values = [-math.inf if i in exhausted else sign * float(v) for i, v in enumerate(measure)]
    best, passed, stalled = window_pick(values, window, s)
    return best, passed, stalled, (window + (best,))[-s.window_size:]


def choose_turn(measure: tuple[float, ...], exhausted: AbstractSet[int],
                window: tuple[int, ...], s: ParitySettings, kind: str,
                best: Callable[[int | None], tuple[tuple[int, int], int] | None],
                global_phase: bool) -> tuple[ParityChoice | None, bool]:
    """The next step from values: each language's ``measure``, those set aside, the last
    turns, the settings, what measures (``kind``), ``best(language)`` (its best pair
    and count, or None; language None: all together) and whether this is the global
    phase. A language without a pair of ``min_frequency`` is set aside and the turn
    passes on (the window still counts it). None when no language (or global pair) is
    left. Also whether HF's window loop would stall (or never end: no language left)."""
    found: list[int] = []
    passed: list[int] = []
    stalled = False
    while True:
        if len(exhausted) >= len(measure):
            return None, stalled
        if global_phase:
            lang = None
            got = best(None)
            if got is None or got[1] < s.min_frequency:
                return None, False
            break
        lang, passed, stall, window = pick_turn(measure, exhausted, window, s, kind)
        stalled = stalled or stall
        got = best(lang)
        if got is not None and got[1] >= s.min_frequency:
            break
        exhausted = exhausted | {lang}
        found.append(lang)
    return ParityChoice(lang, got[0], got[1], measure, tuple(passed), tuple(found),
                        window), stalled


def turn_sentence(rec: ParityStep, names: Sequence[str], settings: ParitySettings,
                  parallel: bool = True) -> str:
    """Step ``rec``'s language and why, in one sentence (the window's merge panel and
    :meth:`ParityTrainer.explain` both say it so). With a dev set the language whose dev
    text takes the most tokens is served, said against the runner-up (why it won: the
    difference, and a ratio with digits enough not to read as 1) and against the one
    that takes the fewest (1.11x: 11% more tokens for the same sentences); with ratios, the one whose
    compression (bytes at the start / tokens now) over its ratio is lowest.
    ``parallel`` False: the dev texts differ in length (ParityData.unparallel), and the
    sentence says so instead of "for the same sentences".

    Example: "Step 60 served zh: its dev text takes the most tokens for the same
    sentences, 9,552: 48 more than ru's 9,504 (1.0051x); 946 more than en's 8,606
    (1.11x), the fewest (zh 9,552, ru 9,504, de 9,486, en 8,606)."
    """
    k = rec.index
    if rec.language is None:
        return (f"Step {k}: a global merge ({k} of {settings.global_merges}): plain BPE "
                "on all languages together, before parity's turns.")
    me = names[rec.language]
    if rec.kind == "ratio":
        order = sorted(range(len(names)), key=lambda i: rec.measure[i])
        vals = ", ".join(f"{names[i]} {rec.measure[i]:.3f}" for i in order)
        why = (f"its compression over its target ratio is the lowest ({vals}; "
               "compression = bytes at the start / tokens now)")
    else:
        why = _most_tokens(names, rec.measure, rec.language, rec.kind, parallel)
    extra = ""
    if rec.passed:
        extra += (f" The window passed over {', '.join(names[i] for i in rec.passed)}: "
                  f"more than {settings.alpha:g}/{len(names)} of the last "
                  f"{settings.window_size} turns.")
    if rec.exhausted:
        often = (f" that occurs at least {settings.min_frequency:,} times"
                 if settings.min_frequency > 1 else "")
        extra += f" {', '.join(names[i] for i in rec.exhausted)}: no pair left{often}."
    return f"Step {k} served {me}: {why}.{extra}"


def _most_tokens(names: Sequence[str], tokens: Sequence[float], me: int, kind: str,
                 parallel: bool) -> str:
    order = sorted(range(len(names)), key=lambda i: -tokens[i])
    vals = ", ".join(f"{names[i]} {int(tokens[i]):,}" for i in order)
    if kind != "dev":   # training texts are not parallel: the counts alone
        return f"its training text has the most tokens ({vals})"
    # the runner-up is why this language won; the fewest is how far parity has to go
    others = [i for i in order if i != me]
    if not others:
        return f"it is the only language ({vals} dev tokens)"
    said = [against(names[others[0]], int(tokens[me]), int(tokens[others[0]]))]
    if len(others) > 1:
        said.append(against(names[others[-1]], int(tokens[me]), int(tokens[others[-1]]))
                    + ", the fewest")
    same = ("for the same sentences" if parallel else
            "(the dev texts have different numbers of lines, so they are not the same "
            "sentences: this compares their lengths as much as their compression)")
    return f"its dev text takes the most tokens {same}, {int(tokens[me]):,}: " \
           f"{'; '.join(said)} ({vals})"


def against(name: str, mine: int, theirs: int) -> str:
    """My token count said against another language's: the difference, and the ratio
    to as many digits as show it is not 1 (two significant digits of the excess).

    Example: against("en", 1204, 1201) -> "3 more than en's 1,201 (1.0025x)";
    against("en", 9552, 8606) -> "946 more than en's 8,606 (1.11x)";
    against("en", 500, 500) -> "as many as en's 500 (a tie, won by the language listed first)".
    """
    if mine == theirs:
        return f"as many as {name}'s {theirs:,} (a tie, won by the language listed first)"
    return (f"{mine - theirs:,} {'more' if mine > theirs else 'fewer'} than {name}'s "
            f"{theirs:,} ({ratio_text(mine, theirs)})")


def ratio_text(a: int, b: int) -> str:
    """a / b with enough digits that a near-1 ratio does not read as 1: two significant
    digits of its distance from 1, at least two decimals. Examples: (1204, 1201) ->
    '1.0025x'; (9552, 8606) -> '1.11x'; (3, 0) -> 'infinitely many times'."""
    if b == 0:
        return "infinitely many times"
    r = a / b
    gap = abs(r - 1)
    digits = 2 if gap == 0 else max(2, 1 - math.floor(math.log10(gap)))
    return f"{r:.{min(digits, 9)}f}x"


# ----- the trainer ----------------------------------------------------------------------
class ParityTrainer(RunCommon):
    """Parity-aware BPE, step by step (see the module docstring for the rules).

    ``ParityTrainer(data, settings)``; ``from_files(train, dev=None, settings, lines=...)``
    and ``from_texts(train, dev=None, settings)`` build the data too. Ratios may be given
    in the settings (a tuple in the languages' order) or by name via
    :func:`ratios_for`. A dev set and ratios together are refused.

    Ids: 0-255 are the bytes; each merge whose token is new gets the next id (a merge
    that makes a token an earlier merge made keeps that token's id, as HF does).
    ``kind`` is what chooses ("dev", "ratio" or "train"); ``stalled``: steps where HF's
    window rule has no answer (its loop never ends: every language left is set aside or
    over its share), where the last language tried is taken.

    It is also what the window charts of a parity run (its ``parity`` is itself): ``names``,
    ``kind``, ``parity_settings``, ``steps`` (they grow and shrink with the run: read them, copy
    what you keep), ``initial_tokens``; ``warning``, a sentence when the dev texts have
    different numbers of lines (not parallel: see ``ParityData.unparallel``), else None.

    One trainer is used from one thread at a time.
    """

    def __init__(self, data: ParityData, settings: ParitySettings | None = None, *,
                 undo: bool = True):
        s = (settings or ParitySettings()).validated(len(data.names))
        if data.dev_tables is not None and s.ratios is not None:
            raise SettingsError("Give a dev set or ratios, not both: the dev set measures "
                                "each language's compression, ratios set targets instead.")
        self.data = data
        self.parity_settings = s
        self.names = data.names
        self.warning = data.unparallel(WINDOW_RATIOS)
        self.kind = "ratio" if s.ratios is not None else "dev" if data.dev_tables is not None \
            else "train"
        self.vocab_bytes: list[bytes] = [bytes([i]) for i in range(256)]
        self._ids: dict[bytes, int] = {b: i for i, b in enumerate(self.vocab_bytes)}
        # the words, their pairs and every merge: the training core's (parity_cores.py);
        # undo=False keeps no undo log (a run that only goes forward: less memory)
        self._cores = ParityCores(data.tables, data.dev_tables, s.global_merges > 0, undo)
        # each language's (tokens, training tokens) now: read from the core once per
        # merge or undo (a step reads them before and after its merge)
        self._now = self._cores.counts()
        self._tokens0, self._train0 = self._now   # each language's bytes
        self._window: tuple[int, ...] = ()   # the last turns (window variant)
        self._exhausted: set[int] = set()
        self._over = False          # the global phase found no pair: training ends
        # steps where the window rule had no answer (HF's loop would not end): see
        # window_pick; kept across undo (a redo meets them again)
        self.stalled: set[int] = set()
        self.steps: list[ParityStep] = []
        self._redo: list[ParityStep] = []   # undone, most recent last
        # what each step changed besides the cores' words and the records, kept to undo
        # it: the window and the languages set aside before it
        self._undo: list[tuple[tuple[int, ...], frozenset[int]]] = []
        self._freqs: list[list[int]] | None = None   # each table's counts (detail)
        self._keep_undo = undo
        self.target = s.num_merges - (self._alphabet_size() if s.total_symbols else 0)
        self.target = max(0, self.target)
        self._words: PretokenTable | None = None   # (made when first read: table)
        # the look ahead at step n: (n, its provisional record)
        self._next: tuple[int, ParityStep | None] | None = None

    @classmethod
    def from_texts(cls, train: Named, dev: Named | None = None,
                   settings: ParitySettings | None = None) -> "ParityTrainer":
        return cls(ParityData.from_texts(train, dev), settings)

    @classmethod
    def from_files(cls, train: Named, dev: Named | None = None,
                   settings: ParitySettings | None = None, *,
                   lines: bool = False) -> "ParityTrainer":
        return cls(ParityData.from_files(train, dev, lines=lines), settings)

    def _alphabet_size(self) -> int:
        """Word-inner plus word-final bytes of every language's training words."""
        words = [w for table in self.data.tables for w in _words(table)]
        return len({b for w in words for b in w[:-1]}) + len({w[-1] for w in words})

    # ----- facts fixed for this run (RunCommon's) ------------------------------------
    parity = property(lambda self: self, doc="The run itself (what the window charts).")
    # byte level, one stage, no special tokens, nothing inherited (RunCommon's)
    n_initial = n_base = 256
    base: Sequence[bytes] = tuple(bytes([i]) for i in range(256))
    special_ids: Sequence[int] = ()

    @property
    def settings(self) -> TrainSettings:
        return TrainSettings(vocab_size=None, num_merges=self.target, mode="byte",
                             pattern=PATTERN, tie_rule=RULE)

    @property
    def table(self) -> PretokenTable:
        """The words of every language, end to end: word id w of language i is
        offset[i] + its row in that language's count table (made once, when first read:
        the command line, which steps without detail, never reads it)."""
        if self._words is None:
            tables = self.data.tables
            texts = [t.word_bytes(i).decode("utf-8", "replace") for t in tables
                     for i in range(len(t))]
            self._words = PretokenTable.from_words(texts, [f for t in tables for f in t.freqs],
                                                   n_bytes=sum(self._train0))
        return self._words

    # ----- what a window reads -------------------------------------------------------------
    def symbol_count(self, t: int) -> int:
        """How often token ``t`` occurs in every language's training words now."""
        return self._cores.symbol_count(t)

    def _column(self) -> int | None:
        """The core's column the next step chooses from: the language whose turn it is,
        or all languages together (the global phase); None when training is done."""
        if self.n_steps < self.parity_settings.global_merges:
            return self._cores.global_column
        nxt = self.next_choice()
        return None if nxt is None else nxt.language

    def top_pairs(self, k: int = 200) -> list[PairRow]:
        """The k best pairs of the language whose turn is next, in HF's order (count,
        then the greatest GPT-2 spelling: the cores' tie rule)."""
        col = self._column()
        if col is None:
            return []
        top = self._cores.core.top(col, k)
        return [PairRow(r, a, b, c) for r, (a, b, c) in enumerate(top, 1)]

    def tied_now(self, limit: int = 50) -> tuple[int, list[tuple[int, int]]]:
        col = self._column()
        if col is None:
            return 0, []
        n, tied = self._cores.core.tied(col, max(limit, 1))
        return n, [(t[0], t[1]) for t in tied[:limit]]

    # ----- state ------------------------------------------------------------------------
    @property
    def furthest_step(self) -> int:
        """The last step made: now, or further when steps were undone (kept for redo:
        stepping again the same way takes them back, another way drops them)."""
        return self.n_steps + len(self._redo)

    @property
    def target_steps(self) -> int:
        """Merges asked for (less the alphabet with ``total_symbols``)."""
        return self.target

    @property
    def tokens(self) -> tuple[int, ...]:
        """Each language's tokens now: on the dev set when there is one, else on the
        training text (what ``ParityStep.tokens`` records)."""
        return self._now[0]

    @property
    def train_tokens(self) -> tuple[int, ...]:
        """Each language's tokens on its training text now."""
        return self._now[1]

    @property
    def initial_tokens(self) -> tuple[int, ...]:
        """Each language's tokens at step 0 (bytes), on the text ``tokens`` counts."""
        return self._tokens0

    def curve(self) -> list[tuple[int, ...]]:
        """Each language's tokens at steps 0..n_steps (see ``tokens``)."""
        return [self._tokens0] + [st.tokens for st in self.steps]

    def _measure(self, tokens: tuple[int, ...], train: tuple[int, ...]) -> tuple[float, ...]:
        if self.kind == "ratio":
            ratios = self.parity_settings.ratios
            assert ratios is not None
            return tuple((float(a) / float(t)) / r for a, t, r in zip(self._train0, train,
                                                                       ratios))
        return tokens   # (the token counts themselves: exact, and the step's tuple shared)

    @property
    def corpus_tokens(self) -> int:
        return sum(self.train_tokens)

    @property
    def is_done(self) -> bool:
        return self.choose() is None

    def stop(self) -> Stop | None:
        n, target = self.n_steps, self.target
        if n >= target:
            return Stop("target", f"{target:,} merges",
                        f"Target reached at step {n} ({target:,} merges).")
        if self.is_done:
            mf = self.parity_settings.min_frequency
            left = "a pair of symbols left" if mf <= 1 else \
                f"a pair that occurs at least {mf:,} times (the minimum pair frequency)"
            return Stop("no-pair", "no pair left",
                        f"Training stopped at step {n}, before the target: no language has "
                        f"{left}.")
        return None

    def render(self, i: int) -> str:
        """Token ``i`` as GPT-2's byte-level alphabet spells it (``Ġthe``)."""
        table = bytes_to_unicode()
        return "".join(table[b] for b in self.vocab_bytes[i])

    def hf_merges(self) -> list[str]:
        """The merges as HF's tokenizer.json spells them: 'Ġ t', 'Ġt he', ..."""
        return [self.render_pair(st.pair) for st in self.steps]

    # ----- choosing ---------------------------------------------------------------------
    def choose(self) -> ParityChoice | None:
        """The next step's language and pair, as a pure function of the state: it
        changes nothing, so looking ahead is not a step and an undo. None when training
        is done (the target, no pair left in any language, or in the global phase)."""
        return self._choice()[0]

    def _choice(self, past_target: bool = False) -> tuple[ParityChoice | None, bool]:
        """:meth:`choose` (``past_target``: at the target too), and whether HF's window
        loop would stall while choosing (:func:`choose_turn`, given this run's state)."""
        if (self.n_steps >= self.target and not past_target) or self._over:
            return None, False
        s = self.parity_settings
        return choose_turn(self._measure(*self._now), self._exhausted, self._window, s,
                           self.kind, lambda lang: self._cores.best(lang),
                           self.n_steps < s.global_merges)

    # ----- stepping ---------------------------------------------------------------------
    def step(self, detail: bool = True) -> ParityStep | None:
        """One merge: its record, or None when training is done. The language and the
        pair are :meth:`choose`'s; the merge in every language is the cores'. ``detail``:
        the record says why and which words changed (the window's; the command line
        reads only the merges)."""
        self._next = None
        c, stalled = self._choice()
        if stalled:
            self.stalled.add(self.n_steps + 1)
        if c is None:
            if self.n_steps < min(self.parity_settings.global_merges, self.target):
                self._over = True   # the global phase found no pair: training ends
            return None
        # what undo puts back (read before the step changes it)
        turn = (self._window, frozenset(self._exhausted)) if self._keep_undo else None
        was = self.steps[-1].corpus_tokens if self.steps else sum(self._train0)
        self._window = c.window
        self._exhausted.update(c.exhausted)
        a, b = c.pair
        token = self.vocab_bytes[a] + self.vocab_bytes[b]
        # a token an earlier merge made keeps its id (HF's rule): the cores make it again
        made = self._ids.get(token, -1)
        new_id = self._cores.core.merge(a, b, made)
        self._now = self._cores.counts()
        if made < 0:
            assert new_id == len(self.vocab_bytes)
            self.vocab_bytes.append(token)
            self._ids[token] = new_id
        n_affected, affected = self._affected(new_id, c.pair) if detail else (0, ())
        corpus = sum(self._now[1])
        rec = self._record(c, new_id, corpus, tokens=self._now[0], n_affected=n_affected,
                           affected=affected, merged=was - corpus)
        if detail:
            rec = replace(rec, reason=self.explain(rec))
        self.steps.append(rec)
        if self._redo and self._redo[-1].pair == rec.pair:
            self._redo.pop()
        elif self._redo:
            self._redo.clear()
        if turn is not None:
            self._undo.append(turn)
        return rec

    def _record(self, c: ParityChoice, new_id: int, corpus_tokens: int, **kw) -> ParityStep:
        """Choice ``c`` as a record: merged into ``new_id``, the training tokens after
        it, the rest given in ``kw``."""
        a, b = c.pair
        left, right = self.vocab_bytes[a], self.vocab_bytes[b]
        return ParityStep(
            index=len(self.steps) + 1, pair=c.pair, left=left, right=right, new_id=new_id,
            token=left + right, count=c.count, rule=RULE, live_size=len(self.vocab_bytes),
            corpus_tokens=corpus_tokens, language=c.language,
            kind="global" if c.language is None else self.kind, measure=c.measure,
            passed=c.passed, exhausted=c.exhausted, **kw)

    def _affected(self, new_id: int, pair: tuple[int, int]) \
            -> tuple[int, tuple[AffectedWord, ...]]:
        """The words the last step changed in every language: how many, and the most
        frequent ``AFFECTED_LIMIT`` of them."""
        if self._freqs is None:
            self._freqs = [t.freqs for t in self.data.tables]
        affected: list[AffectedWord] = []
        n_affected = 0
        for i, freqs in enumerate(self._freqs):
            n, words = self._cores.touched(i, AFFECTED_LIMIT)
            n_affected += n
            affected += [AffectedWord.of(freqs[j], w, pair, new_id) for j, w in words]
        affected.sort(key=lambda a: -a.freq)
        return n_affected, tuple(affected[:AFFECTED_LIMIT])

    def next_choice(self, limit: int = 50) -> ParityStep | None:
        """The record the next step would make, with its reason and without its tokens
        after it (they are known once it merges): :meth:`choose` as a record (nothing
        stepped or undone), kept until the next step or undo. At the target too, one
        step past it: the pair table shows what a longer run would merge next, as a
        plain run's does."""
        n = self.n_steps
        if self._next is None or self._next[0] != n:
            c = self._choice(past_target=True)[0]
            rec = None
            if c is not None:
                token = self.vocab_bytes[c.pair[0]] + self.vocab_bytes[c.pair[1]]
                rec = self._record(c, self._ids.get(token, len(self.vocab_bytes)),
                                   sum(self._now[1]), tokens=())
                rec = replace(rec, reason=self.explain(rec))
            self._next = (n, rec)
        return self._next[1]

    def undo(self) -> ParityStep | None:
        """Back one merge: the record undone (kept for redo), or None at step 0."""
        if not self.steps:
            return None
        self._next = None
        self._cores.core.undo()   # (first: a core that cannot undo leaves the records whole)
        rec = self.steps.pop()
        self._redo.append(rec)
        window, exhausted = self._undo.pop()
        self._now = self._cores.counts()
        if len(self.vocab_bytes) > self._cores.core.n_tokens:   # its token was new: it goes
            self.vocab_bytes.pop()
            del self._ids[rec.token]
        self._window = window
        self._exhausted = set(exhausted)
        self._over = False
        return rec

    def release_core(self) -> None:
        """Free the core (the words and their pairs: most of a run's memory) once
        training is over: the records, merges, vocabulary and tokenizers stay; stepping,
        undoing and asking about pairs or words raise SettingsError afterwards. The
        command line does it before exporting, so the export's memory does not come on
        top of the core's."""
        self._cores = Released(   # type: ignore[assignment]
            RELEASED_CORE.format("parity trainer's core", "ParityTrainer"))

    def release_tables(self) -> None:
        """Free the count tables once the core holds their words (most of the memory that
        counting left): training goes on as before; plain BPE's curve on the same data
        (``parity_plain.PlainCurve``), which counts from the tables, cannot be made after.
        The command line does it before training, as plain training frees its table."""
        self.data = replace(self.data, tables=[], dev_tables=None)

    def run(self, until: int | None = None, progress: Callable[[int, int], None] | None = None,
            cancel: CancelFn | None = None, detail: bool = True) -> list[ParityStep]:
        """Step until the target (or step ``until``); the new records. ``cancel()``
        returning True stops it (the steps made so far stay); ``detail``: as :meth:`step`."""
        goal = self.target if until is None else min(until, self.target)
        start = self.n_steps
        self._step_until(goal, goal, progress, cancel, detail)
        return self.steps[start:]

    # ----- explaining and comparing ----------------------------------------------------
    def explain(self, rec: ParityStep) -> str:
        """Why this step served its language, and the pair it merged, in two sentences."""
        pair = f"'{readable(rec.left)}' + '{readable(rec.right)}'"
        where = "all languages" if rec.language is None else self.names[rec.language]
        turn = turn_sentence(rec, self.names, self.parity_settings, self.warning is None)
        return f"{turn} Its most frequent pair: {pair} ({rec.count:,} times in {where})."

    # ----- changing the target --------------------------------------------------------
    def can_retarget(self, settings: TrainSettings) -> bool:
        """True when ``settings`` differ from this run's only in the number of merges
        or in what parity training does not use (the mode, pattern, tie rule, special
        tokens, pruning and SuperBPE are the plain trainer's). A vocabulary size is a
        new run: the window counts it as merges when it builds one."""
        if settings.num_merges is None:
            return False
        return settings.min_frequency == self.settings.min_frequency

    def retarget(self, settings: TrainSettings) -> int:
        if not self.can_retarget(settings) or settings.num_merges is None:
            raise SettingsError("Only the number of merges can change on a parity run; "
                                "retrain for the rest.")
        self.target = settings.num_merges
        self._next = None
        if self.n_steps > self.target:
            self.goto(self.target)
        return self.n_steps

    # ----- tokenizers -------------------------------------------------------------------
    def tokenizer(self, at_step: int | None = None, redo: bool = False) -> Tokenizer:
        """The tokenizer as of step ``at_step`` (default: now; ``redo``: up to the
        furthest step, undone ones included): GPT-2's pattern, byte level, the first k
        merges."""
        from ..tokenizers.trained import Tokenizer
        k = step_asked(at_step, self.n_steps, self.furthest_step if redo else self.n_steps,
                       "tokenizer(at_step)")
        recs = (self.steps + self._redo[::-1])[:k]
        vocab = {i: bytes([i]) for i in range(256)}
        for r in recs:   # (a token made again keeps its first id)
            vocab.setdefault(r.new_id, r.token)
        tok = Tokenizer(vocab, [(r.left, r.right) for r in recs], [], pattern=PATTERN,
                        mode="byte")
        tok.meta = lambda: self.metadata(k, recs)
        return tok

    def metadata(self, k: int | None = None,
                 recs: Sequence[ParityStep] | None = None) -> dict:
        """What the native format keeps about how the tokenizer of step ``k`` (default:
        now; ``recs``: its records, where they go past now) was trained: the parity
        settings and each step's language."""
        s = self.parity_settings
        steps = self.steps[:self.n_steps if k is None else k] if recs is None else recs
        return {"mode": "byte", "end_of_word": "suffix", "pattern": PATTERN,
                "special_tokens": [], "parity": {
                    "variant": s.variant, "languages": list(self.names),
                    "measure": self.kind, "global_merges": s.global_merges,
                    "window_size": s.window_size, "alpha": s.alpha,
                    "ratios": list(s.ratios) if s.ratios else None,
                    "min_frequency": s.min_frequency,
                    "turns": [st.language for st in steps]},
                "merge_counts": [st.count for st in steps]}
