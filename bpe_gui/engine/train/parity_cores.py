"""The words of parity-aware training in the training core: one core per language's
training words, one per language's dev words and, for the global phase, one over all
languages' words. Every merge goes to every core in the same order, so a token has the
same id in all; each core chooses by HF ``ParityBpeTrainer``'s rule (the greatest pair of
GPT-2 spellings on equal counts: the core's ``GREATEST_HF``).

The core is the one of plain training (``trainer._core``: the C extension, or its
pure-Python twin ``_pycore`` where it is not built or a test forces it), read when the
cores are made. Nothing here merges a word or counts a pair: the cores do.

Example::

    cores = ParityCores([{b"ab": 3}, {b"cd": 1}], None, want_global=False)
    (pair, count) = cores.best(0)            # ((97, 98), 3): language 0's best pair
    new_id = cores.merge(*pair, into=-1, global_phase=False)   # 256, in every core
"""
from __future__ import annotations

from array import array
from itertools import accumulate
from typing import Any, Sequence

from . import trainer as _trainer

_BYTES = [bytes([i]) for i in range(256)]


def core_of(words: dict[bytes, int], undo: bool) -> Any:
    """A core over these byte words (ids 0-255 are the bytes), HF's parity tie rule."""
    starts = array("q", accumulate(map(len, words), initial=0))
    return _trainer.new_core(b"".join(words), starts, array("q", words.values()), _BYTES,
                             _trainer.PARITY_TIE_RULE, undo)


def split_dev(dev: dict[bytes, list[int]], n: int) -> list[dict[bytes, int]]:
    """Each language's dev words (those it has) from the words' counts per language,
    in one pass over them."""
    out: list[dict[bytes, int]] = [{} for _ in range(n)]
    for w, fs in dev.items():
        for d, f in zip(out, fs):
            if f:
                d[w] = f
    return out


class ParityCores:
    """The cores of one parity run (see the module docstring). ``langs[i]``: language
    i's training words; ``devs[i]``: its dev words (None without a dev set); ``glob``:
    all training words together (None without global merges), merged only in the
    global phase (it is not read after it, and an undo back into it finds it there)."""

    def __init__(self, words: Sequence[dict[bytes, int]],
                 dev: dict[bytes, list[int]] | None, want_global: bool, undo: bool = True):
        self.langs = [core_of(w, undo) for w in words]
        self.devs = None if dev is None else [core_of(d, undo)
                                              for d in split_dev(dev, len(words))]
        self.glob = None
        if want_global:
            summed: dict[bytes, int] = {}
            for ws in words:
                for w, f in ws.items():
                    summed[w] = summed.get(w, 0) + f
            self.glob = core_of(summed, undo)
        self._every = [*self.langs, *(self.devs or [])]

    def best(self, lang: int | None) -> tuple[tuple[int, int], int] | None:
        """Language ``lang``'s best pair and its count there (None: all languages
        together, the global phase); None when it has no pair."""
        core = self.glob if lang is None else self.langs[lang]
        assert core is not None
        got = core.best()
        return None if got is None else ((got[0], got[1]), got[2])

    def source(self, lang: int | None) -> Any:
        """The core a step for ``lang`` chooses from (None: the global phase)."""
        return self.glob if lang is None else self.langs[lang]

    def merge(self, a: int, b: int, into: int, global_phase: bool) -> int:
        """(a, b) merged in every core, into a new token (``into`` -1) or the existing
        token ``into``: the token's id."""
        every = self._every + [self.glob] if global_phase and self.glob is not None \
            else self._every
        new = every[0].merge(a, b, into)[0]
        for core in every[1:]:
            if core.merge(a, b, into)[0] != new:
                raise AssertionError(f"the cores made different ids for {a}, {b}")
        return new

    def undo(self, n_steps_after: int) -> None:
        """The last merge undone in every core that has it (the global core only while
        the run is back in the global phase)."""
        for core in self._every:
            core.undo()
        if self.glob is not None and self.glob.n_steps > n_steps_after:
            self.glob.undo()

    def train_tokens(self) -> tuple[int, ...]:
        return tuple([core.total_symbols for core in self.langs])

    def tokens(self) -> tuple[int, ...]:
        """Each language's tokens on its dev text (on its training text without one)."""
        return tuple([core.total_symbols for core in (self.devs or self.langs)])
