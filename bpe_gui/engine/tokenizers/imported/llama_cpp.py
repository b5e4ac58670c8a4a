"""How llama.cpp cuts text for a GGUF vocabulary of ``tokenizer.ggml.model = gpt2``.

llama.cpp (``llm_tokenizer_bpe``) picks a *sequence* of regexes by the file's
``tokenizer.ggml.pre`` name; each regex cuts every piece the previous ones left into its
matches and the text between them (both kept). The pieces are then byte-encoded (GPT-2's
alphabet) and merged by merge rank. Before that, special tokens are cut out of the text
(``tokenizer_st_partition``): one token at a time, the longest first, each cutting every
piece of text still unmatched; a token marked LSTRIP / RSTRIP swallows the ASCII
whitespace beside it.

How a regex reads the text, as llama.cpp runs it (``unicode_regex_split``):

- GPT-2's, Llama 3's and Qwen2's regexes are hand-written C++ there; here the native
  scanner runs them (the same words; Llama 3's contractions ``'s`` ... are ``'[sS]``,
  so ``'ſ`` is no contraction, unlike ``regex``'s ``(?i:'s)``: such a piece goes to
  ``regex`` with the C++ spelling).
- Any other regex that names a Unicode class (``\\p{L}``, ``\\p{N}``, ``\\p{P}``,
  ``\\p{M}``, ``\\p{S}``; ``\\p{Lu}`` .. ``\\p{Lo}`` all mean ``\\p{L}``) runs in
  ``std::regex`` on a *collapsed* copy of the text: every non-ASCII character replaced by
  one placeholder for its class (letter, number, punctuation, mark, symbol, whitespace,
  other), the class in the regex by that placeholder plus its ASCII members. So
  ``[^a-z]`` matches any non-ASCII letter, and ``\\s`` is ASCII whitespace plus the
  placeholder of the others.
- A regex without such classes runs in ``std::wregex`` on the code points, with every
  non-ASCII whitespace character read as ``\\v``.
- ECMAScript's ``$`` is the end of the piece, ``\\s`` ``\\d`` ``\\w`` are ASCII (plus
  ``\\v`` for the whitespace placeholder).

The classes are llama.cpp's own (``unicode-data.cpp``: Unicode 15.1,
``text.unicode_versions.LLAMA_CPP``), everywhere a class is read: the native scanner's
tables slot, the regexes pinned to that version (``text.dialects.pinned``) and the
placeholders of :func:`collapse`. A code point that is a letter in the installed
``regex`` (Unicode 17) and unassigned in 15.1 (U+088F) is "other" here, as in llama.cpp.

Example::

    >>> pre = pre_tokenizer_of("deepseek-coder")
    >>> [p.text for p in pre([NStr.of("Hello 世界 42")])]
    ['Hello', ' ', '世界', ' ', '4', '2']
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterator, Sequence

import regex

from ...text.dialects import PinnedPattern, pinned
from ...text.presets import KIND_PATTERNS
from ...text.scanner import native_scanner
from ...text.unicode_versions import LLAMA_CPP
from .hf_parts import Pieces, PreTokenizer
from .normalized import NStr

# ----- the regexes of each pre-tokenizer type (llama-vocab.cpp, llm_tokenizer_bpe) ---------
_C = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"
LLAMA3 = _C + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
QWEN2 = _C + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
QWEN35 = (_C + r"|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"
          r"|\s*[\r\n]+|\s+(?!\S)|\s+")
NEWLINES = r"[^\n]+|[\n]+"
_UPPER = r"((?=[\p{L}])([^a-z]))"
_LOWER = r"((?=[\p{L}])([^A-Z]))"
TEKKEN = (rf"[^\r\n\p{{L}}\p{{N}}]?{_UPPER}*{_LOWER}+|[^\r\n\p{{L}}\p{{N}}]?{_UPPER}+{_LOWER}*"
          r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
GPT4O = (rf"[^\r\n\p{{L}}\p{{N}}]?{_UPPER}*{_LOWER}+{_C}?|[^\r\n\p{{L}}\p{{N}}]?{_UPPER}+{_LOWER}*"
         rf"{_C}?|\p{{N}}{{1,3}}| ?[^\s\p{{L}}\p{{N}}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_UPPER_M = r"((?=[\p{L}\p{M}])([^a-z]))"
_LOWER_M = r"((?=[\p{L}\p{M}])([^A-Z]))"
GRANITE_MULTI = (rf"[^\r\n\p{{L}}\p{{N}}]?{_UPPER_M}*{_LOWER_M}+{_C}?|[^\r\n\p{{L}}\p{{N}}]?"
                 rf"{_UPPER_M}+{_LOWER_M}*{_C}?|\p{{N}}{{1,3}}| ?[^\s\p{{L}}\p{{N}}]+[\r\n/]*"
                 r"|\s*[\r\n]+|\s+(?!\S)|\s+")
_UL = r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]"
_LL = r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"
YOUTU_WORDS = (rf"[^\r\n\p{{L}}\p{{N}}]?{_UL}*{_LL}+{_C}?|[^\r\n\p{{L}}\p{{N}}]?{_UL}+{_LL}*{_C}?"
               r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
DEEPSEEK3 = (r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?"""
             r"[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_HAN_KANA = "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"
_CJK = "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+"
_PORO = " ?[^(\\s|.,!?\u2026\u3002\uff0c\u3001\u0964\u06d4\u060c)]+"

TYPES: dict[str, tuple[str, ...]] = {
    "llama3": (LLAMA3,),
    "jais2": (_C + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
              r"|\s{512}(?!\S)|\s{256}(?!\S)|\s{128}(?!\S)|\s{64}(?!\S)|\s{32}(?!\S)"
              r"|\s{16}(?!\S)|\s{8}(?!\S)|\s{4}(?!\S)|\s{1,2}(?!\S)|\s{1}",),
    "deepseek-llm": (r"[\r\n]",
                     "\\s?[A-Za-z\xb5\xc0-\xd6\xd8-\xf6\xf8-\u01ba\u01bc-\u01bf\u01c4-\u0293\u0295-\u02af"
                     "\u0370-\u0373\u0376\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a\u038c"
                     "\u038e-\u03a1\u03a3-\u03f5\u03f7-\u0481\u048a-\u052f\u0531-\u0556\u10a0-\u10c5"
                     "\u13a0-\u13f5\u13f8-\u13fd\u1c90-\u1cba\u1cbd-\u1cbf\u1d00-\u1d2b\u1d6b-\u1d77"
                     "\u1d79-\u1d9a\u1e00-\u1f15\u1f18-\u1f1d\u1f20-\u1f45\u1f48-\u1f4d\u1f50-\u1f57"
                     "\u1f59\u1f5b\u1f5d\u1f5f-\u1f7d\u1f80-\u1fb4\u1fb6-\u1fbc\u1fbe\u1fc2-\u1fc4"
                     "\u1fc6-\u1fcc\u1fd0-\u1fd3\u1fd6-\u1fdb\u1fe0-\u1fec\u1ff2-\u1ff4\u1ff6-\u1ffc"
                     "\u2102\u2107\u210a-\u2113\u2115\u2119-\u211d\u2124\u2126\u2128\u212a-\u212d"
                     "\u212f-\u2134\u2139\u213c-\u213f\u2145-\u2149\u214e\u2183\u2184\u2c00-\u2c7b"
                     "\u2c7e-\u2ce4\u2ceb-\u2cee\u2cf2\u2cf3\ua640-\ua66d\ua680-\ua69b\ua722-\ua76f"
                     "\ua771-\ua787\ua78b-\ua78e\uab70-\uabbf\ufb00-\ufb06\ufb13-\ufb17\uff21-\uff3a"
                     "\uff41-\uff5a\U00010400-\U0001044f\U000104b0-\U000104d3\U000104d8-\U000104fb"
                     "\U00010c80-\U00010cb2\U00010cc0-\U00010cf2\U000118a0-\U000118df"
                     "\U0001e900-\U0001e943]+",
                     "\\s?[!-/:-~\uff01-\uff0f\uff1a-\uff5e\u2018-\u201f\u3000-\u3002]+",
                     r"\s+$", _CJK, r"\p{N}+"),
    "deepseek3": (r"\p{N}{1,3}", _HAN_KANA, DEEPSEEK3),
    "spark2_5": (r"\p{N}{1,3}", _HAN_KANA,
                 r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?"""
                 r"[\p{L}\p{M}]+| ?[\p{P}\p{S}]+|[\r\n]|\s+(?!\S)|\s+", r"\p{N}"),
    "youtu": ("[\uac00-\ud7a3\u3131-\u318e]+|[\uff01\u2026\u201c\u201d\u2018\u2019\u2014\uff1a"
              "\uff1b\uff0c\u3001-\u303f\ufe30-\ufe4f]+|[\u3105-\u312f]+|" + _HAN_KANA, YOUTU_WORDS),
    "deepseek-coder": (r"[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", _CJK, r"\p{N}"),
    "falcon": (r"[\p{P}\$\+<=>\^~\|`]+", GPT2, r"[0-9][0-9][0-9]"),
    "starcoder": (r"\p{N}", GPT2),
    "gpt2": (GPT2,),
    "qwen2": (QWEN2,),
    "qwen35": (QWEN35,),
    "poro": (_PORO,),
    "viking": (_PORO, r"\p{N}"),
    "tekken": (TEKKEN,),
    "chameleon": (r"<sentinel:[0-9]+>", r"(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z",
                  r"([\t\n]|    |  )", r"\p{N}", r"[\p{P}!-/:-@\[-`{-~]", GPT2),
    "gpt4o": (GPT4O,),
    "granite-multi": (GRANITE_MULTI,),
    "bailingmoe": (r"'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
                   r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+",),
    "seed-coder": (_C + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+"
                   r"|\s+(?!\S)|\s+",),
    "ufakzeka": (r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
                 r"|\s+(?!\S)|\s+",),
    "laguna": (NEWLINES, QWEN2),
    "exaone-moe": (_C + r"|[^\r\n\p{L}\p{N}]?(?:\p{L}\p{M}*(?: \p{L}\p{M}*)*)+|\p{N}"
                   r"| ?[^\s\p{L}\p{N}]+[\r\n/]?|\s*[\r\n]|\s+(?!\S)|\s+",),
    "minicpm5": (r"\p{N}{1,3}", _C + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+| ?[^\s\p{L}\p{N}]+[\r\n]*"
                 r"|\s*[\r\n]+|\s+(?!\S)|\s+"),
    "default": (r"[\p{P}\$\+<=>\^~\|]+", GPT2, r"\p{N}+", r"[0-9][0-9][0-9]"),
}


@dataclass(frozen=True)
class PreType:
    """A ``.pre`` name's settings: ``kind`` (a key of TYPES, or None: not runnable here,
    ``why`` says so), and the flags llama.cpp sets with it."""

    kind: str | None
    ignore_merges: bool = False
    add_bos: bool = False
    why: str = ""


_NAMES: dict[str, tuple[str, ...]] = {
    "llama3": ("llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0",
               "lfm2", "jina-v5-nano", "dbrx", "smaug-bpe", "chatglm-bpe", "glm4", "glm5"),
    "jais2": ("jais-2",),
    "deepseek-llm": ("deepseek-llm",),
    "deepseek-coder": ("deepseek-coder",),
    "deepseek3": ("deepseek-v3", "hunyuan-dense", "joyai-llm", "hy_v4"),
    "spark2_5": ("spark2_5",),
    "youtu": ("youtu",),
    "falcon": ("falcon",),
    "starcoder": ("starcoder", "refact", "command-r", "smollm", "codeshell", "exaone",
                  "minerva-7b", "mellum2"),
    "gpt2": ("gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de",
             "a.x-4.0", "mellum", "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe",
             "mpt", "olmo", "jais", "trillion", "granite-docling", "exaone4"),
    "qwen2": ("qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "stablelm2", "hunyuan",
              "solar-open", "grok-2", "megrez"),
    "qwen35": ("qwen35",),
    "poro": ("poro-chat", "bloom", "gpt3-finnish"),
    "viking": ("viking",),
    "tekken": ("tekken",),
    "chameleon": ("chameleon",),
    "gpt4o": ("gpt-4o", "llama4", "kanana2", "talkie", "minimax-m2"),
    "granite-multi": ("granite-embed-multi-97m",),
    "bailingmoe": ("bailingmoe", "bailingmoe2", "llada-moe"),
    "seed-coder": ("seed-coder",),
    "ufakzeka": ("ufakzeka",),
    "laguna": ("laguna",),
    "exaone-moe": ("exaone-moe",),
    "minicpm5": ("minicpm5",),
    "default": ("default",),
}
PRE_NAMES: dict[str, str] = {name: kind for kind, names in _NAMES.items() for name in names}
# pre names whose llama.cpp type sets ignore_merges / add_bos
_IGNORE_MERGES = {"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral",
                  "midm-2.0", "lfm2", "jina-v5-nano", "glm4", "glm5", "tekken", "youtu",
                  "granite-embed-multi-97m", "minicpm5"}
_ADD_BOS = {"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0",
            "lfm2", "jina-v5-nano", "tekken", "chameleon"}
# named by llama.cpp, run by code of its own that no regex here reproduces
NOT_RUN: dict[str, str] = {
    "kimi-k2": "a hand-written Han-character splitter",
    "afmoe": "a hand-written digit grouper",
    "tiny_aya": "a hand-written digit grouper", "cohere2moe": "a hand-written digit grouper",
    "superbpe": "a zero-width digit-grouping regex",
    "gemma4": "raw UTF-8 pieces with spaces as '▁' (SentencePiece-style BPE)",
    "granite-embed-multi-311m": "raw UTF-8 pieces with spaces as '▁' (SentencePiece-style BPE)",
    "sarvam-moe": "raw UTF-8 pieces with spaces as '▁' (SentencePiece-style BPE)",
    "whitespace": "raw UTF-8 pieces (no GPT-2 byte alphabet)",
}


def pre_type(pre: str | None) -> PreType:
    """The settings of a ``.pre`` name (None: the key is missing, which llama.cpp reads
    as 'default' with a warning)."""
    name = "default" if pre is None or pre == "" else pre
    kind = PRE_NAMES.get(name)
    if kind is None:
        why = NOT_RUN.get(name)
        return PreType(None, why=(f"its pre-tokenizer {name!r} is {why}, which this app does "
                                  "not run yet" if why else
                                  f"its pre-tokenizer {name!r} is not one llama.cpp names"))
    return PreType(kind, name in _IGNORE_MERGES, name in _ADD_BOS)


# ----- the collapsed text ------------------------------------------------------------------
# Placeholders for the classes of non-ASCII characters (llama.cpp writes 0xD0..0xD5 and
# 0x0B into a byte string; here characters of plane 16's private use area, which the
# text's own such characters are first turned into 'other', their class)
P_OTHER, P_NUMBER, P_LETTER, P_PUNCT, P_MARK, P_SYMBOL = (chr(0x10FFF0 + k) for k in range(6))
_ASCII_OF = {"N": "0-9", "L": "A-Za-z", "P": r"!-#%-*,-/:-;?-@\[-\]_\{\}", "M": "",
             "S": r"\$\+<->\^`\|~"}
_PLACEHOLDER = {"N": P_NUMBER, "L": P_LETTER, "P": P_PUNCT, "M": P_MARK, "S": P_SYMBOL}
_CLASSES = {r"\p{N}": "N", r"\p{L}": "L", r"\p{P}": "P", r"\p{M}": "M", r"\p{S}": "S",
            r"\p{Lu}": "L", r"\p{Ll}": "L", r"\p{Lt}": "L", r"\p{Lm}": "L", r"\p{Lo}": "L"}
_WS_NON_ASCII = regex.compile(r"[[^\x00-\x7f]&&\s]", regex.V1)   # (White_Space: stable)


@lru_cache(maxsize=1)
def _collapse_steps() -> list:
    """The substitutions of :func:`collapse`, each class pinned to llama.cpp's Unicode
    version (built at the first non-ASCII text that needs them)."""
    def cls(name: str):
        return pinned(r"(?![\x00-\x7f])\p{" + name + "}", LLAMA_CPP)
    return [(regex.compile("[\U0010fff0-\U0010fff5]"), P_OTHER), (_WS_NON_ASCII, "\x0b"),
            (cls("L"), P_LETTER), (cls("N"), P_NUMBER), (cls("P"), P_PUNCT),
            (cls("M"), P_MARK), (cls("S"), P_SYMBOL),
            (regex.compile("[^\x00-\x7f\U0010fff0-\U0010fff5\x0b]"), P_OTHER)]

_ASCII_WS = r"\t\n\x0b\x0c\r "


def collapse(text: str) -> str:
    """llama.cpp's collapsed text: ASCII kept, every other character its class's
    placeholder (whitespace: ``\\v``). Same length, so offsets carry over.

    Example: 'é 中1٣' -> P_LETTER + ' ' + P_LETTER + '1' + P_NUMBER
    """
    if text.isascii():
        return text
    for pattern, repl in _collapse_steps():
        text = pattern.sub(repl, text)
    return text


def wide(text: str) -> str:
    """The text std::wregex sees: non-ASCII whitespace read as ``\\v``."""
    return text if text.isascii() else _WS_NON_ASCII.sub("\x0b", text)


def translate(expr: str) -> tuple[str, bool]:
    """A llama.cpp regex -> (the same regex for ``regex``, runs on the collapsed text).

    Example: r'\\s?\\p{L}+' -> ('[\\t\\n\\x0b\\x0c\\r ]?[<P_LETTER>A-Za-z]+', True)
    """
    collapsed = any(c in expr for c in _CLASSES)
    out: list[str] = []
    i, n, inside = 0, len(expr), False
    while i < n:
        c = expr[i]
        if c == "\\" and i + 1 < n:
            nxt = expr[i + 1]
            if nxt == "p" and collapsed:
                end = expr.find("}", i)
                name = _CLASSES.get(expr[i:end + 1])
                if name is None:
                    raise ValueError(f"the class {expr[i:end + 1]} is not one llama.cpp reads")
                body = regex.escape(_PLACEHOLDER[name]) + _ASCII_OF[name]
                out.append(body if inside else f"[{body}]")
                i = end + 1
                continue
            if nxt in "sdw":
                body = {"s": _ASCII_WS, "d": "0-9", "w": "0-9A-Za-z_"}[nxt]
                out.append(body if inside else f"[{body}]")
            elif nxt in "SDW":
                body = {"S": _ASCII_WS, "D": "0-9", "W": "0-9A-Za-z_"}[nxt]
                if inside:
                    raise ValueError(f"\\{nxt} inside a class is not supported")
                out.append(f"[^{body}]")
            else:
                out.append(expr[i:i + 2])
            i += 2
            continue
        if c == "[" and not inside:
            inside = True
            out.append(c)
            if expr[i + 1:i + 2] == "^":
                out.append("^")
                i += 1
        elif c == "]" and inside:
            inside = False
            out.append(c)
        elif c == "$" and not inside:
            out.append(r"\Z")
        elif c == "[" and inside:
            out.append(r"\[")
        else:
            out.append(c)
        i += 1
    return "".join(out), collapsed


# ----- one step of the sequence ----------------------------------------------------------------
_NATIVE = {GPT2: "gpt2", LLAMA3: "llama3", QWEN2: "qwen2"}
_LONG_S = "'\u017f"   # 'ſ: a contraction for regex's (?i:'s), not for llama.cpp's '[sS]


@dataclass
class Step:
    """One regex of the sequence: ``cut(text)`` -> the ends of its pieces."""

    source: str                          # the regex as llama.cpp writes it
    compiled: "regex.Pattern[str] | PinnedPattern"
    collapsed: bool                       # runs on collapse(text) (else on wide(text))
    unicode: bool = False                 # hand-written C++: real classes, on the text
    native: object | None = field(default=None, repr=False)

    def ends(self, text: str, view: str) -> list[int]:
        """End offsets of the pieces this regex cuts ``text`` into (matches and gaps).
        ``view``: the text as this step reads it (collapsed, wide or as is)."""
        if self.native is not None and _LONG_S not in text:
            return list(self.native.word_ends(text))  # type: ignore[attr-defined]
        out: list[int] = []
        prev = 0
        for m in self.compiled.finditer(view):
            s, e = m.span()
            if s > prev:
                out.append(s)
            if e > s:
                out.append(e)
            prev = max(prev, e)
        if prev < len(text):
            out.append(len(text))
        return out


@lru_cache(maxsize=64)
def step_of(expr: str) -> Step:
    if expr in _NATIVE:
        kind = _NATIVE[expr]
        # the C++ code reads real Unicode classes (llama.cpp's): the regex with them, on
        # the text; the native scanner with llama.cpp's tables
        return Step(expr, pinned(_unicode(expr), LLAMA_CPP), False, True,
                    native_scanner(kind, LLAMA_CPP))
    if expr in (QWEN35, NEWLINES):
        return Step(expr, pinned(_unicode(expr), LLAMA_CPP), False, True)
    text, collapsed = translate(expr)
    return Step(expr, regex.compile(text), collapsed)


def _unicode(expr: str) -> str:
    """A hand-written C++ regex's meaning with ``regex``'s Unicode classes: ``\\s`` is
    White_Space there, as llama.cpp's flag."""
    return expr


class LlamaPreTokenizer(PreTokenizer):
    """The sequence of a ``.pre`` type as a pre-tokenizer of the pipeline (byte-level,
    no prefix space). One native step alone is also the pipeline's fast path (the
    tiling pattern the native scanner runs)."""

    def __init__(self, kind: str):
        self.kind = kind
        self.sequence = [step_of(e) for e in TYPES[kind]]
        self.needs_collapse = any(s.collapsed for s in self.sequence)
        tiling = None
        only = self.sequence[0] if len(self.sequence) == 1 else None
        if only is not None and only.native is not None:
            tiling = (pinned(KIND_PATTERNS[_NATIVE[only.source]], LLAMA_CPP), True)

        def run(pieces: Pieces) -> Pieces:
            return self._run(pieces)
        # ids only: the same cuts on plain strings (hf_parts.PreTokenizer.words_text)
        run.plain = self._run_plain   # type: ignore[attr-defined]
        super().__init__([run], True, False, None, tiling, classes=LLAMA_CPP)
        self.kinds = (f"llama.cpp {kind!r}",)

    @property
    def rules_pattern(self) -> str | None:
        """Its regexes as one pattern's alternatives: the words view names a piece by
        the first that takes it whole (the pieces come from the sequence itself)."""
        return "|".join(TYPES[self.kind]) if len(TYPES[self.kind]) > 1 else None

    native_by_text = True

    def native_ok(self, text: str) -> bool:
        return _LONG_S not in text

    def words(self, text: str) -> list[str] | None:
        if _LONG_S in text:
            return None
        return super().words(text)

    def _spans(self, text: str) -> Iterator[tuple[int, int]]:
        """Where the sequence cuts a text: (start, end) of each piece (kept as two
        arrays between the steps: a whole text has millions of pieces)."""
        views = {"c": collapse(text) if self.needs_collapse else text, "w": wide(text),
                 "t": text}
        starts, ends = array("q", [0]), array("q", [len(text)])
        for step in self.sequence:
            view = views["t" if step.unicode else "c" if step.collapsed else "w"]
            ns, ne = array("q"), array("q")
            for s, e in zip(starts, ends):
                prev = s
                for end in step.ends(text[s:e], view[s:e]):
                    ns.append(prev)
                    ne.append(s + end)
                    prev = s + end
            starts, ends = ns, ne
        return zip(starts, ends)

    def _run(self, pieces: Pieces) -> Pieces:
        out: Pieces = []
        for p in pieces:
            if p.text:
                out.extend(p.slice(s, e) for s, e in self._spans(p.text) if e > s)
        return out

    def _run_plain(self, texts: list[str]) -> list[str]:
        out: list[str] = []
        for t in texts:
            if t:
                out.extend(t[s:e] for s, e in self._spans(t) if e > s)
        return out

    def cut(self, text: str) -> list[str]:
        """The pieces of a text (for tests and the explain view)."""
        return [p.text for p in self([NStr.of(text)])]


def pre_tokenizer_of(pre: str | None) -> LlamaPreTokenizer:
    t = pre_type(pre)
    if t.kind is None:
        raise ValueError(t.why)
    return LlamaPreTokenizer(t.kind)


def main_regex(kind: str) -> str:
    """The regex of a type that cuts words (its longest), for the explain view: in
    ``regex`` syntax with Unicode classes."""
    return max(TYPES[kind], key=len)


# ----- special tokens --------------------------------------------------------------------------
_C_SPACE = " \t\n\x0b\x0c\r"   # C isspace()


@dataclass(frozen=True)
class Special:
    id: int
    text: str
    lstrip: bool = False
    rstrip: bool = False
    # a special token (CONTROL, UNKNOWN) rather than a user-defined one, which llama.cpp
    # always cuts out as a token of the text, parse_special or not
    special: bool = True


class LlamaSpecials:
    """Special tokens cut out of a text as llama.cpp cuts them (see the module docstring).

    Example::

        >>> s = LlamaSpecials([Special(7, "<|im_end|>", rstrip=True)])
        >>> [(p.text, i) for p, i in s.split(NStr.of("a<|im_end|>  b"))]
        [('a', None), ('<|im_end|>  ', 7), ('b', None)]
    """

    def __init__(self, tokens: Sequence[Special]):
        # llama.cpp sorts by length, longest first (ties: here by id)
        self.tokens = sorted((t for t in tokens if t.text), key=lambda t: (-len(t.text), t.id))
        self.by_text: dict[str, Special] = {}
        for t in self.tokens:
            self.by_text.setdefault(t.text, t)
        self.order = {t.text: k for k, t in enumerate(self.tokens)}
        alts = sorted(self.by_text, key=len, reverse=True)
        self._any = regex.compile("|".join(regex.escape(a) for a in alts)) if alts else None

    @property
    def longest(self) -> int:
        return max((len(t.text) for t in self.tokens), default=0)

    def special_texts(self) -> list[str]:
        return [t.text for t in self.tokens if t.special]

    def restricted(self, allow: frozenset[str]) -> "LlamaSpecials | None":
        """Only the special tokens in ``allow`` cut out (the others read as text), and
        every user-defined one."""
        kept = [t for t in self.tokens if t.text in allow or not t.special]
        return LlamaSpecials(kept) if kept else None

    def _present(self, text: str) -> list[Special]:
        """The tokens that occur in the text, in llama.cpp's order."""
        assert self._any is not None
        found: set[str] = set()
        for m in self._any.finditer(text, overlapped=True):
            w = m.group()
            if w in found:
                continue
            found.add(w)
            for k in range(1, len(w)):   # shorter tokens starting at the same place
                if w[:k] in self.by_text:
                    found.add(w[:k])
        return sorted((self.by_text[w] for w in found), key=lambda t: self.order[t.text])

    def split(self, s: NStr) -> Iterator[tuple[NStr, int | None]]:
        text = s.text
        if not text:
            return
        present = self._present(text) if self._any is not None else []
        if not present:
            yield s, None
            return
        # fragments: (start, end, id or None, outer start, outer end)
        frags: list[tuple[int, int, int | None, int, int]] = [(0, len(text), None, 0, len(text))]
        for tok in present:
            new: list[tuple[int, int, int | None, int, int]] = []
            for f in frags:
                if f[2] is not None:
                    new.append(f)
                    continue
                new.extend(_cut(text, f[0], f[1], tok))
            frags = new
        # stripped whitespace joins the token's span (its offsets cover it)
        for a, b, tid, oa, ob in frags:
            if tid is None:
                yield s.slice(a, b), None
            else:
                yield s.slice(oa, ob), tid


def _cut(text: str, start: int, end: int, tok: Special):
    n = len(tok.text)
    while True:
        k = text.find(tok.text, start, end)
        if k < 0:
            if end > start:
                yield start, end, None, start, end
            return
        left_end = k
        if tok.lstrip:
            while left_end > start and text[left_end - 1] in _C_SPACE:
                left_end -= 1
        if left_end > start:
            yield start, left_end, None, start, left_end
        right = k + n
        if tok.rstrip:
            while right < end and text[right] in _C_SPACE:
                right += 1
        yield k, k + n, tok.id, left_end, right
        start = right
        if start >= end:
            return
