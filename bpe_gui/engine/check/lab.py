"""Training the corpus again and again, under the reference's settings and under the
variations a diagnosis tries: the engine's trainer for what is a setting of it (tie
rule, pattern, special tokens), its trainer over word tables made here for what is a
way of cutting the corpus (special tokens read as text, no pre-tokenization), and the
slow trainer of variants.py for what is a way of counting.

A :class:`Lab` caches what it counted (one table per pattern and special tokens) and
every run, so the diagnosis and the search for settings share them, and it keeps to
the limits of :class:`CheckLimits` (skipped work is said in ``notes``).
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import regex

from .. import Pretokenizer, PretokenTable, Trainer, TrainSettings, read_corpus_text
from ..display import human_size
from ..errors import Cancelled, CorpusError
from .variants import Rules, train_slow

Pair = tuple[bytes, bytes]
#: the reference's pattern for "no pre-tokenization": the text between special tokens is
#: one sequence (the lab cuts those itself: the engine would cut words at 64 KiB)
NO_PRETOKENIZATION = r"[\s\S]+"


@dataclass(frozen=True)
class Variant:
    """A way of training the corpus: the engine's settings (pattern, special tokens, tie
    rule), how the words are cut (``cut``: "" the settings' own words; "lines" each line
    one sequence; "deleted" special tokens deleted, the text on either side joined), and
    the slow trainer's rules when the way is not a setting of the engine (None: the
    engine's trainer). ``causes``/``labels``: the changes from the reference, in order."""

    settings: TrainSettings
    cut: str = ""
    rules: Rules | None = None
    causes: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()

    def but(self, cause: str, label: str, **change) -> "Variant":
        """This variant with one more change (fields of Variant, or ``settings`` fields
        given as ``fields``)."""
        fields = change.pop("fields", None)
        settings = replace(self.settings, **fields) if fields else self.settings
        kept = [(c, x) for c, x in zip(self.causes, self.labels) if c != cause]
        return replace(self, settings=settings, causes=tuple(c for c, _ in kept) + (cause,),
                       labels=tuple(x for _, x in kept) + (label,), **change)


@dataclass(frozen=True)
class CheckLimits:
    """How much work a check may do (a tutorial corpus of a few MB and a few thousand
    merges stays far inside them).

    ``max_text_bytes``: corpora up to this size are read whole, so the causes that cut
    the text another way can be tried; bigger ones are streamed for the reference only.
    ``max_piece_bytes``: the "no pre-tokenization" variant trains on whole documents,
    up to this much text. ``max_slow_steps`` / ``max_slow_words``: the slow trainer's
    merges and unique words. ``max_seconds``: the diagnosis stops trying causes after
    this long.
    """

    max_text_bytes: int = 64 << 20
    max_piece_bytes: int = 8 << 20
    max_slow_steps: int = 5000
    max_slow_words: int = 400_000
    max_seconds: float = 60.0


@dataclass(frozen=True)
class Run:
    """One training of the corpus: its merges and their counts, the cause it stands
    for and in words what it changed. ``settings``: the engine settings it ran with
    (None for the slow trainer's rules); ``whole``: it ran to its end (not stopped at
    its first difference from the learner's merges, nor by a limit)."""

    key: str
    cause: str
    label: str
    merges: tuple[Pair, ...]
    counts: tuple[int, ...]
    settings: TrainSettings | None = None
    whole: bool = True
    rules: Rules | None = None     # the slow trainer's rules (None: the engine's trainer)
    variant: Variant | None = None  # what was trained (None: the reference, or a run by key)

    def reach(self, theirs: Sequence[Pair]) -> int:
        """How many of ``theirs`` this run reproduces from the start.
        Example: [ab, cd, ef] against [ab, cd, xy] -> 2."""
        n = 0
        for a, b in zip(self.merges, theirs):
            if a != b:
                break
            n += 1
        return n


class CheckCorpus:
    """The corpus of a check: a text, or files (read whole up to a limit, else
    streamed by the engine for the reference alone)."""

    def __init__(self, source: "str | Path | Sequence[str | Path]", limits: CheckLimits):
        self.paths: tuple[str, ...] = ()
        self.text: str | None = None
        self._utf8: bytes | None = None
        if isinstance(source, str):
            self.text, self.name = source, "the corpus"
            self.n_bytes = len(source.encode("utf-8", "surrogatepass"))
        else:
            paths = [source] if isinstance(source, Path) else list(source)
            self.paths = tuple(str(p) for p in paths)
            self.name = ", ".join(Path(p).name for p in self.paths[:3]) + \
                (" …" if len(self.paths) > 3 else "")
            try:   # a compressed file counts as about 8 times its size (text expands)
                self.n_bytes = sum(Path(p).stat().st_size * (8 if Path(p).suffix.lower() in
                                                             (".xz", ".gz") else 1)
                                   for p in self.paths)
            except OSError as e:
                raise CorpusError(f"cannot be read ({e.strerror}).", e.filename) from None
            if self.n_bytes <= limits.max_text_bytes:
                self.text = read_corpus_text(list(self.paths))
        if self.text is not None and not self.text.strip():
            raise CorpusError("The corpus is empty: give the text the learner's trainer was "
                              "trained on.")

    @property
    def source(self) -> "str | list[str]":
        return self.text if self.text is not None else list(self.paths)

    def text_bytes(self) -> bytes | None:
        """The text in UTF-8 (lone surrogates kept), made at the first call; None when
        the corpus is not held whole."""
        if self.text is None:
            return None
        if self._utf8 is None:
            self._utf8 = self.text.encode("utf-8", "surrogatepass")
        return self._utf8


class Lab:
    """Runs on one corpus, cached (see the module docstring)."""

    def __init__(self, corpus: CheckCorpus, settings: TrainSettings, theirs: Sequence[Pair],
                 limits: CheckLimits, cancel: Callable[[], bool] | None = None):
        self.corpus, self.settings, self.theirs = corpus, settings, tuple(theirs)
        self.limits, self.cancel = limits, cancel
        self.notes: list[str] = []
        self._tables: dict[tuple, PretokenTable] = {}
        self._runs: dict[str, Run] = {}
        self.deadline = time.monotonic() + limits.max_seconds

    def stop_if_cancelled(self) -> None:
        if self.cancel is not None and self.cancel():
            raise Cancelled()

    def out_of_time(self) -> bool:
        return time.monotonic() > self.deadline

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    # ----- tables ---------------------------------------------------------------------
    def table(self, settings: TrainSettings) -> PretokenTable:
        """The corpus's words under these settings' pattern and special tokens (no
        pre-tokenization: each stretch between special tokens one word, when the text is
        held and not over ``max_piece_bytes``)."""
        if settings.pattern == NO_PRETOKENIZATION and self.corpus.text is not None and \
                self.corpus.n_bytes <= self.limits.max_piece_bytes and not settings.lines:
            specials = settings.special_tokens
            table = self.custom_table(f"documents:{specials!r}",
                                      lambda text: documents(text, specials))
            assert table is not None
            return table
        if settings.pattern == NO_PRETOKENIZATION:
            self.note(f"No pre-tokenization on a corpus over "
                      f"{human_size(self.limits.max_piece_bytes)}: the engine counts it in "
                      "stretches of at most 64 KiB, so pairs across those cuts are missed.")
        key = ("pattern", settings.pattern, settings.special_tokens, settings.lines)
        if key not in self._tables:
            self.stop_if_cancelled()
            counting = replace(settings, mode="byte", num_merges=0)
            self._tables[key] = Trainer.from_source(self.corpus.source, counting,
                                                    cancel=self.cancel).table
        return self._tables[key]

    def custom_table(self, key: str, words: Callable[[str], Counter]) -> PretokenTable | None:
        """A table of words cut here from the text (None when the text is not held)."""
        text = self.corpus.text
        if text is None:
            self.note(f"The corpus ({human_size(self.corpus.n_bytes)}) is over the "
                      f"{human_size(self.limits.max_text_bytes)} the check reads whole, so "
                      "causes that cut the text another way were not tried.")
            return None
        if ("custom", key) not in self._tables:
            self.stop_if_cancelled()
            self._tables[("custom", key)] = PretokenTable.from_counter(dict(words(text)))
        return self._tables[("custom", key)]

    def table_of(self, v: Variant) -> PretokenTable | None:
        """The words a variant trains on (None: its cut needs the text, not held)."""
        s = v.settings
        if v.cut == "lines":
            return self.custom_table(f"lines:{s.special_tokens!r}",
                                     lambda text: lines(text, s.special_tokens))
        if v.cut == "deleted":
            return self.custom_table(f"deleted:{s.special_tokens!r}:{s.pattern}",
                                     lambda text: specials_deleted(text, s.special_tokens,
                                                                   s.pattern))
        return self.table(s)

    # ----- runs -----------------------------------------------------------------------
    def run(self, v: Variant, cause: str, label: str) -> Run | None:
        """Train a variant (the engine's trainer, or the slow one under its rules); None
        when it cannot be (its text is not held, or over the slow trainer's limits)."""
        table = self.table_of(v)
        if table is None:
            return None
        run: Run | None
        if v.rules is None:
            key = None if v.cut == "" else f"{v.cut}:{v.settings!r}"
            run = self.engine_run(key, cause, label, v.settings,
                                  None if v.cut == "" else table)
        else:
            s = v.settings
            run = self.slow_run(f"slow:{v.cut}:{s.pattern}:{s.special_tokens!r}:{v.rules!r}",
                                cause, label, v.rules, table)
        return None if run is None else replace(run, cause=cause, label=label, variant=v)

    def engine_run(self, key: str | None, cause: str, label: str, settings: TrainSettings,
                   table: PretokenTable | None = None) -> Run:
        """The engine's trainer under ``settings`` (on ``table``, else the corpus's
        words under those settings). ``key`` None: the settings are the key (so a run
        the diagnosis made serves the search for settings too). A run on a table made
        here is no setting of the trainer: its ``settings`` are None."""
        key = key if key is not None else repr(settings)
        if key not in self._runs:
            self.stop_if_cancelled()
            # a table made here is cut already: one text per line is no setting of its run
            t = Trainer(table, replace(settings, lines=False)) if table is not None else \
                Trainer(self.table(settings), settings)
            t.run(detail=False, cancel=self.cancel)
            self.stop_if_cancelled()
            self._runs[key] = Run(key, cause, label, tuple(t.merges),
                                  tuple(s.count for s in t.steps),
                                  settings if table is None else None)
        return self._runs[key]

    def slow_run(self, key: str, cause: str, label: str, rules: Rules,
                 table: PretokenTable | None = None) -> Run | None:
        """The slow trainer under ``rules`` on the reference's words (or ``table``'s),
        stopped at its first difference from the learner's merges (None when over the
        limits)."""
        if key in self._runs:
            return self._runs[key]
        table = table if table is not None else self.table(self.settings)
        lim = self.limits
        if len(table) > lim.max_slow_words:
            self.note(f"The corpus has {len(table):,} unique words, over the {lim.max_slow_words:,} "
                      "the slow trainer takes, so the ways of counting it tries (overlapping "
                      "pairs, characters instead of bytes, other tie rules) were not tried.")
            return None
        n = min(len(self.theirs), lim.max_slow_steps)
        if n < len(self.theirs):
            self.note(f"The slow trainer (ways of counting) follows your merges for "
                      f"{lim.max_slow_steps:,} steps at most.")
        out = train_slow(list(zip(table.words, table.freqs)), rules, n, expected=self.theirs,
                         deadline=self.deadline, cancel=self.cancel)
        if self.out_of_time():
            self.note(f"The diagnosis stopped trying causes after {lim.max_seconds:g} s.")
        run = Run(key, cause, label, tuple(p for p, _ in out), tuple(c for _, c in out), None,
                  whole=False, rules=rules)
        self._runs[key] = run
        return run

    @property
    def runs(self) -> list[Run]:
        return list(self._runs.values())


# ----- ways of cutting the text --------------------------------------------------------------
def documents(text: str, specials: Sequence[str]) -> Counter:
    """The text between special tokens, each stretch one word (no pre-tokenization).
    Example: "ab<s>cd" with <s> -> {"ab": 1, "cd": 1}."""
    pre = Pretokenizer(r"\S+", specials)
    return Counter(p.text for p in pre.pieces(text) if not p.special)


def lines(text: str, specials: Sequence[str]) -> Counter:
    """Each line (with its line break) between special tokens one word."""
    out: Counter = Counter()
    for doc in documents(text, specials).elements():
        out.update(m.group() for m in regex.finditer(r"[^\n]*\n|[^\n]+", doc))
    return out


def specials_deleted(text: str, specials: Sequence[str], pattern: str) -> Counter:
    """The text with its special tokens deleted (the stretches on either side joined),
    cut by the pattern."""
    pre = Pretokenizer(pattern)
    joined = "".join(p.text for p in Pretokenizer(r"\S+", specials).pieces(text)
                     if not p.special)
    return Counter(pre.words(joined))
