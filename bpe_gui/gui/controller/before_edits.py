"""The corpus as it was before unsaved edits, for the controller's sessions (opening.py):
what a session holds when the user answers Discard to the edits at quit.

Discard drops the edits, not the work around them: the next start comes back to the
corpus of before the edits (its file or sample), with the settings and the steps trained
on it, and the rest of the session (imported tokenizer, encode text, Compare's side B) as
it was. So every time the corpus is without edits, what it is and the steps trained on
it are noted; an edit leaves the last note in place.

Example::

    english sample, trained to step 30 of 60   -> noted: english, step 30, furthest 60
    the user types in the corpus (dirty)       -> the note stays
    Quit > Discard                             -> the session: english at step 30 of 60
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from PySide6.QtCore import SignalInstance

from ...engine.train import Session, RunCommon, TrainSettings
from .corpus_source import Corpus, source_of


class BeforeEditsHost(Protocol):
    """What :class:`BeforeEdits` reads of the controller."""

    corpus: Corpus
    settings: TrainSettings
    stale: bool
    trainer: RunCommon | None
    corpusChanged: SignalInstance

    @property
    def step_index(self) -> int: ...


@dataclass(frozen=True)
class Clean:
    """A corpus without unsaved edits, and the settings and steps trained on it."""

    corpus: Corpus
    settings: TrainSettings
    step: int
    furthest: int


class BeforeEdits:
    """The last corpus without edits (``clean``), noted as the corpus and steps change."""

    def __init__(self, host: BeforeEditsHost):
        self.c = host
        self.clean: Clean | None = None
        self._seen = host.corpus   # the corpus the last note was taken of
        host.corpusChanged.connect(self.note)

    def note(self, _k: object = None) -> None:
        """A corpus without edits, with the settings and steps of the trainer built on
        it (none while it is stale); with edits, what was noted before them stays."""
        c = self.c
        corpus, seen = c.corpus, self._seen
        self._seen = corpus
        if corpus.dirty:
            return
        # the trainer is this corpus's only if the text is the one it had (a corpus just
        # saved to a file), not a new one (corpusChanged comes before it is stale)
        same = corpus is seen or source_of(corpus) is source_of(seen)
        t = c.trainer if same and not c.stale else None
        self.clean = Clean(corpus, c.settings, c.step_index if t is not None else 0,
                           t.furthest_step if t is not None else 0)

    def forget(self) -> None:
        """Edits came with a session: no corpus of before them is known."""
        self.clean = None

    def session(self, live: Session) -> Session:
        """``live`` with the corpus of before its unsaved edits. Its steps are those
        trained on that corpus when the settings are still the same; else the settings
        shown, at the step shown (retrained on the corpus without the edits). No corpus
        known from before (typed from scratch): none, so the session is not kept."""
        k = self.clean
        if k is None:
            return replace(live, corpus_text=None, corpus_paths=[], sample=None, step=0,
                           furthest_step=0)
        step, furthest = (k.step, k.furthest) if k.settings == live.settings \
            else (live.step, 0)
        return replace(live, **corpus_fields(k.corpus), step=step,
                       furthest_step=furthest if furthest > step else 0)


def corpus_fields(corpus: Corpus) -> dict:
    """How a session holds ``corpus``: file paths when it came unedited from files,
    else its text inline (a sample's, with the sample's name)."""
    inline = corpus.dirty or not corpus.paths
    return {"corpus_text": corpus.text if inline else None,
            "corpus_paths": [] if inline else list(corpus.paths), "sample": corpus.sample}
