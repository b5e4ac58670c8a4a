"""Plain text files counted on threads that each read their own byte ranges.

With one reading thread that cuts blocks for every counting thread, the reading (file
reads, safe cuts, the UTF-8 check, the Python steps of each block) is done once for all
and does not scale. Here the files are split into ranges (``ranges.plan_ranges``), a few
per thread, and each thread takes the next range in corpus order, finds the range's real
ends at safe boundaries (``range_count.range_ends``: both neighbours of a cut find the same
one, so the ranges' words are exactly the file's) and reads and counts it in blocks into
its own counter, as ``range_count.count_range`` counts a Dask range. First appearance:
range k's words are numbered with block numbers from ``k << SUB_BITS``, so the threads'
tables merge into the order of one pass over the corpus.

Only plain UTF-8 text files take this path (``rangeable``): a compressed file cannot be
entered in the middle and a .jsonl file or another encoding is read by the block reader.
"""
from __future__ import annotations

import copy
import threading
from pathlib import Path
from typing import Callable

from . import blocks
from .blocks import BlockReader, Boundaries, _is_utf8
from .files import STDIN, _check_path, inner_suffix, open_binary
from .range_count import RangeCounter, _stream_text, range_ends
from .ranges import COMPRESSED, Range, plan_ranges
from ..errors import CancelFn, Cancelled, ProgressFn
from ..text.pretokenize import Pretokenizer

POLL_S = 0.05          # how often the waiting thread looks at the cancel flag
RANGES_PER_THREAD = 8  # more ranges than threads: a thread slowed by other work takes fewer
MIN_RANGE = 1 << 20    # below this a range is mostly its two boundary searches


def rangeable(reader: BlockReader) -> bool:
    """Whether the reader's sources can be read in ranges: plain UTF-8 text files only."""
    return not reader.texts and reader.stream is None and _is_utf8(reader.encoding) \
        and bool(reader.paths) and all(
            str(p) != STDIN and not p.name.lower().endswith(COMPRESSED)
            and inner_suffix(p) != ".jsonl" for p in reader.paths)


def range_size(total: int, workers: int) -> int:
    """Nominal bytes per range: a few ranges per thread, none tiny."""
    return max(MIN_RANGE, -(-total // (RANGES_PER_THREAD * workers)))


class _Stopped(Exception):
    """A range given up: cancelled, or a range before it failed."""


class _Shared:
    """What the counting threads share: the next range, the first failure, progress."""

    def __init__(self, ranges: list[Range], workers: int):
        self.ranges = ranges
        self.lock = threading.Lock()
        self.next = 0
        self.cancelled = False
        self.failed_at = len(ranges)            # ranges past a failed one are given up
        self.errors: dict[int, BaseException] = {}
        self.done = [0] * workers               # bytes read by each thread
        self.read = threading.Event()           # set after each block read and at a finish
        self.finished = 0                       # threads finished (not the calling one)
        self.cuts = [0] * workers               # of giant words, by each thread

    def take(self) -> Range | None:
        with self.lock:
            if self.next >= min(len(self.ranges), self.failed_at) or self.cancelled:
                return None
            self.next += 1
            return self.ranges[self.next - 1]

    def fail(self, index: int, e: BaseException) -> None:
        with self.lock:
            self.errors[index] = e
            self.failed_at = min(self.failed_at, index)

    def live(self, index: int) -> bool:
        return not self.cancelled and index < self.failed_at


def count_ranges(reader: BlockReader, pre: Pretokenizer, counters: list, progress: ProgressFn | None,
                 cancel: CancelFn | None) -> int:
    """Count every file of ``reader`` (``rangeable``) into ``counters``, one thread each,
    the calling thread among them (a thread of its own would be one more malloc arena
    kept resident to the end of the process).

    The first error in corpus order is raised, as reading the files in one pass would
    raise it. ``cancel()`` is polled, and progress reported, between the calling
    thread's blocks, then every POLL_S and after each block read while it waits for
    the others; :class:`Cancelled` is raised at once, and the other threads give up
    their range at their next block. Returns the cuts made in giant words (word_limit)."""
    total = reader.total
    for p in reader.paths:   # (what the block reader would say of each, in order)
        _check_path(p)
    size = range_size(total, len(counters))
    shared = _Shared(plan_ranges([str(p) for p in reader.paths], size), len(counters))
    bounds = copy.copy(reader.bounds)
    if bounds.native is not None:
        # A thread's blocks stay resident in its malloc arena to the end of the process,
        # so each holds small ones; the reader's larger blocks (LARGE_INPUT) only save
        # one thread's Python steps, which here are spread over all of them.
        bounds.block_bytes = blocks.BLOCK_BYTES
    threads = [threading.Thread(target=_thread_work, args=(bounds, pre, c, k, shared),
                                daemon=True, name="bpe-count")
               for k, c in enumerate(counters) if k]
    shown = -1

    def poll() -> None:
        nonlocal shown
        if cancel is not None and cancel():
            raise Cancelled()
        if progress is not None and sum(shared.done) != shown:
            shown = sum(shared.done)
            progress(min(shown, total), total)

    for t in threads:
        t.start()
    try:
        _work(bounds, pre, counters[0], 0, shared, poll)
        while True:
            # cleared before the count is read: a thread that finishes after the read
            # sets the event after the clear, and the wait below returns at once
            shared.read.clear()
            if shared.finished == len(threads):
                break
            poll()
            shared.read.wait(POLL_S)    # (woken after each block read and at each finish)
    except BaseException:
        shared.cancelled = True
        raise
    if shared.errors:
        raise shared.errors[min(shared.errors)]
    for t in threads:   # (finished: their last steps out of the loop)
        t.join()
    return sum(shared.cuts)


def _thread_work(bounds: Boundaries, pre: Pretokenizer, counter, k: int,
                 shared: _Shared) -> None:
    """A counting thread: :func:`_work`, then its finish counted and the waiting calling
    thread woken (a poll's timeout would be its idle wait, the whole run waiting)."""
    try:
        _work(bounds, pre, counter, k, shared)
    finally:
        with shared.lock:
            shared.finished += 1
        shared.read.set()


def _work(bounds: Boundaries, pre: Pretokenizer, counter, k: int, shared: _Shared,
          poll: Callable[[], None] | None = None) -> None:
    """Take ranges until none is left; an error in one is kept for the caller (``poll``,
    on the calling thread, raises what stops everything: Cancelled, KeyboardInterrupt)."""
    rc = RangeCounter(pre, 0, bounds.lines, counter)
    while (rng := shared.take()) is not None:
        try:
            rc.start(rng.index)
            _count_range(rng, bounds, rc, shared, k, poll)
            shared.cuts[k] = rc.cuts
        except _Stopped:
            return
        except Cancelled:
            raise
        except Exception as e:  # noqa: BLE001 - raised by the calling thread
            shared.fail(rng.index, e)
            return


def _count_range(rng: Range, bounds: Boundaries, rc: RangeCounter, shared: _Shared,
                 k: int, poll: Callable[[], None] | None = None) -> None:
    """One range of a plain text file, from the boundary of its start to that of its
    stop (``range_count.count_range``'s reading, with progress and giving up).

    ``open_binary`` names the file in a read error; an error of the counting itself
    passes through it as it is."""
    failure = None
    with open_binary(Path(rng.path)) as (raw, _):
        f = _Watched(raw, rng.index, shared, k, poll)
        try:
            start, end = range_ends(f, rng, bounds, bounds.lines)
            if end > start:
                f.seek(start)
                f.counting = True
                _stream_text(f, start, end - start, bounds, rng.path, rc)
        except Exception as e:  # noqa: BLE001 - re-raised below, or a read error here
            if e is f.read_error:
                raise
            failure = e
    if failure is not None:
        raise failure


class _Watched:
    """A file whose reads stop once the range is given up, count progress once the
    range's text is read, and keep the error of a read that failed."""

    def __init__(self, f, index: int, shared: _Shared, k: int,
                 poll: Callable[[], None] | None = None):
        self.f, self.index, self.shared, self.k, self.poll = f, index, shared, k, poll
        self.counting = False
        self.read_error: OSError | None = None

    def seek(self, pos: int) -> int:
        return self.f.seek(pos)

    def read(self, n: int) -> bytes:
        if self.poll is not None:
            self.poll()
        if not self.shared.live(self.index):
            raise _Stopped()
        try:
            data = self.f.read(n)
        except OSError as e:
            self.read_error = e
            raise
        if self.counting:
            self.shared.done[self.k] += len(data)
            self.shared.read.set()
        return data
