"""Check my BPE, encoding: deliberately wrong encoders (bpe_learners.py) are caught at
the first token that differs, in the right word, with the rule they broke; a correct
encoder written independently agrees."""
from __future__ import annotations

from pathlib import Path

import pytest

import bpe_learners as L
from bpe_gui.engine.check import check_ids, read_ids, read_result
from bpe_gui.engine.errors import FormatError

SAMPLE = "The newest café<|endoftext|>Hmmm, the lowest widest road... aaaa! It's 2024."


@pytest.fixture(scope="module")
def learned(tmp_path_factory):
    vocab, merges = L.train(L.tutorial_text(), 256 + 1 + 150)
    folder = tmp_path_factory.mktemp("learner")
    return vocab, merges, read_result(L.write_pickle(folder, vocab, merges))


def test_a_correct_encoder_agrees(learned):
    vocab, merges, result = learned
    report = check_ids(result, SAMPLE, L.encode(SAMPLE, vocab, merges))
    assert report.agree and report.first is None and not report.marks
    assert report.sentence.startswith("All ")


@pytest.mark.parametrize("name, cause", [("order", "order"), ("special", "special"),
                                         ("pattern", "pattern")])
def test_each_wrong_encoder_is_caught_with_the_rule_it_broke(learned, name, cause):
    vocab, merges, result = learned
    right = L.encode(SAMPLE, vocab, merges)
    wrong = L.encode(SAMPLE, vocab, merges, **L.WRONG_ENCODERS[name])
    first = next(i for i, (a, b) in enumerate(zip(wrong, right)) if a != b)
    report = check_ids(result, SAMPLE, wrong)
    assert not report.agree
    assert (report.first, report.cause) == (first, cause), report.sentence
    w = report.word
    assert w.start <= report.theirs[first].start < w.end     # the token lies in that word
    assert b"".join(w.theirs) == b"".join(w.ours) == SAMPLE[w.start:w.end].encode()
    assert (w.start, w.end) in report.marks


def test_the_word_is_played_back_both_ways(learned):
    vocab, merges, result = learned
    report = check_ids(result, SAMPLE, L.encode(SAMPLE, vocab, merges, pick=max))
    w = report.word
    assert w.playback.final_symbols == w.ours
    assert w.their_rule == "highest-rank" and w.their_steps[-1].symbols == w.theirs
    rank = {m: r for r, m in enumerate(merges)}
    before = tuple(bytes([x]) for x in w.text.encode())
    for step in w.their_steps:   # each step merged the highest rank there was
        present = [rank[p] for p in zip(before, before[1:]) if p in rank]
        assert step.rank == max(present)
        before = step.symbols
    assert "lowest rank first" in report.sentence


def test_ids_that_are_not_tokens_or_another_text_are_said(learned):
    vocab, merges, result = learned
    ids = L.encode(SAMPLE, vocab, merges)
    bad = check_ids(result, SAMPLE, ids[:3] + [10**6] + ids[4:])
    assert (bad.cause, bad.first) == ("unknown-id", 3)
    other = check_ids(result, SAMPLE, ids[:-1])
    assert other.cause == "text" and "decode to another text" in other.sentence


def test_ids_are_read_from_text_or_a_file(tmp_path):
    assert read_ids("[1, 2,3]") == [1, 2, 3]
    assert read_ids("4 5\n6,7") == [4, 5, 6, 7]
    (tmp_path / "ids.txt").write_text("8 9")
    assert read_ids(Path(tmp_path / "ids.txt")) == [8, 9]
    with pytest.raises(FormatError, match="numbers separated"):
        read_ids("1 two 3")
