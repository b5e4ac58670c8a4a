"""A new stopping target on a live trainer: it goes on or goes back, never starts over.

The oracle is a fresh trainer built with the new settings and run to its target: the
retargeted trainer, once run, must be in exactly the same state.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from bpe_gui.engine import TrainSettings, Trainer
from bpe_gui.engine.errors import SettingsError

WORKED = "low low lower newest newest widest widest widest"
TEXT = ("the lowest and the newest of the widest words: low, lower, newest, widest. "
        "分词器把文字切成 token，再换成编号。") * 3


def state(t: Trainer) -> tuple:
    return (t.n_steps, t.merges, t.vocab, [t.word(i) for i in range(len(t.word_texts))],
            [(r.a, r.b, r.count) for r in t.top_pairs(50)], t.live_size, t.is_done)


def fresh(text: str, s: TrainSettings) -> Trainer:
    t = Trainer.from_text(text, s)
    t.run()
    return t


def test_worked_example_stop_steps():
    t = Trainer.from_text(WORKED, TrainSettings(num_merges=4))
    t.run()
    assert t.stop_step(TrainSettings(num_merges=2)) == 2
    assert t.stop_step(TrainSettings(num_merges=4, min_frequency=4)) == 2   # w i has count 3
    assert t.stop_step(TrainSettings(num_merges=9)) is None


@pytest.mark.parametrize("first, second", [
    (dict(vocab_size=270), dict(vocab_size=300)),          # extend
    (dict(vocab_size=300), dict(vocab_size=270)),          # trim
    (dict(num_merges=40), dict(num_merges=5)),
    (dict(num_merges=5), dict(vocab_size=290)),            # merges -> vocab size
    (dict(num_merges=60), dict(num_merges=60, min_frequency=6)),
    (dict(num_merges=60, min_frequency=6), dict(num_merges=60, min_frequency=2)),
    (dict(vocab_size=40, mode="char", prune=True), dict(vocab_size=30, mode="char", prune=True)),
    (dict(vocab_size=30, mode="char", prune=True), dict(vocab_size=45, mode="char", prune=True)),
])
def test_retarget_then_run_equals_a_fresh_run(first, second):
    t = Trainer.from_text(TEXT, TrainSettings(**first))
    t.run()
    table = t.table
    t.retarget(TrainSettings(**second))
    assert t.table is table                      # no new pre-tokenizing
    t.run()
    assert state(t) == state(fresh(TEXT, TrainSettings(**second)))


def test_retarget_keeps_position_when_target_is_further():
    t = Trainer.from_text(TEXT, TrainSettings(num_merges=50))
    t.goto(7)
    assert t.retarget(TrainSettings(num_merges=80)) == 7
    assert t.target_steps == 80


def test_retarget_refuses_other_changes_and_keeps_the_trainer():
    t = Trainer.from_text(WORKED, TrainSettings(num_merges=3))
    t.run()
    before = state(t)
    assert not t.can_retarget(TrainSettings(num_merges=3, tie_rule="first-seen"))
    with pytest.raises(SettingsError):
        t.retarget(TrainSettings(num_merges=3, tie_rule="first-seen"))
    with pytest.raises(SettingsError):
        t.retarget(TrainSettings(vocab_size=10))   # below the 256 bytes
    assert state(t) == before and t.settings == TrainSettings(num_merges=3)


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 60), st.integers(0, 60), st.integers(1, 8), st.integers(0, 60))
def test_any_retarget_matches_a_fresh_run(n1, n2, minf, at):
    t = Trainer.from_text(TEXT, TrainSettings(num_merges=n1))
    t.run()
    t.goto(min(at, t.n_steps))
    new = TrainSettings(num_merges=n2, min_frequency=minf)
    t.retarget(new)
    t.run()
    assert state(t) == state(fresh(TEXT, new))
