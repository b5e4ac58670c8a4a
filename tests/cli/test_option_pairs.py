"""Pairs of options where one would silently override the other are refused, saying which
to keep; each option alone still works."""
from __future__ import annotations

import json

import pytest

from test_cli import assert_user_error, out, run

CORPUS = "low lower newest widest the a of\n" * 40


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("pairs")
    (d / "c.txt").write_text(CORPUS, "utf-8")
    assert run("train", "c.txt", "--num-merges", "10", "--out", "tok", "--format", "native",
               "-q", cwd=d).returncode == 0
    return d


@pytest.mark.parametrize("extra", [[], ["--from", "tok/tokenizer.bpe-gui.json"]])
def test_vocab_size_with_num_merges_is_refused(work, extra):
    p = run("train", "c.txt", *extra, "--vocab-size", "300", "--num-merges", "5", "--out",
            "o", cwd=work)
    assert_user_error(p, "--vocab-size or --num-merges, not both", "300", "5")
    assert not (work / "o").exists()


@pytest.mark.parametrize("size", [["--vocab-size", "262"], ["--num-merges", "6"]])
def test_either_size_alone_trains(work, tmp_path, size):
    p = run("train", str(work / "c.txt"), *size, "--out", "o", "--format", "hf", "-q",
            cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    merges = json.loads((tmp_path / "o" / "tokenizer.json").read_text("utf-8"))["model"]["merges"]
    assert len(merges) == 6   # 262 = 256 bytes + 6 merges


@pytest.mark.parametrize("flags,needles", [
    (["--ids-only", "--json"], ["--ids-only and --json", "pick one"]),
    (["--json", "--color", "always"], ["--color always", "--json"]),
    (["--ids-only", "--color", "always"], ["--color always", "--ids-only"]),
])
def test_encode_output_forms_that_override_each_other(work, flags, needles):
    assert_user_error(run("encode", "--tokenizer", "tok", *flags, "low", cwd=work), *needles)


def test_encode_json_with_color_never_is_fine(work):
    p = run("encode", "--tokenizer", "tok", "--json", "--color", "never", "low", cwd=work)
    assert p.returncode == 0
    assert json.loads(out(p))["encodings"][0]["text"] == "low"


def test_inspect_ok_with_json_is_refused(work):
    assert_user_error(run("inspect", "--tokenizer", "tok", "--json", "--ok", cwd=work),
                      "--ok", "--json")
    p = run("inspect", "--tokenizer", "tok", "--json", cwd=work)
    assert p.returncode == 0 and "ok" in json.loads(out(p))
