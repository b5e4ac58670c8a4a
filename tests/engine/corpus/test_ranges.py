"""Counting in byte ranges (ranges.py, what each Dask task runs), without Dask: every
range counted on its own and the partial tables merged equals ``count_corpus`` byte for
byte, for every preset and a custom pattern, with ranges so small that their nominal
starts fall inside multi-byte characters, words and special tokens."""
from __future__ import annotations

import gzip
import json
import lzma
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_gui.engine.corpus.blocks import Boundaries
from bpe_gui.engine.text.boundaries import outside_specials
from bpe_gui.engine.corpus.counting import count_corpus
from bpe_gui.engine.errors import CorpusError, NotUTF8Error
from bpe_gui.engine.text.pretokenize import PRESETS, Pretokenizer
from bpe_gui.engine.corpus.range_count import merge_partials, table_of
from bpe_gui.engine.corpus.ranges import first_cut, plan_ranges

from engine_oracle import count_ranges_here

_count = pytest.importorskip("bpe_gui.engine.corpus._count")
EOT = "<|endoftext|>"
PATTERNS = [*PRESETS, r"\p{L}+|\p{N}|[^\p{L}\p{N}]+"]   # the presets and a custom pattern


def by_ranges(paths, pre, range_bytes):
    parts = list(count_ranges_here(paths, pre, range_bytes))
    random.Random(len(parts)).shuffle(parts)          # merged in any order
    return table_of(merge_partials(*parts))


def assert_same(a, b):
    assert a.blob == b.blob and a.starts == b.starts and a.counts == b.counts
    assert (a.n_chars, a.n_bytes) == (b.n_chars, b.n_bytes)


@pytest.fixture(scope="module")
def mixed(corpora_dir) -> str:
    parts = []
    for name, n in (("en-tinyshakespeare.txt.xz", 3000), ("zh-en-d2l-zh-markdown.txt.xz", 3000),
                    ("code-python-stdlib.py.txt.xz", 3000)):
        with lzma.open(corpora_dir / name, "rt", encoding="utf-8") as f:
            parts.append(f.read(n))
    return EOT.join(parts) + "😀 end"


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("range_bytes", [7, 64, 4096])
def test_ranges_equal_counting_the_file(tmp_path, mixed, pattern, range_bytes):
    p = tmp_path / "c.txt"
    p.write_bytes(mixed.encode("utf-8"))
    pre = Pretokenizer(pattern, [EOT])
    data = p.read_bytes()
    starts = [r.start for r in plan_ranges([p], range_bytes)]
    if range_bytes == 7:   # the nominal starts do fall inside characters, words, specials
        assert any(data[s] & 0xC0 == 0x80 for s in starts)
        assert any(data[s - 1:s + 1].isalpha() for s in starts)
        assert any(0 < data.find(EOT.encode(), s - len(EOT)) < s for s in starts)
    assert_same(by_ranges([p], pre, range_bytes), count_corpus(p, pre))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.lists(st.sampled_from(list("ab AB'sé你\n\r\t.!1 ") + ["<s>", "😀", "\u3000"]),
                    min_size=1, max_size=60).map("".join),
       pattern=st.sampled_from(PATTERNS), range_bytes=st.integers(1, 9))
def test_any_text_any_range_size(tmp_path, text, pattern, range_bytes):
    p = tmp_path / "h.txt"
    p.write_bytes(text.encode("utf-8"))
    pre = Pretokenizer(pattern, ["<s>"])
    try:
        ref = count_corpus(p, pre)
    except CorpusError:      # nothing but whitespace for a pattern that skips it
        return
    assert_same(by_ranges([p], pre, range_bytes), ref)


def test_several_files_jsonl_gzip_bom_keep_corpus_order(tmp_path, mixed):
    a = tmp_path / "a.txt"
    a.write_bytes(b"\xef\xbb\xbf" + mixed[:2000].encode())
    j = tmp_path / "b.jsonl"
    j.write_text("".join(json.dumps({"text": mixed[i:i + 300]}) + "\n\n"
                         for i in range(0, 6000, 300)), encoding="utf-8")
    z = tmp_path / "c.txt.gz"
    with gzip.open(z, "wt", encoding="utf-8") as f:
        f.write(mixed[3000:])
    jz = tmp_path / "d.jsonl.xz"
    with lzma.open(jz, "wt", encoding="utf-8") as f:
        f.write(json.dumps({"text": "last words 😀"}) + "\n")
    pre = Pretokenizer("cl100k", [EOT])
    paths = [a, j, z, jz, a]
    kinds = {r.path: r.kind for r in plan_ranges(paths, 50)}
    assert [kinds[str(p)] for p in paths] == ["text", "jsonl", "whole", "whole", "text"]
    for size in (13, 200, 1 << 20):
        assert_same(by_ranges(paths, pre, size), count_corpus(paths, pre))


@pytest.mark.parametrize("lines", [False, True])
def test_a_bom_in_ranges_as_in_counting(tmp_path, lines):
    """One text per line keeps a file's BOM (as Hugging Face reads files), whole texts
    drop it; a range of a plain or a compressed file does the same as counting it."""
    text = "\ufeff" + "hello world\nthe cat\n" * 20
    a = tmp_path / "a.txt"
    a.write_bytes(text.encode("utf-8"))
    z = tmp_path / "b.txt.gz"
    with gzip.open(z, "wb") as f:
        f.write(text.encode("utf-8"))
    pre = Pretokenizer("gpt2")
    for path in (a, z):
        table = count_corpus(path, pre, lines=lines)
        assert ("\ufeff" in table.words) == lines
        for size in (5, 1 << 20):
            parts = list(count_ranges_here([path], pre, size, lines=lines))
            assert_same(table_of(merge_partials(*parts)), table)


def test_errors_name_the_file_offset_and_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"hello world " * 50 + b"\xff oops " + b"more words " * 20)
    pre = Pretokenizer()
    with pytest.raises(NotUTF8Error) as e:
        list(count_ranges_here([bad], pre, 64))
    assert e.value.offset == 600
    j = tmp_path / "bad.jsonl"
    j.write_text("".join(json.dumps({"text": f"line {i}"}) + "\n" for i in range(40))
                 + "{not json}\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="line 41 is not valid JSON"):
        list(count_ranges_here([j], pre, 100))
    binary = tmp_path / "b.txt"
    binary.write_bytes(b"\x00\x01" * 5000)
    with pytest.raises(CorpusError, match="binary"):
        list(count_ranges_here([binary], pre, 100))
    with pytest.raises(CorpusError, match="not found"):
        plan_ranges([tmp_path / "missing.txt"])


def accepted(bounds, buf, p: int, hi: int) -> bool:
    """p is a cut the rules accept (each match of a regex bounds checked, the scanner
    asked about p alone) and no special token is around it."""
    if bounds.native is not None:
        raw = _count.safe_cut(bounds.native, buf, p - 1, p) == p
    else:   # every match, overlapping ones too; a lookahead sees the character at hi
        raw = any(m.end() == p for m in bounds.rx.finditer(buf, 0, hi + 1, overlapped=True))
    return raw and (not bounds.specials or outside_specials(buf, p, p - 1, bounds.specials) == p)


def test_first_cut_is_the_smallest_cut_the_rules_accept():
    """Against checking every position one by one."""
    rng = random.Random(5)
    alphabet = list("ab  .\n9é你") + ["<s>"]
    for pattern in PATTERNS:
        bounds = Boundaries(Pretokenizer(pattern, ["<s>"]))
        for _ in range(150):
            buf = "".join(rng.choice(alphabet) for _ in range(40)).encode()
            hi = len(buf) - bounds.margin
            lo = rng.randrange(0, max(1, hi))
            ok = [p for p in range(lo + 1, hi + 1) if accepted(bounds, buf, p, hi)]
            assert first_cut(bounds, buf, lo, hi) == (ok[0] if ok else -1)


@pytest.mark.parametrize("preset", ["gpt2", "cl100k", "o200k"])
def test_presets_count_with_the_native_scanner_in_ranges(tmp_path, monkeypatch, preset):
    """A range task gets the preset's name, not its regex, so it runs the C scanner."""
    from bpe_gui.engine.corpus import range_count

    def no_regex(*a, **k):
        raise AssertionError("the regex path ran for a native preset")
    monkeypatch.setattr(range_count, "_regex_words", no_regex)
    p = tmp_path / "t.txt"
    p.write_text("Some words, 123 and more words\n" * 20, encoding="utf-8")
    pre = Pretokenizer(preset)
    assert_same(by_ranges([p], pre, 50), count_corpus(p, pre))
