"""What ``bpe-gui train --parity`` does with the options of plain training (each one
honoured or refused with the reason: ``PLAIN_OPTIONS``), and the warning for dev texts
that are not parallel."""
from __future__ import annotations

import argparse
import bisect
import sys
from typing import TYPE_CHECKING

from .common import PROG, UsageError

if TYPE_CHECKING:
    from ..engine.corpus import PretokenTable

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


def warn_unparallel(devs: list[tuple[str, str]], encoding: str,
                    tables: dict[str, PretokenTable]) -> None:
    """A warning when the dev texts differ in their number of lines: they are then not
    the same text in every language, and the comparison of their token counts that picks
    each merge's language means nothing. (A warning, not a refusal: a translation may
    wrap its lines differently and still be parallel.) ``tables``: each language's
    counted dev words, whose line breaks give the lines without reading the file again."""
    counts = [(name, path, _line_count(tables[name], path, encoding)) for name, path in devs]
    if len({n for _, _, n in counts}) <= 1:
        return
    listed = ", ".join(f"{name} ({path}): {n:,}" for name, path, n in counts)
    print(f"{PROG}: warning: the dev texts have different numbers of lines ({listed}). A "
          "dev set must be the same text in every language, line for line: otherwise the "
          "language whose dev text is longest has the most tokens and takes the turns, "
          "however well it is compressed. Give parallel dev texts (one translation per "
          "language), or target ratios with --ratio NAME=R instead.", file=sys.stderr,
          flush=True)


def _line_count(table: PretokenTable, path: str, encoding: str) -> int:
    """Lines of a counted text file: its line breaks (each \\n inside a word, times the
    word's count), and one more for a last line without \\n (its last byte). A file
    whose last byte is not at hand (.gz, .xz), whose lines are not its text's (.jsonl)
    or whose \\n is not one byte (UTF-16) is read again instead."""
    from pathlib import Path
    p = Path(path)
    if p.suffix in (".gz", ".xz", ".jsonl") or \
            len("\n\n".encode(encoding)) - len("\n".encode(encoding)) != 1:
        return _file_lines(path, encoding)
    blob, starts, counts = table.blob, table.starts, table.counts
    breaks, at = 0, blob.find(b"\n")
    while at >= 0:
        breaks += counts[bisect.bisect_right(starts, at) - 1]
        at = blob.find(b"\n", at + 1)
    # (in an ASCII-based encoding no other character's bytes end with the byte of \\n)
    with open(p, "rb") as f:
        if f.seek(0, 2) == 0:
            return breaks
        f.seek(-1, 2)
        return breaks + (f.read(1) != b"\n")


def _file_lines(path: str, encoding: str) -> int:
    """Lines of a text file (optionally .gz/.xz) read to the end; a last line without
    \\n counts."""
    import codecs
    from ..engine.corpus import open_binary
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    n, last = 0, "\n"
    with open_binary(path) as (stream, _raw):
        while block := stream.read(1 << 20):
            text = decoder.decode(block)
            n += text.count("\n")
            last = text[-1:] or last
    text = decoder.decode(b"", final=True)
    n += text.count("\n")
    last = text[-1:] or last
    return n + (last != "\n")
