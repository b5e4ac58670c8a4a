"""The slow trainer the diagnosis uses: with the rules (adjacent pairs, left-to-right
merges, greatest pair on ties) it makes the engine's merges; its other rules do what
their docstrings say."""
from __future__ import annotations

from collections import Counter

from hypothesis import given, settings, strategies as st

import bpe_learners as L
from bpe_gui.engine import Pretokenizer, Trainer, TrainSettings
from bpe_gui.engine.check import Rules, train_slow
from bpe_gui.engine.check.variants import count_word, merge_word, start_symbols


def words_of(text: str) -> list[tuple[str, int]]:
    return list(Counter(Pretokenizer("gpt2").words(text)).items())


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="ab c\u00e9d", min_size=1, max_size=60),
       st.sampled_from(["greatest", "first-seen", "lowest-ids"]))
def test_the_slow_trainer_makes_the_engines_merges(text, tie):
    words = words_of(text)
    if not words:
        return
    t = Trainer.from_text(text, TrainSettings(num_merges=12, tie_rule=tie))
    t.run()
    slow = train_slow(words, Rules(tie=tie), 12)
    assert [p for p, _ in slow] == t.merges
    assert [c for _, c in slow] == [s.count for s in t.steps]


def test_the_slow_trainer_makes_the_learners_merges_on_the_tutorial():
    text = L.tutorial_text()
    _, merges = L.train(text, 256 + 1 + 60)
    words = list(Counter(w for d in L.split_specials(text, [L.EOT])
                         for w in Pretokenizer("gpt2").words(d)).items())
    assert [p for p, _ in train_slow(words, Rules(), 60)] == merges


def test_stops_at_the_first_merge_that_differs_from_the_expected():
    out = train_slow([("abab", 2)], Rules(), 5, expected=[(b"a", b"b"), (b"x", b"y")])
    assert [p for p, _ in out] == [(b"a", b"b"), (b"ab", b"ab")]


def test_counting_and_merging_rules():
    a, b = b"a", b"b"
    assert count_word([a, a, a, a, b]) == {(a, a): 3, (a, b): 1}
    assert count_word([a, a, a, a, b], "runs-halved") == {(a, a): 2, (a, b): 1}
    assert count_word([a, a, a, a, b], "skip-after-repeat") == {(a, a): 2}
    assert merge_word([a, a, a], (a, a)) == [b"aa", a]
    assert merge_word([a, a, a], (a, a), "right") == [a, b"aa"]
    assert start_symbols("né", "chars") == [b"n", "é".encode()]
    assert start_symbols("né", "bytes") == [b"n", b"\xc3", b"\xa9"]
