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
