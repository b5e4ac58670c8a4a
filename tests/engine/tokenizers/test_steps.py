"""An encoding carried from one training step to the next (tokenizers/steps.py), which the
window's encode view uses instead of encoding again.

Oracles: a slow obvious merge (each word's ids scanned left to right, a pair replaced
where it starts, nothing across words), and a fresh encode of the tokenizer at the
step, ids, token bytes and character spans alike.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_gui.engine.tokenizers import (Encoding, apply_merge, char_of_byte, undo_merge,
                                       word_numbers)
from bpe_gui.engine.train.trainer import TrainSettings, Trainer

TEXT = ("low lower lowest newer newest wider widest aaaa aaa " * 6
        + "café naïve 你好 你好世界 Привет мир 🙂🙂 " * 4)


def slow_merge(ids: list[int], words: list[int], a: int, b: int, new: int) -> list[int]:
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == a and ids[i + 1] == b and words[i] == words[i + 1]:
            out.append(new)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def _encoding(ids: list[int], width: int = 1) -> Encoding:
    """Token i is the bytes of its id, one character each (ASCII), spans that tile."""
    toks = [bytes([97 + i % 26]) * width for i in ids]
    return Encoding(list(ids), toks, [(k * width, (k + 1) * width) for k in range(len(ids))],
                    [False] * len(ids))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.booleans()), max_size=40),
       st.integers(0, 3), st.integers(0, 3))
def test_apply_merge_is_the_slow_merge_and_undo_gives_it_back(cells, a, b):
    ids = [i for i, _ in cells]
    words, w = [], 0
    for _, new_word in cells:
        w += new_word
        words.append(w)
    new = 9
    enc = _encoding(ids)
    got, got_words = apply_merge(enc, words, a, b, new, b"ab")
    want = slow_merge(ids, words, a, b, new)
    assert got.ids == want
    assert len(got_words) == len(want) and got_words == sorted(got_words)
    assert [s for s, _ in got.offsets] == sorted(s for s, _ in got.offsets)
    # every merged token spans its two halves; every other token keeps its span
    k = 0
    for tid, span in zip(got.ids, got.offsets):
        if tid == new:
            assert span == (enc.offsets[k][0], enc.offsets[k + 1][1])
            k += 2
        else:
            assert span == enc.offsets[k]
            k += 1
    assert k == len(ids)
    # undone, with the halves' own bytes (new's token is their concatenation)
    left, right = bytes([97 + a % 26]), bytes([97 + b % 26])
    got2 = Encoding(got.ids, [left + right if t == new else x for t, x in
                              zip(got.ids, got.tokens)], got.offsets, got.special)
    back, back_words = undo_merge(got2, got_words, new, a, b, left, right, None)
    assert back.ids == ids and back.offsets == enc.offsets and back_words == words


def test_nothing_to_merge_gives_the_same_objects():
    enc = _encoding([1, 2, 1])
    words = [0, 0, 1]
    assert apply_merge(enc, words, 2, 2, 7, b"x") == (enc, words)
    assert apply_merge(enc, words, 2, 1, 7, b"x")[0].ids == [1, 2, 1]   # across words
    assert undo_merge(enc, words, 7, 1, 2, b"a", b"b", None) == (enc, words)


@pytest.fixture(scope="module")
def trainer() -> Trainer:
    t = Trainer.from_text(TEXT, TrainSettings(vocab_size=256 + 60, pattern="gpt2"))
    t.run()
    return t


def _fields(enc: Encoding) -> tuple:
    return enc.ids, enc.tokens, enc.offsets, enc.special or [False] * len(enc.ids)


@pytest.mark.parametrize("text", [TEXT, "lower newest 你好世界 🙂 wider", "aaaa aaa a"])
def test_steps_forward_and_back_equal_a_fresh_encode(trainer, text):
    """Each merge applied to the encoding at step k is the encoding at step k + 1, and
    undoing it gives step k back, for every step of a run (characters of 1 to 4 bytes,
    so tokens cut inside characters too)."""
    tok0 = trainer.tokenizer(at_step=0)
    starts = [s for s, _e, _sp in tok0.pre.spans(text)]
    cob = char_of_byte(text)
    fresh = [trainer.tokenizer(at_step=k).encode_with_offsets(text, allowed_special="all")
             for k in range(trainer.n_steps + 1)]
    enc = fresh[0]
    words = word_numbers(starts, enc.offsets)
    changed = 0
    for k, rec in enumerate(trainer.steps):
        nxt, nxt_words = apply_merge(enc, words, rec.pair[0], rec.pair[1], rec.new_id, rec.token)
        assert _fields(nxt) == _fields(fresh[k + 1]), f"step {k + 1}"
        assert nxt_words == word_numbers(starts, nxt.offsets)
        back, back_words = undo_merge(nxt, nxt_words, rec.new_id, rec.pair[0], rec.pair[1],
                                      rec.left, rec.right, cob)
        assert _fields(back) == _fields(enc) and back_words == words, f"undo {k + 1}"
        changed += nxt is not enc
        enc, words = nxt, nxt_words
    assert changed > 0, "no merge applied: the text misses the trained merges"


def test_char_of_byte():
    assert char_of_byte("abc") is None
    assert char_of_byte("a你🙂") == [0, 1, 1, 1, 2, 2, 2, 2]
    assert word_numbers([0, 3], [(0, 2), (2, 3), (3, 5)]) == [0, 0, 1]
