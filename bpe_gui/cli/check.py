"""``bpe-gui check``: a learner's trainer output held against the reference trained on
the same corpus (the command line of engine/check/). Exit status 0 when every merge
(and every id) agrees, 1 when they part, 2 for bad input, so it runs in a learner's
own tests.

Examples::

    bpe-gui check --tokenizer my_bpe.pkl --corpus tiny.txt --special-token '<|endoftext|>'
    bpe-gui check --tokenizer out/ --corpus tiny.txt --vocab-size 1000 --tie-rule greatest
    bpe-gui check --tokenizer out/vocab.json --ids ids.txt --text sample.txt
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..engine.corpus import decode_utf8, read_bytes
from ..engine.formats import looks_like_tokenizer
from ..engine.check import (CheckReport, EncodeReport, check_ids, check_merges, read_ids,
                            read_result, show_pair)
from ..engine.display import readable
from ..engine.train import TIE_RULES
from .common import examples, CUSTOM_PATTERN, UsageError, add_quiet, json_head, positive, preset_help, \
    preset_names
from .paths import refuse_special_files, refuse_tables_as_corpus

EXIT_AGREE, EXIT_DIFFER = 0, 1


def add_parser(sub) -> None:
    c = sub.add_parser("check", help="check your own BPE trainer's (or encoder's) output "
                       "against the reference", description="Train the reference on the "
                       "corpus with the settings your result implies and print the first "
                       "merge where yours parts from it, both pairs' counts there and the "
                       "reason (a tie broken another way, pairs counted across special "
                       "tokens or pre-token boundaries, overlapping pairs, another pattern, "
                       "characters instead of bytes, a merge of tokens that do not exist "
                       "yet, a vocabulary size off by the special tokens). With --ids and "
                       "--text, check your encoder's ids too. Exit status: 0 all agree, 1 "
                       "they differ, 2 bad input.",
                       **examples(
                           "bpe-gui check --tokenizer my_out --corpus corpus.txt",
                           "bpe-gui check --tokenizer vocab_merges.pkl --corpus corpus.txt "
                           "--special-token '<|endoftext|>' --vocab-size 500",
                           "bpe-gui check --tokenizer my_out --ids ids.txt --text text.txt"))
    c.add_argument("--tokenizer", metavar="PATH", help="your trainer's output: a folder or "
                   "file of vocab.json + merges.txt, a tokenizer.json, a .tiktoken, or a pickle "
                   "of (vocab, merges) (read without running code)")
    # the older spelling, 'check RESULT': still read, not shown (--tokenizer everywhere)
    c.add_argument("result", nargs="?", default=None, help=argparse.SUPPRESS)
    c.add_argument("--corpus", action="extend", nargs="+", default=[], metavar="FILE",
                   help="the corpus your trainer was trained on (several files: list them "
                   "after it, or repeat it)")
    c.add_argument("--special-token", action="append", default=None, metavar="T",
                   help="a special token (repeatable; default: those your files list)")
    pat = c.add_mutually_exclusive_group()
    pat.add_argument("--preset", metavar="NAME", help=f"pre-tokenizer preset: "
                     f"{preset_help()}; or none (no pre-tokenization: the text between "
                     "special tokens is one sequence) (default: the file's pattern, else gpt2)")
    pat.add_argument("--pattern", metavar="REGEX", help=CUSTOM_PATTERN)
    c.add_argument("--mode", choices=("byte", "char"), default=None,
                   help="byte-level, or character-level with </w> (default: byte)")
    c.add_argument("--end-of-word", choices=("suffix", "prefix"), default=None,
                   help="char mode: </w> after each word, or for the space before it "
                   "(default: as your file records it or its merges show, else suffix)")
    c.add_argument("--tie-rule", choices=tuple(TIE_RULES), default=None,
                   help="how the reference breaks ties (default: greatest)")
    c.add_argument("--lines", action="store_true", default=None,
                   help="the reference counts each line as a text of its own, as Hugging "
                   "Face's trainer reads files (as `bpe-gui train --lines`; default: as your "
                   "file records, else whole texts)")
    c.add_argument("--vocab-size", type=positive, metavar="N",
                   help="the vocabulary size you asked your trainer for (default: as many "
                   "merges as yours)")
    c.add_argument("--ids", metavar="FILE", help="ids your encoder produced for --text (a JSON "
                   "list or numbers separated by spaces)")
    c.add_argument("--text", metavar="FILE", help="the text those ids encode")
    c.add_argument("--json", action="store_true", help="print the findings as JSON")
    c.add_argument("-v", "--verbose", action="store_true",
                   help="also list every cause tried and the words where both pairs occur")
    add_quiet(c, "no notes on stderr")
    c.set_defaults(func=cmd_check)


def _pattern(args: argparse.Namespace) -> str | None:
    if args.pattern is not None:
        return args.pattern
    if args.preset is not None:
        if args.preset.lower() == "none":
            return "none"   # no pre-tokenization
        if args.preset.lower() not in preset_names():
            raise UsageError(f"unknown preset {args.preset!r}; use one of "
                             f"{', '.join(preset_names())}")
        return args.preset
    return None


def _result_path(args: argparse.Namespace) -> str:
    """--tokenizer's path, or the older positional RESULT's (one of them, not both)."""
    if args.tokenizer is not None and args.result is not None:
        raise UsageError(f"give your result once: --tokenizer {args.tokenizer} (and drop "
                         f"{args.result!r})")
    if args.tokenizer is None and args.result is None:
        taken = [c for c in args.corpus if looks_like_tokenizer(c) or Path(c).is_dir()]
        hint = (f"; {taken[-1]!r} was read as a corpus file (it follows --corpus): put "
                f"--tokenizer before it") if taken else ""
        raise UsageError("give your trainer's output with --tokenizer PATH (a folder, "
                         f"vocab.json, tokenizer.json, .tiktoken or pickle){hint}")
    return args.tokenizer if args.tokenizer is not None else args.result


def cmd_check(args: argparse.Namespace) -> int:
    args.result = _result_path(args)
    if not args.corpus and args.ids is None:
        raise UsageError("give --corpus FILE (check the merges) or --ids FILE --text FILE "
                         "(check the encoder), or both")
    if (args.ids is None) != (args.text is None):
        raise UsageError("--ids and --text go together: the ids your encoder produced for "
                         "that text")
    if not args.corpus:
        given = [flag for flag, value in (("--mode", args.mode),
                                          ("--end-of-word", args.end_of_word),
                                          ("--tie-rule", args.tie_rule),
                                          ("--lines", args.lines),
                                          ("--vocab-size", args.vocab_size)) if value]
        if given:
            raise UsageError(f"{', '.join(given)} set(s) how the merges are retrained, which "
                             "only the merge check does: add --corpus FILE to check the "
                             "merges too, or leave them out")
    refuse_special_files([args.result], "result file or folder", folders=True)
    if args.corpus:
        refuse_special_files(args.corpus)
        refuse_tables_as_corpus(args.corpus, "check")
    for path in filter(None, (args.ids, args.text)):
        refuse_special_files([path], "file")
    pattern = _pattern(args)
    result = read_result(args.result, special_tokens=args.special_token)
    if args.end_of_word is not None and (args.mode or result.mode or "byte") == "byte":
        # (byte-level BPE keeps a word's leading space as a byte of it: no </w> to place)
        why = "--mode byte" if args.mode else f"as {result.name} records" if result.mode \
            else "the default"
        raise UsageError(f"--end-of-word {args.end_of_word}: where </w> goes applies to "
                         f"character-level BPE only, and the reference is byte-level ({why}; "
                         "no </w>): "
                         "leave --end-of-word out, or give --mode char")
    report = encoded = None
    if args.corpus:
        report = check_merges(result, [Path(p) for p in args.corpus],
                              vocab_size=args.vocab_size, pattern=pattern, mode=args.mode,
                              end_of_word=args.end_of_word, tie_rule=args.tie_rule,
                              lines=args.lines)
    if args.ids is not None:
        text = decode_utf8(read_bytes(args.text), args.text)   # (errors name the file)
        encoded = check_ids(result, text, read_ids(Path(args.ids)), pattern=pattern)
    if args.json:
        json.dump(as_json(report, encoded), sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        lines = [f"result:    {args.result} ({result.format}: {len(result.merges):,} merges, "
                 f"{len(result.vocab):,} tokens)"]
        if report is not None:
            lines += merge_lines(report, ", ".join(args.corpus), args.verbose)
        if encoded is not None:
            lines += [""] + encode_lines(encoded)
        print("\n".join(lines))
    agree = (report is None or report.agree) and (encoded is None or encoded.agree)
    return EXIT_AGREE if agree else EXIT_DIFFER


def merge_lines(r: CheckReport, corpus: str, verbose: bool = False) -> list[str]:
    """The merge check as text: the reference's settings, the first difference and its
    reason, settings that reproduce yours, notes."""
    lines = [f"corpus:    {corpus}", "reference: " + r.settings_from[0]]
    warn = [f"warning:   {r.corpus_warning}"] if r.corpus_warning else []
    lines += [f"           {s}" for s in r.settings_from[1:]] + [""]
    d = r.difference
    if d is None:
        lines += warn + [f"All {len(r.theirs):,} merges agree with the reference "
                         f"(checked in {r.seconds:.1f} s)."]
    else:
        lines += warn + [f"Merge {d.step:,} differs ({d.step - 1:,} agree before it; checked in "
                         f"{r.seconds:.1f} s)."]
        for n, x in enumerate(r.differences):
            tie = f"  (top count shared by {x.n_tied:,} pairs)" if x.n_tied > 1 else ""
            whose = "reference" if n == 0 else "with those"
            if n:
                lines += ["", f"then merge {x.step:,} differs, with the causes above made:"]
            lines += [f"  yours:      {show_pair(x.theirs):<20} {_count(x.their_count)}",
                      f"  {whose + ':':<11} {show_pair(x.ours):<20} {_count(x.our_count)}{tie}"]
            if x.zero_why:
                lines.append(f"  count 0: {x.zero_why}")
            lines += [f"cause: {x.cause_name}", f"  {x.sentence}"]
        if d.also:
            lines += ["", d.also]
        if r.found is not None:
            lines.append(f"settings found: {r.found.sentence}")
    if verbose and d is not None:
        lines += _words(d.theirs, d.their_words, "your") + _words(d.ours, d.our_words,
                                                                  "the reference's")
        lines += _attempts(r)
    lines += [f"note: {n}" for n in r.notes]
    return lines


def _attempts(r: CheckReport) -> list[str]:
    """Each cause tried and how far it reproduces yours; those not tried, grouped by why."""
    tried = [a for a in r.attempts if a.reach is not None]
    lines = ["", "causes tried (how many of your merges each reproduces from the start):"]
    width = max((len(a.label) for a in tried), default=0)
    lines += [f"  {a.label:<{width}}  {a.reach:,}" for a in tried]
    skipped: dict[str, list[str]] = {}
    for a in r.attempts:
        if a.reach is None:
            skipped.setdefault(a.why or "not tried", []).append(a.label)
    for why, labels in skipped.items():
        lines.append(f"  not tried ({why}): {'; '.join(labels)}")
    return lines


def _count(n: int | None) -> str:
    return "(not a pair of tokens there)" if n is None else f"count {n:,}"


def _words(pair, words, whose: str) -> list[str]:
    if pair is None:
        return []
    out = ["", f"words holding {whose} pair {show_pair(pair)} (most frequent first):"]
    for w in words[:12]:
        syms = " ".join(readable(s) for s in w.symbols)
        out.append(f"  {w.freq:>6,}×  {syms}")
    return out


def encode_lines(e: EncodeReport) -> list[str]:
    if e.agree:
        return [f"encoding:  {e.sentence}"]
    lines = [f"encoding:  {e.n_theirs:,} ids of yours, {e.n_ours:,} of the tokenizer; "
             + (f"they part at token {e.first + 1:,}." if e.first is not None else "")]
    w = e.word
    if w is not None:
        lines += [f"  word “{readable(w.text.encode('utf-8', 'surrogatepass'))}” (characters "
                  f"{w.start:,}-{w.end:,}; {len(e.marks):,} word(s) differ in all)",
                  f"  yours:      {' '.join(readable(t) for t in w.theirs)}   ids "
                  f"{' '.join(map(str, w.their_ids))}",
                  f"  tokenizer:  {' '.join(readable(t) for t in w.ours)}   ids "
                  f"{' '.join(map(str, w.our_ids))}"]
        if w.playback is not None:
            lines.append("  the rule, merge by merge:")
            lines += _steps([(s.rank, s.pair, s.symbols) for s in w.playback.steps],
                            w.playback.symbols)
        if w.their_steps:
            lines.append(f"  your encoder ({w.their_rule}), merge by merge:")
            lines += _steps([(s.rank, s.pair, s.symbols) for s in w.their_steps],
                            w.playback.symbols if w.playback else ())
    lines += [f"cause: {e.cause_name}", f"  {e.sentence}"]
    return lines


def _steps(steps, start) -> list[str]:
    out = [f"    {'start':<10} {'':<18} {' '.join(readable(s) for s in start)}"]
    for rank, pair, symbols in steps:
        head = f"rank {rank}" if rank is not None else "cut"
        what = f"{readable(pair[0])} + {readable(pair[1])}" if pair else ""
        out.append(f"    {head:<10} {what:<18} {' '.join(readable(s) for s in symbols)}")
    return out


def as_json(r: CheckReport | None, e: EncodeReport | None) -> dict:
    """The findings as plain JSON (docs/CLI.md: pairs as readable text and as hex bytes;
    "yours" is the checked result's, "reference" the one trained here)."""
    out: dict = json_head("check")
    if r is not None:
        d = r.difference
        out["merges"] = {
            "agree": r.agree, "n_yours": len(r.theirs), "n_reference": len(r.ours),
            "settings": r.settings_from, "seconds": round(r.seconds, 3), "notes": r.notes,
            "difference": None if d is None else {
                **_difference_json(d), "explained_by": d.explained_by, "also": d.also},
            "then": [_difference_json(m) for m in r.more],
            "corpus_warning": r.corpus_warning,
            "settings_found": None if r.found is None else {
                "changes": r.found.changes, "sentence": r.found.sentence},
            "attempts": [{"cause": a.cause, "label": a.label, "reach": a.reach, "why": a.why}
                         for a in r.attempts]}
    if e is not None:
        out["encoding"] = {"agree": e.agree, "first": e.first, "cause": e.cause,
                           "sentence": e.sentence, "marks": e.marks,
                           "word": None if e.word is None else e.word.text}
    return out


def _difference_json(m) -> dict:
    """A merge where the two part: the pairs, their counts, its cause."""
    return {"step": m.step, "yours": _pair_json(m.theirs), "reference": _pair_json(m.ours),
            "your_count": m.their_count, "reference_count": m.our_count, "cause": m.cause,
            "sentence": m.sentence, "reach": m.reach, "zero_why": m.zero_why}


def _pair_json(pair):
    return None if pair is None else {"text": show_pair(pair), "hex": [p.hex() for p in pair]}

