"""Training: the incremental trainer, training on from any tokenizer, SuperBPE, and a
saved session. Every trainer yields frozen ``MergeStep`` records.

- :mod:`.spec`: ``TrainingSpec`` (what to train: mode, sources, settings, target), the
  rules of which modes and settings go together (``validated``, ``unused``), and the
  spec as its ``bpe-gui train`` command.
- :mod:`.build`: ``build_run``, the one place a run is built from a spec.
- :mod:`.trainer`: ``RunSteps`` (what the window and the command line step every run
  below with: step, undo, goto, retarget, stop, the tokenizer at a step), ``RunCommon``
  (the type every run is held as: that, what panels read of it, what tells the runs
  apart as data: ``n_inherited``, ``transition``, ``parity``), ``Trainer``
  (step, undo, run, top pairs, retarget), ``TrainSettings``;
  the C core (``_core``, or the pure-Python ``_pycore``).
- :mod:`.calls`: ``train_bpe``, ``train_from_iterator``, ``train_on``, ``train_superbpe``,
  ``stage2``, ``train_parity``: training in one call (each through ``build_run``).
- :mod:`.inherited`: ``InheritedTrainer``: new merges on top of a tokenizer.
- :mod:`.superbpe`, :mod:`.superbpe_skips`, :mod:`.superbpe_run`: SuperBPE's two stages,
  and both as one run of steps for the window.
- :mod:`.parity`: ``ParityTrainer`` (parity-aware BPE over several languages, exact to HF's
  ``ParityBpeTrainer``; a run of steps, as every trainer), ``ParityData``,
  ``ParitySettings``, ``ParityStep``.
- :mod:`.parity_plain`: ``PlainCurve``, plain BPE's curve beside a parity run (the chart's).
- :mod:`.parity_dev`: whether the dev texts are parallel (their lines), and the warning.
- :mod:`.replay`: ``MergeReplay``, a merge list replayed on a sample by the same core,
  reporting the pair counts each merge changed (for ``analysis.mixture``).
- :mod:`.session`, :mod:`.session_fields`: a session file (corpus, settings, step).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .session import Session, looks_like_session
    from .superbpe import TRAIN_PATTERN, check_transition, stage2_pretokenizer
    from .superbpe_run import SuperBPERun
    from .inherited import InheritedTrainer, inherited_settings, merge_list_tokenizer
    from .parity import (PARITY_VARIANTS, ParityData, ParitySettings, ParityStep, ParityTrainer,
                         hf_lines, ratios_for, turn_sentence)
    from .parity_plain import PlainCurve
    from .spec import (MODES, PARITY, PLAIN, SUPERBPE, TRAIN_ON, Language, ParityOptions,
                       TrainingSpec, named_languages, unused)
    from .build import PREPARING, READING, SEGMENTING, STAGE2, Lent, build_run, lend, resolve
    from .replay import PAIR_RECORD, SKIP, MergeReplay, ReplayChunk
    from .trainer import (SPECIAL_TEXT_LABELS, TIE_RULE_LABELS, TIE_RULES, AffectedWord,
                          MergeStep, PairRow, RunCommon, RunSteps, Trainer, TrainSettings,
                          n_base_symbols, source_table)
    from .calls import (stage2, train_bpe, train_from_iterator, train_on, train_parity,
                        train_superbpe)

__getattr__, __dir__ = lazy_face(__name__, {
    ".session": "Session looks_like_session",
    ".superbpe": "TRAIN_PATTERN check_transition stage2_pretokenizer",
    ".superbpe_run": "SuperBPERun",
    ".inherited": "InheritedTrainer inherited_settings merge_list_tokenizer",
    ".parity": ("PARITY_VARIANTS ParityData ParitySettings ParityStep ParityTrainer hf_lines "
                "ratios_for turn_sentence"),
    ".parity_plain": "PlainCurve",
    ".spec": ("MODES PARITY PLAIN SUPERBPE TRAIN_ON Language ParityOptions TrainingSpec "
              "named_languages unused"),
    ".build": "PREPARING READING SEGMENTING STAGE2 Lent build_run lend resolve",
    ".replay": "PAIR_RECORD SKIP MergeReplay ReplayChunk",
    ".trainer": ("SPECIAL_TEXT_LABELS TIE_RULE_LABELS TIE_RULES AffectedWord MergeStep "
                 "PairRow RunCommon RunSteps Trainer TrainSettings n_base_symbols source_table"),
    ".calls": "stage2 train_bpe train_from_iterator train_on train_parity train_superbpe",
})

__all__ = ["AffectedWord", "InheritedTrainer", "Language", "MODES", "MergeReplay", "MergeStep",
           "PAIR_RECORD", "PARITY", "PARITY_VARIANTS", "PLAIN", "PairRow", "ParityData",
           "SPECIAL_TEXT_LABELS", "ParityOptions", "SUPERBPE", "TRAIN_ON", "TrainingSpec",
           "Lent", "PREPARING", "READING", "SEGMENTING", "STAGE2", "build_run", "lend",
           "named_languages", "PlainCurve",
           "resolve", "unused",
           "ParitySettings", "ParityStep", "ParityTrainer", "ReplayChunk", "SKIP", "Session",
           "SuperBPERun", "TIE_RULES", "TIE_RULE_LABELS", "TRAIN_PATTERN", "TrainSettings",
           "Trainer", "RunCommon", "RunSteps", "check_transition", "hf_lines", "inherited_settings",
           "looks_like_session", "merge_list_tokenizer", "n_base_symbols", "ratios_for",
           "source_table", "stage2", "stage2_pretokenizer", "train_bpe", "train_from_iterator",
           "train_on", "train_parity",
           "train_superbpe", "turn_sentence"]
