"""The command line as a tool (issue 69): ``decode``; ``encode`` of several texts, of
standard input and as JSON, against tokenizers; one flag name per meaning; ``-q`` on
every command; ``-`` for standard output; the file a folder gave named on stderr; every
``--json`` output with its ``schema`` and the fields docs/CLI.md lists."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

tokenizers = pytest.importorskip("tokenizers")

from test_cli import CORPUS, err, out, run  # noqa: E402

EOT = "<|endoftext|>"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "CLI.md"

# each --json output's fields (docs/CLI.md), and a check of each field's value
STR, INT, LIST, DICT, BOOL = str, int, list, dict, bool
SCHEMAS = {
    "encode": {"schema": STR, "tokenizer": STR, "encodings": LIST},
    "encoding": {"text": STR, "ids": LIST, "tokens": LIST, "offsets": LIST, "special": LIST},
    "decode": {"schema": STR, "tokenizer": STR, "ids": LIST, "text": STR, "tokens": LIST},
    "inspect": {"schema": STR, "ok": LIST, "unreachable": LIST, "undecodable": LIST,
                "special": LIST},
    "check": {"schema": STR, "merges": DICT},
    "check.merges": {"agree": BOOL, "n_yours": INT, "n_reference": INT, "difference": object},
    "models": {"schema": STR, "models": LIST, "looked_in": LIST, "notes": LIST,
               "complete": BOOL},
}


def valid(data: dict, name: str) -> dict:
    """The object has exactly the documented fields, each of its type; returns it."""
    want = SCHEMAS[name]
    assert set(data) >= set(want), (name, sorted(set(want) - set(data)))
    for key, kind in want.items():
        assert isinstance(data[key], kind), (name, key, data[key])
    if "schema" in want:
        assert data["schema"] == f"bpe-gui.{name}/1"
    return data


def test_every_json_field_is_documented():
    text = DOCS.read_text(encoding="utf-8")
    for name, fields in SCHEMAS.items():
        for key in fields:
            assert f"`{key}`" in text, (name, key)


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory) -> Path:
    """A tokenizer trained by the command (cl100k's pattern, one special token)."""
    work = tmp_path_factory.mktemp("trained")
    (work / "corpus.txt").write_text(CORPUS, "utf-8")
    p = run("train", "corpus.txt", "--vocab-size", "320", "--out", "tok", "--special-token",
            EOT, "--preset", "cl100k", "-q", cwd=work)
    assert p.returncode == 0, err(p)
    return work / "tok"


@pytest.fixture(scope="module")
def hf(tok_dir):
    return tokenizers.Tokenizer.from_file(str(tok_dir / "tokenizer.json"))


def test_encode_several_texts_as_json_equals_tokenizers(tmp_path, tok_dir, hf):
    texts = ["hello world, it's", f"满纸{EOT}荒唐言", ""]
    p = run("encode", "--tokenizer", str(tok_dir / "tokenizer.json"), *texts, "--json",
            cwd=tmp_path)
    assert p.returncode == 0, err(p)
    data = valid(json.loads(out(p)), "encode")
    assert [e["text"] for e in data["encodings"]] == texts
    for text, e in zip(texts, data["encodings"]):
        want = hf.encode(text, add_special_tokens=False)
        valid(e, "encoding")
        assert e["ids"] == want.ids and [tuple(o) for o in e["offsets"]] == want.offsets
        assert e["tokens"] == want.tokens
        assert e["special"] == [t == EOT for t in want.tokens]


def test_encode_reads_standard_input_and_ordinary_text(tmp_path, tok_dir, hf):
    text = f"hi{EOT} there"
    p = run("encode", "--tokenizer", str(tok_dir), "-", "--ids-only", "-q",
            cwd=tmp_path, stdin=text.encode())
    assert p.returncode == 0 and err(p) == ""
    assert out(p).split() == [str(i) for i in hf.encode(text, add_special_tokens=False).ids]
    plain = tokenizers.Tokenizer.from_str(hf.to_str())
    plain.encode_special_tokens = True
    p = run("encode", "--tokenizer", str(tok_dir), text, "--ids-only", "--ordinary",
            cwd=tmp_path)
    assert out(p).split() == [str(i) for i in plain.encode(text, add_special_tokens=False).ids]


def test_decode_equals_tokenizers(tmp_path, tok_dir, hf):
    ids = hf.encode(f"hello {EOT} world", add_special_tokens=False).ids
    path = str(tok_dir / "tokenizer.json")
    p = run("decode", "--tokenizer", path, *map(str, ids), cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert out(p) == hf.decode(ids) + "\n"   # tokenizers' default: specials skipped
    p = run("decode", "--tokenizer", path, "--keep-special-tokens", "--json", cwd=tmp_path,
            stdin=json.dumps(ids).encode())
    data = valid(json.loads(out(p)), "decode")
    assert data["ids"] == ids and data["text"] == hf.decode(ids, skip_special_tokens=False)
    assert data["tokens"] == [hf.id_to_token(i) for i in ids]
    p = run("decode", "--tokenizer", path, "12x", cwd=tmp_path)
    assert p.returncode == 2 and "'12x' is not a token id" in err(p)
    p = run("decode", "--tokenizer", path, "99999", cwd=tmp_path)
    assert p.returncode == 2 and "99999 is not in the vocabulary" in err(p)


def test_a_folder_names_the_file_it_loaded(tmp_path, tok_dir):
    p = run("encode", "--tokenizer", str(tok_dir), "hi", cwd=tmp_path)
    assert re.search(r"note: .*: loaded .*tokenizer\.bpe-gui\.json", err(p)), err(p)
    p = run("encode", "--tokenizer", str(tok_dir), "hi", "-q", cwd=tmp_path)
    assert err(p) == ""


def test_cost_csv_dash_writes_standard_output(tmp_path, tok_dir):
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "en.txt").write_text("hello world " * 20, "utf-8")
    p = run("cost", "texts", "--tokenizer", str(tok_dir), "--csv", "-", "-q", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert not (tmp_path / "-").exists()
    assert out(p).splitlines()[0].startswith("language,") and err(p) == ""


def test_inspect_and_check_and_models_json(tmp_path, tok_dir):
    p = run("inspect", "--tokenizer", str(tok_dir), "--json", "-q", cwd=tmp_path)
    valid(json.loads(out(p)), "inspect")
    (tmp_path / "corpus.txt").write_text(CORPUS, "utf-8")
    p = run("check", str(tok_dir / "vocab.json"), "--corpus", "corpus.txt", "--json",
            "--special-token", EOT, "--preset", "cl100k", cwd=tmp_path, timeout=120)
    data = valid(json.loads(out(p)), "check")
    valid(data["merges"], "check.merges")
    p = run("models", "--json", cwd=tmp_path, env={"HOME": str(tmp_path)})
    valid(json.loads(out(p)), "models")


# ----- one flag name per meaning ----------------------------------------------------------------
def options() -> dict[str, dict[str, list[str]]]:
    """Each command's shown options, by destination."""
    from bpe_gui.cli.entry import COMMANDS, build_parser
    import argparse
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    got: dict[str, dict[str, list[str]]] = {}
    for name in COMMANDS:
        p = sub.choices[name]
        got[name] = {a.dest: list(a.option_strings) for a in p._actions
                     if a.option_strings and a.help != argparse.SUPPRESS}
    return got


MEANINGS = {   # a meaning -> its one flag, and the commands that take it
    "quiet": ("-q", ["train", "encode", "decode", "count", "inspect", "cost", "mixture",
                     "check", "models"]),
    "tie rule": ("--tie-rule", ["train", "check"]),
    "tokenizer file": ("--tokenizer", ["encode", "decode", "inspect", "cost", "mixture"]),
    "json": ("--json", ["encode", "decode", "inspect", "mixture", "check", "models"]),
    "special tokens": ("--special-token", ["train", "encode", "decode", "inspect", "count",
                                           "check"]),
}


@pytest.mark.parametrize("meaning", list(MEANINGS))
def test_one_flag_per_meaning(meaning):
    flag, commands = MEANINGS[meaning]
    found = options()
    for command in commands:
        names = [o for opts in found[command].values() for o in opts]
        assert flag in names, (command, flag)
    shown = {o for cmd in found.values() for opts in cmd.values() for o in opts}
    assert "--tie-break" not in shown   # train's older name: still read, not shown


def test_the_old_tie_flag_still_trains(tmp_path):
    (tmp_path / "c.txt").write_text(CORPUS, "utf-8")
    p = run("train", "c.txt", "--vocab-size", "270", "--out", "o", "--tie-break", "first-seen",
            "-q", cwd=tmp_path)
    assert p.returncode == 0, err(p)
