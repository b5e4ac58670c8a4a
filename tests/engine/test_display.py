"""Readable token text: visible whitespace, hex for partial characters, GPT-2's alphabet."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from bpe_gui.engine.display import (bytes_to_unicode, gpt2_bytes, gpt2_text, hex_bytes,
                                    is_one_char, is_partial, readable, split_utf8)


def test_gpt2_alphabet_is_a_printable_bijection():
    table = bytes_to_unicode()
    assert sorted(table) == list(range(256))
    assert len(set(table.values())) == 256
    assert all(c.isprintable() and not c.isspace() for c in table.values())
    assert table[ord(" ")] == "Ġ" and table[ord("\n")] == "Ċ" and table[ord("A")] == "A"


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40))
def test_gpt2_text_round_trip(data):
    assert gpt2_bytes(gpt2_text(data)) == data


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=24),
                 st.text(max_size=8).map(lambda s: s.encode("utf-8")),
                 st.tuples(st.text(max_size=4), st.integers(0, 3)).map(
                     lambda t: t[0].encode("utf-8")[t[1]:])))
def test_split_utf8_runs(data):
    runs = split_utf8(data)
    assert b"".join(chunk for _, chunk in runs) == data
    for ok, chunk in runs:
        if ok:
            chunk.decode("utf-8")  # whole characters only
    # runs alternate, so neighbours never share a kind
    assert all(a[0] != b[0] for a, b in zip(runs, runs[1:]))
    # every stray byte really is one no valid character could take
    if all(ok for ok, _ in runs):
        data.decode("utf-8")
    assert is_partial(data) == (not all(ok for ok, _ in runs))


def test_partial_and_one_char_rules_have_one_home():
    """engine/check (causes, sentences, merges) asks display.py: a token is partial when it
    is not whole UTF-8 characters, and "one character" when it is exactly one of 2-4 bytes."""
    from bpe_gui.engine.check import causes, merges, sentences
    for mod in (causes, merges, sentences):
        assert not any(hasattr(mod, n) for n in ("_partial", "_one_char"))
    for ch in ("a", "é", "你", "🎉"):
        whole = ch.encode("utf-8")
        assert not is_partial(whole) and is_one_char(whole) == (len(whole) > 1)
        for k in range(1, len(whole)):
            assert is_partial(whole[:k]) and is_partial(whole[k:])
            assert not is_one_char(whole[:k])
    assert not is_one_char("你好".encode()) and not is_one_char(b"ab") and not is_one_char(b"")


def test_readable_examples():
    assert readable(b" the") == "·the"
    assert readable("你".encode()[:2]) == "<E4 BD>"
    assert readable(b"a" + "你".encode()[:1]) == "a<E4>"
    assert readable(b"\n\t") == "↵→"
    assert readable(b" x", show_ws=False) == " x"
    assert readable(b" the", gpt2=True) == "Ġthe"
    assert hex_bytes(b"\xe4\xbd") == "<E4 BD>"
    # a character cut on both sides: its tail, then its head
    tail_head = "你".encode()[2:] + "好".encode()[:2]
    assert readable(tail_head) == "<A0 E5 A5>"
