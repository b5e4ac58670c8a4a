"""Check my BPE picks the right cause at the edges of its rule: a cause counts when its
run reproduces the learner's merges through the step where they part (not only beyond
it), and of two causes that reproduce them equally far, the one the learner's mistake
is (report.PRIORITY: no pre-tokenization before another pattern) is named.

Expected steps and causes come from the learners' own trainers (bpe_learners.py, which
do not use the engine): where a trainer with the mistake parts from the correct one."""
from __future__ import annotations

import random

import pytest

import bpe_learners as L
from bpe_gui.engine.check import check_merges, read_result

N_MERGES = 150
VOCAB = 256 + 1 + N_MERGES
SIMPLE = ["tie-first-seen", "tie-least", "specials", "boundaries", "overlap", "pattern",
          "chars"]
EXPECTED_CAUSE = {"tie-first-seen": "tie", "tie-least": "tie", "specials": "specials",
                  "boundaries": "boundaries", "overlap": "overlap", "pattern": "pattern",
                  "chars": "chars"}


@pytest.fixture(scope="module")
def text() -> str:
    return L.tutorial_text()


@pytest.fixture(scope="module")
def correct(text):
    return L.train(text, VOCAB)[1]


def first_difference(a, b) -> int:
    for k, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return k
    return min(len(a), len(b)) + 1


def check(tmp_path, text, vocab, merges):
    return check_merges(read_result(L.write_pickle(tmp_path, vocab, merges)), text,
                        special_tokens=[L.EOT])


@pytest.mark.parametrize("name", SIMPLE)
def test_a_list_that_ends_where_it_parts_is_still_explained(tmp_path, text, correct, name):
    """A learner who trained only up to the merge where they part: the cause's run
    reproduces exactly that many merges, which is enough to name it."""
    vocab, merges = L.train(text, VOCAB, **L.WRONG_TRAINERS[name])
    step = first_difference(merges, correct)
    assert step <= N_MERGES
    merges = merges[:step]
    vocab = {i: t for i, t in vocab.items() if i < 257 + step}
    d = check(tmp_path, text, vocab, merges).difference
    assert (d.step, d.cause) == (step, EXPECTED_CAUSE[name]), d
    assert d.reach == step and d.explained_by, d
    assert f"all {step} of your merges agree" in d.sentence


def unspaced_text() -> str:
    """Documents of words and punctuation with no whitespace at all: on them, counting
    the whole document as one sequence and cutting words at whitespace (\\S+, or
    \\S+|\\s+) make the same words, so both causes reproduce a learner equally far."""
    rng = random.Random(7)
    words = ["the", "cat", "sat", "on", "mat", "hat", "that", "this", "then", "than"]
    docs = ["".join(rng.choice(words) + rng.choice(".,;!?")
                    for _ in range(rng.randint(3, 12))) for _ in range(60)]
    return L.EOT.join(docs)


def test_no_pre_tokenization_is_named_over_a_pattern_that_cuts_the_same(tmp_path):
    text = unspaced_text()
    vocab_size = 257 + 60
    assert not any(c.isspace() for c in text)
    good = L.train(text, vocab_size)[1]
    tie_only = L.train(text, vocab_size, pick=L.least)[1]
    vocab, merges = L.train(text, vocab_size, pick=L.least, words_of=L.whole_documents)
    report = check(tmp_path, text, vocab, merges)
    first, second = report.differences[:2]
    assert (first.step, first.cause) == (first_difference(merges, good), "tie")
    # the learner's second mistake: where it parts from the trainer with only the first
    assert second.step == first_difference(merges, tie_only)
    assert second.cause == "boundaries", second
    assert "no pre-tokenization" in second.explained_by
    assert second.reach < len(merges)   # a third difference: the tie is not settled yet
    assert report.differences[-1].reach == len(merges)


@pytest.mark.parametrize("pattern, name", [(None, "GPT-2's pattern"),
                                           ("cl100k", "GPT-4's pattern (cl100k)")])
def test_the_sentence_names_the_pattern_the_reference_used(tmp_path, text, pattern, name):
    """A trainer cutting words at whitespace: the sentence names both patterns, the
    learner's and the one the reference was given (GPT-2's when none is)."""
    vocab, merges = L.train(text, VOCAB, words_of=L.by_whitespace)
    report = check_merges(read_result(L.write_pickle(tmp_path, vocab, merges)), text,
                          special_tokens=[L.EOT], pattern=pattern)
    d = report.difference
    assert d.cause == "pattern"
    assert d.sentence.startswith(r"Your trainer cuts words with the whitespace split "
                                 rf"(\S+|\s+), not {name}"), d.sentence
    said = "given" if pattern else "bpe.pkl records none"
    assert f"pattern: {name} ({said}" in report.settings_from[0], report.settings_from


def test_a_special_token_in_the_corpus_that_the_check_was_not_told_of(tmp_path, text,
                                                                       correct):
    """The correct trainer splits at <|endoftext|>; told there are no special tokens,
    the check finds the token in the corpus and names it as the cause, reproducing every
    merge, and says how to give it."""
    vocab, merges = L.train(text, VOCAB)
    without = L.train(text, VOCAB, specials=())[1]
    report = check_merges(read_result(L.write_pickle(tmp_path, vocab, merges)), text,
                          special_tokens=[])
    d = report.difference
    assert (d.step, d.cause) == (first_difference(merges, without), "specials"), d
    assert d.explained_by == f"{L.EOT} as special token(s)"
    assert d.reach == len(merges) and "--special-token" in d.sentence


@pytest.mark.parametrize("spare", [0, -1])
def test_no_pre_tokenization_is_tried_up_to_its_size_limit(tmp_path, text, spare):
    """The whole-document run is tried on a corpus of up to max_piece_bytes, and not on
    a larger one (the attempt then says why, and no run is made for it)."""
    from bpe_gui.engine.check import CheckLimits
    vocab, merges = L.train(text, VOCAB, words_of=L.whole_documents)
    limit = len(text.encode("utf-8")) + spare
    report = check_merges(read_result(L.write_pickle(tmp_path, vocab, merges)), text,
                          special_tokens=[L.EOT], limits=CheckLimits(max_piece_bytes=limit))
    tried = [a for a in report.attempts if a.label.startswith("no pre-tokenization")]
    assert len(tried) == 1
    if spare == 0:
        assert tried[0].reach == len(merges) and report.difference.cause == "boundaries"
    else:
        assert tried[0].reach is None and "the corpus is over" in tried[0].why


def test_a_pair_across_two_words_is_tried_as_a_boundary_first(tmp_path):
    """On the unspaced documents a trainer that counts whole documents is reproduced in
    full both by no pre-tokenization and by cutting words at whitespace; the first run
    that reproduces every merge ends the search, so the causes the pair points at (it
    spans two words of the pattern: boundaries) must be tried before the others."""
    text = unspaced_text()
    vocab_size = 257 + 60
    good = L.train(text, vocab_size)[1]
    vocab, merges = L.train(text, vocab_size, words_of=L.whole_documents)
    d = check(tmp_path, text, vocab, merges).difference
    assert (d.step, d.cause) == (first_difference(merges, good), "boundaries"), d
    assert d.reach == len(merges)


def test_a_corpus_too_big_to_read_whole_is_checked_without_its_special_tokens(tmp_path,
                                                                              text):
    """Over max_text_bytes the corpus is streamed for the reference only: the causes that
    need its text (special tokens found in it, no pre-tokenization) are not tried, and the
    check still names the first difference."""
    from bpe_gui.engine.check import CheckLimits
    vocab, merges = L.train(text, VOCAB)
    without = L.train(text, VOCAB, specials=())[1]
    (tmp_path / "corpus.txt").write_text(text, "utf-8")
    report = check_merges(read_result(L.write_pickle(tmp_path, vocab, merges)),
                          tmp_path / "corpus.txt", special_tokens=[],
                          limits=CheckLimits(max_text_bytes=1000))
    d = report.difference
    assert d.step == first_difference(merges, without)
    assert not any(a.label.endswith("as special token(s)") for a in report.attempts)
