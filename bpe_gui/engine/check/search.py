"""Settings found, not guessed: the reference's trainer under other settings (tie rule,
pattern, special tokens), one change at a time and then two, until one reproduces every
merge of the learner's -- then the report names those settings.

Runs the diagnosis already made come first (the lab keys engine runs by their
settings, so none is trained twice); the search stops at the lab's time limit.
"""
from __future__ import annotations

from dataclasses import replace
from itertools import combinations

from .. import PRESETS, TrainSettings
from ..train.trainer import TIE_RULES
from .causes import PATTERNS, pattern_label, specials_in
from .lab import Lab, Run
from .report import FoundSettings

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


def describe(base: TrainSettings, other: TrainSettings) -> tuple[str, ...]:
    """What ``other`` changes from ``base``, in words.
    Example: tie_rule greatest -> first-seen: ('tie rule first-seen (not greatest)',)."""
    out = []
    if other.tie_rule != base.tie_rule:
        out.append(f"tie rule {other.tie_rule} (not {base.tie_rule})")
    if PRESETS.get(other.pattern, other.pattern) != PRESETS.get(base.pattern, base.pattern):
        out.append(f"{pattern_label(other.pattern)} (not {pattern_label(base.pattern)})")
    if other.special_tokens != base.special_tokens:
        out.append(f"special token(s) {', '.join(other.special_tokens)}"
                   if other.special_tokens else "no special tokens")
    return tuple(out)


def found_in(lab: Lab, run: Run) -> FoundSettings | None:
    """``run`` as settings found, if it is a setting of the trainer that makes exactly
    the learner's merges."""
    if run.settings is None or run.merges != lab.theirs:
        return None
    words = describe(lab.settings, run.settings)
    if not words:
        return None
    return FoundSettings(run.settings, words,
                         f"Your merges are exactly the reference's with {' and '.join(words)}: "
                         f"all {len(lab.theirs):,} agree.")


def search_settings(lab: Lab) -> FoundSettings | None:
    """Settings under which the reference makes exactly the learner's merges: among the
    runs made so far, then one change, then two; or None."""
    for run in lab.runs:
        found = found_in(lab, run)
        if found is not None:
            return found
    groups = changes(lab)
    for change in (c for g in groups for c in g):
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
    run = lab.engine_run(None, "settings", " and ".join(w for w, _ in combo), settings)
    return found_in(lab, run)
