"""`bpe-gui count` and `bpe-gui train --counts` without Dask: tables written and trained
from, the same tokenizer as training on the corpus, refusals with reasons, and --dask
without Dask installed saying how to install it."""
from __future__ import annotations

import sys

import pytest

from bpe_gui.cli import main
from bpe_gui.engine.corpus.table_file import read_table

from test_cli import CORPUS, assert_user_error, run


@pytest.fixture
def corpus(tmp_path):
    p = tmp_path / "c.txt"
    p.write_text(CORPUS + "<|endoftext|>" + CORPUS[:200], encoding="utf-8")
    return p


@pytest.mark.slow
def test_count_then_train_gives_the_files_training_on_the_corpus_gives(tmp_path, corpus):
    table = tmp_path / "c.counts.tsv.gz"
    p = run("count", str(corpus), "--out", str(table), "--preset", "o200k",
            "--special-token", "<|endoftext|>", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "counted:" in p.stdout.decode() and table.exists()
    meta = read_table(table).meta
    assert meta.preset == "o200k" and meta.special_tokens == ("<|endoftext|>",)
    assert meta.sources[0] == {"path": str(corpus), "bytes": corpus.stat().st_size}
    for tie in ("greatest", "first-seen", "lowest-ids"):
        a = run("train", "--counts", str(table), "--vocab-size", "400", "--tie-break", tie,
                "--out", "a", "--format", "hf,native", cwd=tmp_path)
        b = run("train", str(corpus), "--vocab-size", "400", "--tie-break", tie, "--preset",
                "o200k", "--special-token", "<|endoftext|>", "--out", "b", "--format",
                "hf,native", cwd=tmp_path)
        assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
        for name in ("tokenizer.json", "tokenizer.bpe-gui.json"):
            assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_train_counts_refuses_another_pattern_or_specials(tmp_path, corpus):
    table = tmp_path / "c.counts.tsv"
    assert run("count", str(corpus), "--out", str(table), cwd=tmp_path).returncode == 0
    assert_user_error(run("train", "--counts", str(table), "--vocab-size", "300", "--out", "o",
                          "--preset", "cl100k", cwd=tmp_path),
                      "counted with the GPT-2 preset", "GPT-4 (cl100k)")
    assert_user_error(run("train", "--counts", str(table), "--vocab-size", "300", "--out", "o",
                          "--special-token", "<s>", cwd=tmp_path),
                      "special tokens []", "['<s>']")
    assert_user_error(run("train", str(corpus), "--counts", str(table), "--vocab-size", "300",
                          "--out", "o", cwd=tmp_path), "not both")
    assert_user_error(run("train", "--counts", str(table), str(corpus), "--vocab-size", "300",
                          "--out", "o", cwd=tmp_path), "c.txt, line 1: not a word-count table")
    assert_user_error(run("count", str(corpus), "--out", "t.tsv", "--range-size", "1M",
                          cwd=tmp_path), "--range-size", "--dask")
    bad = tmp_path / "bad.counts.tsv"
    lines = table.read_bytes().split(b"\n")
    lines[3] = b"x" + lines[3]
    bad.write_bytes(b"\n".join(lines))
    assert_user_error(run("train", "--counts", str(bad), "--vocab-size", "300", "--out", "o",
                          cwd=tmp_path), "bad.counts.tsv, line 4: a row must be COUNT<tab>WORD")


def test_dask_without_dask_installed_says_how_to_install(tmp_path, corpus, monkeypatch,
                                                          capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)   # `import distributed` fails
    assert main(["count", str(corpus), "--out", str(tmp_path / "t.tsv"), "--dask",
                 "local:2"]) == 2
    err = capsys.readouterr().err
    assert 'pip install "bpe-gui[dask]"' in err and err.count("\n") == 1
    assert not (tmp_path / "t.tsv").exists()


@pytest.mark.regression
def test_a_count_of_one_is_said_in_the_singular(tmp_path, capsys):
    """A one-word corpus was "counted: 1 words, 1 unique, from 1 bytes of text"."""
    one = tmp_path / "one.txt"
    one.write_text("a", encoding="utf-8")
    assert main(["count", str(one), "--out", str(tmp_path / "t.tsv"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "counted:     1 word, 1 unique, from 1 byte of text in " in out


def test_threads_count_the_corpus_and_are_refused_where_nothing_is_counted(tmp_path, corpus):
    """--threads N gives the same files for any N; it is refused, with the reason, where
    this process counts nothing (tables already counted, Dask's workers, parity)."""
    for n in ("1", "3"):
        p = run("train", str(corpus), "--vocab-size", "400", "--threads", n, "--out", n,
                "--format", "hf", cwd=tmp_path)
        assert p.returncode == 0, p.stderr
    assert (tmp_path / "1" / "tokenizer.json").read_bytes() == \
        (tmp_path / "3" / "tokenizer.json").read_bytes()
    table = tmp_path / "c.counts.tsv"
    assert run("count", str(corpus), "--out", str(table), "--threads", "2",
               cwd=tmp_path).returncode == 0
    assert_user_error(run("train", "--counts", str(table), "--vocab-size", "300", "--out", "o",
                          "--threads", "2", cwd=tmp_path), "--threads", "counted already")
    assert_user_error(run("count", str(corpus), "--out", "t.tsv", "--threads", "2", "--dask",
                          "local:2", cwd=tmp_path), "--threads", "--dask")
    assert_user_error(run("train", "--parity", "base", "--language", f"en={corpus}", "--ratio", "en=1",
                          "--num-merges", "10", "--out", "o", "--threads", "2", cwd=tmp_path),
                      "--threads", "--parity")
    for bad, words in (("0", "at least 1"), ("two", "not a whole number"),
                       ("5000", "at most 4,096")):
        assert_user_error(run("train", str(corpus), "--vocab-size", "300", "--out", "o",
                              "--threads", bad, cwd=tmp_path), "--threads", words)


@pytest.mark.regression
def test_standard_input_and_output_are_dash(tmp_path, corpus):
    """count - read a file named '-' ("-: file not found") and --out - wrote one."""
    file_table = tmp_path / "f.counts.tsv"
    p = run("count", str(corpus), "--out", str(file_table), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    q = run("count", "-", "--out", "-", cwd=tmp_path, stdin=corpus.read_bytes())
    assert q.returncode == 0, q.stderr
    assert not (tmp_path / "-").exists()
    assert "counted:" in q.stderr.decode() and "counted:" not in q.stdout.decode()
    (tmp_path / "piped.counts.tsv").write_bytes(q.stdout)
    got, want = read_table(tmp_path / "piped.counts.tsv"), read_table(file_table)
    assert dict(zip(got.words, got.counts)) == dict(zip(want.words, want.counts))
    assert got.meta.sources[0]["path"] == "-"
    twice = run("count", "-", "-", "--out", "x.tsv", cwd=tmp_path, stdin=b"a")
    assert twice.returncode == 2 and "can be given once" in twice.stderr.decode()


@pytest.mark.regression
def test_a_compressed_table_is_written_in_slices(tmp_path, monkeypatch):
    """Ctrl+C during count --out T.tsv.xz took 7-9 s to end the process: each chunk of
    262,144 rows went to xz in one call, and a signal waits for the call to return. The
    compressor is now handed slices of COMPRESS_SLICE bytes."""
    import lzma
    from bpe_gui.engine.corpus import table_file, table_from_text
    from bpe_gui.engine.text import Pretokenizer
    sizes: list[int] = []
    write = lzma.LZMAFile.write
    monkeypatch.setattr(lzma.LZMAFile, "write", lambda self, b: sizes.append(len(b)) or
                        write(self, b))
    monkeypatch.setattr(table_file, "COMPRESS_SLICE", 1000)
    table = table_from_text(" ".join(f"w{i}" for i in range(20_000)), Pretokenizer())
    table_file.write_table(table, tmp_path / "t.tsv.xz")
    assert max(sizes) <= 1000 and sum(sizes) > 100_000
    back = read_table(tmp_path / "t.tsv.xz")
    assert dict(zip(back.words, back.counts)) == dict(zip(table.words, table.counts))
