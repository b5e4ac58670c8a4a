"""`bpe-gui train --parity {base,window}` run as a subprocess: tokenizer.json holds
HF ParityBpeTrainer's merges for the same lines (it loads in `tokenizers`), and bad
input is refused in one line saying what to fix."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_cli import assert_user_error, out, run

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "parallel"


def lines(path: Path) -> list[str]:
    with open(path, encoding="utf-8", newline="\n") as f:
        return f.readlines()


def hf_merges(langs, dev: bool, ratio=None, **kw) -> list[str]:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tr = trainers.ParityBpeTrainer(show_progress=False, **kw)
    tr.train_from_iterator(
        tok, [iter(lines(FIXTURES / f"{lang}.train.txt")) for lang in langs],
        dev_iterators=[iter(lines(FIXTURES / f"{lang}.dev.txt")) for lang in langs]
        if dev else None, ratio=ratio)
    return [" ".join(m) for m in json.loads(tok.to_str())["model"]["merges"]]


def file_merges(path: Path) -> list[str]:
    return [" ".join(m) for m in json.loads(path.read_text("utf-8"))["model"]["merges"]]


def lang_args(langs, option="--language", part="train"):
    return [a for lang in langs for a in (option, f"{lang}={FIXTURES / f'{lang}.{part}.txt'}")]


def test_base_with_dev_writes_hf_merges(tmp_path):
    langs = ("en", "de", "zh")
    p = run("train", "--parity", "base", *lang_args(langs), *lang_args(langs, "--dev", "dev"),
            "--num-merges", "250", "--lines", "--out", "out", "-q", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    merges = file_merges(tmp_path / "out" / "tokenizer.json")
    assert merges == hf_merges(langs, dev=True, num_merges=250)
    loaded = Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json"))
    assert loaded.decode(loaded.encode("Der Satz, 这是 a test.").ids) == "Der Satz, 这是 a test."
    for lang in langs:
        assert f"  {lang}: " in out(p)


@pytest.mark.parametrize("share", ["--window-share", "--alpha"])
def test_window_with_ratios_and_global_merges_writes_hf_merges(tmp_path, share):
    """HF's alpha is --window-share (--alpha, its first name, is still read)."""
    langs = ("en", "ru")
    p = run("train", "--parity", "window", *lang_args(langs), "--ratio", "en=1",
            "--ratio", "ru=1.8", "--global-merges", "30", "--window-size", "12",
            share, "1.25", "--num-merges", "200", "--lines", "--out", "out", "-q",
            "--format", "hf", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert file_merges(tmp_path / "out" / "tokenizer.json") == hf_merges(
        langs, dev=False, ratio=[1.0, 1.8], num_merges=200, variant="window",
        global_merges=30, window_size=12, alpha=1.25)


def test_min_frequency_writes_hf_merges_and_says_why_it_stopped(tmp_path):
    """--min-frequency is HF's min_frequency: fewer merges than asked, HF's, and the
    summary says that no pair occurs often enough."""
    langs = ("en", "de")
    p = run("train", "--parity", "base", *lang_args(langs), *lang_args(langs, "--dev", "dev"),
            "--num-merges", "900", "--min-frequency", "40", "--lines", "--out", "out", "-q",
            "--format", "hf", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    merges = file_merges(tmp_path / "out" / "tokenizer.json")
    assert merges == hf_merges(langs, dev=True, num_merges=900, min_frequency=40)
    assert len(merges) < 900
    assert "no pair that occurs at least 40 times" in out(p)


@pytest.mark.parametrize("extra, needles", [
    (["--language", "en"], ["--language en", "NAME=FILE"]),
    (["--language", "en="], ["'en' has no file"]),
    (["--dev", "de=x.txt"], ["--parity base or --parity window"]),
])
def test_language_without_file_and_parity_options_alone(tmp_path, extra, needles):
    args = ["train", *extra, "--num-merges", "5", "--out", "out"]
    if extra[0] == "--language":
        args[1:1] = ["--parity", "base", "--ratio", "en=1"]
    assert_user_error(run(*args, cwd=tmp_path), *needles)


@pytest.mark.parametrize("extra, needles", [
    (lang_args(("en",), "--dev", "dev"), ["No dev text for 'de'"]),
    (["--ratio", "en=1", "--ratio", "fr=2"], ["Ratio for 'fr'", "not a training language"]),
    (["--ratio", "en=1"], ["No ratio for 'de'"]),
    (["--ratio", "en=1", "--ratio", "de=0"], ["positive number"]),
    (["--ratio", "en=1", "--ratio", "de=2", *lang_args(("en", "de"), "--dev", "dev")],
     ["--dev", "--ratio", "not both"]),
    ([], ["--dev NAME=FILE", "--ratio NAME=R"]),
    (["--ratio", "en=1", "--ratio", "de=1", "--window-size", "5"],
     ["--window-size apply to --parity window only"]),
])
def test_bad_dev_and_ratio_are_refused(tmp_path, extra, needles):
    p = run("train", "--parity", "base", *lang_args(("en", "de")), *extra,
            "--num-merges", "5", "--out", "out", cwd=tmp_path)
    assert_user_error(p, *needles)
    assert not (tmp_path / "out").exists()


def test_missing_language_file_is_named(tmp_path):
    p = run("train", "--parity", "base", "--language", "en=nope.txt", "--ratio", "en=1",
            "--num-merges", "5", "--out", "out", cwd=tmp_path)
    assert_user_error(p, "nope.txt")
