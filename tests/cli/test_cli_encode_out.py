"""``bpe-gui encode --file ... --out ids.bin``: the ids tiktoken gives each document on
OpenAI's cl100k ranks, joined by the end-of-text id, in a file numpy maps with the dtype
its sidecar names; bad input refused with the flag that fixes it; Ctrl-C leaves no file."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from test_cli import REPO, assert_user_error, err, run
from tiktoken_files import npm_ranks, ranks_file, trained_ranks

np = pytest.importorskip("numpy")


@pytest.fixture(scope="module")
def small_tok(tmp_path_factory):
    """A .tiktoken file of ranks trained here: no special tokens, so no end-of-text id."""
    return ranks_file(tmp_path_factory.mktemp("small"), trained_ranks())


def test_encode_out_as_tiktoken_on_cl100k(tmp_path):
    tiktoken = pytest.importorskip("tiktoken")
    tiktoken_load = pytest.importorskip("tiktoken.load")
    got = npm_ranks("cl100k_base", tmp_path)
    if got is None:
        pytest.skip("the npm package tiktoken is not here (BPE_GUI_TIKTOKEN_TGZ)")
    path, meta = got
    enc = tiktoken.Encoding("cl100k", pat_str=meta["pat_str"],
                            mergeable_ranks=tiktoken_load.load_tiktoken_bpe(str(path)),
                            special_tokens=meta["special_tokens"])
    text = "First part.\n\nSecond <|endoftext|> part 🙂\n\n\n\nthird 你好"
    (tmp_path / "a.txt").write_text(text, "utf-8")
    (tmp_path / "b.jsonl").write_text(json.dumps({"content": "from json"}) + "\n", "utf-8")
    p = run("encode", "--tokenizer", str(path), "--file", "a.txt", "--file", "b.jsonl",
            "--field", "content", "--separator", r"\n\n", "--threads", "2", "--out",
            "ids.bin", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    docs = [d for d in text.split("\n\n") if d] + ["from json"]
    want: list[int] = []
    for ids in enc.encode_ordinary_batch(docs):
        want += ([enc.eot_token] if want else []) + ids
    side = json.loads((tmp_path / "ids.bin.json").read_text("utf-8"))
    assert side["dtype"] == "uint32" and side["count"] == len(want)
    assert side["sources"] == ["a.txt", "b.jsonl"] and side["tokenizer"] == str(path)
    assert np.memmap(tmp_path / "ids.bin", dtype=side["dtype"], mode="r").tolist() == want
    assert f"{len(want):,} ids of {len(docs)} documents" in err(p)


def test_refusals_name_the_fix(tmp_path, small_tok):
    (tmp_path / "a.txt").write_text("some text", "utf-8")
    (tmp_path / "bad.txt").write_bytes(b"ok \xe9 no")
    (tmp_path / "d.jsonl").write_text('{"text": "a"}\n{"body": "b"}\n', "utf-8")
    tok = ["encode", "--tokenizer", str(small_tok)]
    assert_user_error(run(*tok, "--file", "a.txt", "--out", "o.bin", cwd=tmp_path),
                      "no <|endoftext|>", "--eot-id")
    assert_user_error(run(*tok, "--file", "bad.txt", "--out", "o.bin", "--eot-id", "0",
                          cwd=tmp_path), "bad.txt", "byte offset 3")
    assert_user_error(run(*tok, "--file", "d.jsonl", "--out", "o.bin", "--eot-id", "0",
                          cwd=tmp_path), "d.jsonl", 'line 2 has no "text"')
    assert_user_error(run(*tok, "--file", "a.txt", "--out", "missing/o.bin", "--eot-id", "0",
                          cwd=tmp_path), "cannot write", "missing")
    assert_user_error(run(*tok, "some text", "--out", "o.bin", cwd=tmp_path), "--file")
    assert_user_error(run(*tok, "--file", "a.txt", "--out", "o.bin", "--json", cwd=tmp_path),
                      "--json")
    assert_user_error(run(*tok, "--file", "a.txt", "--ids-only", "--separator", "x",
                          cwd=tmp_path), "--separator goes with --out")
    (tmp_path / "e.txt").write_bytes(b"")
    assert_user_error(run(*tok, "--file", "e.txt", "--out", "o.bin", "--eot-id", "0",
                          cwd=tmp_path), "no text")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "bad.txt", "d.jsonl",
                                                          "e.txt"]


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child: POSIX")
def test_ctrl_c_while_writing_leaves_no_file(tmp_path, small_tok):
    """The input is standard input, which the test keeps open, so the command cannot end
    before the signal: SIGINT goes once ids are in the temporary file."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(REPO)
    child = subprocess.Popen([sys.executable, "-m", "bpe_gui.cli", "encode", "--tokenizer",
                              str(small_tok), "--file", "-", "--out", "ids.bin",
                              "--eot-id", "0", "--threads", "1"], cwd=tmp_path, env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, preexec_fn=_default_sigint)
    writer = child.stdin

    def feed() -> None:
        try:
            writer.write(b"some words and more " * 250_000)
        except BrokenPipeError:   # the command ended (the signal): the rest goes unread
            pass
    feeding = threading.Thread(target=feed, daemon=True)
    feeding.start()
    try:
        deadline = time.monotonic() + 120
        while not any(p.name.endswith(".part") and p.stat().st_size > 0
                      for p in tmp_path.iterdir()):
            assert child.poll() is None and time.monotonic() < deadline, err_of(child)
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)
        child.wait(timeout=120)
        stderr = child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        feeding.join(timeout=60)
        for stream in (writer, child.stderr):
            try:
                stream.close()
            except BrokenPipeError:
                pass
    text = stderr.decode("utf-8", "replace")
    assert "Traceback" not in text and text.strip().splitlines()[-1] == "bpe-gui: interrupted"
    assert child.returncode == 130
    assert list(tmp_path.iterdir()) == []


def err_of(child: subprocess.Popen) -> str:
    return "the command ended early" if child.poll() is not None else "no output in time"
