"""The patterns the native scanner runs, and how a pattern is recognised as one of them.

The scanner (csrc/scan.c) knows six *kinds* of pattern, each the words of one
published pattern (``regex.findall``), and a seventh, ``superbpe2`` (SuperBPE's stage-2
training pieces, presets.SUPERBPE_TRAIN_PATTERN, recognised as this app spells it):

==========  ====================================================================
gpt2        GPT-2's, as OpenAI's encoder.py, HF's ByteLevel and tiktoken's r50k
            (``\\s++$|\\s+(?!\\S)|\\s``) write it
cl100k      tiktoken's cl100k_base: ``\\s++$`` before ``\\s*[\\r\\n]`` keeps whitespace
            at the end of a text whole (``"a\\n "`` -> ``a``, ``\\n ``)
o200k       tiktoken's o200k_base
llama3      Llama 3's (Meta's tokenizer.py, its tokenizer.json), which is also minbpe's
            GPT-4 pattern and js-tiktoken's cl100k: cl100k without ``\\s++$``
            (``"a\\n "`` -> ``a``, ``\\n``, `` ``)
qwen2       Qwen2's tokenizer.json: llama3 with single digits (``\\p{N}``)
tekken      Mistral's tekken.json (``config.pattern``; also the Split of Mistral
            NeMo's tokenizer.json and llama.cpp's "tekken"): o200k without the
            contraction suffix after the letter words, with single digits
==========  ====================================================================

A pattern is recognised by its spelling, never by trying it on text: the leading
contractions in any of their published forms become one token, the rest is split into
its top-level alternatives, and each alternative must be one of the spellings listed
for its place. The spellings of one place match the same text at every position, so the
whole pattern matches what the kind's pattern matches:

- ``~`` marks a quantifier that may be possessive (``?+``, ``++``, ``*+``, ``{1,3}+``).
  Each is neutral where it stands: at the end of an alternative (nothing after it can
  fail, so giving back is never tried); ``X?`` before a class that X's own character
  cannot start (`` ?\\p{L}``, ``[^\\r\\n\\p{L}\\p{N}]?\\p{L}``: without the prefix the
  next class fails on that same character); ``[^\\s...]+`` before ``[\\r\\n]*``, which
  always matches; ``\\s+$``, where giving back cannot help (``$`` holds only at the end
  or before a final newline, both after the whole run; ``\\Z``, only at the end, is the
  same there: fancy-regex's ``$`` translated, see dialects.py). ``\\s*`` before ``[\\r\\n]`` and
  ``\\s+(?!\\S)`` are never possessive (they must give back).
- ``\\s*[\\r\\n]`` and ``\\s*[\\r\\n]+`` end at the run's last CR/LF alike (\\s* gives back
  to it and no CR/LF follows it in the run).
- ``\\s+`` and ``\\s`` last, after ``\\s+(?!\\S)``: that fails only on a one-character run
  before a non-space, where both take that one character.
- GPT-2's optional ``\\s++$`` before ``\\s+(?!\\S)``: both take a run that reaches the end.
- ``[\\p{L}]`` is ``\\p{L}``, ``[\\p{N}]`` is ``\\p{N}`` (openai_public.py's comment).
- o200k's and tekken's letter alternatives are accepted only as published, character
  for character: their optional prefix must not be possessive (a mark taken as the
  prefix is given back to start the letters, see csrc/scan.c) and ``[U]*`` must give
  back to its last character of both classes. tekken's are o200k's less the trailing
  ``(?i:'s|...)?``; its other places are o200k's spellings, with ``\\p{N}`` (a single
  digit, nothing to give back) for ``\\p{N}{1,3}``. The published spelling is one:
  mistral-common's tekken_240718 and tekken_240911 (v3) carry presets.TEKKEN_PATTERN
  character for character, as do Mistral NeMo's tokenizer.json Split and the pattern
  HF transformers writes back into Mistral files (``fix_mistral_regex``).

tests/engine/text/test_scan.py checks every kind against ``regex`` on the published spellings.
"""
from __future__ import annotations

from itertools import product

from .presets import SUPERBPE_TRAIN_PATTERN

# ----- recognition ------------------------------------------------------------------------
_CONTRACTIONS = {  # leading spelling -> token
    r"'s|'t|'re|'ve|'m|'ll|'d": "C", r"'(?:[sdmt]|ll|ve|re)": "C",
    r"(?:'s|'t|'re|'ve|'m|'ll|'d)": "C",
    r"'(?i:[sdmt]|ll|ve|re)": "Ci", r"(?i:'s|'t|'re|'ve|'m|'ll|'d)": "Ci",
    r"(?i:'[sdmt]|'ll|'ve|'re)": "Ci",
}


def _spellings(*templates: str) -> frozenset[str]:
    """Every spelling of templates where each ``~`` is '' or '+' (a possessive)."""
    out = set()
    for t in templates:
        parts = t.split("~")
        for marks in product(("", "+"), repeat=len(parts) - 1):
            out.add(parts[0] + "".join(m + p for m, p in zip(marks, parts[1:])))
    return frozenset(out)


_END_RUN = _spellings(r"\s+~$", r"\s+~\Z")
_LAST_WS = _spellings(r"\s+~", r"\s")
_CRLF_WS = _spellings(r"\s*[\r\n]", r"\s*[\r\n]+~")
_PREFIX_LETTERS = _spellings(r"[^\r\n\p{L}\p{N}]?~\p{L}+~")
_OTHER_CRLF = _spellings(r" ?~[^\s\p{L}\p{N}]+~[\r\n]*~")
_GPT2_HEAD = [_spellings(r" ?~\p{L}+~"), _spellings(r" ?~\p{N}+~"),
              _spellings(r" ?~[^\s\p{L}\p{N}]+~")]
_O200K_SUFFIX = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
# kind -> the accepted slot lists (each slot: the spellings accepted at that place)
_SHAPES: dict[str, list[list[frozenset[str]]]] = {
    "gpt2": [[frozenset({"C"}), *_GPT2_HEAD, *ends, frozenset({r"\s+(?!\S)"}), _LAST_WS]
             for ends in ([], [_END_RUN])],
    "cl100k": [[frozenset({"Ci"}), _PREFIX_LETTERS, _spellings(r"\p{N}{1,3}~"), _OTHER_CRLF,
                _END_RUN, _CRLF_WS, frozenset({r"\s+(?!\S)"}), _LAST_WS]],
    "llama3": [[frozenset({"Ci"}), _PREFIX_LETTERS, _spellings(r"\p{N}{1,3}~"), _OTHER_CRLF,
                _CRLF_WS, frozenset({r"\s+(?!\S)"}), _LAST_WS]],
    "qwen2": [[frozenset({"Ci"}), _PREFIX_LETTERS, frozenset({r"\p{N}"}), _OTHER_CRLF,
               _CRLF_WS, frozenset({r"\s+(?!\S)"}), _LAST_WS]],
    "o200k": [[frozenset({r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*"
                          r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]+" + _O200K_SUFFIX}),
               frozenset({r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+"
                          r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]*" + _O200K_SUFFIX}),
               _spellings(r"\p{N}{1,3}~"), _spellings(r" ?~[^\s\p{L}\p{N}]+~[\r\n/]*~"),
               _spellings(r"\s*[\r\n]+~"), frozenset({r"\s+(?!\S)"}), _LAST_WS]],
    "tekken": [[frozenset({r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*"
                           r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"}),
                frozenset({r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+"
                           r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"}),
                frozenset({r"\p{N}"}), _spellings(r" ?~[^\s\p{L}\p{N}]+~[\r\n/]*~"),
                _spellings(r"\s*[\r\n]+~"), frozenset({r"\s+(?!\S)"}), _LAST_WS]],
}


def split_alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a pattern (not inside a group or a class).

    Example: ``split_alternatives(r"a|(b|c)|[|]")`` -> ``['a', '(b|c)', '[|]']``.
    """
    out, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern.startswith("^]", i + 1) or pattern.startswith("]", i + 1):
                i += 1 + (pattern[i + 1] == "^")  # a leading ']' is a member
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    out.append(pattern[start:])
    return out


# SuperBPE's stage-2 pattern: recognised as this app writes it (superbpe.py, and the
# word-count tables it records), alternative for alternative
_SHAPES["superbpe2"] = [[frozenset({a}) for a in split_alternatives(SUPERBPE_TRAIN_PATTERN)]]


def scanner_kind(pattern: str) -> str | None:
    """The kind of native scanner that yields exactly this pattern's words, or None.

    Example: ``scanner_kind(r"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+"
    r"|\\s+(?!\\S)|\\s+")`` -> ``'gpt2'``.
    """
    text = pattern.replace(r"[\p{L}]", r"\p{L}").replace(r"[\p{N}]", r"\p{N}")
    head = next((k for k in _CONTRACTIONS if text.startswith(k + "|")), None)
    if head is None:
        alts = split_alternatives(text)
    else:
        alts = [_CONTRACTIONS[head]] + split_alternatives(text[len(head) + 1:])
    for kind, shapes in _SHAPES.items():
        for slots in shapes:
            if len(slots) == len(alts) and all(a in s for a, s in zip(alts, slots)):
                return kind
    return None
