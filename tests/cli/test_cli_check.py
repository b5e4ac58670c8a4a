"""``bpe-gui check``: a learner's result against the reference from the command line.
Exit status 0 when all merges (and ids) agree, 1 when they part, 2 for bad input."""
from __future__ import annotations

import json
import os
import pickle
import re
from pathlib import Path

import pytest

import bpe_learners as L
from test_cli import assert_user_error, err, out, run

VOCAB = 256 + 1 + 150
SAMPLE = "The newest café<|endoftext|>Hmmm, the lowest widest road... aaaa!"
CAUSE_NAMES = {
    "tie-first-seen": "a tie broken another way",
    "tie-least": "a tie broken another way",
    "specials": "pairs counted across special tokens",
    "boundaries": "pairs counted across pre-token boundaries",
    "overlap": "overlapping pairs counted or merged another way",
    "pattern": "another pre-tokenizer pattern",
    "chars": "characters instead of bytes",
    "not-a-pair": "a merge that is not a pair of existing tokens",
    "vocab-size": "the vocabulary size off by the special tokens",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "tutorial.txt"
    path.write_text(L.tutorial_text(), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def correct(corpus):
    return L.train(corpus.read_text(encoding="utf-8"), VOCAB)


def first_difference(a, b) -> int:
    for k, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return k
    return min(len(a), len(b)) + 1


@pytest.mark.parametrize("writer", ["write_pickle", "write_gpt2", "write_hf", "write_tiktoken"])
def test_a_correct_result_exits_0_in_every_format(tmp_path, corpus, correct, writer):
    path = getattr(L, writer)(tmp_path, *correct)
    p = run("check", str(path), "--corpus", str(corpus), cwd=tmp_path)
    assert p.returncode == 0, out(p) + err(p)
    assert "All 150 merges agree with the reference" in out(p)


@pytest.mark.regression
def test_a_corpus_of_two_files_after_one_flag(tmp_path, corpus):
    """check --tokenizer T --corpus a.txt b.txt advised "drop 'b.txt'": b.txt is a second
    corpus file, and is now read as one."""
    text = corpus.read_text(encoding="utf-8")
    half = len(text) // 2
    half = text.index(" ", half)   # (two documents, cut between words)
    (tmp_path / "a.txt").write_text(text[:half], "utf-8")
    (tmp_path / "b.txt").write_text(text[half:], "utf-8")
    path = L.write_gpt2(tmp_path, *L.train("", VOCAB, docs=lambda _t, s: [
        *L.split_specials(text[:half], s), *L.split_specials(text[half:], s)]))
    p = run("check", "--tokenizer", str(path), "--corpus", "a.txt", "b.txt", cwd=tmp_path)
    assert p.returncode == 0, out(p) + err(p)
    assert "a.txt, b.txt" in out(p) and "agree with the reference" in out(p)
    q = run("check", "--corpus", "a.txt", str(path), cwd=tmp_path)
    assert q.returncode == 2 and "put --tokenizer before it" in err(q)


@pytest.mark.parametrize("name", list(L.WRONG_TRAINERS))
def test_each_wrong_trainer_exits_1_naming_the_step_and_cause(tmp_path, corpus, correct, name):
    vocab, merges = L.train(corpus.read_text(encoding="utf-8"), VOCAB, **L.WRONG_TRAINERS[name])
    step = first_difference(merges, correct[1])
    args = ["--vocab-size", str(VOCAB)] if name == "vocab-size" else []
    p = run("check", str(L.write_pickle(tmp_path, vocab, merges)), "--corpus", str(corpus),
            *args, cwd=tmp_path)
    assert p.returncode == 1, out(p) + err(p)
    text = out(p)
    assert f"Merge {step} differs ({step - 1} agree before it" in text
    assert f"cause: {CAUSE_NAMES[name]}" in text
    assert err(p) == ""


def test_the_settings_given_are_used(tmp_path, corpus):
    text = corpus.read_text(encoding="utf-8")
    vocab, merges = L.train(text, VOCAB, pick=L.first_seen)
    path = L.write_pickle(tmp_path, vocab, merges)
    p = run("check", str(path), "--corpus", str(corpus), "--tie-rule", "first-seen",
            cwd=tmp_path)
    assert p.returncode == 0, out(p)
    assert "tie rule: first-seen" in out(p)
    p = run("check", str(path), "--corpus", str(corpus), "--preset", "whitespace",
            cwd=tmp_path)
    assert p.returncode == 1 and "the whitespace split (\\S+|\\s+) (given)" in out(p)


def test_verbose_lists_the_causes_tried_and_the_words(tmp_path, corpus):
    vocab, merges = L.train(corpus.read_text(encoding="utf-8"), VOCAB, count=L.count_runs_halved)
    p = run("check", str(L.write_pickle(tmp_path, vocab, merges)), "--corpus", str(corpus),
            "-v", cwd=tmp_path)
    text = out(p)
    assert "causes tried" in text
    assert re.search(r"a run like aaa counted without overlaps +150\n", text)
    assert "words holding the reference's pair a a" in text


def test_json_output(tmp_path, corpus, correct):
    vocab, merges = L.train(corpus.read_text(encoding="utf-8"), VOCAB, words_of=L.by_whitespace)
    p = run("check", str(L.write_pickle(tmp_path, vocab, merges)), "--corpus", str(corpus),
            "--json", cwd=tmp_path)
    data = json.loads(out(p))["merges"]
    assert p.returncode == 1 and not data["agree"]
    d = data["difference"]
    assert d["cause"] == "pattern" and d["step"] == first_difference(merges, correct[1])
    assert d["yours"]["hex"] == [x.hex() for x in merges[d["step"] - 1]]
    assert data["settings_found"]["changes"] == ["the whitespace split (\\S+|\\s+) (not GPT-2's "
                                                 "pattern)"]


@pytest.mark.parametrize("name, cause", [("order", "merges applied out of rank order"),
                                         ("special", "a special token encoded as text"),
                                         ("pattern", "words cut by another pattern")])
def test_an_encoders_ids(tmp_path, correct, name, cause):
    vocab, merges = correct
    result = L.write_pickle(tmp_path, vocab, merges)
    (tmp_path / "text.txt").write_text(SAMPLE, encoding="utf-8")
    (tmp_path / "ok.txt").write_text(json.dumps(L.encode(SAMPLE, vocab, merges)))
    (tmp_path / "bad.txt").write_text(" ".join(
        map(str, L.encode(SAMPLE, vocab, merges, **L.WRONG_ENCODERS[name]))))
    ok = run("check", str(result), "--ids", "ok.txt", "--text", "text.txt", cwd=tmp_path)
    assert ok.returncode == 0 and "tokens agree" in out(ok)
    bad = run("check", str(result), "--ids", "bad.txt", "--text", "text.txt", cwd=tmp_path)
    assert bad.returncode == 1, out(bad) + err(bad)
    assert f"cause: {cause}" in out(bad) and "they part at token" in out(bad)


def test_bad_input_exits_2(tmp_path, corpus, correct):
    result = L.write_pickle(tmp_path, *correct)
    assert_user_error(run("check", str(result), cwd=tmp_path), "--corpus")
    assert_user_error(run("check", str(result), "--ids", "x", cwd=tmp_path), "--text")
    assert_user_error(run("check", "missing.pkl", "--corpus", str(corpus), cwd=tmp_path),
                      "not found")
    assert_user_error(run("check", str(result), "--corpus", "nope.txt", cwd=tmp_path))
    assert_user_error(run("check", str(result), "--corpus", str(corpus), "--preset", "gpt5",
                          cwd=tmp_path), "unknown preset")


class Payload:
    def __reduce__(self):
        return (os.system, ("touch pwned",))


def test_a_pickle_that_would_run_code_exits_2_and_runs_nothing(tmp_path, corpus):
    (tmp_path / "evil.pkl").write_bytes(pickle.dumps(({}, [Payload()])))
    assert_user_error(run("check", "evil.pkl", "--corpus", str(corpus), cwd=tmp_path),
                      "a pickle can run code")
    assert not (tmp_path / "pwned").exists()


def test_check_names_every_cause_and_takes_preset_none(tmp_path):
    """The CLI prints each cause found after the first, and --preset none is no
    pre-tokenization (a trainer without it agrees)."""
    text = L.tutorial_text()
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8")
    vocab, merges = L.train(text, 256 + 1 + 150, words_of=L.whole_documents, pick=L.first_seen)
    pkl = L.write_pickle(tmp_path, vocab, merges)
    p = run("check", str(pkl), "--corpus", str(corpus), cwd=tmp_path)
    assert p.returncode == 1, err(p)
    assert "cause: pairs counted across pre-token boundaries" in out(p)
    assert "then merge" in out(p) and "cause: a tie broken another way" in out(p)
    assert "count 0: " in out(p)
    vocab, merges = L.train(text, 256 + 1 + 150, words_of=L.whole_documents)
    pkl = L.write_pickle(tmp_path, vocab, merges)
    p = run("check", str(pkl), "--corpus", str(corpus), "--preset", "none", cwd=tmp_path)
    assert p.returncode == 0, out(p) + err(p)


@pytest.mark.parametrize("mode", [[], ["--mode", "byte"]])
def test_end_of_word_with_a_byte_level_reference_is_refused(tmp_path, corpus, correct, mode):
    """--end-of-word places char mode's </w>; a byte-level reference has none (was:
    accepted and ignored, exit 0)."""
    path = L.write_gpt2(tmp_path, *correct)
    p = run("check", str(path), "--corpus", str(corpus), "--end-of-word", "prefix", *mode,
            cwd=tmp_path)
    assert_user_error(p, "--end-of-word prefix", "character-level BPE only",
                      "the reference is byte-level", "leave --end-of-word out")
