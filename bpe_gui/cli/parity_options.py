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
# honoured, else why it is refused. ``refuse_plain_options`` reads this table; a test
# walks every option of the parser against it, so a new option must be placed here.
GPT2_ONLY = ("parity training cuts words with GPT-2's pattern, as HF's ByteLevel pre-tokenizer "
             "does (its merges are HF's only with it): leave it out, or give --preset gpt2")
FROM_BYTES = ("parity training starts from the 256 bytes: training on from a tokenizer is "
              "plain BPE's")
PLAIN_OPTIONS: dict[str, str | None] = {
    "CORPUS": "parity training takes one text per language: give --language NAME=FILE "
              "for each",
    "--counts": "parity training counts each language's text itself: give --language "
                "NAME=FILE for each instead of word-count tables",
    "--vocab-size": "parity training counts merges: give --num-merges N instead",
    "--num-merges": None,
    "--out": None,
    "--special-token": "parity training cuts its texts with no special tokens, as HF's "
                       "ParityBpeTrainer with the ByteLevel pre-tokenizer cuts them: leave "
                       "it out",
    "--preset": GPT2_ONLY,
    "--pattern": GPT2_ONLY,
    "--encoding": None,
    "--mode": "parity training is byte-level BPE, as HF's ParityBpeTrainer with ByteLevel: "
              "leave it out, or give --mode byte",
    "--end-of-word": "it applies to --mode char only, and parity training is byte-level: leave "
                     "it out",
    "--tie-rule": "parity training breaks ties as HF's ParityBpeTrainer does (the greatest "
                  "pair by its byte-level spelling, e.g. Ġthe), and has no other rule: leave "
                  "it out",
    "--lines": None,
    "--threads": "parity training reads each language's text in one thread: leave it out",
    "--min-frequency": None,
    "--prune": "parity training keeps every token: each language's token count is measured with "
               "the whole vocabulary. Leave it out",
    "--format": None,
    "--name": None,
    "--quiet": None,
    "--from": FROM_BYTES,
    "--from-model": FROM_BYTES,
    "--superbpe-from": "SuperBPE is plain BPE's: train with --parity, or with SuperBPE",
    "--superbpe": "SuperBPE is plain BPE's: train with --parity, or with SuperBPE",
}
# where a refused option's value is found, and the value that is parity's own (accepted)
_VALUES = {"CORPUS": ("corpus", None), "--counts": ("counts", None),
           "--vocab-size": ("vocab_size", None), "--threads": ("threads", None),
           "--special-token": ("special_token", None),
           "--preset": ("preset", "gpt2"), "--pattern": ("pattern", "gpt2"),
           "--mode": ("mode", "byte"), "--end-of-word": ("end_of_word", None),
           "--tie-rule": ("tie_break", None), "--prune": ("prune", None),
           "--from": ("source", None), "--from-model": ("source_model", None),
           "--superbpe-from": ("superbpe_from", None), "--superbpe": ("superbpe", None)}


def refuse_plain_options(args: argparse.Namespace) -> None:
    """Each plain-training option PLAIN_OPTIONS refuses, if given, is refused with why."""
    for opt, reason in PLAIN_OPTIONS.items():
        if reason is None:
            continue
        dest, own = _VALUES[opt]
        value = getattr(args, dest)
        if value is None or value is False or value == [] or \
                (own is not None and _same(dest, value, own)):
            continue
        shown = "corpus files" if opt == "CORPUS" else \
            opt if isinstance(value, bool) else f"{opt} {_shown(value)}"
        raise UsageError(f"{shown} is not available with --parity: {reason}")


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
