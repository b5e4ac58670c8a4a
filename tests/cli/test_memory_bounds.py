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
from bpe_gui.engine.word_limit import MAX_WORD_BYTES, pieces, split_long_words
from bpe_gui.engine.corpus import PretokenTable

from test_cli import CORPUS, REPO, assert_user_error, err

resource = pytest.importorskip("resource")
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="RLIMIT_AS as Linux counts it")
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
    ids = load_tokenizer(tok_dir).encode(unit)
    assert p.stdout.decode().split() == [str(i) for i in ids] * times


def test_out_of_memory_is_one_line(tmp_path):
    """20 MB of letters that never repeat cannot be trained in 450 MB: one line, exit 2,
    nothing written."""
    import random
    rnd = random.Random(5)
    (tmp_path / "r.txt").write_text("".join(rnd.choices("abcdefghijklmnopqrstuvwxyz",
                                                        k=20 << 20)), "utf-8")
    p = limited("train", "r.txt", "--vocab-size", "300", "--out", "o", cwd=tmp_path, mb=450)
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
