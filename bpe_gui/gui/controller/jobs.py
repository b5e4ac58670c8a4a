"""Long work as job objects, in the manner of Anki's ``QueryOp``/``CollectionOp``: a
:class:`Job` carries what runs on the worker thread and its own callbacks on the GUI
thread, and every job ends with one typed :class:`JobEnd` (done, cancelled, dropped or
failed with its message). Nothing is dispatched by a string: whoever starts a job says
what to do with its result.

:class:`JobSlot` runs them, one at a time, on the controller's :class:`JobRunner`.

Example::

    slot.start(Job("Reading big.txt", read, on_done=show, on_end=log, unit="bytes"))
    # later, on the GUI thread: show(result), then log(JobEnd(Outcome.DONE))
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from .gc_policy import release_freed_memory
from .worker import JobRunner

Progress = Callable[[int, int], None]
IsCancelled = Callable[[], bool]


class Outcome(enum.Enum):
    DONE = "done"
    CANCELLED = "cancelled"   # by the user (Cancel, Esc)
    DROPPED = "dropped"       # a yielding job, dropped for the user's training action
    FAILED = "failed"         # JobEnd.message says why (already reported to the user)


@dataclass(frozen=True)
class JobEnd:
    outcome: Outcome
    message: str = ""

    @property
    def done(self) -> bool:
        return self.outcome is Outcome.DONE


Done = Callable[[Any], None]         # a job's on_done(result)
Ended = Callable[[JobEnd], None]     # a job's on_end(JobEnd)


def _nothing(*_args) -> None:
    pass


def refused(on_end: Ended, why: str) -> bool:
    """A job refused before it starts: its end says why (FAILED); False."""
    on_end(JobEnd(Outcome.FAILED, why))
    return False


@dataclass
class Job:
    """``run(progress, cancelled) -> result`` on the worker thread; then, on the GUI
    thread, ``on_done(result)`` if it finished and ``on_end(JobEnd)`` in every case.

    ``abandon``: Cancel drops it at once (it builds something new from copies, so its
    late result is thrown away). ``unit``: what its progress counts ("bytes",
    "merges", "" for a share). ``owns_trainer``: it steps or replaces the trainer, so
    widgets may not read it meanwhile. ``yields``: the user's training actions drop it
    (its widget asks again later). ``title``: the error box's title if it fails with a
    user error (default: the label).
    """

    label: str
    run: Callable[[Progress, IsCancelled], Any]
    on_done: Done = _nothing
    on_end: Ended = _nothing
    unit: str = ""
    abandon: bool = False
    owns_trainer: bool = False
    yields: bool = False
    title: str = ""


class JobSlot(QObject):
    """The one running job: starts it on the runner and ends it exactly once.

    ``report(title, message)`` shows a failure; ``say(line)`` writes a status line.
    """

    busyChanged = Signal(bool)
    ended = Signal()   # a job's end, after its callbacks (on_done, on_end) have run

    def __init__(self, report: Callable[[str, str], None], say: Callable[[str], None],
                 parent: QObject | None = None):
        super().__init__(parent)
        self.runner = JobRunner(self)
        self.runner.started.connect(lambda _: self.busyChanged.emit(True))
        self.runner.finished.connect(self._finished)
        self.runner.failed.connect(self._failed)
        self.runner.cancelled.connect(lambda _label: self.end_cancelled(self.keep_running))
        self._report, self._say = report, say
        # on every cancelled end, before busyChanged: the controller keeps the merges of
        # a trainer the job was running
        self.keep_running: Callable[[], None] = _nothing
        self.job: Job | None = None
        self._dropping = False

    @property
    def busy(self) -> bool:
        return self.runner.busy

    @property
    def owns_trainer(self) -> bool:
        return self.busy and self.job is not None and self.job.owns_trainer

    def start(self, job: Job) -> bool:
        """Run ``job``; False (and a status line) if another job runs."""
        if not self.free():
            return False
        self.job = job   # before it starts: a listener of busyChanged may cancel it at once
        return self.runner.start(job.label, job.run, abandon=job.abandon or job.yields,
                                 unit=job.unit)

    def free(self) -> bool:
        """Room for the user's job; False, and a status line, while another runs. A
        yielding job (e.g. classifying tokens for the vocabulary browser) gives way: it
        only works on copies, and its widget asks for it again later (its end says
        DROPPED)."""
        if self.busy and self.job is not None and self.job.yields:
            self._dropping = True
            try:
                self.runner.abandon()
            finally:
                self._dropping = False
        if self.busy:
            self._say("Busy: wait for the running job or cancel it (Esc).")
            return False
        return True

    def _take(self) -> Job | None:
        job, self.job = self.job, None
        return job

    def _finished(self, label: str, result) -> None:
        release_freed_memory()   # what the job freed (its reading, records it replaced)
        job = self._take()
        self.busyChanged.emit(False)
        if job is not None:
            job.on_done(result)
            job.on_end(JobEnd(Outcome.DONE))
        self.ended.emit()

    def _failed(self, label: str, message: str, user_error: bool) -> None:
        job = self._take()
        self.busyChanged.emit(False)
        if user_error:
            self._report((job.title if job is not None else "") or label, message)
            why = message
        else:
            self._report(f"{label}: unexpected error (please report it)", message)
            why = f"Unexpected error: {message.strip().splitlines()[-1]}"
        if job is not None:
            job.on_end(JobEnd(Outcome.FAILED, why))
        self.ended.emit()

    def end_cancelled(self, before_busy: Callable[[], None] = _nothing) -> None:
        """The running job ended cancelled (or dropped); ``before_busy`` runs first
        (e.g. keep the merges of a trainer it was running)."""
        job, quiet = self._take(), self._dropping
        before_busy()
        self.busyChanged.emit(False)
        if job is not None:
            job.on_end(JobEnd(Outcome.DROPPED if quiet else Outcome.CANCELLED))
            if not quiet:   # a yielding job is dropped for the user's action: no news
                self._say(f"{job.label}: cancelled.")
        self.ended.emit()
