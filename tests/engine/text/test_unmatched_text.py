"""Text a pattern leaves out (``Pretokenizer.unmatched``): the characters no word and no
special token covers, against the oracle of `regex.finditer` spans over the text cut at
the special tokens by hand; every preset takes every character (so the command line
need not read the corpus for them); and the sentence that says it with the fix."""
from __future__ import annotations

import regex
from hypothesis import given, settings, strategies as st

from bpe_gui.engine.text import Pretokenizer, lines_of, pattern_names
from bpe_gui.engine.text.pretokenize import TAKE_THE_REST, unmatched_sentence

ALPHABET = st.sampled_from(list("ab 1\n\t.,汉字éÄ🙂<>|s") + ["<s>", "\r\n", "\u2028"])
TEXTS = st.lists(ALPHABET, max_size=60).map("".join)
PATTERNS = [r"[a-z]+", r"\p{L}+|\s", r"(\w)\w*", r"\d+|[^\s\d]{2}", r"\S+|\s+"]


def oracle(pattern: str, text: str, specials: list[str], lines: bool) -> int:
    rx = regex.compile(pattern)
    total = covered = 0
    # one text per line: cut after each \n (as Hugging Face reads a file), nowhere else
    for part in regex.split(r"(?<=\n)", text) if lines else [text]:
        pieces = regex.split(f"({'|'.join(map(regex.escape, specials))})", part) \
            if specials else [part]
        for piece in pieces:
            total += len(piece)
            if piece in specials:
                covered += len(piece)
            else:
                covered += sum(m.end() - m.start() for m in rx.finditer(piece))
    return total - covered


@settings(max_examples=150, deadline=None)
@given(text=TEXTS, pattern=st.sampled_from(PATTERNS), special=st.booleans(),
       lines=st.booleans())
def test_unmatched_is_what_no_match_covers(text, pattern, special, lines):
    specials = ["<s>"] if special else []
    pre = Pretokenizer(pattern, specials)
    got = sum(map(pre.unmatched, lines_of(text) if lines else [text]))
    assert got == oracle(pattern, text, specials, lines)


@settings(max_examples=60, deadline=None)
@given(text=TEXTS)
def test_every_preset_takes_every_character(text):
    for name in pattern_names():
        assert Pretokenizer(name).unmatched(text) == 0, name


def test_the_rest_taken_leaves_nothing_out():
    """The fix the sentence gives works: the pattern with TAKE_THE_REST leaves nothing."""
    text = "hello 123 world!! 汉字\t\n"
    assert Pretokenizer(r"[a-z]+").unmatched(text) > 0
    assert Pretokenizer(r"[a-z]+" + TAKE_THE_REST).unmatched(text) == 0
    said = unmatched_sentence(5, 20, "the text", "they get no ids")
    assert "25.0% of the text (5 of 20 characters): they get no ids" in said
    assert TAKE_THE_REST in said
