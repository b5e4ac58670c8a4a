"""Trainer.run(detail=False) runs the steps inside the C core (without the GIL) and makes
the records afterwards from the core's history: they must equal the records that
stepping one by one makes, and undo must still go back exactly."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_gui.engine import TrainSettings, Trainer

from engine_oracle import available_cores, using_core

FRAGMENTS = ["a", "aa", "aaaa", "b", "ab", "ba", " ", "  ", "\n", "你", "好", "é", "😀",
             "'s", " low", " lower", "est", "st", "1", "23", "!", "<|endoftext|>"]


def _fields(rec):
    return (rec.index, rec.pair, rec.left, rec.right, rec.new_id, rec.token, rec.count,
            rec.rule, rec.n_tied, rec.removed, rec.live_size, rec.merged, rec.corpus_tokens)


@pytest.mark.parametrize("core", available_cores())
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=60).map("".join),
       rule=st.sampled_from(["greatest", "first-seen", "lowest-ids"]),
       mode=st.sampled_from(["byte", "char"]), min_frequency=st.integers(1, 3),
       merges=st.integers(0, 60), until=st.one_of(st.none(), st.integers(0, 70)),
       by_vocab=st.booleans())
def test_core_run_records_equal_stepwise(core, text, rule, mode, min_frequency, merges, until,
                                         by_vocab):
    with using_core(core):
        if text.replace("<|endoftext|>", "").strip() == "":
            return  # nothing to train on (the errors for that are tested elsewhere)
        if by_vocab:
            s = TrainSettings(vocab_size=10**6, tie_rule=rule, mode=mode,
                              min_frequency=min_frequency, special_tokens=("<|endoftext|>",))
        else:
            s = TrainSettings(num_merges=merges, tie_rule=rule, mode=mode,
                              min_frequency=min_frequency, special_tokens=("<|endoftext|>",))
        if by_vocab:
            base = Trainer.from_text(text, s)
            s = TrainSettings(vocab_size=base.n_initial + merges, tie_rule=rule, mode=mode,
                              min_frequency=min_frequency, special_tokens=("<|endoftext|>",))
        fast, slow = Trainer.from_text(text, s), Trainer.from_text(text, s)
        seen = []
        fast.run(until=until, detail=False, progress=lambda d, t: seen.append(d))
        while until is None or slow.n_steps < until:
            if slow.step(detail=False) is None:
                break
        assert [_fields(r) for r in fast.steps] == [_fields(r) for r in slow.steps]
        assert fast.vocab_bytes == slow.vocab_bytes
        assert (fast.live_size, fast.corpus_tokens) == (slow.live_size, slow.corpus_tokens)
        assert not seen or seen[-1] == fast.n_steps
        # the core is in the same state: undo all the way back, step again
        while fast.undo() is not None:
            pass
        assert fast.n_steps == 0 and len(fast.vocab_bytes) == fast.n_initial
        again = fast.run(until=until, detail=False)
        assert [_fields(r) for r in again] == [_fields(r) for r in slow.steps]


def test_cancel_stops_a_core_run():
    text = " ".join(f"w{i} x{i % 97} y{i % 13}" for i in range(3000))
    t = Trainer.from_text(text, TrainSettings(num_merges=5000))
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 2
    t.run(detail=False, cancel=cancel)
    assert 0 < t.n_steps < 5000
    assert [r.index for r in t.steps] == list(range(1, t.n_steps + 1))


@pytest.mark.parametrize("core", available_cores())
def test_train_bpe_answers_before_its_records_are_made(core, tmp_path):
    """train_bpe makes the records of a core run only when they are read: the merges,
    the counts the exports write, the tokenizer and the totals come from the core's
    history as they are, and equal those of a trainer that stepped one by one."""
    from bpe_gui.engine import train_bpe
    from bpe_gui.engine.formats import render_files
    corpus = tmp_path / "c.txt"
    corpus.write_text(" ".join(f"w{i % 50} x{i % 97} lower{i % 7}" for i in range(2000)),
                      encoding="utf-8")
    with using_core(core):
        fast = train_bpe([corpus], 600, ["<|endoftext|>"], return_trainer=True)
        slow = Trainer.from_files(corpus, fast.settings)
        while slow.step(detail=False) is not None:
            pass
        assert fast._rows and not fast._steps   # nothing made yet
        assert (fast.n_steps, fast.corpus_tokens) == (slow.n_steps, slow.corpus_tokens)
        assert fast.merges == slow.merges
        assert fast.metadata() == slow.metadata()
        for k in (None, 0, 1, 17, fast.n_steps):
            files = render_files(fast.tokenizer(k), ["hf", "native", "csv"])[0]
            assert files == render_files(slow.tokenizer(k), ["hf", "native", "csv"])[0]
        assert fast._rows   # still none made
        assert [_fields(r) for r in fast.steps] == [_fields(r) for r in slow.steps]
        assert not fast._rows
        assert fast.tokenizer().merges == slow.tokenizer().merges


@pytest.mark.parametrize("mode", ["byte", "char"])
def test_corpus_bytes_is_the_tables_sum_of_word_bytes(mode):
    text = "low lower\n lowest  newer 你好 😀\n\n" * 7 + "<|endoftext|> x"
    for lines in (False, True):
        t = Trainer.from_text(text, TrainSettings(num_merges=5, mode=mode, lines=lines,
                                                  special_tokens=("<|endoftext|>",)))
        t.run(detail=False)
        assert t.corpus_bytes == t.table.total_word_bytes == sum(
            len(w.encode("utf-8")) * f for w, f in zip(t.table.words, t.table.freqs))
