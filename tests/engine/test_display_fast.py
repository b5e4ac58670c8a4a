"""The fast paths of readable() and gpt2_text() (one decode, C-level translate) give
exactly what the character-by-character definitions written here give."""
from __future__ import annotations

import unicodedata

from hypothesis import given, settings, strategies as st

from bpe_gui.engine.display import (VISIBLE_WS, bytes_to_unicode, gpt2_text, hex_bytes,
                                    readable, split_utf8)


def slow_readable(token: bytes, show_ws: bool = True) -> str:
    out = []
    for ok, chunk in split_utf8(token):
        if not ok:
            out.append(hex_bytes(chunk))
            continue
        text = "".join(f"\\x{ord(c):02x}" if unicodedata.category(c) == "Cc"
                       and c not in VISIBLE_WS else c for c in chunk.decode("utf-8"))
        out.append("".join(VISIBLE_WS.get(c, c) for c in text) if show_ws else text)
    return "".join(out)


tokens = st.one_of(st.binary(max_size=24),
                   st.text(max_size=10).map(lambda s: s.encode("utf-8")),
                   st.text(alphabet=" \n\t\r\u3000\x00\x1b\x7fa中", max_size=8).map(
                       lambda s: s.encode("utf-8")),
                   st.tuples(st.text(max_size=4), st.integers(0, 3)).map(
                       lambda t: t[0].encode("utf-8")[t[1]:]))


@settings(max_examples=600, deadline=None)
@given(tokens, st.booleans())
def test_readable_equals_the_definition(token, show_ws):
    assert readable(token, show_ws=show_ws) == slow_readable(token, show_ws)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_gpt2_text_equals_the_definition(token):
    table = bytes_to_unicode()
    assert gpt2_text(token) == "".join(table[b] for b in token)
