"""Rényi efficiency (engine/analysis.py) against the formula written out here, and the
per-step curve against encoding the training corpus at every step."""
from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_gui.engine import analysis
from bpe_gui.engine.train.trainer import TrainSettings, Trainer


def direct(counts, vocab_size, alpha):
    """H_alpha in bits over log2 |V| (the base cancels), from probabilities."""
    n = sum(counts)
    p = [c / n for c in counts if c]
    if alpha == 1:
        h = -sum(x * math.log2(x) for x in p)
    else:
        h = math.log2(sum(x ** alpha for x in p)) / (1 - alpha)
    return h / math.log2(vocab_size)


@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=40),
       extra=st.integers(0, 1000), alpha=st.sampled_from([0.5, 1.0, 2.0, 2.5, 3.0]))
def test_efficiency_is_the_formula(counts, extra, alpha):
    size = len(counts) + extra
    got = analysis.renyi_efficiency(counts, size, alpha)
    if not sum(counts) or size < 2:
        assert got is None
    else:
        assert got == pytest.approx(direct(counts, size, alpha), rel=1e-12, abs=1e-12)


def test_worked_examples():
    assert analysis.renyi_efficiency([1, 1, 1, 1], 4) == pytest.approx(1.0)
    assert analysis.renyi_efficiency([1, 1], 4) == pytest.approx(0.5)
    assert analysis.renyi_efficiency([5], 4) == 0.0
    assert analysis.RENYI_ALPHA == 2.5


TEXT = ("low low lower newest newest widest widest widest <|e|> it's 你好世界 🙂 "
        "the quick brown fox, the lazy dog; 12345 ") * 6


@pytest.mark.parametrize("kw", [
    dict(vocab_size=400, special_tokens=("<|e|>",)),
    dict(vocab_size=350, special_tokens=("<|e|>",), prune=True, tie_rule="first-seen"),
    dict(vocab_size=330, mode="char", pattern="whitespace", special_tokens=("<|e|>",)),
    dict(vocab_size=300, mode="char", end_of_word="prefix", tie_rule="lowest-ids"),
], ids=["byte", "pruned", "char-suffix", "char-prefix"])
def test_curve_equals_encoding_the_corpus_at_every_step(kw):
    t = Trainer.from_text(TEXT, TrainSettings(**kw))
    t.run()
    specials = t.settings.special_tokens
    extra = list(analysis.special_counts(TEXT, specials).values())
    sp = t.tokenizer().special_ids
    assert extra == [Counter(t.tokenizer().encode(TEXT, allowed_special="all"))[sp[s]] for s in specials]
    c0 = analysis.counts_at_start(t.steps, analysis.token_frequencies(t))
    curve = analysis.corpus_renyi_efficiency(t.steps, c0, t.n_initial, extra=extra)
    assert len(curve) == t.n_steps + 1 > 20
    for k in range(t.n_steps + 1):
        tok = t.tokenizer(at_step=k)
        counts = Counter(tok.encode(TEXT, allowed_special="all"))
        want = direct(list(counts.values()), len(tok.vocab), 2.5)
        assert curve[k] == pytest.approx(want, rel=1e-11), k
    tail = analysis.corpus_renyi_efficiency(t.steps, c0, t.n_initial, start=10, extra=extra)
    assert tail == curve[10:]


def test_curve_follows_steps_and_undos():
    t = Trainer.from_text(TEXT, TrainSettings(vocab_size=400))
    curve = analysis.RenyiCurve(analysis.token_frequencies(t), t.n_initial)
    for _ in range(30):
        t.step()
    curve.sync(t.steps)
    fresh = lambda: analysis.corpus_renyi_efficiency(  # noqa: E731
        t.steps, analysis.counts_at_start(t.steps, analysis.token_frequencies(t)), t.n_initial)
    assert curve.values == pytest.approx(fresh(), rel=1e-12)
    for _ in range(12):
        t.undo()
    assert curve.sync(t.steps) == pytest.approx(fresh(), rel=1e-12)
    assert len(curve.values) == 19
    for _ in range(40):   # redone steps and new ones
        t.step()
    assert curve.sync(t.steps) == pytest.approx(fresh(), rel=1e-12)
    assert len(curve.values) == 59


def test_counts_at_start_undo_each_merge():
    t = Trainer.from_text(TEXT, TrainSettings(vocab_size=320))
    start = analysis.token_frequencies(t)
    t.run()
    assert analysis.counts_at_start(t.steps, analysis.token_frequencies(t))[:len(start)] == start


def test_special_counts_take_the_longest_overlapping_token():
    assert analysis.special_counts("a<s>b<s><|e|><s><s>>", ["<s>", "<s><s>", "<|e|>"]) == \
        {"<s>": 2, "<s><s>": 1, "<|e|>": 1}
    assert analysis.special_counts("abc", []) == {}
