"""The worked examples of SPEC.md, merge by merge, for the three variants."""
from __future__ import annotations

import pytest

from bpe_gui.engine import MergeStep, TrainSettings, Trainer, train_bpe

CORPUS = "low low lower newest newest widest widest widest"


def _run(**settings) -> tuple[Trainer, list[MergeStep]]:
    t = Trainer.from_text(CORPUS, TrainSettings(**settings))
    return t, t.run()


def _pairs(steps: list[MergeStep]) -> list[tuple[bytes, bytes]]:
    return [(s.left, s.right) for s in steps]


def test_byte_level_gpt2():
    t, steps = _run(num_merges=4)
    assert _pairs(steps) == [(b"s", b"t"), (b"e", b"st"), (b"w", b"i"), (b"wi", b"d")]
    assert [t.render_pair(s.pair) for s in steps] == ["s t", "e st", "w i", "wi d"]
    # ids: 0-255 the bytes, then the merges in order
    assert [s.new_id for s in steps] == [256, 257, 258, 259]
    assert [s.index for s in steps] == [1, 2, 3, 4]
    assert t.vocab[257] == b"est" and t.merges == _pairs(steps)


def test_char_prefix_eow_six_way_tie():
    t, steps = _run(num_merges=3, mode="char", end_of_word="prefix")
    assert [t.render_pair(s.pair) for s in steps] == ["s t", "e st", "w i"]
    first, second, third = steps
    assert first.count == 5 and first.n_tied == 2
    assert {t.render_pair(p) for p in first.tied} == {"s t", "e s"}
    assert first.tied[0] == first.pair
    assert second.count == 5 and second.n_tied == 1
    assert third.count == 3 and third.n_tied == 6
    assert {t.render_pair(p) for p in third.tied} == {
        "</w> w", "d est", "i d", "l o", "o w", "w i"}
    assert third.tied[0] == third.pair
    # the reason names the count, the size of the tie and the rule that broke it
    assert "6" in third.reason and "3" in third.reason and "greatest" in third.reason
    assert "w i" in third.reason
    assert "no tie" in second.reason


def test_char_prefix_tie_reason_per_rule():
    for rule, word in (("first-seen", "first"), ("lowest-ids", "lowest")):
        t, steps = _run(num_merges=3, mode="char", end_of_word="prefix", tie_rule=rule)
        assert steps[2].n_tied == 6, rule
        assert word in steps[2].reason, (rule, steps[2].reason)


def test_classic_sennrich_suffix_whitespace():
    t, steps = _run(num_merges=4, mode="char", end_of_word="suffix", pattern="whitespace")
    assert _pairs(steps) == [(b"t", b"</w>"), (b"s", b"t</w>"), (b"e", b"st</w>"), (b"w", b"i")]
    assert [t.render_pair(s.pair) for s in steps] == ["t </w>", "s t</w>", "e st</w>", "w i"]


def test_affected_words_before_after():
    t, steps = _run(num_merges=1)
    (rec,) = steps
    # "newest" (x2) and "widest" (x3), each with a leading space in GPT-2 words
    assert rec.n_affected == 2
    texts = {t.vocab_bytes[rec.new_id]}
    assert texts == {b"st"}
    by_freq = sorted(rec.affected, key=lambda w: -w.freq)
    assert [w.freq for w in by_freq] == [3, 2]
    for w in rec.affected:
        assert b"".join(t.vocab_bytes[i] for i in w.before) == b"".join(t.vocab_bytes[i] for i in w.after)
        assert len(w.after) == len(w.before) - 1 and rec.new_id in w.after


def test_train_bpe_on_file(tmp_path):
    p = tmp_path / "c.txt"
    p.write_text(CORPUS, encoding="utf-8")
    vocab, merges = train_bpe(p, vocab_size=260, special_tokens=["<|endoftext|>"])
    assert merges == [(b"s", b"t"), (b"e", b"st"), (b"w", b"i")]
    assert vocab[256] == b"<|endoftext|>"
    assert [vocab[i] for i in (257, 258, 259)] == [b"st", b"est", b"wi"]
    assert len(vocab) == 260


@pytest.mark.parametrize("rule", ["greatest", "first-seen", "lowest-ids"])
def test_run_to_target_vocab_size(rule):
    t = Trainer.from_text(CORPUS, TrainSettings(vocab_size=262, tie_rule=rule))
    t.run()
    assert len(t.vocab) == 262 and t.n_steps == 6
    assert t.step() is None


@pytest.mark.regression
def test_tie_sentence_counts_are_written_like_the_table():
    """The tie sentence wrote a count as "(476830)" where the table says "476,830" (issue 10)."""
    from bpe_gui.engine import TrainSettings, Trainer
    t = Trainer.from_text("ab " * 1500 + "cd " * 1500, TrainSettings(num_merges=3))
    rec = t.next_choice()
    assert rec.count == 1500 and "1,500" in rec.reason and "(1500)" not in rec.reason
