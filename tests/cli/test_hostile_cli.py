"""Hostile input to every command (issue 23): each case gets exit 2, one line
`bpe-gui: error: ...` and no traceback, within a timeout, and leaves what it was given as
it was (nothing overwritten, nothing half-written)."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from bpe_gui.engine.text.pretokenize import PRESETS

from test_cli import CORPUS, assert_user_error, err, run

GPT2 = PRESETS["gpt2"]


def table_file(path: Path, rows: list[tuple[int, str]], meta: dict | None = None,
               header: bool = True) -> Path:
    """A word-count table written by hand (not by our writer): rows (count, word)."""
    m = {"format": "bpe-gui-counts", "version": 1, "pattern": GPT2, "preset": "gpt2",
         "special_tokens": [], "modes": ["byte", "char"], "words": len(rows),
         "total": sum(c for c, _ in rows), "chars": 0, "bytes": 0}
    m.update(meta or {})
    lines = ["#bpe-gui-counts\t1\t" + json.dumps(m)] if header else []
    lines += ["count\tword"] + [f"{c}\t{w}" for c, w in rows]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


@pytest.fixture
def corpus(tmp_path) -> Path:
    p = tmp_path / "corpus.txt"
    p.write_text(CORPUS, "utf-8")
    return p


@pytest.fixture(scope="module")
def tok(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("tok")
    (d / "c.txt").write_text(CORPUS, "utf-8")
    p = run("train", "c.txt", "--vocab-size", "300", "--out", "t", "-q", cwd=d)
    assert p.returncode == 0, err(p)
    return d / "t"


def unchanged(path: Path, before: bytes) -> bool:
    return path.read_bytes() == before and not [q for q in path.parent.iterdir()
                                                if q.name.startswith(".")]


# ----- an output that is an input ---------------------------------------------------------
def test_count_out_is_the_corpus(tmp_path, corpus):
    before = corpus.read_bytes()
    assert_user_error(run("count", "corpus.txt", "--out", "corpus.txt", cwd=tmp_path),
                      "overwrite the input corpus.txt")
    assert unchanged(corpus, before)


def test_count_out_is_the_corpus_through_a_symlink_and_a_hard_link(tmp_path, corpus):
    before = corpus.read_bytes()
    (tmp_path / "link.txt").symlink_to(corpus)
    os.link(corpus, tmp_path / "hard.txt")
    assert_user_error(run("count", "link.txt", "--out", "corpus.txt", cwd=tmp_path),
                      "overwrite the input link.txt")
    assert_user_error(run("count", "corpus.txt", "--out", "hard.txt", cwd=tmp_path),
                      "overwrite the input")
    assert corpus.read_bytes() == before


def test_train_out_folder_holding_the_corpus_under_an_output_name(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "merges.txt").write_text(CORPUS, "utf-8")
    before = (out / "merges.txt").read_bytes()
    assert_user_error(run("train", "o/merges.txt", "--vocab-size", "300", "--out", "o",
                          cwd=tmp_path), "overwrite the input o/merges.txt")
    assert unchanged(out / "merges.txt", before)
    # another --name writes other files: fine
    p = run("train", "o/merges.txt", "--vocab-size", "300", "--out", "o", "--name", "x", "-q",
            cwd=tmp_path)
    assert p.returncode == 0, err(p)


def test_train_counts_table_under_an_output_name(tmp_path, corpus):
    assert run("count", "corpus.txt", "--out", "o/vocab.json", "-q", cwd=tmp_path).returncode == 0
    before = (tmp_path / "o" / "vocab.json").read_bytes()
    assert_user_error(run("train", "--counts", "o/vocab.json", "--vocab-size", "300",
                          "--out", "o", cwd=tmp_path), "overwrite the input")
    assert (tmp_path / "o" / "vocab.json").read_bytes() == before


def test_encode_output_appended_to_its_own_input(tmp_path, tok):
    f = tmp_path / "t.txt"
    f.write_text("hello", "utf-8")
    with open(f, "rb") as i, open(f, "ab") as o:
        p = __import__("subprocess").run(
            [sys.executable, "-m", "bpe_gui", "encode", "--tokenizer", str(tok), "--ids-only"],
            stdin=i, stdout=o, stderr=-1, timeout=60,
            env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2])))
    assert p.returncode == 2 and b"standard output is the file standard input" in p.stderr
    assert f.read_text("utf-8") == "hello"


def test_cost_csv_over_a_held_out_text(tmp_path, tok):
    held = tmp_path / "held"
    held.mkdir()
    (held / "en.txt").write_text("hello world", "utf-8")
    assert_user_error(run("cost", "held", "--tokenizer", str(tok), "--csv", "held/en.txt",
                          cwd=tmp_path), "--csv would overwrite")
    assert (held / "en.txt").read_text("utf-8") == "hello world"


# ----- inputs that are not files ------------------------------------------------------------
@pytest.fixture
def fifo(tmp_path) -> Path:
    p = tmp_path / "pipe"
    os.mkfifo(p)
    return p


@pytest.mark.parametrize("args,needle", [
    (["train", "pipe", "--vocab-size", "300", "--out", "o"], "named pipe"),
    (["count", "pipe", "--out", "t.tsv"], "named pipe"),
    (["train", "--counts", "pipe", "--vocab-size", "300", "--out", "o"], "named pipe"),
    (["encode", "--tokenizer", "pipe", "hi"], "named pipe"),
    (["inspect", "--tokenizer", "pipe"], "named pipe"),
    (["train", "/dev/zero", "--vocab-size", "300", "--out", "o"], "device"),
    (["count", "/dev/zero", "--out", "t.tsv"], "device"),
    (["train", "--counts", "/dev/zero", "--vocab-size", "300", "--out", "o"], "device"),
    (["encode", "--tokenizer", "/dev/zero", "hi"], "device"),
    (["train", "sub", "--vocab-size", "300", "--out", "o"], "folder"),
    (["count", "sub", "--out", "t.tsv"], "folder"),
])
def test_fifos_devices_and_folders_are_refused_at_once(tmp_path, fifo, args, needle):
    (tmp_path / "sub").mkdir()
    assert_user_error(run(*args, cwd=tmp_path, timeout=30), needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe", "sub"]


def test_a_huge_line_is_no_table(tmp_path):
    (tmp_path / "z.tsv").write_bytes(b"#" * (65 << 20))
    assert_user_error(run("train", "--counts", "z.tsv", "--vocab-size", "300", "--out", "o",
                          cwd=tmp_path), "not a word-count table")


# ----- text that is not UTF-8 ---------------------------------------------------------------
@pytest.mark.parametrize("command", ["train", "count"])
def test_utf16_is_named_and_encoding_reads_it(tmp_path, corpus, command):
    (tmp_path / "u16.txt").write_bytes(CORPUS.encode("utf-16"))
    (tmp_path / "u16be.txt").write_bytes(CORPUS.encode("utf-16-be"))   # no BOM
    out = ["--vocab-size", "300", "--out", "o"] if command == "train" else ["--out", "t.tsv"]
    for f in ("u16.txt", "u16be.txt"):
        line = assert_user_error(run(command, f, *out, cwd=tmp_path), "UTF-16", "iconv")
        assert "binary" not in line
    p = run(command, "u16.txt", "--encoding", "utf-16", *out, "-q", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    if command == "train":   # the same merges as the UTF-8 file
        q = run("train", "corpus.txt", "--vocab-size", "300", "--out", "o8", "-q", cwd=tmp_path)
        assert q.returncode == 0
        assert (tmp_path / "o" / "merges.txt").read_bytes() == \
            (tmp_path / "o8" / "merges.txt").read_bytes()


@pytest.mark.parametrize("command", ["train", "count"])
def test_utf16_without_a_byte_order_mark_asks_for_the_byte_order(tmp_path, command):
    """--encoding utf-16 on a file with no BOM: the codec cannot tell the byte order (it
    was a traceback); the error names the file and the two encodings that say it, and
    the one it names reads the file."""
    (tmp_path / "u16le.txt").write_bytes(CORPUS.encode("utf-16-le"))
    out = ["--vocab-size", "300", "--out", "o"] if command == "train" else ["--out", "t.tsv"]
    for enc in ("utf-16", "utf-32"):
        line = assert_user_error(run(command, "u16le.txt", "--encoding", enc, *out,
                                     cwd=tmp_path), "u16le.txt", f"cannot be decoded as {enc}")
        if enc == "utf-16":
            assert "utf-16-le or utf-16-be" in line
    p = run(command, "u16le.txt", "--encoding", "utf-16-le", *out, "-q", cwd=tmp_path)
    assert p.returncode == 0, err(p)


@pytest.mark.parametrize("codec", ["rot13", "hex", "base64", "zlib"])
@pytest.mark.parametrize("command", ["train", "count"])
def test_a_codec_that_is_not_a_text_encoding_is_refused(tmp_path, corpus, command, codec):
    """Codecs Python knows that do not decode bytes to text were tracebacks (TypeError,
    binascii.Error): refused as an option, and by the reader itself."""
    out = ["--vocab-size", "300", "--out", "o"] if command == "train" else ["--out", "t.tsv"]
    assert_user_error(run(command, "corpus.txt", "--encoding", codec, *out, cwd=tmp_path),
                      f"--encoding {codec!r} is not a character encoding")


@pytest.mark.parametrize("codec", ["rot13", "hex", "utf-16"])
def test_the_engine_reader_says_the_same(tmp_path, codec):
    from bpe_gui.engine.corpus import count_corpus
    from bpe_gui.engine.errors import CorpusError
    f = tmp_path / "c.txt"
    f.write_bytes(b"plain ascii text, no byte-order mark\n" * 4)
    with pytest.raises(CorpusError, match=f"cannot be decoded as {codec}") as e:
        count_corpus(str(f), encoding=codec)
    assert "c.txt" in str(e.value)


def test_not_utf8_hint_names_an_option_that_exists(tmp_path):
    (tmp_path / "l1.txt").write_bytes("Café, naïve señor; über déjà vu.\n".encode("latin-1") * 30)
    line = assert_user_error(run("train", "l1.txt", "--vocab-size", "300", "--out", "o",
                                 cwd=tmp_path), "not valid UTF-8", "--encoding")
    assert "another encoding" not in line
    p = run("train", "l1.txt", "--vocab-size", "300", "--out", "o", "--encoding", "latin-1",
            "-q", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert_user_error(run("count", "l1.txt", "--out", "t.tsv", "--encoding", "klingon",
                          cwd=tmp_path), "klingon")


def test_jsonl_message_has_single_braces(tmp_path):
    (tmp_path / "c.jsonl").write_text('{"txt": "hello"}\n', "utf-8")
    line = assert_user_error(run("train", "c.jsonl", "--vocab-size", "300", "--out", "o",
                                 cwd=tmp_path), '{"text": "..."}')
    assert "{{" not in line


# ----- word-count tables --------------------------------------------------------------------
def test_a_table_given_as_a_corpus(tmp_path, corpus):
    assert run("count", "corpus.txt", "--out", "c.tsv.gz", "-q", cwd=tmp_path).returncode == 0
    assert_user_error(run("train", "c.tsv.gz", "--vocab-size", "300", "--out", "o",
                          cwd=tmp_path), "word-count table", "--counts c.tsv.gz")
    assert_user_error(run("count", "c.tsv.gz", "--out", "d.tsv", cwd=tmp_path),
                      "word-count table")
    table_file(tmp_path / "plain.tsv", [(3, "ab")], header=False)   # another tool's: no line 1
    assert_user_error(run("train", "plain.tsv", "--vocab-size", "300", "--out", "o",
                          cwd=tmp_path), "word-count table")
    assert not (tmp_path / "o").exists()


BIG = 2**62


@pytest.mark.parametrize("rows,meta,needle", [
    # the pairs of "ab", "ab·", "·ab" wrapped past 2**63: "b·" won instead of "ab"
    ([(BIG, "ab"), (BIG, "ab "), (BIG - 5, " ab"), (10, "da")], None, "2**63 - 1"),
    ([(BIG, "ab"), (BIG, "cd"), (BIG, "ef")], {"total": 5}, "2**63 - 1"),
    ([(2**61, "abababab")], None, "pair counts would overflow"),
    ([(3, "ab")], {"modes": []}, "modes"),
    ([(3, "ab")], {"modes": ["word"]}, "modes"),
    ([(3, "ab")], {"total": True}, "total"),
])
def test_absurd_tables(tmp_path, rows, meta, needle):
    table_file(tmp_path / "t.tsv", rows, meta)
    line = assert_user_error(run("train", "--counts", "t.tsv", "--num-merges", "2", "--out",
                                 "o", cwd=tmp_path), needle)
    assert "--mode word" not in line
    assert not (tmp_path / "o").exists()


def test_counts_past_2_63_without_a_header_and_summed(tmp_path):
    table_file(tmp_path / "a.tsv", [(BIG, "ab"), (BIG, "cd"), (BIG, "ef")], header=False)
    assert_user_error(run("train", "--counts", "a.tsv", "--num-merges", "2", "--out", "o",
                          cwd=tmp_path), "2**63 - 1")
    table_file(tmp_path / "b.tsv", [(BIG, "ab"), (BIG - 1, "cd")])
    assert_user_error(run("train", "--counts", "b.tsv", "b.tsv", "--num-merges", "2", "--out",
                          "o", cwd=tmp_path), "2**63 - 1")


def test_same_preset_name_with_another_regex_says_what_differs(tmp_path):
    old = PRESETS["cl100k"].replace("{1,3}", "{1,4}")
    table_file(tmp_path / "t.tsv", [(3, "ab")], {"pattern": old, "preset": "cl100k",
                                                 "bpe_gui": "0.0.9"})
    line = assert_user_error(run("train", "--counts", "t.tsv", "--num-merges", "2", "--out",
                                 "o", "--preset", "cl100k", cwd=tmp_path), "0.0.9", "{1,4}")
    assert "but training asks for the GPT-4 (cl100k) preset" not in line


# ----- absurd numbers -----------------------------------------------------------------------
@pytest.mark.parametrize("args,needle", [
    (["train", "corpus.txt", "--vocab-size", "300", "--out", "o", "--min-frequency",
      str(10**30)], "too large"),
    (["train", "corpus.txt", "--vocab-size", str(10**30), "--out", "o"], "too large"),
    (["train", "corpus.txt", "--num-merges", "-5", "--out", "o"], "at least"),
    (["count", "corpus.txt", "--out", "t.tsv", "--dask", "local", "--range-size", "1e400"],
     "size"),
])
def test_absurd_numbers(tmp_path, corpus, args, needle):
    assert_user_error(run(*args, cwd=tmp_path), needle)


@pytest.mark.parametrize("alpha", ["1e308", "inf", "nan", "0", "-1", "21"])
def test_absurd_alpha(tmp_path, tok, alpha):
    held = tmp_path / "held"
    held.mkdir()
    (held / "en.txt").write_text("hello world " * 50, "utf-8")
    assert_user_error(run("cost", "held", "--tokenizer", str(tok), "--alpha", alpha,
                          cwd=tmp_path), "alpha")


# ----- the sweep: every command x every kind of hostile input ------------------------------
def make_input(tmp_path: Path, kind: str, name: str) -> str:
    p = tmp_path / name
    if kind == "empty":
        p.write_bytes(b"")
    elif kind == "binary":
        p.write_bytes(bytes(range(256)) * 64)
    elif kind == "utf16":
        p.write_bytes(CORPUS.encode("utf-16"))
    elif kind == "garbage-json":
        p.write_bytes(b'{"model": ' * 3 + b"\xff\xfe[[[")
    elif kind == "fifo":
        os.mkfifo(p)
    elif kind == "folder":
        p.mkdir()
    elif kind == "dev-zero":
        return "/dev/zero"
    elif kind == "missing":
        return name
    return name


KINDS = ["empty", "binary", "utf16", "garbage-json", "fifo", "folder", "dev-zero", "missing"]
COMMANDS = {   # where the hostile input goes
    "train": lambda h: ["train", h, "--vocab-size", "300", "--out", "o"],
    "train-counts": lambda h: ["train", "--counts", h, "--vocab-size", "300", "--out", "o"],
    "count": lambda h: ["count", h, "--out", "t.tsv"],
    "encode": lambda h: ["encode", "--tokenizer", h, "hello"],
    "encode-stream": lambda h: ["encode", "--tokenizer", h, "--ids-only", "-"],
    "inspect": lambda h: ["inspect", "--tokenizer", h],
    "cost": lambda h: ["cost", "held", "--tokenizer", h],
    "mixture": lambda h: ["mixture", "--tokenizer", h, "--category", "a=held/en.txt",
                          "--category", "b=held/en.txt"],
    "chat": lambda h: ["chat", "--tokenizer", h, "--messages", "held/en.txt"],
    "chat-messages": lambda h: ["chat", "--tokenizer", "held/tok.json", "--messages", h],
    "chat-template": lambda h: ["chat", "--tokenizer", "held/tok.json", "--messages",
                                "held/conv.json", "--template", h],
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_sweep(tmp_path, tok, command, kind):
    """(A folder given as a tokenizer is a place to look in: it holds none here.)"""
    held = tmp_path / "held"
    held.mkdir()
    (held / "en.txt").write_text("hello world", "utf-8")
    if command.startswith("chat-"):   # a good tokenizer and conversation, the hostile other
        shutil.copy(tok / "tokenizer.json", held / "tok.json")
        (held / "conv.json").write_text('{"messages": [{"role": "user", "content": "hi"}]}',
                                        "utf-8")
    name = "h.json" if command in ("encode", "encode-stream", "inspect", "cost", "mixture",
                                   "chat", "chat-messages") else \
        "h.tsv" if command == "train-counts" else "h.jinja" if command == "chat-template" \
        else "h.txt"
    h = make_input(tmp_path, kind, name)
    before = sorted(p.name for p in tmp_path.iterdir())
    p = run(*COMMANDS[command](h), cwd=tmp_path, stdin=b"hello", timeout=60)
    assert_user_error(p)
    assert sorted(p.name for p in tmp_path.iterdir()) == before   # nothing written


@pytest.mark.parametrize("kind", KINDS)
def test_sweep_mixture_samples(tmp_path, tok, kind):
    """A hostile sample of one category: one line naming it, nothing written."""
    (tmp_path / "en.txt").write_text("hello world " * 50, "utf-8")
    h = make_input(tmp_path, kind, "h.txt")
    before = sorted(p.name for p in tmp_path.iterdir())
    p = run("mixture", "--tokenizer", str(tok), "--category", "en=en.txt", "--category",
            f"x={h}", cwd=tmp_path, timeout=60)
    assert_user_error(p, h if kind not in ("folder",) else "no files")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize("kind", ["empty", "binary", "utf16", "fifo"])
def test_sweep_held_out_texts(tmp_path, tok, kind):
    held = tmp_path / "held"
    held.mkdir()
    make_input(held, kind, "en.txt")
    (held / "de.txt").write_text("hallo welt", "utf-8")
    p = run("cost", "held", "--tokenizer", str(tok), "--csv", "c.csv", cwd=tmp_path, timeout=60)
    if kind == "fifo":   # not a text file: left out, the other language measured
        assert p.returncode == 0 and "en" not in p.stdout.decode().split()
        return
    if kind == "empty":  # an empty text costs nothing: a row of zeros is no error
        assert p.returncode == 0, err(p)
        return
    assert_user_error(p, "en.txt")
    assert not (tmp_path / "c.csv").exists()


# ----- messages that named the wrong thing (a sweep, 2026-11-27) -----------------------------
@pytest.mark.parametrize("flag,least", [("--num-merges", 0), ("--vocab-size", 1)])
def test_a_negative_number_is_told_the_least_the_option_takes(tmp_path, corpus, flag, least):
    """'-1 must be at least 1' where 0 is taken (--num-merges 0)."""
    assert_user_error(run("train", "corpus.txt", flag, "-1", "--out", "o", cwd=tmp_path),
                      flag, f"-1 must be at least {least}")


@pytest.mark.parametrize("given,missing", [("other.json", "merges.txt"),
                                           ("vocab.json", "merges.txt"),
                                           ("merges.txt", "vocab.json")])
def test_a_gpt2_half_without_the_other_names_both(tmp_path, given, missing):
    """A JSON of token: id pairs read as vocab.json said only "merges.txt: file not found",
    a file the user never gave."""
    d = tmp_path / "t"
    d.mkdir()
    (d / given).write_text('{"foo": 1}' if given.endswith(".json") else "#version: 0.2\na b\n",
                           "utf-8")
    line = assert_user_error(run("encode", "--tokenizer", f"t/{given}", "hi", cwd=tmp_path),
                             f"t/{missing}: file not found", f"{given} (given) is read as")
    assert "GPT-2" in line


def test_a_symlink_to_nothing_is_said_to_be_one(tmp_path):
    (tmp_path / "loop.txt").symlink_to("loop.txt")
    (tmp_path / "gone.txt").symlink_to("nowhere.txt")
    for name in ("loop.txt", "gone.txt"):
        assert_user_error(run("train", name, "--vocab-size", "300", "--out", "o",
                              cwd=tmp_path), name, "symbolic link that leads to no file")


@pytest.mark.parametrize("command", ["train", "count"])
def test_a_url_without_dask_is_said_to_be_a_url(tmp_path, command):
    """count https://... without --dask said "https:/example.com/x.txt: file not found"
    (the // folded) and nothing about URLs."""
    out = ["--vocab-size", "300", "--out", "o"] if command == "train" else ["--out", "t.tsv"]
    line = assert_user_error(run(command, "https://example.com/x.txt", *out, cwd=tmp_path),
                             "https://example.com/x.txt is a URL")
    assert "--dask" in line
