"""What views read of the controller, in the parts most of them share; a panel's or
dialog's own Protocol (declared beside it) builds on one and adds what else it reads.

- :class:`RunReads`: the training run (whether a job runs it, a view of it when it may be
  read, its side jobs) and when it changes;
- :class:`TokenizerReads`: that, and the imported tokenizer and when the tokenizer on
  show changes;
- :class:`ImportedReads`: the tokenizer on show and the imported one, and when they
  change (the views that do not read the run).

mypy holds the real Controller to each panel's Protocol where the window hands it over.
"""
from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import SignalInstance

from ...engine.tokenizers import BaseTokenizer
from ..controller.trainer_view import TrainerView


class RunReads(Protocol):
    """The training run, as the panels that show it read it."""

    busyChanged: SignalInstance
    trainerChanged: SignalInstance
    stepChanged: SignalInstance

    @property
    def busy(self) -> bool: ...
    @property
    def peeking(self) -> bool: ...
    @property
    def has_trainer(self) -> bool: ...
    def view(self) -> TrainerView | None: ...


class ImportedReads(Protocol):
    """The tokenizer on show, the imported one, and when either changes."""

    tokenizerChanged: SignalInstance
    imported: BaseTokenizer | None
    imported_path: str | None
    use_imported: bool

    @property
    def step_index(self) -> int: ...
    def tokenizer(self) -> BaseTokenizer | None: ...


class TokenizerReads(RunReads, Protocol):
    """The run, and the imported tokenizer beside it."""

    tokenizerChanged: SignalInstance
    imported: BaseTokenizer | None
    imported_path: str | None
