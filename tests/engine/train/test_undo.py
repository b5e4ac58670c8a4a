"""Undo is exact: after any interleaving of step/undo, the trainer equals a fresh run."""
from __future__ import annotations

import lzma

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_gui.engine import TrainSettings, Trainer

from engine_oracle import HAS_C_CORE, available_cores, using_core

FRAGMENTS = ["a", "aa", "aaaa", "b", "ab", " ", "\n", "你", "好", "é", "😀", " low", "est",
             "<|endoftext|>", "1"]


def snapshot(t: Trainer) -> tuple:
    return (t.n_steps, [(r.a, r.b, r.count) for r in t.top_pairs(10**6)], t.vocab,
            [t.word(i) for i in range(len(t.word_texts))], t.live_size, t.vocab_size,
            t.merges, t.is_done)


def reference_snapshots(text: str, s: TrainSettings, n: int) -> list[tuple]:
    """Snapshots of a fresh trainer that only ever steps forward."""
    t = Trainer.from_text(text, s)
    snaps = [snapshot(t)]
    while t.n_steps < n and t.step() is not None:
        snaps.append(snapshot(t))
    return snaps


@pytest.mark.parametrize("core", available_cores())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.lists(st.sampled_from(FRAGMENTS), min_size=3, max_size=40).map("".join),
       ops=st.lists(st.booleans(), min_size=1, max_size=60),
       mode=st.sampled_from(["byte", "char"]),
       rule=st.sampled_from(["greatest", "first-seen", "lowest-ids"]),
       prune=st.booleans())
def test_random_step_undo_interleavings(core, text, ops, mode, rule, prune):
    with using_core(core):
        s = TrainSettings(vocab_size=None, num_merges=40, mode=mode, tie_rule=rule,
                          special_tokens=("<|endoftext|>",), prune=prune)
        try:
            ref = reference_snapshots(text, s, 40)
        except Exception:  # e.g. only whitespace in char mode: covered elsewhere
            return
        t = Trainer.from_text(text, s)
        for forward in ops:
            if forward:
                if t.step() is None:  # only where the fresh run stopped too
                    assert t.n_steps == len(ref) - 1
            else:
                t.undo()
            assert snapshot(t) == ref[t.n_steps]


def test_undo_at_step_zero_is_a_no_op():
    t = Trainer.from_text("aaa bbb", TrainSettings(num_merges=2))
    before = snapshot(t)
    assert t.undo() is None
    assert snapshot(t) == before


def test_undo_on_real_text(corpora_dir):
    """A few hundred steps on real text, then all the way back, checked every 25 steps."""
    n = 300 if HAS_C_CORE else 60
    with lzma.open(corpora_dir / "en-tinyshakespeare.txt.xz", "rt", encoding="utf-8") as f:
        text = f.read(60_000 if HAS_C_CORE else 15_000)
    s = TrainSettings(vocab_size=None, num_merges=n, special_tokens=("<|endoftext|>",))
    fresh = Trainer.from_text(text, s)
    marks = {}
    for k in range(0, n + 1):
        if k % 25 == 0:
            marks[k] = snapshot(fresh)
        fresh.step()
    t = Trainer.from_text(text, s)
    t.run()
    assert t.n_steps == n
    for k in range(n, -1, -1):
        if k in marks:
            assert snapshot(t) == marks[k], f"state after undoing back to step {k} differs"
        t.undo()
    # and forward again lands on the same records
    t.run(until=50)
    assert snapshot(t) == marks[50]
