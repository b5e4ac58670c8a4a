"""The core with columns (``ColumnCore``: parity training's one core, every word with a
count per language) against a slow recount written here: after random merges and undos,
each column's pair counts, best pair, ties and symbols, the training occurrences of
every token, the words a merge changed and each table row's word are recounted from
the tables and the merges alone. On the C core and on its pure-Python twin."""
from __future__ import annotations

import random
from array import array
from collections import Counter

import pytest

from bpe_gui.engine.train import _pycore

try:
    from bpe_gui.engine.train import _core
    MODS = [_core, _pycore]
except ImportError:   # the extension is not built: the twin alone
    MODS = [_pycore]
ENGINES = pytest.mark.parametrize("mod", MODS, ids=[m.__name__.rsplit(".", 1)[1] for m in MODS])


def table(words: dict[bytes, int]) -> tuple[bytes, array, array]:
    starts = array("q", [0])
    for w in words:
        starts.append(starts[-1] + len(w))
    return b"".join(words), starts, array("q", words.values())


class Oracle:
    """The tables' words as token lists, merged by a plain left-to-right loop; every
    count recounted from scratch when asked."""

    def __init__(self, tables: list[dict[bytes, int]], n_train: int, with_sum: bool):
        self.tokens = [bytes([i]) for i in range(256)]
        self.n_train, self.with_sum = n_train, with_sum
        self.heaped = n_train + with_sum
        # per column: {word bytes: count}; the sum column is the training tables' sum
        cols = list(tables[:n_train])
        if with_sum:
            total: Counter[bytes] = Counter()
            for t in tables[:n_train]:
                total.update(t)
            cols.append(dict(total))
        self.cols = cols + list(tables[n_train:])
        self.seg = {w: list(w) for t in tables for w in t}   # word bytes -> token ids

    def merge(self, a: int, b: int) -> set[bytes]:
        new = len(self.tokens)
        self.tokens.append(self.tokens[a] + self.tokens[b])
        changed = set()
        for w, ids in self.seg.items():
            out, i = [], 0
            while i < len(ids):
                if i + 1 < len(ids) and ids[i] == a and ids[i + 1] == b:
                    out.append(new)
                    i += 2
                else:
                    out.append(ids[i])
                    i += 1
            if out != ids:
                changed.add(w)
                self.seg[w] = out
        return changed

    def pair_counts(self, col: int) -> Counter[tuple[int, int]]:
        counts: Counter[tuple[int, int]] = Counter()
        for w, f in self.cols[col].items():
            ids = self.seg[w]
            for p in zip(ids, ids[1:]):
                counts[p] += f
        return counts

    def totals(self) -> tuple[int, ...]:
        return tuple(sum(len(self.seg[w]) * f for w, f in col.items()) for col in self.cols)

    def symbol_count(self, t: int) -> int:
        return sum(self.seg[w].count(t) * f for col in self.cols[:self.n_train]
                   for w, f in col.items())


def random_tables(rng: random.Random, n: int) -> list[dict[bytes, int]]:
    out = []
    for _ in range(n):
        alphabet = rng.choice([b"ab", b"abc", b"abcd ", "aé中".encode()])
        words = {}
        for _ in range(rng.randint(1, 9)):
            words[bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 7)))] = \
                rng.randint(1, 6)
        out.append(words)
    return out


def agree(core, oracle: Oracle, tables: list[dict[bytes, int]]) -> None:
    """Every column count the core keeps equals the oracle's recount."""
    assert core.totals() == oracle.totals()
    for col in range(oracle.heaped):
        want = oracle.pair_counts(col)
        every = core.top(col, 10_000)
        assert {(a, b): n for a, b, n in every} == {p: n for p, n in want.items() if n}
        assert [n for _, _, n in every] == sorted(want.values(), reverse=True)[:len(every)]
        for (a, b), n in want.items():
            assert core.pair_count(col, a, b) == n
        best = core.best(col)
        if not want:
            assert best is None and core.tied(col, 5) == (0, [])
            continue
        top = max(want.values())
        tied = [p for p, n in want.items() if n == top]
        assert best[2] == top and (best[0], best[1]) in tied
        assert core.tied(col, 100)[0] == len(tied)
    for t in range(len(oracle.tokens)):
        assert core.symbol_count(t) == oracle.symbol_count(t)
    for ti, words in enumerate(tables):
        col = ti if ti < oracle.n_train else ti + oracle.with_sum
        rows = array("i")
        rows.frombytes(core.rows(col))
        for j, w in enumerate(words):
            assert b"".join(core.token(t) for t in core.word(rows[j])) == w
            assert core.word(rows[j]) == oracle.seg[w]


@ENGINES
def test_column_counts_equal_a_recount_after_random_merges_and_undos(mod):
    rng = random.Random(68)
    for trial in range(60 if mod is _pycore else 250):
        n_train, n_dev = rng.randint(1, 4), rng.randint(0, 3)
        with_sum = rng.random() < 0.5
        tables = random_tables(rng, n_train + n_dev)
        core = mod.ColumnCore([table(t) for t in tables], n_train, with_sum, mod.GREATEST_HF)
        oracle = Oracle(tables, n_train, with_sum)
        states = [(core.totals(), {c: oracle.pair_counts(c) for c in range(oracle.heaped)})]
        agree(core, oracle, tables)
        for _ in range(rng.randint(1, 10)):
            pairs = [p for c in range(oracle.heaped) for p in oracle.pair_counts(c)]
            if pairs and rng.random() < 0.8:
                a, b = rng.choice(pairs)
            else:   # a pair that may not occur: its token is made all the same
                a, b = rng.randrange(len(oracle.tokens)), rng.randrange(len(oracle.tokens))
            changed = oracle.merge(a, b)
            assert core.merge(a, b) == len(oracle.tokens) - 1
            if rng.random() < 0.3:   # else one column read: the others' heaps wait
                core._check()
                agree(core, oracle, tables)
            else:
                col = rng.randrange(oracle.heaped)
                want = oracle.pair_counts(col)
                best = core.best(col)
                assert (best[2] if best else 0) == max(want.values(), default=0)
            col = rng.randrange(len(tables) + with_sum)
            if col != n_train or not with_sum:
                ti = col if col < n_train else col - with_sum
                rows = {w: j for j, w in enumerate(tables[ti])}
                mine = sorted((w for w in changed if w in rows),
                              key=lambda w: (-tables[ti][w], rows[w]))
                assert core.touched(col, 3) == (len(mine), [rows[w] for w in mine[:3]])
            states.append((core.totals(), {c: oracle.pair_counts(c)
                                           for c in range(oracle.heaped)}))
        agree(core, oracle, tables)
        while core.n_steps and rng.random() < 0.7:   # undo restores the counts before
            core.undo()
            states.pop()
            core._check()
            totals, counts = states[-1]
            assert core.totals() == totals
            for c, want in counts.items():
                assert {(a, b): n for a, b, n in core.top(c, 10_000)} == \
                    {p: n for p, n in want.items() if n}


@ENGINES
def test_ties_go_to_the_greatest_gpt2_spelling_in_every_column(mod):
    """Two columns with the same counts on different pairs: each column's best is its
    own greatest pair of GPT-2 spellings (' ' is 'Ġ', above every letter)."""
    tables = [{b"ab": 2, b"cd": 2}, {b" a": 3, b"zz": 3, b"ab": 1}]
    core = mod.ColumnCore([table(t) for t in tables], 2, True, mod.GREATEST_HF)
    assert core.best(0) == (ord("c"), ord("d"), 2)
    assert core.best(1) == (ord(" "), ord("a"), 3)
    assert core.best(2) == (ord(" "), ord("a"), 3)   # the sum: three pairs at 3


@ENGINES
def test_bad_tables_and_columns_say_what_is_wrong(mod):
    good = table({b"ab": 1})
    with pytest.raises(ValueError, match="one more entry than counts"):
        mod.ColumnCore([(b"ab", array("q", [0, 2]), array("q", [1, 1]))], 1)
    with pytest.raises(ValueError, match="counts must be >= 1"):
        mod.ColumnCore([(b"ab", array("q", [0, 2]), array("q", [0]))], 1)
    with pytest.raises(ValueError, match="n_train must be between 0 and the number of tables"):
        mod.ColumnCore([good], 2)
    core = mod.ColumnCore([good, good], 1)
    with pytest.raises(IndexError, match="column 1 has no pair counts"):
        core.best(1)
