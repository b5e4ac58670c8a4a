"""Settings found, not guessed: the reference's trainer under other settings (tie rule,
pattern, special tokens), one change at a time and then two, until one reproduces every
merge of the learner's -- then the report names those settings.

Runs the diagnosis already made are reused (the lab keys engine runs by their
settings); the search stops at the lab's time limit.
"""
from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from typing import Sequence

from .. import PRESETS, TrainSettings
from ..trainer import TIE_RULES
from .causes import PATTERNS, pattern_label, specials_in
from .lab import Lab
from .report import Attempt, FoundSettings

Change = tuple[str, dict]   # (in words, the TrainSettings fields it sets)


def changes(lab: Lab) -> list[list[Change]]:
    """The single changes, grouped by the setting they change."""
    s = lab.settings
    ties = [(f"tie rule {r} (not {s.tie_rule})", {"tie_rule": r})
            for r in TIE_RULES if r != s.tie_rule]
    current = PRESETS.get(s.pattern, s.pattern)
    patterns = [(f"{label} (not {pattern_label(s.pattern)})", {"pattern": p})
                for p, label in PATTERNS if p != current]
    if s.special_tokens:
        specials: list[Change] = [("no special tokens", {"special_tokens": ()})]
    else:
        found = specials_in(lab)
        specials = [(f"special token(s) {', '.join(found)}", {"special_tokens": found})] \
            if found else []
    return [g for g in (ties, patterns, specials) if g]


def search_settings(lab: Lab, attempts: Sequence[Attempt] = ()) -> FoundSettings | None:
    """Settings under which the reference makes exactly the learner's merges (one
    change, else two), or None."""
    groups = changes(lab)
    singles = [c for g in groups for c in g]
    for change in singles:
        found = _try(lab, (change,))
        if found is not None or lab.out_of_time():
            return found
    for g1, g2 in combinations(groups, 2):
        for a in g1:
            for b in g2:
                found = _try(lab, (a, b))
                if found is not None or lab.out_of_time():
                    return found
    return None


def _try(lab: Lab, combo: tuple[Change, ...]) -> FoundSettings | None:
    fields: dict = {}
    for _, f in combo:
        fields.update(f)
    settings: TrainSettings = replace(lab.settings, **fields)
    words = [w for w, _ in combo]
    run = lab.engine_run(None, "settings", " and ".join(words), settings)
    if run.merges != lab.theirs:
        return None
    n = len(lab.theirs)
    return FoundSettings(settings, tuple(words),
                         f"Your merges are exactly the reference's with {' and '.join(words)}: "
                         f"all {n:,} agree.")
