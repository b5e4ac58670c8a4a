"""The names of a published pattern's rules say what the rule takes (found driving the
window: a tekken tokenizer's letters rule read "anything but letters, digits").

Oracle: each rule runs alone over a text of many scripts and kinds of characters, and
every word it takes is checked against its name with ``unicodedata`` categories (a
"letters" rule takes letters after at most one leading character, a "digits" rule
digits, "anything but X" nothing of X...). The patterns are the published ones: the
presets (GPT-2, cl100k, o200k, Llama 3, Qwen2), tiktoken's r50k, tekken's from the
tekken.json files mistral-common ships, CLIP's, and every llama.cpp ``.pre`` type's.
"""
from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
import regex

from bpe_gui.engine.formats.known_encodings import R50K_PATTERN
from bpe_gui.engine.text import presets
from bpe_gui.engine.text.branches import pattern_branches
from bpe_gui.engine.tokenizers.imported import clip, llama_cpp

PROBE = ("Hello World it's CamelCase ALLCAPS DON'T we'll I'm x2 12345 3.14 ١٢٣٤ ½ "
         "你好世界，这是测试。 日本語のテキストとカタカナ、ひらがな 한국어 ㄅㄆ Привет, мир! "
         "مرحبا بالعالم، café naïve é ñ ǅ (x) [y] {z} <a> !!! ... -- // "
         "emoji 🙂👍🏽 #tag @user $5 a+b=c\n\n  \t\tx\r\n   y  \n \u3000z\u00a0w")


def _tekken_patterns() -> dict[str, str]:
    mc = pytest.importorskip("mistral_common")
    files = sorted((Path(mc.__file__).parent / "data").glob("tekken*.json"))
    if not files:
        pytest.skip("mistral-common ships no tekken.json")
    return {f"tekken {f.stem}": json.loads(f.read_text("utf-8"))["config"]["pattern"]
            for f in files}


def published() -> dict[str, str]:
    out = {"gpt2": presets.GPT2_PATTERN, "cl100k": presets.CL100K_PATTERN,
           "o200k": presets.O200K_PATTERN, "llama3": presets.LLAMA3_PATTERN,
           "qwen2": presets.QWEN2_PATTERN, "r50k": R50K_PATTERN, "clip": clip.PATTERN}
    for name, parts in llama_cpp.TYPES.items():
        for k, p in enumerate(parts):
            out[f"llama.cpp {name} [{k}]"] = p
    return out


def _is(c: str, kind: str) -> bool:
    cat = unicodedata.category(c)
    return {"letter": cat[0] in "LM", "digit": cat[0] == "N", "space": c.isspace(),
            "punct": cat[0] in "PS"}[kind]


def _core(word: str) -> str:
    """The word without an optional first character that is not what the rule is about."""
    return word[1:] if len(word) > 1 and not (_is(word[0], "letter") or _is(word[0], "digit")) \
        else word


def check(name: str, word: str) -> bool:
    """Does ``word`` fit a rule called ``name``?"""
    core = _core(word)
    if name == "contraction":
        return word[0] in "'’" and len(word) <= 3
    if name.startswith("anything but"):
        kinds = {"letters": "letter", "digits": "digit", "whitespace": "space",
                 "punctuation": "punct"}
        banned = [kinds[w] for w in name[len("anything but "):].split(", ") if w in kinds]
        return not any(_is(c, k) for c in core for k in banned)
    listed = [k for w, k in (("letters", "letter"), ("characters", "letter"),
                             ("punctuation", "punct"), ("digits", "digit"),
                             ("whitespace", "space"), ("spaces", "space")) if w in name]
    if " and " in name:   # a rule of several kinds: each character is one of them
        return all(any(_is(c, k) for k in listed) for c in core)
    if any(w in name for w in ("whitespace", "spaces", "line break")):
        return all(c.isspace() for c in word)
    if "digit" in name:
        return all(_is(c, "digit") for c in core)
    if "punctuation" in name and "letters" not in name:
        return not any(_is(c, "letter") or _is(c, "digit") for c in core.rstrip("\r\n/"))
    if any(w in name for w in ("letters", "capitals", "lower case", "characters")):
        body = core.split("'")[0] if "'" in core else core   # o200k: a contraction attached
        return all(_is(c, "letter") or ("punctuation" in name and _is(c, "punct"))
                   for c in body)
    return name.startswith("“") or name == "custom"


PATTERNS = published()


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_published_rule_names_say_what_the_rule_takes(name):
    _check_pattern(PATTERNS[name])


def test_tekken_rule_names_say_what_the_rule_takes():
    for name, pattern in _tekken_patterns().items():
        names = _check_pattern(pattern)
        assert names[:3] == ["word ending in lower case", "capitals", "one digit"], name


def _check_pattern(pattern: str) -> list[str]:
    names = []
    for b in pattern_branches(pattern):
        rx = regex.compile(b.source)
        words = [m.group(0) for m in rx.finditer(PROBE) if m.group(0)]
        bad = [w for w in words if not check(b.name, w)]
        assert not bad, f"rule {b.index + 1} “{b.source}” is called {b.name!r} but takes {bad[:5]}"
        assert b.name != "custom" or len(b.source) > 30, b.source
        names.append(b.name)
    return names
