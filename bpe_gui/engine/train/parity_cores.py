"""The words of parity-aware training in the training core: ONE core over every
language's words (training and dev), each word with a count per column -- one column per
language's training text, one for all of them together (the global phase, when there
is one) and one per language's dev text. A merge is one call: the core merges each word
once and updates every column's pair counts, heaps and symbol totals. Each training
column chooses by HF ``ParityBpeTrainer``'s rule (the greatest pair of GPT-2 spellings
on equal counts: the core's ``GREATEST_HF``).

The core is the C extension's ``ColumnCore``, or its pure-Python twin (``_pycore``)
where the extension is not built or a test forces it (``trainer._core``, read when the
cores are made). It is built from the count tables directly. Nothing here merges a word
or counts a pair: the core does.

Example::

    cores = ParityCores([table_ab, table_cd], None, want_global=False)
    (pair, count) = cores.best(0)            # language 0's best pair and its count
    new_id = cores.core.merge(*pair, -1)     # 256: one merge, every column (the C core)
"""
from __future__ import annotations

from array import array
from typing import Any, Sequence

from ..corpus.table import PretokenTable
from . import trainer as _trainer


class ParityCores:
    """The core of one parity run (see the module docstring): ``train[i]``, language i's
    training words; ``dev[i]``, its dev words (None without a dev set); ``want_global``:
    a column for all languages together (the global phase)."""

    def __init__(self, train: Sequence[PretokenTable], dev: Sequence[PretokenTable] | None,
                 want_global: bool, undo: bool = True):
        tables = [*train, *(dev or [])]
        n = len(train)
        self.core: Any = _trainer._core.ColumnCore(
            [(t.blob, t.starts, t.counts) for t in tables], n, want_global,
            _trainer._core.GREATEST_HF, undo)
        self._n = n
        self.global_column = n if want_global else None   # (None: no global phase)
        # the columns each language's tokens are counted on: its dev text, or its
        # training text without a dev set
        first = n + want_global if dev is not None else 0
        self._measured = slice(first, first + n)
        self._rows: dict[int, array] = {}

    def rows(self, col: int) -> array:
        """The core's word number of each row of column ``col``'s count table."""
        got = self._rows.get(col)
        if got is None:
            got = self._rows[col] = array("i")
            got.frombytes(self.core.rows(col))
        return got

    def best(self, lang: int | None) -> tuple[tuple[int, int], int] | None:
        """Language ``lang``'s best pair and its count there (None: all languages
        together, the global phase); None when it has no pair."""
        got = self.core.best(self.global_column if lang is None else lang)
        return None if got is None else ((got[0], got[1]), got[2])

    def counts(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Each language's tokens now (on its dev text; on its training text without
        one), and on its training text."""
        totals = self.core.totals()
        return totals[self._measured], totals[:self._n]

    def touched(self, lang: int, limit: int) -> tuple[int, list[tuple[int, list[int]]]]:
        """The words of language ``lang``'s training text the last step changed: how
        many, and up to ``limit`` of them as (row, symbols now), the most frequent first."""
        n, rows = self.core.touched(lang, limit)
        where = self.rows(lang)
        return n, [(j, self.core.word(where[j])) for j in rows]

    def symbol_count(self, t: int) -> int:
        """How often token ``t`` occurs in every language's training words now."""
        return self.core.symbol_count(t) if t < self.core.n_tokens else 0
