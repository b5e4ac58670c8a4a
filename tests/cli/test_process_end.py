"""The process ends once its command returned (cli/process_end.py): atexit functions run
once, the standard streams are flushed, the status is the command's; the interpreter's
teardown is skipped only when nothing needs it (no other thread, no Qt)."""
from __future__ import annotations

import lzma
import os
import subprocess
import sys

import pytest
import tokenizers

from test_cli import REPO

# a module-level object whose finalizer says when the interpreter was torn down
CHILD = """
import atexit, sys
class Torn:
    def __del__(self):
        print('torn down', flush=True)
keep = Torn()
atexit.register(lambda: print('atexit', flush=True))
from bpe_gui.cli.process_end import end_process
"""


def _run(body: str, *, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", CHILD + body], capture_output=True,
                          text=True, env=env, input=stdin, timeout=120)


@pytest.mark.parametrize("rc", [0, 2, 130, 256 + 3])
def test_a_headless_command_ends_with_its_status_output_flushed_atexit_run_once(rc):
    r = _run(f"print('x' * 200_000, end='')\nend_process({rc})\n")
    assert r.returncode == rc & 0xFF
    assert r.stdout == "x" * 200_000 + "atexit\n"   # nothing after: no teardown
    assert r.stderr == ""


def test_stderr_is_flushed_too():
    r = _run("sys.stderr = open(sys.stderr.fileno(), 'w', buffering=1 << 20, closefd=False)\n"
             "print('said on stderr', end='', file=sys.stderr)\nend_process(1)\n")
    assert (r.returncode, r.stderr) == (1, "said on stderr")


@pytest.mark.regression
def test_a_thread_still_running_is_waited_for():
    """The thread finishes only after end_process looked for other threads: the child says
    "ending" from inside that look (its threading.active_count), and the test answers on
    its stdin, which the thread waits for; an immediate end would lose the thread's line.
    (The child said "ending" before calling end_process, and the thread could finish
    before end_process looked: the test failed once in 8,749.)"""
    body = ("import threading\n"
            "def late():\n"
            "    line = sys.stdin.readline()\n"
            "    print('thread got ' + line.strip(), flush=True)\n"
            "threading.Thread(target=late).start()\n"
            "count = threading.active_count\n"
            "def looked():\n"
            "    threading.active_count = count\n"   # (nothing of __main__ kept past it)
            "    n = count()\n"
            "    print('ending', flush=True)\n"
            "    return n\n"
            "threading.active_count = looked\n"
            "end_process(0)\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    p = subprocess.Popen([sys.executable, "-c", CHILD + body], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert p.stdout.readline() == "ending\n"
        p.stdin.write("go\n")
        p.stdin.flush()
        out = p.stdout.read()
        assert p.wait(timeout=120) == 0
    finally:
        p.kill()
    assert out.startswith("thread got go\natexit\n") and "torn down" in out


def test_after_qt_the_interpreter_is_torn_down():
    r = _run("import PySide6.QtCore\nend_process(0)\n")
    assert r.returncode == 0
    assert r.stdout.startswith("atexit\n") and "torn down" in r.stdout


def test_a_status_that_is_not_a_number_goes_through_sys_exit():
    r = _run("end_process('bpe-gui: said')\n")
    assert r.returncode == 1 and "bpe-gui: said" in r.stderr and "torn down" in r.stdout


def test_a_stream_that_cannot_be_flushed_ends_as_sys_exit_ends_it():
    body = ("class Closed:\n"
            "    def write(self, s): return len(s)\n"
            "    def flush(self): raise BrokenPipeError(32, 'Broken pipe')\n"
            "sys.stdout = Closed()\n"
            "end_process(0)\n")
    r = _run(body)
    # Python's own answer to a stdout it cannot flush at exit: said, and status 120
    assert r.returncode == 120 and "BrokenPipeError" in r.stderr


def test_the_installed_script_and_python_m_end_through_it(tmp_path, corpora_dir):
    project = (REPO / "pyproject.toml").read_text()
    assert 'bpe-gui = "bpe_gui.cli:command"' in project
    for main in ("__main__.py", "cli/__main__.py"):
        assert "command()" in (REPO / "bpe_gui" / main).read_text(), main
    # real commands through python -m: the files whole, the output whole, the status kept
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def bpe_gui(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "bpe_gui", *args], capture_output=True,
                              text=True, env=env, timeout=300)

    corpus = tmp_path / "shakespeare.txt"
    corpus.write_text(lzma.open(corpora_dir / "en-tinyshakespeare.txt.xz", "rt",
                                encoding="utf-8").read()[:300_000], encoding="utf-8")
    r = bpe_gui("train", str(corpus), "--vocab-size", "600", "--format", "hf", "--out",
                str(tmp_path / "tok"), "-q")
    assert r.returncode == 0, r.stderr
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tok" / "tokenizer.json"))
    text = corpus.read_text(encoding="utf-8")[:20_000]
    r = bpe_gui("encode", "--tokenizer", str(tmp_path / "tok" / "tokenizer.json"), "--ids-only", text)
    assert r.returncode == 0, r.stderr
    assert [int(i) for i in r.stdout.split()] == hf.encode(text).ids
    r = bpe_gui("encode", "--tokenizer", str(tmp_path / "tok" / "no-such.json"), "x")
    assert r.returncode == 2 and "no-such.json" in r.stderr


def test_output_cut_short_by_the_reader_ends_quietly(tmp_path):
    # `bpe-gui encode ... | head -c 20`: the reader goes away; the command ends with
    # status 0 and says nothing (entry.py's BrokenPipeError, then this process end)
    corpus = tmp_path / "c.txt"
    corpus.write_text("hello world, the lower newest widest\n" * 200, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.run([sys.executable, "-m", "bpe_gui", "train", str(corpus), "--vocab-size",
                        "300", "--format", "hf", "--out", str(tmp_path / "tok"), "-q"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    p = subprocess.Popen([sys.executable, "-m", "bpe_gui", "encode", "--tokenizer",
                          str(tmp_path / "tok" / "tokenizer.json")], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        p.stdin.write((("hello world " * 200 + "\n") * 200).encode())
        p.stdin.close()
        assert len(p.stdout.read(20)) == 20
        p.stdout.close()
        assert p.wait(timeout=120) == 0
        assert p.stderr.read() == b""
    finally:
        p.kill()
