"""SuperBPE as one run of steps, for the window: steps 1..T are stage 1 (an ordinary
:class:`Trainer`), steps T+1.. stage 2 (a :class:`SuperBPETrainer` built from stage
1's tokenizer at T when stage 1 gets there). Step, undo, goto, run and
``tokenizer(at_step)`` go across the transition, so a SuperBPE training is browsed
merge by merge like any other; stage-2 records are numbered from T+1 (the engine's
SuperBPETrainer counts them from 1). The merges are exactly those of the two stages
trained apart, a Trainer to T and then ``stage2`` on its tokenizer
(tests/engine/train/test_superbpe_run.py); ``train_superbpe`` runs this class.

Step T itself is stage 1's last state (its tokenizer cuts with stage 1's pattern); the
candidates for step T+1 are stage 2's. A stage-2 record whose pair came up after stage
2 skipped some (``": "``, more than 4 words) says so in its reason.

Example::

    >>> run = build_run(TrainingSpec(mode=SUPERBPE, text=text,
    ...                              settings=TrainSettings(num_merges=300, superbpe_from=250)))
    >>> run.run(); run.transition, run.stage_of(251)
    (250, 2)
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from ..errors import CancelFn, SettingsError
from .superbpe import (ENCODE_PATTERN, SuperBPETrainer, check_transition, skip_reason)
from ..corpus.table import PretokenTable
from ..tokenizers.trained import Tokenizer
from .trainer import MergeStep, RunCommon, Stop, Trainer, TrainSettings, step_asked


def _active(name: str) -> Any:
    """A member of the active stage's trainer, read through the run."""
    return property(lambda self: getattr(self._t, name), doc=f"The active stage's {name}.")


class SuperBPERun(RunCommon):
    """Both SuperBPE stages as one run of steps (module docstring); a
    :class:`~.trainer.RunCommon`, as every run. Nothing is inherited
    (``n_inherited`` 0): stage 1 is trained here, step by step."""

    settings: TrainSettings
    table: PretokenTable

    def __init__(self, table: PretokenTable,
                 table2: PretokenTable | Callable[[], PretokenTable], settings: TrainSettings,
                 *, undo: bool = True):
        """``table2``: stage 2's table, or how to count it (when stage 2 is built).
        ``undo=False``: a run that only goes forward (the command line's): stage 1's
        core and table are let go once stage 2 is built."""
        s = settings.validated()
        self.stage1 = Trainer(table, replace(s, num_merges=s.superbpe_from, superbpe_from=None),
                              undo=undo)
        check_transition(s, self.stage1.n_initial)
        self.settings, self.table, self._table2 = s, table, table2
        self._undo = undo
        self._T: int = s.superbpe_from or 0   # check_transition: never None here
        self.stage2: SuperBPETrainer | None = None
        self._two = False        # the current step is in stage 2 (or is T, stage 2 built)
        self.steps: list[MergeStep] = []
        self._src: list[MergeStep] = []   # the stage-2 records steps[T:] show
        t1 = self.stage1
        self.n_initial, self.n_base, self.base = t1.n_initial, t1.n_base, t1.base
        self.special_ids = t1.special_ids
        if t1.is_done:
            self._enter2()

    @property
    def table2(self) -> PretokenTable:
        """Stage 2's table (the same corpus, cut by stage 2's pattern)."""
        if callable(self._table2):
            self._table2 = self._table2()
        return self._table2

    # ----- the two stages -------------------------------------------------------------
    @property
    def transition(self) -> int:
        """T: the last stage-1 step (earlier than asked if stage 1 stopped early)."""
        return self._s2.n_inherited if self.stage2 is not None else self._T

    def stage_of(self, k: int) -> int:
        """1 for steps up to T, 2 after."""
        return 1 if k <= self.transition else 2

    @property
    def _s2(self) -> SuperBPETrainer:
        t = self.stage2
        if t is None:   # callers look only once stage 1 is done (_enter2 built it)
            raise RuntimeError("SuperBPE's stage 2 is not built yet")
        return t

    @property
    def _t(self) -> Trainer:
        return self._s2 if self._two else self.stage1

    def _stage2_settings(self, s: TrainSettings, T: int) -> TrainSettings:
        rest = replace(s, num_merges=None if s.num_merges is None
                       else s.num_merges - self._T)   # (both stages count)
        return replace(rest, pattern=ENCODE_PATTERN, superbpe_from=T)

    def _enter2(self) -> None:
        """Stage 1 is done: from here on the candidates are stage 2's (built once: stage
        1's first T merges never change)."""
        if self.stage2 is None:
            tok1 = self.stage1.tokenizer()
            steps1 = tuple(self.stage1.steps)
            if not self._undo:   # never back to stage 1: its words go before stage 2's
                self.stage1.release_core()   # are counted (one stage's memory at a time)
                self.stage1.release_table()
                self.table = None   # type: ignore[assignment]  # (stage 2's, below)
            self.stage2 = SuperBPETrainer(tok1, self.table2,
                                          self._stage2_settings(self.settings, tok1.n_merges))
            self._s2.stage1_steps = steps1
            if self.table is None:
                self.table = self.table2
                self.stage1._tok = None   # its tokenizer too (remade if asked for)
        self._two = True

    def prepare(self, cancel: CancelFn | None = None) -> None:
        """Build stage 2 now (stage 1 run to T and back, in the core: a fraction of a
        second), so that stepping across T later does not wait for it (2 s on 4 MB of
        English). The window calls it on the worker thread when it builds the run."""
        if self.stage2 is None:
            k = self.n_steps
            self.run(until=self._T, cancel=cancel, detail=False)
            self.goto(k)

    def _sync(self) -> None:
        """``steps``: stage 1's records, then stage 2's renumbered (only the tail that
        changed is redone: steps are made and undone at the end)."""
        s1, steps = self.stage1.steps, self.steps
        want2 = self._s2.steps if self._two else []
        n1 = len(s1)
        n = n1 + len(want2)
        keep = min(len(steps), n)
        while keep > 0 and not (steps[keep - 1] is s1[keep - 1] if keep <= n1 else
                                keep - n1 <= len(self._src) and
                                self._src[keep - n1 - 1] is want2[keep - n1 - 1]):
            keep -= 1
        del steps[keep:]
        del self._src[max(0, keep - n1):]
        for i in range(keep, n):
            if i < n1:
                steps.append(s1[i])
            else:
                rec = want2[i - n1]
                self._src.append(rec)
                steps.append(self._shift(rec))

    def _shift(self, rec: MergeStep) -> MergeStep:
        """A stage-2 record numbered in the whole run, its reason naming what stage 2
        skipped just before it (records without detail keep no reason)."""
        T = self.transition
        why = rec.reason
        if why:
            note = self.skipped_note(rec.index - 1)
            why = f"{why} {note}" if note else why
        return replace(rec, index=rec.index + T, reason=why)

    def skipped_note(self, k2: int) -> str:
        """One sentence on the pairs stage 2 skipped when they came up after its step
        ``k2`` (stage-2 numbering), or ''."""
        bad = self._s2.skipped_before(k2) if self.stage2 is not None else ()
        if not bad:
            return ""
        vb = self._s2.vocab_bytes
        shown = sorted(bad)[:3]
        parts = [f"{self.render_pair(p)} ({skip_reason(vb[p[0]] + vb[p[1]])})" for p in shown]
        more = f" and {len(bad) - 3:,} more" if len(bad) > 3 else ""
        return (f"Stage 2 skipped {len(bad):,} pair(s) with a higher count here: "
                f"{'; '.join(parts)}{more}.")

    # ----- state (the active stage's) ---------------------------------------------------
    @property
    def target_steps(self) -> int:
        s = self.settings
        if self.stage2 is not None:   # (never None: pruning is refused)
            return self.transition + (self._s2.target_steps or 0)
        return s.num_merges if s.num_merges is not None else (s.vocab_size or 0) - self.n_initial

    # what the pair table, the words and the vocabulary are now: the active stage's
    vocab_bytes = _active("vocab_bytes")
    corpus_tokens = _active("corpus_tokens")
    merges = _active("merges")
    render = _active("render")   # (render_pair: RunCommon's, over it)
    word_texts = _active("word_texts")
    symbol_count = _active("symbol_count")
    top_pairs = _active("top_pairs")
    tied_now = _active("tied_now")
    explain = _active("explain")
    skip_reason = _active("skip_reason")   # (stage 2's pairs it never merges; stage 1: None)

    def next_choice(self, limit: int = 50) -> MergeStep | None:
        if not self._two:
            return self.stage1.next_choice(limit)
        rec = self._s2.next_choice(limit)
        return None if rec is None else self._shift(rec)

    def stop(self) -> Stop | None:
        if not self._two:
            return None   # stage 1 is not done (it goes on to stage 2 when it is)
        st = self._s2.stop()
        if st is None:
            return None
        n, T, s = self.n_steps, self.transition, self.settings
        if st.kind == "target" and s.num_merges is not None:   # both stages count
            return replace(st, sentence=f"Target reached at step {n:,} ({s.num_merges:,} "
                           f"merges: {T:,} in stage 1, {n - T:,} in stage 2).")
        return replace(st, sentence=st.sentence.replace(
            f"at step {self._s2.n_steps}", f"at step {n}", 1))

    # ----- stepping -------------------------------------------------------------------
    def step(self, detail: bool = True) -> MergeStep | None:
        if not self._two:
            rec = self.stage1.step(detail)
            if self.stage1.is_done:
                self._enter2()
            if rec is not None:
                self._sync()
                return rec
        rec = self._s2.step(detail)
        if rec is None:
            return None
        self._s2.settle()   # the next candidates are what stage 2 may merge
        self._sync()
        return self.steps[-1]

    def undo(self) -> MergeStep | None:
        if self._two and self._s2.n_steps > 0:
            self._s2.undo()
            undone = self.steps[-1]
        else:
            self._two = False
            if self.stage1.undo() is None:
                return None
            undone = self.steps[-1]
        self._sync()
        return undone

    def run(self, until: int | None = None, progress: Callable[[int, int], None] | None = None,
            cancel: CancelFn | None = None, detail: bool = True) -> list[MergeStep]:
        """Step to ``until`` (default: the target) across the transition; progress in
        steps of the whole run."""
        start = self.n_steps
        goal = until if until is not None else self.target_steps

        def at(offset: int):
            if progress is None:
                return None

            def report(done: int, _total: int) -> None:
                self._sync()   # the window may look at the records now
                progress(offset + done, goal)
            return report
        if not self._two and goal > self.n_steps:
            self.stage1.run(until=min(goal, self.transition), progress=at(0), cancel=cancel,
                            detail=detail)
            if self.stage1.is_done and not (cancel is not None and cancel()):
                self._enter2()
            self._sync()
        if self._two and goal > self.n_steps and not (cancel is not None and cancel()):
            T = self.transition
            self._s2.run(until=goal - T, progress=at(T), cancel=cancel, detail=detail)
            self._s2.settle()
            self._sync()
        return self.steps[start:]

    # ----- changing the target ------------------------------------------------------------
    def can_retarget(self, settings: TrainSettings) -> bool:
        """Only the vocabulary size or number of merges changed, and the new target is
        still past the transition (stage 1 is not touched)."""
        now = self.settings
        if replace(settings, vocab_size=now.vocab_size, num_merges=now.num_merges) != now:
            return False
        try:
            check_transition(settings.validated(), self.n_initial)
        except SettingsError:
            return False
        return True

    def retarget(self, settings: TrainSettings) -> int:
        if not self.can_retarget(settings):
            raise SettingsError("Only a new target past the transition can change on a live "
                                "SuperBPE run; retrain for the rest.")
        self.settings = settings.validated()
        if self.stage2 is not None:
            T = self.transition
            if self._two:
                self._s2.retarget(self._stage2_settings(self.settings, T))
            else:
                self._s2.settings = self._stage2_settings(self.settings, T).validated()
            self._sync()
        return self.n_steps

    # ----- tokenizers -----------------------------------------------------------------
    @property
    def furthest_step(self) -> int:
        if self.stage2 is None:
            return self.stage1.furthest_step
        return self.transition + self._s2.furthest_step

    def tokenizer(self, at_step: int | None = None, redo: bool = False) -> Tokenizer:
        """As of step k (default: now): stage 1's up to T, stage 2's after."""
        k = step_asked(at_step, self.n_steps, self.furthest_step if redo else self.n_steps,
                       "tokenizer(at_step)")
        T = self.transition
        if self.stage2 is None or k <= T:
            return self.stage1.tokenizer(min(k, T), redo=redo)
        if not self._two and not redo:
            return self.stage1.tokenizer()
        return self._s2.tokenizer(k - T, redo=redo or not self._two)
