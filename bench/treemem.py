"""Run a command and measure its time and the peak memory of its whole process tree.

"Memory" in every benchmark here is the peak, over the run, of the summed resident
memory (RSS) of the process and all its descendants (worker processes included),
sampled from /proc every 10 ms, plus each process's own high-water mark (VmHWM) as a
floor (a process that peaks between two samples is not missed). Linux only.

    from treemem import run_measured
    res = run_measured([sys.executable, "-c", "..."])   # {"secs", "peak_mb", "stdout", ...}
"""
from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")


def _children(pid: int) -> list[int]:
    kids = []
    task = Path(f"/proc/{pid}/task")
    try:
        for t in task.iterdir():
            try:
                kids += [int(x) for x in (t / "children").read_text().split()]
            except OSError:
                pass
    except OSError:
        pass
    return kids


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += _children(p)
    return out


def _rss_and_hwm(pid: int) -> tuple[int, int]:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0, 0
    rss = hwm = 0
    for line in text.splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) * 1024
        elif line.startswith("VmHWM:"):
            hwm = int(line.split()[1]) * 1024
    return rss, hwm


class TreeSampler:
    """Samples the summed RSS of a process tree until stopped."""

    def __init__(self, pid: int, interval: float = 0.01):
        self.pid, self.interval = pid, interval
        self.peak = 0
        self.hwm: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            total = 0
            for p in _tree(self.pid):
                rss, hwm = _rss_and_hwm(p)
                total += rss
                self.hwm[p] = max(self.hwm.get(p, 0), hwm)
            self.peak = max(self.peak, total)
            self._stop.wait(self.interval)

    def start(self) -> "TreeSampler":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def peak_bytes(self) -> int:
        # the sum of samples, or the largest single process's own high-water mark
        return max(self.peak, max(self.hwm.values(), default=0))


def run_measured(cmd: list[str], cwd: str | Path | None = None, env: dict | None = None,
                 timeout: float | None = None) -> dict:
    """Run cmd; return its wall time, peak tree memory (MB), exit code and output."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    sampler = TreeSampler(proc.pid).start()
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        sampler.stop()
    secs = time.perf_counter() - t0
    return {"secs": secs, "peak_mb": sampler.peak_bytes / 1e6, "returncode": proc.returncode,
            "stdout": out, "stderr": err, "n_procs": len(sampler.hwm)}
