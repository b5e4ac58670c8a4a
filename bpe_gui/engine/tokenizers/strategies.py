"""The merge strategies of the C engine, listed and forced (csrc/merge/strategies.c).

Every strategy gives the ids of the reference merge (lowest rank first, then leftmost);
each applies to some words only, and the engine picks the cheapest that applies. Forcing
one (``BPE_GUI_MERGE=NAME`` in the environment, read when the extensions load, or
:func:`set_merge_strategy` / :func:`merge_strategy` here) makes every tokenizer loaded
from then on send each word that strategy can take through it and every other word
through ``reference``: so a test of a strategy runs it whatever CPU runs the test, as
long as the CPU has its instruction set (:attr:`MergeStrategy.runs_here`).

The setting is read when a tokenizer's merge table is made (loading or training it): a
tokenizer keeps the strategy it was made with, and so do its caches.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType

AUTO = "auto"        # no strategy forced: the cheapest that applies


@dataclass(frozen=True)
class MergeStrategy:
    name: str
    needs: str       # the instruction set it needs ("": none)
    applies: str     # the words it takes
    invariant: str   # why it gives the reference's ids
    runs_here: bool  # this build and CPU have its instruction set


def _modules() -> list[ModuleType]:
    """The extensions that hold a copy of the merge engine (none without a C build)."""
    mods = []
    try:
        from . import _encode
        mods.append(_encode)
    except ImportError:  # pragma: no cover - only without a C compiler at install time
        pass
    from .imported.word_model import merge_engine
    pipeline = merge_engine()
    if pipeline is not None:
        mods.append(pipeline)
    return mods


def merge_strategies() -> tuple[MergeStrategy, ...]:
    """Every strategy of the C engine, ``reference`` first; empty without the C engine."""
    mods = _modules()
    return tuple(MergeStrategy(*row) for row in mods[0].merge_strategies()) if mods else ()


def set_merge_strategy(name: str | None) -> str:
    """Force ``name`` on tokenizers made from now on (None or ``"auto"``: force none).
    Returns the setting before. ValueError: no such strategy, this CPU cannot run it, or
    there is no C engine to force it on."""
    want = AUTO if name is None else name
    mods = _modules()
    if not mods:
        if want == AUTO:
            return AUTO
        raise ValueError(f"merge strategy {want!r}: the C extensions are not built, so "
                         "words merge in Python; reinstall with a C compiler")
    known = {s.name: s for s in merge_strategies()}
    if want != AUTO and want not in known:
        raise ValueError(f"no merge strategy named {want!r}; known: auto, "
                         + ", ".join(known))
    if want != AUTO and not known[want].runs_here:
        raise ValueError(f"merge strategy {want!r} needs {known[want].needs}, which this "
                         "CPU or build lacks")
    before = [m.set_merge_strategy(want) for m in mods]
    return before[0]


@contextmanager
def merge_strategy(name: str | None) -> Iterator[None]:
    """Force ``name`` on tokenizers made inside the block; the setting before after it."""
    before = set_merge_strategy(name)
    try:
        yield
    finally:
        set_merge_strategy(before)


def strategy_counts() -> dict[str, int]:
    """Words each strategy merged in this process, in tokenizers made while a strategy
    was forced (the tests check that forcing one really runs it)."""
    out: dict[str, int] = {}
    for m in _modules():
        for k, v in m.merge_strategy_used().items():
            out[k] = out.get(k, 0) + v
    return out
