"""Counting one byte range of a corpus file (the work of one Dask task; see ranges.py
for how ranges and their boundaries are chosen).

A range is read in blocks cut at safe boundaries (as ``blocks.BlockReader`` reads a file) and
counted by the native counter. First appearance: range k numbers its words with block
numbers ``k << SUB_BITS`` on (a new block number only when 2^31 words fill one), so
merging the ranges' partial tables in any order gives the word order of one pass over
the corpus, as ``count_corpus`` does. Partial tables are plain bytes (picklable).
"""
from __future__ import annotations

import gzip
import lzma
from array import array
from contextlib import contextmanager
from typing import Iterator, Sequence

from .blocks import Boundaries, _regex_words
from .word_limit import count_pieces
from ..errors import CorpusError, NotUTF8Error
from .files import BOM, binary_error, jsonl_text, looks_binary
from .giant import Part, stream_parts
from ..text.boundaries import lines_of
from ..text.pretokenize import Pretokenizer
from .ranges import Range, _inner_suffix, line_boundary, open_source, text_boundary
from .table import PretokenTable

try:
    from . import _count
    from ._count import WordCounter
except ImportError:  # pragma: no cover - no C compiler at install time
    _count = None  # type: ignore[assignment]  # optional C extension: None where it was not built
    WordCounter = None  # type: ignore[misc, assignment]  # (the same)

SUB_BITS = 8                 # block numbers per range: k << SUB_BITS ...
ORDINAL_LIMIT = 1 << 31      # words numbered in one block before the next number


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

    def __init__(self, pre: Pretokenizer, index: int, lines: bool = False, counter=None):
        self.pre, self.lines = pre, lines
        self.native = Boundaries(pre).native
        specials = [s.encode("utf-8") for s in pre.special_tokens]
        if counter is None:
            counter = WordCounter(self.native, specials, lines) if self.native is not None \
                else WordCounter()
        self.counter = counter
        self.num = _Numbering(index)
        self.cuts = 0   # of giant words (word_limit), made here

    def start(self, index: int) -> None:
        """Go on with range ``index`` (after the ranges before it) in the same counter."""
        self.num = _Numbering(index)

    def text(self, data: bytes | str, where: str) -> None:
        n = self.num
        if self.native is not None:
            n.next(self.counter.count(data, n.block, n.ordinal))
            return
        text = data if isinstance(data, str) else data.decode("utf-8")
        for piece in lines_of(text) if self.lines else [text]:
            n.next(self.counter.count_words(_regex_words(self.pre, piece, where), n.block,
                                            n.ordinal))
        self.counter.add_size(len(text), len(data) if isinstance(data, bytes)
                              else len(text.encode("utf-8")))

    def part(self, part: Part, where: str) -> None:
        """A part of a giant stretch (native presets only, see giant.py)."""
        n = self.num
        if part.word:
            ordinal, cuts = count_pieces(self.counter, part.data, n.block, n.ordinal)
            n.next(ordinal)
            self.cuts += cuts
        elif part.stop >= 0:
            n.next(self.counter.count(part.data, n.block, n.ordinal, part.stop))
        else:
            self.text(part.data, where)

    def export(self) -> tuple:
        """(blob, starts, counts, firsts, chars, bytes, cuts): a partial table, as bytes."""
        c = self.counter
        return (*c.export(firsts=True), c.chars, c.bytes, self.cuts)


def count_range(rng: Range, pattern: str, specials: Sequence[str] = (),
                lines: bool = False) -> tuple:
    """Count one range (``pattern``: a preset name, so the native scanner runs, or a
    regex; ``lines``: each line a text of its own, the range's ends then line starts);
    returns its partial table (``RangeCounter.export``)."""
    pre = Pretokenizer(pattern, specials)
    rc = RangeCounter(pre, rng.index, lines)
    with open_source(rng.path) as f:
        if rng.kind == "whole":
            with _decompressed(f, rng.path) as stream:
                _read_start(stream, rng.path,
                            keep_bom=lines and _inner_suffix(rng.path) != ".jsonl")
                _stream(stream, 0, None, rng, pre, rc, lines)
            return rc.export()
        start, end = range_ends(f, rng, Boundaries(pre), lines)
        if end > start:
            f.seek(start)
            _stream(f, start, end - start, rng, pre, rc, lines)
    return rc.export()


def range_ends(f, rng: Range, bounds: Boundaries, lines: bool) -> tuple[int, int]:
    """Where a range of a text or .jsonl file really starts and stops: the boundaries of
    its nominal ends, or an empty range where no cut is before its stop (so K ranges in
    one stretch with no cut, or in one giant line, read it about twice, not K times).
    CorpusError for a file that is not text (told by its first bytes)."""
    head = f.read(8192) if rng.start == 0 else f.read(3)
    if rng.start == 0 and looks_binary(head):
        raise binary_error(rng.path, head)
    # one text per line keeps a BOM, as Hugging Face's trainer reads it (blocks.py)
    floor = 3 if head.startswith(BOM) and not (lines and rng.kind != "jsonl") else 0
    lined = rng.kind == "jsonl" or lines   # (a line start: no text crosses it)
    start = line_boundary(f, rng.start, rng.size, rng.stop) if lined else \
        text_boundary(f, rng.start, rng.size, bounds, floor, limit=rng.stop)
    if start >= rng.stop:
        return start, start
    return max(start, floor), line_boundary(f, rng.stop, rng.size) if lined else \
        text_boundary(f, rng.stop, rng.size, bounds, floor)


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


def _read_start(stream, path: str, keep_bom: bool = False) -> None:
    """Check the start of a decompressed file and step over a BOM (unless kept)."""
    head = stream.peek(8192)[:8192] if hasattr(stream, "peek") else b""
    if looks_binary(head):
        raise binary_error(path, head)
    if head.startswith(BOM) and not keep_bom:
        stream.read(3)


def _stream(f, offset: int, limit: int | None, rng: Range, pre: Pretokenizer,
            rc: RangeCounter, lines: bool = False) -> None:
    """Count ``limit`` bytes (None: to the end) read from f, which is at file ``offset``."""
    if rng.kind == "jsonl" or (rng.kind == "whole" and _inner_suffix(rng.path) == ".jsonl"):
        _stream_lines(f, offset, limit, rng, rc)
    else:
        _stream_text(f, offset, limit, Boundaries(pre, lines), rng.path, rc)


def _stream_text(f, offset: int, limit: int | None, bounds: Boundaries, path: str,
                 rc: RangeCounter) -> None:
    """Read in blocks cut at safe boundaries (as blocks.BlockReader does) and count them."""
    def chunks() -> Iterator[bytes]:
        left = limit
        while True:
            want = bounds.block_bytes if left is None else min(bounds.block_bytes, left)
            chunk = f.read(want) if want else b""
            if not chunk:
                return
            if left is not None:
                left -= len(chunk)
            yield chunk

    for part in stream_parts(chunks(), bounds):
        data = part.data if part.stop < 0 else memoryview(part.data)[:part.stop]
        bad = _count.utf8_error(data)
        if bad >= 0:
            raise NotUTF8Error(path, offset + part.offset + bad, bytes(data[bad:bad + 4]))
        if part.data:
            rc.part(part, path)


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
    chars = nbytes = cuts = 0
    for blob, starts, counts, firsts, ch, nb, cu in parts:
        c.add_table(blob, starts, counts, firsts)
        chars, nbytes, cuts = chars + ch, nbytes + nb, cuts + cu
    out = c.export(firsts=True)
    c.clear()
    return (*out, chars, nbytes, cuts)


def table_of(part: tuple):
    """The final partial as a PretokenTable (words in order of first appearance)."""

    blob, starts_b, counts_b, _, chars, nbytes, cuts = part
    starts, counts = array("q"), array("q")
    starts.frombytes(starts_b)
    counts.frombytes(counts_b)
    table = PretokenTable(blob, starts, counts, chars, nbytes)
    table.cuts = cuts
    return table
