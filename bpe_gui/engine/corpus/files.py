"""Corpus files: opening (.xz/.gz), checking (binary, UTF-8) and reading documents.

Files: .txt/.md (anything UTF-8), .jsonl (the ``text`` field of each line), and any of
those compressed as .xz or .gz. Training streams files in blocks (``blocks.py``); the
whole-text readers here serve the window's corpus editor and small inputs.
"""
from __future__ import annotations

import codecs
import gzip
import io
import json
import lzma
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence

from .. import checks
from ..errors import CorpusError, NotUTF8Error
from ..io import json_problem

BOM = b"\xef\xbb\xbf"
READ_TEXT_BYTES = 1 << 20   # read_text_chunks reads this much at a time


def not_decodable(encoding: str, e: Exception, path: str | Path | None) -> CorpusError:
    """The error for a file that ``encoding`` cannot decode (``e``: what the codec
    said), with the fix: a UTF-16/32 file without a byte-order mark names its byte
    order, and a codec that does not decode bytes to text is named as such."""
    msg = f"cannot be decoded as {encoding} ({e})."
    if "BOM" in str(e):
        msg += (f" The file has no byte-order mark: give its byte order, e.g. --encoding "
                f"{encoding}-le or {encoding}-be.")
    elif isinstance(e, LookupError) or not is_text_codec(encoding):
        msg += (" That is not a character encoding of text files: give the file's own, "
                "e.g. utf-8, latin-1, cp1252, gbk, shift_jis, utf-16.")
    return CorpusError(msg, path)


def is_text_codec(encoding: str) -> bool:
    """Whether ``encoding`` is a codec Python knows that decodes bytes to text (not
    rot13, hex, base64 or zlib)."""
    try:
        return bool(getattr(codecs.lookup(encoding), "_is_text_encoding", True))
    except LookupError:
        return False


def decode_utf8(data: bytes, path: str | Path | None = None) -> str:
    """Decode UTF-8 strictly (a leading BOM is dropped); NotUTF8Error names the byte offset."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        # utf-8-sig counts positions after the BOM; report the offset in the file
        start = e.start + (3 if data.startswith(BOM) else 0)
        raise NotUTF8Error(path, start, data[start:start + 4]) from None


def utf8_trim(data: bytes) -> bytes:
    """Drop a UTF-8 character that the end of ``data`` cuts in two.

    Example: ``utf8_trim("a你".encode()[:3]) -> b"a"``; whole characters stay.
    """
    for back in range(1, min(4, len(data)) + 1):
        b = data[-back]
        if b < 0x80:
            return data
        if b >= 0xC0:  # a lead byte: how long its character should be
            need = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
            return data if back >= need else data[:-back]
    return data


def looks_binary(data: bytes) -> bool:
    """A NUL byte, or many control bytes, in the first 8 KB means a binary file."""
    head = data[:8192]
    if b"\x00" in head:
        return True
    ctrl = sum(1 for b in head if b < 9 or 13 < b < 32)
    return bool(head) and ctrl / len(head) > 0.1


def looks_utf16(head: bytes) -> bool:
    """A UTF-16 byte-order mark, or (without one) a NUL in every other byte, as Latin
    and most other text in UTF-16 has, and text once decoded (not control characters):
    text, but not UTF-8."""
    head = head[:8192]
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        encoding = "utf-16"
    elif len(head) >= 16:
        even, odd = head[0::2], head[1::2]
        zeros = (even.count(0) / len(even), odd.count(0) / len(odd))
        if max(zeros) <= 0.4 or min(zeros) >= 0.05:
            return False
        encoding = "utf-16-be" if zeros[0] > zeros[1] else "utf-16-le"
    else:
        return False
    text = head[:len(head) & ~1].decode(encoding, "replace")
    ctrl = sum(1 for c in text if c < " " and c not in "\t\n\r\f")
    return ctrl <= 0.1 * max(1, len(text))


def binary_error(path: str | Path, head: bytes = b"") -> CorpusError:
    """The error for a file whose start ``head`` is not text (or is UTF-16 text)."""
    if looks_utf16(head):
        return CorpusError("is UTF-16 text, not UTF-8. Convert it to UTF-8 first, e.g. "
                           f"iconv -f UTF-16 -t UTF-8 '{Path(path).name}' > "
                           f"'{Path(path).stem}.utf8{Path(path).suffix}', or open it with "
                           "the encoding utf-16 (the command line's --encoding utf-16).", path)
    return CorpusError("looks like a binary file (it has NUL or control bytes), not "
                       "text. Pick a .txt, .md or .jsonl file.", path)


def inner_suffix(p: Path) -> str:
    """'.txt' for 'a.txt.xz': the suffix that says what is inside a compressed file."""
    return Path(p.stem).suffix.lower() if p.suffix in (".xz", ".gz") else p.suffix.lower()


def _check_path(p: Path) -> None:
    if not p.exists():
        if p.is_symlink():   # (exists() follows it: a loop or a missing target is not there)
            raise CorpusError("is a symbolic link that leads to no file (to itself, round a "
                              "loop, or to a file that was moved). Point it at the file, or "
                              "give the file itself.", p)
        raise CorpusError("file not found. Check the path (a typo, or a file that was moved).", p)
    if p.is_dir():
        raise CorpusError("is a folder, not a file. Pick the text files inside it.", p)


STDIN = "-"   # a corpus file named so is the standard input (``train -``)


class _Stdin:
    """The standard input read as a corpus file: as it comes (a pipe cannot seek), with
    ``tell()`` the bytes read so far (the progress a file's position gives)."""

    def __init__(self) -> None:
        self._in = sys.stdin.buffer
        self._n = 0

    def read(self, size: int = -1) -> bytes:
        data = self._in.read(size)
        self._n += len(data)
        return data

    def __iter__(self) -> Iterator[bytes]:
        for line in self._in:
            self._n += len(line)
            yield line

    def tell(self) -> int:
        return self._n


@contextmanager
def open_binary(path: str | Path) -> Iterator[tuple[io.BufferedIOBase, io.BufferedReader]]:
    """``(stream, raw)``: the decompressed byte stream and the file under it (``-``:
    the standard input).

    ``raw.tell()`` says how far into the file on disk reading has got (for progress in
    bytes, also for compressed files). Errors name the file and the fix.
    """
    if str(path) == STDIN:
        stdin = _Stdin()
        yield stdin, stdin   # type: ignore[misc]  # (read, tell and lines: what is used)
        return
    p = Path(path)
    _check_path(p)
    try:
        raw = open(p, "rb")
    except OSError as e:
        raise CorpusError(f"cannot be read ({e.strerror}).", p) from e
    try:
        if p.suffix == ".xz":
            stream: io.BufferedIOBase = lzma.LZMAFile(raw)
        elif p.suffix == ".gz":
            stream = gzip.GzipFile(fileobj=raw)
        else:
            stream = raw
        yield stream, raw
    except (lzma.LZMAError, gzip.BadGzipFile, EOFError) as e:
        raise CorpusError(f"cannot be decompressed ({e}). The file may be truncated.", p) from e
    except OSError as e:
        if isinstance(e, CorpusError):
            raise
        raise CorpusError(f"cannot be read ({e.strerror or e}).", p) from e
    finally:
        raw.close()


def read_bytes(path: str | Path) -> bytes:
    """Read a whole file, decompressing .xz/.gz; errors name the file and the fix."""
    with open_binary(path) as (stream, _):
        return stream.read()


def jsonl_text(line: bytes | str, lineno: int, path: str | Path | None,
               field: str = "text") -> str | None:
    """The ``field`` (``text``) of one .jsonl line (None for a blank line)."""
    if not line.strip():
        return None
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise CorpusError(f"line {lineno} is not valid JSON ({json_problem(e)}). Each line of a "
                          f".jsonl corpus must be an object with a \"{field}\" field.", path) from e
    except UnicodeDecodeError:
        raise  # the caller reports the byte offset
    if not isinstance(obj, dict) or not isinstance(obj.get(field), str):
        raise CorpusError(f"line {lineno} has no \"{field}\" string field. Each line of a "
                          f".jsonl corpus must look like {{\"{field}\": \"...\"}}.", path)
    return obj[field]


def read_documents(path: str | Path, encoding: str = "utf-8") -> list[str]:
    """The documents in one file: the whole text, or one per line of a .jsonl file.

    ``encoding`` other than utf-8 converts a file the user said is in that encoding.
    """
    p = Path(checks.path(path, "read_documents(path)"))
    data = read_bytes(p)
    utf8 = encoding.lower().replace("-", "") in ("utf8", "utf8sig")
    if utf8 and looks_binary(data):
        raise binary_error(p, data)
    if utf8:
        text = decode_utf8(data, p)
    else:
        try:
            text = data.decode(encoding)
        except (UnicodeError, LookupError, TypeError, ValueError) as e:
            raise not_decodable(encoding, e, p) from e
        if looks_binary(text[:8192].encode("utf-8", "surrogatepass")):
            raise binary_error(p)
    if inner_suffix(p) != ".jsonl":
        return [text]
    # split("\n"), not splitlines(): JSON strings may hold a raw U+2028, U+0085, \x1c...
    docs = (jsonl_text(line, n, p) for n, line in enumerate(text.split("\n"), 1))
    return [d for d in docs if d is not None]


def read_corpus_text(paths: Sequence[str | Path], separator: str = "\n") -> str:
    """All documents of several files joined into one text (for the corpus editor)."""
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else checks.paths(
        paths, "read_corpus_text(paths)", none_ok=False)
    return separator.join(d for p in paths for d in read_documents(p))


def read_head(path: str | Path, n_bytes: int = 1 << 20,
              encoding: str = "utf-8") -> tuple[str, bool]:
    """The start of a file as text, for a preview of a corpus too big to hold: ``(text,
    complete)``. A character or .jsonl line cut by the limit is left out. ``encoding``
    other than utf-8 decodes a file the user said is in that encoding.

    Example: the 4-byte file "a你" read with n_bytes=3 -> ("a", False).
    """
    p = Path(path)
    with open_binary(p) as (stream, _):
        data = stream.read(n_bytes + 1)
    complete = len(data) <= n_bytes
    data = data[:n_bytes]
    if encoding.lower().replace("-", "") in ("utf8", "utf8sig") and looks_binary(data):
        raise binary_error(p, data)
    jsonl = inner_suffix(p) == ".jsonl"
    if not complete and jsonl:
        data = data[:data.rfind(b"\n") + 1]
    if encoding.lower().replace("-", "") in ("utf8", "utf8sig"):
        if not complete and not jsonl:
            data = utf8_trim(data)
        text = decode_utf8(data, p)   # drops a BOM; errors name the byte offset
    else:
        try:   # an incremental decoder leaves a character cut by the limit undecoded
            text = codecs.getincrementaldecoder(encoding)().decode(data, final=complete)
        except (UnicodeError, LookupError, TypeError, ValueError) as e:
            raise not_decodable(encoding, e, p) from e
        if looks_binary(text[:8192].encode("utf-8", "surrogatepass")):
            raise binary_error(p)
    if jsonl:
        docs = (jsonl_text(line, n, p) for n, line in enumerate(text.split("\n"), 1))
        text = "\n".join(d for d in docs if d is not None)
    return text, complete


def read_text_chunks(path: str | Path, on_read: Callable[[int], None] | None = None) -> Iterator[str]:
    """The text of a file in chunks of about a MB, decoded strictly as UTF-8 (a .jsonl
    file: its ``text`` fields joined by newlines, as the corpus editor joins them).
    ``on_read(n)`` gets the bytes read from the file on disk so far."""
    path = Path(path)
    chunks = _decoded(path, on_read)
    return _jsonl_docs(chunks, path) if inner_suffix(path) == ".jsonl" else chunks


def _decoded(path: Path, on_read: Callable[[int], None] | None) -> Iterator[str]:
    dec = codecs.getincrementaldecoder("utf-8")()
    offset, first = 0, True
    with open_binary(path) as (stream, raw):
        while True:
            data = stream.read(READ_TEXT_BYTES)
            if first:
                if looks_binary(data):
                    raise binary_error(path, data)
                if data.startswith(BOM):
                    data, offset = data[3:], 3
                first = False
            try:
                text = dec.decode(data, final=not data)
            except UnicodeDecodeError as e:   # (e.object: the bytes the decoder held, then data)
                held = len(e.object) - len(data)
                raise NotUTF8Error(path, offset - held + e.start,
                                   bytes(e.object[e.start:e.start + 4])) from None
            offset += len(data)
            if on_read is not None:
                on_read(raw.tell())
            if text:
                yield text
            if not data:
                return


def _jsonl_docs(chunks: Iterator[str], path: Path) -> Iterator[str]:
    tail, lineno, sep = "", 0, ""
    for chunk in chunks:
        lines = (tail + chunk).split("\n")
        tail = lines.pop()
        for line in lines:
            lineno += 1
            doc = jsonl_text(line, lineno, path)
            if doc is not None:
                yield sep + doc
                sep = "\n"
    doc = jsonl_text(tail, lineno + 1, path)
    if doc is not None:
        yield sep + doc
