"""Pure-Python stand-in for the C core's plain ``Core`` (``_pycore`` exports it with the
columns' ``ColumnCore``), used only if the extension is missing.

Same API and results, but it recounts pairs on every call, so it is only fit for
small corpora. It exists so the app still runs where no C compiler was available.
"""
from __future__ import annotations

import functools
import struct
from array import array
from collections import defaultdict

GREATEST, FIRST_SEEN, LOWEST_IDS, LOWEST_HF, GREATEST_HF = 0, 1, 2, 3, 4


@functools.lru_cache(maxsize=1)
def hf_byte_ranks() -> list[int]:
    """Byte -> its id in tokenizers' byte-level alphabet (sorted by the character GPT-2's
    byte-to-character map gives it: the bytes that stand for themselves first, in order,
    then the others, in order), as LOWEST_HF compares the 256 byte tokens."""
    selfs = [b for b in range(256) if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or b >= 0xAE]
    order = selfs + [b for b in range(256) if b not in set(selfs)]
    rank = [0] * 256
    for r, b in enumerate(order):
        rank[b] = r
    return rank


class Core:
    def __init__(self, symbols, starts, freqs, token_bytes, tie_rule=GREATEST, undo=True):
        starts = list(starts)
        symbols = list(symbols)
        if len(starts) != len(freqs) + 1:
            raise ValueError("starts must have one more entry than freqs")
        self.tokens = [bytes(t) for t in token_bytes]
        if any(s < 0 or s >= len(self.tokens) for s in symbols):
            raise ValueError("symbol id out of range of token_bytes")
        self.words = [symbols[starts[i]:starts[i + 1]] for i in range(len(freqs))]
        self.freqs = list(freqs)
        self.rule = tie_rule
        # LOWEST_HF and GREATEST_HF rank the bytes only in byte mode (ids 0..255 are the
        # 256 bytes)
        bytes_first = len(self.tokens) >= 256 and all(
            self.tokens[i] == bytes([i]) for i in range(256))
        self._hf = hf_byte_ranks() if tie_rule in (LOWEST_HF, GREATEST_HF) and bytes_first \
            else None
        self._history: list[tuple[int, int, int, int, dict[int, list[int]]]] = []
        self._undo = bool(undo)   # False: only the last step keeps its words (touched)
        self._reused: list[bool] = []   # per step: its token was made before (merge into)

    n_tokens = property(lambda self: len(self.tokens))
    n_steps = property(lambda self: len(self._history))
    n_pairs = property(lambda self: sum(1 for v in self._counts()[0].values() if v > 0))
    total_symbols = property(lambda self: sum(len(w) * f for w, f in zip(self.words, self.freqs)))

    def _counts(self, freqs=None):
        """Every pair's count, weighted by ``freqs`` (default: the words' own counts),
        and its first occurrence."""
        counts: dict[tuple[int, int], int] = defaultdict(int)
        first: dict[tuple[int, int], int] = {}
        pos = 0
        for w, f in zip(self.words, self.freqs if freqs is None else freqs):
            for i, p in enumerate(zip(w, w[1:])):
                counts[p] += f
                first.setdefault(p, pos + i)
            pos += len(w) + 1
        return counts, first

    def _ordered(self, freqs=None):
        counts, first = self._counts(freqs)
        def key(p):
            if self.rule == GREATEST:
                return -counts[p], _Inv(self.tokens[p[0]]), _Inv(self.tokens[p[1]])
            if self.rule == GREATEST_HF:
                return -counts[p], _Inv(self._spelled(p[0])), _Inv(self._spelled(p[1]))
            if self.rule == FIRST_SEEN:
                return -counts[p], first[p]
            if self._hf is not None:
                return -counts[p], tuple(self._hf[t] if t < 256 else t for t in p)
            return -counts[p], p
        return sorted((p for p in counts if counts[p] > 0), key=key), counts

    def _spelled(self, t):
        """Token t's bytes ranked as GREATEST_HF compares them (as GPT-2's characters)."""
        tok = self.tokens[t]
        return tok if self._hf is None else bytes(self._hf[x] for x in tok)

    def best(self):
        order, counts = self._ordered()
        return (*order[0], counts[order[0]]) if order else None

    def top(self, k):
        order, counts = self._ordered()
        return [(a, b, counts[(a, b)]) for a, b in order[:k]]

    def tied(self, limit):
        order, counts = self._ordered()
        if not order:
            return 0, []
        top = [(*p, counts[p]) for p in order if counts[p] == counts[order[0]]]
        return len(top), top[:limit]

    def step(self):
        best = self.best()
        if best is None:
            return None
        a, b, count = best
        self._merge(a, b, count, self.tied(1)[0])
        return a, b, len(self.tokens) - 1, count

    def merge(self, a, b, into=-1):
        if not (0 <= a < len(self.tokens) and 0 <= b < len(self.tokens)):
            raise ValueError(f"merge({a}, {b}): token id out of range")
        if into >= 0 and (into >= len(self.tokens)
                          or self.tokens[into] != self.tokens[a] + self.tokens[b]):
            raise ValueError(f"merge({a}, {b}, into={into}): token id out of range, or token "
                             f"{into} is not token {a}'s bytes then token {b}'s")
        count = self.pair_count(a, b)
        n_tied = self.tied(1)[0] if count and count == self.best()[2] else 0
        self._merge(a, b, count, n_tied, into)
        return (len(self.tokens) - 1 if into < 0 else into), count

    def replay(self, pairs, top_k=0):
        pairs = list(pairs)
        if len(pairs) % 2:
            raise ValueError("pairs must hold a, b for each merge")
        counts, ends, changed, tops = array("q"), array("q"), [], []
        for i in range(0, len(pairs), 2):
            a, b = pairs[i], pairs[i + 1]
            if top_k:
                t = self.top(top_k)
                tops += t + [(-1, -1, 0)] * (top_k - len(t))
            before = dict(self._counts()[0])
            if a < 0:
                counts.append(0)
            else:
                if not (0 <= a < len(self.tokens) and 0 <= b < len(self.tokens)):
                    raise ValueError(f"replay: merge {i // 2} names a token id that does "
                                     f"not exist yet ({a}, {b})")
                counts.append(self.merge(a, b)[1])
                after = self._counts()[0]
                changed += [(*p, after.get(p, 0)) for p in sorted(set(before) | set(after))
                            if after.get(p, 0) != before.get(p, 0)]
            ends.append(len(changed))
        return (counts.tobytes(), ends.tobytes(), _records(changed), _records(tops))

    def _merge(self, a, b, count, n_tied, into=-1):
        new = into
        if into < 0:   # (into >= 0: a token made before, kept by the undo)
            new = len(self.tokens)
            self.tokens.append(self.tokens[a] + self.tokens[b])
        before: dict[int, list[int]] = {}
        for wi, w in enumerate(self.words):
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(new)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            if len(out) != len(w):
                before[wi] = w
                self.words[wi] = out
        merged = sum(self.freqs[wi] * (len(w) - len(self.words[wi])) for wi, w in before.items())
        gone = (self.symbol_count(a) == 0) | ((self.symbol_count(b) == 0) << 1)
        if not self._undo and self._history:
            a0, b0, new0, count0, _, extra0 = self._history[-1]
            self._history[-1] = (a0, b0, new0, count0, {}, extra0)
        self._history.append((a, b, new, count, before, (n_tied, merged, gone)))
        self._reused.append(into >= 0)

    def history(self, start):
        return [(a, b, new, count, *extra) for a, b, new, count, _, extra in self._history[start:]]

    def history_columns(self, start):
        steps = self.history(start)
        return b"".join(array("q", column).tobytes() for column in zip(*steps))

    def run(self, n, min_count=1):
        done = 0
        while done < n:
            best = self.best()
            if best is None or best[2] < min_count:
                break
            self.step()
            done += 1
        return done

    def undo(self):
        if not self._history:
            raise IndexError("no step to undo")
        if not self._undo:
            raise RuntimeError("this Core keeps no undo log (it was made with undo=False), "
                               "so it cannot go back a step: make it with undo=True to undo")
        a, b, new, _, before, _ = self._history.pop()
        for wi, w in before.items():
            self.words[wi] = w
        if not self._reused.pop():
            self.tokens.pop()
        return a, b, new

    def touched(self, limit):
        if not self._history:
            return 0, []
        ws = sorted(self._history[-1][4], key=lambda w: (-self.freqs[w], w))
        return len(ws), ws[:limit]

    def word(self, w):
        return list(self.words[w])

    def segmentation(self):
        symbols, starts = array("i"), array("q", [0])
        for w in self.words:
            symbols.extend(w)
            starts.append(len(symbols))
        return symbols.tobytes(), starts.tobytes()

    def pair_count(self, a, b):
        return self._counts()[0].get((a, b), 0)

    def symbol_count(self, t):
        return sum(f * w.count(t) for w, f in zip(self.words, self.freqs))

    def token(self, t):
        return self.tokens[t]


def _records(rows) -> bytes:
    """(a int32, b int32, count int64) records end to end, as the C core returns them."""
    return b"".join(struct.pack("<iiq", a, b, n) for a, b, n in rows)


class _Inv:
    """Reverses bytes order inside a sort key."""

    __slots__ = ("b",)

    def __init__(self, b):
        self.b = b

    def __lt__(self, other):
        return self.b > other.b

    def __eq__(self, other):
        return self.b == other.b


__all__ = ["Core", "GREATEST", "FIRST_SEEN", "LOWEST_IDS", "LOWEST_HF",
           "GREATEST_HF", "hf_byte_ranks"]
