"""Counting a corpus on a Dask cluster (``bpe-gui count ... --dask ADDRESS``).

The files are split into byte ranges (``ranges.py``; a compressed file is one range),
each range is counted on a worker by the native counter, and the partial tables are
summed tree-wise on the workers (``fan_in`` at a time), so only the final table comes
back to this process: its memory is bounded by the table, not by the corpus or the
number of ranges. Words keep their order of first appearance: ranges are numbered in
corpus order and every word's key carries its range's number (see ``ranges.py``).

Dask is optional (``pip install "bpe-gui[dask]"``) and imported only here, only when
used. ``address`` is ``local`` or ``local:N`` (a LocalCluster of N worker processes, one
thread each, on the loopback interface, no dashboard) or a scheduler's
``tcp://HOST:PORT``; or pass a ``distributed.Client`` you made yourself.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Sequence

from ..display import bpe_gui_version
from .table import CountMeta
from ..errors import BPEError, CorpusError, EmptyCorpusError, SettingsError
from ..text.pretokenize import Pretokenizer
from .range_count import count_range, merge_partials, table_of
from .ranges import RANGE_BYTES, is_url, plan_ranges
from .word_limit import split_long_words
import regex

INSTALL_HINT = 'pip install "bpe-gui[dask]"'
FAN_IN = 8
POLL_S = 0.5          # a wait for the workers' results looks at the cluster this often
# how long a count waits on a cluster with no workers for some to come (back) before it
# gives up: a nanny restarts a worker that died in a few seconds; one that cannot, or a
# worker without a nanny, never comes back, and the tasks would wait forever
NO_WORKERS_S = 30.0


REMOTE_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
# a worker process: Python, bpe-gui and Dask (about 150 MB) plus a range and its table
WORKER_BASE_BYTES = 256 << 20


def parse_address(address: str) -> tuple[str, int | str]:
    """'local' -> ('local', cores); 'local:2' -> ('local', 2); 'tcp://h:8786' -> ('remote', ...).
    A malformed address is a SettingsError that says what is expected.

    Example: ``parse_address("local:2") -> ("local", 2)``.
    """
    a = address.strip()
    if a == "local" or a.startswith("local:"):
        n = a.partition(":")[2]
        if not n:
            return "local", os.cpu_count() or 1
        if not n.isdigit() or int(n) < 1:
            raise SettingsError(f"--dask {address}: the number of workers after 'local:' must "
                                "be a whole number of at least 1, e.g. local:4.")
        return "local", int(n)
    if "://" in a:
        scheme, _, rest = a.partition("://")
        host, _, port = rest.rpartition(":")
        if scheme not in REMOTE_SCHEMES:
            why = ("inproc addresses only work inside one process" if scheme == "inproc"
                   else f"{scheme!r} is not a Dask protocol")
            raise SettingsError(f"--dask {address}: {why}; give a scheduler address such as "
                                "tcp://HOST:8786, or local.")
        if not host.strip("[]") or not port.isdigit() or not 0 < int(port) < 65536:
            raise SettingsError(f"--dask {address}: a scheduler address needs a host and a "
                                "port, e.g. tcp://HOST:8786 (dask scheduler prints it).")
        return "remote", a
    raise SettingsError(f"--dask {address}: give local, local:N (N worker processes on this "
                        "machine) or a scheduler address such as tcp://HOST:8786.")


def available_memory() -> int | None:
    """Bytes of memory free for new processes (Linux: MemAvailable), or None if unknown."""
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def local_workers(wanted: int, range_bytes: int = RANGE_BYTES) -> tuple[int, str | None]:
    """How many local worker processes to start for ``local:wanted``: at most one per core
    (each counts with one thread) and as many as free memory holds (a worker needs about
    ``WORKER_BASE_BYTES`` plus twice a range). Returns (workers, why fewer, or None)."""
    cores = os.cpu_count() or 1
    free = available_memory()
    per = WORKER_BASE_BYTES + 2 * range_bytes
    by_memory = max(1, free // per) if free is not None else wanted
    n = max(1, min(wanted, cores, by_memory))
    if n == wanted:
        return n, None
    mem = f" and {free / (1 << 30):.1f} GiB of free memory" if free is not None else ""
    return n, (f"--dask local:{wanted}: this machine has {cores} core(s){mem}, so {n} "
               f"worker process(es) count (one per core, about {per >> 20} MB each).")


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise SettingsError("Counting on Dask needs Dask's distributed scheduler, which is "
                            f"not installed. Install it with: {INSTALL_HINT}") from None
    return distributed


@contextmanager
def dask_client(address):
    """A Client for ``address`` (see the module docstring); a LocalCluster it starts
    is shut down on leaving."""
    distributed = _import_distributed()
    if not isinstance(address, str):
        yield address          # a Client made by the caller: theirs to close
        return
    kind, where = parse_address(address)
    if kind == "local":
        where, _ = local_workers(int(where))   # the caller says why, if it wants to
        cluster = distributed.LocalCluster(
            n_workers=where, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, silence_logs=logging.CRITICAL)  # errors reach us anyway
        with cluster, distributed.Client(cluster) as client:
            yield client
        return
    try:
        client = distributed.Client(where, timeout="20s")
    except (OSError, TimeoutError, ValueError) as e:
        raise SettingsError(f"Cannot reach the Dask scheduler at {where} ({e}). Start one "
                            "with `dask scheduler` and workers with `dask worker "
                            f"{where}`, or use --dask local.") from None
    with client:
        yield client


def worker_versions() -> tuple[str, str, str]:
    """What a worker would count with: bpe-gui, regex and its scanner's tables."""
    try:
        from . import _count
        tables = _count.tables_version()
    except ImportError:
        tables = "no C extension"
    return bpe_gui_version() or "unknown", regex.__version__, tables


def check_workers(client) -> None:
    """Refuse workers whose bpe-gui or regex differ from ours: they could cut words
    differently (the Unicode classes come from regex)."""
    here = worker_versions()
    try:
        theirs = client.run(worker_versions)
    except Exception as e:  # noqa: BLE001 - e.g. bpe_gui not importable on a worker
        raise SettingsError(f"The Dask workers cannot run bpe-gui ({type(e).__name__}: {e}). "
                            "Install the same bpe-gui on every worker (with its C "
                            "extensions).") from None
    if not theirs:
        raise SettingsError("The Dask cluster has no workers. Start some with `dask worker "
                            "SCHEDULER-ADDRESS`.")
    for worker, v in theirs.items():
        if tuple(v) != here:
            raise SettingsError(
                f"Dask worker {worker} has bpe-gui {v[0]}, regex {v[1]} (scanner tables "
                f"{v[2]}), but this machine has bpe-gui {here[0]}, regex {here[1]} "
                f"({here[2]}): words could be cut differently. Install the same versions "
                "everywhere.")


def tree_reduce(client, futures: list, fan_in: int = FAN_IN):
    """Sum partial tables on the workers, ``fan_in`` at a time, up to one future."""
    level = list(futures)
    while len(level) > 1:
        level = [client.submit(merge_partials, *level[i:i + fan_in], pure=False)
                 for i in range(0, len(level), fan_in)]
    return level[0]


class WorkerWatch:
    """Ends a wait on a cluster that has had no workers for ``patience`` seconds: tasks
    wait for workers without end, so a count whose workers all died and none came back
    would hang with no word (a SettingsError saying so instead)."""

    def __init__(self, client, patience: float):
        self.client = client
        self.patience = patience
        self.since: float | None = None   # when the cluster was first seen without workers

    def check(self) -> None:
        n = len(self.client.nthreads(callback_timeout=max(10.0, self.patience)))
        if n:
            self.since = None
            return
        now = time.monotonic()
        if self.since is None:
            self.since = now
        elif now - self.since >= self.patience:
            raise SettingsError(
                "Dask workers kept dying while counting: the cluster was left with no worker "
                f"for {self.patience:g} s (each died, often for want of memory, and none came "
                "back to stay). Give the workers more memory, count smaller ranges "
                "(--range-size 16M), or start fewer workers per machine; nothing was written.")


def _result(fut, watch: WorkerWatch, between: Callable[[], None] | None = None):
    """``fut.result()``, waited for ``POLL_S`` at a time, ``between()`` and the watch on the
    cluster's workers after each wait in which it did not finish. (An event, not Dask's
    waits with a timeout: their TimeoutError's traceback would hold futures, and so their
    results on the workers, until the garbage collector runs.)"""
    finished = threading.Event()
    fut.add_done_callback(lambda _: finished.set())
    while not finished.wait(POLL_S):
        watch.check()
        if between is not None:
            between()
    return fut.result()


def _count_ranges(client, distributed, paths, pre, range_bytes, fan_in, progress,
                  watch: WorkerWatch, lines: bool = False):
    """The partial tables counted on the workers and summed there: (the sum, the ranges,
    the paths the workers read)."""
    # workers may run elsewhere: they get absolute paths (the table records them as given)
    work = [p if is_url(p) else os.path.abspath(p) for p in paths]
    ranges = _result(client.submit(plan_ranges, work, range_bytes, pure=False), watch)
    total = sum(r.stop - r.start for r in ranges)
    counted = client.map(count_range, ranges, pattern=pre.preset or pre.pattern,
                         specials=list(pre.special_tokens), lines=lines, pure=False)
    final = tree_reduce(client, counted, fan_in)
    size_of = {f.key: r.stop - r.start for f, r in zip(counted, ranges)}
    done = 0
    pending = distributed.as_completed(counted)
    del counted          # merged partials are dropped on the workers once summed

    def report(batch) -> None:
        nonlocal done
        for fut in batch:
            if fut.status == "finished":
                done += size_of.pop(fut.key)
                if progress is not None:
                    progress(done, total)

    # the sum finishes last, or errs at once with the first range that fails (its error
    # raised here, as itself: the partial table never comes here): waited for with the
    # watch, the ranges' progress reported between waits, then the rest of it
    try:
        part = _result(final, watch, lambda: report(pending.next_batch(block=False)))
        report(pending)
    except BaseException:
        pending.clear()   # no future of a range left here: the workers free their tables
        raise
    return part, ranges, work


def _is_cluster_failure(e: Exception, distributed) -> bool:
    """Workers that died, a scheduler that went away, a connection that broke."""
    import asyncio   # (dask's own: imported here, where dask already has it, not at start)
    return isinstance(e, (distributed.KilledWorker, OSError, TimeoutError,
                          asyncio.CancelledError)) or \
        type(e).__module__.split(".")[0] in ("distributed", "tornado")


def cluster_failure_message(e: Exception) -> str:
    if isinstance(e, (FileNotFoundError, PermissionError, IsADirectoryError)):
        return (f"A corpus file cannot be read on the Dask workers ({type(e).__name__}: {e}). "
                "Workers read the files themselves: use a filesystem every worker sees, or "
                "an fsspec URL; nothing was written.")
    if type(e).__name__ == "KilledWorker":
        return ("Dask workers kept dying while counting (KilledWorker: a task was tried on "
                "workers that each died, often for want of memory). Give the workers more "
                "memory, count smaller ranges (--range-size 16M), or start fewer workers per "
                "machine; nothing was written.")
    return (f"The Dask cluster failed while counting ({type(e).__name__}: {e}). Check that "
            "the scheduler and its workers are running; nothing was written.")


def count_on_dask(paths: Sequence[str | Path], pre: Pretokenizer, address="local", *,
                  range_bytes: int = RANGE_BYTES, fan_in: int = FAN_IN,
                  progress: Callable[[int, int], None] | None = None,
                  no_workers_s: float | None = None, lines: bool = False):
    """Count files (local paths on a filesystem every worker sees, or fsspec URLs) on a
    Dask cluster; returns the PretokenTable with its ``meta``, equal to what
    ``count_corpus`` makes of the same files (``lines``: each line a text of its own). ``progress(done, total)`` reports bytes.
    A cluster left without workers for ``no_workers_s`` seconds (default
    ``NO_WORKERS_S``) ends the count with a SettingsError."""
    distributed = _import_distributed()
    paths = [str(p) for p in paths]
    if not paths:
        raise CorpusError("No corpus files were given. Pass at least one text file.")
    try:
        with dask_client(address) as client:
            check_workers(client)
            watch = WorkerWatch(client, NO_WORKERS_S if no_workers_s is None else no_workers_s)
            part, ranges, work = _count_ranges(client, distributed, paths, pre, range_bytes,
                                               fan_in, progress, watch, lines)
    except BPEError:
        raise          # the count's own errors (a file not found, not UTF-8 ...) as themselves
    except Exception as e:  # noqa: BLE001 - Dask's failures, told as one message
        if not _is_cluster_failure(e, distributed):
            raise
        raise SettingsError(cluster_failure_message(e)) from None
    table = split_long_words(table_of(part))   # as count_corpus does
    del part
    if not len(table):
        raise EmptyCorpusError("The corpus is empty (no words after pre-tokenization). Type or "
                          "paste some text, or open a non-empty file.")
    sizes: dict[str, int] = {}
    for r in ranges:
        sizes.setdefault(r.path, r.size)
    sources = [{"path": p, "bytes": sizes[w]} for p, w in zip(paths, work)]
    table.meta = CountMeta.for_counting(pre, sources, lines).with_totals(table)
    return table
