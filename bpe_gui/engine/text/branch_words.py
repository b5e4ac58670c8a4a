"""Plain words for pattern branches: a name and an explanation per preset alternative,
a rough description of a custom one, and why a word ended where it did.

Example::

    >>> describe_branch(PRESETS["gpt2"], "gpt2", 1, r" ?\\p{L}+")[0]
    'letters'
    >>> char_name("'")
    'the apostrophe'
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

import regex

from .presets import PRESETS

# (source, name, what it takes, what stops it when it matches twice in a row)
_CONTRACTION = ("contraction", "an apostrophe and s, d, m, t, ll, ve or re: the ends of "
                "it's, I'm, we'll, you've, they're", "a contraction is only the apostrophe "
                "and its ending")
_WS_BEFORE = ("spaces before a word", "a run of whitespace that leaves out its last "
              "character when a word follows, so that space can lead the word (two spaces "
              "then “x” give “·” and “·x”)", "")
_WS_REST = ("other whitespace", "whatever whitespace the rules before left over, e.g. "
            "a line break or tab right before a word (only a plain space joins a word)", "")
_DIGITS3 = ("digits, up to 3", "one to three digits, with no space before them: longer "
            "numbers are cut into groups of three from the left", "at most three digits "
            "per word")
_PREFIX_LETTERS = ("letters", "one optional character that is not a letter, digit or line "
                   "break (a space, or punctuation such as “(”), then a run of letters", "")
_PUNCT_CRLF = ("punctuation", "an optional space, a run of punctuation or symbols, and the "
               "line breaks right after it", "")
_LINE_BREAK = ("line break", "whitespace up to and including a line break", "")
_CASE = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
PRESET_WORDS: dict[str, list[tuple[str, str, str, str]]] = {
    "gpt2": [
        (r"'(?:[sdmt]|ll|ve|re)", *_CONTRACTION),
        (r" ?\p{L}+", "letters", "an optional space, then a run of letters of any script", ""),
        (r" ?\p{N}+", "digits", "an optional space, then a run of digits", ""),
        (r" ?[^\s\p{L}\p{N}]+", "punctuation", "an optional space, then a run of anything "
         "that is not whitespace, a letter or a digit: punctuation, symbols, emoji", ""),
        (r"\s+(?!\S)", *_WS_BEFORE),
        (r"\s+", *_WS_REST),
    ],
    "cl100k": [
        (r"'(?i:[sdmt]|ll|ve|re)", _CONTRACTION[0], _CONTRACTION[1] + ", in any case",
         _CONTRACTION[2]),
        (r"[^\r\n\p{L}\p{N}]?+\p{L}++", *_PREFIX_LETTERS),
        (r"\p{N}{1,3}+", *_DIGITS3),
        (r" ?[^\s\p{L}\p{N}]++[\r\n]*+", *_PUNCT_CRLF),
        (r"\s++$", "whitespace at the end", "a run of whitespace that reaches the end of "
         "the text, whole (line breaks and spaces together)", ""),
        (r"\s*[\r\n]", *_LINE_BREAK),
        (r"\s+(?!\S)", *_WS_BEFORE),
        (r"\s", *_WS_REST),
    ],
    "o200k": [
        (r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+" + _CASE,
         "word ending in lower case", "an optional leading space or symbol, any capitals, "
         "then lower-case letters, with an English contraction attached: a capital after "
         "lower-case letters starts a new word (“CamelCase” → “Camel” “Case”)", ""),
        (r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*" + _CASE,
         "capitals", "an optional leading space or symbol, capital letters, then any "
         "lower-case ones: ALL-CAPS words, which the first rule cannot take", ""),
        (r"\p{N}{1,3}", *_DIGITS3),
        (r" ?[^\s\p{L}\p{N}]+[\r\n/]*", "punctuation", "an optional space, a run of "
         "punctuation or symbols, then any line breaks or slashes", ""),
        (r"\s*[\r\n]+", "line breaks", "whitespace ending in one or more line breaks", ""),
        (r"\s+(?!\S)", *_WS_BEFORE),
        (r"\s+", *_WS_REST),
    ],
    "whitespace": [
        (r"\S+", "non-space run", "everything up to the next whitespace: a word with its "
         "punctuation", ""),
        (r"\s+", "whitespace", "a run of whitespace: spaces, tabs, line breaks", ""),
    ],
    "cjk": [
        (r"'(?:[sdmt]|ll|ve|re)", *_CONTRACTION),
        (r" ?\p{Han}", "one Han character", "an optional space, then exactly one Han "
         "(Chinese) character: each is a word of its own", "one Han character per word"),
        (r" ?[^\P{L}\p{Han}]+", "other letters", "an optional space, then a run of letters "
         "that are not Han (Latin, Cyrillic, kana ...)", ""),
        (r" ?\p{N}+", "digits", "an optional space, then a run of digits", ""),
        (r" ?[^\s\p{L}\p{N}]+", "punctuation", "an optional space, then a run of anything "
         "that is not whitespace, a letter or a digit: punctuation, symbols, emoji", ""),
        (r"\s+(?!\S)", *_WS_BEFORE),
        (r"\s+", *_WS_REST),
    ],
}
# Other published spellings (minbpe's GPT-4, Llama 3, Qwen2) of the same alternatives
_SPELLINGS = [
    (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)", _CONTRACTION[0], _CONTRACTION[1] + ", in any case",
     _CONTRACTION[2]),
    (r"[^\r\n\p{L}\p{N}]?+\p{L}+", *_PREFIX_LETTERS),
    (r"[^\r\n\p{L}\p{N}]?\p{L}+", *_PREFIX_LETTERS),
    (r"\p{N}{1,3}", *_DIGITS3),
    (r"\p{N}", "one digit", "a single digit: every digit is a word of its own", ""),
    (r" ?[^\s\p{L}\p{N}]++[\r\n]*", *_PUNCT_CRLF),
    (r" ?[^\s\p{L}\p{N}]+[\r\n]*", *_PUNCT_CRLF),
    (r"\s*[\r\n]+", "line breaks", "whitespace ending in one or more line breaks", ""),
]
# SuperBPE's stage 2 (superbpe.py): the reference's split regex, its matches and the
# text between them (ENCODE_PATTERN; TRAIN_PATTERN is the same within a line)
_SB_PUNCT = ("punctuation run", "an optional space, two or more punctuation marks or "
             "symbols, and the line breaks or slashes right after them", "")
_SB_TEXT = ("words and spaces", "everything up to the next digit, run of two punctuation "
            "marks, or spaces before whitespace: words with their single spaces and "
            "punctuation marks, so one piece holds many words (SuperBPE's stage 2)",
            "it stops before a digit, a run of punctuation or spaces before whitespace")
_SUPERBPE = [
    (r" ?[^\s\p{L}\p{N}]{2,}[\r\n/]*", *_SB_PUNCT),
    (r" ?[^\s\p{L}\p{N}]{2,}[\r/]*\n?", *_SB_PUNCT),
    (r" +(?!\S)", "spaces before whitespace", "spaces followed by other whitespace (or the "
     "end of the text): they do not join the next word", ""),
    (r"(?:(?!\p{N}| ?[^\s\p{L}\p{N}]{2}| +(?!\S))[\s\S])+", *_SB_TEXT),
    (r"(?:(?!\p{N}| ?[^\s\p{L}\p{N}]{2}| +(?!\S))[^\n])+\n?", _SB_TEXT[0],
     _SB_TEXT[1] + ", within one line (training reads line by line)", _SB_TEXT[2]),
]
# EXAONE's (llama.cpp exaone-moe): words with the single spaces between them
_SPELLINGS.append((r"[^\r\n\p{L}\p{N}]?(?:\p{L}\p{M}*(?: \p{L}\p{M}*)*)+",
                   "letters and single spaces", "one optional character that is not a "
                   "letter, digit or line break, then letters and the single spaces between "
                   "them: several words in one piece", ""))
# tekken.json (Mistral) and llama.cpp's spellings of o200k's two letter rules: o200k's
# without the contraction, and llama.cpp's (?=[\p{L}])([^a-z]) for "a letter, not a-z"
_O200K_LOWER, _O200K_UPPER = PRESET_WORDS["o200k"][0][1:], PRESET_WORDS["o200k"][1][1:]
_UL, _LL = r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"
_LC = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
_PRE = r"[^\r\n\p{L}\p{N}]?"
for _m in ("", r"\p{M}"):
    _up, _lo = rf"((?=[\p{{L}}{_m}])([^a-z]))", rf"((?=[\p{{L}}{_m}])([^A-Z]))"
    for _c in ("", _LC + "?"):
        _SPELLINGS += [(_PRE + _up + "*" + _lo + "+" + _c, *_O200K_LOWER),
                       (_PRE + _up + "+" + _lo + "*" + _c, *_O200K_UPPER)]
for _c in ("", _LC + "?"):
    _SPELLINGS += [(_PRE + _UL + "*" + _LL + "+" + _c, *_O200K_LOWER),
                   (_PRE + _UL + "+" + _LL + "*" + _c, *_O200K_UPPER)]
# Any preset alternative, by its text: a custom pattern built from them reads the same.
_KNOWN: dict[str, tuple[str, str, str]] = {}
for _rows in [*PRESET_WORDS.values(), _SPELLINGS, _SUPERBPE]:
    for _src, *_words in _rows:
        _KNOWN.setdefault(_src, tuple(_words))  # type: ignore[arg-type]

_ATOMS = [(r"\p{Han}", "Han characters"), (r"\p{Lu}", "capitals"),
          (r"\p{Ll}", "lower-case letters"), (r"\p{Lt}", "capitals"), (r"\p{Lm}", "letters"),
          (r"\p{Lo}", "letters"), (r"\p{L}", "letters"), ("A-Z", "letters"),
          ("a-z", "letters"), (r"\p{M}", "marks"), (r"\p{N}", "digits"), ("0-9", "digits"),
          (r"\d", "digits"), (r"\p{P}", "punctuation"), (r"\p{S}", "symbols"),
          (r"\w", "word characters"), (r"\S", "non-whitespace"), (r"\r", "line breaks"),
          (r"\n", "line breaks"), (r"\s", "whitespace"), ("(?!", "a look-ahead"),
          ("(?=", "a look-ahead"), ("(?<", "a look-behind")]
_WHITE = {"whitespace", "line breaks"}
_ONE = {"digits": "one digit", "letters": "one letter", "whitespace": "one whitespace character",
        "line breaks": "line break", "Han characters": "one Han character",
        "punctuation": "one punctuation mark"}
# an optional first character before what the rule takes: " ?", "\s?", "[^\r\n\p{L}\p{N}]?"
_OPTIONAL = regex.compile(r"^(?: |\\s|\[\^?(?:\\.|[^\]\\])*\])\?\+?")
_LOOKS = regex.compile(r"\(\?<?[=!](?:\\.|\[(?:\\.|[^\]\\])*\]|[^()\\])*\)")
_CONTRACTIONS = regex.compile(r"^(?:\(\?[:i]+)?'")


def describe_branch(pattern: str, preset: str | None, index: int,
                    source: str) -> tuple[str, str]:
    """(name, plain words) of alternative ``index`` of a pattern."""
    if preset is None:   # a custom pattern that is a preset's text reads as the preset
        preset = next((k for k, v in PRESETS.items() if v == pattern), None)
    rows = PRESET_WORDS.get(preset or "", [])
    if index < len(rows) and rows[index][0] == source:
        return rows[index][1], rows[index][2]
    if source in _KNOWN:
        return _KNOWN[source][0], _KNOWN[source][1]
    return _rough(source)


def _mentions(text: str) -> list[str]:
    seen: list[str] = []
    for atom, words in _ATOMS:
        if atom in text:
            text = text.replace(atom, "")
            if words not in seen:
                seen.append(words)
    return seen


def _rough(source: str) -> tuple[str, str]:
    """A custom alternative in rough words: what it takes and what it excludes. An
    optional first character (" ?", "[^\\r\\n\\p{L}\\p{N}]?") and look-arounds do not
    name it; a class of everything but letters and digits is punctuation.
    Example: '[^\\w\\s]+' -> ('anything but word characters, whitespace', 'your rule
    “[^\\w\\s]+”: anything but word characters, whitespace')."""
    about = f"your rule “{source}”"
    if _CONTRACTIONS.match(source) and len(source) < 80:
        return (_CONTRACTION[0], f"{about}: an apostrophe and the end of an English "
                "contraction (it's, I'm, we'll...)")
    body, lead = source, ""
    opt = _OPTIONAL.match(body)
    if opt and opt.end() < len(body):
        first = opt.group(0)
        lead = "an optional space" if first.startswith(" ") else \
            "an optional whitespace character" if first.startswith("\\s") else \
            "an optional first character"
        body = body[opt.end():]
    before_word = "(?!\\S)" in body
    plain_body = _LOOKS.sub("", body)
    negated = _NEGATED.findall(plain_body)
    takes = [w for w in _mentions(_NEGATED.sub("", plain_body)) if w not in _NOT_NAMES]
    buts = [_mentions(n) for n in negated]
    parts = ([lead] if lead else []) + ([", ".join(takes)] if takes else [])
    for but in buts:
        if but:
            parts.append("anything but " + ", ".join(but))
    name: str | None = None
    if takes and set(takes) <= _WHITE and not negated:
        name = ("spaces before a word" if before_word else
                "whitespace at the end" if plain_body.endswith("$") else
                "line breaks" if "line breaks" in takes else "whitespace")
    elif takes and not (negated and plain_body.startswith("[^")):
        name = takes[0]
    elif buts and buts[0]:
        but = buts[0]
        name = "punctuation" if ("letters" in but and "digits" in but) or \
            "word characters" in but else \
            "anything but " + ", ".join(but)
    if regex.search(r"[A-Za-z]{3}", _NEGATED.sub("", regex.sub(
            r"\[(?:\\.|[^\]\\])*\]|\\[pP]\{\w+\}|\\.", "", plain_body))):
        name = f"“{source}”" if len(source) <= 24 else None   # literal text: a tag, a marker
    if name is None and _CLASS.fullmatch(plain_body) and not plain_body.startswith("[^"):
        name = _class_name(plain_body[:plain_body.rindex("]") + 1])
        if name:
            parts.append(name)
    repeated = _REPEATED.fullmatch(plain_body)
    if name is None:
        name = f"“{source}”" if len(source) <= 16 else "custom"
    elif repeated and name in _ONE:
        name = f"{len(plain_body) // len(repeated.group(1))} {name}"
    elif name in _ONE and not regex.search(r"[+*]|\{\d*,", plain_body) and \
            name != "spaces before a word":
        name = _ONE[name]
    else:
        limit = regex.search(r"\{(?:0|1)?,(\d+)\}", plain_body)
        if limit:
            name = f"{name}, up to {limit.group(1)}"
    return name, about + (f": {'; '.join(p for p in parts if p)}" if parts else "")


_CLASS = regex.compile(r"\[(?:\\.|[^\]\\])*\][+*]?\+?")
_REPEATED = regex.compile(r"(\[(?:\\.|[^\]\\])*\]|\\p\{\w+\})\1+")
_SCRIPTS = (("CJK UNIFIED", "Han"), ("HIRAGANA", "kana"), ("KATAKANA", "kana"),
            ("HANGUL", "Hangul"), ("BOPOMOFO", "Bopomofo"))


@lru_cache(maxsize=64)
def _class_name(cls: str) -> str | None:
    """Rough words for a character class spelled as ranges ('[一-龥぀-ゟ]' -> 'Han, kana
    characters'), from the characters of the Basic Multilingual Plane it takes."""
    try:
        rx = regex.compile(cls)
    except regex.error:
        return None
    scripts: list[str] = []
    kinds = {"L": 0, "N": 0, "P": 0, "Z": 0}
    for cp in range(0x10000):
        c = chr(cp)
        if not rx.match(c):
            continue
        cat = unicodedata.category(c)[0]
        kinds["P" if cat == "S" else cat] = kinds.get("P" if cat == "S" else cat, 0) + 1
        if cat == "L":
            name = unicodedata.name(c, "")
            script = next((sc for prefix, sc in _SCRIPTS if name.startswith(prefix)), "")
            if script not in scripts:
                scripts.append(script)
    words = {"L": f"{', '.join(scripts)} characters" if "" not in scripts else "letters",
             "N": "digits", "P": "punctuation", "Z": "whitespace"}
    got = [words[k] for k, n in sorted(kinds.items(), key=lambda kv: -kv[1])
           if k in words and n]
    if len(got) > 1:
        return ", ".join(got[:-1]) + " and " + got[-1]
    return got[0] if got else None


_NEGATED = regex.compile(r"\[\^((?:\\.|[^\]\\])*)\]")
_NOT_NAMES = ("an optional space", "a look-ahead", "a look-behind")


def limit_of(source: str) -> str:
    """Why a rule stops even though the next word is the same rule ('' if unknown)."""
    known = _KNOWN.get(source)
    return known[2] if known else ""


def char_name(c: str) -> str:
    """A character in words. Example: '\\n' -> 'a line break', '你' -> 'the Han character “你”'."""
    named = {" ": "a space", "\n": "a line break", "\t": "a tab", "\r": "a carriage return",
             "'": "the apostrophe", "’": "the apostrophe ’", "\u3000": "an ideographic space"}
    if c in named:
        return named[c]
    if c.isspace():
        return f"whitespace (U+{ord(c):04X})"
    cat = unicodedata.category(c)
    try:
        han = unicodedata.name(c).startswith("CJK UNIFIED IDEOGRAPH")
    except ValueError:
        han = False
    if han:
        return f"the Han character “{c}”"
    # by the category (Lu, Lt), else by its first letter
    kinds = {"Lu": "the capital “{c}”", "Lt": "the capital “{c}”", "L": "the letter “{c}”",
             "N": "the digit “{c}”", "M": "a combining mark (U+{u})",
             "P": "the punctuation “{c}”", "C": "the control character U+{u}"}
    form = kinds.get(cat) or kinds.get(cat[0], "the symbol “{c}”")
    return form.format(c=c, u=f"{ord(c):04X}")
