"""A second pass over the same text takes its words from the caches, and its ids are
still tiktoken's, on OpenAI's published cl100k file.

Words of up to 32 bytes and 6 ids come back from the shared sets; a word of more than 32
bytes, or of more than 6 ids, is kept (when the admission rule lets it in) in the
per-thread table of long words, where every word the shared sets do not hold is looked up
before it is merged again (encoder.c, word_miss). A wrong entry, or one found for a word of
another length, would show here as ids that are not tiktoken's on the second pass.
"""
from __future__ import annotations

import lzma
from pathlib import Path

import pytest

pytest.importorskip("tiktoken")

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from tiktoken_files import npm_encoding  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CORPORA = ROOT / "tests" / "fixtures" / "corpora"


@pytest.fixture(scope="module")
def cl100k(tmp_path_factory):
    path, enc = npm_encoding("cl100k_base", tmp_path_factory.mktemp("cl100k"), specials=False)
    return load_tokenizer(path), enc


def _texts() -> dict[str, str]:
    zh = lzma.open(CORPORA / "zh-four-classic-novels.txt.xz").read()[:90_000]
    code = (ROOT / "bpe_gui" / "engine" / "csrc" / "merge" / "encoder.c").read_text("utf-8")
    # words of 7-32 bytes with more than 6 ids and words of more than 32 bytes, each
    # coming back, with others of the same lengths between them
    words = ["甲乙丙丁戊己庚辛", "𝔞𝔟𝔠𝔡𝔢𝔣𝔤", "\t" * 9 + "x", "ab" * 20, "中文" * 30]
    mixed = " ".join(w + str(i % 97) for i in range(3000) for w in words[i % 5:i % 5 + 1])
    return {"chinese": zh.decode("utf-8", "ignore"), "code": code, "mixed": mixed}


@pytest.mark.parametrize("name", ["chinese", "code", "mixed"])
def test_second_pass_ids_are_tiktokens(cl100k, name):
    ours, enc = cl100k
    text = _texts()[name]
    expected = enc.encode_ordinary(text)
    for _ in range(2):  # cold, then every word through the caches
        assert list(ours.encode_to_array(text)) == expected
        assert ours.encode(text) == expected
