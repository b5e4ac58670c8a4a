"""Memory stays bounded for a giant word and for a stream (issue 23), checked in a
subprocess under an address-space limit (RLIMIT_AS) that the old code exceeded:
training one 20 MB run of a letter took 8.5 GB, `encode --ids-only -` of 17 MB 3.6 GB."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_gui.engine.formats import load_tokenizer
from bpe_gui.engine.corpus.word_limit import MAX_WORD_BYTES, pieces, split_long_words
from bpe_gui.engine.corpus.counting import PretokenTable

from test_cli import CORPUS, REPO, assert_user_error, err

resource = pytest.importorskip("resource")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="RLIMIT_AS as Linux counts it")]
LIMIT_MB = 1000


def limited(*args: str, cwd: Path, mb: int = LIMIT_MB, stdin=None) -> subprocess.CompletedProcess:
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "bpe_gui", *args], cwd=cwd, env=env,
                          preexec_fn=cap, stdin=stdin, capture_output=True, timeout=300)


def test_a_giant_word_trains_and_counts_in_bounded_memory(tmp_path):
    (tmp_path / "w.txt").write_bytes(b"a" * (20 << 20))
    p = limited("train", "w.txt", "--vocab-size", "300", "--format", "native", "--out", "o",
                "-q", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    p = limited("count", "w.txt", "--out", "w.tsv", "-q", cwd=tmp_path)
    assert p.returncode == 0, err(p)


def test_encode_ids_of_a_stream_in_bounded_memory(tmp_path):
    tok_dir = tmp_path / "t"
    (tmp_path / "c.txt").write_text(CORPUS, "utf-8")
    assert limited("train", "c.txt", "--vocab-size", "260", "--out", "t", "-q",
                   cwd=tmp_path).returncode == 0
    unit = (CORPUS * 40).rstrip("\n") + "\n"      # ends in a newline, starts with a letter
    times = max(1, (16 << 20) // len(unit.encode()))
    stream = tmp_path / "in.txt"
    with open(stream, "w", encoding="utf-8") as f:
        for _ in range(times):
            f.write(unit)
    with open(stream, "rb") as f:
        p = limited("encode", "--tokenizer", "t", "--ids-only", "-", cwd=tmp_path, stdin=f)
    assert p.returncode == 0, err(p)
    ids = load_tokenizer(tok_dir).encode(unit, allowed_special="all")
    assert p.stdout.decode().split() == [str(i) for i in ids] * times


def test_out_of_memory_is_one_line(tmp_path):
    """20 MB of letters that never repeat cannot be trained in 300 MB (the run needs
    about 380 MB): one line, exit 2, nothing written."""
    import random
    rnd = random.Random(5)
    (tmp_path / "r.txt").write_text("".join(rnd.choices("abcdefghijklmnopqrstuvwxyz",
                                                        k=20 << 20)), "utf-8")
    p = limited("train", "r.txt", "--vocab-size", "300", "--out", "o", cwd=tmp_path, mb=300)
    assert_user_error(p, "out of memory")
    assert not (tmp_path / "o").exists()


# ----- the rule itself --------------------------------------------------------------------
def test_pieces_cut_at_character_starts():
    assert pieces(b"abcde", 2) == [b"ab", b"cd", b"e"]
    word = "a你好吗".encode()          # 1 + 3 + 3 + 3 bytes
    assert pieces(word, 5) == [b"a" + "你".encode(), "好".encode(), "吗".encode()]
    assert b"".join(pieces(word, 4)) == word and all(p.decode() for p in pieces(word, 4))


def test_long_words_become_pieces_in_first_seen_order():
    long = "ab" * (MAX_WORD_BYTES // 2) + "abc"          # MAX + 3 bytes
    head = long[:MAX_WORD_BYTES]
    table = PretokenTable.from_words(["x", long, "abc", "y"], [1, 2, 3, 4], 9, 9)
    out = split_long_words(table)
    assert out.words == ["x", head, "abc", "y"]           # the tail piece is the word 'abc'
    assert out.freqs == [1, 2, 5, 4] and (out.n_chars, out.n_bytes) == (9, 9)
    short = PretokenTable.from_words(["x"], [1])
    assert split_long_words(short) is short


# ----- count out of memory: its own message, never a traceback ---------------------------
COUNT_OOM = "out of memory while counting"


def test_count_out_of_memory_under_an_address_space_limit(tmp_path):
    """`count` of a 7 MB file (800,000 words, most of them unique) with 48 MB of address
    space more than the interpreter has at start: the count's message, exit 2, nothing
    written. Counting it needs 85-100 MB more than that (the engine about 22 MB, the rest
    its table), so the margin is wide; the limit is set in the child after start-up, so it
    does not depend on how big the interpreter is (`ulimit -v 120000` gave a bare
    traceback). Under 8 MB the file is counted on one thread (no thread stacks to map)."""
    rnd = __import__("random").Random(4)
    (tmp_path / "c.txt").write_text(" ".join(f"w{rnd.randrange(10**7)}"
                                             for _ in range(800_000)), "utf-8")
    child = ("import re, resource, runpy, sys\n"
             "vm = int(re.search(r'VmSize:\\s+(\\d+)', open('/proc/self/status').read())[1])\n"
             "lim = (vm << 10) + (48 << 20)\n"
             "resource.setrlimit(resource.RLIMIT_AS, (lim, lim))\n"
             "sys.argv = ['bpe-gui', 'count', 'c.txt', '--out', 'c.tsv', '-q']\n"
             "runpy.run_module('bpe_gui', run_name='__main__')\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.run([sys.executable, "-c", child], cwd=tmp_path, env=env,
                       capture_output=True, timeout=300)
    assert_user_error(p, COUNT_OOM)
    assert not (tmp_path / "c.tsv").exists()


def test_count_out_of_memory_while_counting(tmp_path, monkeypatch, capsys):
    """A MemoryError from the counter (injected) gives the count's message, exit 2."""
    from bpe_gui.cli import count as count_cmd
    from bpe_gui.cli.entry import main

    def no_memory(*args, **kwargs):
        raise MemoryError
    monkeypatch.setattr(count_cmd, "count_corpus", no_memory)
    (tmp_path / "c.txt").write_text(CORPUS, "utf-8")
    rc = main(["count", str(tmp_path / "c.txt"), "--out", str(tmp_path / "c.tsv"), "-q"])
    lines = capsys.readouterr().err.splitlines()
    assert rc == 2 and len(lines) == 1 and COUNT_OOM in lines[0], lines
    assert "--dask" in lines[0] and "train" not in lines[0].split("(")[0]
    assert not (tmp_path / "c.tsv").exists()


def test_out_of_memory_while_importing_the_engine(tmp_path):
    """A MemoryError while the engine is imported (it builds Unicode tables then; injected
    by an import hook) still gives the message, from `python -m bpe_gui` and `-m
    bpe_gui.cli` alike."""
    (tmp_path / "c.txt").write_text(CORPUS, "utf-8")
    for module in ("bpe_gui", "bpe_gui.cli"):
        child = ("import runpy, sys\n"
                 "class NoMemory:\n"
                 "    def find_spec(self, name, path=None, target=None):\n"
                 "        if name == 'bpe_gui.engine.text.unicode_classes':\n"
                 "            raise MemoryError\n"
                 "sys.meta_path.insert(0, NoMemory())\n"
                 "sys.argv = ['bpe-gui', 'count', 'c.txt', '--out', 'c.tsv']\n"
                 f"runpy.run_module({module!r}, run_name='__main__')\n")
        env = dict(os.environ, PYTHONPATH=str(REPO))
        p = subprocess.run([sys.executable, "-c", child], cwd=tmp_path, env=env,
                           capture_output=True, timeout=120)
        assert_user_error(p, COUNT_OOM)
        assert not (tmp_path / "c.tsv").exists()
