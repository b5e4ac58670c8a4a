"""CLIP's tokenizer (OpenAI CLIP, open_clip, every Stable Diffusion text encoder) from its
merges file, run as its ``SimpleTokenizer`` runs it.

The text is cleaned, then split, then each piece merged with ``</w>`` on its last
symbol (HF's ``end_of_word_suffix``; the C model does that part):

1. cleaning, as ``basic_clean`` + ``whitespace_clean`` + ``lower()``: ``ftfy.fix_text``
   (mojibake, curly quotes to straight ones, ligatures, full-width characters, NFC, ...;
   without the ftfy package only its NFC, and :data:`FTFY_MISSING` says so), HTML
   entities unescaped twice (``html.unescape``), whitespace runs (``str.isspace``) to
   one space, stripped, lowercased (Python's ``str.lower``, final sigma included).
   Where ftfy changes the text, each changed stretch's characters take the span of the
   characters it replaced (a character-level diff of the two).
2. the pieces are the matches of ``<start_of_text>|<end_of_text>|'s|'t|'re|'ve|'m|'ll|'d
   |[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+`` (case-insensitive); everything else is dropped.
   A piece that is ``<start_of_text>`` or ``<end_of_text>`` is that special token (only
   where the regex cuts it out whole, as in CLIP).
3. each piece, byte-encoded in GPT-2's alphabet, is merged by rank.

Offsets point into the text as given (NFC, entities and case mapped back).

Example::

    >>> cleaned(NStr.of("  A &amp;  B ")).text
    'a & b'
"""
from __future__ import annotations

import html
import unicodedata
from difflib import SequenceMatcher
from typing import Callable, Iterator

import regex

from ...text.normal_forms import is_normalized
from .hf_parts import PreTokenizer
from .normalized import NStr

PATTERN = (r"""<start_of_text>|<end_of_text>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]"""
           r"""|[^\s\p{L}\p{N}]+""")
_SPLIT = regex.compile(PATTERN, regex.IGNORECASE)
_ENTITY = regex.compile(r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)")
_SPACES = regex.compile(r"[\s\x1c-\x1f]+")   # Python's re \s: str.isspace


def _sub(s: NStr, pattern, repl) -> NStr:
    """Each match replaced by ``repl(match text)``; new characters take the span of the
    whole match (the characters they stand for)."""
    old = None
    text: list[str] = []
    align: list[tuple[int, int]] = []
    last = 0
    for m in pattern.finditer(s.text):
        a, b = m.span()
        r = repl(m.group())
        if r == m.group():
            continue
        if old is None:
            old = s.spans()
        text.append(s.text[last:a])
        align.extend(old[last:a])
        span = (old[a][0], old[b - 1][1])
        text.append(r)
        align.extend([span] * len(r))
        last = b
    if old is None:
        return s
    text.append(s.text[last:])
    align.extend(old[last:])
    return NStr("".join(text), align)


def _lower(s: NStr) -> NStr:
    low = s.text.lower()
    if low == s.text:
        return s
    if len(low) == len(s.text):   # one character each (final sigma is one too)
        return NStr(low, s.align if isinstance(s.align, int) else list(s.align))
    # some characters lower to several (İ -> i̇): each one's share of the whole string's
    # lowercase (which alone knows final sigma), by the length of its own
    parts, k = [], 0
    for c in s.text:
        n = len(c.lower())
        parts.append(low[k:k + n])
        k += n
    it = iter(parts)
    return s.map_chars(lambda _c: next(it))


FTFY_MISSING = ("the ftfy package is not installed, so of ftfy.fix_text only its NFC is "
                "done: text it repairs (curly quotes, full-width characters, mojibake) gets "
                "other ids than CLIP's; pip install ftfy")


def _load_ftfy() -> Callable[[str], str] | None:
    try:
        import ftfy
    except ImportError:
        return None
    return ftfy.fix_text


fix_text = _load_ftfy()


def _fixed(text: str) -> str:
    """``ftfy.fix_text`` (open_clip's first step), or NFC without ftfy."""
    if fix_text is not None:
        return fix_text(text)
    return text if is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def _realigned(s: NStr, new: str) -> NStr:
    """``s`` rewritten as ``new``: unchanged stretches keep their spans, each changed
    stretch's characters take the span of the characters it replaced."""
    old = s.spans()
    align: list[tuple[int, int]] = []
    for op, a1, a2, b1, b2 in SequenceMatcher(None, s.text, new, autojunk=False).get_opcodes():
        if op == "equal":
            align.extend(old[a1:a2])
        elif b2 > b1:
            if a2 > a1:
                span = (old[a1][0], old[a2 - 1][1])
            else:   # inserted: an empty span where it stands
                k = old[a1][0] if a1 < len(old) else (old[-1][1] if old else 0)
                span = (k, k)
            align.extend([span] * (b2 - b1))
    return NStr(new, align)


def cleaned_text(text: str) -> str:
    """:func:`cleaned` on a plain ``str`` (ids only: no offsets kept)."""
    text = _fixed(text)
    for _ in range(2):
        if "&" in text:
            text = _ENTITY.sub(lambda m: html.unescape(m.group()), text)
    return _SPACES.sub(" ", text).strip().lower()


def cleaned(s: NStr) -> NStr:
    """CLIP's cleaning (see the module docstring), offsets kept."""
    if fix_text is None:
        if not is_normalized("NFC", s.text):
            s = s.normalize("NFC")
    else:
        new = fix_text(s.text)
        if new != s.text:
            s = _realigned(s, new)
    if "&" in s.text:
        s = _sub(s, _ENTITY, html.unescape)
        if "&" in s.text:
            s = _sub(s, _ENTITY, html.unescape)
    s = _sub(s, _SPACES, lambda w: " ")
    t = s.text
    a, b = len(t) - len(t.lstrip()), len(t.rstrip())
    if (a, b) != (0, len(t)):
        s = s.slice(a, max(a, b))
    return _lower(s)


class ClipSplit:
    """The pipeline's splitter for CLIP: clean, cut by the regex, find the two specials
    (the ``added`` part of a Pipeline: ``split`` yields (piece, None) or (piece, id))."""

    def __init__(self, specials: dict[str, int]):
        self.specials = specials

    @property
    def longest(self) -> int:
        return max(map(len, self.specials), default=0)

    def special_texts(self) -> list[str]:
        return list(self.specials)

    def restricted(self, allow: frozenset[str]) -> "ClipSplit":
        """Only the specials in ``allow`` read as their ids (the others' text is merged
        as a word, the way the split cuts it)."""
        return ClipSplit({t: i for t, i in self.specials.items() if t in allow})

    def split(self, s: NStr) -> Iterator[tuple[NStr, int | None]]:
        c = cleaned(s)
        for m in _SPLIT.finditer(c.text):
            a, b = m.span()
            yield c.slice(a, b), self.specials.get(m.group())

    def split_text(self, text: str) -> Iterator[tuple[str, int | None, bool]]:
        """:meth:`split` on a plain ``str`` (ids only): the words between two special
        tokens come as one string, joined by spaces (no word holds one: the cleaning
        made every whitespace run one space, which no piece of the regex takes), which
        the pre-tokenizer's plain step splits again."""
        words: list[str] = []
        for w in _SPLIT.findall(cleaned_text(text)):
            sid = self.specials.get(w)
            if sid is None:
                words.append(w)
                continue
            if words:
                yield " ".join(words), None, False
                words = []
            yield w, sid, False
        if words:
            yield " ".join(words), None, False


def pre_tokenizer() -> PreTokenizer:
    """The pieces are already cut (ClipSplit): a byte-level pre-tokenizer that keeps them
    (ids only: the words ClipSplit.split_text joined with spaces, split again)."""
    def keep(pieces):
        return pieces
    keep.plain = lambda texts: [w for t in texts for w in t.split(" ") if w]  # type: ignore
    return PreTokenizer([keep], True, False, None)
