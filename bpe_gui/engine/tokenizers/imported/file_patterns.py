"""Regexes from tokenizer files, run under the time limit of custom patterns when
their shape lets them run away.
"""
from __future__ import annotations

import time
from functools import cached_property
from typing import Any, Callable

import regex

from ...text import pretokenize
from ...errors import PatternError


class FilePattern:
    """A regex from a tokenizer file, run with the time limit of custom patterns: one
    that backtracks catastrophically (``(a|aa)+$``) stops with a PatternError naming the
    file and key, as a custom pre-tokenizer pattern does. A time limit makes ``regex``
    ~2.5x slower, so it is kept for the patterns that can run away exponentially: those
    that repeat a group (``(a|aa)+``, ``(a+)*``) or refer back to one;
    literal text and patterns without such repetition (those of published tokenizers,
    ``'s|\\p{L}+|\\s+(?!\\S)``) run without it."""

    def __init__(self, compiled: "regex.Pattern[str] | Callable[[], Any]", where: str,
                 source: str, literal: bool = False, classes=None, text: str | None = None):
        """``compiled``: the regex, or, with its ``text``, a function that compiles it when
        it first runs (a pattern the native scanner runs: pinning it to a library's
        Unicode version takes ~60 ms and megabytes of class tables that are then
        seldom needed)."""
        if text is None:
            self.regex = compiled
            text = compiled.pattern  # type: ignore[union-attr]
        else:
            self._compile = compiled
        self.pattern = text               # regex syntax (a file's Oniguruma one translated)
        self.classes = classes            # the Unicode tables of its classes (None: regex's)
        self.where = where
        self.source = source
        self.timed = not literal and may_run_away(text)

    @cached_property
    def regex(self):
        """The compiled pattern (given, or made when first read)."""
        return self._compile()

    def finditer(self, text: str) -> list:
        # a list: finditer is lazy and would time out outside the try
        return self._timed(lambda t, limit: list(self.regex.finditer(t, timeout=limit)), text)

    def findall(self, text: str) -> list:
        """regex's findall, time-limited like finditer."""
        return self._timed(lambda t, limit: self.regex.findall(t, timeout=limit), text)

    def onig_spans(self, text: str) -> list[tuple[int, int]]:
        """The matches as Oniguruma iterates them (:func:`onig_spans`), time-limited."""
        return self._timed(lambda t, limit: onig_spans(self.regex, t, limit), text)

    def sub(self, repl, text: str) -> str:
        return self._timed(lambda t, limit: self.regex.sub(repl, t, timeout=limit), text)

    def _timed(self, run, text: str):
        timeout = pretokenize.CUSTOM_TIMEOUT_S if self.timed else None
        try:
            return run(text, timeout)
        except TimeoutError as e:
            raise PatternError(
                f"{self.source or '<input>'}, key {self.where!r}: the regex ran for more than "
                f"{timeout:g} s on {len(text):,} characters, so it was stopped. It backtracks "
                "catastrophically (nested quantifiers such as (a|aa)+); fix it in the file."
            ) from e


def onig_spans(compiled, text: str, timeout: float | None = None) -> list[tuple[int, int]]:
    """The (start, end) of each match as tokenizers iterates Oniguruma's matches: each
    search starts where the previous match ended; an empty match right where the
    previous one ended is skipped and the search moves on one character. (`regex`'s
    finditer instead looks for a non-empty match at the place of an empty one: for
    ``\\A|\\w+`` on 'ab' it finds '' and 'ab', Oniguruma '' then 'b'.)

    Example: ('a|', 'ab') -> [(0, 1), (2, 2)]

    Up to the first empty match both iterate alike, so `regex`'s finditer runs until
    then; ``timeout`` bounds the whole call.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    out: list[tuple[int, int]] = []
    pos, last, n = 0, -1, len(text)
    for m in compiled.finditer(text, timeout=timeout):
        s, e = m.span()
        if s == e:
            break
        out.append((s, e))
        pos = last = e
    else:
        return out
    search = compiled.search
    while pos <= n:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            raise TimeoutError("regex timed out")
        m = search(text, pos, timeout=left)
        if m is None:
            break
        s, e = m.span()
        if s == e and e == last:
            pos = e + 1
            continue
        out.append((s, e))
        pos = last = e
    return out


_REPEATED = regex.compile(r"[*+{]")   # a group repeated (even {1,50}: many ways to split)


def may_run_away(pattern: str) -> bool:
    """Whether a regex repeats a group or has a back-reference: the shapes whose
    backtracking can grow exponentially with the text.

    Example: '(a|aa)+$' -> True; "(?i:'s|'t)|\\p{L}+|\\s+(?!\\S)" -> False
    """
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 < n and (pattern[i + 1].isdigit() and pattern[i + 1] != "0"
                              or pattern[i + 1] in "gk"):
                return True   # \1, \g<1>, \k<name>
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "]":   # []...] : a literal ] first
                i += 1
        elif c == ")" and _REPEATED.match(pattern, i + 1):
            return True
        i += 1
    return False
