"""A slow, obviously-correct BPE trainer whose rules can be the usual mistakes.

The engine's trainer (the C core) counts pairs one way: every adjacent pair inside a
word, bytes as the first symbols. Some mistakes learners make are not settings of it
-- pairs of a run like ``aaa`` counted without overlaps, words started from characters
instead of bytes, ties broken towards the smallest pair -- so the check re-trains with
this one, in plain Python, to see whether such a rule reproduces the learner's merges.

Symbols are token bytes (as CS336-style trainers keep them: a word is a tuple of
``bytes``). Counts are kept per word, so a rule only has to say how one word's pairs
are counted (:func:`count_word`) and how a merge rewrites one word (:func:`merge_word`);
after each merge only the words holding the pair are counted again.

Example::

    >>> train_slow([("aaa", 3), ("ab", 1)], Rules(counting="runs-halved"), 2)
    [((b'a', b'a'), 3), ((b'aa', b'a'), 3)]
"""
from __future__ import annotations

import heapq
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Callable, Sequence

from ..display import gpt2_text
from ..errors import Cancelled

Pair = tuple[bytes, bytes]


@dataclass(frozen=True)
class Rules:
    """How a trainer counts and merges.

    ``base``: "bytes" (each UTF-8 byte a symbol) or "chars" (each character's bytes one
    symbol). ``counting``: "adjacent" (every adjacent pair: ``a a a`` holds ``(a, a)``
    twice), "runs-halved" (a run of one symbol counted without overlaps, as the merge
    will replace it: ``a a a`` once, ``a a a a`` twice), "skip-after-repeat" (a scan
    that jumps over the next symbol after counting a pair of two equal symbols, so it
    also misses the pair after it). ``merging``: "left" (left to right, the rule) or
    "right" (right to left: ``a a a`` -> ``a aa``). ``tie``: "greatest" (the greatest
    pair of bytes), "least", "first-seen" (first occurrence scanning words in order),
    "lowest-ids" (bytes in order, then new tokens in the order made). ``id_order``: how
    "lowest-ids" numbers the first symbols: "bytes" (by value) or "gpt2" (sorted in
    GPT-2's byte-to-unicode alphabet, as Hugging Face's trainer numbers its alphabet).
    """

    base: str = "bytes"
    counting: str = "adjacent"
    merging: str = "left"
    tie: str = "greatest"
    id_order: str = "bytes"


def count_word(symbols: Sequence[bytes], counting: str = "adjacent") -> dict[Pair, int]:
    """The pairs of one word under a counting rule.

    Example: [a, a, a, a, b] -> adjacent {(a, a): 3, (a, b): 1}; runs-halved
    {(a, a): 2, (a, b): 1}; skip-after-repeat {(a, a): 2} (its last jump skips (a, b)).
    """
    n = len(symbols)
    if counting == "skip-after-repeat":
        out: dict[Pair, int] = defaultdict(int)
        i = 0
        while i < n - 1:
            out[(symbols[i], symbols[i + 1])] += 1
            i += 2 if symbols[i] == symbols[i + 1] else 1
        return out
    out = Counter(zip(symbols, symbols[1:]))
    if counting == "runs-halved" and any(map(bytes.__eq__, symbols, symbols[1:])):
        i = 0
        while i < n:
            j = i
            while j + 1 < n and symbols[j + 1] == symbols[i]:
                j += 1
            if j > i:   # a run of j - i + 1 equal symbols: (j - i + 1) // 2 without overlaps
                out[(symbols[i], symbols[i])] += (j - i + 1) // 2 - (j - i)
            i = j + 1
    return out


def merge_word(symbols: Sequence[bytes], pair: Pair, merging: str = "left") -> list[bytes]:
    """Replace ``pair`` without overlaps, scanning from the left (or the right).

    Example: [a, a, a] with (a, a) -> left [aa, a]; right [a, aa].
    """
    a, b = pair
    right = merging == "right"   # the same scan over the word reversed, the pair too
    syms, (x, y) = (symbols[::-1], (b, a)) if right else (symbols, pair)
    out: list[bytes] = []
    i = 0
    while i < len(syms):
        if i + 1 < len(syms) and syms[i] == x and syms[i + 1] == y:
            out.append(a + b)
            i += 2
        else:
            out.append(syms[i])
            i += 1
    return out[::-1] if right else out


def start_symbols(word: str, base: str) -> list[bytes]:
    """Example: "né" -> bytes [b'n', b'\\xc3', b'\\xa9']; chars [b'n', b'\\xc3\\xa9']."""
    if base == "chars":
        return [c.encode("utf-8") for c in word]
    return [bytes([x]) for x in word.encode("utf-8")]


def _greater_first(pair: Pair) -> tuple[int, ...]:
    """A heap key (heapq pops the smallest) that puts the greater pair of bytes first:
    each byte x as 255 - x, each token ended by 256, so a token before a longer one it
    begins (the smaller) sorts after it. Example: (b"a", b"b") sorts before (b"a", b"a")."""
    a, b = pair
    return (*(255 - x for x in a), 256, *(255 - x for x in b), 256)


def _start(words: Sequence[tuple[str, int]], rules: Rules):
    """Each word's first symbols, its count, every pair's count and the words holding it."""
    seqs = [start_symbols(w, rules.base) for w, _ in words]
    freqs = [f for _, f in words]
    counts: dict[Pair, int] = defaultdict(int)
    where: dict[Pair, set[int]] = defaultdict(set)
    for wid, syms in enumerate(seqs):
        for p, n in count_word(syms, rules.counting).items():
            counts[p] += n * freqs[wid]
            where[p].add(wid)
    return seqs, freqs, counts, where


def train_slow(words: Sequence[tuple[str, int]], rules: Rules, n_steps: int,
               expected: Sequence[Pair] | None = None, deadline: float | None = None,
               cancel: Callable[[], bool] | None = None) -> list[tuple[Pair, int]]:
    """Train ``n_steps`` merges on ``words`` ((text, count) in order of first appearance)
    under ``rules``: [(pair, count)]. With ``expected`` it stops at the first merge that
    differs from it (that merge included): the check only asks how far a rule agrees.
    Past ``deadline`` (a ``time.monotonic()`` value) it stops early; ``cancel()`` raises
    Cancelled.
    """
    seqs, freqs, counts, where = _start(words, rules)
    first = {s for syms in seqs for s in syms}
    order = sorted(first, key=gpt2_text) if rules.id_order == "gpt2" else sorted(first)
    ids = {t: i for i, t in enumerate(order)}
    key = _key_function(rules.tie, ids)
    heap = [(-c, key(p), p) for p, c in counts.items() if c > 0]
    heapq.heapify(heap)
    out: list[tuple[Pair, int]] = []
    while len(out) < n_steps:
        if cancel is not None and cancel():
            raise Cancelled()
        if deadline is not None and time.monotonic() > deadline:
            break
        best = _pop_best(heap, counts, rules.tie, seqs, key)
        if best is None:
            break
        pair, count = best
        out.append((pair, count))
        if expected is not None and (len(out) > len(expected) or expected[len(out) - 1] != pair):
            break
        ids.setdefault(pair[0] + pair[1], len(ids))
        changed = _apply(pair, seqs, freqs, counts, where, rules)
        for p in changed:
            c = counts.get(p, 0)
            if c > 0:
                heapq.heappush(heap, (-c, key(p), p))
    return out


def replay(words: Sequence[tuple[str, int]], rules: Rules, merges: Sequence[Pair]
           ) -> tuple[list[list[bytes]], list[int], dict[Pair, int]]:
    """The words after ``merges`` made in order under ``rules``: (each word's symbols,
    its count, every pair's count). Example: [("aaa", 2)] after [(a, a)] under "left":
    ([[aa, a]], [2], {(aa, a): 2})."""
    seqs, freqs, counts, where = _start(words, rules)
    for pair in merges:
        _apply(pair, seqs, freqs, counts, where, rules)
    return seqs, freqs, {p: c for p, c in counts.items() if c > 0}


def _key_function(tie: str, ids: dict[bytes, int]) -> Callable[[Pair], object]:
    if tie == "least" or tie == "first-seen":
        return lambda p: p
    if tie == "lowest-ids":
        return lambda p: (ids[p[0]], ids[p[1]])
    return _greater_first


def _pop_best(heap: list, counts: dict[Pair, int], tie: str, seqs: list[list[bytes]],
              key) -> tuple[Pair, int] | None:
    """The best live pair (stale heap entries dropped on the way)."""
    while heap:
        c, _, p = heap[0]
        if counts.get(p, 0) != -c:
            heapq.heappop(heap)
            continue
        if tie != "first-seen":
            return p, -c
        tied = []   # every live entry at the top count
        while heap and heap[0][0] == c:
            _, _, q = heapq.heappop(heap)
            if counts.get(q, 0) == -c and q not in tied:
                tied.append(q)
        winner = _first_seen(tied, seqs)
        for q in tied:
            heapq.heappush(heap, (c, key(q), q))
        return winner, -c
    return None


def _first_seen(tied: list[Pair], seqs: list[list[bytes]]) -> Pair:
    """The tied pair met first scanning words in order of first appearance."""
    if len(tied) == 1:
        return tied[0]
    wanted = set(tied)
    for syms in seqs:
        for i in range(len(syms) - 1):
            if (syms[i], syms[i + 1]) in wanted:
                return (syms[i], syms[i + 1])
    return min(tied)


def _apply(pair: Pair, seqs: list[list[bytes]], freqs: list[int], counts: dict[Pair, int],
           where: dict[Pair, set[int]], rules: Rules) -> set[Pair]:
    """Merge ``pair`` in every word that holds it; the pairs whose counts changed."""
    changed: set[Pair] = set()
    counting, merging = rules.counting, rules.merging
    for wid in list(where.pop(pair, ())):
        syms = seqs[wid]
        new = merge_word(syms, pair, merging)
        if len(new) == len(syms):
            continue
        f = freqs[wid]
        before, after = count_word(syms, counting), count_word(new, counting)
        for p, n in before.items():
            d = after.get(p, 0) - n
            if d:
                counts[p] += d * f
                changed.add(p)
        for p, n in after.items():
            if p not in before:
                counts[p] += n * f
                where[p].add(wid)
                changed.add(p)
        seqs[wid] = new
    counts.pop(pair, None)
    return changed
