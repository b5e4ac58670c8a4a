"""``bpe-gui cost``: what each language costs in tokens (bytes per token, parity, Rényi
efficiency), the command line of engine/analysis/per_language.py.

Example::

    bpe-gui cost --tokenizer gpt2/ --tokenizer o200k_base.tiktoken flores/ --csv cost.csv
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..engine.errors import SettingsError
from ..engine.io import write_files
from ..engine.analysis import (
    MAX_ALPHA, held_out_files, language_cost, tokenizer_labels)
from .common import UsageError, add_quiet, json_head, note, warn
from .loading import load_with_overrides
from .paths import refuse_overwriting_inputs

MAX_COST_TOKENIZERS = 4


def add_parser(sub) -> None:
    c = sub.add_parser("cost", help="tokens per language: bytes per token, parity, Rényi "
                       "efficiency", description="Encode held-out texts (a folder with one "
                       "file per language: en.txt, de.txt, zh.txt.xz ...) with up to "
                       f"{MAX_COST_TOKENIZERS} tokenizers and print bytes per token, tokens "
                       "per character, parity against a reference language (Petrov et al. "
                       "2023) and Rényi efficiency (Zouhar et al. 2023).")
    c.add_argument("folder", metavar="FOLDER", help="folder of held-out texts, one per language")
    c.add_argument("--tokenizer", action="append", required=True, metavar="PATH",
                   help=f"tokenizer file or folder (repeat, up to {MAX_COST_TOKENIZERS})")
    c.add_argument("--reference", metavar="LANG", help="language parity divides by "
                   "(default: en if there is an en file, else the first language)")
    c.add_argument("--csv", metavar="FILE", help="also write the table as CSV ('-': only the "
                   "CSV, on standard output)")
    c.add_argument("--json", action="store_true", help="print the table as JSON instead "
                   "(docs/CLI.md)")
    c.add_argument("--alpha", type=alpha_arg, default=2.5, metavar="A",
                   help="the order of the Rényi entropy in the Rényi efficiency column "
                   f"(Zouhar et al. 2023's alpha), above 0 and at most {MAX_ALPHA:g} "
                   "(default: 2.5; 1 is Shannon's)")
    add_quiet(c, "no notes on stderr")
    c.set_defaults(func=cmd_cost)


def alpha_arg(text: str) -> float:
    try:
        a = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < a <= MAX_ALPHA:
        raise argparse.ArgumentTypeError(f"{text} must be a positive number, at most {MAX_ALPHA:g}")
    return a


def cmd_cost(args: argparse.Namespace) -> int:
    if args.csv == "-" and args.json:
        raise UsageError("--csv - and --json both write the table to standard output; "
                         "pick one, or give --csv a file name")
    if len(args.tokenizer) > MAX_COST_TOKENIZERS:
        raise SettingsError(f"At most {MAX_COST_TOKENIZERS} tokenizers (got "
                            f"{len(args.tokenizer)}), so the table stays readable; run "
                            "the command again for the others.")
    if args.csv and args.csv != "-":   # before the work: the table must not replace a text or a tokenizer
        texts = held_out_files(args.folder).values()
        refuse_overwriting_inputs([Path(args.csv).expanduser()], [*texts, *args.tokenizer],
                                  "--csv")
    labels = tokenizer_labels(args.tokenizer)
    toks = {label: load_with_overrides(p, args) for label, p in zip(labels, args.tokenizer)}
    table = language_cost(args.folder, toks, reference=args.reference, alpha=args.alpha)
    warn_parity_unknown(table)
    if args.csv == "-":   # the CSV alone on standard output, for a pipe
        sys.stdout.write(table.to_csv())
        return 0
    if not args.json:
        print("\n".join(cost_lines(table)))
    if args.csv:
        out = Path(args.csv).expanduser()
        written = write_files(out.parent, {out.name: table.to_csv().encode("utf-8")})
        if args.json:   # (standard output is the JSON alone)
            note(f"wrote {written[0]}")
        else:
            print(f"wrote:  {written[0]}")
    if args.json:
        json.dump(cost_json(table, args), sys.stdout, ensure_ascii=False)
        print()
    return 0


def cost_json(table, args: argparse.Namespace) -> dict:
    """cost --json (schema bpe-gui.cost/2, docs/CLI.md): the settings, then one row per
    (language, tokenizer) keyed by the CSV's own column names (null where the CSV's cell is
    empty)."""
    return {**json_head("cost", 2), "folder": args.folder, "reference": table.reference,
            "alpha": table.alpha,
            "tokenizers": dict(zip(tokenizer_labels(args.tokenizer), args.tokenizer)),
            "rows": table.records()}


def warn_parity_unknown(table) -> None:
    """A parity of "-" says why: the reference language's text gave no tokens."""
    empty = sorted({r.tokenizer for r in table.rows
                    if r.language == table.reference and r.tokens == 0})
    if empty:
        others = [lang for lang in table.languages if lang != table.reference]
        fix = f"; give --reference another language ({', '.join(others[:4])})" if others else ""
        warn(f"parity is '-' (no value): the reference language {table.reference!r} gives "
             f"no tokens{' with ' + ', '.join(empty) if len(table.tokenizers) > 1 else ''} "
             f"(its text is empty), and parity divides by its tokens{fix}")


def cost_lines(table) -> list[str]:
    head = ("language", "tokenizer", "chars", "tokens", "bytes/token", "tokens/char",
            f"parity ({table.reference})", f"Rényi ({table.alpha:g})")
    rows = [head]
    for r in table.rows:
        rows.append((r.language, r.tokenizer, f"{r.chars:,}", f"{r.tokens:,}",
                     fmt_number(r.bytes_per_token, 2), fmt_number(r.tokens_per_char, 3),
                     fmt_number(r.parity, 2), fmt_number(r.renyi, 3)))
    widths = [max(len(row[c]) for row in rows) for c in range(len(head))]
    out = []
    for row in rows:
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        cells += [v.rjust(w) for v, w in zip(row[2:], widths[2:])]
        out.append("  ".join(cells).rstrip())
    return out


def fmt_number(x: float | None, digits: int) -> str:
    return "-" if x is None else f"{x:.{digits}f}"
