"""The core's compact layout and its options, against the naive recount of test_core:
a core without an undo log (undo=False) steps exactly as one with it and refuses to go
back; words far longer than the 16-token look-up of a cell's word (the binary search
of word starts) train exactly; dead pairs' records are used again; the pure-Python
twin takes the same arguments."""
from __future__ import annotations

import random
from array import array

import pytest
from hypothesis import given

from bpe_gui.engine.corpus import count_corpus
from bpe_gui.engine.errors import SettingsError
from bpe_gui.engine.train import Trainer, TrainSettings, _pycore

from test_core import HSET, RULES, Naive, check_same, corpora, make_core

_core = pytest.importorskip("bpe_gui.engine.train._core")


def _args(words, freqs):
    symbols, starts = array("i"), array("q", [0])
    for w in words:
        symbols.extend(w)
        starts.append(len(symbols))
    return symbols, starts, array("q", freqs)


@HSET
@given(corpora())
def test_no_undo_log_steps_as_with_one_and_refuses_undo(corpus):
    words, freqs, tb, rule = corpus
    core = _core.Core(*_args(words, freqs), list(tb), rule, undo=False)
    kept, ref = make_core(words, freqs, tb, rule), Naive(words, freqs, tb, rule)
    while True:
        got, want = core.step(), ref.step()
        assert got == want == kept.step()
        if want is None:
            break
        check_same(core, ref)   # touched() reads the last step's merged cells
        assert core.history(0) == kept.history(0)
    if ref.history:
        with pytest.raises(RuntimeError, match="undo=False"):
            core.undo()
        check_same(core, ref)   # nothing changed


@pytest.mark.parametrize("mod", [_core, _pycore], ids=["C", "pure"])
def test_both_cores_take_the_same_arguments(mod):
    words, freqs = [[0, 1, 0, 1, 2], [1, 0, 1], []], [3, 2, 5]
    tb = [b"a", b"b", b"c"]
    by_kw = mod.Core(*_args(words, freqs), tb, tie_rule=mod.LOWEST_IDS, undo=False)
    by_pos = mod.Core(*_args(words, freqs), tb, mod.LOWEST_IDS, True)
    ref = Naive(words, freqs, tb, mod.LOWEST_IDS)
    for _ in range(3):
        assert by_kw.step() == by_pos.step() == ref.step()
    assert by_kw.touched(5) == by_pos.touched(5) == (len(ref.touched()), ref.touched())
    after3 = [list(w) for w in ref.words]
    with pytest.raises(RuntimeError, match="undo=False"):
        by_kw.undo()
    assert by_pos.undo() == ref.undo()
    assert [by_kw.word(w) for w in range(3)] == after3   # the refused undo changed nothing
    assert [by_pos.word(w) for w in range(3)] == ref.words


@pytest.mark.parametrize("mod", [_core, _pycore], ids=["C", "pure"])
def test_history_columns_are_the_history_column_by_column(mod):
    """What Trainer reads after a run (seven int64 columns end to end) holds history()'s
    tuples, column by column, from any step on."""
    words, freqs = [[0, 1, 0, 1, 2], [1, 0, 1, 2, 2], [2, 0]], [3, 2, 5]
    core = mod.Core(*_args(words, freqs), [b"a", b"b", b"c"], mod.LOWEST_IDS)
    while core.step() is not None:
        pass
    assert core.n_steps >= 4
    for start in range(core.n_steps + 1):
        rows = core.history(start)
        cols = array("q")
        cols.frombytes(core.history_columns(start))
        assert len(cols) == 7 * len(rows) == 7 * (core.n_steps - start)
        assert list(cols) == [v for column in zip(*rows) for v in column]


def _long_corpus(seed: int, long_len: int):
    rnd = random.Random(seed)
    tb = [b"a", b"b", b"c", b"<s>"]
    words = [[rnd.choice((0, 0, 1, 2)) for _ in range(long_len)],   # one very long word
             [], [0, 1], [2] * 40]                                  # empty, short, a run
    words += [[rnd.randrange(3) for _ in range(rnd.randint(1, 9))] for _ in range(30)]
    words.append([rnd.randrange(3) for _ in range(long_len // 2)])  # and another
    freqs = [rnd.choice((1, 2, 5)) for _ in words]
    return words, freqs, tb


@pytest.mark.parametrize("rule", RULES)
def test_words_far_longer_than_the_near_lookup_train_exactly(rule):
    # 70,000 symbols: more than any 16-bit link could span, and words whose cells are
    # mostly far (over 16 tokens) from their end, where the word is found by search
    words, freqs, tb = _long_corpus(1, 70_000)
    core, ref = make_core(words, freqs, tb, rule), Naive(words, freqs, tb, rule)
    for i in range(40):
        assert core.step() == ref.step()
        check_same(core, ref, full=False)
        n, ids = core.touched(100)
        assert (n, ids) == (len(ref.touched()), ref.touched()[:100])
    while ref.history:
        assert core.undo() == ref.undo()
    check_same(core, ref, full=False)


def test_dead_pairs_records_are_used_again():
    rnd = random.Random(3)
    words = [[rnd.randrange(6) for _ in range(rnd.randint(2, 12))] for _ in range(400)]
    freqs = [rnd.randint(1, 20) for _ in words]
    tb = [bytes([97 + i]) for i in range(6)]
    core, ref = make_core(words, freqs, tb, _core.LOWEST_IDS), Naive(words, freqs, tb,
                                                                    _core.LOWEST_IDS)
    ever = set(ref.counts()[0])
    most_live = len(ever)
    while ref.step() is not None:
        live = {p for p, c in ref.counts()[0].items() if c > 0}
        ever |= live
        most_live = max(most_live, len(live))
        core.step()
        core._check()
    # a record for each pair alive at once (and those a step takes while it works), not
    # one for every pair that ever occurred
    records = core._stats()["pairs"]
    assert records < len(ever)
    assert records <= most_live + 2 * 60
    while core.n_steps:
        core.undo()
    core._check()


def test_trainer_without_undo_trains_the_same_and_says_it_cannot_go_back(tmp_path):
    text = "the cat sat on the mat; the rat sat at that mat " * 20
    path = tmp_path / "c.txt"
    path.write_text(text, encoding="utf-8")
    table = count_corpus([str(path)])
    s = TrainSettings(vocab_size=300)
    kept, forward = Trainer(table, s), Trainer(table, s, undo=False)
    kept.run()
    forward.run()   # with details: the affected words come from the last step's cells
    assert forward.steps == kept.steps and any(r.affected for r in kept.steps)
    for back in (forward.undo, lambda: forward.goto(3)):
        with pytest.raises(SettingsError, match="only goes forward"):
            back()
    assert forward.merges == kept.merges
