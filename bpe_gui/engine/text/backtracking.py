"""Whether a typed pattern needs the time limit: only one whose matching may take more
than linear time does.

With a time limit, the `regex` module reads the process's CPU clock as each match
starts (a system call per word, which doubles the time of counting a corpus), so a
pattern proved linear here runs without one. The proof is conservative: a pattern it
cannot prove keeps the limit, and that is the only way it can be wrong.

It looks at each alternative of the pattern as ``findall`` tries it at a position: one
that fails after looking at a bounded number of characters, or that matches after
looking at a bounded number beyond its match, makes ``findall`` look at each character
of a text a bounded number of times. An alternative passes when it is

- a run of *bounded* parts: characters and classes, repeats with an upper bound,
  anchors, and groups, alternatives and lookarounds of those, with a bounded number of
  ways to match (``'(?:[sdmt]|ll|ve|re)``, ``" ?"``, ``\\p{N}{1,3}``);
- ended by one unbounded repeat of a bounded part that never matches empty
  (``\\p{L}+``, ``(?:ab|c)*``): nothing after it can fail, so once it has its fewest
  turns it never gives a character back;
- or ended by an unbounded repeat of one class followed by a negative lookahead of a
  class that shares no character with it (``\\s+(?!\\S)``): it gives back at most one;
- or ended by a group whose alternatives pass.

Limited: backreferences, an unbounded repeat of a part that repeats without bound itself
(``(a+)+``), an unbounded repeat followed by anything else (``(a|aa)+b``, ``\\S+x``,
``\\w+\\s+``: quadratic on a long run of letters), and what the parser does not read
as `regex` does (version-1 sets and case folding, fuzzy ``{e<=1}``, reverse, POSIX).

Example: ``needs_time_limit(r"\\w+|\\s+") -> False``; ``needs_time_limit(r"(a+)+$") -> True``.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Iterator

import regex

from .dialects import INF, Alt, Anchor, Cls, DialectError, Dot, Group, Lit, Node, Range, Rep, \
    Seq, parse

# a bounded part with more ways to match, or that looks further, costs too much per
# position to count as bounded
MAX_WAYS = 64
MAX_LENGTH = 256
# flags under which `regex` reads a pattern otherwise than the parser, or searches harder
_OTHER_READING = regex.V1 | regex.FULLCASE | regex.REVERSE | regex.POSIX | \
    regex.BESTMATCH | regex.ENHANCEMATCH


@lru_cache(maxsize=256)
def needs_time_limit(pattern: str) -> bool:
    """Whether ``pattern`` (``regex`` syntax) may take more than linear time in
    ``findall``, so it must run with a time limit (see the module's text)."""
    try:
        tree = parse(pattern, "regex")
        flags = regex.compile(pattern).flags
    except (DialectError, regex.error):
        return True
    if flags & _OTHER_READING or any(isinstance(n, Lit) and n.cp == ord("{")
                                     for n in _nodes(tree)):
        return True   # ("{" read as a character may be a fuzzy constraint to `regex`)
    return not _linear(tree)


def _nodes(node: Node) -> Iterator[Node]:
    yield node
    children: tuple = ()
    if isinstance(node, Seq):
        children = node.items
    elif isinstance(node, Alt):
        children = node.branches
    elif isinstance(node, (Group, Rep)):
        children = (node.child,)
    for child in children:
        yield from _nodes(child)


def _linear(node: Node) -> bool:
    branches = node.branches if isinstance(node, Alt) else (node,)
    return all(_alternative(b) for b in branches)


def _alternative(node: Node) -> bool:
    items = node.items if isinstance(node, Seq) else (node,)
    for k in range(min(2, len(items)) + 1):   # the last k items: its unbounded end
        if _bounded(Seq(items[:len(items) - k])) is not None and \
                _open_end(items[len(items) - k:]):
            return True
    return False


def _open_end(tail: tuple) -> bool:
    """Whether the last items of an alternative are an end that never gives back more
    than one character (see the module's text); () passes."""
    if not tail:
        return True
    if len(tail) == 1:
        last = tail[0]
        if isinstance(last, Rep):
            part = _bounded(last.child)
            # (fewer than lo turns: it fails, after trying each way of those turns)
            return last.hi == INF and part is not None and part[0] > 0 and \
                part[2] ** last.lo <= MAX_WAYS and last.lo * part[1] <= MAX_LENGTH
        return isinstance(last, Group) and last.kind in ("cap", "nocap", "atomic") and \
            _linear(last.child)
    run, ahead = tail
    return isinstance(run, Rep) and run.hi == INF and run.lo <= MAX_LENGTH and \
        isinstance(ahead, Group) and ahead.kind == "nla" and _disjoint(_unit(run.child), _unit(ahead.child))


def _bounded(node: Node) -> tuple[int, int, int] | None:
    """(fewest characters it matches, most it looks at, ways it can match) of a part
    that looks at a bounded number of characters in a bounded number of ways; else
    None. Example: ``' ?\\p{L}'`` -> (1, 2, 2)."""
    if isinstance(node, (Lit, Cls, Dot)):
        return 1, 1, 1
    if isinstance(node, Anchor):
        return 0, 1, 1
    if isinstance(node, Group):
        got = _bounded(node.child)
        if got is None or node.kind not in ("la", "nla", "lb", "nlb"):
            return got
        return 0, got[1], got[2]
    if isinstance(node, Seq):
        low, length, ways = 0, 0, 1
        for x in node.items:
            got = _bounded(x)
            if got is None:
                return None
            low, length, ways = low + got[0], length + got[1], ways * got[2]
        return _capped(low, length, ways)
    if isinstance(node, Alt):
        parts = [p for p in map(_bounded, node.branches) if p is not None]
        if len(parts) < len(node.branches):
            return None
        return _capped(min(p[0] for p in parts), max(p[1] for p in parts),
                       sum(p[2] for p in parts))
    if isinstance(node, Rep) and node.hi != INF:
        got = _bounded(node.child)
        if got is None or got[1] * node.hi > MAX_LENGTH:
            return None
        ways = 0
        for k in range(node.lo, node.hi + 1):   # (greedy or lazy, it may try each count)
            ways += got[2] ** k
            if ways > MAX_WAYS:
                return None
        return got[0] * node.lo, got[1] * node.hi, ways
    return None   # backreferences, unbounded repeats


def _capped(low: int, length: int, ways: int) -> tuple[int, int, int] | None:
    return (low, length, ways) if length <= MAX_LENGTH and ways <= MAX_WAYS else None


def _unit(node: Node) -> Node | None:
    """The single character or class a part is (through plain groups), else None."""
    while isinstance(node, Group) and node.kind in ("cap", "nocap", "atomic"):
        node = node.child
    return node if isinstance(node, (Lit, Cls, Dot)) else None


def _disjoint(a: Node | None, b: Node | None) -> bool:
    """Whether two single characters or classes share no character, as far as their
    spelling shows it (no class tables are read): two different characters, a class and
    its complement (``\\s`` and ``\\S``), or a class and a negated class that holds all of
    its items (``[ab]`` and ``[^abc]``). Case-insensitive ones never pass."""
    if a is None or b is None or getattr(a, "ci", False) or getattr(b, "ci", False):
        return False
    if isinstance(a, Lit) and isinstance(b, Lit):
        return a.cp != b.cp
    if not (isinstance(a, Cls) and isinstance(b, Cls)) or a.ands or b.ands:
        return False
    if not a.neg and not b.neg and len(a.items) == len(b.items) == 1:
        x, y = a.items[0], b.items[0]
        return not isinstance(x, (Cls, Range)) and replace(x, neg=not x.neg) == y
    if a.neg != b.neg:
        plain, negated = (b, a) if a.neg else (a, b)
        return set(plain.items) <= set(negated.items)
    return False
