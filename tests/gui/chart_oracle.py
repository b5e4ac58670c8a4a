"""A slow, obviously correct recount of what the charts draw, for the chart tests of
every training mode: words held as lists of ids, merges replayed one at a time (left to
right, no overlaps), and each statistic computed from its definition.

- compression: bytes of the corpus / its tokens (special tokens one token each);
- Rényi efficiency (Zouhar et al. 2023): H_a(p) = ln(sum p_i^a) / (1 - a) over the
  token shares, divided by ln |V|, the vocabulary then;
- the chosen pair's count: its adjacent occurrences in the words before the merge,
  each weighted by the word's frequency;
- token lengths: how many tokens of the vocabulary have each length in bytes;
- Zipf: the tokens' frequencies in the corpus, largest first.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Iterable

import regex

GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
ALPHA = 2.5


def renyi(counts: Iterable[int], vocab_size: int, alpha: float = ALPHA) -> float:
    counts = [c for c in counts if c]
    n = sum(counts)
    h = math.log(sum((c / n) ** alpha for c in counts)) / (1 - alpha)
    return h / math.log(vocab_size)


def gpt2_words(texts: Iterable[str]) -> Counter:
    """Each text cut by GPT-2's pattern: word bytes -> count."""
    out: Counter = Counter()
    for t in texts:
        out.update(w.encode() for w in regex.findall(GPT2, t))
    return out


class SlowBPE:
    """Words as lists of ids with their counts; ``merge`` replays one merge. The token
    counts are kept as words change (each changed word's tokens taken out before the
    merge and put back after it)."""

    def __init__(self, words: dict[tuple[int, ...], int]):
        self.words = [list(w) for w in words]
        self.freqs = list(words.values())
        self._counts: Counter = Counter()
        for w, f in zip(self.words, self.freqs):
            for t in w:
                self._counts[t] += f

    @classmethod
    def of_bytes(cls, words: dict[bytes, int]) -> "SlowBPE":
        return cls({tuple(w): f for w, f in words.items()})

    def pair_count(self, a: int, b: int) -> int:
        return sum(f * sum(1 for x, y in zip(w, w[1:]) if (x, y) == (a, b))
                   for w, f in zip(self.words, self.freqs) if a in w)

    def merge(self, a: int, b: int, new: int) -> None:
        for w, f in zip(self.words, self.freqs):
            if a not in w:
                continue
            before = list(w)
            i = 0
            while i < len(w) - 1:
                if w[i] == a and w[i + 1] == b:
                    w[i:i + 2] = [new]
                i += 1
            if w != before:
                for t in before:
                    self._counts[t] -= f
                for t in w:
                    self._counts[t] += f

    def counts(self) -> Counter:
        return Counter({t: c for t, c in self._counts.items() if c})

    def tokens(self) -> int:
        return sum(self._counts.values())


def length_histogram(tokens: Iterable[bytes]) -> dict[int, int]:
    return dict(Counter(len(t) for t in tokens))


def zipf(counts: Counter) -> list[int]:
    return sorted((c for c in counts.values() if c), reverse=True)
