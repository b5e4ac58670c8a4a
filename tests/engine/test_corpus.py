"""Pre-token tables: parallel chunked counting equals single-threaded, order included."""
from __future__ import annotations

import lzma

import pytest

from bpe_gui.engine import Pretokenizer, TrainSettings, Trainer, corpus
from bpe_gui.engine.corpus import build_table, split_chunks

from engine_oracle import HAS_C_CORE, word_counts


@pytest.fixture(scope="module")
def big_text(corpora_dir) -> str:
    with lzma.open(corpora_dir / "en-tinyshakespeare.txt.xz", "rt", encoding="utf-8") as f:
        en = f.read(400_000)
    with lzma.open(corpora_dir / "zh-en-d2l-zh-markdown.txt.xz", "rt", encoding="utf-8") as f:
        zh = f.read(200_000)
    return en + "<|endoftext|>" + zh


@pytest.mark.parametrize("pattern", ["gpt2", "cl100k", "whitespace", "cjk"])
def test_parallel_table_equals_single_threaded(big_text, monkeypatch, pattern):
    pre = Pretokenizer(pattern, ["<|endoftext|>"])
    single = build_table([big_text, "second document"], pre, workers=1)
    monkeypatch.setattr(corpus, "CHUNK_CHARS", 50_000)
    monkeypatch.setattr(corpus, "PARALLEL_MIN_CHARS", 10_000)
    assert len(split_chunks(big_text)) > 5
    seen = []
    parallel = build_table([big_text, "second document"], pre, workers=2,
                           progress=lambda d, t: seen.append((d, t)))
    assert parallel.words == single.words  # same words in the same first-seen order
    assert parallel.freqs == single.freqs
    assert (parallel.n_chars, parallel.n_bytes) == (single.n_chars, single.n_bytes)
    assert seen[-1][0] == seen[-1][1] == single.n_chars
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_parallel_uses_processes(big_text, monkeypatch):
    monkeypatch.setattr(corpus, "CHUNK_CHARS", 50_000)
    monkeypatch.setattr(corpus, "PARALLEL_MIN_CHARS", 10_000)
    ex = corpus._executor(len(split_chunks(big_text)), len(big_text), 2)
    try:
        assert isinstance(ex, corpus.ProcessPoolExecutor)
    finally:
        ex.shutdown()


def test_chunks_cut_no_word(big_text):
    """Each chunk cut is a word boundary for every preset."""
    chunks = split_chunks(big_text, 20_000)
    assert "".join(chunks) == big_text and len(chunks) > 10
    for pattern in ("gpt2", "cl100k", "whitespace", "cjk"):
        pre = Pretokenizer(pattern, ["<|endoftext|>"])
        whole = pre.words(big_text)
        assert [w for c in chunks for w in pre.words(c)] == whole, pattern


def test_table_matches_independent_count(big_text):
    table = build_table([big_text], Pretokenizer("gpt2", ["<|endoftext|>"]), workers=1)
    expected = word_counts(big_text, ["<|endoftext|>"])
    assert dict(zip(table.words, table.freqs)) == expected
    assert table.words == list(expected)
    assert table.total == sum(expected.values())


def test_documents_are_pretokenized_apart():
    pre = Pretokenizer("gpt2")
    table = build_table(["hello", " world"], pre)
    joined = build_table(["hello world"], pre)
    assert table.words == joined.words
    # no word spans the boundary: "ab" + "cd" as two documents never gives "abcd"
    assert build_table(["ab", "cd"], pre).words == ["ab", "cd"]


def test_trainer_same_with_parallel_pretokenization(big_text, monkeypatch):
    s = TrainSettings(num_merges=200 if HAS_C_CORE else 15, special_tokens=("<|endoftext|>",))
    a = Trainer.from_text(big_text, s, workers=1)
    a.run(detail=False)
    monkeypatch.setattr(corpus, "CHUNK_CHARS", 60_000)
    monkeypatch.setattr(corpus, "PARALLEL_MIN_CHARS", 10_000)
    b = Trainer.from_text(big_text, s, workers=2)
    b.run(detail=False)
    assert a.merges == b.merges
    assert [st.count for st in a.steps] == [st.count for st in b.steps]


def test_cancel_stops_table_building(big_text, monkeypatch):
    monkeypatch.setattr(corpus, "CHUNK_CHARS", 50_000)
    with pytest.raises(corpus.Cancelled):
        build_table([big_text], Pretokenizer("gpt2"), cancel=lambda: True, workers=1)
