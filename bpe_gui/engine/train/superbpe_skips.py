"""SuperBPE's stage-2 words cut between the tokens of pairs it skips (see superbpe.py).

The core holds *parts*: pieces of the table's words, in table order. Each part is known
by its table word and byte start (``origin``: two arrays), so its text, and which parts
a table word has, are always at hand. Cuts go only between tokens, where a skipped pair
meets, so no token is ever split.
"""
from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right

import regex

from ..corpus.table import PretokenTable


class OffsetCore:
    """A core that started at step ``base`` (after a rebuild), seen as one that made
    every step: ``n_steps``, ``history`` and ``history_columns`` count from stage 2's
    first step."""

    def __init__(self, core, base: int):
        self.core, self.base = core, base

    def __getattr__(self, name):
        return getattr(self.core, name)

    @property
    def n_steps(self) -> int:
        return self.base + self.core.n_steps

    def history(self, start: int):
        return self.core.history(start - self.base)

    def history_columns(self, start: int) -> bytes:
        return self.core.history_columns(start - self.base)


def words_holding(table: PretokenTable, needles: list[bytes]) -> set[int]:
    """The table words whose bytes hold one of ``needles`` (one scan of the table)."""
    alt = b"|".join(regex.escape(n) for n in sorted(set(needles), key=len, reverse=True))
    blob, st = table.blob, table.starts
    out: set[int] = set()
    for m in regex.finditer(b"(?=(" + alt + b"))", blob):
        w = bisect_right(st, m.start()) - 1
        if m.start() + len(m.group(1)) <= st[w + 1]:
            out.add(w)
    return out


def part_texts(table: PretokenTable, origin) -> list[str]:
    """The text of each part (a part ends where the next part of its word begins)."""
    blob, st, (ow, olo) = table.blob, table.starts, origin
    texts, n = [], len(ow)
    for p in range(n):
        w, lo = ow[p], olo[p]
        hi = olo[p + 1] if p + 1 < n and ow[p + 1] == w else st[w + 1] - st[w]
        texts.append(blob[st[w] + lo:st[w] + hi].decode("utf-8", "replace"))
    return texts


class _Out:
    """The core's input being built: symbols, starts, freqs, and each part's origin."""

    def __init__(self):
        self.symbols, self.starts, self.freqs = array("i"), array("q", [0]), array("q")
        self.ow, self.olo = array("q"), array("q")

    def part(self, ids, f: int, w: int, lo: int) -> None:
        self.symbols.extend(ids)
        self.starts.append(len(self.symbols))
        self.freqs.append(f)
        self.ow.append(w)
        self.olo.append(lo)

    def cut_word(self, ids, f: int, w: int, lo: int, bad, tokens) -> None:
        """One part's ids, cut between the tokens of each pair ``bad(a, b)``."""
        first, pos = 0, lo
        for i in range(len(ids) - 1):
            pos += len(tokens[ids[i]])
            if bad(ids[i], ids[i + 1]):
                self.part(ids[first:i + 1], f, w, lo)
                first, lo = i + 1, pos
        self.part(ids[first:], f, w, lo)

    def result(self) -> tuple:
        return self.symbols, self.starts, self.freqs, (self.ow, self.olo)


def cut_parts(origin, seg: tuple, cand: set[int], bad, tokens) -> tuple:
    """(symbols, starts, freqs, origin) from the current parts (``seg``: their symbols,
    starts and freqs, as the core holds them now), each part of a table word in ``cand``
    cut at every pair ``bad(a, b)``."""
    ow = origin[0]   # (ascending: parts are in table order)
    cut = [p for w in sorted(cand) for p in range(bisect_left(ow, w), bisect_right(ow, w))]
    return _cut_runs(seg, origin, cut, bad, tokens)


def cut_table_words(seg: tuple, cand: set[int], bad, tokens) -> tuple:
    """The same when the parts are the table's words (``seg``: symbols, starts, freqs)."""
    n = len(seg[2])
    origin = (array("q", range(n)), array("q", bytes(8 * n)))
    return _cut_runs(seg, origin, sorted(cand), bad, tokens)


def _cut_runs(seg: tuple, origin, cut: list[int], bad, tokens) -> tuple:
    """The parts of ``seg`` with those numbered in ``cut`` (ascending) cut at ``bad``
    pairs; the runs of parts between them are copied in one piece each."""
    symbols0, starts0, freqs0 = seg
    ow, olo = origin
    out, prev, n = _Out(), 0, len(freqs0)
    for p in cut + [n]:
        if p > prev:   # parts prev..p-1, whole
            out.symbols.extend(symbols0[starts0[prev]:starts0[p]])
            out.starts.extend(starts0[prev + 1:p + 1])   # (a cut keeps every symbol)
            out.freqs.extend(freqs0[prev:p])
            out.ow.extend(ow[prev:p])
            out.olo.extend(olo[prev:p])
        if p == n:
            break
        out.cut_word(symbols0[starts0[p]:starts0[p + 1]], freqs0[p], ow[p], olo[p], bad, tokens)
        prev = p + 1
    return out.result()
