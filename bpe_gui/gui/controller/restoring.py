"""A session being restored, for the controller's sessions (opening.py): what a save
writes until the window holds that session whole.

Restoring a session reads its corpus and trains back to its step on the worker thread
(a 1 GiB corpus: a minute). Meanwhile the controller's live state is not the session's:
no trainer yet (step 0), or a trainer half-way to the step, or, while the corpus is
read, the corpus and settings of before. A save from that state (the autosave when the
window closes, Ctrl+S) wrote ``"step": 0`` and no ``furthest_step`` over the session
being restored (issue 30). So from the moment a restore starts until it has landed on
its step, a save writes the session being restored (with the view's own parts, such as
the encode text, as they are now).

It stays the one to write after its job ended short of the step (cancelled, failed,
a corpus file gone) as long as the window holds what that job left: the same corpus,
settings and trainer, at the same step. Once the user trains, steps, opens another
corpus or changes the settings, the live state is the session again.

Example (the states a save goes through)::

    r = Restoring(session)           # open_session: reading the corpus
    r.session_to_save(...)           # -> the session being restored
    ... the job lands on session.step ...
    r.job_ended(trainer)             # -> done: saves write the live state again
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...engine.train import Session


@dataclass
class Restoring:
    """One restore under way: the session it restores, the trainer the window had when
    it started (``before``), the corpus it set (None while its corpus is being read)
    and, once its job ended short of the step, what it left (the trainer, its step)."""

    session: Session
    before: Any = None
    corpus: Any = None
    left: tuple[Any, int] | None = None

    def landed(self, trainer) -> bool:
        """A trainer the restore built is at the session's step: the window holds the
        session whole."""
        return (self.corpus is not None and trainer is not None
                and trainer is not self.before and trainer.n_steps == self.session.step)

    def superseded(self, corpus, settings, trainer) -> bool:
        """The user moved on: another corpus or settings, or the trainer the ended job
        left was stepped or replaced."""
        if self.corpus is not None and (corpus is not self.corpus
                                        or settings != self.session.settings):
            return True
        if self.left is not None:
            was, steps = self.left
            return trainer is not was or (trainer is not None and trainer.n_steps != steps)
        return False

    def job_ended(self, trainer) -> bool:
        """Its job (and every callback of its end) is over; True if it landed (the
        restore is done), else it keeps what the job left to tell the user's next move
        (a corpus never read, a cancelled or failed run)."""
        if self.landed(trainer):
            return True
        self.left = (trainer, trainer.n_steps if trainer is not None else -1)
        return False
