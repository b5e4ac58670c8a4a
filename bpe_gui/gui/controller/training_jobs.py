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

from typing import Callable

from ...engine.errors import Cancelled
from ...engine.corpus import PretokenTable
from ...engine.errors import NotUTF8Error
from ...engine.train import TrainerProtocol, TrainSettings
from .corpus_source import Corpus, NotUtf8
from .superbpe_training import TableFn, new_trainer


def has_detail(rec) -> bool:
    """Records made with detail always have a reason (one sentence on the tie)."""
    return bool(rec.reason)


def detail_current(t: TrainerProtocol | None) -> bool:
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


def run_job(t: TrainerProtocol, until: int | None, live) -> Callable:
    """Run ``t`` on to step ``until`` (None: the target), letting the window look at it
    a few times a second."""
    def job(progress, cancelled):
        with live.holding():
            recs = t.run(until=until, progress=live.wrap(progress), cancel=cancelled,
                         detail=False)
            t.tokenizer()   # its merge table (32k merges: ~0.15 s) here, not on the GUI thread
            return recs
    return job


def retrain_job(source: Corpus | PretokenTable, settings: TrainSettings, live, box: dict,
                phase: Callable[[str, str], None], to_step: int | None = None,
                to_target: bool = False, table2: TableFn | None = None,
                build: Callable[..., TrainerProtocol] | None = None) -> Callable:
    """Pre-tokenize the corpus (text, or files streamed in blocks; a word-count table, or
    the trainer's own table when it still fits, is used as it is) into a new trainer,
    then run it to ``to_step`` or the target: the Trainer, or NotUtf8 for a file found
    not to be UTF-8 past its preview. Once it starts merging, the trainer is published
    in ``box`` so the window can follow it (and keep it on Cancel). ``table2``: how to
    get SuperBPE's stage-2 table when the settings ask for it (superbpe_training.py).
    ``build(progress, cancelled, phase)``: the trainer made another way (parity-aware
    training reads its languages' files: parity_training.py)."""
    def job(progress, cancelled):
        try:
            if build is not None:
                trainer = build(progress, cancelled, phase)
            else:
                trainer = new_trainer(
                    source if isinstance(source, PretokenTable) else source.source,
                    settings, table2, progress, cancelled, phase)
        except NotUTF8Error as e:   # found past the preview: offer another encoding
            if build is not None:   # (a language's file: the error names it)
                raise
            return NotUtf8.of(e, source.paths)
        if to_step or to_target:
            box["trainer"] = trainer   # the window may show it from now on
            if cancelled():   # after publishing it: cancel() reads box after the flag
                raise Cancelled()   # ends as cancelled, keeping the published trainer
            phase("Training to target" if to_target else f"Running to step {to_step:,}",
                  "merges")
            with live.holding():
                trainer.run(until=to_step or None, progress=live.wrap(progress),
                            cancel=cancelled, detail=False)
                trainer.tokenizer()   # built here, not on the GUI thread
        return trainer
    return job
