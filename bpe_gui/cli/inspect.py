"""``bpe-gui inspect``: the tokens no text produces (unreachable, undecodable), the
command line of engine/analysis/reachability.py; with ``--corpus``, the tokens that are
dead weight on a corpus (engine/analysis/dead_weight.py: almost always merged further).

Examples::

    bpe-gui inspect --tokenizer cl100k_base.tiktoken
    bpe-gui inspect --tokenizer out/ --merges 500 --json > classes.json
    bpe-gui inspect --model meta-llama/Llama-3.2-1B
    bpe-gui inspect --tokenizer out/ --corpus wiki.txt --threshold 0.95 --limit 50
"""
from __future__ import annotations

import argparse
import json
import sys

from ..engine.analysis import KINDS, THRESHOLD, UNREACHABLE, DeadWeight, classify_tokens, \
    dead_weight_of_files
from ..engine.display import readable
from ..engine.errors import SettingsError
from .common import UsageError, json_head, non_negative
from .progress import Progress
from .loading import add_tokenizer_overrides, add_tokenizer_source, check_merges_option, \
    load_with_overrides, source_line, tokenizer_name, tokenizer_path


def add_parser(sub) -> None:
    i = sub.add_parser("inspect", help="list the tokens no text produces (unreachable, "
                       "undecodable)", description="Decode every token and encode its text "
                       "again (the tokenizer check of 'Fishing for Magikarp', Land & Bartolo "
                       "2024). ok: it encodes to itself; unreachable: to other tokens; "
                       "undecodable: its bytes are part of a UTF-8 character; special: a "
                       "special token.")
    add_tokenizer_source(i)
    i.add_argument("--json", action="store_true", help="print the classes as JSON instead: "
                   "each token with its id, text, hex and spelling (docs/CLI.md)")
    i.add_argument("--merges", type=non_negative, metavar="N", help="only the first N merges "
                   "(the tokenizer as of training step N; files with a merge list)")
    i.add_argument("--limit", type=non_negative, metavar="N", help="list at most N tokens of "
                   "each class (default: all)")
    i.add_argument("--ok", action="store_true", help="list the ok tokens too")
    i.add_argument("--corpus", action="append", metavar="FILE", default=[],
                   help="also list the dead weight on this corpus (repeatable; .txt, .jsonl, "
                   ".gz, .xz): each token's count as an output token and as a part merged "
                   "further, and the merged tokens whose share merged further (PickyBPE's "
                   "IoS) is at least --threshold")
    i.add_argument("--threshold", type=_share, default=None, metavar="IOS",
                   help=f"with --corpus: the IoS from which a token is dead weight (default "
                   f"{THRESHOLD:g}, as PickyBPE)")
    i.add_argument("--min-count", type=non_negative, default=None, metavar="N",
                   help="with --corpus: list only tokens occurring at least N times "
                   "(default 1)")
    i.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    add_tokenizer_overrides(i)
    i.set_defaults(func=cmd_inspect)


def cmd_inspect(args: argparse.Namespace) -> int:
    _dead_weight_options(args)
    if args.ok and args.json:
        raise UsageError("--ok lists the ok tokens in the text report; --json lists them "
                         "always (under \"ok\"): leave --ok out")
    tok = load_with_overrides(tokenizer_path(args), args)
    check_merges_option(tok, args.merges)
    if args.merges is not None:
        try:
            tok = tok.at_step(args.merges)
        except SettingsError as e:   # an imported file: it has no steps
            raise SettingsError(f"--merges: {e}") from None
    reach = classify_tokens(tok)
    dead = corpus_dead_weight(tok, args.corpus, not args.quiet) if args.corpus else None
    if args.json:
        json.dump(inspect_json(tok, reach, dead, args), sys.stdout, ensure_ascii=False)
        print()
        return 0
    lines = inspect_lines(tok, reach, tokenizer_name(args), args.limit, args.ok)
    if dead is not None:
        lines += [""] + dead_lines(tok, dead, args.threshold, args.min_count, args.limit)
    print("\n".join(lines))
    return 0


# inspect's --json layout: 2 since each token is an object (1 gave bare ids)
INSPECT_SCHEMA = 2


def token_json(tok, i: int) -> dict:
    """One token as the JSON outputs show it: ``id``, ``text`` (as the text report shows
    it: whitespace made visible, a partial character as hex), ``hex`` (its bytes),
    ``utf8`` (whether they are whole UTF-8 characters) and ``token`` (as the format
    spells it, tokenizers' id_to_token: ``Ġhello``)."""
    b = tok.vocab.get(i, b"")
    try:
        b.decode("utf-8")
        whole = True
    except UnicodeDecodeError:
        whole = False
    return {"id": i, "text": readable(b), "hex": b.hex(), "utf8": whole,
            "token": tok.id_to_token(i)}


def inspect_json(tok, reach, dead: DeadWeight | None, args: argparse.Namespace) -> dict:
    """inspect --json (schema bpe-gui.inspect/2, docs/CLI.md): what the text report
    shows, each token an object (:func:`token_json`); an unreachable one with the
    tokens its text encodes to (``reencoded``)."""
    counts = reach.counts()
    got: dict = {**json_head("inspect", INSPECT_SCHEMA), "tokenizer": tokenizer_name(args),
                 "format": source_line(tok).removeprefix("format: ") or None,
                 "n_tokens": len(tok.vocab), "reencoded_by": reach.describe(),
                 "counts": {k: counts[k] for k in KINDS}}
    for kind, ids in reach.as_json().items():
        rows = []
        for i in ids if args.limit is None else ids[:args.limit]:
            row = token_json(tok, i)
            if kind == UNREACHABLE:
                row["reencoded"] = [token_json(tok, j) for j in reach.reencoded[i]]
            rows.append(row)
        got[kind] = rows
    if dead is not None:
        found = dead.dead(args.threshold, args.min_count)
        got["dead_weight"] = [{**token_json(tok, t.id), "merged": t.merged,
                               "output": t.output, "ios": t.ios}
                              for t in (found if args.limit is None else found[:args.limit])]
    return got


def _dead_weight_options(args: argparse.Namespace) -> None:
    """--threshold and --min-count filter the dead weight on a corpus: without --corpus
    there is none, and they would change nothing."""
    given = [o for o, v in (("--threshold", args.threshold), ("--min-count", args.min_count))
             if v is not None]
    if given and not args.corpus:
        raise UsageError(f"{' and '.join(given)} {'applies' if len(given) == 1 else 'apply'} "
                         "to the dead weight on a corpus: add --corpus FILE, or leave "
                         f"{'it' if len(given) == 1 else 'them'} out")
    args.threshold = THRESHOLD if args.threshold is None else args.threshold
    args.min_count = 1 if args.min_count is None else args.min_count


def _share(value: str) -> float:
    try:
        x = float(value)
    except ValueError:
        x = -1.0
    if not 0 <= x <= 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a share from 0 to 1 (e.g. 0.9)")
    return x


def corpus_dead_weight(tok, paths: list[str], show: bool) -> DeadWeight:
    """Dead weight over the files, streamed (progress on stderr)."""
    progress = Progress(sys.stderr, enabled=show)
    try:
        return dead_weight_of_files(tok, paths, progress=progress)
    finally:
        progress.end_line()


def dead_lines(tok, dead: DeadWeight, threshold: float, min_count: int,
               limit: int | None) -> list[str]:
    """The dead-weight report: a summary line, then each token over the threshold (id,
    IoS, merged further, output, readable bytes)."""
    rows = dead.dead(threshold, min_count)
    shown = rows if limit is None else rows[:limit]
    lines = [f"dead weight:  {dead.summary(threshold)} "
             f"({dead.n_chars:,} characters)",
             "  (IoS: the share of a token's occurrences in which it is merged further)",
             "", f"IoS >= {threshold:g} ({len(rows):,}):"]
    if rows:
        w = len(str(max(t.id for t in rows)))
        lines.append(f"  {'id':>{w}}   IoS  {'merged':>10}  {'output':>10}  token")
    for t in shown:
        lines.append(f"  {t.id:>{w}}  {t.ios:4.2f}  {t.merged:>10,}  {t.output:>10,}  "
                     f"{readable(tok.vocab.get(t.id, b''))}")
    if len(shown) < len(rows):
        lines.append(f"  ... {len(rows) - len(shown):,} more (--limit)")
    return lines


def inspect_lines(tok, reach, name: str, limit: int | None = None,
                  with_ok: bool = False) -> list[str]:
    """The text report: counts, then each class's tokens (id, readable bytes)."""
    counts = reach.counts()
    vocab = tok.vocab
    lines = [f"tokenizer:    {name} ({len(vocab):,} tokens)"]
    what = source_line(tok)
    if what:
        lines.append(f"{what.replace('format: ', 'format:       ', 1)}")
    lines.append(f"re-encoded:   {reach.describe()}")
    lines += [f"{k + ':':<13} {counts[k]:,}" for k in KINDS]
    for kind in KINDS:
        if kind == "ok" and not with_ok:
            continue
        ids = reach.ids(kind)
        shown = ids if limit is None else ids[:limit]
        lines += ["", f"{kind} ({len(ids):,}):"]
        width = len(str(max(ids, default=0)))
        for i in shown:
            row = f"  {i:>{width}}  {readable(vocab[i])}"
            if kind == UNREACHABLE:
                parts = " ".join(readable(vocab.get(j, b"")) for j in reach.reencoded[i])
                row += f"   -> {parts or '(nothing)'}"
            lines.append(row)
        if len(shown) < len(ids):
            lines.append(f"  ... {len(ids) - len(shown):,} more (--limit)")
    return lines
