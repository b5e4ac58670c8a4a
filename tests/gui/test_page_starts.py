"""Where a long text's pages begin (gui/panels/encode/pages.py, page_starts): after a line
break in a page's last tenth, else before a space there, else at the page's size. A page
is encoded on its own, so a page that began inside a word gave that word other tokens
than the whole text does (seen under Xvfb: 100 KB of words without a line break, pages 1
and 2 together one token more than the whole text). Oracle: the same tokenizer encoding
the whole text."""
from __future__ import annotations

import random

import pytest

from bpe_gui.engine.formats import known_encodings as known
from bpe_gui.engine.train.trainer import TrainSettings, Trainer
from bpe_gui.gui.panels.encode.pages import page_starts


def _pages(text: str, size: int) -> list[str]:
    starts = page_starts(text, size) + [len(text)]
    return [text[a:b] for a, b in zip(starts, starts[1:])]


@pytest.mark.parametrize("pattern", ["gpt2", "cl100k", "o200k", known.LLAMA3_PATTERN],
                         ids=["gpt2", "cl100k", "o200k", "llama3"])
def test_pages_without_line_breaks_keep_the_whole_texts_tokens(pattern):
    rng = random.Random(5)
    words = ["".join(rng.choice("abcdefghijklmnopé") for _ in range(rng.randint(1, 14)))
             for _ in range(4000)]
    text = " ".join(words)                      # no line break anywhere
    trainer = Trainer.from_text(text, TrainSettings(vocab_size=600, pattern=pattern))
    trainer.run()
    tok = trainer.tokenizer()
    size = 3000
    pages = _pages(text, size)
    assert len(pages) > 5 and "".join(pages) == text
    assert all(0 < len(p) <= size for p in pages)
    assert all(p.startswith(" ") for p in pages[1:])   # each cut before a space
    assert [i for p in pages for i in tok.encode(p, allowed_special="all")] == tok.encode(text, allowed_special="all")


def test_line_breaks_first_and_no_space_means_the_full_size():
    text = ("x" * 95 + "\n" + "y" * 3 + " ") * 40
    assert all(p.endswith("\n") for p in _pages(text, 100)[:-1])   # after the break
    solid = "z" * 1000
    assert page_starts(solid, 100) == list(range(0, 1000, 100))   # nowhere better
