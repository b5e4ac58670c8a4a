"""What the next training reads and how, as one value (:class:`TrainingPlan`).

The window has modes (parity, training on from a tokenizer, SuperBPE, plain) whose
state used to outlive them: a pre-token table read for one mode was handed to the next
training of another. The controller now derives its plan from what the panels show
(``Controller.plan()``), the trainer remembers the plan it was built from
(``Training.built``), and everything that reuses or shows the trainer's reading of the
corpus asks whether the two plans read the same thing:

- ``reads``: which texts the trainer's words come from (the corpus of this generation,
  the languages' files, the same corpus through a tokenizer's pre-tokenizer);
- ``table_key``: ``reads`` plus what cuts the texts into words (pattern, special tokens,
  one text per line). A trainer built with the same table key can hand its pre-token
  table to the next training (only the mode, the target or the tie rule changed).

Example::

    plan = TrainingPlan(PLAIN, corpus_gen=3, settings=TrainSettings())
    plan.reads()          # ('plain', 3)
    replace(plan, mode=PARITY, languages=(...)).reads() != plan.reads()
"""
from __future__ import annotations

from dataclasses import dataclass

from ...engine.train import TrainSettings
from .parity_setup import ParitySetup

PLAIN, PARITY, TRAIN_ON = "plain", "parity", "train-on"


@dataclass(frozen=True)
class TrainingPlan:
    """The source and settings of the next training (see the module docstring).

    ``corpus_gen`` names the corpus (a new text, files or table is a new generation);
    ``parity`` is the languages' setup in parity mode (None otherwise); ``base`` the
    tokenizer trained on from (None unless training on)."""

    mode: str
    corpus_gen: int
    settings: TrainSettings
    parity: ParitySetup | None = None
    base: str | None = None

    def reads(self) -> tuple:
        """Which texts a trainer of this plan reads: equal for two plans exactly when
        their trainers' words come from the same texts."""
        if self.mode == PARITY and self.parity is not None:
            langs = tuple((lang.name, lang.train) for lang in self.parity.languages)
            return (PARITY, langs, self.parity.lines)
        if self.mode == TRAIN_ON:
            return (TRAIN_ON, self.corpus_gen, self.base)
        return (PLAIN, self.corpus_gen)

    def table_key(self) -> tuple:
        """``reads`` plus what cuts the texts into words: a trainer's pre-token table
        serves every plan with the same key."""
        s = self.settings
        return self.reads() + (s.pattern, tuple(s.special_tokens), s.lines)

    @property
    def reads_corpus(self) -> bool:
        """True when the corpus in the editor is what training reads (not in parity
        mode, which reads the languages' files)."""
        return self.mode != PARITY
