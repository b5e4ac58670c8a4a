"""The trainer against a slow, obviously-correct oracle on random corpora.

Hypothesis makes corpora with multi-byte characters, repeated letters (overlaps and
ties) and special tokens inside the text; every tie rule, both modes, both
end-of-word positions, min_frequency and num_merges/vocab_size variations.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_gui.engine import BPEError, SettingsError, TrainSettings, Trainer

from engine_oracle import available_cores, make_oracle, split_specials, using_core, word_counts

SPECIALS = ("<|endoftext|>", "<|end|>", "<|endoftext|>!")  # overlapping: longest first
FRAGMENTS = ["a", "aa", "aaaa", "aaaaa", "b", "ab", "ba", "bab", " ", "  ", "\n", "\n\n",
             "\t", "你", "好", "你好", "é", "e\u0301", "😀", "🙂", "'s", "'ll", " low",
             " lower", "est", "st", "1", "23", "!", "?!", ".", "<|endoftext|>", "<|end|>",
             "<|endoftext|>!", "<|endo", "|>"]

corpora = st.one_of(
    st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=40).map("".join),
    st.text(alphabet="ab é你好😀\n'", min_size=1, max_size=60),
    st.text(min_size=1, max_size=30),
)
specials_st = st.sampled_from([(), ("<|endoftext|>",), SPECIALS])


def _engine_ranking(t: Trainer) -> list[tuple[int, int, int]]:
    return [(r.a, r.b, r.count) for r in t.top_pairs(10**6)]


@pytest.mark.parametrize("core", available_cores())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=corpora, specials=specials_st, data=st.data(),
       mode=st.sampled_from(["byte", "char"]), eow=st.sampled_from(["suffix", "prefix"]),
       pattern=st.sampled_from(["gpt2", "gpt2", "whitespace"]),
       rule=st.sampled_from(["greatest", "first-seen", "lowest-ids", "lowest-ids-hf"]),
       min_frequency=st.integers(1, 3), prune=st.booleans())
@pytest.mark.slow
def test_trainer_matches_oracle(core, text, specials, data, mode, eow, pattern, rule,
                                min_frequency, prune):
    with using_core(core):
        _check_against_oracle(text, specials, data, mode, eow, pattern, rule, min_frequency,
                              prune)


def _check_against_oracle(text, specials, data, mode, eow, pattern, rule, min_frequency,
                          prune=False):
    oracle = make_oracle(text, specials, mode, eow, pattern, rule)
    if data.draw(st.booleans(), label="by num_merges"):
        num_merges, vocab_size = data.draw(st.integers(0, 40), label="num_merges"), None
    else:
        base = (len(oracle.tokens) if oracle else 256 + len(specials))
        if prune and oracle:
            base = oracle.live_now()
        num_merges, vocab_size = None, base + data.draw(st.integers(-3 if prune else 0, 40),
                                                        label="extra")
        if vocab_size < 0:   # (below the live tokens of a tiny pruned corpus) refused when made
            with pytest.raises(SettingsError, match="Vocab size is -"):
                TrainSettings(vocab_size=vocab_size, prune=prune)
            return
    s = TrainSettings(vocab_size=vocab_size, num_merges=num_merges, mode=mode,
                      end_of_word=eow, pattern=pattern, special_tokens=specials,
                      tie_rule=rule, min_frequency=min_frequency, prune=prune)
    if oracle is None:  # nothing to train on: the engine must say so, not crash
        try:
            Trainer.from_text(text, s)
        except BPEError:
            return
        raise AssertionError("an empty corpus was accepted")
    t = Trainer.from_text(text, s)
    assert t.vocab == dict(enumerate(oracle.tokens))
    assert _engine_ranking(t) == oracle.ranking()
    steps = t.run()
    oracle.train(num_merges, vocab_size, min_frequency, prune)
    n = len(oracle.merges)
    if oracle.ambiguous:  # equal bytes on both sides: the rule leaves the order open
        steps = steps[:n]
    assert [(st_.pair[0], st_.pair[1], st_.count) for st_ in steps] == oracle.merges
    assert t.merges[:n] == [(oracle.tokens[a], oracle.tokens[b]) for a, b, _ in oracle.merges]
    for rec, n_tied, tied in zip(steps, oracle.n_tied, oracle.tied):
        assert rec.n_tied == n_tied
        assert rec.tied[0] == rec.pair
        assert set(rec.tied) <= tied and len(rec.tied) == min(len(tied), 50)
        assert rec.new_id == n_initial(oracle) + rec.index - 1
    for rec, live, removed in zip(steps, oracle.live, oracle.removed):
        assert rec.live_size == live
        assert set(rec.removed) == removed
    if not oracle.ambiguous:
        assert t.vocab == dict(enumerate(oracle.tokens))
        assert [t.word(i) for i in range(len(oracle.words))] == [tuple(w) for w in oracle.words]
        assert _engine_ranking(t) == oracle.ranking()
        assert t.step() is None  # stopped exactly where the oracle stopped
        assert t.live_size == oracle.live_now()
        assert t.vocab_size == (oracle.live_now() if prune else len(oracle.tokens))


def n_initial(oracle) -> int:
    return len(oracle.tokens) - len(oracle.merges)


# --- the oracle's own pieces, checked by hand so it can be trusted -------------------

def test_oracle_special_splitting_longest_first():
    assert split_specials("a<|endoftext|>!b<|end|>", SPECIALS) == [
        ("a", False), ("<|endoftext|>!", True), ("b", False), ("<|end|>", True)]


def test_oracle_word_counts():
    assert word_counts("low low<|e|> lower", ["<|e|>"]) == {"low": 1, " low": 1, " lower": 1}


def test_oracle_overlap_rule():
    # pairs are counted with overlaps (4 x "a a"), merged without: aa aa a
    o = make_oracle("aaaaa", rule="greatest").train(num_merges=2)
    assert o.merges == [(97, 97, 4), (256, 256, 1)]
    assert o.words == [[257, 97]]


# ---------------------------------------------------------------- regressions


@pytest.mark.regression
def test_tied_pairs_are_pairs_whatever_the_core():
    """The C core's tied() returns (a, b, count); MergeStep.tied must hold (a, b) pairs."""
    t = Trainer.from_text("low low lower newest newest widest widest widest",
                          TrainSettings(num_merges=3, mode="char", end_of_word="prefix"))
    for rec in t.run():
        assert all(len(p) == 2 for p in rec.tied)
        assert rec.tied[0] == rec.pair
    n, pairs = t.tied_now()
    assert n == len(pairs) and all(len(p) == 2 for p in pairs)


@pytest.mark.regression
def test_char_mode_word_with_inner_isspace_character():
    """\\x1f is whitespace to str.isspace() but not to regex's \\s, so a GPT-2 word keeps it
    inside (':\\x1f\\x1b'); char mode used to crash with KeyError building the word."""
    t = Trainer.from_text(":\x1f\x1b :\x1f\x1b", TrainSettings(num_merges=2, mode="char"))
    assert b"\x1f" in t.vocab.values()
    assert len(t.run()) == 2


@pytest.mark.regression
def test_char_mode_custom_pattern_with_inner_space():
    """Char mode with a custom pattern whose words hold a plain space: the word keeps it
    inside, with the end-of-word marker only at its end (the crash above, with ' ')."""
    t = Trainer.from_text("a b\na b", TrainSettings(num_merges=3, mode="char", pattern=r"[^\n]+"))
    steps = t.run()
    assert b"".join(t.vocab_bytes[i] for i in t.word(0)) == b"a b</w>"
    assert len(steps) == 3
