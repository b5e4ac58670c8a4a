"""Pre-token tables: streamed, block-cut and threaded counting equals counting the whole
text with `regex`, word order (first appearance) included."""
from __future__ import annotations

import gzip
import json
import lzma
import time
import tracemalloc

import pytest
import regex
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_gui.engine import Cancelled, Pretokenizer, TrainSettings, Trainer
from bpe_gui.engine.corpus import blocks, counting as corpus, files, range_count
from bpe_gui.engine.corpus.counting import build_table, count_corpus
from bpe_gui.engine.errors import CorpusError, NotUTF8Error
from bpe_gui.engine.corpus.files import looks_binary
from bpe_gui.engine.text.pretokenize import PRESETS

from engine_oracle import HAS_C_CORE, split_specials

EOT = "<|endoftext|>"
ALL_PRESETS = list(PRESETS)


def oracle(texts, specials=(), pattern="gpt2") -> dict[str, int]:
    """Word -> count in order of first appearance: `regex` on each whole document."""
    counts: dict[str, int] = {}
    for text in texts:
        for piece, is_special in split_specials(text, specials):
            if not is_special:
                for w in regex.findall(PRESETS[pattern], piece):
                    if w:
                        counts[w] = counts.get(w, 0) + 1
    return counts


def as_dict(table) -> dict[str, int]:
    return dict(zip(table.words, table.freqs))


@pytest.fixture
def tiny_blocks(monkeypatch):
    """Blocks of 7 bytes: nearly every block boundary needs a cut or a carry."""
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 7)
    monkeypatch.setattr(blocks, "REGEX_BLOCK_BYTES", 7)


@pytest.fixture(scope="module")
def mixed_text(corpora_dir) -> str:
    with lzma.open(corpora_dir / "en-tinyshakespeare.txt.xz", "rt", encoding="utf-8") as f:
        en = f.read(60_000)
    with lzma.open(corpora_dir / "zh-en-d2l-zh-markdown.txt.xz", "rt", encoding="utf-8") as f:
        zh = f.read(30_000)
    with lzma.open(corpora_dir / "code-python-stdlib.py.txt.xz", "rt", encoding="utf-8") as f:
        code = f.read(30_000)
    return en + EOT + zh + EOT + code


@pytest.mark.parametrize("pattern", ALL_PRESETS)
def test_streamed_file_equals_whole_text(tmp_path, mixed_text, tiny_blocks, pattern):
    p = tmp_path / "c.txt"
    p.write_text(mixed_text, encoding="utf-8")
    table = count_corpus(p, Pretokenizer(pattern, [EOT]), workers=1)
    expected = oracle([mixed_text], [EOT], pattern)
    assert table.words == list(expected)          # same words, same first-seen order
    assert table.freqs == list(expected.values())
    assert table.n_bytes == len(mixed_text.encode())
    assert table.n_chars == len(mixed_text)


@pytest.mark.parametrize("pattern", ALL_PRESETS)
def test_threaded_counting_equals_single(tmp_path, mixed_text, monkeypatch, pattern):
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 997)
    monkeypatch.setattr(blocks, "REGEX_BLOCK_BYTES", 997)
    p = tmp_path / "c.txt.gz"
    with gzip.open(p, "wt", encoding="utf-8") as f:
        f.write(mixed_text * 3)
    pre = Pretokenizer(pattern, [EOT])
    seen = []
    single = count_corpus(p, pre, workers=1)
    threaded = count_corpus(p, pre, workers=3, progress=lambda d, t: seen.append((d, t)))
    assert threaded.words == single.words
    assert threaded.freqs == single.freqs
    assert (threaded.n_chars, threaded.n_bytes) == (single.n_chars, single.n_bytes)
    assert seen[-1][0] == seen[-1][1] == p.stat().st_size
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.parametrize("lines", [False, True])
def test_large_input_takes_larger_blocks_and_the_same_table(tmp_path, mixed_text, monkeypatch,
                                                            lines):
    """Past LARGE_INPUT a native preset reads blocks 4x as big; threaded or not, on either
    block size, the table is the whole text's (words in the order a dict keeps)."""
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 1000)
    p = tmp_path / "c.txt"
    p.write_text(mixed_text, encoding="utf-8")
    pre = Pretokenizer("gpt2", [EOT])
    texts = [t + "\n" for t in mixed_text.split("\n")] if lines else [mixed_text]
    texts[-1] = texts[-1][:-1] if lines else texts[-1]   # (no \n after the last line)
    expected = list(oracle(texts, [EOT]).items())
    small = blocks.BlockReader([p], pre, lines=lines)
    monkeypatch.setattr(blocks, "LARGE_INPUT", 50_000)
    large = blocks.BlockReader([p], pre, lines=lines)
    assert (small.bounds.block_bytes, large.bounds.block_bytes) == (1000, 4000)
    assert len(list(large)) < len(list(small))
    for workers in (1, 2):
        table = count_corpus(p, pre, workers=workers, lines=lines)
        assert list(zip(table.words, table.freqs)) == expected


_alphabet = st.sampled_from(list("ab Z9٣'sSt\n\r\t  .,!中文字😀é") + ["\u0301", "\u3000", "<|x|>",
                                                                    "\x1c", "\u2028"])


@given(parts=st.lists(_alphabet, max_size=60), pattern=st.sampled_from(ALL_PRESETS),
       size=st.integers(1, 12))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_text_any_block_size(tmp_path_factory, parts, pattern, size):
    """Texts with no newlines, runs of spaces, specials everywhere: same counts as whole."""
    text = "".join(parts)
    path = tmp_path_factory.mktemp("h") / "t.txt"
    path.write_bytes(text.encode())
    mp = pytest.MonkeyPatch()
    mp.setattr(blocks, "BLOCK_BYTES", size)
    mp.setattr(blocks, "REGEX_BLOCK_BYTES", size)
    try:
        expected = oracle([text], ["<|x|>"], pattern)
        if not expected:
            with pytest.raises(CorpusError, match="empty"):
                count_corpus(texts=[text], pre=Pretokenizer(pattern, ["<|x|>"]), workers=1)
            return
        if not looks_binary(text.encode()):  # (a file of control characters is refused)
            table = count_corpus(path, Pretokenizer(pattern, ["<|x|>"]), workers=1)
            assert list(zip(table.words, table.freqs)) == list(expected.items())
        # the same text given in memory
        table = count_corpus(texts=[text], pre=Pretokenizer(pattern, ["<|x|>"]), workers=1)
        assert list(zip(table.words, table.freqs)) == list(expected.items())
    finally:
        mp.undo()


def test_cuts_never_split_special_tokens(tmp_path, tiny_blocks):
    text = ("ab<|endoftext|>cd <|endoftext|><|endoftext|>e f" * 50)
    p = tmp_path / "s.txt"
    p.write_text(text)
    for pattern in ALL_PRESETS:
        table = count_corpus(p, Pretokenizer(pattern, [EOT, "<|end"]), workers=1)
        assert as_dict(table) == oracle([text], [EOT, "<|end"], pattern), pattern


def test_documents_are_pretokenized_apart():
    pre = Pretokenizer("gpt2")
    table = build_table(["hello", " world"], pre)
    joined = build_table(["hello world"], pre)
    assert table.words == joined.words
    # no word spans the boundary: "ab" + "cd" as two documents never gives "abcd"
    assert build_table(["ab", "cd"], pre).words == ["ab", "cd"]


def test_jsonl_documents_streamed(tmp_path, tiny_blocks):
    docs = ["first doc's text", "ab", "cd", "中文 text\nmore", "x" * 30]
    p = tmp_path / "d.jsonl.xz"
    with lzma.open(p, "wt", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps({"text": d}) + "\n\n")
    for pattern in ALL_PRESETS:
        for workers in (1, 2):
            table = count_corpus(p, Pretokenizer(pattern), workers=workers)
            assert list(zip(table.words, table.freqs)) == list(oracle(docs, (), pattern).items())


def test_files_and_texts_are_separate_documents(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("one two")
    b.write_text("three")
    table = count_corpus([a, b], Pretokenizer("gpt2"), texts=["zero"])
    assert table.words == ["zero", "one", " two", "three"]


def test_not_utf8_offset_is_the_file_offset(tmp_path, tiny_blocks):
    p = tmp_path / "bad.txt"
    data = ("héllo wörld " * 40).encode() + b"\xff tail"
    p.write_bytes(data)
    with pytest.raises(NotUTF8Error) as e:
        count_corpus(p, Pretokenizer("gpt2"))
    assert e.value.offset == data.index(b"\xff")
    assert str(p) in str(e.value)


def test_bom_dropped_binary_refused_empty_refused(tmp_path):
    p = tmp_path / "bom.txt"
    p.write_bytes(b"\xef\xbb\xbfhi there")
    assert count_corpus(p, Pretokenizer("gpt2")).words == ["hi", " there"]
    b = tmp_path / "bin.txt"
    b.write_bytes(b"\x00\x01\x02binary" * 10)
    with pytest.raises(CorpusError, match="binary"):
        count_corpus(b, Pretokenizer("gpt2"))
    e = tmp_path / "empty.txt"
    e.write_bytes(b"")
    with pytest.raises(CorpusError, match="empty"):
        count_corpus(e, Pretokenizer("gpt2"))


def test_other_encoding_converted_in_blocks(tmp_path, tiny_blocks):
    text = "café crème brûlée " * 20
    p = tmp_path / "latin.txt"
    p.write_bytes(text.encode("latin-1"))
    table = count_corpus(p, Pretokenizer("gpt2"), encoding="latin-1")
    assert as_dict(table) == oracle([text])


def test_lone_surrogate_text_gets_a_message():
    with pytest.raises(CorpusError, match="lone surrogate"):
        count_corpus(texts=["ok \ud800 no"], pre=Pretokenizer("gpt2"))


def test_no_newlines_one_long_line_streams(tmp_path, monkeypatch):
    """A 2 MB single line (minified-JSON-like) is cut into many blocks, not held whole."""
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 64 << 10)
    monkeypatch.setattr(blocks, "REGEX_BLOCK_BYTES", 64 << 10)
    line = "".join(f'{{"id":{i},"name":"item {i}","tags":["a","b"]}},' for i in range(40_000))
    p = tmp_path / "min.json.txt"
    p.write_text(line)
    for pattern in ("gpt2", "whitespace"):
        sizes = []
        reader = blocks.BlockReader([p], Pretokenizer(pattern))
        for blk in reader:
            sizes.append(len(blk.data))
        assert len(sizes) > 10 and max(sizes) < 4 * (64 << 10), pattern
        assert as_dict(count_corpus(p, Pretokenizer(pattern))) == oracle([line], (), pattern)


def test_memory_does_not_grow_with_the_corpus(tmp_path, monkeypatch):
    """Streaming 8 MB in 64 KB blocks allocates far less than the file (Python heap)."""
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 64 << 10)
    p = tmp_path / "big.txt"
    unit = "The quick brown fox jumps over the lazy dog; 1234 times.\n" * 100
    with open(p, "w") as f:
        for _ in range(8_000_000 // len(unit)):
            f.write(unit)
    tracemalloc.start()
    try:
        table = count_corpus(p, Pretokenizer("gpt2"), workers=2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert table.n_bytes == p.stat().st_size
    assert peak < 2_000_000, f"peak Python allocations {peak:,} bytes for an 8 MB file"


def test_cancel_stops_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 4096)
    p = tmp_path / "c.txt"
    p.write_text("word " * 200_000)
    for workers in (1, 2):
        calls = []
        def cancel():
            calls.append(1)
            return len(calls) > 3
        progress = []
        with pytest.raises(corpus.Cancelled):
            count_corpus(p, Pretokenizer("gpt2"), cancel=cancel, workers=workers,
                         progress=lambda d, t: progress.append(d))
        assert not progress or progress[-1] < p.stat().st_size  # stopped early


def test_trainer_same_from_file_and_text(tmp_path, mixed_text, monkeypatch):
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 5000)
    s = TrainSettings(num_merges=200 if HAS_C_CORE else 15, special_tokens=(EOT,))
    a = Trainer.from_text(mixed_text, s, workers=1)
    a.run(detail=False)
    p = tmp_path / "m.txt"
    p.write_text(mixed_text)
    b = Trainer.from_files([p], s, workers=2)
    b.run(detail=False)
    assert a.merges == b.merges
    assert [st.count for st in a.steps] == [st.count for st in b.steps]


def test_presets_never_time_out_custom_patterns_per_block(tmp_path, monkeypatch):
    """A preset has no time limit at all; a custom pattern is limited per block, and the
    message says which block ran too long and what that means."""
    from bpe_gui.engine.text import pretokenize
    from bpe_gui.engine.errors import PatternError
    monkeypatch.setattr(pretokenize, "CUSTOM_TIMEOUT_S", 0.05)
    assert Pretokenizer("gpt2").timeout is None and Pretokenizer("cjk").timeout is None
    p = tmp_path / "runaway.txt"
    p.write_text("a" * 60 + "\n")
    with pytest.raises(PatternError) as e:
        count_corpus(p, Pretokenizer(r"(.*){1,32000}[bc]"))
    msg = str(e.value)
    assert "one block of 61 characters" in msg and str(p) in msg and "backtracks" in msg
    assert "pattern '(.*){1,32000}[bc]' ran for more than" in msg   # named as typed


# ---------------------------------------------------------------- regressions


@pytest.mark.regression
def test_not_utf8_offset_counts_the_bom(tmp_path):
    """The offset NotUTF8Error names must count the BOM's 3 bytes: a place in the file
    as stored, not in the text after the BOM was dropped."""
    data = b"\xef\xbb\xbfabc\xffdef"
    p = tmp_path / "bom.txt"
    p.write_bytes(data)
    with pytest.raises(NotUTF8Error) as ei:
        files.read_documents(p)
    assert ei.value.offset == data.index(b"\xff") == 6
    assert "offset 6" in str(ei.value)


@pytest.mark.regression
def test_block_size_is_read_at_call_time(monkeypatch, tmp_path):
    """(Was: split_chunks bound CHUNK_CHARS as a default argument, so tuning it did
    nothing.) The block size must be read when a corpus is read, not at import."""
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 100)
    p = tmp_path / "c.txt"
    p.write_text("word more words here " * 2000)   # 42 KB
    sizes = [len(b.data) for b in blocks.BlockReader([p], Pretokenizer("gpt2"))]
    # (the first read takes 8 KB to judge whether the file is text)
    assert len(sizes) > 100 and max(sizes[1:]) <= 200


@pytest.mark.regression
@pytest.mark.parametrize("workers", [1, 2])
def test_timeout_error_inside_block_work_propagates(monkeypatch, tmp_path, workers):
    """build_table caught TimeoutError to poll its futures, so a TimeoutError raised by
    the work itself looped until cancelled. An error in a counting thread must reach
    the caller as it is, whether counting runs inline or on worker threads."""
    def boom(*a):
        raise TimeoutError("from the work")

    monkeypatch.setattr(corpus._Counting, "count", boom)           # blocks of one reader
    monkeypatch.setattr(range_count.RangeCounter, "part", boom)     # ranges of each thread
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 1000)
    p = tmp_path / "c.txt"
    p.write_text("some text " * 2000)
    deadline = time.monotonic() + 5.0
    with pytest.raises(TimeoutError, match="from the work"):
        try:
            corpus.count_corpus(p, Pretokenizer("gpt2"), workers=workers,
                                cancel=lambda: time.monotonic() > deadline)
        except Cancelled:
            pytest.fail("counting kept waiting for a worker that had failed")


@pytest.mark.regression
def test_jsonl_text_with_unicode_line_separators(tmp_path):
    """read_documents cut .jsonl files with splitlines(), which also breaks at U+2028,
    U+0085 and \\x1c-\\x1e: valid JSON strings holding them became 'not valid JSON'."""
    p = tmp_path / "docs.jsonl"
    docs = ["a\u2028b\x85c\x1cd", "second"]
    p.write_text(json.dumps({"text": docs[0]}, ensure_ascii=False) + "\r\n"
                 + json.dumps({"text": docs[1]}) + "\n", encoding="utf-8")
    assert files.read_documents(p) == docs
