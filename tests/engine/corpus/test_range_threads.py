"""Counting threads that read their own byte ranges of a file (range_threads.py): the
reading happens on the counting threads, and the table equals one thread's and a slow
`regex` count, with what a cut could break (a character, a special token, a run of
spaces, a contraction, a word longer than a range) placed across every range's start."""
from __future__ import annotations

import os
import random
import threading

import pytest
import regex

from bpe_gui.engine.corpus import blocks, counting, range_threads
from bpe_gui.engine.corpus.counting import count_corpus
from bpe_gui.engine.errors import Cancelled, CorpusError, NotUTF8Error
from bpe_gui.engine.text.pretokenize import Pretokenizer

from engine_oracle import GPT2, PATTERNS, split_specials, word_counts

pytest.importorskip("bpe_gui.engine.corpus._count")
EOT = "<|endoftext|>"
RANGE = 61    # bytes per nominal range in these tests
# what a cut inside could break; each is placed so that a range starts inside it
STRADDLERS = ["😀", "é", "满纸荒唐言", EOT, f"ab{EOT}cd", "   \n\n   x", " \t\r\n y",
              "we'll", "it's", " 12345", "?!?!", "\n\n\n", "a" * 150, " " * 130 + "b"]
FILLER = ["the", "cat", "sat", "on", "mat", "and", "naïve", "café", "7", "—", "\n"]


def straddling_text(seed: int) -> str:
    """Text where each range start k * RANGE falls 1..len-1 bytes into a straddler."""
    rng = random.Random(seed)
    out, size = [], 0
    for k in range(1, 60):
        s = rng.choice(STRADDLERS)
        b = len(s.encode("utf-8"))
        into = rng.randint(1, max(1, b - 1))
        while size < k * RANGE - into - 8:
            w = " " + rng.choice(FILLER)
            out.append(w)
            size += len(w.encode("utf-8"))
        pad = max(0, k * RANGE - into - size)
        out.append("x" * pad + s)
        size += pad + b
    return "".join(out)


def oracle(text: str, pattern: str, lines: bool) -> list[tuple[str, int]]:
    """Word counts in order of first appearance, by `regex` (each line alone with lines)."""
    counts: dict[str, int] = {}
    for piece in regex.split(r"(?<=\n)", text) if lines else [text]:
        for w, c in word_counts(piece, [EOT], pattern).items():
            counts[w] = counts.get(w, 0) + c
    return list(counts.items())


@pytest.fixture
def small_ranges(monkeypatch):
    monkeypatch.setattr(range_threads, "range_size", lambda total, workers: RANGE)
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 256)       # several blocks per range
    monkeypatch.setattr(blocks, "REGEX_BLOCK_BYTES", 256)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("preset,lines", [("gpt2", False), ("gpt2", True),
                                          ("whitespace", False)])
def test_threads_reading_ranges_count_exactly(tmp_path, small_ranges, seed, preset, lines):
    text = straddling_text(seed)
    data = text.encode("utf-8")
    starts = range(RANGE, len(data), RANGE)
    assert any(data[s] & 0xC0 == 0x80 for s in starts)               # inside a character
    assert any(0 < data.find(EOT.encode(), s - len(EOT)) < s for s in starts)   # a special
    assert any(data[s - 1:s + 1] == b"  " for s in starts)           # a run of spaces
    p = tmp_path / "c.txt"
    p.write_bytes(data)
    pre = Pretokenizer(preset, [EOT])
    one = count_corpus(p, pre, workers=1, lines=lines)
    for workers in (2, 3):
        many = count_corpus(p, pre, workers=workers, lines=lines)
        assert (many.blob, many.starts, many.counts) == (one.blob, one.starts, one.counts)
        assert (many.n_chars, many.n_bytes) == (len(text), len(text.encode("utf-8")))
    assert list(zip(one.words, one.counts)) == oracle(text, preset, lines)
    assert preset in PATTERNS


def test_the_counting_threads_do_the_reading(tmp_path, small_ranges, monkeypatch):
    """Each counting thread (the calling one among them) opens and reads ranges itself:
    the first range of each waits until the other thread has opened one too."""
    readers: list[str] = []
    both = threading.Barrier(2, timeout=30)
    real = range_threads.open_binary

    def watched(path):
        name = threading.current_thread().name
        if name not in readers:
            both.wait()   # (broken, and the count fails, if one thread read everything)
        readers.append(name)
        return real(path)
    monkeypatch.setattr(range_threads, "open_binary", watched)
    p = tmp_path / "c.txt"
    text = straddling_text(7)
    p.write_bytes(text.encode("utf-8"))
    table = count_corpus(p, Pretokenizer("gpt2", [EOT]), workers=2)
    assert len(set(readers)) == 2 and len(readers) > 10   # one open per range
    # the calling thread counts too: one thread fewer, one malloc arena fewer kept
    assert threading.current_thread().name in readers
    assert list(zip(table.words, table.counts)) == oracle(text, "gpt2", False)


def test_a_thread_that_finishes_last_wakes_the_waiting_caller(tmp_path, small_ranges,
                                                              monkeypatch):
    """The calling thread counts its share and waits for the others; the last one to
    finish wakes it, so the count does not sit out a poll's timeout (set to an hour
    here: the count would hang). The other thread starts only once the caller waits."""
    monkeypatch.setattr(range_threads, "POLL_S", 3600)
    gate, mine_done = threading.Event(), threading.Event()
    real = range_threads._work

    def work(bounds, pre, counter, k, shared, poll=None):
        if k:
            assert gate.wait(30)
        real(bounds, pre, counter, k, shared, poll)
        if not k:
            mine_done.set()
    monkeypatch.setattr(range_threads, "_work", work)

    def cancel() -> bool:   # (polled by the caller as it waits)
        if mine_done.is_set():
            gate.set()
        return False
    p = tmp_path / "c.txt"
    text = straddling_text(3)
    p.write_bytes(text.encode("utf-8"))
    out: list = []
    t = threading.Thread(target=lambda: out.append(
        count_corpus(p, Pretokenizer("gpt2", [EOT]), workers=2, cancel=cancel)), daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive() and gate.is_set()
    assert list(zip(out[0].words, out[0].counts)) == oracle(text, "gpt2", False)


def test_cancel_from_the_calling_thread_stops_every_thread(tmp_path, small_ranges):
    p = tmp_path / "c.txt"
    p.write_bytes(straddling_text(5).encode("utf-8") * 20)
    calls: list[int] = []
    seen: list[int] = []

    def cancel() -> bool:
        calls.append(1)
        return len(calls) > 5
    with pytest.raises(Cancelled):
        count_corpus(p, Pretokenizer("gpt2", [EOT]), workers=3, cancel=cancel,
                     progress=lambda done, total: seen.append(done))
    assert seen and seen[-1] < p.stat().st_size


def test_the_first_bad_byte_in_the_file_is_named(tmp_path, small_ranges):
    """Two ranges hold bytes that are not UTF-8: the error names the first of the file,
    whichever thread meets its own first."""
    data = bytearray(straddling_text(3).encode("utf-8"))
    first, second = (next(i for i in range(at, len(data)) if data[i] < 0x80)   # (ASCII)
                     for at in (5 * RANGE + 20, 30 * RANGE + 20))
    data[first] = data[second] = 0xFF
    p = tmp_path / "c.txt"
    p.write_bytes(bytes(data))
    for workers in (1, 2, 3):
        with pytest.raises(NotUTF8Error) as e:
            count_corpus(p, Pretokenizer("gpt2", [EOT]), workers=workers)
        assert f"byte offset {first:,} " in str(e.value), str(e.value)


@pytest.mark.parametrize("bad", ["missing.txt", "folder"])
def test_a_bad_path_gets_the_block_readers_message(tmp_path, small_ranges, bad):
    (tmp_path / "folder").mkdir()
    good = tmp_path / "c.txt"
    good.write_bytes(straddling_text(1).encode("utf-8"))
    said = set()
    for workers in (1, 2):
        with pytest.raises(CorpusError) as e:
            count_corpus([good, tmp_path / bad], Pretokenizer("gpt2"), workers=workers)
        said.add(str(e.value))
    assert len(said) == 1 and bad in said.pop()


# GPT-2's pattern with one more alternative: no native scanner knows it, so the `regex`
# module finds its words (under a typed pattern's time limit)
CUSTOM = GPT2 + r"|\x00"


def regex_oracle(text: str, pattern: str) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for piece, special in split_specials(text, [EOT]):
        for w in [] if special else regex.findall(pattern, piece):
            counts[w] = counts.get(w, 0) + 1
    return list(counts.items())


def test_the_default_counts_a_regex_pattern_on_one_thread(monkeypatch):
    """Threads running the `regex` module take turns on the GIL word by word: no faster
    than one, and more CPU. The native scanner's count uses every core, at most 16."""
    for cores, native_threads in ((6, 6), (64, 16), (1, 1)):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, n=cores: set(range(n)))
        assert counting.default_workers(native=True) == native_threads
        assert counting.default_workers(native=False) == 1


@pytest.mark.parametrize("pattern", ["gpt2", "whitespace", CUSTOM])
def test_default_threads_count_a_regex_pattern_exactly(tmp_path, small_ranges, monkeypatch,
                                                       pattern):
    """On 4 cores the native scanner counts on 4 threads reading ranges, a regex pattern
    on one; either way the table is the slow `regex` count's, and that of any number of
    threads asked for."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(4)))
    threads: list[int] = []
    real = range_threads.count_ranges

    def spy(reader, pre, counters, *args):
        threads.append(len(counters))
        return real(reader, pre, counters, *args)
    monkeypatch.setattr(range_threads, "count_ranges", spy)
    text = straddling_text(11)
    p = tmp_path / "c.txt"
    p.write_bytes(text.encode("utf-8"))
    pre = Pretokenizer(pattern, [EOT])
    native = pattern == "gpt2"
    assert (pre.native is not None) == native
    default = count_corpus(p, pre)
    assert threads == ([4] if native else [])
    expected = regex_oracle(text, PATTERNS.get(pattern, pattern))
    assert list(zip(default.words, default.counts)) == expected
    for workers in (1, 3):   # (3: asked for, so a regex pattern gets them too)
        asked = count_corpus(p, pre, workers=workers)
        assert (asked.blob, asked.starts, asked.counts) == (
            default.blob, default.starts, default.counts)
        assert (asked.n_chars, asked.n_bytes) == (default.n_chars, default.n_bytes)
    assert threads[-1] == 3
