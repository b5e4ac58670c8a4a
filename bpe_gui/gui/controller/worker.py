"""Long work off the GUI thread: one job at a time in a QThread, with progress and cancel.

A job (jobs.py) runs a plain function ``run(progress, cancelled) -> result``. ``progress(done,
total)`` may be called as often as the job likes; the runner forwards it only when
the shown percentage changes or 100 ms passed (Orange3's throttling idea), so the GUI
thread is never flooded. Cancel is a flag the job checks between units of work.

A job with ``abandon=True`` (or ``yields``) touches nothing the window uses (it builds a new
corpus or trainer): Cancel drops it at once, so the window is free again whatever
the job is doing, and the job's thread ends on its own when it next checks the flag;
whatever it returns then is thrown away.
"""
from __future__ import annotations

import threading
import time
import traceback
from typing import Callable

from PySide6.QtCore import QObject, QThread, Signal, Slot

from ...engine.errors import Cancelled
from ...engine.errors import BPEError
from ...engine.display import human_size
from .gc_policy import GCPause, GuiThreadCollector, release_freed_memory
from .jobs import Job, JobEnd, Outcome, Work, nothing


def describe_progress(label: str, done: int, total: int, unit: str = "") -> str:
    """The status bar's words for a progress report.

    Example: ("Reading big.txt", 312_000_000, 1_073_741_824, "bytes")
    -> 'Reading big.txt… 312 MB of 1.07 GB read (29%)'
    """
    if total <= 0:
        return f"{label}…"
    pct = 100 * min(done, total) // total
    if unit == "bytes":
        return f"{label}… {human_size(done)} of {human_size(total)} read ({pct}%)"
    if unit:
        return f"{label}… {done:,} of {total:,} {unit} ({pct}%)"
    return f"{label}… {pct}%"


class _Runner(QObject):
    # Python ints, not C ints: a corpus over 2 GiB counts bytes past 2**31 (a 32-bit
    # signal raised OverflowError at every report and showed no progress)
    progress = Signal(str, object, object)   # the phase's label when reported, done, total
    finished = Signal(object)
    failed = Signal(str, bool)      # message, is_user_error
    cancelled = Signal()

    def __init__(self, job: Work, cancel_flag: threading.Event, label: Callable[[], str]):
        super().__init__()
        self._job = job
        self._cancel = cancel_flag
        self._label = label
        self._last = (-1, 0.0, "")

    def _progress(self, done: int, total: int) -> None:
        # the label read here, not when the GUI thread takes the report: a phase that
        # ends before then is still reported under its own name (and a new phase always)
        done, total = int(done), int(total)
        pct = 100 * done // total if total > 0 else 0
        now, label = time.monotonic(), self._label()
        if pct != self._last[0] or now - self._last[1] > 0.1 or label != self._last[2]:
            self._last = (pct, now, label)
            self.progress.emit(label, done, total)

    @Slot()
    def run(self) -> None:
        try:
            result = self._job(self._progress, self._cancel.is_set)
        except Cancelled:
            self.cancelled.emit()
        except BPEError as e:
            self.failed.emit(str(e), True)
        except MemoryError:
            self.failed.emit("Out of memory. Try a smaller corpus or vocabulary.", True)
        except BaseException:  # noqa: BLE001  a bug (or a SystemExit from a library):
            # the job ends here with its trace, so the runner always hears of the end
            # and Qt's thread state stays sound; the app stays alive to report it
            self.failed.emit(traceback.format_exc(), False)
        else:
            self.finished.emit(result)  # a job that stopped early returns what it has


class JobRunner(QObject):
    """Runs the window's jobs (:class:`~.jobs.Job`), one at a time, on a worker thread,
    and ends each exactly once on the GUI thread: its ``on_done(result)`` if it
    finished, then its ``on_end(JobEnd)`` in every case, then ``ended``.

    ``report(title, message)`` shows a failure; ``say(line)`` writes a status line.
    """

    started = Signal(str)
    progress = Signal(str, object, object)     # label, done, total (Python ints)
    finished = Signal(str, object)
    failed = Signal(str, str, bool)
    cancelled = Signal(str)
    cancelRequested = Signal(str)   # at once, before the job stops: for "Cancelling..."
    busyChanged = Signal(bool)
    ended = Signal()   # a job's end, after its callbacks (on_done, on_end) have run

    def __init__(self, parent: QObject | None = None,
                 report: Callable[[str, str], None] = nothing,
                 say: Callable[[str], None] = nothing):
        super().__init__(parent)
        self._report, self._say = report, say
        self._thread: QThread | None = None
        self._runner: _Runner | None = None
        self._cancel = threading.Event()
        self._dropped: list[tuple[QThread, _Runner | None]] = []   # abandoned, still ending
        GuiThreadCollector.install()   # no collection in the middle of a paint
        self.job: Job | None = None
        self._dropping = False
        # on every cancelled end, before busyChanged: the controller keeps the merges of
        # a trainer the job was running
        self.keep_running: Callable[[], None] = nothing
        self.label = ""
        self.unit = ""      # what progress counts: "bytes", "merges" or "" (a share)

    @property
    def busy(self) -> bool:
        return self._thread is not None

    @property
    def owns_trainer(self) -> bool:
        return self.busy and self.job is not None and self.job.owns_trainer

    @property
    def ending(self) -> int:
        """Jobs dropped on Cancel whose threads have not ended yet."""
        return len(self._dropped)

    def free(self) -> bool:
        """Room for the user's job; False, and a status line, while another runs. A
        yielding job (e.g. classifying tokens for the vocabulary browser) gives way: it
        only works on copies, and its widget asks for it again later (its end says
        DROPPED)."""
        if self.busy and self.job is not None and self.job.yields:
            self._dropping = True
            try:
                self.abandon()
            finally:
                self._dropping = False
        if self.busy:
            self._say("Busy: wait for the running job or cancel it (Esc).")
            return False
        return True

    def start(self, job: Job) -> bool:
        """Run ``job``; False (and a status line) if another job runs."""
        if not self.free():
            return False
        self.job = job   # before it starts: a listener of busyChanged may cancel it at once
        self.label, self.unit = job.label, job.unit
        self._cancel = threading.Event()
        thread = QThread()
        runner = _Runner(job.run, self._cancel, lambda: self.label)
        runner.moveToThread(thread)
        thread.started.connect(runner.run)
        # Bound slots of this GUI-thread object: Qt queues them to the GUI thread
        # (a lambda would run in the worker thread and could not wait for it).
        runner.progress.connect(self._on_progress)
        runner.finished.connect(self._on_finished)
        runner.failed.connect(self._on_failed)
        runner.cancelled.connect(self._on_cancelled)
        self._thread, self._runner = thread, runner
        GCPause.job_started()
        self.busyChanged.emit(True)
        self.started.emit(job.label)
        thread.start()
        return True

    def set_phase(self, label: str, unit: str = "") -> None:
        """From the job: what it does now (e.g. reading bytes, then merging); the next
        progress report carries it. (Two plain attribute writes: safe from any thread.)"""
        self.label, self.unit = label, unit

    @Slot(str, object, object)
    def _on_progress(self, label: str, done: int, total: int) -> None:
        if self._thread is not None and self.sender() is self._runner:
            self.progress.emit(label, done, total)

    @Slot(object)
    def _on_finished(self, result: object) -> None:
        job, label = self._done(), self.label
        if job is None:
            return
        release_freed_memory()   # what the job freed (its reading, records it replaced)
        self.busyChanged.emit(False)
        job.on_done(result)
        job.on_end(JobEnd(Outcome.DONE))
        self.ended.emit()
        self.finished.emit(label, result)

    @Slot(str, bool)
    def _on_failed(self, message: str, user_error: bool) -> None:
        job, label = self._done(), self.label
        if job is None:
            return
        self.busyChanged.emit(False)
        if user_error:
            self._report(job.title or label, message)
            why = message
        else:
            self._report(f"{label}: unexpected error (please report it)", message)
            why = f"Unexpected error: {message.strip().splitlines()[-1]}"
        job.on_end(JobEnd(Outcome.FAILED, why))
        self.ended.emit()
        self.failed.emit(label, message, user_error)

    @Slot()
    def _on_cancelled(self) -> None:
        job = self._done()
        if job is not None:
            self._end_cancelled(job)

    def _end_cancelled(self, job: Job) -> None:
        """The running job ended cancelled (or was dropped): the merges of a trainer it
        was running are kept first (``keep_running``)."""
        label, quiet = self.label, self._dropping
        self.keep_running()
        self.busyChanged.emit(False)
        job.on_end(JobEnd(Outcome.DROPPED if quiet else Outcome.CANCELLED))
        if not quiet:   # a yielding job is dropped for the user's action: no news
            self._say(f"{job.label}: cancelled.")
        self.ended.emit()
        self.cancelled.emit(label)

    def _done(self) -> Job | None:
        """The thread of the job that sent this has ended: the job, or None when it was
        dropped on Cancel (its outcome no longer counts)."""
        runner = self.sender()
        if self._thread is None or runner is not self._runner:
            self._end_dropped(runner)
            return None
        thread, self._thread, self._runner = self._thread, None, None
        thread.quit()
        thread.wait()
        GCPause.job_ended()
        job, self.job = self.job, None
        return job

    def _end_dropped(self, runner) -> None:
        for i, (thread, r) in enumerate(self._dropped):
            if r is runner:
                del self._dropped[i]
                thread.quit()
                thread.wait()
                GCPause.job_ended()
                return

    def request_cancel(self) -> None:
        """Ask the job to stop (it checks the flag between units of work)."""
        if self._thread is not None and not self._cancel.is_set():
            self._cancel.set()
            self.cancelRequested.emit(self.label)

    def abandon(self) -> bool:
        """Drop a job that may be dropped (``abandon`` or ``yields``) now: it ends
        cancelled at once, the thread ends by itself later and its result is ignored."""
        job = self.job
        if self._thread is None or job is None or not (job.abandon or job.yields):
            return False
        self._cancel.set()
        self._dropped.append((self._thread, self._runner))
        self._thread, self._runner, self.job = None, None, None
        self._end_cancelled(job)
        return True

    def stop_and_wait(self, timeout_ms: int = 10_000) -> None:
        """On close: ask the jobs to stop and wait for their threads."""
        if self._thread is not None:
            self._cancel.set()
            self._dropped.append((self._thread, self._runner))
            self._thread, self._runner = None, None  # its outcome no longer counts
        for thread, _ in list(self._dropped):
            thread.quit()
            if thread.wait(timeout_ms):
                GCPause.job_ended()
        self._dropped.clear()
