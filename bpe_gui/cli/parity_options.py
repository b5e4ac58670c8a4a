"""What ``bpe-gui train --parity`` does with the options of plain training (each one
honoured or refused with the reason: ``PLAIN_OPTIONS``), and the warning for dev texts
that are not parallel."""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from .common import PROG, UsageError

if TYPE_CHECKING:
    from ..engine.train import ParityData

# Every option of plain ``bpe-gui train``, as parity training takes it: None when it is
# honoured, else the spec's setting it sets, which parity does not use (the reason is the
# spec's, ``unused``: the window greys the setting with the same words). A test
# walks every option of the parser against this table, so a new option must be placed here.
PLAIN_OPTIONS: dict[str, str | None] = {
    "CORPUS": "corpus", "--counts": "counts", "--vocab-size": "vocab_size",
    "--num-merges": None, "--out": None, "--special-token": "special_tokens",
    "--preset": "pattern", "--pattern": "pattern", "--encoding": None, "--mode": "mode",
    "--end-of-word": "end_of_word", "--tie-rule": "tie_rule", "--lines": None,
    "--threads": "threads", "--min-frequency": None, "--prune": "prune", "--format": None,
    "--name": None, "--quiet": None, "--from": "base", "--from-model": "base",
    "--superbpe-from": "superbpe_from", "--superbpe": "superbpe_from",
    "--special-text": "special_text",
}
# where a refused option's value is found, and the value that is parity's own (accepted)
_VALUES = {"CORPUS": ("corpus", None), "--counts": ("counts", None),
           "--vocab-size": ("vocab_size", None), "--threads": ("threads", None),
           "--special-token": ("special_token", None),
           "--preset": ("preset", "gpt2"), "--pattern": ("pattern", "gpt2"),
           "--mode": ("mode", "byte"), "--end-of-word": ("end_of_word", None),
           "--tie-rule": ("tie_break", None), "--prune": ("prune", None),
           "--from": ("source", None), "--from-model": ("source_model", None),
           "--superbpe-from": ("superbpe_from", None), "--superbpe": ("superbpe", None),
           "--special-text": ("special_text", None)}


def refuse_plain_options(args: argparse.Namespace) -> None:
    """Each plain-training option PLAIN_OPTIONS refuses, if given, is refused with the
    spec's reason."""
    from ..engine.train import PARITY, TrainingSpec, unused
    why = unused(TrainingSpec(mode=PARITY))
    for opt, setting in PLAIN_OPTIONS.items():
        if setting is None:
            continue
        dest, own = _VALUES[opt]
        value = getattr(args, dest)
        if value is None or value is False or value == [] or \
                (own is not None and _same(dest, value, own)):
            continue
        shown = "corpus files" if opt == "CORPUS" else \
            opt if isinstance(value, bool) else f"{opt} {_shown(value)}"
        raise UsageError(f"{shown} is not available with --parity: {why[setting]}")


def _same(dest: str, value: str, own: str) -> bool:
    if dest not in ("preset", "pattern"):
        return value == own
    from ..engine.errors import BPEError
    from ..engine.text import resolve_pattern
    try:
        return resolve_pattern(value)[0] == resolve_pattern(own)[0]
    except BPEError:   # (an unknown preset: not GPT-2's)
        return False


def _shown(value: object) -> str:
    return " ".join(map(str, value)) if isinstance(value, list) else str(value)


def warn_unparallel(data: "ParityData") -> None:
    """The warning for dev texts of different lengths (ParityData.unparallel), on stderr."""
    said = data.unparallel(" with --ratio NAME=R")
    if said is not None:
        print(f"{PROG}: warning: {said}", file=sys.stderr, flush=True)
