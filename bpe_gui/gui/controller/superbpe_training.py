"""Training with the SuperBPE setting (``TrainSettings.superbpe_from``): the trainer the
window steps is then a :class:`~bpe_gui.engine.train.superbpe_run.SuperBPERun` (stage 1 to
step T, stage 2 after), built from two pre-token tables of the same corpus: stage 1's
(the settings' pattern) and stage 2's (the reference's split regex, line by line).

Kept apart from training.py so that plain training reads as before: the controller
asks :func:`new_trainer` for the trainer whatever the settings, and
:func:`stage2_table` says how the stage-2 table is got (read again from the corpus, or
the previous SuperBPE run's when the corpus and special tokens did not change).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from ...engine.errors import Cancelled, SettingsError
from ...engine.train import TRAIN_PATTERN
from ...engine.train import SuperBPERun
from ...engine.corpus import PretokenTable
from ...engine.train import Trainer, TrainerProtocol, TrainSettings, source_table
from .corpus_source import TABLE_NAME

TableFn = Callable[..., PretokenTable]   # (progress, cancelled) -> the stage-2 table

NO_TABLES = ("SuperBPE's stage 2 cuts the text without splitting at spaces, and a "
             "word-count table holds only stage 1's words. Open the text files to train "
             "SuperBPE, or turn the SuperBPE setting off.")


def stage2_settings(settings: TrainSettings) -> TrainSettings:
    """What the stage-2 table is counted with (its pattern, the same special tokens)."""
    return replace(settings, pattern=TRAIN_PATTERN, superbpe_from=None, prune=False)


def stage2_table(corpus, settings: TrainSettings, old: TrainerProtocol | None = None,
                 reuse: bool = False) -> TableFn:
    """How to get the stage-2 table: ``old``'s (a SuperBPE run of the same corpus and
    special tokens, when ``reuse``) or the corpus read again with the stage-2 pattern."""
    table2 = old.table2 if reuse and old is not None else None   # None: one stage
    if table2 is not None and old is not None and \
            tuple(old.settings.special_tokens) == tuple(settings.special_tokens):
        return lambda progress=None, cancelled=None: table2
    if corpus.table is not None:
        def refuse(progress=None, cancelled=None):
            raise SettingsError(NO_TABLES)
        return refuse
    s2 = stage2_settings(settings)
    return lambda progress=None, cancelled=None: source_table(corpus.source, s2, progress,
                                                              cancelled)


def new_trainer(source, settings: TrainSettings, table2: TableFn,
                progress=None, cancelled=None,
                phase: Callable[[str, str], None] | None = None) -> TrainerProtocol:
    """The trainer for ``settings`` from a corpus's ``source`` (its text, its files, or a
    table; see ``Trainer.from_source``): a plain Trainer, or a SuperBPERun when stage 2
    is set (its stage-2 table read here: on the worker thread in a job)."""
    if settings.superbpe_from is None:
        return Trainer.from_source(source, settings, progress, cancelled, where=TABLE_NAME)
    table = source_table(source, settings, progress, cancelled, where=TABLE_NAME)
    if cancelled is not None and cancelled():
        raise Cancelled()
    if phase is not None:
        phase("Pre-tokenizing for stage 2 (no split at spaces)", "bytes")
    run = SuperBPERun(table, table2(progress, cancelled), settings)
    if phase is not None:
        phase("Preparing stage 2", "")
    run.prepare(cancelled)   # here, not at the step that first crosses T
    return run


def stop_sentence(trainer: TrainerProtocol) -> str | None:
    """Why training stops at this step, in words, or None while it goes on. A SuperBPE
    run reaching a number of merges counts both stages: its stage-2 trainer states its
    own target (the merges after T), so the engine's sentence read "Target reached at
    step 500 (50 merges)" for 500 merges with stage 2 from step 450 (issue 30).

    Example: num_merges=500, stage 2 from 450, at step 500 -> 'Target reached at step
    500 (500 merges: 450 in stage 1, 50 in stage 2).'
    """
    # (when the engine's SuperBPERun.stop says so itself, this is its sentence only)
    stop = trainer.stop()
    if stop is None:
        return None
    s, T = trainer.settings, trainer.transition   # T: None unless SuperBPE (two stages)
    if stop.kind == "target" and T is not None and s.num_merges is not None:
        n = trainer.n_steps
        return (f"Target reached at step {n:,} ({s.num_merges:,} merges: {T:,} in stage 1, "
                f"{n - T:,} in stage 2).")
    return stop.sentence
