"""Which special tokens a call reads from text: tiktoken's ``allowed_special`` /
``disallowed_special``, the same for every tokenizer kind.

A tokenizer's *matchable* special tokens are those its format's library can find in
text (a tekken file or a GGUF read without ``parse_special`` has none). Of those, a call
lets ``allowed_special`` become their ids, refuses text holding any of
``disallowed_special`` (default: every matchable one not allowed), and reads the rest
as ordinary text.

Example (cl100k's specials)::

    >>> resolve(set(), "all", ["<|endoftext|>", "<|fim_prefix|>"], "encode")
    (frozenset(), frozenset({'<|endoftext|>', '<|fim_prefix|>'}))
    >>> resolve("all", (), ["<|endoftext|>"], "encode")
    (frozenset({'<|endoftext|>'}), frozenset())
"""
from __future__ import annotations

import functools
import os
import re
from typing import AbstractSet, Collection, Literal, Protocol, Union

from ..errors import ArgumentError, ArgumentTypeError, DisallowedSpecialError
from ..text.scanner import special_finder

SpecialSet = Union[Literal["all"], AbstractSet[str], Collection[str]]
ALL: Literal["all"] = "all"


def _as_set(value: object, name: str, known: frozenset[str]) -> frozenset[str]:
    if value == ALL:
        return known
    if isinstance(value, str) or isinstance(value, (bytes, bytearray)) or \
            not isinstance(value, Collection):
        raise ArgumentTypeError(
            f"{name} should be \"all\" or a set of special tokens such as "
            f"{{'<|endoftext|>'}}, not {type(value).__name__} {value!r:.60}.")
    out = frozenset(value)
    bad = [t for t in out if not isinstance(t, str)]
    if bad:
        raise ArgumentTypeError(f"{name} holds {bad[0]!r}, which is not a string: special "
                                "tokens are given by their text.")
    return out


def resolve(allowed: object, disallowed: object, matchable: Collection[str],
            where: str) -> tuple[frozenset[str], frozenset[str]]:
    """(allowed, disallowed) as sets of matchable special tokens, as tiktoken reads its
    two arguments: ``"all"`` is every matchable one (for ``disallowed``: every one not
    allowed). A name that is no matchable special token is refused, saying which are."""
    known = frozenset(matchable)
    allow = _as_set(allowed, f"{where}(allowed_special)", known)
    refuse = _as_set(disallowed, f"{where}(disallowed_special)", known)
    if disallowed == ALL:
        refuse = known - allow
    for name, given in (("allowed_special", allow), ("disallowed_special", refuse)):
        unknown = sorted(given - known)
        if unknown:
            listed = ", ".join(sorted(known)[:6]) or "none"
            raise ArgumentError(
                f"{where}({name}) names {unknown[0]!r}, which is not a special token this "
                f"tokenizer reads from text (those it reads: {listed}"
                f"{', ...' if len(known) > 6 else ''}).")
    return allow, refuse


class Finder(Protocol):
    def search(self, text: str, pos: int = 0) -> tuple[int, int] | None: ...


class _RegexFinder:
    """The finder where the C one is not built: one ``re`` search of the tokens'
    alternation, longest first."""

    def __init__(self, tokens: frozenset[str]):
        self.rx = re.compile("|".join(re.escape(t) for t in
                                      sorted(tokens, key=len, reverse=True)))

    def search(self, text: str, pos: int = 0) -> tuple[int, int] | None:
        m = self.rx.search(text, pos)
        return None if m is None else m.span()


# BPE_GUI_SPECIAL_FIND=re: the regex finder everywhere (tests check both finders)
_NATIVE = os.environ.get("BPE_GUI_SPECIAL_FIND", "") != "re"


@functools.lru_cache(maxsize=64)
def finder(tokens: frozenset[str]) -> Finder | None:
    """Where a text first holds one of the tokens: an object whose ``search(text)``
    gives the ``(start, end)`` of the leftmost one, longest first at a place, or None
    (the C finder of text/scanner.py: a memchr for the tokens' first characters, then a
    compare; ``re`` where it is not built). None: no tokens."""
    if not tokens:
        return None
    native = special_finder(tokens) if _NATIVE else None
    return native if native is not None else _RegexFinder(tokens)


def refuse_disallowed(text: str, disallowed: frozenset[str]) -> None:
    """Raise :class:`DisallowedSpecialError` when the text holds one of ``disallowed``,
    with tiktoken's three ways out."""
    f = finder(disallowed)
    span = f.search(text) if f is not None else None
    if span is None:
        return
    tok = text[span[0]:span[1]]
    raise DisallowedSpecialError(
        f"The text holds {tok!r}, the text of a special token that this call does not "
        f"allow. To encode it as the special token, pass allowed_special={{{tok!r}}} (or "
        f"\"all\"); to encode it as ordinary text, pass disallowed_special=() (or leave "
        f"{tok!r} out of disallowed_special); encode_ordinary(text) reads no special "
        "token at all.", tok)


def holds_any(text: str, tokens: frozenset[str]) -> bool:
    """Whether the text holds one of the tokens."""
    f = finder(tokens)
    return f is not None and f.search(text) is not None


class Checked:
    """A stream's chunks, passed on after :func:`refuse_disallowed` on each, with the
    last characters of the one before (a token cut across two chunks is found)."""

    def __init__(self, chunks, disallowed: frozenset[str]):
        self.chunks = chunks
        self.disallowed = disallowed
        self.keep = max(map(len, disallowed), default=1) - 1

    def __iter__(self):
        tail = ""
        for chunk in self.chunks:
            seen = tail + chunk
            refuse_disallowed(seen, self.disallowed)
            tail = seen[max(0, len(seen) - self.keep):] if self.keep else ""
            yield chunk
