"""What a check finds, as frozen records: the first difference and its cause
(:class:`Difference`), the causes tried (:class:`Attempt`), settings that reproduce the
learner's merges (:class:`FoundSettings`), all in one :class:`CheckReport`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

from .. import TrainSettings
from ..display import pair_text

Pair = tuple[bytes, bytes]

# cause -> its name in a few words (the CLI's "cause:" line, the window's heading)
CAUSES: dict[str, str] = {
    "tie": "a tie broken another way",
    "specials": "pairs counted across special tokens",
    "boundaries": "pairs counted across pre-token boundaries",
    "overlap": "overlapping pairs counted or merged another way",
    "pattern": "another pre-tokenizer pattern",
    "chars": "characters instead of bytes",
    "not-a-pair": "a merge that is not a pair of existing tokens",
    "vocab-size": "the vocabulary size off by the special tokens",
    "length": "another number of merges",
    "unknown": "none of the usual causes",
}
# when two causes reproduce the learner's merges equally far, the first named wins
PRIORITY = ("not-a-pair", "vocab-size", "chars", "tie", "specials", "boundaries", "overlap",
            "pattern", "length", "unknown")


@dataclass(frozen=True)
class PairWord:
    """A word (pre-token) where a pair occurs at the step of the difference: its text,
    how often the corpus has it, its symbols then, and where the pair starts in them."""

    text: str
    freq: int
    symbols: tuple[bytes, ...]
    at: tuple[int, ...]


@dataclass(frozen=True)
class Difference:
    """The first merge where the learner's trainer and the reference part.

    ``step`` k is 1-based; ``theirs``/``ours`` the pairs merged there (None when that
    side has no merge k); ``their_count``/``our_count`` both pairs' counts at step k as
    the reference counts them (the first k-1 merges are the same on both sides, so the
    words are too; None for a pair that does not consist of tokens then). ``cause`` a
    key of :data:`CAUSES`; ``sentence`` the reason in one sentence; ``explained_by`` the
    attempt that reproduces theirs and ``reach`` how many of their merges it does.
    """

    step: int
    theirs: Pair | None
    ours: Pair | None
    their_count: int | None
    our_count: int | None
    cause: str
    sentence: str
    explained_by: str = ""
    reach: int = 0
    n_tied: int = 1
    their_words: tuple[PairWord, ...] = ()
    our_words: tuple[PairWord, ...] = ()
    also: str = ""            # every cause found (the first and those after), in one sentence
    zero_why: str = ""        # why their pair occurs 0 times here, when it does

    @property
    def cause_name(self) -> str:
        return CAUSES.get(self.cause, self.cause)


@dataclass(frozen=True)
class Attempt:
    """One cause tried: ``label`` what was changed, ``reach`` how many of the learner's
    merges that reproduces from the start (None: not tried, ``why`` says why)."""

    cause: str
    label: str
    reach: int | None
    why: str = ""


@dataclass(frozen=True)
class FoundSettings:
    """Settings of the reference trainer under which every one of the learner's merges
    comes out the same; ``changes`` says each one in words."""

    settings: TrainSettings
    changes: tuple[str, ...]
    sentence: str


@dataclass(frozen=True)
class CheckReport:
    """The learner's merges held against the reference's (``check_merges``)."""

    path: str
    format: str
    settings: TrainSettings            # the reference's settings
    settings_from: tuple[str, ...]     # where each setting came from, in words
    theirs: tuple[Pair, ...]
    ours: tuple[Pair, ...]
    our_counts: tuple[int, ...]
    difference: Difference | None
    found: FoundSettings | None
    attempts: tuple[Attempt, ...]
    notes: tuple[str, ...]
    seconds: float
    #: the differences after the first, each found with the causes before it made
    more: tuple[Difference, ...] = ()
    #: "Is this the corpus you trained on? ...", when the corpus looks like another
    corpus_warning: str = ""

    @property
    def agree(self) -> bool:
        """Every merge the same, and as many of them."""
        return self.difference is None

    @property
    def n_agree(self) -> int:
        """Merges the same from the start (the steps before the first difference)."""
        return self.difference.step - 1 if self.difference else len(self.theirs)

    def status(self, step: int) -> str:
        """Step k (1-based) on both sides: "same"; "moved" (other pairs, but the
        reference makes yours at another step: :meth:`our_step_of`); "part" (the
        reference never makes yours); "theirs-only" or "ours-only" (one side has no
        merge k)."""
        i = step - 1
        a = self.theirs[i] if i < len(self.theirs) else None
        b = self.ours[i] if i < len(self.ours) else None
        if a is None:
            return "ours-only"
        if b is None:
            return "theirs-only"
        if a == b:
            return "same"
        return "moved" if a in self._our_steps else "part"

    @cached_property
    def _our_steps(self) -> dict[Pair, int]:   # each pair's first step (1-based)
        return {pair: k for k, pair in reversed(list(enumerate(self.ours, 1)))}

    @cached_property
    def _their_steps(self) -> dict[Pair, int]:   # each pair's first step (1-based)
        return {pair: k for k, pair in reversed(list(enumerate(self.theirs, 1)))}

    def their_step_of(self, pair: Pair | None) -> int | None:
        """The learner's step that merges ``pair`` (the first), or None."""
        return None if pair is None else self._their_steps.get(pair)

    def our_step_of(self, pair: Pair | None) -> int | None:
        """The reference's step that merges ``pair`` (the first), or None."""
        return None if pair is None else self._our_steps.get(pair)

    def statuses(self) -> list[str]:
        """:meth:`status` of every step, 1 to the longer side's last."""
        return [self.status(k) for k in range(1, max(len(self.theirs), len(self.ours)) + 1)]

    def headline(self) -> str:
        """One line: they agree, or where they part and why."""
        if self.difference is None:
            return f"All {len(self.theirs):,} merges agree with the reference."
        d = self.difference
        then = "".join(f"; then merge {m.step}: {m.cause_name}" for m in self.more)
        return f"Merge {d.step} differs: {d.cause_name}{then}."

    @property
    def differences(self) -> tuple[Difference, ...]:
        """The first difference and those found after it."""
        return ((self.difference,) if self.difference is not None else ()) + self.more


def show_pair(pair: Pair | None) -> str:
    """A pair as the report shows it: '·t he', or '(none)'."""
    return "(none)" if pair is None else pair_text(*pair)


def common_prefix(a: Sequence[Pair], b: Sequence[Pair]) -> int:
    """How many merges two lists share from the start. Example: [x, y] [x, z] -> 1."""
    n = 0
    for p, q in zip(a, b):
        if p != q:
            break
        n += 1
    return n
