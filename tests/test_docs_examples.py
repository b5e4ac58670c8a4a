"""The examples of README.md and docs/API.md run, and say what they give (issue 78: docs
that claimed what the code did not do).

Every ``python`` block of a page runs, in order (later ones read on from earlier ones), in a folder holding the files its examples name
(OpenAI's cl100k ranks from the npm package tiktoken, a corpus, a CS336 learner's pickle
whose trainer breaks ties by the first pair seen, ...). A line ``EXPR  # VALUE`` whose
comment is a Python literal must give that value; ``# raises NAME ...`` must raise it.
Every ``bpe-gui`` line of README's command-line blocks runs the same way, except those that
need what a test machine has not (a model by name, a Dask cluster, a conversation file):
status 0, or 0 or 1 for ``check`` (1: the merges part, as documented).
"""
from __future__ import annotations

import ast
import glob
import json
import lzma
import os
import re
import shlex
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

from tiktoken_files import npm_ranks

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
DOCS = [ROOT / "README.md", ROOT / "docs" / "API.md"]
# command lines a test machine cannot run: a model by name, a cluster, a conversation
NOT_HERE = ("--model", "bpe-gui models", "tcp://", "s3://", "bpe-gui chat", "pip install",
            "pytest")


def blocks(path: Path, lang: str) -> list[tuple[int, str]]:
    """(line number, text) of each ```lang block."""
    out, lines = [], path.read_text("utf-8").splitlines()
    k = 0
    while k < len(lines):
        if lines[k].strip() == f"```{lang}":
            start = k + 1
            k += 1
            while lines[k].strip() != "```":
                k += 1
            out.append((start + 1, "\n".join(lines[start:k])))
        k += 1
    return out


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Path:
    """A folder with every file the examples name."""
    d = tmp_path_factory.mktemp("docs")
    for name in ("cl100k_base", "o200k_base"):
        if npm_ranks(name, d) is None:
            pytest.skip("the npm package tiktoken is not here (BPE_GUI_TIKTOKEN_TGZ)")
    en = lzma.open(FIXTURES / "corpora" / "en-tinyshakespeare.txt.xz", "rt",
                   encoding="utf-8").read()
    zh = lzma.open(FIXTURES / "corpora" / "zh-four-classic-novels.txt.xz", "rt",
                   encoding="utf-8").read()
    (d / "corpus.txt").write_text(en[:200_000], "utf-8")
    (d / "big.txt").write_text(en[200_000:], "utf-8")
    with lzma.open(d / "more.txt.xz", "wt", encoding="utf-8") as f:
        f.write(en[:50_000])
    (d / "docs.jsonl").write_text("".join(json.dumps({"text": en[k:k + 2000]}) + "\n"
                                          for k in range(0, 20_000, 2000)), "utf-8")
    (d / "en.txt").write_text((FIXTURES / "parallel" / "en.train.txt").read_text("utf-8"), "utf-8")
    (d / "en.dev").write_text((FIXTURES / "parallel" / "en.dev.txt").read_text("utf-8"), "utf-8")
    (d / "hi.txt").write_text((FIXTURES / "scripts" / "hi.txt").read_text("utf-8") * 20, "utf-8")
    (d / "hi.dev").write_text((FIXTURES / "scripts" / "hi.txt").read_text("utf-8"), "utf-8")
    (d / "zh.txt").write_text(zh[:100_000], "utf-8")
    (d / "held-out").mkdir()
    (d / "held-out" / "en.txt").write_text(en[-20_000:], "utf-8")
    (d / "held-out" / "zh.txt").write_text(zh[-20_000:], "utf-8")
    (d / "sample.txt").write_text("the lowest newest widest", "utf-8")
    (d / "corpus").mkdir()
    for k in range(2):
        (d / "corpus" / f"part{k}.txt").write_text(en[k * 30_000:(k + 1) * 30_000], "utf-8")
    import bpe_learners as L
    (d / "tiny.txt").write_text(L.tutorial_text(), "utf-8")
    # the learner whose ties go to the first pair seen (README's screenshot)
    wrong = L.train(L.tutorial_text(), 407, **L.WRONG_TRAINERS["tie-first-seen"])
    L.write_pickle(d, *wrong).rename(d / "my_bpe.pkl")
    from bpe_gui.engine import train_bpe, Tokenizer
    from bpe_gui.engine.formats import export_tokenizer
    vocab, merges = train_bpe(d / "corpus.txt", vocab_size=600, special_tokens=["<|endoftext|>"])
    export_tokenizer(Tokenizer(vocab, merges, ["<|endoftext|>"]), d / "gpt2", "gpt2")
    tok = Tokenizer(vocab, merges, ["<|endoftext|>"])   # out/: what README's first train writes
    for fmt in ("gpt2", "hf", "native"):
        export_tokenizer(tok, d / "out", fmt)
    return d


def expectation(line: str) -> tuple[str, object] | None:
    """("value", literal) or ("raises", name) that a line's comment states, or None."""
    code, sep, comment = line.partition("#")
    if not sep or not code.strip():
        return None
    comment = comment.strip()
    m = re.match(r"raises (\w+)", comment)
    if m:
        return "raises", m.group(1)
    try:
        return "value", ast.literal_eval(comment)
    except (ValueError, SyntaxError):
        return None


@pytest.mark.slow
@pytest.mark.regression
@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_python_example_runs_and_gives_what_it_says(doc, sandbox, monkeypatch):
    """README said typed special text raises for a trained tokenizer, and API.md that
    encode(disallowed_special=()) is encode_ordinary whatever the kind."""
    monkeypatch.chdir(sandbox)
    namespace: dict = {}   # (one page's blocks read on from each other)
    for start, text in blocks(doc, "python"):
        statements = ast.parse(text).body
        lines = text.splitlines()
        for node in statements:
            source = "\n".join(lines[node.lineno - 1:node.end_lineno])
            where = f"{doc.name}:{start + node.lineno - 1}: {source.strip()[:70]}"
            want = expectation(lines[node.end_lineno - 1]) if isinstance(node, ast.Expr) else None
            try:
                if want is not None and want[0] == "value":
                    got = eval(compile(ast.Expression(node.value), doc.name, "eval"), namespace)
                    assert got == want[1], (where, got)
                    continue
                exec(compile(ast.Module([node], []), doc.name, "exec"), namespace)
            except Exception as e:   # noqa: BLE001 - the example's claim is checked here
                if want is not None and want[0] == "raises" and type(e).__name__ == want[1]:
                    continue
                pytest.fail(f"{where}\n{traceback.format_exc(limit=3)}")
            if want is not None and want[0] == "raises":
                pytest.fail(f"{where}: raised nothing, and the docs say it raises {want[1]}")


def commands(doc: Path) -> list[tuple[int, str]]:
    out = []
    for start, text in blocks(doc, "bash"):
        joined = text.replace("\\\n", " ")
        for k, line in enumerate(joined.splitlines()):
            line = line.split("  #")[0].strip()
            if line.startswith("bpe-gui ") and not any(n in line for n in NOT_HERE):
                out.append((start + k, line))
    return out


@pytest.mark.slow
def test_every_readme_command_runs(sandbox):
    """In the README's order: a later line reads what an earlier one wrote (out/)."""
    for where, line in commands(ROOT / "README.md"):
        if "--ids ids.txt" in line:   # (the ids of sample.txt, as an encoder gave them)
            from bpe_gui.engine import load_tokenizer
            tok = load_tokenizer(sandbox / "out" / "vocab.json")
            (sandbox / "ids.txt").write_text(
                " ".join(map(str, tok.encode((sandbox / "sample.txt").read_text("utf-8")))))
        if "--dask" in line:
            pytest.importorskip("dask.distributed", reason="the dask extra is not installed")
        words = [w for a in shlex.split(line)[1:]
                 for w in (sorted(glob.glob(str(sandbox / a))) if "*" in a else [a])]
        argv = [sys.executable, "-m", "bpe_gui.cli", *words]
        p = subprocess.run(argv, cwd=sandbox, capture_output=True, timeout=600,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
        ok = (0, 1) if line.startswith("bpe-gui check") else (0,)
        assert p.returncode in ok, (f"README.md:{where}", line, p.stderr.decode()[-2000:])
