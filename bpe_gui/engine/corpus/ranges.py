"""Counting a corpus in byte ranges, each on its own (the work a Dask task does).

A file is split at nominal offsets (every ``range_bytes``); compressed files cannot be
entered in the middle, so each is one range. Range k counts from the *boundary* of its
nominal start to the boundary of the next range's nominal start, where

    boundary(s) = the first position p >= s at which the pre-tokenizer's cut rules
                  accept a cut (``blocks.Boundaries``; for .jsonl, or one text per line, the first line start),
                  or the end of the file if there is none.

Whether a cut is accepted at p depends only on the bytes around p (a few before it, a
character and any special token after it), so the two neighbours of a boundary, reading
the same bytes, find the same p, whatever machine each runs on; and p is a safe boundary, so
the words of the ranges are exactly the words of the whole file. A nominal start inside
a multi-byte character or a word simply moves on to the next safe boundary.

Counting one range is in ``range_count.py``. No Dask here: ``distributed.py`` runs them
on a cluster.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..text.boundaries import CONTEXT, outside_specials
from .blocks import Boundaries
from ..errors import CorpusError

try:
    from . import _count
except ImportError:  # pragma: no cover - no C compiler at install time
    _count = None  # type: ignore[assignment]  # optional C extension: None where it was not built

RANGE_BYTES = 64 << 20       # default nominal range size
BOUNDARY_WINDOW = 4 << 20    # the most read at once while looking for a boundary
COMPRESSED = (".xz", ".gz")


@dataclass(frozen=True)
class Range:
    """Bytes [start, stop) of ``path`` (nominal: the real ends are boundaries)."""

    index: int       # in corpus order
    path: str        # a local path or an fsspec URL
    start: int
    stop: int
    size: int        # of the file on disk
    kind: str        # "text", "jsonl" or "whole" (a compressed file, read through)


def is_url(path: str) -> bool:
    return "://" in path


def _inner_suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    for c in COMPRESSED:
        if name.endswith(c):
            name = name[:-len(c)]
            return "." + name.rsplit(".", 1)[-1] if "." in name else ""
    return "." + name.rsplit(".", 1)[-1] if "." in name else ""


def source_size(path: str) -> int:
    """Size on disk of a local file or fsspec URL; CorpusError names a missing one."""
    try:
        if is_url(path):
            import fsspec
            fs, p = fsspec.core.url_to_fs(path)
            return int(fs.size(p))
        if os.path.isdir(path):
            raise CorpusError("is a folder, not a file. Pick the text files inside it.", path)
        return os.stat(path).st_size
    except FileNotFoundError:
        raise CorpusError("file not found. Check the path (a typo, or a file that was "
                          "moved; on a cluster, every worker must see it).", path) from None
    except ImportError:
        raise CorpusError("is a URL, and reading URLs needs fsspec: pip install "
                          "\"bpe-gui[dask]\".", path) from None
    except OSError as e:
        raise CorpusError(f"cannot be read ({e.strerror or e}).", path) from e


def plan_ranges(paths: Sequence[str | Path], range_bytes: int = RANGE_BYTES) -> list[Range]:
    """Split the files into ranges of about ``range_bytes``, numbered in corpus order."""
    out: list[Range] = []
    for path in map(str, paths):
        size = source_size(path)
        compressed = path.lower().endswith(COMPRESSED)
        kind = "whole" if compressed else \
            "jsonl" if _inner_suffix(path) == ".jsonl" else "text"
        step = size if kind == "whole" else max(1, range_bytes)
        starts = list(range(0, size, step)) or [0]
        for i, s in enumerate(starts):
            stop = starts[i + 1] if i + 1 < len(starts) else size
            out.append(Range(len(out), path, s, stop, size, kind))
    return out


@contextmanager
def open_source(path: str):
    """A seekable binary file for a local path or an fsspec URL."""
    if is_url(path):
        import fsspec
        with fsspec.open(path, "rb") as f:
            yield f
    else:
        with open(path, "rb") as f:
            yield f


# ----- boundaries ------------------------------------------------------------------------

def _raw_last(bounds: Boundaries, buf, lo: int, hi: int) -> int:
    """The last position in (lo, hi] the pattern's rules accept (special tokens aside),
    judged only from the bytes around each position; -1 if none."""
    if bounds.native is not None:
        return _count.safe_cut(bounds.native, buf, lo, hi)
    # Matches are at most 4 bytes long; a lookahead must see the character at p = hi.
    m = bounds.rx.search(buf, max(0, lo - 4), hi + 1)
    if m is not None and m.end() > hi:   # a character ending past hi: the match before it
        m = bounds.rx.search(buf, max(0, lo - 4), hi)
    return m.end() if m is not None and lo < m.end() <= hi else -1


def first_cut(bounds: Boundaries, buf, lo: int, hi: int) -> int:
    """The smallest accepted cut p in (lo, hi] (hi <= len(buf) - bounds.margin): the
    rules accept it and no special token is around it. -1 if none.

    Example (GPT-2): ``first_cut(Boundaries(Pretokenizer()), b"one two three....", 0, 12) -> 3``.
    """
    while lo < hi:
        q = _raw_last(bounds, buf, lo, hi)
        if q <= lo:
            return -1
        a, b = lo, q              # none accepted in (lo, a]; some in (lo, b]
        while b - a > 1:
            m = (a + b) // 2
            if _raw_last(bounds, buf, a, m) > a:   # (a, m] alone: a long run costs O(run)
                b = m
            else:
                a = m
        p = _raw_last(bounds, buf, lo, b)
        if not bounds.specials or outside_specials(buf, p, p - 1, bounds.specials) == p:
            return p
        lo = p
    return -1


def text_boundary(f, s: int, size: int, bounds: Boundaries, floor: int = 0,
                  limit: int | None = None) -> int:
    """boundary(s) of a text file (``floor``: where its text starts, 3 after a BOM), or a
    position >= ``limit`` when none is before it (a range's start: the range is empty).

    Searched in windows that move on (growing to BOUNDARY_WINDOW), never in the whole
    rest of a stretch with no cut: whether p is accepted depends only on the bytes around
    it, which each window holds."""
    if s <= floor:
        return floor
    back = 16 + CONTEXT + 2 * bounds.margin   # what the rules look at before p
    width, stop = 1 << 12, size if limit is None else min(limit, size)
    while True:
        lo = max(floor, s - back)
        f.seek(lo)
        buf = f.read(min(s + width, stop) - lo + bounds.margin)
        p = first_cut(bounds, buf, s - lo - 1, len(buf) - bounds.margin)
        if p > 0:
            return lo + p
        if lo + len(buf) >= size:
            return size
        s = lo + len(buf) - bounds.margin + 1    # positions up to s - 1 have no cut
        if limit is not None and s >= limit:
            return s
        width = min(width * 4, BOUNDARY_WINDOW)


def line_boundary(f, s: int, size: int, limit: int | None = None) -> int:
    """boundary(s) of a .jsonl file: the first line start at or after s, or a position
    >= ``limit`` when none is before it (a range's start: the range is empty)."""
    if s <= 0:
        return 0
    pos, stop = s - 1, size if limit is None else min(limit, size)
    while pos < stop:
        f.seek(pos)
        buf = f.read(min(1 << 16, stop - pos))
        i = buf.find(b"\n")
        if i >= 0:
            return pos + i + 1
        if not buf:
            break
        pos += len(buf)
    return stop
