"""The series the charts draw for one training run, kept up to date step by step (no
Qt: the charts view reads them).

:class:`RunSeries` appends the numbers of new merge records and drops those of undone
ones, so following a step costs O(1) whatever the run's length:

- compression: corpus bytes / corpus tokens after each step (``MergeStep.corpus_tokens``
  counts the tokens of words; each special token in the corpus is one token more);
- the count of the chosen pair;
- token lengths: a histogram of the vocabulary's token lengths;
- Rényi efficiency (alpha 2.5, Zouhar et al. 2023) of the corpus's token distribution
  after each step, over a vocabulary of ``n_initial + k`` ids (``analysis.RenyiCurve``:
  each merge moves its ``merged`` occurrences from its two parts to the new token).

Special tokens: their counts in the corpus are given when known (the controller counts
them in the text the trainer was built from). A streamed corpus (only its start is in
the window) and a word-count table (it does not record them) give none: both series
then leave special tokens out, and the view says so.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Mapping

from ....engine import analysis


class RunSeries:
    """Compression, chosen-pair count, token lengths and Rényi efficiency of one run
    (one trainer: a new trainer needs a new RunSeries)."""

    def __init__(self, view, specials: Mapping[str, int] | None):
        """``view``: the controller's TrainerView, read now (it must be readable);
        ``specials``: each special token's count in the corpus, or None if unknown."""
        self.view = view
        self.mode = view.settings.mode
        self.specials_known = specials is not None
        self.n_special = sum(specials.values()) if specials else 0
        self.n_bytes = view.corpus_counts().bytes
        steps = view.steps
        tokens0 = analysis.tokens_at_start(steps, view.corpus_tokens)
        self.bpt: list[float] = [self._ratio(tokens0)]   # bytes/token at step 0..n
        self.counts: list[int] = []                       # chosen pair's count, steps 1..n
        self.hist: Counter = Counter(analysis.token_length(t, self.mode) for t in view.base)
        self._merge_len: list[int] = []                   # length of the token of step k+1
        self.renyi = analysis.RenyiCurve(analysis.counts_at_start(steps, view.symbol_counts()),
                                      view.n_initial,
                                      extra=specials.values() if specials else ())
        self.n = 0                                        # steps whose numbers are here

    def _ratio(self, tokens: int) -> float:
        tokens += self.n_special
        return self.n_bytes / tokens if tokens else math.nan

    def sync(self) -> bool:
        """Follow the trainer's records now (the view must be readable); True if
        anything changed."""
        steps = self.view.steps
        n = len(steps)
        if n == self.n and len(self.renyi.values) == n + 1:
            return False
        if n < self.n:
            for k in range(n, self.n):
                self.hist[self._merge_len[k]] -= 1
            del self.bpt[n + 1:]
            del self.counts[n:]
            del self._merge_len[n:]
        elif n > self.n:
            new = steps[self.n:n]
            self.bpt.extend(self._ratio(s.corpus_tokens) for s in new)
            self.counts.extend(s.count for s in new)
            lens = [analysis.token_length(s.token, self.mode) for s in new]
            self._merge_len.extend(lens)
            self.hist.update(lens)
        self.renyi.sync(steps)
        self.n = n
        return True

    def lengths(self) -> tuple[list[int], list[int]]:
        """The token-length histogram as (lengths, token counts), lengths ascending."""
        hist = sorted((k, v) for k, v in self.hist.items() if v > 0)
        return [k for k, _ in hist], [v for _, v in hist]

    def renyi_points(self) -> tuple[list[int], list[float]]:
        """(steps, efficiency) up to the current step, steps without a value left out
        (a vocabulary of one token has none)."""
        pts = [(k, v) for k, v in enumerate(self.renyi.values[:self.n + 1]) if v is not None]
        return [k for k, _ in pts], [v for _, v in pts]


CORPUS = "the corpus"


def measured_on(view) -> str:
    """The text a run's charts count, as they name it: a parity run reads its languages'
    training files, never the corpus in the window."""
    info = getattr(view, "parity", None)
    if info is None:
        return CORPUS
    return f"the languages' training files ({', '.join(info.names)})"


def zipf_title(text: str) -> str:
    return ("Token frequency on the corpus (Zipf)" if text == CORPUS
            else "Token frequency on the training files (Zipf)")


def compression_title(text: str) -> str:
    return "Compression on the corpus" if text == CORPUS else \
        "Compression on the training files"
