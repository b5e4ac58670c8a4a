"""What widgets may read of the training run: :class:`TrainerView`, handed out by the
controller (``controller.view()``) only while the trainer may be read.

The trainer is not thread-safe: while a job on the worker thread steps it (or builds
its replacement) the window must not read it, except in the moments the job holds it
still for a look (``live.LiveView``). Widgets used to check ``controller.busy`` and
``peeking`` themselves before reading the live trainer, and some read its internals
(the C core's best pair, the pre-token table's totals). Now the controller checks once:
``view()`` returns None when the trainer cannot be read (or there is none:
``controller.has_trainer`` tells which), and the view offers the facts, snapshots and
queries the panels need -- never the Trainer, its core or its table.

A view is made per trainer (the same object while the trainer stays), so a widget can
tell a new trainer by identity. Read it during the call that got it: the next event may
start a job.

Example::

    v = controller.view()
    if v is None:
        return                      # a job runs the trainer (or there is none yet)
    snap = v.pair_snapshot(500)     # the best 500 pairs now (models/pair_table.py)
    title = f"Step {v.n_steps:,} of {v.target_steps}"
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Container, Mapping, Sequence

from ...engine.tokenizers import Tokenizer
from ...engine.train import MergeStep, PairRow, ParityTrainer, RunCommon, TrainSettings

PART_OF_WORDS = 20_000   # corpus words the pair table's hints look through


@dataclass(frozen=True)
class PairSnapshot:
    """The best pairs at one step. ``vocab`` is a copy of the token bytes then (a tuple
    of references: cheap), so rows render their text lazily, only when painted."""

    rows: tuple[PairRow, ...] = ()
    vocab: tuple[bytes, ...] = ()
    step: int = 0             # the trainer's step when taken: these are the pairs for step+1
    top_count: int = 0
    n_tied: int = 0           # pairs sharing the top count (all of them, not only shown)
    limit: int = 0            # how many rows were asked for
    done: bool = False        # training cannot go on (target reached / nothing left)
    # SuperBPE's stage 2: rows it will never merge, and why (superbpe.skip_reason)
    skipped: Mapping[tuple[int, int], str] = field(default_factory=dict)

    @property
    def maybe_more(self) -> bool:
        return len(self.rows) >= self.limit > 0


@dataclass(frozen=True)
class CorpusCounts:
    """What the trainer's pre-token table says about the corpus it was built from."""

    words: int        # pre-tokens, with repeats
    unique: int       # distinct pre-tokens
    chars: int        # characters of text (special tokens included)
    bytes: int        # UTF-8 bytes of text


class TrainerView:
    """Read-only queries on one trainer (see the module docstring)."""

    __slots__ = ("_t",)

    # What the trainer says as it is, read from it by name (``__getattr__``): its facts
    # and the step it is at. The lists are the trainer's own (``steps`` only grows at the
    # end while a job runs and undo pops from the end; ``vocab_bytes``: token bytes by
    # id): read them now, copy what you keep.
    settings: TrainSettings
    n_initial: int                  # base symbols and special tokens: ids before merge 1
    n_inherited: int                # merges kept as they are from a tokenizer trained on
    n_base: int
    base: Sequence[bytes]           # the base symbols' bytes, and the special tokens' ids
    special_ids: Sequence[int]
    n_steps: int
    steps: Sequence[MergeStep]
    target_steps: int | None
    vocab_size: int
    vocab_bytes: Sequence[bytes]
    corpus_tokens: int
    is_done: bool
    parity: ParityTrainer | None    # the languages and their turns (None: not parity)
    transition: int | None          # SuperBPE: stage 1's last step (None: not SuperBPE)
    next_choice: Callable[[], MergeStep | None]   # the next step's record, not made yet

    def __init__(self, trainer: RunCommon):
        self._t = trainer

    if not TYPE_CHECKING:   # mypy holds callers to the names annotated above
        def __getattr__(self, name: str):
            if name in _READ_THROUGH:
                return getattr(self._t, name)
            raise AttributeError(f"TrainerView has no {name!r}")

    def corpus_counts(self) -> CorpusCounts:
        table = self._t.table
        return CorpusCounts(table.total, len(table), table.n_chars, table.n_bytes)

    @property
    def furthest_step(self) -> int:
        """The furthest step made in this run (undone steps included)."""
        self._t.tokenizer()   # grows the shared tokenizer to the current step (cheap)
        return self._t.furthest_step

    def best_count(self) -> int:
        """The count of the pair the next step would merge (0: none is left)."""
        best = self._t.top_pairs(1)
        return best[0].count if best else 0

    def stopped_early(self) -> str:
        """Why training stops before its target, in a few words ("no pair left", "best
        pair occurs 3×, below min frequency 5"), or "" (target not reached yet, or
        reached, or no target in steps: pruning): the trainer's rule (``Trainer.stop``)."""
        if self._t.target_steps is None:
            return ""
        stop = self._t.stop()
        return stop.short if stop is not None and stop.early else ""

    def symbol_counts(self) -> list[int]:
        """How often each token id occurs in the training corpus now."""
        t = self._t
        return [t.symbol_count(i) for i in range(len(t.vocab_bytes))]

    def unused_base(self, pruned: Container[int] = frozenset()) -> frozenset[int]:
        """Base symbols that never occur in the corpus (and were not pruned)."""
        t = self._t
        return frozenset(i for i in range(t.n_base)
                         if t.symbol_count(i) == 0 and i not in pruned)

    # ----- snapshots ---------------------------------------------------------------------
    def pair_snapshot(self, limit: int) -> PairSnapshot:
        """The best ``limit`` candidate pairs now, with a copy of the token bytes."""
        t = self._t
        rows = tuple(t.top_pairs(limit))
        top = rows[0].count if rows else 0
        n_tied = t.tied_now(1)[0] if rows else 0
        skipped = {(r.a, r.b): why for r in rows if (why := t.skip_reason(r.a, r.b))}
        return PairSnapshot(rows, tuple(t.vocab_bytes), t.n_steps, top, n_tied, limit,
                            t.is_done, skipped)

    def same_pretokenizer(self, j: int, k: int) -> bool:
        """Steps j and k cut text with the same pattern (not across SuperBPE's
        transition), so an encoding can follow from one to the other merge by merge."""
        T = self.transition
        return T is None or (j <= T) == (k <= T)

    def first_words(self, n: int = PART_OF_WORDS) -> list[str]:
        """The text of the corpus's first ``n`` words (for the pair table's "part of 中"
        hints), without decoding all of a big corpus's words (millions for 1 GiB).

        Example: a trainer on "a b a" (whitespace preset) -> ['a', ' ', 'b']
        """
        t = self._t
        if t.settings.mode == "char":   # its word texts are a list already
            return t.word_texts[:n]
        table = t.table
        return [table.word_bytes(i).decode("utf-8") for i in range(min(n, len(table)))]

    def tokenizer(self, at_step: int | None = None, redo: bool = False) -> Tokenizer:
        """The tokenizer as of step ``at_step`` (default: now); ``redo`` also serves
        undone steps up to ``furthest_step`` (Trainer.tokenizer)."""
        return self._t.tokenizer(at_step, redo=redo)


_READ_THROUGH = frozenset(TrainerView.__annotations__)
