"""A typed pattern runs without the time limit only when it is proved linear
(text/backtracking.py): held against a slow backtracking matcher written here, which
counts its steps, on random patterns and texts with long runs."""
from __future__ import annotations

import random

import pytest
import regex

from bpe_gui.engine.errors import PatternError
from bpe_gui.engine.text import pretokenize
from bpe_gui.engine.text.backtracking import needs_time_limit
from bpe_gui.engine.text.pretokenize import Pretokenizer

GPT2_PLUS = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+|\x00"""


# ----- the oracle: a plain backtracking matcher that counts its steps ----------------------
class TooSlow(Exception):
    pass


# (regex text, test on one character) over the texts' alphabet "a", "b", " "
ATOMS = [("a", lambda c: c == "a"), ("b", lambda c: c == "b"), (" ", lambda c: c == " "),
         ("[ab]", lambda c: c in "ab"), (r"\s", str.isspace), (r"\S", lambda c: not c.isspace()),
         ("[^a]", lambda c: c != "a"), (".", lambda c: c != "\n")]
# (text, fewest, most or None)
QUANTIFIERS = [("?", 0, 1), ("*", 0, None), ("+", 1, None), ("{1,3}", 1, 3), ("{2,}", 2, None)]


class Backtracker:
    """Matches as a backtracking engine does, trying choices in `regex`'s order; every
    call is a step. ``m(node, i)`` yields the ends of the node's matches at ``i``, the
    preferred first."""

    def __init__(self, text: str, limit: int):
        self.text, self.limit, self.steps = text, limit, 0

    def m(self, node, i):
        self.steps += 1
        if self.steps > self.limit:
            raise TooSlow
        kind = node[0]
        if kind == "atom":
            if i < len(self.text) and node[1](self.text[i]):
                yield i + 1
        elif kind == "seq":
            yield from self.seq(node[1], 0, i)
        elif kind == "alt":
            for branch in node[1]:
                yield from self.m(branch, i)
        elif kind == "nla":
            if next(self.m(node[1], i), None) is None:
                yield i
        else:
            _, child, lo, hi, mode = node
            ends = self.rep(child, lo, hi, i, 0, mode != "lazy")
            if mode == "poss":
                first = next(ends, None)
                if first is not None:
                    yield first
            else:
                yield from ends

    def seq(self, items, k, i):
        if k == len(items):
            yield i
            return
        for j in self.m(items[k], i):
            yield from self.seq(items, k + 1, j)

    def rep(self, child, lo, hi, i, count, greedy):
        self.steps += 1
        if not greedy and count >= lo:
            yield i
        if hi is None or count < hi:
            for j in self.m(child, i):
                if j > i or count < lo:   # (an empty turn past the fewest ends the repeat)
                    yield from self.rep(child, lo, hi, j, count + 1, greedy)
        if greedy and count >= lo:
            yield i


def oracle_findall(node, text: str, limit: int = 300_000) -> tuple[list[str], int, bool]:
    """(the matches, steps, whether a match was empty), as ``findall`` scans."""
    bt = Backtracker(text, limit)
    out, pos, empty = [], 0, False
    while pos <= len(text):
        end = next(bt.m(node, pos), None)
        if end is None:
            pos += 1
            continue
        out.append(text[pos:end])
        empty |= end == pos
        pos = max(end, pos + 1)
    return out, bt.steps, empty


def random_pattern(rng: random.Random, depth: int) -> tuple[str, tuple]:
    r = rng.random()
    if depth == 0 or r < 0.35:
        text, test = rng.choice(ATOMS)
        return text, ("atom", test)
    if r < 0.55:
        parts = [random_pattern(rng, depth - 1) for _ in range(rng.randint(2, 3))]
        return "".join(t for t, _ in parts), ("seq", [n for _, n in parts])
    if r < 0.7:
        parts = [random_pattern(rng, depth - 1) for _ in range(rng.randint(2, 3))]
        return "(?:" + "|".join(t for t, _ in parts) + ")", ("alt", [n for _, n in parts])
    text, node = random_pattern(rng, depth - 1)
    if r < 0.77:
        return f"(?!{text})", ("nla", node)
    q, lo, hi = rng.choice(QUANTIFIERS)
    mode = rng.choice(["greedy", "greedy", "lazy", "poss"])
    suffix = {"greedy": "", "lazy": "?", "poss": "+"}[mode]
    return f"(?:{text}){q}{suffix}", ("rep", node, lo, hi, mode)


def grows_linearly(node) -> bool:
    """Whether the steps on texts with long runs grow with their length, not faster:
    four times the text, at most five times the steps."""
    for unit in ("a", "b", " ", "ab", "a b", "aab ", "b  "):
        try:
            short = oracle_findall(node, unit * 12)[1]
            long = oracle_findall(node, unit * 48)[1]
        except TooSlow:
            return False
        if long > 5 * short:
            return False
    return True


def test_the_oracle_tells_a_quadratic_pattern():
    """[ab]+b on 'aaa...': each start scans the run to its end and backs off all of it."""
    node = ("alt", [("seq", [("rep", ("atom", ATOMS[3][1]), 1, None, "greedy"),
                             ("atom", ATOMS[1][1])]), ("atom", ATOMS[2][1])])
    assert not grows_linearly(node)
    assert needs_time_limit("(?:[ab])+b| ")


def test_patterns_proved_linear_are_linear():
    """Random patterns: every one proved linear grows linearly in the oracle's steps (and
    the oracle finds `regex`'s words, so it matches as `regex` does)."""
    rng = random.Random(20261126)
    proved = limited = 0
    for _ in range(400):
        branches = [random_pattern(rng, 2) for _ in range(rng.randint(1, 3))]
        pattern = "|".join(t for t, _ in branches)
        node = ("alt", [n for _, n in branches])
        if needs_time_limit(pattern):
            limited += 1
            continue
        proved += 1
        assert grows_linearly(node), pattern
        for text in ("ab  aab b", "aaaa bbb  a", " b a ab"):
            words, _, empty = oracle_findall(node, text)
            if not empty:
                assert words == regex.findall(pattern, text), (pattern, text)
    assert proved >= 60 and limited >= 60, (proved, limited)


@pytest.mark.parametrize("pattern", [
    GPT2_PLUS, r"\w+|\s+", r"\S+|\s+", r"\p{Han}|[^\p{Han}\s]+|\s+", r"(\p{L}+)|\s",
    r" ?(?:\p{L}+|\p{N}+)|\s+", r"\p{N}{1,3}|[ab]+(?![^abc])",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",
])
def test_typed_patterns_that_are_linear(pattern):
    assert not needs_time_limit(pattern)


@pytest.mark.parametrize("pattern", [
    r"(a+)+$", r"(a|aa)+b", r"(.*){1,32000}[bc]", r"\S+x|\s", r"\w+\s+", r"\w+(?=\s)",
    r"\s+$", r"\s+(?!\s)", r"(\w)\1", r"(?V1)\w+", r"(?:ab){e<=1}", r"a{1000,}",
    r"\s*[\r\n]+", r"(?i)a+(?!b)", r"\p{L}+(?!\p{N})", r"(?<=a+)b", r"(?:a|b){1,100}",
    r"(?r)\w+",
])
def test_patterns_that_keep_the_limit(pattern):
    """Exponential, quadratic, or read otherwise by `regex` than by the parser (version 1,
    fuzzy, reverse); or linear in a way the proof does not see (\\s*[\\r\\n]+)."""
    assert needs_time_limit(pattern)


class _Spy:
    """Stands for a compiled pattern and records the time limit each call gets."""

    def __init__(self, compiled):
        self.compiled, self.limits = compiled, []
        self.groups = compiled.groups

    def findall(self, text, **kw):
        self.limits.append(kw.get("timeout"))
        return self.compiled.findall(text, **kw)

    def finditer(self, text, **kw):
        self.limits.append(kw.get("timeout"))
        return self.compiled.finditer(text, **kw)


def test_a_linear_typed_pattern_runs_without_the_limit():
    """With a limit, `regex` reads the CPU clock at every word (twice the time); the
    same words come out without it."""
    pre = Pretokenizer(GPT2_PLUS)
    spy = pre.__dict__["regex"] = _Spy(pre.regex)
    text = "It's 42 o'clock,  you know.\n"
    assert pre.words(text) == regex.findall(GPT2_PLUS, text)
    assert [e - s for s, e, _ in pre.spans(text)] == [len(w) for w in pre.words(text)]
    assert spy.limits and set(spy.limits) == {None}


def test_a_quadratic_pattern_is_still_stopped(monkeypatch):
    """Not exponential, but on a long run of letters each start scans the whole run:
    hours on this text, stopped by the limit with the message that says what to do."""
    monkeypatch.setattr(pretokenize, "CUSTOM_TIMEOUT_S", 0.2)
    pre = Pretokenizer(r"\w+(?=\s)|\s+")
    with pytest.raises(PatternError) as e:
        pre.words("a" * 200_000)
    msg = str(e.value)
    assert r"'\w+(?=\s)|\s+' ran for more than 0.2 s" in msg   # the pattern, as typed
    assert "a repeat followed by something that can fail" in msg
    assert "simplify it or pick a preset" in msg
