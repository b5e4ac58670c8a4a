"""files.read_head: the start of a corpus file for the window's preview of a streamed
corpus (the oracle is the whole file read with read_documents)."""
from __future__ import annotations

import gzip
import json
import lzma

import pytest

from bpe_gui.engine.errors import CorpusError, NotUTF8Error
from bpe_gui.engine.corpus.files import read_documents, read_head

TEXT = "héllo 世界 🙂 plain ascii words\n" * 50


@pytest.mark.parametrize("suffix", [".txt", ".txt.xz", ".txt.gz"])
def test_a_small_file_is_read_whole_and_complete(tmp_path, suffix):
    p = tmp_path / f"c{suffix}"
    raw = TEXT.encode()
    p.write_bytes(lzma.compress(raw) if suffix.endswith(".xz")
                  else gzip.compress(raw) if suffix.endswith(".gz") else raw)
    text, complete = read_head(p, n_bytes=len(raw))
    assert complete and text == "\n".join(read_documents(p))


@pytest.mark.parametrize("n", range(1, 40))
def test_a_cut_never_splits_a_character(tmp_path, n):
    p = tmp_path / "c.txt"
    p.write_bytes(TEXT.encode())
    text, complete = read_head(p, n_bytes=n)
    assert not complete
    assert TEXT.startswith(text)
    assert len(text.encode()) <= n and len(text.encode()) > n - 4


def test_a_bom_is_dropped(tmp_path):
    p = tmp_path / "bom.txt"
    p.write_bytes(b"\xef\xbb\xbf" + TEXT.encode())
    assert read_head(p, 10)[0] == TEXT.encode()[:7].decode()


def test_jsonl_keeps_whole_lines_only(tmp_path):
    p = tmp_path / "c.jsonl"
    docs = [f"document {i}: 你好" for i in range(100)]
    p.write_text("".join(json.dumps({"text": d}) + "\n" for d in docs), encoding="utf-8")
    text, complete = read_head(p, n_bytes=500)
    assert not complete
    shown = text.split("\n")
    assert 0 < len(shown) < 100 and shown == docs[:len(shown)]


def test_other_encodings_decode_and_leave_a_cut_character_out(tmp_path):
    p = tmp_path / "gbk.txt"
    p.write_bytes(("中文" * 10).encode("gbk"))
    text, complete = read_head(p, n_bytes=5, encoding="gbk")   # 2.5 characters
    assert (text, complete) == ("中文", False)
    assert read_head(p, n_bytes=100, encoding="gbk") == ("中文" * 10, True)
    with pytest.raises(CorpusError, match="cannot be decoded as no-such-codec"):
        read_head(p, n_bytes=100, encoding="no-such-codec")


def test_not_utf8_names_the_offset_and_binary_is_refused(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"abc\xffdef")
    with pytest.raises(NotUTF8Error) as e:
        read_head(bad)
    assert e.value.offset == 3
    binary = tmp_path / "b.txt"
    binary.write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(CorpusError, match="binary"):
        read_head(binary)
