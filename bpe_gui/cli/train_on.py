"""``bpe-gui train --from TOKENIZER`` (train on from an existing tokenizer) and
``bpe-gui train --superbpe-from T`` / ``--from TOKENIZER --superbpe`` (SuperBPE).

The options are added to the ``train`` parser here, and plain training is handed back
to ``train.cmd_train``, so ``train.py`` stays as it was. The source tokenizer decides
how the corpus is cut (mode, pattern, special tokens): those options, given with
``--from``, must be the source's, or are refused with the reason.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from . import train
from .common import UsageError, check_encoding, non_negative, resolve_preset_arg
from .train_run import print_written, run_and_export
from .paths import refuse_special_files, \
    refuse_tables_as_corpus
from .train_parity import cmd_train_parity, parity_spec, wants_parity

if TYPE_CHECKING:   # (the engine's modules are imported by the commands that use them:
    # plain training is train.cmd_train's, which imports only what it needs)
    pass


def add_parser(sub) -> None:
    """The ``train`` parser, with the options of this module."""
    train.add_parser(sub)
    t = sub.choices["train"]
    # None = not given: with --from the source decides; plain training fills the defaults
    t.set_defaults(mode=None, end_of_word=None, func=cmd)
    g = t.add_argument_group("training on, and SuperBPE")
    src = g.add_mutually_exclusive_group()
    src.add_argument("--from", dest="source", metavar="TOKENIZER",
                     help="train on from this tokenizer (any file or folder `encode "
                     "--tokenizer` takes): its merges and ids are kept, and --num-merges N "
                     "more are learned (or up to --vocab-size, counting its tokens). Its "
                     "mode, pattern and special tokens are used")
    src.add_argument("--from-model", dest="source_model", metavar="NAME",
                     help="train on from the tokenizer of a model already on this machine, "
                     "by name ('bpe-gui models' lists them), as --from does")
    g.add_argument("--superbpe-from", type=non_negative, metavar="T",
                   help="SuperBPE: ordinary BPE to merge T, then stage 2 (tokens across "
                   "spaces) to the target (--num-merges counts both stages); with --from, "
                   "stage 2 on its first T merges (--num-merges counts stage 2's)")
    g.add_argument("--superbpe", action="store_true",
                   help="with --from: SuperBPE's stage 2 on top of all its merges")


def _eow_in_byte_mode(eow: str, which: str, fix: str) -> UsageError:
    """--end-of-word where no </w> is: byte-level BPE keeps a word's leading space as a
    byte of the word, so where </w> goes changes nothing there."""
    return UsageError(f"--end-of-word {eow}: where </w> goes applies to character-level "
                      f"BPE only, and {which} is byte-level (no </w>): {fix}")


def cmd(args: argparse.Namespace) -> int:
    if wants_parity(args):   # (before any default is filled in: it refuses what is given)
        return cmd_train_parity(args)
    spec, source = on_spec(args)
    if spec is None:
        return train.cmd_train(args)

    def summary(run, times, written, skipped) -> None:
        print_summary(args, run, source, times)
        print_written(written, skipped)
    return run_and_export(args, spec, [*args.corpus, *args.counts,
                                       *source_files(args.source)], summary, base=source)


def spec_of(argv: list[str]):
    """The training spec ``bpe-gui train ARGS...`` trains (``argv`` after ``bpe-gui``),
    made by the command line's own parser and checks, without training; and the
    tokenizer trained on, loaded (None)."""
    parser = argparse.ArgumentParser(prog="bpe-gui")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    if wants_parity(args):
        return parity_spec(args), None
    spec, source = on_spec(args)
    return (train.plain_spec(args)[0], None) if spec is None else (spec, source)


def on_spec(args: argparse.Namespace):
    """The spec of training on or SuperBPE (and the tokenizer trained on), checked; or
    (None, None) for plain training, whose defaults are filled in ``args``."""
    if args.source_model is not None:
        from .loading import tokenizer_path
        args.source = tokenizer_path(argparse.Namespace(model=args.source_model))
    if args.counts and check_encoding(args.encoding) != "utf-8":
        raise UsageError("--encoding says how corpus files are read; the words of --counts "
                         "tables are read already (give --encoding to `bpe-gui count`)")
    if args.end_of_word is not None and args.source is None and args.mode != "char":
        raise _eow_in_byte_mode(args.end_of_word, "this run", "leave --end-of-word out" + (
            "" if args.superbpe_from is not None else ", or add --mode char"))
    if args.source is None and args.superbpe_from is None and not args.superbpe:
        args.mode = args.mode or "byte"
        args.end_of_word = args.end_of_word or "suffix"
        return None, None
    from dataclasses import replace

    from ..engine.train import SUPERBPE, TRAIN_ON, TrainingSpec, TrainSettings, resolve, unused
    superbpe = args.superbpe or args.superbpe_from is not None
    if args.superbpe and args.source is None:
        raise UsageError("--superbpe trains stage 2 on top of --from TOKENIZER; to train "
                         "both stages on the corpus, give --superbpe-from T instead")
    if args.superbpe and args.superbpe_from is not None:
        raise UsageError("give --superbpe (all merges of --from) or --superbpe-from T, not both")
    train.check_size_options(args)
    if bool(args.corpus) == bool(args.counts):
        raise UsageError("give corpus files or --counts TABLE..., not both" if args.corpus
                         else "give corpus files, or word-count tables with --counts")
    if superbpe and args.counts:
        raise UsageError("SuperBPE counts the corpus with its own stage-2 pre-tokenizer "
                         "(no whitespace split), which a --counts table was not made with; "
                         "give the corpus files")
    why = unused(TrainingSpec(mode=SUPERBPE if superbpe else TRAIN_ON, base=args.source))
    for option, key in (("--prune", "prune"), ("--lines", "lines"), ("--threads", "threads"),
                        ("--special-text", "special_text")):
        if getattr(args, key) and key in why:   # (the window greys these, with the reason)
            raise UsageError(f"{option}: {why[key]}; leave {option} out")
    encoding = check_encoding(args.encoding)
    refuse_special_files(args.corpus)
    refuse_special_files(args.counts, "word-count table")
    refuse_tables_as_corpus([p for p in args.corpus if p != train.STDIN], "train")
    source = load_source(args) if args.source is not None else None
    settings = TrainSettings(num_merges=args.num_merges, vocab_size=args.vocab_size,
                             tie_rule=args.tie_break or "greatest",
                             min_frequency=args.min_frequency,
                             mode=args.mode or "byte", end_of_word=args.end_of_word or "suffix",
                             lines=args.lines, superbpe_from=args.superbpe_from)
    if source is None:   # SuperBPE from the corpus: stage 1's pattern and specials as given
        settings = replace(settings, pattern=resolve_preset_arg(args),
                           special_tokens=tuple(args.special_token))
    spec = resolve(TrainingSpec(mode=SUPERBPE if superbpe else TRAIN_ON,
                                corpus=tuple(args.corpus), counts=tuple(args.counts),
                                settings=settings, encoding=encoding, base=args.source),
                   source)
    return spec, source


def load_source(args: argparse.Namespace):
    """The --from tokenizer, with the command line's mode/pattern/specials checked
    against its own (they decide how the corpus is cut, so they are the source's)."""
    from ..engine.formats import load_tokenizer
    from ..engine.text import resolve_pattern
    refuse_special_files([args.source], "tokenizer file or folder", folders=True)
    tok = load_tokenizer(args.source)
    why = f"the tokenizer {args.source} decides it; leave the option out"
    if args.mode is not None and args.mode != tok.mode:
        raise UsageError(f"--mode {args.mode}: the tokenizer is {tok.mode}-level ({why})")
    if args.end_of_word is not None and tok.mode == "byte":
        raise _eow_in_byte_mode(args.end_of_word, f"the tokenizer {args.source}",
                                "leave --end-of-word out")
    if args.end_of_word is not None and tok.mode == "char" and args.end_of_word != tok.end_of_word:
        raise UsageError(f"--end-of-word {args.end_of_word}: the tokenizer marks words "
                         f"with {tok.end_of_word} ({why})")
    if args.superbpe or args.superbpe_from is not None:   # (a byte-level one: resolve)
        if args.preset is not None or args.pattern is not None:
            raise UsageError("--preset/--pattern: stage 2 cuts text with SuperBPE's own "
                             "pre-tokenizer, and the merges kept are the tokenizer's; leave "
                             "the option out")
        if args.superbpe_from is not None and args.superbpe_from > tok.n_merges:
            raise UsageError(f"--superbpe-from {args.superbpe_from}: {args.source} has only "
                             f"{tok.n_merges:,} merges")
    elif args.preset is not None or args.pattern is not None:
        given = resolve_pattern(resolve_preset_arg(args))[0]
        if given != resolve_pattern(tok.pattern)[0]:
            raise UsageError(f"--preset/--pattern differs from the pre-tokenizer of "
                             f"{args.source} ({why})")
    if args.special_token and set(args.special_token) != set(tok.special_tokens):
        have = ", ".join(tok.special_tokens) or "none"
        raise UsageError(f"--special-token: the tokenizer's special tokens are {have} ({why})")
    return tok


def source_files(path: str | None) -> list[Path]:
    """The files of the --from tokenizer (an export must not overwrite them)."""
    if path is None:
        return []
    p = Path(path).expanduser()
    return [f for f in p.iterdir() if f.is_file()] if p.is_dir() else [p]


def tokens_before(trainer) -> int:
    """The corpus's tokens before the new merges (each merge removes ``merged``)."""
    steps = trainer.steps
    return steps[0].corpus_tokens + steps[0].merged if steps else trainer.corpus_tokens


def print_summary(args, run, source, times) -> None:
    from ..engine.train import READING, STAGE2
    trainer = getattr(run, "stage2", None) or run   # (SuperBPE's both stages: stage 2's)
    s = trainer.settings
    n_new, n_old = trainer.n_steps, trainer.n_inherited
    t0, elapsed = times.t0, times.elapsed
    # stage 1 (SuperBPE trained here) until stage 2 is counted, then its words counted
    stage1 = times.first.get(STAGE2, t0) - t0 if source is None else 0.0
    counted = max(times.last.get(STAGE2, t0), times.last.get(READING, t0), t0 + stage1) - t0
    times = (f"counting words {counted - stage1:.2f} s, segmenting and merging "
             f"{elapsed - counted:.2f} s")
    superbpe = source is None or args.superbpe or args.superbpe_from is not None
    if source is not None:
        print(f"from:        {args.source} ({len(source.vocab):,} tokens, "
              f"{source.n_merges:,} merges, {source.mode} mode)")
    if superbpe:
        how = f"trained here in {stage1:.2f} s" if source is None else "kept"
        print(f"stage 1:     {n_old:,} merges ({how})")
        print(f"stage 2:     {n_new:,} merges learned in {elapsed - stage1:.2f} s ({times}; "
              f"{trainer.n_rebuilds} rebuild(s) for skipped pairs)")
    else:
        print(f"inherited:   {n_old:,} merges (ids 0-{trainer.n_initial - 1:,} kept as they are)")
        print(f"learned:     {n_new:,} merges in {elapsed:.2f} s ({times})")
    print(f"vocab size:  {len(trainer.vocab):,} ({trainer.n_initial:,} ids kept + "
          f"{n_new:,} new; {len(s.special_tokens)} special)")
    n_bytes, before, after = trainer.table.total_word_bytes, tokens_before(trainer), \
        trainer.corpus_tokens
    if before and after:
        what = "with stage 1's merges" if superbpe else "with the tokenizer as it was"
        print(f"corpus:      {n_bytes:,} bytes")
        print(f"bytes/token: {n_bytes / before:.2f} {what} ({before:,} tokens) -> "
              f"{n_bytes / after:.2f} after ({after:,} tokens)")
    target = trainer.target_steps
    if target is not None and n_new < target:
        print(f"stopped early: no pair occurs at least {s.min_frequency} time(s) after "
              f"{n_new:,} new merges")
