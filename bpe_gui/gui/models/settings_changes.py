"""Training settings in words: what changed between two of them, a sample's suggested
settings, what a real corpus opened after a sample trains with, and the names a user
reads for a tie rule and for one text per line. No Qt: the settings panel, the corpus
panel, the training toolbar, Compare and Check my BPE all read these.
"""
from __future__ import annotations

from ...engine.train import TIE_RULE_LABELS, TrainSettings

# training's check box, Check my BPE's choice and the parity box say it in these words
LINES_LABEL = "One text per line, as Hugging Face reads files"
LINES_HELP = ("Each line of the corpus (with its line break) is a text of its own, as "
              "tokenizers' train(files) reads it: no word spans a line break. Off: each file "
              "is one text, so a word such as a line break and the next line's spaces can "
              "form.")

# What a file opened after a built-in sample is trained with, when the settings are
# still the sample's: the tutorial's character mode and 10 merges are for its five-way
# tie, not for a real corpus (its vocab size below a real alphabet was refused after
# the file had been read). Byte-level, the GPT-2 pattern, 1,000 tokens: the engine's
# defaults, what the command line trains with.
REAL_CORPUS_SETTINGS = TrainSettings()

FIELD_NAMES = {"vocab_size": "vocab size", "num_merges": "merges", "mode": "mode",
               "end_of_word": "</w> position", "pattern": "pre-tokenizer",
               "special_tokens": "special tokens", "tie_rule": "tie rule",
               "min_frequency": "min frequency", "prune": "pruning",
               "lines": "one text per line", "special_text": "special-token text",
               "superbpe_from": "SuperBPE stage 2 from step"}


def describe_changes(old: TrainSettings, new: TrainSettings) -> list[str]:
    """Readable differences, e.g. ['vocab size 1,000 → 10,000', 'tie rule'].

    Example: describe_changes(TrainSettings(), TrainSettings(vocab_size=2000))
    -> ['vocab size 1,000 → 2,000']
    """
    out = []
    for field, name in FIELD_NAMES.items():
        a, b = getattr(old, field), getattr(new, field)
        if a == b:
            continue
        if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
            out.append(f"{name} {a:,} → {b:,}")
        elif isinstance(b, int) and not isinstance(b, bool):
            out.append(f"{name} → {b:,}")
        else:
            out.append(name)
    return out


def sample_settings(fields: dict) -> TrainSettings:
    """TrainSettings from a sample's suggested fields (missing ones keep their defaults)."""
    kw = dict(fields)
    if "special_tokens" in kw:
        kw["special_tokens"] = tuple(kw["special_tokens"])
    return TrainSettings(**kw)


def rule_label(key: str) -> str:
    """A tie rule as the training controls name it (its key where it has no name).

    Example: rule_label("greatest") -> 'Greatest pair (by bytes)'
    """
    return TIE_RULE_LABELS.get(key, key)


def rule_named(line: str) -> str:
    """A line of the check's settings (engine/check: "tie rule: KEY ...") with the
    rule named as the training controls name it; any other line as it is.

    Example: rule_named("tie rule: first-seen (given)")
    -> 'tie rule: First seen in corpus (given)'
    """
    head = "tie rule: "
    if not line.startswith(head):
        return line
    key, space, rest = line[len(head):].partition(" ")
    return head + rule_label(key) + space + rest
