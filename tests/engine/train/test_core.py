"""Tests of the C core (bpe_gui.engine.train._core) against a naive recount-everything model."""
from __future__ import annotations

import os
import random
import threading
from array import array
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

_core = pytest.importorskip("bpe_gui.engine.train._core")
Core, GREATEST, FIRST_SEEN, LOWEST_IDS = _core.Core, _core.GREATEST, _core.FIRST_SEEN, _core.LOWEST_IDS
RULES = (GREATEST, FIRST_SEEN, LOWEST_IDS)


# ----------------------------------------------------------------------------------
# naive reference: recount every pair from scratch, merge left to right
# ----------------------------------------------------------------------------------
class Naive:
    def __init__(self, words, freqs, token_bytes, rule):
        self.words = [list(w) for w in words]
        self.freqs = list(freqs)
        self.tokens = list(token_bytes)
        self.rule = rule
        self.history = []  # (a, b, new, count, old words, touched word ids)
        self._counted = None   # counts() of the words as they are (step and undo forget it)

    def counts(self):
        """Every pair's count and first place, recounted from scratch once per state of
        the words (check_same and the next step ask again: the same answer, not to be
        changed by the caller)."""
        if self._counted is None:
            counts, first = Counter(), {}
            for wi, (w, f) in enumerate(zip(self.words, self.freqs)):
                for i in range(len(w) - 1):
                    p = (w[i], w[i + 1])
                    counts[p] += f
                    first.setdefault(p, (wi, i))
            self._counted = counts, first
        return self._counted

    def ordered(self):
        counts, first = self.counts()
        pairs = [p for p, c in counts.items() if c > 0]
        tb = self.tokens
        if self.rule == GREATEST:
            # greatest (bytes a, bytes b); equal bytes: greater ids
            pairs.sort(key=lambda p: (counts[p], tb[p[0]], tb[p[1]], p), reverse=True)
        elif self.rule == FIRST_SEEN:
            pairs.sort(key=lambda p: (-counts[p], first[p]))
        else:
            pairs.sort(key=lambda p: (-counts[p], p))
        return [(a, b, counts[(a, b)]) for a, b in pairs]

    def step(self):
        order = self.ordered()
        if not order:
            return None
        a, b, count = order[0]
        new = len(self.tokens)
        self.tokens.append(self.tokens[a] + self.tokens[b])
        old = [list(w) for w in self.words]
        touched = []
        for wi, w in enumerate(self.words):
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(new)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            if len(out) != len(w):
                touched.append(wi)
            self.words[wi] = out
        self._counted = None
        self.history.append((a, b, new, count, old, touched))
        return a, b, new, count

    def undo(self):
        a, b, new, _count, old, _t = self.history.pop()
        self.words = old
        self._counted = None
        self.tokens.pop()
        return a, b, new

    def touched(self):
        if not self.history:
            return []
        return sorted(self.history[-1][5], key=lambda w: (-self.freqs[w], w))

    def symbol_count(self, t):
        return sum(f * w.count(t) for w, f in zip(self.words, self.freqs))


def make_core(words, freqs, token_bytes, rule, as_lists=False):
    symbols, starts = array("i"), array("q", [0])
    for w in words:
        symbols.extend(w)
        starts.append(len(symbols))
    fr = array("q", freqs)
    if as_lists:
        return Core(list(symbols), list(starts), list(fr), list(token_bytes), rule)
    return Core(symbols, starts, fr, list(token_bytes), rule)


def check_same(core, ref, full=True):
    core._check()  # internal invariants (heap order, keys, caches)
    assert core.n_tokens == len(ref.tokens)
    assert core.n_steps == len(ref.history)
    for wi, w in enumerate(ref.words):
        assert core.word(wi) == w, wi
    order = ref.ordered()
    assert core.best() == (order[0] if order else None)
    if not full:
        return
    counts, _ = ref.counts()
    n = len(ref.tokens)
    for a in range(n):
        for b in range(n):
            assert core.pair_count(a, b) == counts.get((a, b), 0), (a, b)
    for t in range(n):
        assert core.symbol_count(t) == ref.symbol_count(t), t
        assert core.token(t) == ref.tokens[t]
    assert core.top(len(order) + 5) == order
    assert core.top(3) == order[:3]
    assert core.top(0) == []
    if order:
        n_tied = sum(1 for p in order if p[2] == order[0][2])
        for limit in (0, 1, 2, 1000):
            assert core.tied(limit) == (n_tied, order[:min(limit, n_tied)])
    else:
        assert core.tied(5) == (0, [])
    touched = ref.touched()
    assert core.touched(1000) == (len(touched), touched)
    assert core.touched(1) == (len(touched), touched[:1])
    # top()/tied() must not change anything
    assert core.top(len(order) + 5) == order


# ----------------------------------------------------------------------------------
# hypothesis corpora
# ----------------------------------------------------------------------------------
@st.composite
def corpora(draw, max_alpha=5, max_words=8, max_len=9):
    n_alpha = draw(st.integers(1, max_alpha))
    n_extra = draw(st.integers(0, 2))  # ids that never occur (e.g. specials)
    tb = draw(st.lists(st.binary(min_size=0, max_size=3).map(
        lambda b: bytes(x % 4 * 60 for x in b)),  # few distinct bytes: prefixes, duplicates
        min_size=n_alpha + n_extra, max_size=n_alpha + n_extra))
    words = draw(st.lists(st.lists(st.integers(0, n_alpha - 1), max_size=max_len),
                          min_size=1, max_size=max_words))
    freqs = draw(st.lists(st.one_of(st.integers(1, 4), st.just(10**12)),
                          min_size=len(words), max_size=len(words)))
    rule = draw(st.sampled_from(RULES))
    return words, freqs, tb, rule


HSET = settings(max_examples=int(os.environ.get("CORE_EXAMPLES", "300")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@HSET
@given(corpora())
def test_steps_match_naive(corpus):
    words, freqs, tb, rule = corpus
    core, ref = make_core(words, freqs, tb, rule), Naive(words, freqs, tb, rule)
    check_same(core, ref)
    while True:
        got, want = core.step(), ref.step()
        assert got == want
        if want is None:
            break
        check_same(core, ref)
        assert core.pair_count(want[0], want[1]) == 0
    assert core.run(5) == 0


@HSET
@given(corpora(), st.lists(st.sampled_from("ssssuuur"), max_size=30))
def test_step_undo_interleavings(corpus, ops):
    words, freqs, tb, rule = corpus
    core, ref = make_core(words, freqs, tb, rule), Naive(words, freqs, tb, rule)
    for op in ops:
        if op == "s":
            assert core.step() == ref.step()
        elif op == "r":
            k = random.Random(len(ref.history)).randint(0, 3)
            done = core.run(k)
            for _ in range(done):
                ref.step()
            assert done == k or ref.ordered() == []
        elif ref.history:
            assert core.undo() == ref.undo()
        else:
            with pytest.raises(IndexError):
                core.undo()
        check_same(core, ref)
    while ref.history:  # undo everything: back to the start exactly
        assert core.undo() == ref.undo()
    check_same(core, ref)


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("seed", range(4))
def test_bigger_random_corpus(rule, seed):
    rnd = random.Random(seed)
    n_alpha = rnd.choice([3, 6, 12])
    tb = [bytes(rnd.choice(b"abc") for _ in range(rnd.randint(1, 2))) for _ in range(n_alpha)]
    words = [[rnd.randrange(n_alpha) for _ in range(rnd.randint(0, 14))] for _ in range(150)]
    words += [[0] * rnd.randint(2, 12) for _ in range(10)]  # long overlapping runs
    freqs = [rnd.choice([1, 1, 2, 3, 7, 50]) for _ in words]
    core, ref = make_core(words, freqs, tb, rule), Naive(words, freqs, tb, rule)
    steps = 0
    while True:
        op = rnd.random()
        if op < 0.25 and ref.history:
            assert core.undo() == ref.undo()
        else:
            got, want = core.step(), ref.step()
            assert got == want
            if want is None:
                break
            steps += 1
        check_same(core, ref, full=steps % 10 == 0)
    check_same(core, ref)
    # and back to the start
    while ref.history:
        assert core.undo() == ref.undo()
        check_same(core, ref, full=len(ref.history) % 25 == 0)
    check_same(core, ref)


@pytest.mark.parametrize("rule", RULES)
def test_run_equals_steps(rule):
    rnd = random.Random(7)
    tb = [bytes([i]) for i in range(256)]
    words = [list(rnd.choice([b"ab", b"abc", b"aaaa", b"the", b"then", b"cab"]) * rnd.randint(1, 3))
             for _ in range(300)]
    freqs = [rnd.randint(1, 9) for _ in words]
    c1, c2 = make_core(words, freqs, tb, rule), make_core(words, freqs, tb, rule)
    seq = []
    while (s := c1.step()) is not None:
        seq.append(s)
    assert c2.run(10**6) == len(seq) == c1.n_steps
    assert [c1.word(w) for w in range(len(words))] == [c2.word(w) for w in range(len(words))]
    for _ in range(len(seq)):
        a, b, new, _count = seq.pop()
        assert c2.undo() == (a, b, new)
    assert [c2.word(w) for w in range(len(words))] == words
    assert c2.run(5, min_count=10**9) == 0
    assert c2.run(3) == 3


def test_min_count_stops_run():
    words, freqs = [[0, 1], [2, 3], [0, 1]], [5, 2, 1]
    core = make_core(words, freqs, [b"a", b"b", b"c", b"d"], GREATEST)
    assert core.run(10, min_count=3) == 1
    assert core.best() == (2, 3, 2)
    assert core.run(10, 2) == 1
    assert core.best() is None
    assert core.step() is None


# ----------------------------------------------------------------------------------
# the worked example
# ----------------------------------------------------------------------------------
def _example_core(rule=GREATEST):
    corpus = "low low lower newest newest widest widest widest"
    parts = corpus.split(" ")
    words = Counter([parts[0]] + [" " + p for p in parts[1:]])
    symbols, starts, freqs = array("i"), array("q", [0]), array("q")
    for w, f in words.items():
        symbols.extend(w.encode())
        starts.append(len(symbols))
        freqs.append(f)
    return Core(symbols, starts, freqs, [bytes([i]) for i in range(256)], rule), words


def test_worked_example():
    core, words = _example_core()
    assert core.n_tokens == 256 and core.n_steps == 0
    merges = []
    ties = []
    for _ in range(4):
        ties.append(core.tied(10)[0])
        a, b, new, count = core.step()
        merges.append((core.token(a), core.token(b), count))
        assert new == 255 + len(merges)
    assert merges == [(b"s", b"t", 5), (b"e", b"st", 5), (b"w", b"i", 3), (b"wi", b"d", 3)]
    assert ties[0] == 2 and ties[2] == 6
    assert core.token(259) == b"wid"
    assert core.n_tokens == 260
    # " widest" is word index 4 (Counter keeps first-seen order)
    assert list(words) == ["low", " low", " lower", " newest", " widest"]
    assert core.word(4) == [32, 259, 257]
    assert core.touched(10) == (1, [4])
    assert core.symbol_count(259) == 3 and core.symbol_count(ord("w")) == 5


def test_worked_example_six_way_tie_contents():
    core, _ = _example_core()
    core.step()
    core.step()
    n, pairs = core.tied(10)
    got = {(core.token(a), core.token(b)) for a, b, c in pairs}
    assert n == 6 and all(c == 3 for _, _, c in pairs)
    assert got == {(b" ", b"w"), (b"w", b"i"), (b"i", b"d"), (b"d", b"est"), (b"l", b"o"),
                   (b"o", b"w")}
    assert (core.token(pairs[0][0]), core.token(pairs[0][1])) == (b"w", b"i")
    n2, first2 = core.tied(2)
    assert n2 == 6 and first2 == pairs[:2]


def test_undo_then_step_reuses_id():
    core, _ = _example_core()
    core.step()
    assert core.step()[2] == 257
    assert core.undo() == (101, 256, 257)
    assert core.n_tokens == 257
    assert core.touched(5)[0] == 2
    with pytest.raises(IndexError):
        core.token(257)
    assert core.step() == (101, 256, 257, 5)
    assert core.token(257) == b"est"
    core.undo()
    core.undo()
    assert core.touched(5) == (0, [])
    with pytest.raises(IndexError):
        core.undo()
    assert core.n_steps == 0 and core.n_tokens == 256


def test_overlapping_run():
    core = make_core([[0, 0, 0, 0, 0]], [3], [b"a"], LOWEST_IDS)
    assert core.best() == (0, 0, 12)
    assert core.step() == (0, 0, 1, 12)
    assert core.word(0) == [1, 1, 0]
    assert core.pair_count(0, 0) == 0 and core.pair_count(1, 1) == 3 and core.pair_count(1, 0) == 3
    assert core.symbol_count(0) == 3 and core.symbol_count(1) == 6
    core.undo()
    assert core.word(0) == [0, 0, 0, 0, 0] and core.pair_count(0, 0) == 12


# ----------------------------------------------------------------------------------
# errors and odd inputs
# ----------------------------------------------------------------------------------
def test_errors():
    tb = [b"a", b"b"]
    with pytest.raises(ValueError):
        Core(array("i", [0, 2]), array("q", [0, 2]), array("q", [1]), tb, GREATEST)
    with pytest.raises(ValueError):
        Core(array("i", [0, -1]), array("q", [0, 2]), array("q", [1]), tb, GREATEST)
    with pytest.raises(ValueError):  # starts/freqs lengths disagree
        Core(array("i", [0, 1]), array("q", [0, 2]), array("q", [1, 1]), tb, GREATEST)
    with pytest.raises(ValueError):  # starts does not end at len(symbols)
        Core(array("i", [0, 1]), array("q", [0, 1]), array("q", [1]), tb, GREATEST)
    with pytest.raises(ValueError):  # decreasing starts
        Core(array("i", [0, 1]), array("q", [0, 2, 1, 2]), array("q", [1, 1, 1]), tb, GREATEST)
    with pytest.raises(ValueError):  # freq 0
        Core(array("i", [0, 1]), array("q", [0, 2]), array("q", [0]), tb, GREATEST)
    with pytest.raises(ValueError):  # bad tie rule
        Core(array("i", [0, 1]), array("q", [0, 2]), array("q", [1]), tb, 7)
    with pytest.raises(TypeError):
        Core(array("i", [0, 1]), array("q", [0, 2]), array("q", [1]), ["a", "b"], GREATEST)
    core = Core(array("i", [0, 1]), array("q", [0, 2]), array("q", [1]), tb, GREATEST)
    with pytest.raises(IndexError):
        core.undo()
    with pytest.raises(IndexError):
        core.word(1)
    with pytest.raises(IndexError):
        core.token(2)
    assert core.pair_count(5, -1) == 0
    assert core.touched(3) == (0, [])


def test_empty_and_short_words():
    core = make_core([[], [1], [], [0]], [1, 2, 3, 4], [b"x", b"y"], FIRST_SEEN)
    assert core.best() is None and core.step() is None and core.top(4) == []
    assert core.tied(4) == (0, [])
    assert core.word(0) == [] and core.word(1) == [1]
    assert core.symbol_count(0) == 4
    empty = Core(array("i"), array("q", [0]), array("q"), [], GREATEST)
    assert empty.best() is None and empty.n_tokens == 0 and empty.run(3) == 0


def test_accepts_lists():
    words, freqs, tb = [[0, 1, 0, 1], [1, 0]], [2, 3], [b"a", b"b"]
    core = make_core(words, freqs, tb, GREATEST, as_lists=True)
    assert core.best() == (1, 0, 5)


def test_run_in_thread_releases_gil():
    rnd = random.Random(3)
    words = [[rnd.randrange(20) for _ in range(30)] for _ in range(3000)]
    core = make_core(words, [1] * len(words), [bytes([65 + i]) for i in range(20)], GREATEST)
    out = []
    t = threading.Thread(target=lambda: out.append(core.run(2000)))
    t.start()
    t.join()
    assert out and out[0] == core.n_steps > 0


@pytest.mark.parametrize("rule", RULES)
def test_step_undo_cycles_stay_exact_and_bounded(rule):
    """Repeating step/undo must not grow the position lists without bound."""
    rnd = random.Random(11)
    words = [[rnd.randrange(4) for _ in range(rnd.randint(2, 20))] for _ in range(400)]
    freqs = [rnd.randint(1, 5) for _ in words]
    tb = [b"a", b"b", b"c", b"d"]
    core, fresh = make_core(words, freqs, tb, rule), make_core(words, freqs, tb, rule)
    entries0 = core._stats()["pos_entries"]
    for i in range(300):
        core.run(1 + i % 4)
        for _ in range(1 + i % 4):
            core.undo()
        core._check()
    assert core._stats()["pos_entries"] < 4 * entries0
    assert [core.word(w) for w in range(len(words))] == words
    assert core.top(100) == fresh.top(100)
    seq = []
    while (s := core.step()) is not None:
        seq.append(s)
    assert seq == [fresh.step() for _ in seq] and fresh.step() is None
    ref = Naive(words, freqs, tb, rule)
    assert seq == [ref.step() for _ in seq]
