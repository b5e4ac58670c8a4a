"""Counting a corpus in byte ranges, each on its own (the work a Dask task does).

A file is split at nominal offsets (every ``range_bytes``); compressed files cannot be
entered in the middle, so each is one range. Range k counts from the *boundary* of its
nominal start to the boundary of the next range's nominal start, where

    boundary(s) = the first position p >= s at which the pre-tokenizer's cut rules
                  accept a cut (``blocks.Cutter``; for .jsonl, the first line start),
                  or the end of the file if there is none.

Whether a cut is accepted at p depends only on the bytes around p (a few before it, a
character and any special token after it), so the two neighbours of a boundary, reading
the same bytes, find the same p, whatever machine each runs on; and p is a safe cut, so
the words of the ranges are exactly the words of the whole file. A nominal start inside
a multi-byte character or a word simply moves on to the next safe cut.

First appearance: range k numbers its words with block numbers ``k << SUB_BITS`` on
(a new block number only when 2^31 words fill one), so merging the ranges' counters in
any order gives the word order of one pass over the corpus, as ``count_corpus`` does.
No Dask here: ``distributed.py`` runs these functions on a cluster.
"""
from __future__ import annotations

import gzip
import json
import lzma
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from .blocks import CONTEXT, Cutter, outside_specials
from .corpus import _regex_words
from .errors import CorpusError, NotUTF8Error
from .files import BOM, binary_error, jsonl_text, looks_binary
from .pretokenize import Pretokenizer

try:
    from . import _count
    from ._count import WordCounter
except ImportError:  # pragma: no cover - no C compiler at install time
    _count = WordCounter = None

SUB_BITS = 8                 # block numbers per range: k << SUB_BITS ...
ORDINAL_LIMIT = 1 << 31      # words numbered in one block before the next number
RANGE_BYTES = 64 << 20       # default nominal range size
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

def _raw_last(cutter: Cutter, buf, lo: int, hi: int) -> int:
    """The last position in (lo, hi] the pattern's rules accept (special tokens aside),
    judged only from the bytes around each position; -1 if none."""
    if cutter.native is not None:
        return _count.safe_cut(cutter.native, buf, lo, hi)
    # Matches are at most 4 bytes long; a lookahead must see the character at p = hi.
    m = cutter.rx.search(buf, max(0, lo - 4), hi + 1)
    if m is not None and m.end() > hi:   # a character ending past hi: the match before it
        m = cutter.rx.search(buf, max(0, lo - 4), hi)
    return m.end() if m is not None and lo < m.end() <= hi else -1


def first_cut(cutter: Cutter, buf, lo: int, hi: int) -> int:
    """The smallest accepted cut p in (lo, hi] (hi <= len(buf) - cutter.margin): the
    rules accept it and no special token is around it. -1 if none.

    Example (GPT-2): ``first_cut(Cutter(Pretokenizer()), b"one two three....", 0, 12) -> 3``.
    """
    while lo < hi:
        q = _raw_last(cutter, buf, lo, hi)
        if q <= lo:
            return -1
        a, b = lo, q              # none accepted in (lo, a]; some in (lo, b]
        while b - a > 1:
            m = (a + b) // 2
            if _raw_last(cutter, buf, lo, m) > lo:
                b = m
            else:
                a = m
        p = _raw_last(cutter, buf, lo, b)
        if not cutter.specials or outside_specials(buf, p, p - 1, cutter.specials) == p:
            return p
        lo = p
    return -1


def text_boundary(f, s: int, size: int, cutter: Cutter, floor: int = 0) -> int:
    """boundary(s) of a text file (``floor``: where its text starts, 3 after a BOM)."""
    if s <= floor:
        return floor
    back = 16 + CONTEXT + 2 * cutter.margin   # what the rules look at before p
    width = 1 << 12
    while True:
        lo = max(floor, s - back)
        f.seek(lo)
        buf = f.read(s - lo + width + cutter.margin)
        p = first_cut(cutter, buf, s - lo - 1, len(buf) - cutter.margin)
        if p > 0:
            return lo + p
        if lo + len(buf) >= size:
            return size
        width *= 4


def line_boundary(f, s: int, size: int) -> int:
    """boundary(s) of a .jsonl file: the first line start at or after s."""
    if s <= 0:
        return 0
    pos = s - 1
    while pos < size:
        f.seek(pos)
        buf = f.read(1 << 16)
        i = buf.find(b"\n")
        if i >= 0:
            return pos + i + 1
        if not buf:
            break
        pos += len(buf)
    return size


# ----- counting one range ----------------------------------------------------------------

class _Numbering:
    """First-appearance keys of one range: its block numbers and the next ordinal."""

    def __init__(self, index: int):
        if index >= 1 << (31 - SUB_BITS):
            raise CorpusError(f"The corpus is split into more than {1 << (31 - SUB_BITS):,} "
                              "ranges; use a larger range size.")
        self.block = index << SUB_BITS
        self.last = self.block + (1 << SUB_BITS) - 1
        self.ordinal = 0

    def next(self, ordinal: int) -> None:
        self.ordinal = ordinal
        if ordinal >= ORDINAL_LIMIT and self.block < self.last:
            self.block, self.ordinal = self.block + 1, 0


class RangeCounter:
    """Counts the texts of one range into a native WordCounter, numbered in corpus order."""

    def __init__(self, pre: Pretokenizer, index: int):
        self.pre = pre
        self.native = Cutter(pre).native
        specials = [s.encode("utf-8") for s in pre.special_tokens]
        self.counter = WordCounter(self.native, specials) if self.native is not None \
            else WordCounter()
        self.num = _Numbering(index)

    def text(self, data: bytes | str, where: str) -> None:
        n = self.num
        if self.native is not None:
            n.next(self.counter.count(data, n.block, n.ordinal))
            return
        text = data if isinstance(data, str) else data.decode("utf-8")
        n.next(self.counter.count_words(_regex_words(self.pre, text, where), n.block,
                                        n.ordinal))
        self.counter.add_size(len(text), len(data) if isinstance(data, bytes)
                              else len(text.encode("utf-8")))

    def export(self) -> tuple:
        """(blob, starts, counts, firsts, chars, bytes): a partial table, as bytes."""
        c = self.counter
        return (*c.export(firsts=True), c.chars, c.bytes)


def count_range(rng: Range, pattern: str, specials: Sequence[str] = ()) -> tuple:
    """Count one range (``pattern``: a preset name, so the native scanner runs, or a
    regex); returns its partial table (``RangeCounter.export``)."""
    pre = Pretokenizer(pattern, specials)
    rc = RangeCounter(pre, rng.index)
    with open_source(rng.path) as f:
        if rng.kind == "whole":
            with _decompressed(f, rng.path) as stream:
                _read_start(stream, rng.path)
                _stream(stream, 0, None, rng, pre, rc)
            return rc.export()
        head = f.read(8192) if rng.start == 0 else f.read(3)
        if rng.start == 0 and looks_binary(head):
            raise binary_error(rng.path)
        floor = 3 if head.startswith(BOM) else 0
        if rng.kind == "jsonl":
            start, end = (line_boundary(f, s, rng.size) for s in (rng.start, rng.stop))
            start = max(start, floor)
        else:
            cutter = Cutter(pre)
            start, end = (text_boundary(f, s, rng.size, cutter, floor)
                          for s in (rng.start, rng.stop))
        if end > start:
            f.seek(start)
            _stream(f, start, end - start, rng, pre, rc)
    return rc.export()


@contextmanager
def _decompressed(f, path: str):
    try:
        if path.lower().endswith(".xz"):
            with lzma.LZMAFile(f) as s:
                yield s
        else:
            with gzip.GzipFile(fileobj=f) as s:
                yield s
    except (lzma.LZMAError, gzip.BadGzipFile, EOFError) as e:
        raise CorpusError(f"cannot be decompressed ({e}). The file may be truncated.",
                          path) from e


def _read_start(stream, path: str) -> None:
    """Check the start of a decompressed file and step over a BOM."""
    head = stream.peek(8192)[:8192] if hasattr(stream, "peek") else b""
    if looks_binary(head):
        raise binary_error(path)
    if head.startswith(BOM):
        stream.read(3)


def _stream(f, offset: int, limit: int | None, rng: Range, pre: Pretokenizer,
            rc: RangeCounter) -> None:
    """Count ``limit`` bytes (None: to the end) read from f, which is at file ``offset``."""
    if rng.kind == "jsonl" or (rng.kind == "whole" and _inner_suffix(rng.path) == ".jsonl"):
        _stream_lines(f, offset, limit, rng, rc)
    else:
        _stream_text(f, offset, limit, Cutter(pre), rng.path, rc)


def _stream_text(f, offset: int, limit: int | None, cutter: Cutter, path: str,
                 rc: RangeCounter) -> None:
    """Read in blocks cut at safe cuts (as blocks.BlockReader does) and count them."""
    buf = bytearray()
    left = limit
    searched = 0
    while True:
        want = cutter.block_bytes if left is None else min(cutter.block_bytes, left)
        chunk = f.read(want) if want else b""
        if left is not None:
            left -= len(chunk)
        buf += chunk
        eof = not chunk
        if eof:
            p = len(buf)
        else:
            p = cutter.cut(buf, max(0, searched - 1), len(buf) - cutter.margin)
            if p <= 0:
                searched = max(0, len(buf) - cutter.margin)
                continue
        data = bytes(buf[:p])
        del buf[:p]
        searched = 0
        bad = _count.utf8_error(data)
        if bad >= 0:
            raise NotUTF8Error(path, offset + bad, data[bad:bad + 4])
        if data:
            rc.text(data, path)
        offset += p
        if eof:
            return


def _stream_lines(f, offset: int, limit: int | None, rng: Range, rc: RangeCounter) -> None:
    """Count the ``text`` of each .jsonl line in the range (as blocks.BlockReader does)."""
    read = 0
    for k, line in enumerate(f, 1):
        if limit is not None and read >= limit:
            break
        read += len(line)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as e:
            raise NotUTF8Error(rng.path, offset + e.start, line[e.start:e.start + 4]) from None
        try:
            doc = jsonl_text(text, k, rng.path)
            if doc is not None and b"\\u" in line:
                doc.encode("utf-8")
        except (CorpusError, UnicodeEncodeError) as e:
            _jsonl_error(e, text, rng, offset, k)
        offset += len(line)
        if doc is not None:
            rc.text(doc, rng.path)


def _jsonl_error(e: Exception, text: str, rng: Range, offset: int, k: int):
    """The message of the whole-file reader, with the line's number in the whole file."""
    lineno = k if rng.kind == "whole" else _lines_before(rng.path, offset) + 1
    if isinstance(e, UnicodeEncodeError):
        raise CorpusError(f"line {lineno} holds a lone surrogate escape (\\ud800-\\udfff "
                          "without its pair), which UTF-8 cannot hold. Fix or drop that "
                          "line.", rng.path) from None
    jsonl_text(text, lineno, rng.path)   # raises with the right line number
    raise e


def _lines_before(path: str, offset: int) -> int:
    n = 0
    with open_source(path) as f:
        while offset > 0:
            chunk = f.read(min(offset, 1 << 20))
            if not chunk:
                break
            n += chunk.count(b"\n")
            offset -= len(chunk)
    return n


def merge_partials(*parts: tuple) -> tuple:
    """Partial tables summed into one (first appearance: the earliest key wins)."""
    c = WordCounter()
    chars = nbytes = 0
    for blob, starts, counts, firsts, ch, nb in parts:
        c.add_table(blob, starts, counts, firsts)
        chars, nbytes = chars + ch, nbytes + nb
    out = c.export(firsts=True)
    c.clear()
    return (*out, chars, nbytes)


def table_of(part: tuple):
    """The final partial as a PretokenTable (words in order of first appearance)."""
    from array import array

    from .corpus import PretokenTable
    blob, starts_b, counts_b, _, chars, nbytes = part
    starts, counts = array("q"), array("q")
    starts.frombytes(starts_b)
    counts.frombytes(counts_b)
    return PretokenTable(blob, starts, counts, chars, nbytes)


def count_ranges_here(paths: Sequence[str | Path], pre: Pretokenizer,
                      range_bytes: int = RANGE_BYTES) -> "Iterator[tuple]":
    """Every range counted in this process, one after the other (tests, and the
    reference for what a cluster computes)."""
    for rng in plan_ranges(paths, range_bytes):
        yield count_range(rng, pre.preset or pre.pattern, pre.special_tokens)
