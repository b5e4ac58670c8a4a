"""Long work as job objects, in the manner of Anki's ``QueryOp``/``CollectionOp``: a
:class:`Job` carries what runs on the worker thread and its own callbacks on the GUI
thread, and every job ends with one typed :class:`JobEnd` (done, cancelled, dropped or
failed with its message). Nothing is dispatched by a string: whoever starts a job says
what to do with its result.

:class:`~.worker.JobRunner` runs them, one at a time, for the controller.

Example::

    jobs.start(Job("Reading big.txt", read, on_done=show, on_end=log, unit="bytes"))
    # later, on the GUI thread: show(result), then log(JobEnd(Outcome.DONE))
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Callable

Progress = Callable[[int, int], None]
IsCancelled = Callable[[], bool]
Work = Callable[[Progress, IsCancelled], Any]   # what a job runs on the worker thread


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


def nothing(*_args) -> None:
    pass


def phased(progress: Progress, set_phase: Callable[[str, str], None],
           label: Callable[[str], tuple[str, str]]) -> Callable[[str, int, int], None]:
    """The engine's ``progress(phase, done, total)`` as a job's ``progress(done,
    total)``: each new phase first sets the runner's label and unit (``label(phase)``)."""
    said = [""]

    def report(name: str, done: int, total: int) -> None:
        if name != said[0]:
            said[0] = name
            set_phase(*label(name))
        progress(done, total)
    return report


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
    run: Work
    on_done: Done = nothing
    on_end: Ended = nothing
    unit: str = ""
    abandon: bool = False
    owns_trainer: bool = False
    yields: bool = False
    title: str = ""
