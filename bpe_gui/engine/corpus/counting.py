"""Corpus text and files -> the pre-token frequency table that training starts from.

The corpus streams through in blocks (``blocks.py``: read, decompressed, cut where no
word can span), and worker threads count the words of each block in a native hash table
(``csrc/countmodule.c``), so memory depends on the number of unique words, not on the
corpus size. Plain text files are read by the counting threads themselves, each its own
byte ranges (``range_threads.py``), so reading scales with the threads too; compressed
files, .jsonl and other encodings are read by one thread that hands blocks out. The
native presets (gpt2, cl100k, o200k) are cut into words by the native scanner without
the GIL; other patterns by the ``regex`` module, which gives the GIL back only while it
matches one word (so a GUI thread stays live), and they count on one thread unless more
are asked for (``default_workers``). Every document is pre-tokenized on its own, so no
word crosses a document or file boundary, and the table lists words in order of first
appearance in the corpus, whichever thread counted them (the first-seen tie rule
depends on it).
"""
from __future__ import annotations

import os
import queue
import threading
from pathlib import Path
from typing import Iterable, Sequence

from .. import checks
from .blocks import BlockReader, _regex_words, texts_of
from .table_file import write_table
from ..errors import CancelFn, Cancelled, CorpusError, EmptyCorpusError, ProgressFn
from ..io.reading import file_size
from ..text.presets import PRESET_IDS
from ..text.pretokenize import Pretokenizer
from .table import CountMeta, PretokenTable
from .word_limit import count_pieces, split_long_words

try:
    from ._count import WordCounter, export_merged
except ImportError:  # pragma: no cover - only without a C compiler at install time
    WordCounter = None  # type: ignore[misc, assignment]  # optional C extension: None where it was not built

POLL_S = 0.05  # how often waiting loops look at the cancel flag
# Each counting thread holds a word table of its own, and their words overlap, so every
# thread adds memory (a few MB on 1 GiB of code); past this, more threads cost memory
# for little speed.
MAX_WORKERS = 16


def default_workers(native: bool = True) -> int:
    """Counting threads when none are asked for: every core this process may run on
    (its CPU affinity, which a container or ``taskset`` narrows), at most MAX_WORKERS.

    One where the ``regex`` module finds the words (``native`` False): it releases the
    GIL for one match at a time and needs it for the rest of each word (its str, the
    list, the counter), so threads would take turns word by word, each turn a wake-up of
    the thread that waits: no faster than one thread, and more CPU."""
    if not native:
        return 1
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):   # (no affinity call on macOS and Windows)
        n = os.cpu_count() or 1
    return max(1, min(n, MAX_WORKERS))


# ----- counting ------------------------------------------------------------------------

class _Counting:
    """Blocks -> one native WordCounter per thread -> a PretokenTable."""

    def __init__(self, pre: Pretokenizer, native: bool, lines: bool = False):
        self.pre, self.native, self.lines = pre, native, lines
        self.specials = [s.encode("utf-8") for s in pre.special_tokens]
        # cuts of giant words made while counting, per counter (each on one thread)
        self.cuts: dict[int, int] = {}

    def new_counter(self):
        if self.native:
            return WordCounter(self.pre_id, self.specials, self.lines, self.pre.special_words)
        return WordCounter()

    @property
    def pre_id(self) -> int:
        kind = self.pre.kind
        assert kind is not None   # asked only when a native scanner runs the pattern
        return PRESET_IDS[kind]

    def count(self, counter, blk) -> None:
        ordinal = 0  # the documents of a .jsonl block: one after the other in the block
        if blk.word:   # whole pieces of one giant word (giant.py)
            cuts = count_pieces(counter, blk.data, blk.index)[1]
            self.cuts[id(counter)] = self.cuts.get(id(counter), 0) + cuts
            return
        if self.native:
            if blk.docs is None:
                counter.count(blk.data, blk.index, 0, blk.stop)
            else:
                for doc in blk.docs:
                    ordinal = counter.count(doc, blk.index, ordinal)
            return
        for text in texts_of(blk, self.lines):
            ordinal = counter.count_words(_regex_words(self.pre, text, blk.source or "text"),
                                          blk.index, ordinal)
            counter.add_size(len(text), 0 if blk.docs is None else len(text.encode("utf-8")))
        if blk.docs is None:   # (the block's bytes once: its lines are all of it)
            counter.add_size(0, len(blk.data))

    def table(self, counters: list) -> PretokenTable:
        # the union written out at once (no table is copied into another); the counters
        # are spent (and freed) before the arrays are made of it
        chars, nbytes = sum(c.chars for c in counters), sum(c.bytes for c in counters)
        # gathered on as many threads as counted, but no more than there are cores
        blob, starts, counts = export_merged(counters, threads=min(len(counters),
                                                                   default_workers()))
        for c in counters:
            c.clear()
        table = PretokenTable.from_arrays(blob, starts, counts, chars, nbytes)
        table.cuts = sum(self.cuts.values())
        return table


def count_blocks(reader: BlockReader, pre: Pretokenizer, progress: ProgressFn | None = None,
                 cancel: CancelFn | None = None, workers: int | None = None) -> PretokenTable:
    """Count the words of every block the reader yields; see :func:`count_corpus`."""
    if WordCounter is None:  # pragma: no cover - no C compiler at install time
        return _count_in_python(reader, pre, progress, cancel)
    job = _Counting(pre, reader.bounds.native is not None, reader.bounds.lines)
    workers = workers or default_workers(job.native)
    if workers <= 1 or reader.total <= 2 * reader.bounds.block_bytes:
        counter = job.new_counter()
        for blk in reader:
            if cancel is not None and cancel():
                raise Cancelled()
            job.count(counter, blk)
            if progress is not None:
                progress(blk.done, reader.total)
        return _finish(job, [counter], reader, progress)
    from .range_threads import count_ranges, rangeable
    if rangeable(reader):   # every thread reads its own ranges of the files
        counters = [job.new_counter() for _ in range(workers)]
        job.cuts[0] = count_ranges(reader, pre, counters, progress, cancel)
        return _finish(job, counters, reader, progress)
    return _count_threaded(job, reader, progress, cancel, workers)


def _count_threaded(job: _Counting, reader: BlockReader, progress, cancel,
                    workers: int) -> PretokenTable:
    todo: queue.Queue = queue.Queue(maxsize=workers)   # bounded: memory stays flat
    stop = threading.Event()
    errors: list[BaseException] = []
    counters = [job.new_counter() for _ in range(workers)]

    def work(counter) -> None:
        while True:
            blk = todo.get()
            if blk is None or stop.is_set():
                return
            try:
                job.count(counter, blk)
            except BaseException as e:  # noqa: BLE001 - handed to the reading thread
                errors.append(e)
                stop.set()
                return

    threads = [threading.Thread(target=work, args=(c,), daemon=True, name="bpe-count")
               for c in counters]
    for t in threads:
        t.start()
    try:
        for blk in reader:
            while True:
                if stop.is_set() and errors:
                    raise errors[0]
                if cancel is not None and cancel():
                    raise Cancelled()
                try:
                    todo.put(blk, timeout=POLL_S)
                    break
                except queue.Full:
                    continue
            if progress is not None:
                progress(blk.done, reader.total)
        for _ in threads:
            _put_until(todo, None, stop)
        for t in threads:
            while t.is_alive():
                if cancel is not None and cancel():
                    raise Cancelled()
                t.join(POLL_S)
        if errors:
            raise errors[0]
    except BaseException:
        # Workers finish the block in hand and leave; nobody waits for them (cancel acts
        # at once), and their counters are freed when they are done.
        stop.set()
        _drain(todo, len(threads))
        raise
    return _finish(job, counters, reader, progress)


def _put_until(q: queue.Queue, item, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            q.put(item, timeout=POLL_S)
            return
        except queue.Full:
            continue


def _drain(q: queue.Queue, n_sentinels: int) -> None:
    while True:
        try:
            q.get_nowait()
        except queue.Empty:
            break
    for _ in range(n_sentinels):
        try:
            q.put_nowait(None)
        except queue.Full:
            break


def _finish(job: _Counting, counters: list, reader: BlockReader,
            progress: ProgressFn | None) -> PretokenTable:
    table = job.table(counters)
    if progress is not None:
        progress(reader.total, reader.total)
    if not len(table):
        raise EmptyCorpusError("The corpus is empty (no words after pre-tokenization). Type or "
                          "paste some text, or open a non-empty file.")
    return table


def _count_in_python(reader: BlockReader, pre: Pretokenizer, progress, cancel) -> PretokenTable:
    """The same counting without the C extension (slow; no compiler at install time)."""
    counts: dict[str, int] = {}
    chars = nbytes = 0
    for blk in reader:
        if cancel is not None and cancel():
            raise Cancelled()
        for text in texts_of(blk, reader.bounds.lines):
            for w in pre.words(text):
                counts[w] = counts.get(w, 0) + 1
            chars += len(text)
            nbytes += len(text.encode("utf-8"))
        if progress is not None:
            progress(blk.done, reader.total)
    if progress is not None:
        progress(reader.total, reader.total)
    if not counts:
        raise EmptyCorpusError("The corpus is empty (no words after pre-tokenization). Type or "
                          "paste some text, or open a non-empty file.")
    return PretokenTable.from_counter(counts, chars, nbytes)


# ----- entry points ----------------------------------------------------------------------

def count_corpus(paths: str | Path | Sequence[str | Path] = (), pre: Pretokenizer | None = None,
                 *, texts: Iterable[str] = (), encoding: str = "utf-8",
                 progress: ProgressFn | None = None, cancel: CancelFn | None = None,
                 workers: int | None = None, out: str | Path | None = None,
                 lines: bool = False) -> PretokenTable:
    """Count the pre-tokens of files (streamed in blocks) and/or in-memory texts (a list,
    or any iterable of str, read a block at a time: memory is a block's, not all of it).

    Each text and each file is its own document (a .jsonl file: each line's ``text``);
    with ``lines``, each line of them, its \\n kept, as Hugging Face's trainer reads files
    (``train(files)``, or ``train_from_iterator`` over a file's lines), so no word spans a
    line break.
    ``progress(done, total)`` reports input bytes; ``cancel()`` is polled at least
    every 50 ms and raises :class:`Cancelled`. The table's ``meta`` (a
    :class:`~bpe_gui.engine.corpus.table.CountMeta`) says what produced it; ``out`` also
    writes it there as a word-count table file (``counts.write_table``).

    Example::

        >>> count_corpus(texts=["a b a"], pre=Pretokenizer("whitespace")).words
        ['a', ' ', 'b']
    """
    _check_count_arguments(paths, pre, texts, workers, out)
    if isinstance(paths, (str, Path)):
        paths = [paths]
    pre = pre or Pretokenizer()
    reader = BlockReader(paths, pre, texts=texts, encoding=encoding, lines=lines)
    table = split_long_words(count_blocks(reader, pre, progress, cancel, workers))
    sources = [{"path": "<text>", "bytes": len(t.encode("utf-8"))} for t in reader.texts]
    if reader.stream is not None:
        sources.append({"path": "<texts>", "bytes": table.n_bytes})
    sources += [{"path": str(p), "bytes": file_size(p)} for p in paths]
    table.meta = CountMeta.for_counting(pre, sources, lines).with_totals(table)
    if out is not None:
        write_table(table, out)
    return table


def build_table(documents: Iterable[str], pre: Pretokenizer, progress: ProgressFn | None = None,
                cancel: CancelFn | None = None, workers: int | None = None,
                lines: bool = False) -> PretokenTable:
    """Pre-tokenize in-memory documents and count identical words once, with a frequency."""
    return count_corpus([], pre, texts=list(documents), progress=progress, cancel=cancel,
                        workers=workers, lines=lines)


def table_from_text(text: str, pre: Pretokenizer, **kw) -> PretokenTable:
    return build_table([text], pre, **kw)


def table_from_files(paths: str | Path | Sequence[str | Path], pre: Pretokenizer,
                     **kw) -> PretokenTable:
    if isinstance(paths, (str, Path)):
        paths = [paths]
    if not paths:
        raise CorpusError("No corpus files were given. Pass at least one text file.")
    return count_corpus(paths, pre, **kw)


def _check_count_arguments(paths, pre, texts, workers, out) -> None:
    checks.paths(paths, "count_corpus(paths)")
    checks.instance(pre, Pretokenizer, "count_corpus(pre)", "a Pretokenizer or None",
                    none_ok=True)
    checks.iterable_texts(texts, "count_corpus(texts)")   # (a stream's as read: blocks.py)
    checks.whole(workers, "count_corpus(workers)", 1, 4096, none_ok=True)
    if out is not None:
        checks.path(out, "count_corpus(out)")
