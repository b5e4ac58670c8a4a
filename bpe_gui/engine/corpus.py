"""Corpus text and files -> the pre-token frequency table that training starts from.

Files: .txt/.md (anything UTF-8), .jsonl (the ``text`` field of each line), and any
of those compressed as .xz or .gz. Every document is pre-tokenized on its own, so no
word crosses a document or file boundary. Large inputs are cut into chunks at places
where the preset patterns cannot join two words, and the chunks are pre-tokenized on
several processes (threads do not help: building the word strings needs the GIL).
"""
from __future__ import annotations

import gzip
import json
import lzma
import os
from collections import Counter
import multiprocessing
import threading
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import regex

from .errors import CorpusError, NotUTF8Error
from .pretokenize import Pretokenizer

ProgressFn = Callable[[int, int], None]  # (done, total) in bytes or steps
CancelFn = Callable[[], bool]

CHUNK_CHARS = 1 << 21
# Below this many characters, starting worker processes costs more than it saves.
PARALLEL_MIN_CHARS = 4 << 20
# A word of the preset patterns never spans "<non-space>\n" followed by a letter, so
# cutting right after that newline changes no word (the newline ends the word before it).
_SAFE_CUT = regex.compile(r"(?<=\S\n)(?=\p{L})")


class Cancelled(Exception):
    """Raised inside long work when the cancel callback says so."""


@dataclass
class PretokenTable:
    """Unique words in order of first appearance, with their frequencies.

    Example: "a b a" with the whitespace preset -> words ['a', ' ', 'b'], freqs [2, 2, 1].
    """

    words: list[str] = field(default_factory=list)
    freqs: list[int] = field(default_factory=list)
    n_chars: int = 0
    n_bytes: int = 0

    @classmethod
    def from_counter(cls, counts: dict[str, int], n_chars: int = 0, n_bytes: int = 0):
        return cls(list(counts.keys()), list(counts.values()), n_chars, n_bytes)

    @property
    def total(self) -> int:
        return sum(self.freqs)

    def __len__(self) -> int:
        return len(self.words)


def decode_utf8(data: bytes, path: str | Path | None = None) -> str:
    """Decode UTF-8 strictly (a leading BOM is dropped); NotUTF8Error names the byte offset."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        # utf-8-sig counts positions after the BOM; report the offset in the file
        start = e.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        raise NotUTF8Error(path, start, data[start:start + 4]) from None


def looks_binary(data: bytes) -> bool:
    """A NUL byte, or many control bytes, in the first 8 KB means a binary file."""
    head = data[:8192]
    if b"\x00" in head:
        return True
    ctrl = sum(1 for b in head if b < 9 or 13 < b < 32)
    return bool(head) and ctrl / len(head) > 0.1


def read_bytes(path: str | Path) -> bytes:
    """Read a file, decompressing .xz/.gz; errors name the file and the fix."""
    p = Path(path)
    if not p.exists():
        raise CorpusError("file not found. Check the path (a typo, or a file that was moved).", p)
    if p.is_dir():
        raise CorpusError("is a folder, not a file. Pick the text files inside it.", p)
    try:
        if p.suffix == ".xz":
            return lzma.open(p, "rb").read()
        if p.suffix == ".gz":
            return gzip.open(p, "rb").read()
        return p.read_bytes()
    except (lzma.LZMAError, gzip.BadGzipFile, EOFError) as e:
        raise CorpusError(f"cannot be decompressed ({e}). The file may be truncated.", p) from e
    except OSError as e:
        raise CorpusError(f"cannot be read ({e.strerror}).", p) from e


def _inner_suffix(p: Path) -> str:
    return Path(p.stem).suffix.lower() if p.suffix in (".xz", ".gz") else p.suffix.lower()


def read_documents(path: str | Path, encoding: str = "utf-8") -> list[str]:
    """The documents in one file: the whole text, or one per line of a .jsonl file.

    ``encoding`` other than utf-8 converts a file the user said is in that encoding.
    """
    p = Path(path)
    data = read_bytes(p)
    if looks_binary(data):
        raise CorpusError("looks like a binary file (it has NUL or control bytes), not "
                          "text. Pick a .txt, .md or .jsonl file.", p)
    if encoding.lower().replace("-", "") in ("utf8", "utf8sig"):
        text = decode_utf8(data, p)
    else:
        try:
            text = data.decode(encoding)
        except (UnicodeDecodeError, LookupError) as e:
            raise CorpusError(f"cannot be decoded as {encoding} ({e}).", p) from e
    if _inner_suffix(p) != ".jsonl":
        return [text]
    docs = []
    # split("\n"), not splitlines(): JSON strings may hold a raw U+2028, U+0085, \x1c...
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise CorpusError(f"line {lineno} is not valid JSON ({e.msg}). Each line of a "
                              ".jsonl corpus must be an object with a \"text\" field.", p) from e
        if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
            raise CorpusError(f"line {lineno} has no \"text\" string field. Each line of a "
                              ".jsonl corpus must look like {{\"text\": \"...\"}}.", p)
        docs.append(obj["text"])
    return docs


def read_corpus_text(paths: Sequence[str | Path], separator: str = "\n") -> str:
    """All documents of several files joined into one text (for the corpus editor)."""
    return separator.join(d for p in paths for d in read_documents(p))


def split_chunks(text: str, chunk_chars: int | None = None) -> list[str]:
    """Cut a long text where no preset-pattern word can span; short texts stay whole."""
    chunk_chars = chunk_chars or CHUNK_CHARS  # read at call time, so it can be tuned
    if len(text) <= chunk_chars:
        return [text]
    chunks, start = [], 0
    while len(text) - start > chunk_chars:
        m = _SAFE_CUT.search(text, start + chunk_chars)
        if m is None:
            break
        chunks.append(text[start:m.start()])
        start = m.start()
    chunks.append(text[start:])
    return chunks


def _count_chunk(pattern: str, specials: tuple[str, ...], text: str,
                 concurrent: bool = False) -> Counter:
    # concurrent=True lets `regex` release the GIL while it matches, so a GUI thread
    # stays responsive while a worker thread pre-tokenizes (a 1 MB chunk held it ~0.4 s).
    return Counter(Pretokenizer(pattern, specials).words(text, concurrent=concurrent))


def _executor(n_chunks: int, n_chars: int, workers: int | None) -> Executor:
    workers = workers or min(os.cpu_count() or 1, 8)
    if workers <= 1 or n_chunks <= 1 or n_chars < PARALLEL_MIN_CHARS:
        return ThreadPoolExecutor(max_workers=1)
    # fork is cheapest but unsafe once other threads run (the GUI's worker thread);
    # spawn needs an importable __main__, which the bpe-gui entry point has.
    method = "fork" if (threading.active_count() == 1 and os.name == "posix") else "spawn"
    return ProcessPoolExecutor(max_workers=min(workers, n_chunks),
                               mp_context=multiprocessing.get_context(method))


def build_table(
    documents: Iterable[str],
    pre: Pretokenizer,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    workers: int | None = None,
) -> PretokenTable:
    """Pre-tokenize documents and count identical words once, with a frequency.

    Chunks run in worker processes; results merge in document order so the table's
    word order is the order of first appearance (the first-seen tie rule depends on it).
    """
    docs = list(documents)
    n_chars = sum(len(d) for d in docs)
    # Custom patterns may span any cut, so only the presets are chunked.
    chunks = [c for d in docs for c in (split_chunks(d) if pre.preset else [d]) if c]
    counts: Counter = Counter()
    done = 0
    ex = _executor(len(chunks), n_chars, workers)
    try:
        in_thread = isinstance(ex, ThreadPoolExecutor)
        futures = [ex.submit(_count_chunk, pre.pattern, pre.special_tokens, c, in_thread)
                   for c in chunks]
        for chunk, fut in zip(chunks, futures):
            # wait() rather than result(timeout): on Python 3.10 a result timeout is not the
            # builtin TimeoutError, and a TimeoutError raised by the work itself must propagate.
            while True:
                if cancel is not None and cancel():
                    raise Cancelled()
                if wait([fut], timeout=0.1).done:
                    break
            counts.update(fut.result())
            done += len(chunk)
            if progress is not None:
                progress(done, n_chars)
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
    if not counts:
        raise CorpusError("The corpus is empty (no words after pre-tokenization). Type or "
                          "paste some text, or open a non-empty file.")
    n_bytes = sum(len(d.encode("utf-8")) for d in docs)
    return PretokenTable.from_counter(counts, n_chars, n_bytes)


def table_from_text(text: str, pre: Pretokenizer, **kw) -> PretokenTable:
    return build_table([text], pre, **kw)


def table_from_files(paths: str | Path | Sequence[str | Path], pre: Pretokenizer,
                     **kw) -> PretokenTable:
    if isinstance(paths, (str, Path)):
        paths = [paths]
    if not paths:
        raise CorpusError("No corpus files were given. Pass at least one text file.")
    docs = [d for p in paths for d in read_documents(p)]
    return build_table(docs, pre, **kw)
