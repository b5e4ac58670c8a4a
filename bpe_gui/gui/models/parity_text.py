"""Parity-aware training in words, for the merge panel and the vocabulary browser:
whose turn a step was and why -- its compression on the dev set against the other
languages' (the sentence is the engine's, ``turn_sentence``). Qt-free: it reads a
:class:`~bpe_gui.engine.train.ParityTrainer`.

Example (dev set, step 60)::

    turn_line(info, 60)
    -> "Step 60 served zh: its dev text takes the most tokens for the same sentences,
        9,552: 48 more than ru's 9,504 (1.0051x); 946 more than en's 8,606 (1.11x),
        the fewest (zh 9,552, ru 9,504, de 9,486, en 8,606)."
"""
from __future__ import annotations

from ...engine.train import ParityTrainer, turn_sentence


def turn_name(info: ParityTrainer, k: int) -> str:
    """Whose turn step k (1-based) was: a language's name, "global" for the plain-BPE
    steps before parity's turns, "" for a step not made."""
    if not 1 <= k <= len(info.steps):
        return ""
    lang = info.steps[k - 1].language
    return "global" if lang is None else info.names[lang]


def turn_line(info: ParityTrainer, k: int) -> str:
    """Step k's language and why, in one sentence (plain text): the engine's
    :func:`~bpe_gui.engine.train.turn_sentence`."""
    if not 1 <= k <= len(info.steps):
        return ""
    return turn_sentence(info.steps[k - 1], info.names, info.parity_settings,
                         parallel=info.warning is None)


def turn_counts(info: ParityTrainer, n: int) -> str:
    """How many of the first n steps each language had, e.g. 'ru 12 · zh 9 · global 5'."""
    counts: dict[str, int] = {}
    for rec in info.steps[:n]:
        key = "global" if rec.language is None else info.names[rec.language]
        counts[key] = counts.get(key, 0) + 1
    order = [nm for nm in info.names if nm in counts] + (["global"] if "global" in counts
                                                         else [])
    return " · ".join(f"{nm} {counts[nm]:,}" for nm in order)


BALANCE = {"dev": "balanced on the dev files", "ratio": "balanced on target ratios",
           "train": "balanced on the training files"}


def run_words(info: ParityTrainer) -> tuple[str, str]:
    """A parity run named for a line about it, long and short: "parity-aware run over
    en, zh (base, balanced on the dev files)", "parity-aware run over en, zh"."""
    short = f"parity-aware run over {', '.join(info.names)}"
    how = ", ".join(x for x in (info.parity_settings.variant, BALANCE.get(info.kind, "")) if x)
    return f"{short} ({how})", short
