"""Giant stretches without a safe cut (issue 23): a run of spaces, digits, newlines,
punctuation, one script, mixed case... is counted from files, texts and Dask ranges with
only the word in progress carried (cut at word_limit's pieces once it is giant), and the
table equals the oracle: the whole text cut by `regex` (special tokens first), each word
cut by word_limit.pieces.

Memory is not measured here (bench/bench_giant_word.py prints the peaks): the bound is
checked on the reader's blocks, whose size the old reader let grow with the stretch."""
from __future__ import annotations

import random
from collections import Counter

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_gui.engine.corpus import blocks, giant
from bpe_gui.engine.corpus.blocks import BlockReader
from bpe_gui.engine.corpus.counting import count_corpus
from bpe_gui.engine.text.presets import KIND_PATTERNS, PRESET_IDS
from bpe_gui.engine.text.pretokenize import Pretokenizer
from bpe_gui.engine.corpus.range_count import merge_partials, table_of
from bpe_gui.engine.corpus.word_limit import MAX_WORD_BYTES, pieces, split_long_words

from engine_oracle import count_ranges_here

_scan = pytest.importorskip("bpe_gui.engine.text._scan")
pytest.importorskip("bpe_gui.engine.corpus._count")

KINDS = list(KIND_PATTERNS)   # gpt2 cl100k o200k llama3 qwen2 superbpe2
# kinds whose giant stretches are still carried whole (scan_giant.inc has no rules for
# SuperBPE's stage-2 pieces yet): checked for exactness, not for the bound
HELD = {"superbpe2"}
BLOCK, TAIL = 8 << 10, 32 << 10
STRETCH = 600 << 10           # bytes: > 9 pieces, and far past what the reader may hold
# the most a block can hold when the stretch is cut: the tail is asked at TAIL, then at
# each doubling until the word in progress passes a piece boundary
BOUND = 4 * max(TAIL, MAX_WORD_BYTES) + 2 * BLOCK

# stretch -> the repeated unit
STRETCHES = {
    "spaces": " ", "tabs and spaces": " \t ", "newlines": "\n", "crlf": "\r\n",
    "spaces then newline": "   \n", "ideographic spaces": "\u3000",
    "digits": "0123456789", "cjk": "中文字符测试", "cyrillic": "привет",
    "cyrillic mixed case": "ПриветМир", "mixed case": "AbCdEfGhIj", "upper case": "ABCDEFG",
    "capital then lower": "a", "cjk and latin": "中a", "punctuation": "!?.,;:-*&",
    "quotes": "'", "slashes": "/",
}
HEADS = {"capital then lower": "Z"}   # what the stretch starts with (else nothing)


def oracle(text: str, kind: str, specials=()) -> Counter:
    """The whole text: cut at special tokens (leftmost, the longest at one start), each
    piece cut into words by `regex`, each word by word_limit."""
    out: Counter = Counter()
    segs = [text]
    if specials:
        alt = "|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True))
        segs = regex.split(alt, text)
    for seg in segs:
        for w in regex.findall(KIND_PATTERNS[kind], seg):
            out.update(pieces(w.encode("utf-8")))
    return out


def pre_of(kind: str, specials=()) -> Pretokenizer:
    """The kind's pattern (llama3 and qwen2 are recognised by their spelling)."""
    pre = Pretokenizer(KIND_PATTERNS[kind], list(specials))
    assert pre.native is not None and pre.kind == kind
    return pre


def as_counter(table) -> Counter:
    return Counter({table.blob[table.starts[i]:table.starts[i + 1]]: table.counts[i]
                    for i in range(len(table.counts))})


@pytest.fixture
def small(monkeypatch):
    """Small blocks and tail, so a stretch of a few hundred KB is giant."""
    monkeypatch.setattr(blocks, "BLOCK_BYTES", BLOCK)
    monkeypatch.setattr(giant, "GIANT_TAIL", TAIL)


def stretch_text(name: str) -> str:
    unit = STRETCHES[name]
    body = unit * (STRETCH // len(unit.encode()))
    return "Hello, world. " + HEADS.get(name, "") + body + " The end.\n"


@pytest.mark.parametrize("name", list(STRETCHES))
@pytest.mark.parametrize("kind", KINDS)
def test_stretch_from_file_is_exact_and_bounded(small, tmp_path, kind, name):
    text = stretch_text(name)
    path = tmp_path / "giant.txt"
    path.write_text(text, encoding="utf-8", newline="")
    pre = pre_of(kind)
    biggest = max(len(b.data) for b in BlockReader([path], pre))
    assert kind in HELD or biggest <= BOUND, f"a block of {biggest:,} bytes: the stretch was held"
    table = count_corpus([path], pre=pre, workers=1)
    assert as_counter(table) == oracle(text, kind)
    assert table.n_bytes == len(text.encode())


@pytest.mark.parametrize("kind", KINDS)
def test_stretch_in_memory_and_on_ranges(small, tmp_path, kind):
    names = ["spaces", "newlines", "cjk", "mixed case", "punctuation", "digits"]
    text = "".join(stretch_text(n) for n in names)
    pre = pre_of(kind)
    biggest = max(len(b.data) for b in BlockReader(None, pre, texts=[text]))
    assert kind in HELD or biggest <= BOUND
    want = oracle(text, kind)
    assert as_counter(count_corpus(texts=[text], pre=pre, workers=2)) == want
    path = tmp_path / "giant.txt"
    path.write_text(text, encoding="utf-8", newline="")
    part = merge_partials(*count_ranges_here([path], pre, range_bytes=700 << 10))
    assert as_counter(split_long_words(table_of(part))) == want


def test_held_stretch_stays_exact(small, tmp_path):
    """A giant [\\r\\n/]* tail after "/" under o200k: the text from inside it would start a
    whitespace word, so no rule cuts it; it is held whole, and counted right."""
    text = "Hello /" + "\n/" * (200 << 10) + " end"
    path = tmp_path / "held.txt"
    path.write_text(text, encoding="utf-8", newline="")
    pre = pre_of("o200k")
    assert max(len(b.data) for b in BlockReader([path], pre)) > 400 << 10
    assert as_counter(count_corpus([path], pre=pre, workers=1)) == oracle(text, "o200k")


def test_special_tokens_in_a_stretch(small, tmp_path):
    """Special tokens inside a run of spaces: the end of each is a cut."""
    text = ("   " * 30000 + "<|s|>") * 8 + " " * (300 << 10) + "<|s|" + " tail"
    path = tmp_path / "sp.txt"
    path.write_text(text, encoding="utf-8", newline="")
    pre = pre_of("cl100k", ["<|s|>"])
    assert max(len(b.data) for b in BlockReader([path], pre)) <= BOUND
    assert as_counter(count_corpus([path], pre=pre, workers=1)) == \
        oracle(text, "cl100k", ["<|s|>"])


# ----- the scanner's answers, on small texts against `regex` ------------------------------

UNITS = [" ", "  ", "\n", "\r\n", "\r", "\t", "a", "b", "Z", "Q", "中", "文", "ж", "Ж", "ǅ",
         "1", "23", "٣", "!", "'", "'s", "/", ".", "\u0301", "ª", "\u3000", "\u00a0", "é",
         "𝐀", "<|s|>"]


def spans(kind: str, text: str) -> list[tuple[int, int]]:
    """Word spans in UTF-8 bytes (text may hold lone surrogates for cut characters)."""
    def nb(s: str) -> int:
        return len(s.encode("utf-8", "surrogateescape"))
    return [(nb(text[:a]), nb(text[:b])) for a, b in
            (m.span() for m in regex.finditer(KIND_PATTERNS[kind], text))]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), units=st.lists(st.sampled_from(UNITS), min_size=1,
       max_size=3), seed=st.integers(0, 2**32), length=st.integers(1, 80),
       limit=st.sampled_from([3, 4, 5, 7, 16]), data=st.data())
def test_giant_cuts_against_regex(kind, units, seed, length, limit, data):
    """settled: the words before it are the whole text's, and those of data[:reach]
    alone; piece_cut: a piece boundary of the word at settled, after which the text
    starts with the rest of that word. The whole text is any continuation of data[:n]."""
    rng = random.Random(seed)
    text = "".join(rng.choice(UNITS) for _ in range(rng.randint(0, 3))) + \
        "".join(rng.choice(units) for _ in range(length)) + \
        "".join(rng.choice(UNITS) for _ in range(rng.randint(0, 4)))
    b = text.encode()
    n = data.draw(st.integers(1, len(b)))
    settled, reach, cut = _scan.giant_cuts(PRESET_IDS[kind], b, n, limit)
    whole = spans(kind, text)
    assert settled == 0 or settled in {a for a, _ in whole}
    assert settled <= reach <= n
    alone = spans(kind, b[:reach].decode("utf-8", "surrogateescape"))
    assert [w for w in whole if w[0] < settled] == [w for w in alone if w[0] < settled]
    if cut >= 0:
        end = next(e for a, e in whole if a == settled)
        offsets, o = set(), settled
        for p in pieces(b[settled:end], limit)[:-1]:
            o += len(p)
            offsets.add(o)
        assert cut in offsets
        rest = spans(kind, b[cut:].decode())
        assert rest[0][1] == end - cut


@settings(max_examples=40, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), units=st.lists(st.sampled_from(UNITS[:-1]), min_size=1,
       max_size=2), seed=st.integers(0, 2**32), size=st.integers(70 << 10, 240 << 10),
       block=st.integers(1 << 10, 40 << 10), tail=st.integers(4 << 10, 100 << 10),
       specials=st.booleans())
def test_reader_against_oracle(tmp_path_factory, monkeypatch, kind, units, seed, size,
                               block, tail, specials):
    """Random stretches, block sizes and tails: the file reader's table is the oracle's."""
    monkeypatch.setattr(blocks, "BLOCK_BYTES", block)
    monkeypatch.setattr(giant, "GIANT_TAIL", tail)
    rng = random.Random(seed)
    unit = "".join(rng.choice(units) for _ in range(rng.randint(1, 6)))
    body = unit * (size // len(unit.encode()))
    sp = ["<|s|>"] if specials else []
    if specials:
        cut = rng.randrange(len(body))
        body = body[:cut] + "<|s|>" + body[cut:]
    text = "".join(rng.choice(UNITS[:-1]) for _ in range(3)) + body + \
        "".join(rng.choice(UNITS[:-1]) for _ in range(3))
    path = tmp_path_factory.mktemp("g") / "g.txt"
    path.write_text(text, encoding="utf-8", newline="")
    table = count_corpus([path], pre=pre_of(kind, sp), workers=1)
    assert as_counter(table) == oracle(text, kind, sp)


def test_range_boundary_is_searched_in_windows(tmp_path, monkeypatch):
    """A range that starts inside a stretch with no cut looks for its boundary in windows
    of at most BOUNDARY_WINDOW (it read the rest of the stretch at once), and finds the
    same boundary."""
    from bpe_gui.engine.corpus import ranges
    from bpe_gui.engine.corpus.blocks import Boundaries
    text = "Hello, world. " + " " * (3 << 20) + "x y z " * 100
    path = tmp_path / "r.txt"
    path.write_text(text, encoding="utf-8")
    bounds = Boundaries(pre_of("gpt2"))
    want = len(text) - len("x y z " * 100) + 1   # after "x" (a letter before a space)
    reads: list[int] = []

    class Counted:
        def __init__(self, f):
            self.f = f

        def seek(self, pos):
            return self.f.seek(pos)

        def read(self, n=-1):
            reads.append(n)
            return self.f.read(n)
    monkeypatch.setattr(ranges, "BOUNDARY_WINDOW", 64 << 10)
    with open(path, "rb") as f:
        got = ranges.text_boundary(Counted(f), 1 << 20, path.stat().st_size, bounds)
    assert got == want
    assert max(reads) <= (64 << 10) + 1024


@pytest.mark.parametrize("order", ["in order", "shuffled"])
@pytest.mark.parametrize("kind", ["text", "jsonl", "lines"])
def test_ranges_in_one_stretch_read_it_about_twice(order, kind):
    """The real ends of K ranges inside one stretch with no cut (for .jsonl and one text
    per line: one giant line) are found by reading it about twice (a range's start is not
    searched past its stop: no cut before it, the range is empty), not K times, and each
    range holds exactly the bytes between the first accepted cuts (line starts) at or
    after its nominal ends, found in the whole file at once."""
    import io
    from bpe_gui.engine.corpus import ranges
    from bpe_gui.engine.corpus.blocks import Boundaries
    from bpe_gui.engine.corpus.range_count import range_ends
    rng = random.Random(7)
    letters = lambda n: "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=n))  # noqa: E731
    data = ("Hi there. " + letters(200_000) + " end, " + letters(60_000) + "\n x").encode()
    bounds = Boundaries(pre_of("o200k"))
    whole = ranges.first_cut   # the oracle: the smallest cut >= s over all the bytes

    def want(s: int) -> int:
        if s <= 0:
            return 0
        if kind != "text":   # the first line start at or after s
            return data.find(b"\n", s - 1) + 1 or len(data)
        p = whole(bounds, data, s - 1, len(data) - bounds.margin)
        return len(data) if p < 0 else p
    starts = list(range(0, len(data), 8 << 10))   # nominal starts of 8 KiB ranges
    spans = [(a, b) for a, b in zip(starts, starts[1:] + [len(data)])]
    if order == "shuffled":
        rng.shuffle(spans)
    read = [0]

    class Counted(io.BytesIO):
        def read(self, n=-1):
            out = super().read(n)
            read[0] += len(out)
            return out
    f = Counted(data)
    for k, (a, b) in enumerate(spans):
        f.seek(0)   # (as a range's file is opened)
        rg = ranges.Range(k, "x.txt", a, b, len(data), "jsonl" if kind == "jsonl" else "text")
        start, end = range_ends(f, rg, bounds, kind == "lines")
        assert (start, end) == (want(a), want(b)) or start == end and want(a) == want(b)
    assert len(spans) > 30
    assert read[0] < 3 * len(data), read[0] / len(data)   # (each to the end: 16 x)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), units=st.lists(st.sampled_from(UNITS[:-1]), min_size=1,
       max_size=3), seed=st.integers(0, 2**32), length=st.integers(1, 200),
       limit=st.sampled_from([3, 4, 5, 8, 13]))
def test_carry_loop_against_regex(kind, units, seed, length, limit):
    """The reader's loop (giant.stream_parts) in small, with pieces of ``limit`` bytes: the
    buffer grows by a few bytes at a time, its settled words are counted from data[:reach],
    the pieces before a piece cut as pieces, and the carried rest starts at the settled
    word or at the cut (a start inside a word). The counts are the whole text's."""
    rng = random.Random(seed)
    text = "".join(rng.choice(UNITS[:-1]) for _ in range(rng.randint(0, 3))) + \
        "".join(rng.choice(units) for _ in range(length)) + \
        "".join(rng.choice(UNITS[:-1]) for _ in range(rng.randint(0, 3)))
    b = text.encode()
    want: Counter = Counter()
    for w in regex.findall(KIND_PATTERNS[kind], text):
        want.update(pieces(w.encode(), limit))
    got: Counter = Counter()
    start = end = 0
    while True:
        end = min(len(b), end + rng.randint(1, 40))
        if end >= len(b):
            break
        buf = b[start:end]
        settled, reach, cut = _scan.giant_cuts(PRESET_IDS[kind], buf, len(buf), limit)
        head = buf[:reach].decode("utf-8", "surrogateescape")
        for a, e in spans(kind, head):
            if a < settled:
                got.update(pieces(buf[a:e], limit))
        if cut > settled:
            got.update(pieces(buf[settled:cut], limit))
        start += max(cut, settled)
    for w in regex.findall(KIND_PATTERNS[kind], b[start:].decode()):
        got.update(pieces(w.encode(), limit))
    assert got == want
