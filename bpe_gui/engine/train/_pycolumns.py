"""Pure-Python stand-in for the C core's ``ColumnCore`` (parity training's one core: the
union of several count tables' words, each word with a count per table), used where the
extension is missing or a test forces it (``_pycore`` exports it).

Same API and results as ``_core.ColumnCore``; it keeps the words in a ``_pyplain.Core``
(their counts over the text columns) and recounts a column's pairs on every call, so
it is only fit for small corpora.
"""
from __future__ import annotations

from array import array
from typing import Any, Sequence

from . import _pyplain


class ColumnCore:
    """``ColumnCore(tables, n_train, with_sum=False, tie_rule=GREATEST_HF, undo=True)``:
    tables[0 .. n_train) are the heaped columns 0 .. n_train - 1; with ``with_sum``,
    column n_train is their sum (heaped too); the other tables follow, one column each,
    whose symbols only are counted."""

    def __init__(self, tables: Sequence[tuple[Any, Any, Any]], n_train: int,
                 with_sum: bool = False, tie_rule: int = _pyplain.GREATEST_HF,
                 undo: bool = True):
        if not 0 <= n_train <= len(tables):
            raise ValueError("n_train must be between 0 and the number of tables")
        if tie_rule == _pyplain.FIRST_SEEN:
            raise ValueError("tie_rule must be GREATEST, LOWEST_IDS, LOWEST_HF or "
                             "GREATEST_HF (a core with columns keeps no first-seen keys)")
        self.n_heaped = n_train + bool(with_sum)
        self.n_columns = len(tables) + bool(with_sum)
        self._n_train = n_train
        index: dict[bytes, int] = {}
        words: list[bytes] = []
        self._cnt: list[dict[int, int]] = []     # per word: column -> count
        self._rows: list[list[int]] = []         # per column: the word of each row
        for ti, (blob, starts, counts) in enumerate(tables):
            if len(starts) != len(counts) + 1:
                raise ValueError(f"table {ti}: starts must have one more entry than counts")
            col = ti if ti < n_train else self.n_heaped + ti - n_train
            if ti == n_train and with_sum:
                self._rows.append([])
            rows = []
            for i, c in enumerate(counts):
                if c < 1:
                    raise ValueError("a table's counts must be >= 1")
                w = bytes(blob[starts[i]:starts[i + 1]])
                if w not in index:
                    index[w] = len(words)
                    words.append(w)
                    self._cnt.append({})
                self._cnt[index[w]][col] = c
                rows.append(index[w])
            self._rows.append(rows)
        if with_sum and n_train == len(tables):
            self._rows.append([])
        self._train = [sum(c for k, c in d.items() if k < n_train) for d in self._cnt]
        if with_sum:
            for d, t in zip(self._cnt, self._train):
                if t:
                    d[n_train] = t
        starts_all = [0]
        for w in words:
            starts_all.append(starts_all[-1] + len(w))
        texts = [sum(c for k, c in d.items() if not (with_sum and k == n_train))
                 for d in self._cnt]
        self._core = _pyplain.Core(b"".join(words), starts_all, texts,
                                  [bytes([i]) for i in range(256)], tie_rule, undo)

    n_tokens = property(lambda self: self._core.n_tokens)
    n_steps = property(lambda self: self._core.n_steps)
    n_words = property(lambda self: len(self._cnt))

    def _weights(self, col: int) -> list[int]:
        if not 0 <= col < self.n_heaped:
            raise IndexError(f"column {col} has no pair counts (the columns with them are "
                             f"0 to {self.n_heaped - 1})")
        return [d.get(col, 0) for d in self._cnt]

    def best(self, col):
        order, counts = self._core._ordered(self._weights(col))
        return (*order[0], counts[order[0]]) if order else None

    def top(self, col, k):
        order, counts = self._core._ordered(self._weights(col))
        return [(a, b, counts[(a, b)]) for a, b in order[:k]]

    def tied(self, col, limit):
        order, counts = self._core._ordered(self._weights(col))
        if not order:
            return 0, []
        top = [(*p, counts[p]) for p in order if counts[p] == counts[order[0]]]
        return len(top), top[:limit]

    def merge(self, a, b, into=-1):
        return self._core.merge(a, b, into)[0]

    def undo(self):
        return self._core.undo()

    def totals(self):
        out = [0] * self.n_columns
        for w, d in zip(self._core.words, self._cnt):
            for k, c in d.items():
                out[k] += c * len(w)
        return tuple(out)

    def rows(self, col):
        return array("i", self._rows[col]).tobytes()

    def touched(self, col, limit):
        if not self._core._history:
            return 0, []
        row = {w: r for r, w in enumerate(self._rows[col])}
        ws = [w for w in self._core._history[-1][4] if col in self._cnt[w]]
        ws.sort(key=lambda w: (-self._cnt[w][col], row[w]))
        return len(ws), [row[w] for w in ws[:limit]]

    def word(self, w):
        return self._core.word(w)

    def symbol_count(self, t):
        return sum(f * w.count(t) for w, f in zip(self._core.words, self._train))

    def token(self, t):
        return self._core.token(t)

    def pair_count(self, col, a, b):
        return self._core._counts(self._weights(col))[0].get((a, b), 0)

    def _check(self):
        """(Nothing kept to check: every count is recounted when asked.)"""
