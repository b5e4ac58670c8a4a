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

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402

from engine_oracle import gpt2_chars  # noqa: E402
from test_cli import CORPUS, err, out, run  # noqa: E402

EOT = "<|endoftext|>"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "CLI.md"

# each --json output's fields (docs/CLI.md), and a check of each field's value
STR, INT, LIST, DICT, BOOL = str, int, list, dict, bool
SCHEMAS = {
    "encode": {"schema": STR, "tokenizer": STR, "encodings": LIST},
    "encoding": {"text": STR, "ids": LIST, "token_strings": LIST, "offsets": LIST,
                 "special": LIST},
    "decode": {"schema": STR, "tokenizer": STR, "ids": LIST, "text": STR, "token_strings": LIST},
    "inspect": {"schema": STR, "tokenizer": STR, "n_tokens": INT, "reencoded_by": STR,
                "counts": DICT, "ok": LIST, "unreachable": LIST, "undecodable": LIST,
                "special": LIST},
    "inspect.token": {"id": INT, "text": STR, "hex": STR, "utf8": BOOL, "token": STR},
    "check": {"schema": STR, "merges": DICT},
    "check.merges": {"agree": BOOL, "n_yours": INT, "n_reference": INT, "difference": object},
    "models": {"schema": STR, "models": LIST, "looked_in": LIST, "notes": LIST,
               "complete": BOOL},
    "cost": {"schema": STR, "folder": STR, "reference": STR, "alpha": float,
             "tokenizers": DICT, "rows": LIST},
    "cost.row": {"language": STR, "tokenizer": STR, "characters": INT, "bytes": INT,
                 "tokens": INT, "bytes_per_token": float, "tokens_per_char": float,
                 "parity": float, "reference": STR, "renyi_efficiency": float, "alpha": float,
                 "token_types": INT, "vocab_size": INT},
}


# layouts changed since their first version (encode, decode: "tokens" became "token_strings")
VERSIONS = {"inspect": 2, "cost": 2, "encode": 2, "decode": 2}


def valid(data: dict, name: str) -> dict:
    """The object has exactly the documented fields, each of its type; returns it."""
    want = SCHEMAS[name]
    assert set(data) >= set(want), (name, sorted(set(want) - set(data)))
    for key, kind in want.items():
        assert isinstance(data[key], kind), (name, key, data[key])
    if "schema" in want:
        assert data["schema"] == f"bpe-gui.{name}/{VERSIONS.get(name, 1)}"
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
        assert e["token_strings"] == want.tokens
        assert e["special"] == [t == EOT for t in want.tokens]
        # one spelling by name in both doors: the library's token_strings, tokens its bytes
        enc = load_tokenizer(tok_dir / "tokenizer.json").encode_with_offsets(text)
        assert enc.token_strings == e["token_strings"]
        byte_of = {c: b for b, c in enumerate(gpt2_chars())}
        assert enc.tokens == [t.encode() if t == EOT else bytes(map(byte_of.__getitem__, t))
                              for t in want.tokens]


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
    assert data["token_strings"] == [hf.id_to_token(i) for i in ids]
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


def test_cost_json_counts_as_tokenizers_does(tmp_path, tok_dir, hf):
    (tmp_path / "texts").mkdir()
    texts = {"en": "hello world, it's the lowest " * 20, "zh": "满纸荒唐言，一把辛酸泪 " * 20}
    for lang, text in texts.items():
        (tmp_path / "texts" / f"{lang}.txt").write_text(text, "utf-8")
    path = str(tok_dir / "tokenizer.json")
    p = run("cost", "texts", "--tokenizer", path, "--json", "--csv", "c.csv", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    data = valid(json.loads(out(p)), "cost")
    assert data["tokenizers"] == {"tokenizer.json": path} and data["reference"] == "en"
    assert (tmp_path / "c.csv").is_file() and "wrote" in err(p)
    count = {lang: len(hf.encode(t, add_special_tokens=False).ids) for lang, t in texts.items()}
    for row in data["rows"]:
        valid(row, "cost.row")
        text = texts[row["language"]]
        assert row["tokens"] == count[row["language"]]
        assert (row["characters"], row["bytes"]) == (len(text), len(text.encode()))
        assert row["parity"] == pytest.approx(count[row["language"]] / count["en"])
    header = (tmp_path / "c.csv").read_text("utf-8").splitlines()[0].split(",")
    assert [list(row) for row in data["rows"]] == [header] * len(data["rows"])


@pytest.mark.regression
def test_cost_says_why_parity_has_no_value(tmp_path, tok_dir):
    """An empty reference text made every parity "-" with no word why."""
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "en.txt").write_text("", "utf-8")
    (tmp_path / "texts" / "de.txt").write_text("hallo welt " * 20, "utf-8")
    p = run("cost", "texts", "--tokenizer", str(tok_dir / "tokenizer.json"), cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert "'en' gives no tokens" in err(p) and "--reference another language (de)" in err(p)


def test_inspect_and_check_and_models_json(tmp_path, tok_dir):
    p = run("inspect", "--tokenizer", str(tok_dir / "tokenizer.json"), "--json", "-q",
            cwd=tmp_path)
    data = valid(json.loads(out(p)), "inspect")
    hf = tokenizers.Tokenizer.from_file(str(tok_dir / "tokenizer.json"))
    vocab = hf.get_vocab(with_added_tokens=True)
    listed = [t for kind in ("ok", "unreachable", "undecodable", "special") for t in data[kind]]
    assert sorted(t["id"] for t in listed) == sorted(vocab.values())
    assert data["counts"] == {k: len(data[k]) for k in data["counts"]}
    for t in listed + [r for t in data["unreachable"] for r in t["reencoded"]]:
        valid(t, "inspect.token")
        assert vocab[t["token"]] == t["id"]   # spelt as tokenizers spells it
        raw = bytes.fromhex(t["hex"])
        assert hf.decode([t["id"]], skip_special_tokens=False).encode() == raw or \
            not t["utf8"]
        assert t["utf8"] == (raw.decode("utf-8", "replace").encode() == raw)
    assert {t["token"] for t in data["special"]} == {EOT}
    (tmp_path / "corpus.txt").write_text(CORPUS, "utf-8")
    p = run("check", "--tokenizer", str(tok_dir / "vocab.json"), "--corpus", "corpus.txt", "--json",
            "--special-token", EOT, "--preset", "cl100k", cwd=tmp_path, timeout=120)
    data = valid(json.loads(out(p)), "check")
    valid(data["merges"], "check.merges")
    p = run("models", "--json", cwd=tmp_path, env={"HOME": str(tmp_path)})
    valid(json.loads(out(p)), "models")


# ----- one flag name per meaning ----------------------------------------------------------------
def shown() -> dict[str, tuple[list[tuple[str, ...]], list[str]]]:
    """Each command's shown options (each action's option strings) and shown positionals
    (their destinations), as --help lists them."""
    import argparse
    from bpe_gui.cli.entry import COMMANDS, build_parser
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    got = {}
    for name in COMMANDS:
        acts = [a for a in sub.choices[name]._actions
                if a.help != argparse.SUPPRESS and "-h" not in a.option_strings]
        got[name] = ([tuple(a.option_strings) for a in acts if a.option_strings],
                     [a.dest for a in acts if not a.option_strings])
    return got


ALL = ["train", "encode", "decode", "chat", "count", "inspect", "cost", "mixture", "check",
       "models"]
LOADS = ["encode", "decode", "chat", "inspect", "mixture"]   # --tokenizer or --model
CUTS = ["train", "encode", "decode", "count", "inspect", "check"]   # specials and pattern
# a meaning -> its one flag (with its short form), and every command that takes it: the
# whole of every command's options, so a flag added anywhere must be placed here, and a
# second name for a meaning already here has nowhere to go
MEANINGS: dict[str, tuple[tuple[str, ...], list[str]]] = {
    "no notes on stderr": (("-q", "--quiet"), ALL),
    "more detail": (("-v", "--verbose"), ["check"]),
    "the tokenizer's file or folder": (("--tokenizer",), LOADS + ["cost", "check"]),
    "a model on this machine": (("--model",), LOADS),
    "JSON on stdout": (("--json",), LOADS + ["check", "models", "cost"]),
    "CSV output": (("--csv",), ["cost"]),
    "special tokens": (("--special-token",), CUTS),
    "a pre-tokenizer preset": (("--preset",), CUTS),
    "a pre-tokenizer regex": (("--pattern",), CUTS),
    "the tie rule": (("--tie-rule",), ["train", "check"]),
    "byte or char mode": (("--mode",), ["train", "check"]),
    "where </w> goes": (("--end-of-word",), ["train", "check"]),
    "the vocabulary size": (("--vocab-size",), ["train", "check"]),
    "merges to learn": (("--num-merges",), ["train"]),
    "the tokenizer's first N merges": (("--merges",), ["inspect", "mixture"]),
    "a corpus beside the main input": (("--corpus",), ["inspect", "check"]),
    "count tables as the corpus": (("--counts",), ["train"]),
    "the corpus files' text encoding": (("--encoding",), ["train", "count"]),
    "one text per line": (("--lines",), ["train", "count", "check"]),
    "the output folder or file": (("--out",), ["train", "count", "encode"]),
    "export formats": (("--format",), ["train"]),
    "the exports' base name": (("--name",), ["train"]),
    "min pair count": (("--min-frequency",), ["train"]),
    "drop tokens no longer used": (("--prune",), ["train"]),
    "parity-aware training": (("--parity",), ["train"]),
    "a language's text": (("--language",), ["train"]),
    "a language's dev text": (("--dev",), ["train"]),
    "a language's target ratio": (("--ratio",), ["train"]),
    "parity: global merges first": (("--global-merges",), ["train"]),
    "parity: window size": (("--window-size",), ["train"]),
    "parity: a language's window share": (("--window-share",), ["train"]),
    "the Renyi entropy's order": (("--alpha",), ["cost"]),
    "train on from a file": (("--from",), ["train"]),
    "train on from a model": (("--from-model",), ["train"]),
    "SuperBPE from scratch": (("--superbpe-from",), ["train"]),
    "SuperBPE on --from": (("--superbpe",), ["train"]),
    "ids only": (("--ids-only",), ["encode"]),
    "special text as ordinary": (("--ordinary",), ["encode"]),
    "how training reads special-token text": (("--special-text",), ["train"]),
    "the format's added tokens": (("--add-special-tokens", "--no-add-special-tokens"),
                                  ["encode"]),
    "special text read as its token": (("--allowed-special",), ["encode"]),
    "special text refused": (("--disallowed-special",), ["encode"]),
    "a file's text to encode": (("--file",), ["encode"]),
    "a .jsonl line's text field": (("--field",), ["encode"]),
    "the text between documents": (("--separator",), ["encode"]),
    "the id between documents": (("--eot-id",), ["encode"]),
    "coloured tokens": (("--color",), ["encode", "chat"]),
    "encoding step by step": (("--explain",), ["encode"]),
    "decode without special tokens": (("--skip-special-tokens",), ["decode"]),
    "decode with special tokens": (("--keep-special-tokens",), ["decode"]),
    "a chat template file": (("--template",), ["chat"]),
    "a named chat template": (("--template-name",), ["chat"]),
    "which of openai-harmony's renders": (("--harmony-render",), ["chat"]),
    "the conversation": (("--messages",), ["chat"]),
    "the template's date": (("--date",), ["chat"]),
    "count on dask": (("--dask",), ["count"]),
    "counting threads": (("--threads",), ["train", "count", "encode"]),
    "dask range size": (("--range-size",), ["count"]),
    "at most N tokens listed": (("--limit",), ["inspect"]),
    "list ok tokens": (("--ok",), ["inspect"]),
    "dead-weight threshold": (("--threshold",), ["inspect"]),
    "min token count": (("--min-count",), ["inspect"]),
    "parity's reference language": (("--reference",), ["cost"]),
    "a mixture category": (("--category",), ["mixture"]),
    "solver rounds": (("--max-rounds",), ["mixture"]),
    "solver time": (("--time-limit",), ["mixture"]),
    "your encoder's ids": (("--ids",), ["check"]),
    "the text of those ids": (("--text",), ["check"]),
    "what was skipped": (("--notes",), ["models"]),
}
# each command's positionals: its main input (a tokenizer is never one: --tokenizer)
POSITIONALS = {"train": ["corpus"], "count": ["corpus"], "encode": ["text"],
               "decode": ["ids"], "cost": ["folder"], "models": ["filter"], "gui": ["args"]}


@pytest.mark.parametrize("command", ALL + ["gui"])
def test_every_flag_has_its_meanings_one_name(command):
    flags, positionals = shown()[command]
    want = [f for f, cmds in MEANINGS.values() if command in cmds]
    assert sorted(flags) == sorted(want), (command, set(flags) ^ set(want))
    assert positionals == POSITIONALS.get(command, []), command


def test_no_flag_name_serves_two_meanings():
    names = [n for flags, _ in MEANINGS.values() for n in flags]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    shown_anywhere = {f for flags, _ in shown().values() for opts in flags for f in opts}
    assert "--tie-break" not in shown_anywhere   # train's older name: read, not shown


def test_check_takes_the_tokenizer_as_every_command_does(tmp_path, tok_dir):
    (tmp_path / "corpus.txt").write_text(CORPUS, "utf-8")
    common = ["--corpus", "corpus.txt", "--special-token", EOT, "--preset", "cl100k",
              "--json", "-q"]
    vocab = str(tok_dir / "vocab.json")
    new = run("check", "--tokenizer", vocab, *common, cwd=tmp_path, timeout=120)
    old = run("check", vocab, *common, cwd=tmp_path, timeout=120)   # the older spelling
    assert new.returncode == 0 and old.returncode == 0, err(new) + err(old)
    got_new, got_old = json.loads(out(new))["merges"], json.loads(out(old))["merges"]
    assert got_new["n_yours"] == 320 - 257 and got_new["agree"] is True
    assert {**got_old, "seconds": 0} == {**got_new, "seconds": 0}
    both = run("check", "--tokenizer", vocab, vocab, *common, cwd=tmp_path)
    assert both.returncode == 2 and "give your result once" in err(both)
    neither = run("check", *common, cwd=tmp_path)
    assert neither.returncode == 2 and "--tokenizer PATH" in err(neither)
    helped = run("check", "--help", cwd=tmp_path)
    assert "--tokenizer PATH" in out(helped) and "RESULT" not in out(helped)


def test_the_old_tie_flag_still_trains(tmp_path):
    (tmp_path / "c.txt").write_text(CORPUS, "utf-8")
    p = run("train", "c.txt", "--vocab-size", "270", "--out", "o", "--tie-break", "first-seen",
            "-q", cwd=tmp_path)
    assert p.returncode == 0, err(p)


def test_every_help_example_parses():
    """The example commands that end a command's --help use only flags that exist, each
    with a value its parser takes."""
    import argparse
    import shlex

    from bpe_gui.cli.entry import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    seen = 0
    for name in ["train", "count", "check", "encode"]:
        epilog = sub.choices[name].epilog or ""
        assert epilog.startswith("examples:"), name
        for line in epilog.splitlines()[1:]:
            command = next(part for part in line.split(" | ") if "bpe-gui" in part)
            words = shlex.split(command)
            assert words[0] == "bpe-gui", line
            parser.parse_args(words[1:])   # (a wrong one raises the usage error)
            seen += 1
    assert seen >= 10


def test_a_name_or_value_that_starts_with_a_dash_is_told_how_to_give_it(tmp_path):
    """argparse takes '-notes.txt' for an option. The error then says how to give it
    (./-notes.txt or -- for a name, --out=-tok for a value), and that way works."""
    (tmp_path / "-notes.txt").write_text(CORPUS, "utf-8")
    p = run("train", "-notes.txt", "--vocab-size", "300", "--out", "t", cwd=tmp_path)
    assert p.returncode == 2
    assert "write ./-notes.txt or put -- before the names" in err(p)
    p = run("train", "./-notes.txt", "--vocab-size", "300", "--out", "-tok", cwd=tmp_path)
    assert p.returncode == 2
    assert "a value that starts with '-' goes after '=': --out=-tok" in err(p)
    p = run("train", "--vocab-size", "300", "--out=-tok", "-q", "--", "-notes.txt", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    tok = tmp_path / "-tok" / "tokenizer.json"
    p = run("encode", "--tokenizer", str(tok), "--file", "-notes.txt", "--ids-only",
            cwd=tmp_path)
    assert p.returncode == 2 and "--file=-notes.txt" in err(p)
    p = run("encode", "--tokenizer", str(tok), "--file=-notes.txt", "--ids-only", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert [int(x) for x in out(p).split()] == load_tokenizer(tok).encode(CORPUS)
    p = run("-notes.txt", cwd=tmp_path)   # the window: no "--" (Qt's options)
    assert p.returncode == 2 and err(p).count("write ./-notes.txt (see") == 1
