"""`bpe-gui train --special-text cut|text|word`: how special-token text in the corpus is
read, from the command line: tokenizers' merges for both ways it meets special tokens,
and the option refused, with the spec's reason, where it means nothing."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_cli import assert_user_error, run

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

STORIES = Path(__file__).resolve().parents[1] / "fixtures" / "check_tutorial.txt"
EOT = "<|endoftext|>"


def hf_merges(path: Path, vocab_size: int, added: bool) -> list:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    if added:
        tok.add_special_tokens([EOT])
    tok.train([str(path)], trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=0, show_progress=False, special_tokens=[EOT],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return [list(m) if isinstance(m, list) else m.split(" ")
            for m in json.loads(tok.to_str())["model"]["merges"]]


def their_merges(path: Path) -> list:
    merges = json.loads(path.read_text(encoding="utf-8"))["model"]["merges"]
    return [list(m) if isinstance(m, list) else m.split(" ") for m in merges]


@pytest.mark.parametrize("how, added", [("text", False), ("word", True)])
def test_both_orders_give_tokenizers_merges(tmp_path, how, added):
    p = run("train", str(STORIES), "--vocab-size", "400", "--lines", "--tie-rule",
            "lowest-ids-hf", "--special-token", EOT, "--special-text", how, "--format", "hf",
            "-q", "--out", "o", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert their_merges(tmp_path / "o" / "tokenizer.json") == hf_merges(STORIES, 400, added)


def test_cut_is_the_default_and_parts_from_both(tmp_path):
    for args in ([], ["--special-text", "cut"]):
        p = run("train", str(STORIES), "--vocab-size", "400", "--lines", "--tie-rule",
                "lowest-ids-hf", "--special-token", EOT, *args, "--format", "hf", "-q",
                "--out", "o", cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        got = their_merges(tmp_path / "o" / "tokenizer.json")
        assert got != hf_merges(STORIES, 400, True) and got != hf_merges(STORIES, 400, False)
        assert not any("|" in a + b for a, b in got)   # nothing learned inside the token


@pytest.mark.parametrize("extra, said", [
    ([], "no special tokens"),
    (["--special-token", EOT, "--superbpe-from", "5"], "SuperBPE cuts its corpus"),
])
def test_refused_where_it_means_nothing(tmp_path, extra, said):
    p = run("train", str(STORIES), "--vocab-size", "400", "--special-text", "text", *extra,
            "--out", "o", cwd=tmp_path)
    assert_user_error(p, "--special-text", said)


def test_refused_with_parity_and_training_on(tmp_path):
    fixtures = STORIES.parent / "parallel"
    p = run("train", "--parity", "base", "--language", f"en={fixtures / 'en.train.txt'}",
            "--ratio", "en=1", "--num-merges", "10", "--special-text", "text", "--out", "o",
            cwd=tmp_path)
    assert_user_error(p, "--special-text", "parity training has no special tokens")
    assert run("train", str(STORIES), "--num-merges", "20", "--format", "hf", "-q",
               "--out", "base", cwd=tmp_path).returncode == 0
    p = run("train", str(STORIES), "--from", "base/tokenizer.json", "--num-merges", "5",
            "--special-text", "word", "--out", "o", cwd=tmp_path)
    assert_user_error(p, "--special-text", "the tokenizer trained on decides it")
