"""Parity-aware training as a run of steps for the window: :class:`ParityRun` is a
:class:`~.parity.ParityTrainer` that also answers :class:`~.protocol.TrainerProtocol`, so
stepping, undo, goto, playing and running to the target work as for every other training.

Each step is the trainer's :class:`~.parity.ParityStep`, a :class:`~.trainer.MergeStep`
(the pair, the count in the language whose turn it was, the words it changed in every
language, the reason in a sentence) that also says whose turn it was, each language's
measure before the step and its tokens after it. The records, the undone ones kept for
redo, the tokenizer at a step and the plain curve are the trainer's; this class adds
only the protocol's views. ``parity`` is the run itself (a ParityTrainer): what the
window charts, the languages, each one's tokens at step 0 and the curve of plain BPE on
the same data.

What the protocol asks that parity training has not, it answers as a one-stage byte-level
run with no special tokens: ``n_inherited`` 0, ``transition`` None. The ``settings`` are
the run's own (GPT-2's pattern, byte level, HF's tie rule: the greatest GPT-2
spelling), whatever the window's fields say: the algorithm is HF's (its parameters are
``parity_settings``).

Example::

    run = ParityRun.from_files({"en": "en.txt", "de": "de.txt"},
                               {"en": "en.dev", "de": "de.dev"}, ParitySettings(num_merges=50),
                               lines=True)
    run.step()                             # a MergeStep
    run.parity.names[run.parity.steps[0].language]   # whose turn step 1 was
"""
from __future__ import annotations

from typing import Callable, Sequence

from ..corpus.table import PretokenTable
from ..errors import CancelFn, SettingsError
from .parity import PATTERN, RULE, ParityData, ParitySettings, ParityStep, ParityTrainer
from .trainer import PairRow, Stop, TrainSettings


class ParityRun(ParityTrainer):
    """A :class:`ParityTrainer` as a TrainerProtocol run (see the module docstring)."""

    def __init__(self, data: ParityData, settings: ParitySettings | None = None, *,
                 undo: bool = True):
        super().__init__(data, settings, undo=undo)
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
            for table in self.data.tables:
                blob, st = table.blob, table.starts
                texts += [blob[st[i]:st[i + 1]].decode("utf-8", "replace")
                          for i in range(len(table))]
                freqs += table.freqs
            self._words = PretokenTable.from_words(texts, freqs,
                                                   n_bytes=sum(self.initial_train_tokens))
        return self._words

    @property
    def parity(self) -> ParityTrainer | None:
        """The run itself: what the window charts besides the merges (names, kind,
        parity_settings, steps, initial_tokens, plain and warning)."""
        return self

    # ----- facts fixed for this run -----------------------------------------------------------
    @property
    def settings(self) -> TrainSettings:
        return TrainSettings(vocab_size=None, num_merges=self.target, mode="byte",
                             pattern=PATTERN, tie_rule=RULE)

    @property
    def table(self) -> PretokenTable:
        return self._all_words()

    # byte level, one stage, no special tokens, nothing inherited (RunCommon's)
    n_initial = n_base = 256
    base: Sequence[bytes] = tuple(bytes([i]) for i in range(256))
    special_ids: Sequence[int] = ()
    transition: int | None = None

    # ----- the step it is at ----------------------------------------------------------------
    @property
    def corpus_tokens(self) -> int:
        return sum(self.train_tokens)

    @property
    def word_texts(self) -> list[str]:
        return self._all_words().words

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

    def best_pair(self) -> tuple[int, int, int] | None:
        rec = self.next_choice()
        return None if rec is None else (rec.pair[0], rec.pair[1], rec.count)

    def _chooser(self):
        """The core's column the next step chooses from: the language whose turn it is
        (all languages together in the global phase); None when training is done."""
        if self.n_steps < self.parity_settings.global_merges:
            return self.pair_source(None)
        nxt = self.next_choice()
        if nxt is None or nxt.language is None:
            return None
        return self.pair_source(nxt.language)

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

    def next_choice(self, limit: int = 50) -> ParityStep | None:
        """The merge the next step would make, as a provisional record: the trainer's
        choice, a pure function of its state (nothing stepped or undone). At the target
        too, one step past it: the pair table shows what a longer run would merge next,
        as a plain run's does."""
        n = self.n_steps
        if self._next is None or self._next[0] != n:
            self._next = (n, self.next_record())
        return self._next[1]

    # ----- stepping: the trainer's, with detail ------------------------------------------
    def step(self, detail: bool = True) -> ParityStep | None:
        self._next = None
        return super().step(detail)

    def undo(self) -> ParityStep | None:
        self._next = None
        return super().undo()

    def run(self, until: int | None = None,
            progress: Callable[[int, int], None] | None = None,
            cancel: CancelFn | None = None, detail: bool = True) -> list[ParityStep]:
        goal = self.target if until is None else min(until, self.target)
        if not self.plain_covers(goal):   # all at once, not a step at a time
            self.compute_plain(cancel, upto=goal, progress=progress)
        return super().run(until, progress, cancel, detail)

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
