"""``bpe-gui train``: corpus files (or word-count tables) -> a tokenizer in one or more
formats."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Sequence

from ..engine.formats import FORMATS
from ..engine.train import SPECIAL_TEXT_LABELS, TIE_RULES, TrainSettings
from .common import examples, PROG, UsageError, add_encoding_option, hidden_alias, add_pattern_options, check_encoding, \
    add_threads_option, non_negative, positive, resolve_preset_arg, \
    warn_unmatched_corpus
from .paths import refuse_special_files, \
    refuse_tables_as_corpus, refuse_urls
from .train_run import Times, print_written, run_and_export
from .train_parity import add_parity_options

STDIN = "-"   # a corpus file named so is the standard input
TIE_BREAKS = tuple(TIE_RULES)   # the trainer's names: one list


def add_parser(sub) -> None:
    t = sub.add_parser("train", help="train a tokenizer on corpus files and export it",
                       description="Train a BPE tokenizer on one or more corpus files (.txt, "
                       ".md, .jsonl, optionally .gz/.xz) and write it in one or more formats.",
                       **examples(
                           "bpe-gui train corpus.txt --vocab-size 10000 --out tok",
                           "bpe-gui train a.txt b.jsonl.xz --special-token '<|endoftext|>' "
                           "--num-merges 5000 --out tok",
                           "bpe-gui train --counts big.counts.tsv --vocab-size 32000 --out tok",
                           "bpe-gui train more.txt --from tok --num-merges 1000 --out tok2"))
    t.add_argument("corpus", nargs="*", metavar="CORPUS", help="corpus files (- reads the "
                   "standard input)")
    t.add_argument("--counts", nargs="+", action="extend", default=[], metavar="TABLE",
                   help="train from word-count tables (made by `bpe-gui count`) instead of "
                   "corpus files; several are summed. Their pattern and special tokens are "
                   "used unless given, and then must match")
    size = t.add_argument_group("size (give one)")
    size.add_argument("--vocab-size", type=positive, metavar="N",
                      help="target vocabulary size: base symbols + special tokens + merges")
    size.add_argument("--num-merges", type=non_negative, metavar="N",
                      help="number of merges (instead of --vocab-size)")
    t.add_argument("--out", required=True, metavar="DIR", help="folder to write into "
                   "(created if missing)")
    t.add_argument("--special-token", action="append", default=[], metavar="T",
                   help="a special token, never split or merged (repeat for more)")
    t.add_argument("--special-text", choices=tuple(SPECIAL_TEXT_LABELS), default=None,
                   help="how special-token text inside the corpus is read: cut (the text is "
                   "cut at it, as CS336 and tiktoken-style trainers do; the default), text "
                   "(ordinary text, as tokenizers' BpeTrainer reads tokens given only to the "
                   "trainer) or word (cut at it, each one a word whose pieces merge, as "
                   "tokenizers reads tokens added to the tokenizer before training)")
    add_pattern_options(t)
    add_encoding_option(t)
    t.add_argument("--mode", choices=("byte", "char"), default="byte",
                   help="byte-level BPE, or character-level with an end-of-word </w> (default: byte)")
    t.add_argument("--end-of-word", choices=("suffix", "prefix"), default=None,
                   help="char mode: </w> after each word, or for the space before it "
                   "(default: suffix)")
    t.add_argument("--tie-rule", dest="tie_break", choices=TIE_BREAKS, default=None,
                   help="which pair wins a tie in counts (default: greatest); "
                   "lowest-ids-hf is Hugging Face tokenizers' BpeTrainer rule")
    hidden_alias(t, "--tie-break", "tie_break", choices=TIE_BREAKS)   # (check's name wins)
    t.add_argument("--lines", action="store_true",
                   help="one text per line, as Hugging Face reads files: no word spans a "
                   "line break (each line keeps its \\n). With --tie-rule lowest-ids-hf, byte "
                   "mode and the gpt2 pattern: exactly tokenizers' BpeTrainer merges (a BOM "
                   "at a file's start is kept, as it reads it), except inside words over 64 "
                   "KiB, which are cut into 64 KiB pieces where tokenizers keeps them whole "
                   "(the run says when). With --counts, the tables must have been counted "
                   "with --lines"),
    add_threads_option(t)
    t.add_argument("--min-frequency", type=positive, default=1, metavar="N",
                   help="stop when no pair occurs at least N times (default: 1)")
    t.add_argument("--prune", action="store_true",
                   help="drop tokens that no longer occur on their own (vocab size counts live tokens)")
    t.add_argument("--format", action="append", default=[], metavar="FMT",
                   help=f"{'|'.join(FORMATS)}|all; repeat or use commas (default: all that "
                   "the tokenizer's mode supports)")
    t.add_argument("--name", default="tokenizer", help="base name of the files written "
                   "(default: tokenizer, i.e. vocab.json, tokenizer.json, tokenizer.tiktoken ...)")
    t.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    add_parity_options(t)
    t.set_defaults(func=cmd_train)


def check_size_options(args: argparse.Namespace) -> None:
    """Exactly one of --vocab-size and --num-merges: each sets where training stops, so
    with both one of them would be ignored."""
    if args.vocab_size is None and args.num_merges is None:
        raise UsageError("give --vocab-size N or --num-merges N")
    if args.vocab_size is not None and args.num_merges is not None:
        raise UsageError(f"give --vocab-size or --num-merges, not both (--vocab-size "
                         f"{args.vocab_size:,} and --num-merges {args.num_merges:,} were "
                         "given): --vocab-size counts the whole vocabulary (bytes or "
                         "characters, special tokens and merges), --num-merges only the "
                         "merges; keep the one you mean")


def _lines_with_tables(tables: Sequence[str]) -> str:
    which = "the table" if len(tables) == 1 else "the tables"
    were = "was" if len(tables) == 1 else "were"
    return (f"--lines needs words counted one line at a time, but {which} "
            f"({', '.join(tables)}) {were} counted from whole files, where a word may span "
            "a line break; a table cannot be cut into lines again. Train from the corpus "
            "files with --lines, or count them again with `bpe-gui count --lines`.")


def cmd_train(args: argparse.Namespace) -> int:
    """Plain training (train_on.cmd sends parity and training on elsewhere first)."""
    spec, table, t_read = plain_spec(args)
    if args.corpus and args.corpus[0] != STDIN:   # (its head would be read twice)
        from ..engine.text import Pretokenizer
        settings = spec.settings
        warn_unmatched_corpus(Pretokenizer(settings.pattern, settings.cut_at),
                              args.corpus, spec.encoding, bool(args.lines))

    def summary(run, times: Times, written: list[Path], skipped: dict[str, str]) -> None:
        note_cut_words(run.word_cuts, args.lines)
        elapsed = times.elapsed
        merge_start = times.first.get("merge", times.t0 + elapsed)
        if args.counts:   # the words were counted before: the first phase read the tables
            print_summary(run, elapsed + t_read, merge_start - times.t0 + t_read, written,
                          skipped, "reading and summing the tables")
        else:
            print_summary(run, elapsed, merge_start - times.t0, written, skipped)
    return run_and_export(args, spec, [*args.corpus, *args.counts], summary, table=table)


def plain_spec(args: argparse.Namespace):
    """The training spec of plain training's options (checked), the word-count tables
    read (None without --counts) and how long reading them took."""
    from ..engine.train import TrainingSpec, unused
    check_size_options(args)
    if bool(args.corpus) == bool(args.counts):
        raise UsageError("give corpus files or --counts TABLE..., not both" if args.corpus
                         else "give corpus files, or word-count tables with --counts")
    if args.counts and args.threads is not None:
        raise UsageError("--threads sets the threads that count corpus files; the words of "
                         "--counts tables are counted already (give --threads to "
                         "`bpe-gui count`)")
    encoding = check_encoding(args.encoding)
    refuse_urls([*args.corpus, *args.counts], "download the file first, or count it on "
                "Dask (`bpe-gui count URL --dask local --out T.tsv`) and train on the "
                "table (--counts T.tsv)")
    refuse_special_files(args.corpus)
    refuse_special_files(args.counts, "word-count table")
    refuse_tables_as_corpus([p for p in args.corpus if p != STDIN], "train")
    settings = TrainSettings(vocab_size=args.vocab_size, num_merges=args.num_merges,
                             mode=args.mode, end_of_word=args.end_of_word or "suffix",
                             pattern=resolve_preset_arg(args),
                             special_tokens=tuple(args.special_token),
                             tie_rule=args.tie_break or "greatest",
                             min_frequency=args.min_frequency, prune=args.prune,
                             lines=args.lines,
                             special_text=args.special_text or "cut").validated()
    table, t_read = None, 0.0
    if args.counts:   # the tables' pattern and special tokens, unless given
        from ..engine.corpus import read_tables, settings_for_table
        t_read = time.perf_counter()
        table = read_tables(args.counts)
        t_read = time.perf_counter() - t_read
        chosen = args.preset is not None or args.pattern is not None
        settings = settings_for_table(settings, table.meta, pattern=chosen,
                                      specials=bool(args.special_token), lines=args.lines)
        if args.lines and not (table.meta is not None and table.meta.lines):
            raise UsageError(_lines_with_tables(args.counts))
        settings = settings.validated()   # the table's special tokens count too
    spec = TrainingSpec(corpus=tuple(args.corpus), counts=tuple(args.counts),
                        settings=settings, encoding=encoding, threads=args.threads)
    why = unused(spec).get("special_text")
    if args.special_text is not None and why:   # (the window greys it, with the reason)
        raise UsageError(f"--special-text: {why}; leave --special-text out")
    return spec.validated(), table, t_read


def note_cut_words(n: int, lines: bool) -> None:
    """Say when words over the 64 KiB limit were cut into pieces (engine/corpus/
    word_limit.py; ``n``: the cuts, as counting made them): training differs there from
    a trainer that keeps them whole."""
    from ..engine.corpus import MAX_WORD_BYTES
    if n:
        kib = MAX_WORD_BYTES >> 10
        hf = " (with --lines, where Hugging Face's trainer keeps them whole, so merges " \
             "inside them may differ from its)" if lines else ""
        print(f"{PROG}: note: words longer than {kib} KiB were cut into pieces of at most "
              f"{kib} KiB before training, at {n:,} place(s) in the corpus{hf}. To keep "
              "such text out, split or remove the long runs (a base64 blob, a minified "
              "line) from the corpus", file=sys.stderr)




def print_summary(trainer, elapsed: float, pre_time: float, written: list[Path],
                  skipped: dict[str, str], first_phase: str = "pre-tokenizing") -> None:
    s = trainer.settings
    n_merges = trainer.n_steps
    n_bytes = trainer.corpus_bytes
    tokens = trainer.corpus_tokens
    base = "256 bytes" if s.mode == "byte" else f"{trainer.n_base} base symbols"
    print(f"merges:      {n_merges:,} in {elapsed:.2f} s ({first_phase} {pre_time:.2f} s, "
          f"merging {elapsed - pre_time:.2f} s)")
    parts = f"{base} + {len(s.special_tokens)} special + {n_merges:,} merges"
    if s.prune:
        total = len(trainer.vocab_bytes)
        print(f"vocab size:  {trainer.vocab_size:,} live tokens after pruning ({total:,} in the "
              f"files: {parts}, since merges need the pruned ones)")
    else:
        print(f"vocab size:  {trainer.vocab_size:,} ({parts})")
    if tokens:
        print(f"corpus:      {n_bytes:,} bytes -> {tokens:,} tokens = "
              f"{n_bytes / tokens:.2f} bytes per token")
    target = trainer.target_steps
    if target is not None and n_merges < target:
        print(f"stopped early: no pair occurs at least {s.min_frequency} time(s) after "
              f"{n_merges:,} merges")
    print_written(written, skipped)
