"""Added tokens of a ``tokenizer.json``, found in the text the way ``tokenizers`` finds them.

Tokens with ``normalized: false`` are looked for in the raw text first; the text between
them is normalized, and tokens with ``normalized: true`` are looked for in that
(their own content normalized by the same normalizer, as tokenizers does). At each
place the leftmost, then longest, token wins. ``single_word`` tokens only count with no
word character on either side; ``lstrip`` / ``rstrip`` take the whitespace beside them.

Example::

    >>> a = AddedTokens([AddedToken(5, "<s>", lstrip=True)], None)
    >>> [(p.text, i) for p, i in a.split(NStr.of("hi  <s>x"))]
    [('hi', None), ('  <s>', 5), ('x', None)]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import regex

from .normalized import NStr

_WORD_END = regex.compile(r"\w\Z")
_WORD_CHAR = regex.compile(r"\w")
_SPACE_END = regex.compile(r"\s*\Z")
_SPACES = regex.compile(r"\s*")


@dataclass(frozen=True)
class AddedToken:
    id: int
    content: str
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: bool = True
    special: bool = False


class AddedTokens:
    def __init__(self, tokens: list[AddedToken], normalize: Callable[[NStr], NStr] | None):
        self.tokens = [t for t in tokens if t.content]
        self.normalize = normalize
        raw = [t for t in self.tokens if not t.normalized]
        norm = [t for t in self.tokens if t.normalized]
        self._raw = _matcher({t.content: t for t in raw})
        self._norm = _matcher({(normalize(NStr.of(t.content)).text if normalize else t.content): t
                               for t in norm})

    def split(self, text: NStr) -> Iterator[tuple[NStr, int | None]]:
        """Pieces of the text: (normalized piece, None) or (the token's text, its id)."""
        for piece, tid in _find(text, self._raw):
            if tid is not None:
                yield piece, tid
                continue
            if self.normalize is not None:
                piece = self.normalize(piece)
            yield from _find(piece, self._norm)

    def split_text(self, text: str) -> Iterator[tuple[str, int | None, bool]]:
        """:meth:`split` on a plain ``str`` (ids only, no offsets): (piece, None, whether
        the piece starts at the text's first character) or (token text, id, ...). The
        normalizer runs on plain text (``Normalizer.text``)."""
        norm = self.normalize
        for piece, tid, start in _find_str(text, self._raw):
            if tid is not None:
                yield piece, tid, start == 0
                continue
            at0 = start == 0
            if norm is not None:   # a hf_parts.Normalizer: its plain-text side
                piece, keeps = norm.text_start(piece)   # type: ignore[attr-defined]
                at0 = at0 and keeps
            for sub, sid, sub_start in _find_str(piece, self._norm):
                yield sub, sid, at0 and sub_start == 0

    @property
    def longest(self) -> int:
        return max((len(t.content) for t in self.tokens), default=0)

    def special_texts(self) -> list[str]:
        """The tokens marked special (those a call may read as ordinary text)."""
        return [t.content for t in self.tokens if t.special]

    def restricted(self, allow: frozenset[str]) -> "AddedTokens | None":
        """Only the tokens not marked special and the special ones in ``allow`` (as
        tokenizers' ``encode_special_tokens`` leaves the others in the text)."""
        kept = [t for t in self.tokens if not t.special or t.content in allow]
        return AddedTokens(kept, self.normalize) if kept else None


class _Matcher:
    """The added tokens by text, and their regex, compiled when first used: a file whose
    whole texts go to the C encoder (which finds the tokens itself) never needs it, and
    Llama 3's 256 alternatives took 0.06 s of its load."""

    __slots__ = ("by_text", "_pattern")

    def __init__(self, by_text: dict[str, AddedToken]):
        self.by_text = by_text
        self._pattern: regex.Pattern | None = None

    @property
    def pattern(self) -> regex.Pattern:
        if self._pattern is None:   # two threads may both compile: the same regex
            alts = sorted(self.by_text, key=len, reverse=True)   # longest first = leftmost-longest
            self._pattern = regex.compile("|".join(regex.escape(a) for a in alts))
        return self._pattern


def _matcher(by_text: dict[str, AddedToken]) -> _Matcher | None:
    return _Matcher(by_text) if by_text else None


def _find_str(text: str, matcher) -> Iterator[tuple[str, int | None, int]]:
    """:func:`_find` on a plain str: (piece, id or None, where it starts)."""
    for piece, tid in _find(NStr.of(text), matcher):
        yield piece.text, tid, piece.original_start


def _find(s: NStr, matcher) -> Iterator[tuple[NStr, int | None]]:
    text = s.text
    if matcher is None or not text:
        if text:
            yield s, None
        return
    pattern, by_text = matcher.pattern, matcher.by_text
    done = 0
    for m in pattern.finditer(text):
        start, stop = m.span()
        tok = by_text[m.group()]
        if tok.single_word:
            if (start and _WORD_END.search(text, 0, start)) or \
                    (stop < len(text) and _WORD_CHAR.match(text, stop)):
                continue
        if tok.lstrip:
            start = max(_SPACE_END.search(text, 0, start).start(), done)
        if tok.rstrip:
            stop = _SPACES.match(text, stop).end()
        if done < start:
            yield s.slice(done, start), None
        yield s.slice(start, stop), tok.id
        done = stop
    if done < len(text):
        yield s.slice(done, len(text)), None
