"""The training jobs the controller runs on the worker thread, and the detail of the
step the window shows.

Long runs step in the C core without detail (``Trainer.run(detail=False)``: records
with the pair, count, number of tied pairs and corpus size, but no tied list, affected
words or reason), many times faster than stepping in Python with detail: 32k merges on
1 GiB of code take about a second instead of minutes. The window only ever shows the
detail of the *current* step (the last merge panel, the timeline's tooltip); that one
record gets it afterwards by undoing and redoing the step (:func:`detail_current`):
training is deterministic, so the redone step is the same merge, now with detail.
"""
from __future__ import annotations

from typing import Sequence

from ...engine.train import PlainCurve, RunSteps


def has_detail(rec) -> bool:
    """Records made with detail always have a reason (one sentence on the tie)."""
    return bool(rec.reason)


def detail_current(t: RunSteps | None) -> bool:
    """Give the current step's record its detail if it was made without; True if it
    changed. One undo and one step: well under a millisecond."""
    if t is None or not t.steps or has_detail(t.steps[-1]):
        return False
    k = t.n_steps
    t.undo()
    if t.step() is None:   # cannot happen (the same state made it once); never lose it
        t.run(until=k, detail=False)
        return False
    return True


def stop_reason(t: RunSteps) -> str:
    """Why training stops here (target reached, no pair left, below min frequency), or
    that it can go on."""
    stop = t.stop()
    return stop.sentence if stop is not None else f"Training can go on from step {t.n_steps}."


def run_on(t: RunSteps, until: int | None, live, progress, cancelled,
           plain: PlainCurve | None = None) -> Sequence:
    """On the worker thread: run ``t`` on to step ``until`` (None: the target), letting
    the window look at it a few times a second; a parity run's ``plain`` curve is grown
    as far first, all at once (not a step at a time)."""
    with live.holding():
        if plain is not None and t.target_steps is not None:
            goal = t.target_steps if until is None else min(until, t.target_steps)
            plain.compute(cancelled, upto=goal, progress=live.wrap(progress))
        recs = t.run(until=until, progress=live.wrap(progress), cancel=cancelled,
                     detail=False)
        t.tokenizer()   # its merge table (32k merges: ~0.15 s) here, not on the GUI thread
        return recs
