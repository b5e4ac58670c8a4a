"""JSON as the format modules write and read it: invisible characters escaped, one entry
per line, and the checks of a file's keys that name the key and the fix."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any, Sequence

from ..errors import FormatError

if TYPE_CHECKING:
    import regex


# Characters that would be invisible or confusing raw in a JSON file (control, format and
# private-use characters, line/paragraph separators, spaces other than U+0020).
@lru_cache(maxsize=1)
def _invisible() -> "regex.Pattern[str]":
    import regex
    return regex.compile(r"(?! )[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]")


# Below U+0370 (Latin, IPA, modifiers, combining marks: GPT-2's byte alphabet) every
# Unicode version since 4.1 gives the same categories, so there str.isprintable() (false
# exactly for the categories above, space aside) answers as the regex does.
# json.dumps(v, ensure_ascii=False) builds an encoder per call; exports call it tens of
# thousands of times, so one is kept (the same settings, the same text)
_ONE_LINE = json.JSONEncoder(ensure_ascii=False)
_STABLE = re.compile("[\u0000-\u036f]*")


def _stable_and_visible(text: str) -> bool:
    """No character of ``text`` is one escape_invisible escapes, known without `regex`."""
    return text.isascii() or (text.isprintable() and _STABLE.fullmatch(text) is not None)


def _escape(m: "regex.Match[str]") -> str:
    c = ord(m.group())
    if c < 0x10000:
        return f"\\u{c:04x}"
    c -= 0x10000  # JSON spells characters beyond the BMP as a surrogate pair
    return f"\\u{0xD800 + (c >> 10):04x}\\u{0xDC00 + (c & 0x3FF):04x}"


def escape_invisible(json_text: str) -> str:
    """JSON text with invisible characters (only ever inside strings) as \\uXXXX escapes."""
    if _stable_and_visible(json_text):
        return json_text
    return _invisible().sub(_escape, json_text)


def json_str(value: Any) -> str:
    """``json.dumps`` on one line with readable Unicode, invisible characters escaped.

    Example: json_str("a\u00a0b") -> '"a\\u00a0b"' (a no-break space shows as an escape).
    """
    # the strings and string pairs of vocabularies and merges, spelled as json.dumps
    # spells them, without its per-call set-up (exports write tens of thousands)
    if type(value) is str:
        return escape_invisible(encode_basestring(value))
    if type(value) in (list, tuple) and len(value) == 2 and type(value[0]) is str \
            and type(value[1]) is str:
        return escape_invisible(f"[{encode_basestring(value[0])}, {encode_basestring(value[1])}]")
    return escape_invisible(_ONE_LINE.encode(value))


def json_strs(values: Sequence[str]) -> list[str]:
    """[json_str(v) for v in values] for strings, in bulk: when no string holds a
    character escape_invisible would escape, each is json.dumps's spelling as it is."""
    if _stable_and_visible("".join(values)):
        return list(map(encode_basestring, values))
    return [json_str(v) for v in values]


def json_bytes(obj: Any, indent: int | None = 2) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, indent=indent) + "\n").encode("utf-8")


def json_object_lines(pairs: list[tuple[str, int]]) -> bytes:
    """A JSON object with one ``"key": value`` per line (readable, diff-friendly)."""
    if not pairs:
        return b"{\n\n}\n"
    keys = json_strs([k for k, _ in pairs])
    body = "  " + ",\n  ".join(map(": ".join, zip(keys, [str(v) for _, v in pairs])))
    return ("{\n" + body + "\n}\n").encode("utf-8")


def model_kind(node: dict) -> str | None:
    """The model's type; without "type", guessed from its fields as tokenizers does
    (it tries each model in turn)."""
    kind = node.get("type")
    if kind is not None or "merges" in node:
        return kind if kind is not None else "BPE"
    if isinstance(node.get("vocab"), list):
        return "Unigram"   # [[piece, score], ...]
    if "max_input_chars_per_word" in node or "continuing_subword_prefix" in node:
        return "WordPiece"
    return "WordLevel" if isinstance(node.get("vocab"), dict) else None


def not_bpe(kind: Any) -> str:
    what = f"a {kind} model" if isinstance(kind, str) and kind else "not a BPE model"
    return (f"is {what}; only BPE tokenizers can be loaded (this app shows how BPE "
            "works: WordPiece, Unigram and WordLevel tokenizers cut text another way).")


def need(obj: dict, key: str, kind: type | tuple, path, what: str, where: str = ""):
    """``obj[key]`` if it has the right type, else a FormatError naming the key."""
    full = f"{where}.{key}" if where else key
    if key not in obj:
        raise FormatError(path, f"has no {full!r} ({what}).", key=full)
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise FormatError(path, f"{full!r} should be {what}, not {type(value).__name__}.",
                          key=full)
    return value


