"""json_str spells strings and string pairs exactly as json.dumps does (its fast path
skips json.dumps), invisible characters escaped."""
import json

from bpe_gui.engine.formats._json import escape_invisible, json_str

VALUES = ["", "plain", "a\u00a0b", '"\\\n\t\x00\x1f', "é中\U0001F600", "\u2028\ufeff\ue000",
          "\ud800", "Ġthe", ["a", 'b"'], ("\n", "\u00a0"), ["only"], ["a", "b", "c"], 5,
          {"k": "v"}, ["a", 1]]


def test_json_str_is_json_dumps_with_invisibles_escaped():
    for v in VALUES:
        assert json_str(v) == escape_invisible(json.dumps(v, ensure_ascii=False)), v
        assert json.loads(json_str(v)) == (list(v) if isinstance(v, tuple) else v)


def test_escape_invisible_without_regex_agrees_with_the_regex_below_u0370():
    """Text of characters below U+0370 that str.isprintable() passes is left as it is
    without asking `regex`: the regex's categories must say the same for each of them,
    alone and within longer text (GPT-2's byte alphabet is among them)."""
    import regex
    invisible = regex.compile(r"(?! )[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]")
    for cp in range(0x370):
        c = chr(cp)
        assert (invisible.search(c) is None) == (c.isprintable() or c == " "), hex(cp)
        text = f"\u0120the{c}"
        assert escape_invisible(text) == invisible.sub(
            lambda m: f"\\u{ord(m.group()):04x}", text), hex(cp)


def test_json_strs_and_gpt2_texts_equal_their_one_at_a_time_forms():
    """The bulk forms the tokenizer.json export uses give what json_str and gpt2_text
    give for each value, invisible characters and every byte included."""
    from bpe_gui.engine.display import gpt2_text, gpt2_texts
    from bpe_gui.engine.formats._json import json_strs
    tokens = [bytes([b]) for b in range(256)] + [b"", b" the", b"\xe2\x80\xa8x", b"\x00\xff"]
    assert gpt2_texts(tokens) == [gpt2_text(t) for t in tokens]
    assert gpt2_texts([]) == []
    strings = [v for v in VALUES if isinstance(v, str)]
    for values in (strings, gpt2_texts(tokens), ["\u0120a", "b\"", "c\\\\"], [], ["<|eot|>"]):
        assert json_strs(values) == [json_str(v) for v in values]
