"""The series the charts draw over training: corpus tokens and bytes per token after each
step, the chosen pairs' counts, token frequencies, and Rényi efficiency step by step."""
from __future__ import annotations

import math
from typing import Iterable, Sequence

from .distribution import RENYI_ALPHA, renyi_efficiency


def tokens_at_start(steps: Sequence, current_tokens: int) -> int:
    """Corpus tokens at step 0, from the first record (it knows how many it merged)."""
    if steps:
        return steps[0].corpus_tokens + steps[0].merged
    return current_tokens


def corpus_bytes_per_token(steps: Sequence, n_bytes: int, tokens0: int, n_special: int = 0,
                           start: int = 0) -> list[float]:
    """Bytes per token of the training corpus after step k, for k = start .. len(steps).

    The trainer counts only the tokens of words; special tokens in the corpus are one
    token each and their bytes are in ``n_bytes``, so they are added back here. This
    equals ``n_bytes / len(tokenizer(at_step=k).encode(corpus))``.
    Example: 100 bytes, 50 tokens at step 0, one merge that joins 10 -> [2.0, 2.5]
    """
    out = []
    for k in range(start, len(steps) + 1):
        tokens = tokens0 if k == 0 else steps[k - 1].corpus_tokens
        tokens += n_special
        out.append(n_bytes / tokens if tokens else math.nan)
    return out


def sample_steps(n: int, max_points: int = 64) -> list[int]:
    """Steps 0..n on a power-of-two grid of at most ``max_points`` + 1 points, and n.

    The grid only coarsens as n grows, so points computed earlier stay on it.
    Example: sample_steps(10, 4) -> [0, 4, 8, 10]
    """
    stride = 1
    while n / stride > max_points:
        stride *= 2
    out = list(range(0, n + 1, stride))
    if out[-1] != n:
        out.append(n)
    return out


def token_frequencies(trainer) -> list[int]:
    """How often each token id occurs in the training corpus now (trainer.symbol_count)."""
    return [trainer.symbol_count(i) for i in range(len(trainer.vocab_bytes))]


def counts_at_start(steps: Sequence, counts_now: Sequence[int]) -> list[int]:
    """Token counts of the training corpus at step 0, from the counts after the last of
    ``steps`` (``token_frequencies(trainer)``): each merge undone in reverse order gives
    its ``merged`` occurrences back to its two parts.

    Example: counts [2, 2, 1] after one merge (0, 1) -> 2 that replaced 1 -> [3, 3, 0]
    """
    out = list(counts_now)
    for s in reversed(steps):
        a, b = s.pair
        out[s.new_id] -= s.merged
        out[a] += s.merged
        out[b] += s.merged
    return out


class RenyiCurve:
    """Rényi efficiency of the training corpus's tokens after each merge step.

    ``values[k]`` is the efficiency after step k: the corpus encoded with the first k
    merges, over a vocabulary of ``n_vocab0 + k`` ids (``n_vocab0``: base symbols and
    special tokens, ``Trainer.n_initial``). Each merge moves ``merged`` occurrences from
    its two parts to the new token, so a step updates three counts and the sum of
    p ** alpha in O(1); undone steps are reversed the same way. ``extra`` holds counts the
    trainer never sees but an encoding has (each special token's occurrences in the
    corpus: :func:`special_counts`). Equal to :func:`renyi_efficiency` of
    ``Counter(trainer.tokenizer(at_step=k).encode(corpus))`` (tested).

    Example::

        curve = RenyiCurve(counts_at_start(t.steps, token_frequencies(t)), t.n_initial,
                           extra=special_counts(corpus, t.settings.special_tokens).values())
        curve.sync(t.steps)       # after steps, undos or a run; cheap when little changed
        chart.set_series("Rényi", range(len(curve.values)), curve.values)
    """

    def __init__(self, counts0: Sequence[int], n_vocab0: int, alpha: float = RENYI_ALPHA,
                 extra: Iterable[int] = ()):
        self.alpha = alpha
        self.n_vocab0 = n_vocab0
        self._counts0 = list(counts0)
        self._extra = [c for c in extra if c > 0]
        self._reset()

    def _reset(self) -> None:
        self._counts = list(self._counts0)
        self._applied: list[tuple[int, int, int, int]] = []   # (a, b, new, merged)
        self._n = sum(self._counts) + sum(self._extra)
        self._power = sum(c ** self.alpha for c in self._counts + self._extra if c > 0)
        self.values: list[float | None] = [self._value()]

    def _value(self) -> float | None:
        size = self.n_vocab0 + len(self._applied)
        if not self._n or size < 2:
            return None
        if self.alpha == 1.0:   # no running sum for Shannon: recompute
            return renyi_efficiency(self._counts + self._extra, size, 1.0)
        h = math.log(self._power / self._n ** self.alpha) / (1.0 - self.alpha)
        return h / math.log(size)

    def _move(self, moves: Sequence[tuple[int, int]]) -> None:
        """Add ``delta`` to the count of each ``(id, delta)``, keeping the power sum."""
        c, a = self._counts, self.alpha
        for i, delta in moves:
            while i >= len(c):
                c.append(0)
            old = c[i]
            c[i] = old + delta
            self._power += (c[i] ** a if c[i] > 0 else 0.0) - (old ** a if old > 0 else 0.0)

    def sync(self, steps: Sequence) -> list[float | None]:
        """Follow one trainer's records (``trainer.steps``, which only change at the end:
        steps append, undos pop): values past ``len(steps)`` are undone, new ones added.
        A new trainer needs a new curve."""
        keep = len(self._applied)
        while keep and (keep > len(steps) or _key(steps[keep - 1]) != self._applied[keep - 1]):
            keep -= 1
        while len(self._applied) > keep:
            a, b, new, m = self._applied.pop()
            self._n += m
            self._move([(new, -m), (a, m), (b, m)])
            self.values.pop()
        for s in steps[keep:]:
            a, b, new, m = _key(s)
            self._n -= m
            self._move([(a, -m), (b, -m), (new, m)])
            self._applied.append((a, b, new, m))
            if len(self._applied) % 4096 == 0:   # rounding of the running sum: start afresh
                self._power = sum(x ** self.alpha for x in self._counts + self._extra if x > 0)
            self.values.append(self._value())
        return self.values


def _key(step) -> tuple[int, int, int, int]:
    return (step.pair[0], step.pair[1], step.new_id, step.merged)


def corpus_renyi_efficiency(steps: Sequence, counts0: Sequence[int], n_vocab0: int,
                            alpha: float = RENYI_ALPHA, start: int = 0,
                            extra: Iterable[int] = ()) -> list[float | None]:
    """Rényi efficiency of the training corpus after step k, k = start .. len(steps)
    (the series for the charts, next to :func:`corpus_bytes_per_token`; see RenyiCurve).

    Example: counts0 [3, 3, 0] (tokens a, b, ab; n_vocab0 2), one merge (a, b) -> ab
    replacing 2: step 0 is uniform over a and b -> 1.0; step 1 has a, b, ab = 1, 1, 2.
    """
    curve = RenyiCurve(counts0, n_vocab0, alpha, extra)
    return curve.sync(steps)[start:]
