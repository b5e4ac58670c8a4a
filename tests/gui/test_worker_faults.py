"""Jobs on the worker thread (issue 23): counts past 2**31 travel whole, and a job that
raises ends with a message and leaves the window working."""
from __future__ import annotations

import threading

import pytest

from bpe_gui.gui.controller.jobs import Job, Outcome


def test_progress_past_2_gib_reaches_the_status_bar(window, qtbot, ready):
    c = window.controller
    ready(c)
    seen, release = [], threading.Event()
    c.progress.connect(lambda label, done, total: seen.append((done, total)))

    def job(progress, cancelled):
        progress(3_000_000_000, 6_000_000_000)     # a 6 GB corpus half read
        release.wait(10)
        return "read"
    assert c.start(Job("Reading big.txt", job, unit="bytes"))
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    label = window.status.progress_label.text()
    release.set()
    qtbot.waitUntil(lambda: not c.busy, timeout=5000)
    assert seen[0] == (3_000_000_000, 6_000_000_000)
    assert "3.00 GB of 6.00 GB read (50%)" in label


@pytest.mark.parametrize("exc", [RuntimeError("boom in a job"), SystemExit(3),
                                 KeyboardInterrupt(), OverflowError("boom in a job")])
def test_a_job_that_raises_ends_with_a_message_and_the_window_stays_usable(
        window, qtbot, ready, exc):
    c = window.controller
    ready(c)
    ended = []

    def job(progress, cancelled):
        progress(1, 2)
        raise exc
    assert c.start(Job("A job with a bug", job, on_end=ended.append))
    qtbot.waitUntil(lambda: bool(ended), timeout=5000)
    assert not c.busy
    end, = ended
    assert end.outcome is Outcome.FAILED and type(exc).__name__ in end.message
    title, message = window.status.last_error
    assert "A job with a bug" in title and type(exc).__name__ in message
    # the window goes on: step, train on the worker thread, another job
    assert c.goto(3) and c.step_index == 3
    done = []
    assert c.start(Job("Another job", lambda p, x: 42, on_done=done.append,
                       on_end=lambda end: done.append(end.outcome)))
    qtbot.waitUntil(lambda: len(done) == 2, timeout=5000)
    assert done == [42, Outcome.DONE]
