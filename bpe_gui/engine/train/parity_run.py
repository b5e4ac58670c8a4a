"""Parity-aware training as a run of steps for the window: :class:`ParityRun` wraps a
:class:`~.parity.ParityTrainer` in :class:`~.protocol.TrainerProtocol`, so stepping,
undo, goto, playing and running to the target work as for every other training.

Each step is the trainer's :class:`~.parity.ParityStep`, a :class:`~.trainer.MergeStep`
(the pair, the count in the language whose turn it was, the words it changed in every
language, the reason in a sentence) that also says whose turn it was, each language's
measure before the step and its tokens after it: the trainer holds the records, the
undone ones kept for redo and the tokenizer at a step; this class only answers the
protocol. ``parity`` holds what the window charts: the languages, each one's tokens at
step 0 and the curve of plain BPE on the same data.

What the protocol asks that parity training has not, it answers as a one-stage byte-level
run with no special tokens: ``n_inherited`` 0, ``transition`` None. The settings are
the run's own (GPT-2's pattern, byte level, HF's tie rule: the greatest GPT-2
spelling), whatever the window's fields say: the algorithm is HF's.

Example::

    run = ParityRun.from_files({"en": "en.txt", "de": "de.txt"},
                               {"en": "en.dev", "de": "de.dev"}, ParitySettings(num_merges=50))
    run.step()                             # a MergeStep
    run.parity.names[run.parity.steps[0].language]   # whose turn step 1 was
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..corpus.table import PretokenTable
from ..errors import CancelFn, SettingsError
from .parity import PATTERN, RULE, ParityData, ParitySettings, ParityStep, ParityTrainer, \
    run_steps
if TYPE_CHECKING:   # (made when a tokenizer is asked for: the command line exports without)
    from ..tokenizers.trained import Tokenizer
from .trainer import MergeStep, PairRow, Stop, TrainSettings

class ParityRun:
    """A :class:`ParityTrainer` as a TrainerProtocol run (see the module docstring)."""

    spec: Any = None   # what it trains (build_run sets it)

    def __init__(self, trainer: ParityTrainer):
        self._p = self.trainer = trainer
        self._settings = TrainSettings(vocab_size=None, num_merges=trainer.target, mode="byte",
                                       pattern=PATTERN, tie_rule=RULE)
        self._words: PretokenTable | None = None   # (made when first read: _all_words)
        # the look ahead at step n: (n, its provisional record)
        self._next: tuple[int, ParityStep | None] | None = None

    def _all_words(self) -> PretokenTable:
        """The words of every language, end to end: word id w of language i is
        offset[i] + its row in that language's count table (made once, when first read:
        the command line, which steps without detail, never reads it)."""
        if self._words is None:
            texts: list[str] = []
            freqs: list[int] = []
            for table in self._p.data.tables:
                blob, st = table.blob, table.starts
                texts += [blob[st[i]:st[i + 1]].decode("utf-8", "replace")
                          for i in range(len(table))]
                freqs += table.freqs
            self._words = PretokenTable.from_words(texts, freqs,
                                                   n_bytes=sum(self._p.initial_train_tokens))
        return self._words

    def release_core(self) -> None:
        """Free the trainer's core once training is over (ParityTrainer.release_core)."""
        self._p.release_core()

    @classmethod
    def from_files(cls, train, dev=None, settings: ParitySettings | None = None, *,
                   lines: bool = True) -> "ParityRun":
        return cls(ParityTrainer(ParityData.from_files(train, dev, lines=lines), settings))

    # ----- parity's own facts ---------------------------------------------------------------
    @property
    def parity(self) -> ParityTrainer | None:
        """The trainer: what the window charts besides the merges (its names, kind,
        settings, steps, initial_tokens, plain and warning)."""
        return self._p

    def compute_plain(self, cancel: CancelFn | None = None, upto: int | None = None,
                      progress: Callable[[int, int], None] | None = None) -> None:
        """Plain BPE's per-language curve (ParityTrainer.compute_plain): from then on it
        grows with the run (:meth:`run`, :meth:`step`)."""
        self._p.compute_plain(cancel, upto, progress)

    # ----- facts fixed for this run -----------------------------------------------------------
    @property
    def settings(self) -> TrainSettings:
        return self._settings

    @property
    def table(self) -> PretokenTable:
        return self._all_words()

    # byte level, one stage, no special tokens, nothing inherited
    n_initial = n_base = 256
    base: Sequence[bytes] = tuple(bytes([i]) for i in range(256))
    special_ids: Sequence[int] = ()
    n_inherited = 0
    transition: int | None = None

    # ----- the step it is at ----------------------------------------------------------------
    @property
    def steps(self) -> Sequence[MergeStep]:
        return self._p.steps

    @property
    def n_steps(self) -> int:
        return self._p.n_steps

    def advance(self, until: int | None = None,
                progress: Callable[[int, int], None] | None = None,
                cancel: CancelFn | None = None, detail: bool = False) -> None:
        """:meth:`run` without making each step's record (they are made when first
        read): the command line's run, which reads only the merges."""
        self._p.run(until, progress, cancel)

    @property
    def furthest_step(self) -> int:
        return self._p.furthest_step

    @property
    def target_steps(self) -> int | None:
        return self._p.target

    @property
    def vocab_size(self) -> int:
        return len(self._p.vocab_bytes)

    @property
    def vocab_bytes(self) -> Sequence[bytes]:
        return self._p.vocab_bytes

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        return self._p.merges

    @property
    def corpus_tokens(self) -> int:
        return sum(self._p.train_tokens)

    @property
    def word_texts(self) -> list[str]:
        return self._all_words().words

    def stop(self) -> Stop | None:
        n, target = self.n_steps, self._p.target
        if n >= target:
            return Stop("target", f"{target:,} merges",
                        f"Target reached at step {n} ({target:,} merges).")
        if self._p.is_done:
            mf = self._p.settings.min_frequency
            left = "a pair of symbols left" if mf <= 1 else \
                f"a pair that occurs at least {mf:,} times (the minimum pair frequency)"
            return Stop("no-pair", "no pair left",
                        f"Training stopped at step {n}, before the target: no language has "
                        f"{left}.")
        return None

    @property
    def is_done(self) -> bool:
        return self._p.is_done

    def best_pair(self) -> tuple[int, int, int] | None:
        rec = self.next_choice()
        return None if rec is None else (rec.pair[0], rec.pair[1], rec.count)

    def _chooser(self):
        """The core's column the next step chooses from: the language whose turn it is
        (all languages together in the global phase); None when training is done."""
        p = self._p
        if self.n_steps < p.settings.global_merges:
            return p.pair_source(None)
        nxt = self.next_choice()
        if nxt is None or nxt.language is None:
            return None
        return p.pair_source(nxt.language)

    def top_pairs(self, k: int = 200) -> list[PairRow]:
        """The k best pairs of the language whose turn is next, in HF's order (count,
        then the greatest GPT-2 spelling: the cores' tie rule)."""
        src = self._chooser()
        if src is None:
            return []
        return [PairRow(r, a, b, c) for r, (a, b, c) in enumerate(src.top(k), 1)]

    def tied_now(self, limit: int = 50) -> tuple[int, list[tuple[int, int]]]:
        src = self._chooser()
        if src is None:
            return 0, []
        n, tied = src.tied(max(limit, 1))
        return n, [(t[0], t[1]) for t in tied[:limit]]

    def next_choice(self, limit: int = 50) -> MergeStep | None:
        """The merge the next step would make, as a provisional record: the trainer's
        choice, a pure function of its state (nothing stepped or undone). At the target
        too, one step past it: the pair table shows what a longer run would merge next,
        as a plain run's does."""
        n = self.n_steps
        if self._next is None or self._next[0] != n:
            self._next = (n, self._p.next_record())
        return self._next[1]

    def skip_reason(self, a: int, b: int) -> str | None:
        return None   # (SuperBPE's: parity training skips no pair)

    def symbol_count(self, i: int) -> int:
        return self._p.symbol_count(i)

    # ----- stepping -------------------------------------------------------------------------
    def step(self, detail: bool = True) -> MergeStep | None:
        if not self._p.plain_covers(self.n_steps + 1):
            self.compute_plain(upto=self.n_steps + 1)
        self._next = None
        return self._p.step(detail)

    def undo(self) -> MergeStep | None:
        self._next = None
        return self._p.undo()

    def goto(self, k: int, *, detail: bool = True) -> None:
        while self.n_steps > k and self.undo() is not None:
            pass
        if self.n_steps < k:
            self.run(until=k, detail=detail)

    def run(self, until: int | None = None,
            progress: Callable[[int, int], None] | None = None,
            cancel: CancelFn | None = None, detail: bool = True) -> Sequence[MergeStep]:
        goal = self._p.target if until is None else min(until, self._p.target)
        if not self._p.plain_covers(goal):   # all at once, not a step at a time
            self.compute_plain(cancel, upto=goal, progress=progress)
        return run_steps(lambda: self.step(detail=detail), lambda: self.n_steps, goal,
                         progress, cancel, every=16)

    def can_retarget(self, settings: TrainSettings) -> bool:
        """True when ``settings`` differ from this run's only in the number of merges
        or in what parity training does not use (the mode, pattern, tie rule, special
        tokens, pruning and SuperBPE are the plain trainer's). A vocabulary size is a
        new run: the window counts it as merges when it builds one."""
        if settings.num_merges is None:
            return False
        return settings.min_frequency == self._settings.min_frequency

    def retarget(self, settings: TrainSettings) -> int:
        if not self.can_retarget(settings) or settings.num_merges is None:
            raise SettingsError("Only the number of merges can change on a parity run; "
                                "retrain for the rest.")
        self._p.target = settings.num_merges
        self._settings = replace(self._settings, num_merges=settings.num_merges)
        self._next = None
        if self.n_steps > self._p.target:
            self.goto(self._p.target)
        return self.n_steps

    # ----- tokenizers -------------------------------------------------------------------------
    def tokenizer(self, at_step: int | None = None, redo: bool = False) -> Tokenizer:
        return self._p.tokenizer(at_step, redo)
