"""A UTF-8 file cut inside a character (head -c, a split) is said to be cut -- another
encoding would not help, so the message does not offer one -- at the character's own
offset; a bad byte inside the text is still "not valid UTF-8" with the encodings to try.
Every reader says it: counting (one block or many), reading a whole file, and the cost
table's reader, whose offsets were those of its read buffer (the oracle:
``bytes.decode``'s own error position)."""
from __future__ import annotations

import pytest

from bpe_gui.engine.corpus import files
from bpe_gui.engine.corpus import blocks, count_corpus, read_corpus_text
from bpe_gui.engine.errors import NotUTF8Error

TEXT = "汉字测试文本，再来一行。\n" * 400


def _readers(path):
    yield "count", lambda: count_corpus(path)
    yield "count lines", lambda: count_corpus(path, lines=True)
    yield "whole", lambda: read_corpus_text([path])
    yield "cost", lambda: list(files.read_text_chunks(path))


def _where(data: bytes) -> int:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start
    raise AssertionError("valid UTF-8")


@pytest.mark.parametrize("small_reads", [False, True])
@pytest.mark.parametrize("keep", [1, 2])
def test_a_file_cut_inside_a_character_is_said_to_be_cut(tmp_path, monkeypatch, keep,
                                                         small_reads):
    if small_reads:
        monkeypatch.setattr(blocks, "BLOCK_BYTES", 4096)
        monkeypatch.setattr(files, "READ_TEXT_BYTES", 1000)
    data = TEXT.encode("utf-8") + "汉".encode("utf-8")[:keep]   # its first bytes only
    path = tmp_path / "cut.txt"
    path.write_bytes(data)
    for name, read in _readers(path):
        with pytest.raises(NotUTF8Error) as e:
            read()
        assert e.value.cut, name
        assert e.value.offset == _where(data), name
        assert "ends in the middle of a UTF-8 character" in str(e.value), name
        assert "another encoding" not in str(e.value), name


@pytest.mark.parametrize("small_reads", [False, True])
def test_a_bad_byte_inside_is_still_another_encoding(tmp_path, monkeypatch, small_reads):
    if small_reads:
        monkeypatch.setattr(blocks, "BLOCK_BYTES", 4096)
        monkeypatch.setattr(files, "READ_TEXT_BYTES", 1000)
    good = TEXT.encode("utf-8")
    at = good.index(b"\n", 5000) + 1   # a line's start
    data = good[:at] + b"\xe4x" + good[at:]   # a lead byte, then not its continuation
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    for name, read in _readers(path):
        with pytest.raises(NotUTF8Error) as e:
            read()
        assert not e.value.cut, name
        assert e.value.offset == _where(data), name
        assert "not valid UTF-8" in str(e.value), name
