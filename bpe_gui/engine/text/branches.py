"""The top-level alternatives ("branches") of a pre-tokenizer pattern, and which one
matched each word.

A pre-tokenizer pattern is an alternation: at each position the regex tries its
alternatives left to right and the first that matches takes the word. GPT-2's pattern
has six::

    >>> from bpe_gui.engine.text.pretokenize import PRESETS
    >>> [b.source for b in pattern_branches(PRESETS["gpt2"])]
    ["'(?:[sdmt]|ll|ve|re)", ' ?\\\\p{L}+', ' ?\\\\p{N}+', ' ?[^\\\\s\\\\p{L}\\\\p{N}]+', '\\\\s+(?!\\\\S)', '\\\\s+']
    >>> BranchMatcher(PRESETS["gpt2"]).words("it's 42")
    [(0, 2, 1), (2, 4, 0), (4, 7, 2)]

:func:`split_alternatives` cuts a pattern at its top-level ``|`` only: not inside a
group (any kind, nested), a character class (``[|]``, ``[^]|]``, nested sets with
``(?V1)``, POSIX ``[[:alpha:]]``), after a backslash, or in an inline comment
(or a ``(?x)`` comment). Plain-words names and explanations of the preset branches live in
``branch_words.py``.
"""
from __future__ import annotations

from dataclasses import dataclass

import regex

from .branch_words import describe_branch
from ..errors import PatternError
from .pretokenize import compile_pattern, resolve_pattern

# Global inline flags at the very start, e.g. "(?i)" or "(?xV1)": they stay in front.
_LEADING_FLAGS = regex.compile(r"(?:\(\?[aiLmsuxbefprwV0-9]+\))*")


@dataclass(frozen=True)
class Branch:
    """One top-level alternative of a pattern: its regex, a short name, plain words."""

    index: int       # 0-based position in the alternation
    source: str      # the alternative's own regex text
    name: str        # e.g. "letters"
    about: str       # what it takes, in plain words

    @property
    def label(self) -> str:
        """Example: 'rule 2 · letters' (rules are counted from 1 for people)."""
        return f"rule {self.index + 1} · {self.name}"


def _skip_class(p: str, i: int, nested: bool) -> int:
    """Index just after the character class that starts at ``p[i] == '['``."""
    j = i + 1
    if p.startswith("^", j):
        j += 1
    if p.startswith("]", j):   # a ']' first in a class is a literal
        j += 1
    n = len(p)
    while j < n:
        c = p[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            if p.startswith("[:", j):            # POSIX class [:alpha:]
                end = p.find(":]", j + 2)
                if end >= 0:
                    j = end + 2
                    continue
            if nested:                             # V1 nested set [[a-z]--[aeiou]]
                j = _skip_class(p, j, nested)
                continue
        elif c == "]":
            return j + 1
        j += 1
    return n


def split_flags(pattern: str) -> tuple[str, str]:
    """``(leading global flags, the rest)``. Example: '(?i)a|b' -> ('(?i)', 'a|b')."""
    m = _LEADING_FLAGS.match(pattern)
    return pattern[:m.end()], pattern[m.end():]


def split_alternatives(pattern: str) -> list[str]:
    r"""The top-level alternatives of ``pattern`` (without its leading global flags).

    Example: ``'(?:a|b)|[|]|\\||c'`` -> ``['(?:a|b)', '[|]', '\\|', 'c']``.
    """
    flags, body = split_flags(pattern)
    verbose = "x" in flags
    nested = "V1" in flags or regex.DEFAULT_VERSION == regex.VERSION1
    parts, depth, start, i, n = [], 0, 0, 0, len(body)
    while i < n:
        c = body[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = _skip_class(body, i, nested)
            continue
        if c == "#" and verbose:
            end = body.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        if c == "(":
            if body.startswith("(?#", i):            # inline comment
                end = body.find(")", i)
                i = n if end < 0 else end + 1
                continue
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        elif c == "|" and depth == 0:
            parts.append(body[start:i])
            start = i + 1
        i += 1
    parts.append(body[start:])
    return parts


def pattern_branches(pattern: str) -> list[Branch]:
    """The branches of a preset name or pattern, each named and explained."""
    pattern, preset = resolve_pattern(pattern)
    alts = split_alternatives(pattern)
    flags = split_flags(pattern)[0]
    try:   # a pattern our splitter misreads still works: as one branch
        for a in alts:
            regex.compile(flags + a)
    except regex.error:
        alts = [split_flags(pattern)[1]]
    return [Branch(k, a, *describe_branch(pattern, preset, k, a)) for k, a in enumerate(alts)]


def _renumbers(alternatives: list[str]) -> bool:
    """True if wrapping the alternatives in groups would change what they mean:
    numbered back-references (\\1, \\g<1>), recursion ((?R), (?1)), conditionals."""
    probe = regex.compile(r"\\\\|\\[0-9]|\\g<[0-9+-]|\(\?(?:R|[+-]?[0-9]|\(|&)")
    return any(m.group() != "\\\\" for a in alternatives for m in probe.finditer(a))


class BranchMatcher:
    """Finds the words of a text with a pattern, and the branch that took each.

    One pass with the alternatives wrapped in numbered groups (the group that closed
    last is the branch). A pattern whose meaning depends on group numbers is matched
    as it is, and each word's branch is the first alternative that matches alone at
    the word's start, which is the same rule the regex engine follows.
    """

    def __init__(self, pattern: str, timeout: float | None = None):
        self.pattern, self.preset = resolve_pattern(pattern)
        self.regex = compile_pattern(self.pattern)
        self.branches = pattern_branches(self.pattern)
        self.timeout = timeout
        flags = split_flags(self.pattern)[0]
        alts = [b.source for b in self.branches]
        self._alone = [regex.compile(flags + a) for a in alts]
        self._group_branch: dict[int, int] | None = None
        if len(alts) > 1 and not _renumbers(alts):
            wrapped = regex.compile(flags + "|".join(f"({a})" for a in alts))
            index, table = 1, {}
            for k, alone in enumerate(self._alone):
                table[index] = k
                index += 1 + alone.groups
            self.regex, self._group_branch = wrapped, table

    def branch_at(self, text: str, start: int) -> int:
        """The first alternative that matches alone at ``start`` (0 if none does)."""
        for k, alone in enumerate(self._alone):
            if alone.match(text, start, timeout=self.timeout) is not None:
                return k
        return 0

    def words(self, text: str, pos: int = 0, stop: int | None = None) -> list[tuple[int, int, int]]:
        """``(start, end, branch)`` of each non-empty word of ``text`` that starts in
        ``pos..stop-1``. The search starts at ``pos`` (so ``pos`` must be a word start)
        and sees the whole text, as look-aheads such as ``(?!\\S)`` need."""
        stop = len(text) if stop is None else stop
        found = []
        try:
            for m in self.regex.finditer(text, pos, timeout=self.timeout):
                s, e = m.span()
                if s >= stop:
                    break
                if e > s:
                    found.append((s, e, m.lastindex))
        except TimeoutError as e:
            raise PatternError(
                f"The pre-tokenizer pattern ran for more than {self.timeout:g} s on "
                f"{len(text) - pos:,} characters, so it was stopped. Simplify it or pick "
                "a preset.") from e
        table = self._group_branch
        if table is not None:
            return [(s, e, table.get(g, 0)) for s, e, g in found]
        if len(self.branches) == 1:
            return [(s, e, 0) for s, e, _g in found]
        return [(s, e, self.branch_at(text, s)) for s, e, _g in found]
