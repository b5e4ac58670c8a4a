"""Parity-aware training in words, for the merge panel and the vocabulary browser:
whose turn a step was and why -- its compression on the dev set against the other
languages'. Qt-free: it reads a :class:`~bpe_gui.engine.train.ParityInfo`.

With a dev set (the same sentences in every language) the language whose dev text
takes the most tokens is compressed worst and is served; it is said against the
language that takes the fewest (1.11x: 11% more tokens for the same sentences). With
target ratios, the language whose compression (bytes at the start / tokens now, since
byte-level training starts with one token per byte) over its ratio is lowest.

Example (dev set, step 60)::

    turn_line(info, 60)
    -> "Step 60 served zh: its dev text takes the most tokens for the same sentences,
        9,552, 1.11x en's 8,606 (zh 9,552, ru 9,504, de 9,486, en 8,606)."
"""
from __future__ import annotations

from typing import Sequence

from ...engine.train import ParityInfo


def turn_name(info: ParityInfo, k: int) -> str:
    """Whose turn step k (1-based) was: a language's name, "global" for the plain-BPE
    steps before parity's turns, "" for a step not made."""
    if not 1 <= k <= len(info.records):
        return ""
    lang = info.records[k - 1].language
    return "global" if lang is None else info.names[lang]


def turn_line(info: ParityInfo, k: int) -> str:
    """Step k's language and why, in one sentence (plain text)."""
    if not 1 <= k <= len(info.records):
        return ""
    rec = info.records[k - 1]
    names = info.names
    if rec.language is None:
        return (f"Step {k}: a global merge ({k} of {info.settings.global_merges}): plain BPE "
                "on all languages together, before parity's turns.")
    me = names[rec.language]
    if rec.kind == "ratio":
        order = sorted(range(len(names)), key=lambda i: rec.measure[i])
        vals = ", ".join(f"{names[i]} {rec.measure[i]:.3f}" for i in order)
        why = (f"its compression over its target ratio is the lowest ({vals}; "
               "compression = bytes at the start / tokens now)")
    else:
        why = _most_tokens(names, rec.measure, rec.language, rec.kind)
    extra = ""
    if rec.passed:
        extra += (f" The window passed over {', '.join(names[i] for i in rec.passed)}: "
                  f"more than {info.settings.alpha:g}/{len(names)} of the last "
                  f"{info.settings.window_size} turns.")
    if rec.exhausted:
        extra += f" {', '.join(names[i] for i in rec.exhausted)}: no pair left."
    return f"Step {k} served {me}: {why}.{extra}"


def _most_tokens(names: Sequence[str], tokens: Sequence[float], me: int, kind: str) -> str:
    order = sorted(range(len(names)), key=lambda i: -tokens[i])
    vals = ", ".join(f"{names[i]} {int(tokens[i]):,}" for i in order)
    if kind != "dev":   # training texts are not parallel: the counts alone
        return f"its training text has the most tokens ({vals})"
    low = order[-1]
    times = tokens[me] / tokens[low] if tokens[low] else float("nan")
    return (f"its dev text takes the most tokens for the same sentences, "
            f"{int(tokens[me]):,}, {times:.2f}x {names[low]}'s {int(tokens[low]):,} ({vals})")


def turn_counts(info: ParityInfo, n: int) -> str:
    """How many of the first n steps each language had, e.g. 'ru 12 · zh 9 · global 5'."""
    counts: dict[str, int] = {}
    for rec in info.records[:n]:
        key = "global" if rec.language is None else info.names[rec.language]
        counts[key] = counts.get(key, 0) + 1
    order = [nm for nm in info.names if nm in counts] + (["global"] if "global" in counts
                                                         else [])
    return " · ".join(f"{nm} {counts[nm]:,}" for nm in order)
