"""The native word counter (_count): its table against a Counter, its first-appearance
order across merged counters, its array round trip, and its UTF-8 check against
Python's decoder."""
from __future__ import annotations

from array import array
from collections import Counter

import pytest
import regex
from hypothesis import given, settings, strategies as st

from bpe_gui.engine.text.pretokenize import PRESETS

from engine_oracle import split_specials

_count = pytest.importorskip("bpe_gui.engine.corpus._count")
PRESET_IDS = {"gpt2": 0, "cl100k": 1, "o200k": 2}


def words_of(counter) -> list[tuple[str, int]]:
    blob, starts_b, counts_b = counter.export()
    st_, ct = array("q"), array("q")
    st_.frombytes(starts_b)
    ct.frombytes(counts_b)
    return [(blob[st_[i]:st_[i + 1]].decode(), ct[i]) for i in range(len(ct))]


texts = st.lists(st.sampled_from(list("ab AB'sé你\n\t.!1") + ["<s>", "<s>x", "😀"]),
                 max_size=60).map("".join)


@settings(max_examples=200, deadline=None)
@given(docs=st.lists(texts, min_size=1, max_size=5), preset=st.sampled_from(list(PRESET_IDS)))
def test_counts_and_order_equal_a_counter(docs, preset):
    specials = ["<s>x", "<s>"]
    c = _count.WordCounter(PRESET_IDS[preset], [s.encode() for s in specials])
    ref: Counter = Counter()
    for i, d in enumerate(docs):
        c.count(d.encode(), i)
        for piece, special in split_specials(d, specials):
            if not special:
                ref.update(regex.findall(PRESETS[preset], piece))
    assert words_of(c) == list(ref.items())
    assert c.total == sum(ref.values()) and len(c) == len(ref)
    assert c.bytes == sum(len(d.encode()) for d in docs)
    assert c.chars == sum(len(d) for d in docs)


@settings(max_examples=300, deadline=None)
@given(docs=st.lists(texts, min_size=1, max_size=4), preset=st.sampled_from(list(PRESET_IDS)),
       stop=st.integers(0, 300))
def test_lines_with_specials_equal_each_line_alone(docs, preset, stop):
    """lines=True: each line (its \n kept) is a text of its own, special tokens included:
    a token that would run past a line's end is no token there, though a shorter one that
    starts later in the line still is; a token may end with the \n. With stop, only the
    words that start before it count."""
    specials = ["<s>x", "<s>", "a\n", "\n<s>", "s>x\n<"]
    c = _count.WordCounter(PRESET_IDS[preset], [s.encode() for s in specials], True)
    ref: Counter = Counter()
    for i, d in enumerate(docs):
        data = d.encode()
        cut = min(stop, len(data))
        c.count(data, i, 0, cut)
        pos = 0
        for line in data.split(b"\n"):
            line_end = min(pos + len(line) + 1, len(data))
            text = data[pos:line_end].decode()
            at = pos
            for piece, special in split_specials(text, specials):
                if not special:
                    for m in regex.finditer(PRESETS[preset], piece):
                        if at + len(piece[:m.start()].encode()) < cut:
                            ref[m.group()] += 1
                at += len(piece.encode())
            pos = line_end
    assert words_of(c) == list(ref.items())


@settings(max_examples=100, deadline=None)
@given(blocks=st.lists(st.lists(st.sampled_from(["a", "b", "cc", "a b", "ddd" * 4, "é"]),
                                max_size=8), min_size=1, max_size=6),
       split=st.integers(0, 6))
def test_merged_counters_keep_corpus_order(blocks, split):
    """Blocks counted on different counters, merged in any order, give the order a single
    pass gives."""
    one = _count.WordCounter()
    a, b = _count.WordCounter(), _count.WordCounter()
    for i, words in enumerate(blocks):
        one.count_words(words, i)
        (a if i < split else b).count_words(words, i)
    b.merge(a)
    assert words_of(b) == words_of(one)
    assert b.total == one.total


def reference_table(blocks) -> list[tuple[str, int]]:
    """One pass over the blocks in order: a dict keeps first appearance (the oracle)."""
    ref: dict[str, int] = {}
    for words in blocks:
        for w in words:
            ref[w] = ref.get(w, 0) + 1
    return list(ref.items())


def table_of(exported) -> list[tuple[str, int]]:
    blob, starts_b, counts_b = exported
    st_, ct = array("q"), array("q")
    st_.frombytes(starts_b)
    ct.frombytes(counts_b)
    return [(blob[st_[i]:st_[i + 1]].decode(), ct[i]) for i in range(len(ct))]


@settings(max_examples=150, deadline=None)
@given(blocks=st.lists(st.lists(st.sampled_from(["a", "b", "cc", "a b", "ddd" * 4, "é",
                                                 "eight888", "nine99999", "x" * 30]),
                                max_size=8), min_size=1, max_size=8),
       owners=st.lists(st.integers(0, 3), min_size=8, max_size=8),
       backwards=st.booleans(), threads=st.sampled_from([0, 1, 2, 3, 9]))
def test_export_merged_equals_one_pass(blocks, owners, backwards, threads):
    """Blocks dealt to up to four counters (each taking its blocks in order, or backwards,
    so its table is not in key order) export, merged, exactly one pass's table, gathered
    on any number of threads; the counters are spent."""
    counters = [_count.WordCounter() for _ in range(4)]
    mine = [[i for i in range(len(blocks)) if owners[i] == k] for k in range(4)]
    for k, c in enumerate(counters):
        for i in (reversed(mine[k]) if backwards else mine[k]):
            c.count_words(blocks[i], i)
    used = [c for k, c in enumerate(counters) if mine[k]] or counters[:1]
    expected = reference_table(blocks)
    blob, starts, counts, firsts = _count.export_merged(used, firsts=True, threads=threads)
    assert table_of((blob, starts, counts)) == expected
    keys = array("Q")
    keys.frombytes(firsts)
    assert list(keys) == sorted(keys)
    if len(used) > 1:
        assert all(len(c) == 0 and c.total == 0 for c in used)


def test_tables_grown_many_times_keep_counts_and_order():
    """Tens of thousands of distinct words (short ones kept in the entry, long ones in the
    arena, past many doublings of the index and of the arena's chunks), counted over
    blocks dealt to two counters, equal one pass, whether exported or merged."""
    import random
    rng = random.Random(5)
    vocab = [f"w{i}" for i in range(30000)] + ["long" * (1 + i % 40) + str(i)
                                              for i in range(30000)]
    # each word one of the first 50 or of all 60,000 (an index: a slice of the list
    # for each of the 80,000 words had cost a minute)
    blocks = [[vocab[rng.randrange(rng.choice((50, 60000)))] for _ in range(2000)]
              for _ in range(40)]
    expected = reference_table(blocks)
    one, a, b = _count.WordCounter(), _count.WordCounter(), _count.WordCounter()
    for i, words in enumerate(blocks):
        one.count_words(words, i)
        (a if i % 3 else b).count_words(words, i)
    assert len(expected) > 20000
    assert words_of(one) == expected
    assert table_of(_count.export_merged([b, a])) == expected
    c, d = _count.WordCounter(), _count.WordCounter()
    for i, words in enumerate(blocks):
        (c if i % 2 else d).count_words(words, i)
    c.merge(d)   # (c's table now holds words out of key order)
    assert words_of(c) == expected


@pytest.mark.parametrize("threads", [1, 2, 16, 0])
def test_export_merged_many_tables_equals_one_pass(threads):
    """Sixteen counters, as sixteen counting threads leave them: each holds words no other
    has (so the union outgrows every table many times over) and words all share, from
    blocks dealt round-robin and in runs; merged, on one thread or gathered by partitions
    of the words on several, they equal one pass in order."""
    import random
    rng = random.Random(16)
    shared = [f"s{i}" for i in range(300)]
    blocks = []
    for i in range(160):
        own = [f"t{i}w{j}" + "x" * (j % 12) for j in range(rng.randrange(50, 400))]
        blocks.append([rng.choice(shared + own) for _ in range(600)])
    counters = [_count.WordCounter() for _ in range(16)]
    for i, words in enumerate(blocks):
        k = i % 16 if i < 80 else (i - 80) // 5   # round-robin, then runs of five blocks
        counters[k].count_words(words, i)
    expected = reference_table(blocks)
    assert len(expected) > 4 * max(len(c) for c in counters)
    blob, starts, counts, firsts = _count.export_merged(counters, firsts=True, threads=threads)
    assert table_of((blob, starts, counts)) == expected
    keys = array("Q")
    keys.frombytes(firsts)
    assert list(keys) == sorted(keys)


def test_export_merged_block_counted_on_two_tables():
    """A block counted on two counters (the same keys on both) counts twice, and keeps
    its place: the merge takes equal keys from the lower table first."""
    blocks = [["a", "b"], ["c", "a"], ["d"]]
    for threads in (1, 4):
        x, y = _count.WordCounter(), _count.WordCounter()
        x.count_words(blocks[0], 0)
        y.count_words(blocks[0], 0)
        y.count_words(blocks[1], 1)
        x.count_words(blocks[2], 2)
        assert table_of(_count.export_merged([x, y], threads=threads)) == \
            [("a", 3), ("b", 2), ("c", 1), ("d", 1)]


def test_export_merged_wrong_use():
    a = _count.WordCounter()
    a.count_words(["x"], 0)
    with pytest.raises(ValueError, match="given twice"):
        _count.export_merged([a, a])
    with pytest.raises(TypeError):
        _count.export_merged([a, "not a counter"])
    with pytest.raises(ValueError, match="threads"):
        _count.export_merged([a], threads=-1)
    assert words_of(a) == [("x", 1)]   # (untouched by the refused calls)
    assert table_of(_count.export_merged([])) == []
    assert table_of(_count.export_merged([a])) == [("x", 1)] == words_of(a)


def test_add_table_round_trip_with_firsts():
    c = _count.WordCounter()
    c.count_words(["x", "yy", "x", "z" * 20], 3)
    c.count_words(["w", "yy"], 1)
    blob, starts, counts, firsts = c.export(firsts=True)
    d = _count.WordCounter()
    d.add_table(blob, starts, counts, firsts)
    assert words_of(d) == words_of(c) == [("w", 1), ("yy", 2), ("x", 2), ("z" * 20, 1)]
    assert d.export(firsts=True) == (blob, starts, counts, firsts)
    # without firsts, the table's own order at the block given
    e = _count.WordCounter()
    e.count_words(["first"], 0)
    e.add_table(blob, starts, counts, block=1)
    assert [w for w, _ in words_of(e)] == ["first", "w", "yy", "x", "z" * 20]
    with pytest.raises(ValueError, match="mismatched"):
        e.add_table(blob, starts[:-8], counts)
    bad = array("q", [0, 1, 1])  # second word empty
    with pytest.raises(ValueError, match="bad entry"):
        e.add_table(b"ab", bad.tobytes(), array("q", [1, 1]).tobytes())


def test_ordinals_continue_within_a_block():
    """Two texts of one block numbered one after the other order like one pass."""
    a = _count.WordCounter(0)
    nxt = a.count("x y", 4)
    assert nxt == 2
    assert a.count(" z x", 4, nxt) == 4
    b = _count.WordCounter(0)
    b.count(" z", 4, 2)   # seen after "x", " y" of the same block
    b.count("x", 4, 0)
    b.merge(a)
    assert [w for w, _ in words_of(b)] == ["x", " y", " z", " x"]
    w = _count.WordCounter()
    assert w.count_words(["p", "q"], 0, 7) == 9
    with pytest.raises(OverflowError):
        w.count_words(["p"], 0, 1 << 32)


def test_count_words_needs_add_size_for_sizes():
    c = _count.WordCounter()
    c.count_words(["ab", " c"], 0)
    assert (c.chars, c.bytes) == (0, 0)
    c.add_size(3, 4)
    assert (c.chars, c.bytes) == (3, 4)


def test_wrong_use_is_an_error_not_a_crash():
    with pytest.raises(ValueError, match="no scanner"):
        _count.WordCounter().count(b"abc")
    with pytest.raises(ValueError, match="unknown scanner preset"):
        _count.WordCounter(7)
    with pytest.raises(TypeError):
        _count.WordCounter(0, [b""])
    with pytest.raises(UnicodeEncodeError):
        _count.WordCounter(0).count("lone \ud800")
    c = _count.WordCounter()
    with pytest.raises(ValueError, match="cannot merge itself"):
        c.merge(c)
    with pytest.raises(TypeError):
        c.merge("not a counter")
    u = _count.WordCounter.__new__(_count.WordCounter)  # never initialised
    assert len(u) == 0 and words_of(u) == []


@settings(max_examples=500, deadline=None)
@given(data=st.binary(max_size=40) | texts.map(lambda t: t.encode())
       | st.lists(st.sampled_from([b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\xe4\xbd",
                                   b"a", "你".encode(), b"\xf0\x9f\x98\x80"]), max_size=8)
       .map(b"".join))
def test_utf8_error_agrees_with_python(data):
    try:
        data.decode("utf-8")
        expected = -1
    except UnicodeDecodeError as e:
        expected = e.start
    assert _count.utf8_error(data) == expected


@settings(max_examples=300, deadline=None)
@given(head=st.integers(0, 100), tail=st.integers(0, 70),
       middle=st.sampled_from([b"", b"\x80", b"\xff", b"\xed\xa0\x80", b"\xc3", "é".encode(),
                               b"\xf0\x9f\x98", "😀".encode()]))
def test_utf8_error_after_long_ascii_runs(head, tail, middle):
    """The ASCII fast paths (32 and 8 bytes a step) stop at the right byte, wherever the
    first non-ASCII byte falls."""
    data = b"a" * head + middle + b"z" * tail
    test_utf8_error_agrees_with_python.hypothesis.inner_test(data)
