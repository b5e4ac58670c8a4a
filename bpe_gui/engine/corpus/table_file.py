"""Word-count tables: the words (pre-tokens) of a corpus with their counts, as a file.

Training needs only the unique words of a corpus and how often each occurs, so counting
(the part that reads the corpus) can run elsewhere -- another day, another machine, a
Dask cluster -- and training reads the table. The file is UTF-8 text, tab-separated::

    #bpe-gui-counts<TAB>1<TAB>{"pattern": "...", "preset": "gpt2", "special_tokens": [...], ...}
    count<TAB>word
    5<TAB> the
    3<TAB>\\n\\n

Line 1 holds what produced the table, as one line of JSON (ASCII; see :class:`CountMeta`).
Line 2 names the columns. Each further line is one word: its count, a tab, the word with
five bytes escaped (``\\\\`` backslash, ``\\t`` tab, ``\\n`` line feed, ``\\r`` carriage
return, ``\\0`` NUL), so any word survives and every other tool sees two columns. Rows
come in order of first appearance in the corpus, which the first-seen tie rule needs.
A table may end in ``.gz`` or ``.xz`` (compressed on writing too). The rows are written
and read by C (``_count.format_tsv``/``parse_tsv``): 10 M words take seconds, not minutes.

Why TSV and not Parquet: no new dependency (pyarrow is tens of MB), written and read as
a stream in bounded memory, readable by awk, pandas and DuckDB alike, and diffable.
"""
from __future__ import annotations

import gzip
import lzma
import os
from array import array
from pathlib import Path
from typing import Protocol

from ..io.atomic import make_folder, temp_beside
from ..errors import ExportError, FormatError
from .files import open_binary
from .table import FORMAT_VERSION, MAGIC, MAX_COUNT, CountMeta, PretokenTable

try:
    from . import _count
except ImportError:  # pragma: no cover - no C compiler at install time
    _count = None  # type: ignore[assignment]  # optional C extension: None where it was not built

HEADER = b"count\tword"
MAX_HEADER_BYTES = 64 << 20   # line 1 (its sources list) is long only for many files
CHUNK_ROWS = 1 << 18         # rows formatted per write
# bytes handed to a compressor per call: Ctrl+C is seen between two calls, and xz takes
# about 0.1 s for this much
COMPRESS_SLICE = 1 << 18
READ_BYTES = 16 << 20        # bytes parsed per read


# ----- writing -----------------------------------------------------------------------

# names of compressed files that tables are not written as (only .gz and .xz are)
_OTHER_COMPRESSED = (".bz2", ".zst", ".zstd", ".lz4", ".lzma", ".br", ".z", ".zip", ".7z")


def check_table_name(path: str | Path) -> None:
    """ExportError for a table name that promises a compression tables are not written
    with (a .bz2 name on plain text would fool every reader of it)."""
    suffix = Path(path).suffix.lower()
    if suffix in _OTHER_COMPRESSED:
        raise ExportError(f"{path}: tables are compressed as .gz or .xz only, and a {suffix} "
                          "name on a table that is not would mislead its readers. Name it "
                          ".tsv, .tsv.gz or .tsv.xz.")


def write_table(table: PretokenTable, path: str | Path, meta: CountMeta | None = None,
                progress=None) -> Path:
    """Write ``table`` (with ``meta``, default ``table.meta``) to ``path``: through a
    temporary file renamed into place, so a failed write leaves no half-written table.
    ``progress(done, total)`` reports rows."""
    check_table_name(path)
    path = Path(path)
    meta = meta or getattr(table, "meta", None)
    if meta is None:
        raise ExportError("This table records no pattern; give its CountMeta to write it.")
    meta = meta.with_totals(table)
    try:
        make_folder(path.parent)
    except OSError as e:
        raise ExportError(f"Cannot create the folder {path.parent} ({e.strerror or e}). Pick "
                          "a folder you can write to.") from e
    try:
        with temp_beside(path, ".tmp") as tmp, open(tmp, "wb") as raw:
            out = _compressor(path, raw)
            out.write(MAGIC + b"\t%d\t" % FORMAT_VERSION + meta.to_json().encode() + b"\n")
            out.write(HEADER + b"\n")
            n = len(table)
            for lo in range(0, n, CHUNK_ROWS):
                rows = memoryview(_rows(table, lo, min(n, lo + CHUNK_ROWS)))
                step = len(rows) if out is raw else COMPRESS_SLICE
                for k in range(0, len(rows), step):   # (a signal waits for one slice)
                    out.write(rows[k:k + step])
                if progress is not None:
                    progress(min(n, lo + CHUNK_ROWS), n)
            if out is not raw:
                out.close()
            os.replace(tmp, path)
    except OSError as e:
        raise ExportError(f"Cannot write the table {path}: {e.strerror or e}. Pick a folder "
                          "you can write to.") from e
    return path


def _compressor(path: Path, raw):
    if path.suffix == ".gz":
        return gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0)
    if path.suffix == ".xz":
        return lzma.LZMAFile(raw, "wb", preset=6)
    return raw


def _rows(table: PretokenTable, lo: int, hi: int) -> bytes:
    if _count is not None:
        return _count.format_tsv(table.blob, table.starts, table.counts, lo, hi)
    out = []  # pragma: no cover - the same without the C extension
    for i in range(lo, hi):
        w = table.word_bytes(i).replace(b"\\", b"\\\\").replace(b"\t", b"\\t") \
            .replace(b"\n", b"\\n").replace(b"\r", b"\\r").replace(b"\0", b"\\0")
        out.append(b"%d\t%s\n" % (table.counts[i], w))
    return b"".join(out)


# ----- reading -----------------------------------------------------------------------

def is_count_table(path: str | Path) -> bool:
    """True if the file starts like a word-count table (compressed ones too): line 1, or
    (a table made by another tool, without it) the column names."""
    try:
        with open_binary(path) as (stream, _):
            head = stream.read(max(len(MAGIC), len(HEADER) + 2))
    except Exception:  # noqa: BLE001 - unreadable files are not tables; opening says why
        return False
    return head.startswith((MAGIC, HEADER + b"\n", HEADER + b"\r\n"))


def read_header(stream, path) -> tuple[CountMeta | None, int]:
    """Line 1 (metadata) and line 2 (column names); returns (meta or None, next line)."""
    first = stream.readline(MAX_HEADER_BYTES)
    if len(first) >= MAX_HEADER_BYTES and not first.endswith(b"\n"):
        raise FormatError(path, f"line 1 runs past {MAX_HEADER_BYTES >> 20} MB without an "
                          "end: not a word-count table (they start with "
                          f"{MAGIC.decode()} or count<tab>word).", line=1)
    meta = None
    line = 1
    if first.startswith(MAGIC):
        parts = first.rstrip(b"\n").split(b"\t", 2)
        if len(parts) != 3:
            raise FormatError(path, f"line 1 must be {MAGIC.decode()}<tab>VERSION<tab>"
                              "{JSON metadata}.", line=1)
        if parts[1] != b"%d" % FORMAT_VERSION:
            raise FormatError(path, f"table format version {parts[1][:20]!r}: this bpe-gui "
                              f"reads version {FORMAT_VERSION}. Update bpe-gui.", line=1)
        meta = CountMeta.from_json(parts[2].decode("utf-8", "replace"), path)
        first = stream.readline(len(HEADER) + 2)
        line = 2
    if first.rstrip(b"\n") != HEADER:
        what = "line 2 must be" if meta else "the table must start with a metadata line or"
        raise FormatError(path, f"not a word-count table: {what} the column names "
                          "count<tab>word.", line=line)
    return meta, line + 1


def iter_row_chunks(stream, path, line: int, base: int | None = 0):
    """(blob, ends, counts) for each chunk of rows (int64 arrays as bytes). Word ends
    count from ``base``, or, with ``base=None``, go on from the previous chunks' words."""
    carry = b""
    offset = 0
    while True:
        chunk = stream.read(READ_BYTES)
        data = carry + chunk if carry else chunk
        cut = data.rfind(b"\n") + 1 if chunk else len(data)
        body, carry = data[:cut], data[cut:]
        if body:
            try:
                blob, ends, counts = _count.parse_tsv(body, offset if base is None else base)
            except ValueError as e:
                row, msg = e.args
                raise FormatError(path, msg + ".", line=line + row) from None
            yield blob, ends, counts
            line += len(counts) // 8
            offset += len(blob)
        if not chunk:
            return


def read_table(path: str | Path) -> PretokenTable:
    """One table, rows in file order; ``.meta`` holds its CountMeta (None if it has no
    metadata line). A malformed or truncated file raises FormatError naming the line."""
    if _count is None:  # pragma: no cover
        raise FormatError(path, "reading word-count tables needs the _count C extension "
                          "(reinstall bpe-gui with a C compiler).")
    with open_binary(path) as (stream, _):
        meta, line = read_header(stream, path)
        pieces, starts, counts = [], array("q", [0]), array("q")
        for blob, ends, c in iter_row_chunks(stream, path, line, base=None):
            pieces.append(blob)
            starts.frombytes(ends)
            counts.frombytes(c)
    table = PretokenTable(b"".join(pieces), starts, counts)
    del pieces
    check_count_sums(table, path)
    _check_totals(table, meta, path, line + len(counts))
    if meta is not None:
        table.n_chars, table.n_bytes = meta.chars, meta.bytes
        table.cuts = meta.cuts
    else:   # made by another tool: a word listed twice counts once, with the sum
        table = _summed(table)
    table.meta = meta
    table.source = str(path)
    return table


def _summed(table: PretokenTable) -> PretokenTable:
    c = _count.WordCounter()
    c.add_table(table.blob, table.starts, table.counts)
    return table if len(c) == len(table) else PretokenTable.from_native(c, 0, 0)


def check_count_sums(table: PretokenTable, path) -> None:
    """Refuse a table whose counts would overflow the trainer's 64-bit counts: the words'
    total, and each word's count times its symbols (a bound on every pair count)."""
    total = table.total
    fix = ("so counts this large cannot be trained (the trainer counts in 64 bits). Scale the "
           "counts down, e.g. divide them all by the same number.")
    if total > MAX_COUNT:
        raise FormatError(path, f"the counts add up to {total:,}, past 2**63 - 1; {fix}")
    if total * (len(table.blob) + 1) <= MAX_COUNT:   # the cheap bound: almost every table
        return
    starts, counts = table.starts, table.counts
    pairs = sum(counts[i] * (starts[i + 1] - starts[i] + 1) for i in range(len(counts)))
    if pairs > MAX_COUNT:
        raise FormatError(path, f"the counts times the words' lengths add up to {pairs:,}, "
                          f"past 2**63 - 1: pair counts would overflow; {fix}")


class _Totals(Protocol):   # what _check_totals reads: a table, or only its two sizes
    @property
    def total(self) -> int: ...

    def __len__(self) -> int: ...


def _check_totals(table: _Totals, meta: CountMeta | None, path, end_line: int) -> None:
    if meta is None:
        return
    if len(table) != meta.words:
        raise FormatError(path, f"the table has {len(table):,} rows but line 1 says "
                          f"{meta.words:,} words: the file is cut short or was edited. "
                          "Count the corpus again.", line=end_line)
    if table.total != meta.total:
        raise FormatError(path, f"the counts add up to {table.total:,} but line 1 says "
                          f"{meta.total:,}: the table was edited. Count the corpus again.",
                          line=end_line)
