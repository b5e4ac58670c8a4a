"""Plain BPE's curve beside a parity run, for the window's chart: each language's tokens
at steps 0, 1, ... when the same data is trained as plain BPE (all languages together,
the same tie rule), measured as ``ParityStep.tokens`` is (dev set, else training text).

Example::

    >>> data = ParityData.from_texts({"en": "the cat sat on the mat",
    ...                               "de": "die Katze sass auf der Matte"})
    >>> PlainCurve(data, ParitySettings()).curve(1)
    [(22, 28), (19, 26)]
"""
from __future__ import annotations

import sys
from dataclasses import replace
from typing import Callable

from ..errors import CancelFn, SettingsError
from .parity import ParityData, ParitySettings, ParityTrainer


class PlainCurve:
    """Plain BPE on a parity run's data (its ``data`` and ``parity_settings``): ``rows``,
    each language's tokens at steps 0..k, grown by :meth:`compute` (the run's cost
    again: call it on a worker thread). Plain BPE's trainer is kept (its first k merges
    do not depend on a target), so a raised target extends the curve instead of
    training it again, and a cancelled :meth:`compute` keeps the steps it made. Made
    from the count tables: after ``ParityTrainer.release_tables`` it raises
    SettingsError."""

    def __init__(self, data: ParityData, settings: ParitySettings):
        if not data.tables:   # (released: a run has a table a language)
            raise SettingsError("This parity trainer's count tables were released "
                                "(ParityTrainer.release_tables), so plain BPE cannot be "
                                "trained on the same data from it: count the data again.")
        every = sys.maxsize   # (every merge global, with no target of its own)
        self._run = ParityTrainer(data, replace(settings, global_merges=every,
                                                num_merges=every, total_symbols=False),
                                  undo=False)
        self.rows: list[tuple[int, ...]] = [self._run.initial_tokens]

    def compute(self, cancel: CancelFn | None = None, upto: int = 0,
                progress: Callable[[int, int], None] | None = None) -> None:
        """Grow ``rows`` to step ``upto`` (fewer where plain BPE stops first).
        ``progress(done, goal)``: plain BPE's steps."""
        t = self._run
        try:
            t.run(until=upto, progress=progress, cancel=cancel, detail=False)
        finally:
            self.rows.extend(st.tokens for st in t.steps[len(self.rows) - 1:])

    def curve(self, n: int) -> list[tuple[int, ...]]:
        """Each language's tokens at steps 0..n (computed first where missing)."""
        self.compute(upto=n)
        return self.rows[:n + 1]

    def covers(self, k: int) -> bool:
        """The curve reaches step ``k``, or plain BPE stopped before it."""
        return len(self.rows) > k or self._run.is_done
