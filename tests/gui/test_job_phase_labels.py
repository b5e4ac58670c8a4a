"""A job's progress reports carry the label of the phase they were made in
(gui/controller/worker.py), even when the GUI thread takes them only after the job has
moved on: fast phases (a parity run's reading, then plain BPE's curve) are each shown
under their own name, and a new phase is reported even at the share of the last report."""
from __future__ import annotations

import threading

from bpe_gui.gui.controller.jobs import Job
from bpe_gui.gui.controller.worker import JobRunner


def test_each_phase_is_reported_under_its_own_label(qtbot):
    runner = JobRunner()
    labels: list[str] = []
    runner.progress.connect(lambda label, done, total: labels.append(label))
    ended = threading.Event()

    def job(progress, cancelled):
        runner.set_phase("first", "")
        progress(1, 4)
        runner.set_phase("second", "")
        progress(1, 4)   # the same share as the report before, at once
        runner.set_phase("third", "")
        progress(3, 4)
        ended.set()
        return 7

    with qtbot.waitSignal(runner.finished, timeout=10_000) as got:
        assert runner.start(Job("start", job))
        # the GUI thread takes no report until the job has made them all
        assert ended.wait(10)
    assert got.args == ["third", 7]
    assert labels == ["first", "second", "third"]
