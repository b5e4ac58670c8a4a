"""A count table's totals are the text's own: ``n_bytes`` its UTF-8 bytes and ``n_chars``
its characters, read from the file itself (the oracle), for every preset -- native
scanner or ``regex`` -- and a custom pattern, whole files or one text per line, one
block or many. (One text per line through ``regex`` added the whole block's bytes for
every line: a 1 MB file counted 2.9 GB.) Where the pattern matches every character,
the words' bytes are all of them too."""
from __future__ import annotations

import lzma
from pathlib import Path

import pytest

from bpe_gui.engine.corpus import blocks, count_corpus
from bpe_gui.engine.text import Pretokenizer

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "corpora"
PATTERNS = ["gpt2", "cl100k", "whitespace", r"\w+|\s+|[^\w\s]+"]


@pytest.fixture(scope="module", params=["multi-utf8-demo.txt",
                                        "zh-four-classic-novels.txt.xz"])
def text_file(request, tmp_path_factory):
    src = FIXTURES / request.param
    data = lzma.decompress(src.read_bytes()) if src.suffix == ".xz" else src.read_bytes()
    p = tmp_path_factory.mktemp("sizes") / "corpus.txt"
    p.write_bytes(data[:300_000].decode("utf-8", "ignore").encode("utf-8"))
    return p


@pytest.mark.parametrize("block", [None, 4096])
@pytest.mark.parametrize("lines", [False, True])
@pytest.mark.parametrize("pattern", PATTERNS)
def test_totals_are_the_files_own(text_file, monkeypatch, pattern, lines, block):
    if block is not None:
        monkeypatch.setattr(blocks, "BLOCK_BYTES", block)
    data = text_file.read_bytes()
    table = count_corpus(text_file, Pretokenizer(pattern), lines=lines)
    assert table.n_bytes == len(data)
    assert table.n_chars == len(data.decode("utf-8"))
    assert table.total_word_bytes == len(data)   # (each pattern here matches every char)
