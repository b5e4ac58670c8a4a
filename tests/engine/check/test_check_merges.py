"""Check my BPE, merges: each deliberately wrong trainer (bpe_learners.py) is diagnosed
at the right step with the right cause; a correct trainer, written independently, is
reported as matching, in every format the check reads.

The expected step comes from the learners themselves: the first merge where the wrong
trainer's list parts from the correct trainer's (neither uses the engine)."""
from __future__ import annotations

import pytest

import bpe_learners as L
from bpe_gui.engine import TrainSettings
from bpe_gui.engine.check import CheckLimits, check_merges, read_result
from bpe_gui.engine.check.lab import NO_PRETOKENIZATION

N_MERGES = 150
VOCAB = 256 + 1 + N_MERGES
EXPECTED_CAUSE = {
    "tie-first-seen": "tie", "tie-least": "tie", "specials": "specials",
    "boundaries": "boundaries", "overlap": "overlap", "pattern": "pattern", "chars": "chars",
    "not-a-pair": "not-a-pair", "vocab-size": "vocab-size",
}


@pytest.fixture(scope="module")
def text() -> str:
    return L.tutorial_text()


@pytest.fixture(scope="module")
def correct(text):
    return L.train(text, VOCAB)


def first_difference(a, b) -> int:
    """1-based step of the first merge where two lists part (lengths count too)."""
    for k, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return k
    return min(len(a), len(b)) + 1


def check(tmp_path, text, vocab, merges, **kw):
    return check_merges(read_result(L.write_pickle(tmp_path, vocab, merges)), text,
                        special_tokens=[L.EOT], **kw)


@pytest.mark.parametrize("writer", ["write_pickle", "write_gpt2", "write_hf", "write_tiktoken"])
def test_a_correct_trainer_matches_in_every_format(tmp_path, text, correct, writer):
    vocab, merges = correct
    result = read_result(getattr(L, writer)(tmp_path, vocab, merges))
    assert result.special_tokens == (L.EOT,)   # found in the file, not given
    report = check_merges(result, text)
    assert report.agree, report.difference
    assert report.n_agree == N_MERGES and report.ours == tuple(merges)
    assert report.headline() == f"All {N_MERGES} merges agree with the reference."


@pytest.mark.parametrize("writer", ["write_gpt2", "write_hf", "write_tiktoken"])
def test_a_wrong_trainer_is_diagnosed_from_every_format(tmp_path, text, correct, writer):
    vocab, merges = L.train(text, VOCAB, pick=L.first_seen)
    report = check_merges(read_result(getattr(L, writer)(tmp_path, vocab, merges)), text)
    d = report.difference
    assert (d.step, d.cause) == (first_difference(merges, correct[1]), "tie")
    assert report.found.settings.tie_rule == "first-seen"


def test_steps_after_a_tie_are_mostly_the_same_merges_elsewhere(tmp_path, text, correct):
    vocab, merges = L.train(text, VOCAB, pick=L.first_seen)
    report = check(tmp_path, text, vocab, merges)
    k = report.difference.step
    statuses = report.statuses()
    assert statuses[:k - 1] == ["same"] * (k - 1) and statuses[k - 1] == "part"
    moved = [i for i, st in enumerate(statuses, 1) if st == "moved"]
    assert moved and all(report.ours[report.our_step_of(report.theirs[i - 1]) - 1]
                         == report.theirs[i - 1] for i in moved)


def test_a_tiktoken_file_without_its_metadata_takes_the_given_special_token(tmp_path, text,
                                                                           correct):
    vocab, merges = correct
    path = L.write_tiktoken(tmp_path, vocab, merges, with_meta=False)
    report = check_merges(read_result(path, special_tokens=[L.EOT]), text, pattern="gpt2")
    assert report.agree


@pytest.mark.parametrize("name", list(L.WRONG_TRAINERS))
def test_each_wrong_trainer_is_diagnosed_at_the_right_step_with_the_right_cause(
        tmp_path, text, correct, name):
    vocab, merges = L.train(text, VOCAB, **L.WRONG_TRAINERS[name])
    step = first_difference(merges, correct[1])
    assert step <= N_MERGES + 1, "the wrong trainer must differ on this corpus"
    report = check(tmp_path, text, vocab, merges,
                   vocab_size=VOCAB if name == "vocab-size" else None)
    d = report.difference
    assert d is not None and (d.step, d.cause) == (step, EXPECTED_CAUSE[name]), d
    assert d.theirs == (merges[step - 1] if step <= len(merges) else None)
    assert d.ours == (correct[1][step - 1] if step <= len(correct[1]) else None)
    assert d.sentence and d.sentence.endswith(".")
    assert report.seconds < 10


@pytest.mark.parametrize("name", ["tie-first-seen", "tie-least", "specials", "boundaries",
                                  "overlap", "pattern", "chars"])
def test_the_cause_found_reproduces_every_merge(tmp_path, text, name):
    vocab, merges = L.train(text, VOCAB, **L.WRONG_TRAINERS[name])
    d = check(tmp_path, text, vocab, merges).difference
    assert d.reach == len(merges)
    assert f"all {len(merges)} of your merges agree" in d.sentence


def test_a_tie_says_both_counts_and_which_rule_picks_theirs(tmp_path, text):
    vocab, merges = L.train(text, VOCAB, pick=L.first_seen)
    d = check(tmp_path, text, vocab, merges).difference
    assert d.their_count == d.our_count and d.n_tied >= 2
    assert "the pair seen first in the corpus" in d.sentence
    assert "the greatest pair" in d.sentence


def test_hugging_face_tokenizers_trainer_as_a_learner(tmp_path, text):
    """tokenizers' BpeTrainer numbers its alphabet in GPT-2's characters, breaks ties by
    the lowest ids and, fed raw text, reads special tokens as text: the check says both."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator([text], trainers.BpeTrainer(
        vocab_size=VOCAB, special_tokens=[L.EOT], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.save(str(tmp_path / "tokenizer.json"))
    d = check_merges(read_result(tmp_path / "tokenizer.json"), text).difference
    report = check_merges(read_result(tmp_path / "tokenizer.json"), text)
    assert d.cause == "tie" and "Hugging Face" in d.sentence
    assert [m.cause for m in report.more] == ["specials"]
    assert "read as text" in d.also and d.also.endswith(f"all {N_MERGES} of your merges agree.")


def test_settings_found_when_a_setting_reproduces_every_merge(tmp_path, text):
    vocab, merges = L.train(text, VOCAB, pick=L.first_seen)
    report = check(tmp_path, text, vocab, merges)
    assert report.found is not None
    assert report.found.settings.tie_rule == "first-seen"
    assert report.found.changes == ("tie rule first-seen (not greatest)",)
    vocab, merges = L.train(text, VOCAB, words_of=L.by_whitespace)
    found = check(tmp_path, text, vocab, merges).found
    # (the whitespace preset's pattern: TrainSettings names a preset's pattern by the preset)
    assert found is not None and found.settings.pattern == "whitespace"


def test_settings_found_needing_two_changes(tmp_path, text):
    vocab, merges = L.train(text, VOCAB, pick=L.first_seen, words_of=L.by_whitespace)
    found = check(tmp_path, text, vocab, merges).found
    assert found is not None
    assert (found.settings.tie_rule, found.settings.pattern) == ("first-seen", "whitespace")


def test_no_settings_are_claimed_for_a_way_of_counting(tmp_path, text):
    vocab, merges = L.train(text, VOCAB, count=L.count_runs_halved)
    assert check(tmp_path, text, vocab, merges).found is None


def test_the_vocabulary_size_cause_names_the_size_that_reproduces_theirs(tmp_path, text):
    vocab, merges = L.train(text, VOCAB, n_merges=L.ignore_specials_in_size)
    report = check(tmp_path, text, vocab, merges, vocab_size=VOCAB)
    assert report.difference.ours is None and len(report.theirs) == len(report.ours) + 1
    assert report.found.settings.vocab_size == VOCAB + 1


def test_the_words_where_both_pairs_occur_are_listed(tmp_path, text):
    vocab, merges = L.train(text, VOCAB, count=L.count_runs_halved)
    d = check(tmp_path, text, vocab, merges).difference
    assert d.our_words and d.their_words
    for words, pair in ((d.our_words, d.ours), (d.their_words, d.theirs)):
        assert all(pair in zip(w.symbols, w.symbols[1:]) for w in words)
        assert all((w.symbols[i], w.symbols[i + 1]) == pair for w in words for i in w.at)
        assert [w.freq for w in words] == sorted((w.freq for w in words), reverse=True)
    assert sum(w.freq * len(w.at) for w in d.our_words) == d.our_count


def test_the_worked_example_tie_in_character_mode(tmp_path):
    """SPEC's worked example: the tutorial's own text merges o w at step 3, where the
    greatest pair w i wins a six-way tie."""
    text = "low low lower newest newest widest widest widest"
    from bpe_gui.engine import Trainer
    t = Trainer.from_text(text, TrainSettings(num_merges=4, mode="char", end_of_word="prefix"))
    t.run()
    merges = [(s.left, s.right) for s in t.steps]
    merges[2] = (b"o", b"w")
    vocab = dict(t.vocab)
    report = check_merges(read_result(L.write_pickle(tmp_path, vocab, merges)), text,
                          mode="char", end_of_word="prefix", special_tokens=[])
    assert report.difference.step == 3
    assert report.difference.cause == "tie" and report.difference.n_tied == 6


def test_a_check_stays_inside_its_limits(tmp_path, text):
    vocab, merges = L.train(text, VOCAB, count=L.count_runs_halved)
    report = check(tmp_path, text, vocab, merges, limits=CheckLimits(max_slow_words=10))
    assert report.difference.cause != "overlap"   # not tried: over the limit, and said so
    assert any("slow trainer takes" in n for n in report.notes)
    assert any(a.reach is None and a.cause == "overlap" for a in report.attempts)


TWO_MISTAKES = {
    "boundaries+tie": (dict(words_of=L.whole_documents, pick=L.first_seen),
                       ["boundaries", "tie"], dict(words_of=L.whole_documents)),
    "pattern+overlap": (dict(words_of=L.by_whitespace, count=L.count_runs_halved),
                        ["pattern", "overlap"], dict(words_of=L.by_whitespace)),
    "boundaries+overlap": (dict(words_of=L.whole_documents, count=L.count_runs_halved),
                           ["boundaries", "overlap"], dict(words_of=L.whole_documents)),
    "specials+tie": (dict(docs=L.no_special_split, pick=L.least), ["tie", "specials", "tie"],
                     None),
}


@pytest.mark.regression
@pytest.mark.parametrize("name", list(TWO_MISTAKES))
def test_a_trainer_with_two_mistakes_gets_both_named(tmp_path, text, correct, name):
    """The check stopped at the first cause ("agree through step 19 of 144"), the second
    mistake never named. The step of the second comes from the learners: where the
    trainer with both mistakes parts from the one with only the first."""
    both, causes, first_only = TWO_MISTAKES[name]
    vocab, merges = L.train(text, VOCAB, **both)
    report = check(tmp_path, text, vocab, merges)
    assert [d.cause for d in report.differences] == causes
    assert report.difference.step == first_difference(merges, correct[1])
    if first_only is not None:
        assert report.more[0].step == first_difference(merges, L.train(text, VOCAB,
                                                                      **first_only)[1])
    assert report.more[-1].reach == len(merges)
    assert report.difference.also.endswith(f"all {len(merges)} of your merges agree.")
    assert report.more[0].sentence.startswith("With ")
    assert report.headline().count("then merge") == len(causes) - 1


def test_no_pre_tokenization_is_a_pattern_to_give(tmp_path, text):
    """"none" among the patterns: the reference then counts the text between special
    tokens as one sequence, and a trainer that does agrees."""
    vocab, merges = L.train(text, VOCAB, words_of=L.whole_documents)
    report = check(tmp_path, text, vocab, merges, pattern="none")
    assert report.agree, report.difference
    assert "pattern: no pre-tokenization (given)" in report.settings_from
    vocab, merges = L.train(text, VOCAB, words_of=L.whole_documents, pick=L.first_seen)
    found = check(tmp_path, text, vocab, merges).found
    assert found is not None and found.settings.pattern == NO_PRETOKENIZATION
    assert found.settings.tie_rule == "first-seen"


@pytest.mark.regression
def test_a_count_of_0_across_a_pre_token_boundary_is_explained(tmp_path, text):
    """"Yours ... count 0" with no words listed went unexplained."""
    vocab, merges = L.train(text, VOCAB, words_of=L.whole_documents)
    d = check(tmp_path, text, vocab, merges).difference
    token = d.theirs[0] + d.theirs[1]
    assert d.their_count == 0 and not d.their_words
    assert text.encode().count(token) > 0
    assert "across a boundary between two words" in d.zero_why


def test_a_count_of_0_inside_words_cut_another_way_is_explained(tmp_path):
    """In "the" cut "t he" by the merges so far, the pair (t, h) never stands side by
    side although the bytes occur: the sentence says where and how it is cut."""
    text = "the the the then he he hey"
    from bpe_gui.engine import Trainer
    t = Trainer.from_text(text, TrainSettings(num_merges=3))
    t.run()
    ref = [(s.left, s.right) for s in t.steps]
    assert ref[0] == (b"h", b"e"), ref
    merges = ref[:1] + [(b"t", b"h")]
    vocab = {i: bytes([i]) for i in range(256)}
    for a, b in merges:
        vocab[len(vocab)] = a + b
    d = check_merges(read_result(L.write_pickle(tmp_path, vocab, merges)), text,
                     special_tokens=[]).difference
    assert d.step == 2 and d.their_count == 0
    assert "cut it another way" in d.zero_why and "t he" in d.zero_why


@pytest.mark.regression
def test_the_wrong_corpus_is_asked_about(tmp_path, text, correct, corpora_dir):
    """Checked against another corpus it said "none of the usual causes" and never asked
    whether this is the corpus the trainer was trained on."""
    import lzma
    other = lzma.open(corpora_dir / "en-tinyshakespeare.txt.xz", "rt",
                      encoding="utf-8").read()[:50_000]
    vocab, merges = correct
    report = check(tmp_path, other, vocab, merges)
    assert report.corpus_warning.startswith("Is this the corpus you trained on?")
    missing = [m for m in merges if (m[0] + m[1]) not in other.encode()]
    assert len(missing) > 0.05 * len(merges)   # the rule the warning states, counted here
    assert report.difference.zero_why == "" or "never occurs" in report.difference.zero_why \
        or report.difference.their_count != 0


@pytest.mark.parametrize("name", list(L.WRONG_TRAINERS))
def test_no_corpus_warning_on_the_corpus_trained_on(tmp_path, text, name):
    vocab, merges = L.train(text, VOCAB, **L.WRONG_TRAINERS[name])
    assert check(tmp_path, text, vocab, merges).corpus_warning == ""
