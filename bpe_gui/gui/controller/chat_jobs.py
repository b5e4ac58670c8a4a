"""The Chat view's work off the GUI thread: reading its tokenizer and template files and
rendering its conversation (engine.chat), as controller jobs.

They run on a job runner of their own, beside the window's: a chat renders while a run
trains, and a render (a few milliseconds to a few seconds) never takes the status bar or
Cancel from the user's work. The newest render asked for supersedes the others: the one
running is asked to stop (its result is dropped), and at most one waits to run next.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QObject

from ...engine.formats import load_tokenizer
from .jobs import Done, Ended, IsCancelled, Job, nothing
from .worker import JobRunner


class ChatJobs(QObject):
    """``render(work, on_done, on_end)``: ``work(cancelled)`` on the worker thread, then
    ``on_done(result)`` on the GUI thread unless a newer render was asked for first."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._runner = JobRunner(self)
        self._runner.ended.connect(self._next)
        self._waiting: Job | None = None
        self._latest: Job | None = None
        self._opened: dict[tuple, Any] = {}   # (path, size, mtime) -> tokenizer
        self._stopped = False   # the window closed: no render starts any more

    def render(self, work: Callable[[IsCancelled], Any], on_done: Done,
               on_end: Ended = nothing) -> None:
        def latest(f: Callable[[Any], None]) -> Callable[[Any], None]:
            return lambda got: f(got) if job is self._latest else None
        job = Job("Rendering the chat", lambda _progress, cancelled: work(cancelled),
                  latest(on_done), latest(on_end), abandon=True)
        self._latest = job
        if self._stopped:
            return
        if self._runner.busy:
            self._runner.request_cancel()   # (its result is dropped: not the latest)
            self._waiting = job
        else:
            self._runner.start(job)

    def tokenizer(self, path: str):
        """The tokenizer in ``path``, for a render's ``work`` (on the worker thread): read
        once, again only when the file changed; the last two files kept (the view's and
        the one beside it). A BPEError says why it cannot be read."""
        try:
            st = Path(path).stat()
        except OSError:
            return load_tokenizer(path)   # (which says what is wrong with the path)
        key = (path, st.st_size, st.st_mtime_ns)
        if key not in self._opened:
            if len(self._opened) >= 2:
                self._opened.clear()
            self._opened[key] = load_tokenizer(path)
        return self._opened[key]

    def _next(self) -> None:
        job, self._waiting = self._waiting, None
        if job is not None:
            self._runner.start(job)

    def stop(self) -> None:
        """On close: the render running ends, none waits."""
        self._waiting, self._stopped = None, True
        self._runner.stop_and_wait()
