"""The trainer run on the worker thread: to a step too far to step to at once, or to the
target; and what the window is told when a job that ran or built the trainer ends (where
it stopped, cancelled or done, and the views brought back to the trainer as it is).

:class:`TrainerRuns` is a part of the controller (``controller.runs``), given what it uses
of it: the trainer now (``trainer``), the trainer to run up to date or None (``ready``),
how to announce a step (``stepped``), to start a job (``start``), to say a status line
(``message``) and why training stops (``done_reason``), and the training part whose
session step to come back to is dropped when a job fails (``training``).
"""
from __future__ import annotations

from typing import Callable, Protocol

from ...engine.train import TrainerProtocol
from .jobs import Job, JobEnd, Outcome
from .live import LiveView
from .training_jobs import run_job


class LandsAt(Protocol):
    land_at: int | None   # after the next install, undo back to this step


class TrainerRuns:
    """Jobs that run the trainer on, and the end of every job that owns it."""

    def __init__(self, *, trainer: Callable[[], TrainerProtocol | None],
                 ready: Callable[[], TrainerProtocol | None], stepped: Callable[[], None],
                 start: Callable[[Job], bool], message: Callable[[str], None],
                 done_reason: Callable[[TrainerProtocol], str], training: LandsAt,
                 live: LiveView):
        self._trainer, self._ready, self._stepped = trainer, ready, stepped
        self._start, self._message, self._done_reason = start, message, done_reason
        self._training, self._live = training, live
        self.cancel_asked = False   # Cancel was pressed during the job running now

    def to_step(self, t: TrainerProtocol, k: int) -> bool:
        """Run ``t`` on to step ``k`` (a far jump forward)."""
        return self.run(f"Running to step {k:,}", run_job(t, k, self._live))

    def to_target(self) -> bool:
        """Train to the target (the toolbar's Train)."""
        t = self._ready()
        if t is None:
            return False
        if t.is_done:
            self._message(self._done_reason(t))
            return False
        return self.run("Training to target", run_job(t, None, self._live))

    def run(self, label: str, run) -> bool:
        """Run the trainer on, on the worker thread."""
        def done(_records) -> None:
            self._stepped()
            self.ran(label)
        return self._start(Job(label, run, done, self.trainer_job_ended, unit="merges",
                               owns_trainer=True, title="Cannot train on this corpus"))

    def ran(self, label: str) -> None:
        """A job ran the trainer (or built it): say where it stopped."""
        t = self._trainer()
        if t is None:
            return
        if self.cancel_asked:
            self._message(f"{label}: cancelled at step {t.n_steps:,}.")
        elif t.is_done:
            self._message(self._done_reason(t))

    def trainer_job_ended(self, end: JobEnd) -> None:
        """A job that ran or built the trainer ended otherwise than done: the views
        show the trainer as it is now."""
        if end.outcome is Outcome.FAILED:
            self._training.land_at = None
        if not end.done and self._trainer() is not None:
            self._stepped()
