"""Which script text and tokens belong to, and the per-script counts of an encoding.

Scripts: every character is Latin, Han, Kana, Cyrillic or Other, or *neutral* (spaces,
digits, punctuation, combining marks: Unicode's Common and Inherited scripts), which
belongs to whatever it stands next to. A token (or word) has the script of the letters
it covers; one with no letters, or letters of two scripts, or a special token, is Other.

Words (for "tokens per word") are the matches of the GPT-2 pre-tokenizer pattern that
are not only whitespace, whatever pattern the tokenizer itself uses, so two tokenizers
are measured against the same words. A Chinese clause without spaces is one word.

Example::

    >>> enc = Encoding([0, 1], [b"a", b"\\xe4\\xbd\\xa0"], [(0, 1), (1, 2)])
    >>> encoding_stats("a你", enc)["Han"].tokens
    1
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import regex

from ..display import is_partial
from ..text.presets import GPT2_PATTERN
from ..tokenizers.encoding import Encoding
from ..tokenizers.merge_model import EOW, UNK

SCRIPTS = ("Latin", "Han", "Kana", "Cyrillic", "Other")
COLUMNS = ("All",) + SCRIPTS
_SCRIPT_RE = {
    "Latin": regex.compile(r"\p{sc=Latin}"),
    "Han": regex.compile(r"\p{sc=Han}"),
    "Kana": regex.compile(r"[\p{sc=Hiragana}\p{sc=Katakana}]"),
    "Cyrillic": regex.compile(r"\p{sc=Cyrillic}"),
}
_NEUTRAL_RE = regex.compile(r"[\p{sc=Common}\p{sc=Inherited}\p{sc=Unknown}]")
_KANA_ONLY_RE = regex.compile(r"[\p{scx=Hiragana}\p{scx=Katakana}&&\P{scx=Han}]", regex.V1)
_WORD_RE = regex.compile(GPT2_PATTERN)

# ----- scripts -------------------------------------------------------------------------
@lru_cache(maxsize=1 << 16)
def char_script(ch: str) -> str | None:
    """The script of one character, or None for a neutral one.

    Example: 'é' -> 'Latin', 'カ' -> 'Kana', 'ー' -> 'Kana', 'Ω' -> 'Other', '。' -> None
    """
    if ch < "\x80":
        return "Latin" if ch.isalpha() else None
    for name, rx in _SCRIPT_RE.items():
        if rx.match(ch):
            return name
    if _NEUTRAL_RE.match(ch):
        # The prolonged sound mark ー is "Common" but only ever written in kana words.
        return "Kana" if ch.isalpha() and _KANA_ONLY_RE.match(ch) else None
    return "Other"


def span_script(text: str) -> str:
    """The one script of the letters in a span; 'Other' for none or several.

    Example: ' the' -> 'Latin', '你好' -> 'Han', '42!' -> 'Other', 'a你' -> 'Other'
    """
    found = None
    for ch in text:
        s = char_script(ch)
        if s is None:
            continue
        if found is None:
            found = s
        elif s != found:
            return "Other"
    return found or "Other"


def utf8_len(ch: str) -> int:
    o = ord(ch)
    return 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4


# ----- per-encoding statistics -------------------------------------------------------------
@dataclass(frozen=True)
class ScriptStats:
    """Counts for one column of the comparison table (all text, or one script)."""

    chars: int = 0
    bytes: int = 0
    tokens: int = 0
    words: int = 0
    partial: int = 0

    @property
    def bytes_per_token(self) -> float | None:
        return self.bytes / self.tokens if self.tokens else None

    @property
    def tokens_per_word(self) -> float | None:
        return self.tokens / self.words if self.words else None

    @property
    def partial_share(self) -> float | None:
        return self.partial / self.tokens if self.tokens else None


def word_spans(text: str) -> list[tuple[int, int]]:
    """GPT-2-pattern words that are not only whitespace.

    Example: "Hi  there, 你好" -> [(0, 2), (3, 9), (9, 10), (10, 13)]
    """
    return [m.span() for m in _WORD_RE.finditer(text) if not m.group().isspace()]


def token_text_bytes(token: bytes, covered: str, mode: str = "byte",
                     special: bool = False) -> int:
    """The bytes of text a token stands for: its own bytes, without the ``</w>`` marker
    in character mode (an ``<unk>`` stands for the character it replaced)."""
    if mode != "char" or special:
        return len(token)
    if token == UNK:
        return len(covered.encode("utf-8", "surrogatepass"))
    return len(token.replace(EOW, b""))


def encoding_stats(text: str, enc: Encoding, mode: str = "byte") -> dict[str, ScriptStats]:
    """Counts for the comparison table: key 'All' and one per script of :data:`SCRIPTS`.

    'All' counts the bytes of the whole text (so two tokenizers of one text share the
    numerator and bytes per token compares token counts); a script column counts the
    bytes its tokens stand for. Example: 'a你' cut into [a] [你] ->
    All: 2 chars, 4 bytes, 2 tokens, 1 word (GPT-2 words: 'a你' is one), 0 partial.
    """
    acc = {s: [0, 0, 0, 0, 0] for s in SCRIPTS}  # chars, bytes, tokens, words, partial
    for ch in text:
        acc[char_script(ch) or "Other"][0] += 1
    spans = word_spans(text)
    for s, e in spans:
        acc[span_script(text[s:e])][3] += 1
    n_partial = 0
    specials = enc.special or [False] * len(enc)
    for tok, (s, e), special in zip(enc.tokens, enc.offsets, specials):
        covered = text[s:e]
        row = acc["Other" if special else span_script(covered)]
        row[1] += token_text_bytes(tok, covered, mode, special)
        row[2] += 1
        if not special and mode == "byte" and is_partial(tok):
            row[4] += 1
            n_partial += 1
    out = {"All": ScriptStats(len(text), len(text.encode("utf-8", "surrogatepass")),
                              len(enc), len(spans), n_partial)}
    out.update({s: ScriptStats(*v) for s, v in acc.items()})
    return out


def scripts_present(stats: dict[str, ScriptStats]) -> list[str]:
    """The scripts worth a column: those with characters or tokens, in SCRIPTS order."""
    return [s for s in SCRIPTS if stats[s].chars or stats[s].tokens]
