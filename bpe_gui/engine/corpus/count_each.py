"""Several files counted at once, a table for each: what ``count_corpus`` makes of each
file alone, with the counting threads shared among the files rather than among one
file's ranges (parity training counts each language's training text and dev text so).

A file too short to give every thread ranges of its own (``range_threads.MIN_RANGE``
bytes each) would keep one thread counting while the others wait: such files are
counted whole, each by one thread, the threads taking them in turn. A longer file is
counted by all the threads, as ``count_corpus`` counts it.
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Iterator, Sequence

from ..errors import EmptyCorpusError
from ..io.reading import file_size
from ..text.pretokenize import Pretokenizer
from .counting import count_corpus, default_workers
from .range_threads import MIN_RANGE
from .table import PretokenTable


def count_each(paths: Sequence[str | Path], pre: Pretokenizer, *, lines: bool = False,
               encoding: str = "utf-8",
               workers: int | None = None) -> Iterator[PretokenTable | None]:
    """Each file's table, in the order given (None for a file with no words); an error is
    raised where it comes in that order, as counting the files one after the other would
    raise it.

    Example::

        en, de = count_each(["en.txt", "de.txt"], Pretokenizer("gpt2"), lines=True)
    """
    workers = workers or default_workers(pre.kind is not None)
    alone = [i for i, p in enumerate(paths) if workers > 1 and file_size(p) < workers * MIN_RANGE]
    done: dict[int, PretokenTable | None | BaseException] = {}
    left = iter(alone)
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                i = next(left, None)
            if i is None:
                return
            try:
                done[i] = _count(paths[i], pre, lines, encoding, 1)
            except BaseException as e:  # noqa: BLE001 - raised in the files' order below
                done[i] = e

    # the calling thread counts too (another thread would be one more malloc arena kept
    # resident to the end of the process)
    threads = [threading.Thread(target=work, daemon=True, name="bpe-count")
               for _ in range(min(workers, len(alone)) - 1)]
    for t in threads:
        t.start()
    work()
    for t in threads:
        t.join()
    for i, p in enumerate(paths):
        got = done.pop(i) if i in done else _count(p, pre, lines, encoding, workers)
        if isinstance(got, BaseException):
            raise got
        yield got


def _count(path: str | Path, pre: Pretokenizer, lines: bool, encoding: str,
           workers: int) -> PretokenTable | None:
    try:
        return count_corpus(path, pre, lines=lines, encoding=encoding, workers=workers)
    except EmptyCorpusError:
        return None
