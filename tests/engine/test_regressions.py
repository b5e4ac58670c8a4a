"""One test per engine bug found while writing the engine's tests (each failed before its fix)."""
from __future__ import annotations

import time

import pytest

from bpe_gui.engine import (Cancelled, NotUTF8Error, PatternError, Pretokenizer, Tokenizer,
                            TrainSettings, Trainer, corpus, files, pretokenize)
from bpe_gui.engine import tokenizer as tokenizer_module


def test_tied_pairs_are_pairs_whatever_the_core():
    """The C core's tied() returns (a, b, count); MergeStep.tied must hold (a, b) pairs."""
    t = Trainer.from_text("low low lower newest newest widest widest widest",
                          TrainSettings(num_merges=3, mode="char", end_of_word="prefix"))
    for rec in t.run():
        assert all(len(p) == 2 for p in rec.tied)
        assert rec.tied[0] == rec.pair
    n, pairs = t.tied_now()
    assert n == len(pairs) and all(len(p) == 2 for p in pairs)


def test_char_mode_word_with_inner_isspace_character():
    """\\x1f is whitespace to str.isspace() but not to regex's \\s, so a GPT-2 word keeps it
    inside (':\\x1f\\x1b'); char mode used to crash with KeyError building the word."""
    t = Trainer.from_text(":\x1f\x1b :\x1f\x1b", TrainSettings(num_merges=2, mode="char"))
    assert b"\x1f" in t.vocab.values()
    assert len(t.run()) == 2


def test_char_mode_custom_pattern_with_inner_space():
    t = Trainer.from_text("a b\na b", TrainSettings(num_merges=3, mode="char", pattern=r"[^\n]+"))
    steps = t.run()
    assert b"".join(t.token(i) for i in t.word(0)) == b"a b</w>"
    assert len(steps) == 3


def test_not_utf8_offset_counts_the_bom(tmp_path):
    data = b"\xef\xbb\xbfabc\xffdef"
    p = tmp_path / "bom.txt"
    p.write_bytes(data)
    with pytest.raises(NotUTF8Error) as ei:
        files.read_documents(p)
    assert ei.value.offset == data.index(b"\xff") == 6
    assert "offset 6" in str(ei.value)


def test_spans_runaway_pattern_raises_pattern_error(monkeypatch):
    """finditer is lazy: its TimeoutError escaped _run as a bare TimeoutError."""
    monkeypatch.setattr(pretokenize, "CUSTOM_TIMEOUT_S", 0.05)
    pre = Pretokenizer(r"(.*){1,32000}[bc]")
    with pytest.raises(PatternError, match="ran for more than"):
        list(pre.spans("a" * 40))


def test_block_size_is_read_at_call_time(monkeypatch, tmp_path):
    """(Was: split_chunks bound CHUNK_CHARS as a default argument, so tuning it did
    nothing.) The block size must be read when a corpus is read, not at import."""
    from bpe_gui.engine import blocks
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 100)
    p = tmp_path / "c.txt"
    p.write_text("word more words here " * 2000)   # 42 KB
    sizes = [len(b.data) for b in blocks.BlockReader([p], Pretokenizer("gpt2"))]
    # (the first read takes 8 KB to judge whether the file is text)
    assert len(sizes) > 100 and max(sizes[1:]) <= 200


@pytest.mark.parametrize("workers", [1, 2])
def test_timeout_error_inside_block_work_propagates(monkeypatch, tmp_path, workers):
    """build_table caught TimeoutError to poll its futures, so a TimeoutError raised by
    the work itself looped until cancelled. An error in a counting thread must reach
    the caller as it is, whether counting runs inline or on worker threads."""
    from bpe_gui.engine import blocks

    def boom(*a):
        raise TimeoutError("from the work")

    monkeypatch.setattr(corpus._Counting, "count", boom)
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


def _byte_vocab() -> dict[int, bytes]:
    return {i: bytes([i]) for i in range(256)}


def test_tokenizer_without_merges_encodes():
    """_max_rank was only set when a merge was pushed: no merges -> AttributeError."""
    tok = Tokenizer(_byte_vocab(), [])
    assert tok.encode("ab") == [97, 98] and tok.n_merges == 0


def test_encode_iterable_keeps_lookahead_context():
    """The buffer was cut at a word start and the part before re-encoded on its own, so
    '\\n\\n' before 'QUEEN' became one word (\\s+(?!\\S) sees the end, not the Q)."""
    tok = Tokenizer({**_byte_vocab(), 256: b"\n\n"}, [(b"\n", b"\n")])
    text = "sake.\n\nQUEEN MARGARET:\n"
    assert tok.encode(text).count(10) == 3 and 256 not in tok.encode(text)
    for pieces in (["sake.\n\nQUEEN M", "ARGARET:\n"], ["sake.\n", "\n", "QUEEN MARGARET:\n"]):
        assert list(tok.encode_iterable(pieces, chunk_chars=8)) == tok.encode(text)


def test_encode_iterable_short_buffer_with_long_special():
    """Guards the rewrite of encode_iterable: a buffer shorter than the longest special
    token must not give a negative cut."""
    tok = Tokenizer(_byte_vocab(), [], special_tokens=["<|endoftext|>", "<|fim|>"])
    assert list(tok.encode_iterable(["<|fim|>"], chunk_chars=1)) == tok.encode("<|fim|>") == [257]


@pytest.mark.parametrize("pattern", [None, r"\S+|\s+"])   # native scanner, regex
def test_encode_iterable_uncuttable_stream_stays_linear(monkeypatch, pattern):
    """A stream that cannot be cut (one long run of spaces, fed a character at a time)
    re-scanned the whole buffer for every new character: quadratic time. The text looked
    at for cuts, summed over the attempts, must stay within a few times the stream."""
    tok = Tokenizer(_byte_vocab(), [], **({"pattern": pattern} if pattern else {}))
    looked: list[int] = []
    real_cut = tokenizer_module.stream_cut

    def spy(pre, buf, chunk_chars):
        looked.append(len(buf))
        return real_cut(pre, buf, chunk_chars)

    monkeypatch.setattr(tokenizer_module, "stream_cut", spy)
    n = 200_000
    ids = list(tok.encode_iterable(iter(" " * n), chunk_chars=64))
    assert ids == [32] * n
    assert looked and sum(looked) <= 4 * n   # quadratic: about n * n / 128 = 3e8


def test_jsonl_text_with_unicode_line_separators(tmp_path):
    """read_documents cut .jsonl files with splitlines(), which also breaks at U+2028,
    U+0085 and \\x1c-\\x1e: valid JSON strings holding them became 'not valid JSON'."""
    import json
    p = tmp_path / "docs.jsonl"
    docs = ["a\u2028b\x85c\x1cd", "second"]
    p.write_text(json.dumps({"text": docs[0]}, ensure_ascii=False) + "\r\n"
                 + json.dumps({"text": docs[1]}) + "\n", encoding="utf-8")
    assert files.read_documents(p) == docs


def test_custom_pattern_with_capture_groups_gives_whole_words():
    """regex.findall returns the groups of a pattern with capture groups, so training and
    encode saw 'h', 'w' for 'hello world' while spans() and offsets saw whole words."""
    pre = Pretokenizer(r"(\w)\w*|\s+")
    assert pre.words("hello world") == ["hello", " ", "world"]
    t = Trainer.from_text("hello world hello", TrainSettings(num_merges=3, pattern=r"(\w)\w*|\s+"))
    assert sorted(t.table.words) == [" ", "hello", "world"]
    tok = t.tokenizer()
    assert tok.decode(tok.encode("hello world")) == "hello world"
    assert tok.encode("hello world") == tok.encode_with_offsets("hello world").ids
