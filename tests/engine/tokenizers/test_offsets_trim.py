"""tokenizers' ByteLevel offset trimming, whose rule lives in csrc/imported/offsets.c
(``_encode.trim_offsets``, and the whole-text path of ``encode_offsets``) with
pipeline.py's loop as its fallback only.

Oracles: ``tokenizers`` itself (the offsets of the same tokenizer.json), on every kind of
ByteLevel file that trims (with and without add_prefix_space, regex splits, added
tokens), by the C whole-text path, the pieces trimmed in C, and the pieces trimmed by
the fallback; and a slow restatement of the rule on random spans.
"""
from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

tokenizers = pytest.importorskip("tokenizers")
_encode = pytest.importorskip("bpe_gui.engine.tokenizers._encode")

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.tokenizers import pipeline as pipeline_mod  # noqa: E402

from hf_files import CASES  # noqa: E402

TEXTS = ["  a  b   c", " hello world ", "x    ", "   ", "a\u3000 b", "<|endoftext|> x",
         "Hello, World!  It's 3:45pm\n\n  indented\tline  ", "你好 世界  🙂 👍🏽 ", "",
         " \n \n  x", "don't  stop   ", "\t\ta", "x<|endoftext|>  <|endoftext|>"]


def _trimmed(name: str, prefix: bool):
    """A case of hf_files whose post-processor becomes ByteLevel with trim_offsets."""
    def make():
        tk = CASES[name]()
        tk.post_processor = tokenizers.processors.ByteLevel(trim_offsets=True,
                                                            add_prefix_space=prefix)
        return tk
    return make


# GPT-2's shape with and without add_prefix_space; Llama 3's and Qwen2's (a Split run by
# the native scanner, added tokens) made to trim
TRIMMING = {"gpt2-bytelevel-regex": CASES["gpt2-bytelevel-regex"],
            "bytelevel-prefix-space-trim": CASES["bytelevel-prefix-space-trim"],
            "llama3-trim": _trimmed("llama3-ignore-merges", False),
            "qwen2-split-trim-prefix": _trimmed("qwen2-split", True)}


@pytest.fixture(scope="module", params=sorted(TRIMMING))
def pair(request, tmp_path_factory):
    tk = TRIMMING[request.param]()
    path = tmp_path_factory.mktemp(request.param) / "tokenizer.json"
    tk.save(str(path))
    ours = load_tokenizer(path)
    assert ours.pipeline._trim_tables(), f"{request.param}: the file trims, in C"
    return request.param, tk, ours


def test_every_path_trims_as_tokenizers(pair, monkeypatch):
    """The whole-text path where it answers (not after add_prefix_space: the pieces
    then), the pieces trimmed in C, and the pieces trimmed by the fallback."""
    name, tk, ours = pair
    pipe = ours.pipeline
    took = 0
    for text in TEXTS:
        theirs = tk.encode(text, add_special_tokens=False)
        want = [tuple(o) for o in theirs.offsets]
        whole = pipe._offsets_in_c(text)
        if whole is not None:
            took += 1
            assert whole.offsets == want, text
        assert pipe._offsets_by_piece(text).offsets == want, text   # pieces, trimmed in C
        with monkeypatch.context() as m:   # the fallback: no C extension
            m.setattr(pipeline_mod, "_encode", None)
            assert pipe._offsets_by_piece(text).offsets == want, text
    assert took or "prefix" in name, f"{name}: the whole-text C path never answered"


def slow_trim(ids, offs, lead, trail, prefix):
    out = []
    for k, (i, (s, e)) in enumerate(zip(ids, offs)):
        skip_front = lead[i]
        if skip_front == 1 and prefix and (k == 0 or s == 0):
            skip_front = 0   # the space add_prefix_space put there stays
        s2 = min(s + skip_front, e)
        e2 = max(e - trail[i], s2) if trail[i] and e >= trail[i] else e
        out.append((s2, e2))
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 6)), max_size=30),
       st.lists(st.integers(0, 3), min_size=6, max_size=6),
       st.lists(st.integers(0, 3), min_size=6, max_size=6), st.booleans(), st.integers(0, 3))
def test_trim_offsets_is_the_rule(cells, lead, trail, prefix, first):
    ids, offs, pos = [], [], first
    for tid, width in cells:
        ids.append(tid)
        offs.append((pos, pos + width))
        pos += width
    got = _encode.trim_offsets(ids, offs, array("i", lead), array("i", trail), prefix)
    assert got == slow_trim(ids, offs, lead, trail, prefix)


def test_trim_offsets_refuses_what_it_cannot_read():
    lead = array("i", [0, 1])
    with pytest.raises(ValueError, match="id 2 has no entry"):
        _encode.trim_offsets([2], [(0, 1)], lead, lead, False)
    with pytest.raises(ValueError, match="one offset per id"):
        _encode.trim_offsets([0, 1], [(0, 1)], lead, lead, False)
    with pytest.raises(ValueError, match="trail"):
        _encode.trim_offsets([0], [(0, 1)], lead, array("i", [0]), False)
    with pytest.raises(TypeError, match="tuples"):
        _encode.trim_offsets([0], [[0, 1]], lead, lead, False)
