"""``bpe-gui train --parity {base,window}``: parity-aware BPE over several languages
(engine/train/parity.py), written in the usual formats.

    bpe-gui train --parity {base,window} --language NAME=FILE [--language NAME=FILE ...]
        (--dev NAME=FILE ... | --ratio NAME=R ...) [--global-merges N] [--window-size N]
        [--window-share A] [--min-frequency N] --num-merges N [--lines] --out DIR
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .common import UsageError, check_encoding, non_negative
from .parity_options import refuse_plain_options, warn_unparallel
from .train_run import print_written, run_and_export
from .paths import refuse_special_files

if TYPE_CHECKING:
    from ..engine.train import ParityTrainer

WINDOW_ONLY = ("window_size", "window_share")


class _Variants(Sequence):
    """engine.train.PARITY_VARIANTS as ``--parity``'s choices, read when a value is
    checked: plain training does not import parity training to build its parser."""

    @staticmethod
    def _all() -> tuple[str, ...]:
        from ..engine.train import PARITY_VARIANTS
        return PARITY_VARIANTS

    def __getitem__(self, i):
        return self._all()[i]

    def __len__(self) -> int:
        return len(self._all())


def add_parity_options(t: argparse.ArgumentParser) -> None:
    """The parity options of ``bpe-gui train`` (``--lines`` too, unless it has it)."""
    g = t.add_argument_group("parity-aware training (Foroutan et al. 2025; HF's "
                             "ParityBpeTrainer)")
    g.add_argument("--parity", choices=_Variants(), metavar="{base,window}",
                   help="train one vocabulary for several languages, each merge chosen for "
                   "the language compressed worst (base), or so that none takes more than "
                   "its share of recent turns (window)")
    g.add_argument("--language", action="append", default=[], metavar="NAME=FILE",
                   help="a language and its training text (repeat for each language)")
    g.add_argument("--dev", action="append", default=[], metavar="NAME=FILE",
                   help="a language's dev text: the same (parallel) text in every "
                   "language, whose token counts choose the language (repeat)")
    g.add_argument("--ratio", action="append", default=[], metavar="NAME=R",
                   help="a language's target compression ratio, instead of dev texts "
                   "(repeat for every language; only relative sizes matter)")
    g.add_argument("--global-merges", type=non_negative, default=0, metavar="N",
                   help="plain-BPE merges over all languages first (default: 0)")
    g.add_argument("--window-size", type=_window_size, default=None, metavar="N",
                   help="window variant: how many recent turns count (default: 100)")
    g.add_argument("--window-share", type=_window_share, default=None, metavar="A",
                   help="window variant: a language may take at most A / (number of "
                   "languages) of the recent turns, A times an equal share (default: "
                   "2.0; the paper's and HF's alpha)")
    # its first name, still read: `cost --alpha` is the Renyi order, another number
    g.add_argument("--alpha", dest="window_share", type=_window_share,
                   help=argparse.SUPPRESS, default=argparse.SUPPRESS)   # (common.hidden_alias)
    if "--lines" not in t._option_string_actions:   # the plain trainer may have it
        t.add_argument("--lines", action="store_true",
                       help="each line is its own text, as Hugging Face reads files")


def _window_size(text: str) -> int:
    n = non_negative(text)
    if n < 1:
        raise argparse.ArgumentTypeError("the window size must be at least 1")
    return n


def _window_share(text: str) -> float:
    try:
        a = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not a > 0 or a == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} must be a positive number")
    return a


def wants_parity(args: argparse.Namespace) -> bool:
    """True when the parity options are in use; parity options without ``--parity``
    are refused here, saying so."""
    if args.parity:
        return True
    used = [opt for opt, v in (("--language", args.language), ("--dev", args.dev),
                               ("--ratio", args.ratio),
                               ("--window-size", args.window_size),
                               ("--window-share", args.window_share)) if v]
    if args.global_merges:
        used.append("--global-merges")
    if used:
        raise UsageError(f"{', '.join(used)} belong to parity training: add --parity base "
                         "or --parity window")
    return False


def _named(values: list[str], option: str, what: str) -> list[tuple[str, str]]:
    out = []
    for v in values:
        name, eq, rest = v.partition("=")
        if not eq or not name.strip():
            raise UsageError(f"{option} {v}: write {option} NAME={what} (e.g. {option} "
                             f"en={'corpus.en.txt' if what == 'FILE' else '1.0'})")
        if not rest.strip():
            raise UsageError(f"{option} {v}: language {name!r} has no "
                             f"{'file' if what == 'FILE' else 'ratio'}: write {option} "
                             f"{name}={what}")
        out.append((name, rest))
    return out


def cmd_train_parity(args: argparse.Namespace) -> int:
    spec = parity_spec(args)
    assert spec.parity is not None
    paths = [p for lang in spec.parity.languages for p in (lang.train, lang.dev) if p]

    def summary(run, times, written, skipped) -> None:
        read = times.first.get("merge", times.t0 + times.elapsed) - times.t0
        print_summary(run, times.elapsed, read, written, skipped)
    return run_and_export(args, spec, paths, summary,
                          after_build=lambda run: warn_unparallel(run.data))


def parity_spec(args: argparse.Namespace):
    """The training spec of parity training's options (checked)."""
    from ..engine.train import ParityOptions, TrainingSpec, TrainSettings, named_languages
    refuse_plain_options(args)
    encoding = check_encoding(args.encoding)
    if args.num_merges is None:
        raise UsageError("parity training needs --num-merges N (a vocabulary size is not "
                         "its target)")
    langs = _named(args.language, "--language", "FILE")
    if not langs:
        raise UsageError("--parity needs at least one --language NAME=FILE")
    devs = _named(args.dev, "--dev", "FILE")
    ratio_items = _named(args.ratio, "--ratio", "R")
    if not devs and not ratio_items:
        raise UsageError("--parity needs --dev NAME=FILE (parallel dev text) or --ratio "
                         "NAME=R (target ratio) for every language")
    if args.parity == "base":
        given = [f"--{k.replace('_', '-')}" for k in WINDOW_ONLY if getattr(args, k) is not None]
        if given:
            raise UsageError(f"{', '.join(given)} apply to --parity window only")
    languages = named_languages(langs, devs or None,
                                [(n, _ratio(n, r)) for n, r in ratio_items] or None)
    refuse_special_files([p for _, p in langs] + [p for _, p in devs])
    return TrainingSpec(
        mode="parity", settings=TrainSettings(vocab_size=None, num_merges=args.num_merges,
                                              min_frequency=args.min_frequency,
                                              lines=bool(args.lines)),
        encoding=encoding, parity=ParityOptions(
            languages, args.parity, args.global_merges,
            100 if args.window_size is None else args.window_size,
            2.0 if args.window_share is None else args.window_share)).validated()


def _ratio(name: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"--ratio {name}={text}: the ratio must be a positive number") \
            from None


def print_summary(trainer: ParityTrainer, elapsed: float, read_time: float,
                  written: list[Path], skipped: dict[str, str]) -> None:
    s = trainer.parity_settings
    n = trainer.n_steps
    print(f"merges:      {n:,} in {elapsed:.2f} s (reading {read_time:.2f} s, parity "
          f"{s.variant}, measured on {'dev texts' if trainer.kind == 'dev' else 'ratios'})")
    repeats = 256 + n - trainer.vocab_size
    print(f"vocab size:  {trainer.vocab_size:,} (256 bytes + {n:,} merges"
          + (f", {repeats:,} of which make a token an earlier merge made)" if repeats else ")"))
    turns = [rec.language for rec in trainer.steps]
    start, now = trainer.curve()[0], trainer.tokens
    what = "dev tokens" if trainer.kind == "dev" else "training tokens"
    for i, name in enumerate(trainer.names):
        print(f"  {name}: {turns.count(i):,} turns, {what} {start[i]:,} -> {now[i]:,}")
    if s.global_merges:
        print(f"  (global: {turns.count(None):,} merges over all languages first)")
    if n < trainer.target_steps:
        left = "no pair left" if s.min_frequency <= 1 else \
            f"no pair that occurs at least {s.min_frequency:,} times"
        print(f"stopped early: {left} in any language after {n:,} merges")
    print_written(written, skipped)
