"""Where words over 64 KiB are cut into pieces (word_limit.py), counting records each cut
as it makes it (``PretokenTable.cuts``): after counting, on a giant stretch, on threads,
in ranges, in a table file and in a sum of tables. A word at the limit, or a few bytes
under it, is no cut (a table alone cannot tell it from a piece)."""
from __future__ import annotations

import pytest
import regex

from array import array

from hypothesis import given, strategies as st

from bpe_gui.engine.corpus import blocks, giant, word_limit
from bpe_gui.engine.corpus.counting import count_corpus
from bpe_gui.engine.corpus.range_count import merge_partials, table_of
from bpe_gui.engine.corpus.table_file import read_table, write_table
from bpe_gui.engine.corpus.table_sums import read_tables
from bpe_gui.engine.corpus.word_limit import longest_word, split_long_words
from bpe_gui.engine.text.pretokenize import Pretokenizer

from engine_oracle import GPT2, count_ranges_here

pytest.importorskip("bpe_gui.engine.corpus._count")
LIMIT = 1 << 16


@pytest.fixture(params=["native", "python"])
def longest_route(request, monkeypatch):
    """Both ways to find a table's longest word: the C loop, and its Python twin."""
    if request.param == "python":
        monkeypatch.setattr(word_limit, "_count", None)
    return request.param


def oracle_cuts(text: str) -> int:
    """Cuts of every word of ``text`` (GPT-2's pattern): each piece LIMIT bytes or fewer,
    ending before a UTF-8 character start, greedily from the word's start."""
    n = 0
    for w in regex.findall(GPT2, text):
        b = w.encode("utf-8")
        while len(b) > LIMIT:
            end = LIMIT
            while b[end] & 0xC0 == 0x80:   # (inside a character: the piece ends before it)
                end -= 1
            b, n = b[end:], n + 1
    return n


def corpus(*words: str) -> str:
    return "".join(w + "\nhello world\n" for w in words)


@pytest.mark.parametrize("size", [LIMIT - 3, LIMIT - 2, LIMIT - 1, LIMIT])
def test_a_word_up_to_the_limit_is_no_cut(tmp_path, size, longest_route):
    p = tmp_path / "c.txt"
    p.write_text(corpus("a" * size, "é" * (size // 2)), "utf-8")
    for workers in (1, 2):
        table = count_corpus(p, Pretokenizer("gpt2"), workers=workers)
        assert table.cuts == 0
        assert max(len(w.encode()) for w in table.words) == size


@pytest.mark.parametrize("words", [["a" * (LIMIT + 1)], ["é" * (LIMIT // 2 + 1)],
                                   ["a" * (3 * LIMIT), "b" * (LIMIT + 1), "a" * (3 * LIMIT)],
                                   ["😀" * (LIMIT // 4 + 5)]])
def test_cuts_past_the_limit_are_counted(tmp_path, words, longest_route):
    text = corpus(*words)
    p = tmp_path / "c.txt"
    p.write_text(text, "utf-8")
    want = oracle_cuts(text)
    assert want >= 1
    for workers in (1, 2):
        assert count_corpus(p, Pretokenizer("gpt2"), workers=workers).cuts == want
    assert count_corpus(texts=[text], pre=Pretokenizer("gpt2")).cuts == want
    parts = count_ranges_here([p], Pretokenizer("gpt2"), range_bytes=LIMIT // 3)
    assert split_long_words(table_of(merge_partials(*parts))).cuts == want   # (as Dask)


def test_cuts_in_a_giant_stretch_are_counted_where_it_is_cut(tmp_path, monkeypatch):
    """A word longer than a carried tail is cut while it is read (giant.py): those cuts
    count too, and no cut twice."""
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 1 << 14)
    monkeypatch.setattr(giant, "GIANT_TAIL", 1 << 18)
    text = corpus("x" * 1_000_000, "y" * 300_000)
    p = tmp_path / "c.txt"
    p.write_text(text, "utf-8")
    want = oracle_cuts(text)
    assert want == 15 + 4
    for workers in (1, 2, 3):
        assert count_corpus(p, Pretokenizer("gpt2"), workers=workers).cuts == want


def test_cuts_are_kept_in_table_files_and_summed(tmp_path):
    text = corpus("a" * (2 * LIMIT + 5))
    (tmp_path / "c.txt").write_text(text, "utf-8")
    table = count_corpus(tmp_path / "c.txt", Pretokenizer("gpt2"), out=tmp_path / "t.tsv")
    assert table.cuts == oracle_cuts(text) == 2
    assert read_table(tmp_path / "t.tsv").cuts == 2
    write_table(table, tmp_path / "u.tsv")
    assert read_tables([tmp_path / "t.tsv", tmp_path / "u.tsv"]).cuts == 4


@given(lengths=st.lists(st.integers(0, 1 << 20), max_size=60))
def test_the_longest_word_on_both_routes(lengths):
    starts = array("q", [0])
    for n in lengths:
        starts.append(starts[-1] + n)
    want = max(lengths, default=0)
    assert longest_word(starts) == want
    with pytest.raises(TypeError, match="int64"):   # (a table's starts are int64)
        word_limit._count.longest_gap(array("i", starts))
    saved, word_limit._count = word_limit._count, None
    try:
        assert longest_word(starts) == want
    finally:
        word_limit._count = saved
