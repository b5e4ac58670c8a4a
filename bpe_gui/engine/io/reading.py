"""Strict, bounded reads of tokenizer files: a FormatError naming the file, never a
traceback, and never a gigabyte read to find out it is not a tokenizer.
"""
from __future__ import annotations

import json
import os
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from collections.abc import Sequence
from typing import IO, Any, Iterator, TypeVar, overload

from ..checks import MAX_ID
from ..errors import FormatError

# Files are sniffed before they are read whole: a gigabyte of something else (a model's
# weights, a zip, a video picked by mistake) is refused from its first bytes and its size,
# in bounded memory, instead of being read, decoded and parsed (6.4 GB for 1 GiB).
MAX_FILE_BYTES = 512 << 20   # the largest published tokenizer files are under 100 MB
HEAD_BYTES = 64 << 10
READ_CHUNK = 16 << 20
# Hugging Face tokenizers reads tokenizer.json with serde_json, which refuses nesting
# deeper than 128; real files are a few levels deep. Deeper JSON is refused here too,
# before code that walks it (pipelines of normalizers, Sequences) runs out of stack.
MAX_JSON_DEPTH = 128
T = TypeVar("T")


class ReadInPlace(Sequence[T]):
    """A table read in place from a file's bytes: an item is made when asked for
    (``_item(i)``, ``i`` in range), a list of them all (``tolist()``) for iteration, slices
    and comparisons. ``_what``: what an IndexError calls the table."""

    __slots__ = ()
    _what = "table"

    def _item(self, i: int) -> T:
        raise NotImplementedError

    def tolist(self) -> list[T]:
        raise NotImplementedError

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self.tolist()[i]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"{self._what} index out of range")
        return self._item(i)

    def __iter__(self) -> Iterator[T]:
        return iter(self.tolist())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, type(self))):
            return len(self) == len(other) and self.tolist() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def _utf8_problem(data: bytes, final: bool) -> UnicodeDecodeError | None:
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        if final or e.start < len(data) - 3 or e.reason != "unexpected end of data":
            return e
    return None


def sniff(head: bytes, path, kind: str, final: bool = False) -> None:
    """Refuse a file whose first bytes show it is not a ``kind`` file ('JSON', 'text' or
    'ranks'): NUL bytes, UTF-16, bad UTF-8, JSON that does not start with { or [."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise FormatError(path, "is UTF-16 text; tokenizer files are UTF-8. Re-save it as "
                          "UTF-8.")
    nul = head.find(b"\0")
    if nul >= 0:
        raise FormatError(path, f"is binary (a NUL byte at byte offset {nul}), not a tokenizer "
                          "file. Check that you picked the right file.",
                          line=head[:nul].count(b"\n") + 1)
    bad = _utf8_problem(head, final)
    if bad is not None:
        raise FormatError(path, f"is not UTF-8 text (bad byte 0x{head[bad.start]:02X} at byte "
                          f"offset {bad.start}); tokenizer files are UTF-8.",
                          line=head[:bad.start].count(b"\n") + 1)
    if kind == "ranks" and not head.isascii():
        at = next(i for i, b in enumerate(head) if b > 127)
        raise FormatError(path, f"is not a tiktoken ranks file: byte offset {at} is not ASCII "
                          "(each line is 'BASE64 RANK').", line=head[:at].count(b"\n") + 1)
    if kind == "JSON":
        start = head.lstrip(b"\xef\xbb\xbf").lstrip()
        if start and start[:1] not in b"{[":
            shown = start[:20].decode("utf-8", "replace")
            raise FormatError(path, f"is not JSON: it starts with {shown!r}, not with {{ or [. "
                              "Check that you picked the right file.", line=1)


# the files read_bytes reads while noting_reads() runs (None: not noting)
_NOTED: ContextVar[list[Path] | None] = ContextVar("bpe_gui_files_read", default=None)


@contextmanager
def noting_reads() -> Iterator[list[Path]]:
    """The files :func:`read_bytes` reads while the block runs, in order (a tokenizer's
    own files, kept so it can be pickled: formats/sources.py)."""
    seen: list[Path] = []
    token = _NOTED.set(seen)
    try:
        yield seen
    finally:
        _NOTED.reset(token)


@contextmanager
def opened(p: Path, in_folder: str) -> Iterator[IO[bytes]]:
    """``p`` open for reading while the block runs, the ways it fails as FormatError (the
    one wording of them): missing, a folder (``in_folder``: what to pick inside it, e.g.
    "a .gguf file"), unreadable."""
    try:
        with open(p, "rb") as f:
            yield f
    except FileNotFoundError:
        raise FormatError(p, "file not found. Check the path, or pick the file again.") \
            from None
    except IsADirectoryError:
        raise FormatError(p, f"is a folder; pick {in_folder} inside it.") from None
    except OSError as e:
        raise FormatError(p, f"cannot be read ({e.strerror or e}).") from e


def file_size(path: str | Path) -> int:
    """The size of the file at ``path``, 0 if it cannot be stat'ed (reading it will say
    what is wrong)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def read_bytes(path: str | Path, kind: str = "text") -> bytes:
    """A tokenizer file's bytes, refused early (FormatError) if it is missing, a folder,
    larger than MAX_FILE_BYTES, or its head shows it is not a ``kind`` file."""
    p = Path(path)
    noted = _NOTED.get()
    if noted is not None:
        noted.append(p)
    if not p.exists():
        raise FormatError(p, "file not found. Check the path, or pick the file again.")
    if p.is_dir():
        raise FormatError(p, "is a folder; pick a tokenizer file inside it.")
    try:
        with open(p, "rb") as f:
            head = f.read(HEAD_BYTES)
            sniff(head, p, kind, final=len(head) < HEAD_BYTES)
            stat_size = os.fstat(f.fileno()).st_size
            if stat_size > MAX_FILE_BYTES:
                raise FormatError(p, f"is {stat_size / 1e9:.2f} GB; tokenizer files are at "
                                  f"most {MAX_FILE_BYTES >> 20} MiB here (published ones are "
                                  "under 100 MB). Check that you picked the right file.")
            parts, size = [head], len(head)
            if size < stat_size <= READ_CHUNK:   # one read, no chunks joined (a copy);
                # (bigger files by chunks: a NUL in the first stops the read there)
                f.seek(0)
                whole = f.read(stat_size)
                if len(whole) > size and whole.startswith(head):
                    _no_nul(p, whole, size, 0)
                    parts, size = [whole], len(whole)
                else:   # it changed since: read on after the head, as below
                    f.seek(size)
            while chunk := f.read(READ_CHUNK):   # a file still growing
                _no_nul(p, chunk, 0, size)
                parts.append(chunk)
                size += len(chunk)
                if size > MAX_FILE_BYTES:   # stops here
                    raise FormatError(p, f"is larger than {MAX_FILE_BYTES >> 20} MiB; check "
                                      "that you picked the right file.")
    except OSError as e:
        raise FormatError(p, f"cannot be read ({e.strerror or e}).") from e
    return b"".join(parts) if len(parts) > 1 else parts[0]


def _no_nul(path: Path, data: bytes, start: int, offset: int) -> None:
    """A NUL in data[start:] stops the read there (``offset``: data's place in the file)."""
    nul = data.find(b"\0", start)
    if nul >= 0:
        raise FormatError(path, f"is binary (a NUL byte at byte offset {offset + nul}), not a "
                          "tokenizer file. Check that you picked the right file.")


def read_text(path: str | Path) -> str:
    """A file's text, strict UTF-8; FormatError names the file and the fix."""
    data = read_bytes(path, "text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise FormatError(path, f"is not UTF-8 text (bad byte 0x{data[e.start]:02X} at byte "
                                f"offset {e.start}); tokenizer files are UTF-8.", line=line) from None


def json_problem(e: json.JSONDecodeError) -> str:
    """What is wrong and where on its line: "Expecting value at column 11",
    "Unterminated string starting at column 7" (some of json's messages end in "at")."""
    msg = e.msg[:-3] if e.msg.endswith(" at") else e.msg
    return f"{msg} at column {e.colno}"


def loads(text: str | bytes, path) -> Any:
    """``json.loads`` whose every failure -- bad JSON, nesting too deep for Python's
    stack -- is a FormatError naming the file."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(path, f"is not valid JSON ({json_problem(e)}).",
                          line=e.lineno) from None
    except RecursionError:
        raise FormatError(path, f"nests JSON objects and lists more than {MAX_JSON_DEPTH} levels "
                          "deep, which no tokenizer file does (Hugging Face tokenizers refuses "
                          "it too). Check that you picked the right file.") from None


def check_depth(node: Any, path, limit: int = MAX_JSON_DEPTH) -> None:
    """Refuse JSON nested deeper than ``limit`` (walked without recursion)."""
    stack = [(node, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            raise FormatError(path, f"nests JSON objects and lists more than {limit} levels "
                              "deep, which no tokenizer file does (Hugging Face tokenizers "
                              "refuses it too). Check that you picked the right file.")
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))


class JSONTooDeep(ValueError):
    """JSON nested deeper than a reader takes (a ValueError, as json's own errors are)."""


def loads_bounded(text: str | bytes, limit: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` of JSON from anywhere (a conversation, standard input), its nesting
    held to ``limit`` levels so that no code walking it runs out of stack: a
    ``JSONTooDeep`` saying so (json's own ``JSONDecodeError`` for JSON that is not).

    Example: '[[1]]' -> [[1]]; '[' * 100000 + ']' * 100000 -> JSONTooDeep."""
    try:
        data = json.loads(text)
    except RecursionError:
        data = None
        deep = True
    else:
        deep = False
    if not deep:
        stack = [(data, 1)]
        while stack and not deep:
            node, depth = stack.pop()
            deep = depth > limit
            children = node.values() if isinstance(node, dict) else node \
                if isinstance(node, list) else ()   # (a bare number or text: no children)
            stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    if deep:
        raise JSONTooDeep(f"lists and objects nested more than {limit} levels deep, "
                          "which no JSON here needs") from None
    return data


def read_json(path: str | Path) -> Any:
    return loads(read_text(path), path)


def as_id(value: Any, path, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(path, f"the id {value!r} is not a whole number.", key=key)
    if value < 0:
        raise FormatError(path, f"the id {value} is negative; ids are whole numbers from 0.",
                          key=key)
    if value > MAX_ID:
        raise FormatError(path, f"the id {value} is too large: ids go up to {MAX_ID:,} "
                          "(token ids are 32-bit).", key=key)
    return value
