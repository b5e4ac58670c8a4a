"""The byte-to-character span rule, pinned once for its homes: a token holding part of a
character covers that whole character (so neighbours may share one). Held against a slow
oracle that looks up the character of each byte: the Python home (``model.char_spans``),
the C encoder's offsets (``enc_char_spans``, behind ``encode_with_offsets``) and Check my
BPE's token spans, which asks the Python home."""
from __future__ import annotations

import pytest

from bpe_gui.engine import Tokenizer
from bpe_gui.engine.tokenizers.model import char_spans

TEXTS = ["plain ascii", "a你b", "你好🎉x", "é\u0301 🙂🙂 中文", ""]


def oracle(text: str, byte_spans):
    """Character of each byte looked up one by one: (first char, last char + 1)."""
    owner = [i for i, ch in enumerate(text) for _ in ch.encode("utf-8", "surrogatepass")]
    return [(owner[s], owner[e - 1] + 1) for s, e in byte_spans]


def byte_tokenizer() -> Tokenizer:
    """Bytes, plus merges that end and start inside characters (你 is E4 BD A0)."""
    vocab = {i: bytes([i]) for i in range(256)}
    merges = [(b"\xe4", b"\xbd"), (b"\xbd", b"\xa0"), (b"a", b"\xe4"), (b"\xa0", b"b")]
    for k, (x, y) in enumerate(merges):
        vocab[256 + k] = x + y
    return Tokenizer(vocab, merges, [])


@pytest.mark.parametrize("text", TEXTS)
def test_spans_of_every_home_are_the_rules(text):
    tok = byte_tokenizer()
    enc = tok.encode_with_offsets(text)
    ends, pos = [], 0
    for t in enc.tokens:
        pos += len(t)
        ends.append(pos)
    starts = [0, *ends[:-1]]
    want = oracle(text, list(zip(starts, ends)))
    assert list(char_spans(text, starts, ends)) == want
    assert [tuple(o) for o in enc.offsets] == want
    from bpe_gui.engine.check.encoding import _spans
    assert [(t.start, t.end) for t in _spans(tok, list(enc.ids), text)] == want
