"""Patterns as their own libraries read them (text/dialects.py): each translation is
checked against the library itself (tokenizers' Oniguruma, tiktoken's fancy-regex) on
texts that tell the readings apart."""
from __future__ import annotations

import random

import pytest
import regex

from bpe_gui.engine.text import dialects, unicode_versions as uv
from bpe_gui.engine.text.dialects import DialectError, matches_empty, pinned, translate
from bpe_gui.engine.tokenizers.imported.hf_parts import find_matches
from bpe_gui.engine.text.pattern_kinds import scanner_kind
from bpe_gui.engine.text.presets import (CJK_PATTERN, CL100K_PATTERN, GPT2_PATTERN,
                                         KIND_PATTERNS, LLAMA3_PATTERN, MINBPE_GPT4_PATTERN,
                                         O200K_PATTERN, QWEN2_PATTERN, WHITESPACE_PATTERN)

tokenizers = pytest.importorskip("tokenizers")
tiktoken = pytest.importorskip("tiktoken")

PRESETS = [GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN, LLAMA3_PATTERN, QWEN2_PATTERN,
           MINBPE_GPT4_PATTERN, CJK_PATTERN, WHITESPACE_PATTERN]
PIECES = ["hello", " world", "'s", "'LL", "'ſ", "'S", " ", "  ", "\n", "\n\n", " \n", "\r\n",
          "\t", "123", "12345", "0000", "\u0663\u0664", " 42", "!", "...", " !!", "/", "ß",
          "ss", "SS", "CamelCase", "HTTPServer", "中文", "é", "\u0301", "ǅ", "x", "  \n  ",
          "\u00a0", "\u2028", "af0", "_", "²", "\u200d", "ab\ncd\n", "aB", "C", "c"]


def texts(n: int = 400, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    out = ["", "0000", "x = 1000000", "a  \nb  \n", "a\nb", "ab\ncd\n", "hello world\n"]
    return out + ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 10)))
                  for _ in range(n)]


def pieces(compiled, text: str) -> list[str]:
    """The text cut at the matches, the text between them kept (HF's Isolated)."""
    out, prev = [], 0
    for m in compiled.finditer(text):
        if m.start() > prev:
            out.append(text[prev:m.start()])
        if m.end() > m.start():
            out.append(m.group())
        prev = max(prev, m.end())
    if prev < len(text):
        out.append(text[prev:])
    return out


def onig_pieces(compiled, text: str) -> list[str]:
    """The text cut as tokenizers' Split cuts it with our translation: the app's own
    find_matches (Oniguruma's iteration of matches)."""
    return [text[s:e] for s, e, _ in find_matches(compiled, text) if e > s]


def hf_pieces(pattern: str, text: str) -> list[str]:
    split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), "isolated")
    return [w for w, _ in split.pre_tokenize_str(text)]


def tiktoken_matches(pattern: str, text: str) -> list[str]:
    """The matches fancy-regex finds: every substring a token, so each match is one."""
    ranks = {bytes([b]): b for b in range(256)}
    for i in range(len(text)):
        for j in range(i + 1, len(text) + 1):
            ranks.setdefault(text[i:j].encode(), len(ranks))
    enc = tiktoken.Encoding("probe", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    return [enc.decode_single_token_bytes(t).decode() for t in enc.encode_ordinary(text)]


# Oniguruma's reading of constructs the regex module reads otherwise (docs/FORMATS.md)
ONIGURUMA = [
    r"\p{N}{1,3}+", r"a{2}?b", r"a{,2}+", r"\d{2,}+x", r"a{1,2}{2}", r"a**",
    r"\s+$", r"^a", r"a$", r"\w+$", r"\w+\Z", r"\w+\z", r"(?m).+", r".+",
    r"\h+", r"\H+", r"a(?i)b|c", r"x(?i)y(z)|w", r"(?i:'s|'t|'re|'ve|'m|'ll|'d)",
    r"(?i)[a-z]+", r"[a-z&&[^aeiou]]+", r"[a[bc]]+", r"[[:alpha:]]+", r"[[:digit:]]+",
    r"[[:punct:]]+", r"[[:space:]]+", r"[[:word:]]+", r"[[:^alpha:]]+", r"\p{^L}+",
    r"\P{L}+", r"\x{61}+", r"\u0061+", r"\141", r"\o{141}", r"\cA", r"\e", r"\w+",
    r"[\w]+", r"\W+", r"\bab\b", r"\d+", r"[^\S\n]+", r"\N+", r"\O", r"\R",
    r"(?<n>a)\k<n>", r"(a)\1", r"\p{Letter}+", r"\p{ L }+", r"\p{Han}+",
    r"\p{N}{1,3}?+", r"(?-i:a)|(?i)b", r"\A\s+", r"(?>a+)a", r"[]a]+", r"[^]a]+",
    r"(?x) a b # c", r"a|", r"", r"[\p{L}&&\p{Lu}]+",
] + PRESETS


@pytest.mark.parametrize("pattern", ONIGURUMA)
def test_oniguruma_patterns_mean_what_tokenizers_makes_of_them(pattern):
    ours = regex.compile(translate(pattern, "oniguruma", "regex"))
    for t in texts():
        assert onig_pieces(ours, t) == hf_pieces(pattern, t), (pattern, t)


FANCY = [
    r"\s+$", r"a$", r"\w+\Z", r"\w+\z", r"^a", r"(?m)^a", r"(?s).+", r".+", r"\h+",
    r"x(?i)y(z)|w", r"a(?i)b|c", r"[a-z&&[^aeiou]]+", r"[a[bc]]+", r"[[:alpha:]]+",
    r"[[:space:]]+", r"[[:punct:]]+", r"\x{61}+", r"\u0061+", r"\w+", r"\bab\b",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)", r"\p{N}{1,3}+", r"\p{L}++", r"(?<n>a)\k<n>",
    r"[\p{L}--\p{Lu}]+", r"\d{2}(?!\d)", r"\b+\w", r"^+a|\A*\w|\s", r"(?i)[[^b]]+",
] + PRESETS


@pytest.mark.parametrize("pattern", FANCY)
def test_fancy_regex_patterns_mean_what_tiktoken_makes_of_them(pattern):
    ours = regex.compile(translate(pattern, "fancy", "regex"))
    for t in texts(150):
        got = [m.group() for m in ours.finditer(t) if m.group()]
        assert got == tiktoken_matches(pattern, t), (pattern, t)


CUSTOM = [r"\s+$", r"^\w+", r"\p{N}{1,3}+|\S", r"\w+(?=\s)|\s+|\W", r"(?i:ab)+|.",
          r"[^\s\p{L}\p{N}]{2,}+|.", r"\d{3}?|\D", r"(?s).|\n", r"\b\w", r"a\Z|.",
          r"[[:alpha:]]+|.", r"\w+|\W+"]


@pytest.mark.parametrize("pattern", PRESETS + CUSTOM)
def test_exports_mean_ours_in_oniguruma_and_fancy_regex(pattern):
    ours = regex.compile(pattern)
    onig = translate(pattern, "regex", "oniguruma")
    fancy = translate(pattern, "regex", "fancy")
    for t in texts(200, seed=1):
        assert hf_pieces(onig, t) == pieces(ours, t), (pattern, onig, t)
        assert tiktoken_matches(fancy, t) == [m.group() for m in ours.finditer(t)
                                              if m.group()], (pattern, fancy, t)


def test_cl100k_in_a_tokenizer_json():
    """tiktoken's \\p{N}{1,3}+ written for Oniguruma: three digits at a time, not the
    whole run; read back, it is the preset again."""
    onig = translate(CL100K_PATTERN, "regex", "oniguruma")
    assert r"\p{N}{1,3}+" not in onig and r"\p{N}{1,3}" in onig
    assert hf_pieces(onig, "0000 1000000") == ["000", "0", " ", "100", "000", "0"]
    assert hf_pieces(CL100K_PATTERN, "0000") == ["0000"]   # what the raw text did
    assert translate(onig, "oniguruma", "regex") == CL100K_PATTERN


@pytest.mark.parametrize("pattern", list(KIND_PATTERNS.values()) + PRESETS)
def test_published_patterns_keep_their_spelling(pattern):
    """A pattern that means the same in both dialects comes back unchanged, so the
    native scanner still recognises it."""
    for source, target in [("oniguruma", "regex"), ("fancy", "regex"), ("regex", "fancy")]:
        if pattern is CL100K_PATTERN and source == "oniguruma":
            continue   # \p{N}{1,3}+ repeats there
        assert translate(pattern, source, target) == pattern
    assert scanner_kind(translate(translate(pattern, "regex", "oniguruma"), "oniguruma",
                                  "regex")) == scanner_kind(pattern)


@pytest.mark.parametrize("pattern, dialect, words", [
    (r"\g<1>(a)", "oniguruma", r"\g"),
    (r"(?~abc)", "oniguruma", "this kind of group"),
    (r"a\Kb", "oniguruma", r"\K"),
    (r"\X", "oniguruma", r"\X"),
    (r"(?i:ss)", "oniguruma", "'ss'"),
    (r"(?i)ß", "oniguruma", "'ß'"),
    (r"[[:lower:]]", "oniguruma", "[:lower:]"),
    (r"\p{L&}", "oniguruma", "L&"),
    (r"\pL", "oniguruma", "without braces"),
    (r"(?(1)a|b)", "oniguruma", "this kind of group"),
    (r"\p{NoSuchThing}", "fancy", "NoSuchThing"),
    (r"(unclosed", "oniguruma", "unclosed"),
])
def test_what_cannot_be_carried_over_is_named(pattern, dialect, words):
    with pytest.raises(DialectError) as e:
        translate(pattern, dialect, "regex")
    assert words in str(e.value)


def test_malformed_patterns_say_so():
    with pytest.raises(DialectError) as e:
        translate("(a", "oniguruma", "regex")
    assert e.value.malformed
    with pytest.raises(DialectError) as e:
        translate(r"\g<1>(a)", "oniguruma", "regex")
    assert not e.value.malformed


# ----- classes pinned to a Unicode version ---------------------------------------------------
def version_texts(a: str, b: str, n: int = 300) -> list[str]:
    """Texts of code points whose class differs between two Unicode versions."""
    ca, cb = uv.categories(a), uv.categories(b)
    diff = [c for c in range(0x110000) if ca[c] != cb[c] and not 0xD800 <= c < 0xE000]
    rng = random.Random(7)
    chars = [chr(c) for c in rng.sample(diff, min(300, len(diff)))]
    common = ["a", " ", "1", "!", "\n", "'s", "  ", "é", "中"]
    return ["\u058c\ub071", "  \U00010ee6", "\U00011de0\U00011de1"] + [
        "".join(rng.choice(chars + common) for _ in range(rng.randint(1, 8))) for _ in range(n)]


@pytest.mark.parametrize("pattern", PRESETS + [r"\s?\p{L}+", r"\s?\p{P}+", r"\p{N}",
                                              r"[\p{L}\p{M}]+|\w+|.", r"\P{L}+|.",
                                              r"(?i:\p{Lu}+)|."])
def test_pinned_classes_are_tokenizers_own(pattern):
    """Classes pinned to tokenizers' Unicode version cut as tokenizers does on the code
    points whose class differs between its version and the installed regex's."""
    ours = pinned(pattern, uv.TOKENIZERS)
    onig = translate(pattern, "regex", "oniguruma")
    for t in version_texts(uv.TOKENIZERS.version, "17.0.0"):
        assert onig_pieces(ours, t) == hf_pieces(onig, t), (pattern, t)


def test_pinned_is_plain_where_nothing_differs():
    assert pinned(r"[a-z]+", uv.TOKENIZERS).pattern == r"[a-z]+"
    assert isinstance(pinned(r"[a-z]+", uv.TOKENIZERS), regex.Pattern)
    assert pinned(r"\p{L}", None) is not None
    if uv.regex_version() == "17.0.0":
        text = dialects.pinned_text(r"\p{L}+", uv.TOKENIZERS)
        assert text.startswith("(?V1)") and "--" in text


# ----- random patterns: the translation against the library ------------------------------------
ATOMS = ["a", "b", "1", " ", r"\n", "[ab]", "[^a ]", r"\s", r"\S", r"\w", r"\W", r"\d",
         r"\p{L}", r"\P{N}", ".", r"[\w&&[^b]]", r"\h", "ß", "'s"]
ANCHORS = ["$", "^", r"\Z", r"\z", r"\A", r"\b"]
QUANTS = ["", "", "?", "*", "+", "{1,2}", "{2}", "{,2}", "{2,}"]
SUFFIX = ["", "", "?", "+"]


def random_pattern(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.1:
            parts.append(rng.choice(ANCHORS))
            continue
        if r < 0.25 and depth < 2:
            inner = random_pattern(rng, depth + 1)
            atom = rng.choice(["(?:{})", "(?i:{})", "({})", "(?={})", "(?>{})"]).format(inner)
        else:
            atom = rng.choice(ATOMS)
        q = rng.choice(QUANTS)
        parts.append(atom + q + (rng.choice(SUFFIX) if q else ""))
    alts = ["".join(parts)]
    if rng.random() < 0.4:
        alts.append(random_pattern(rng, depth + 1) if depth < 2 else rng.choice(ATOMS))
    if rng.random() < 0.1 and depth == 0:
        alts[0] = "(?i)" + alts[0] if rng.random() < 0.5 else alts[0] + "(?i)b"
    return "|".join(alts)


RANDOM_TEXTS = ["ab a1  b\n", "aab\nba \n", "1 2 ab\n\n", "ss ß Ab\tb", "'s 'S x", "ſ ab²",
                "abba", " \n a", "", "b1a"]


@pytest.mark.slow
def test_random_oniguruma_patterns_mean_what_tokenizers_makes_of_them():
    rng = random.Random(2026)
    checked = refused = 0
    for _ in range(600):
        pattern = random_pattern(rng)
        try:
            tokenizers.Regex(pattern)
        except Exception:
            continue   # Oniguruma itself refuses it
        try:
            ours = regex.compile(translate(pattern, "oniguruma", "regex"))
        except DialectError:
            refused += 1
            continue
        for t in RANDOM_TEXTS:
            assert onig_pieces(ours, t) == hf_pieces(pattern, t), (pattern, t)
        checked += 1
    assert checked > 300 and refused < checked / 4, (checked, refused)


@pytest.mark.slow
def test_random_patterns_export_to_oniguruma_and_fancy_regex():
    rng = random.Random(29)
    checked = rejected = 0
    for _ in range(300):
        pattern = random_pattern(rng).replace(r"\h", "h").replace(r"\z", r"\Z")
        try:
            ours = regex.compile(pattern)
            if matches_empty(pattern):
                continue   # exports refuse those (the libraries iterate them otherwise)
            onig = translate(pattern, "regex", "oniguruma")
            fancy = translate(pattern, "regex", "fancy")
        except (regex.error, DialectError):
            continue
        try:   # Oniguruma refuses some repetitions regex takes ((?:\A|x*){2}): the
            tokenizers.Regex(onig)   # export says so (hf.check_pattern compiles it there)
        except Exception:
            rejected += 1
            continue
        for t in RANDOM_TEXTS:
            assert hf_pieces(onig, t) == pieces(ours, t), (pattern, onig, t)
            assert tiktoken_matches(fancy, t) == [m.group() for m in ours.finditer(t)], \
                (pattern, fancy, t)
        checked += 1
    assert checked > 100 and rejected < checked / 10, (checked, rejected)


def test_exports_refuse_patterns_that_match_empty_text():
    assert matches_empty(r"\A|\w+") and matches_empty(r"a*") and matches_empty(r"(?=a)")
    assert not any(matches_empty(p) for p in PRESETS)
    assert not matches_empty(r"\w+|\s|.")
