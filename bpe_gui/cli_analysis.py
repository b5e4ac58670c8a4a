"""``bpe-gui inspect`` (unreachable and undecodable tokens) and ``bpe-gui cost`` (what
each language costs in tokens): the command line of engine/analysis.py and langcost.py.

Examples::

    bpe-gui inspect --tokenizer cl100k_base.tiktoken
    bpe-gui inspect --tokenizer out/ --merges 500 --json > classes.json
    bpe-gui cost --tokenizer gpt2/ --tokenizer o200k_base.tiktoken flores/ --csv cost.csv

Neither imports Qt. Errors are BPEErrors (not cli.UsageError: ``python -m bpe_gui.cli``
runs cli.py as ``__main__``, so its classes are not the ones this module would import).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

MAX_COST_TOKENIZERS = 4


def add_parsers(sub) -> None:
    """Add the ``inspect`` and ``cost`` subcommands to the main parser's subparsers."""
    i = sub.add_parser("inspect", help="list the tokens no text produces (unreachable, "
                       "undecodable)", description="Decode every token and encode its text "
                       "again (the tokenizer check of 'Fishing for Magikarp', Land & Bartolo "
                       "2024). ok: it encodes to itself; unreachable: to other tokens; "
                       "undecodable: its bytes are part of a UTF-8 character; special: a "
                       "special token.")
    i.add_argument("--tokenizer", required=True, metavar="PATH", help="tokenizer file or folder")
    i.add_argument("--json", action="store_true", help='print {"ok": [...], "unreachable": '
                   '[...], "undecodable": [...], "special": [...]} (ids) instead')
    i.add_argument("--merges", type=_non_negative, metavar="N", help="only the first N merges "
                   "(the tokenizer as of training step N; files with a merge list)")
    i.add_argument("--limit", type=_non_negative, metavar="N", help="list at most N tokens of "
                   "each class (default: all)")
    i.add_argument("--ok", action="store_true", help="list the ok tokens too")
    _tokenizer_options(i)
    i.set_defaults(func=cmd_inspect)

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
    c.add_argument("--csv", metavar="FILE", help="also write the table as CSV")
    c.add_argument("--alpha", type=_alpha, default=2.5, help="order of the Rényi entropy "
                   "(default: 2.5; 1 is Shannon's)")
    c.set_defaults(func=cmd_cost)


def _tokenizer_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--special-token", action="append", default=None, metavar="T",
                   help="override the special tokens the files list (repeatable)")
    pat = p.add_mutually_exclusive_group()
    pat.add_argument("--preset", metavar="NAME", help="pre-tokenizer preset to use instead of "
                     "the files'")
    pat.add_argument("--pattern", metavar="REGEX", help="pre-tokenizer regex to use instead "
                     "of the files'")


def _non_negative(text: str) -> int:
    from .cli import _non_negative as check
    return check(text)


def _alpha(text: str) -> float:
    try:
        a = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not a > 0 or a == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} must be a positive number")
    return a


def _load(path: str, args: argparse.Namespace):
    from .engine.formats import load_tokenizer
    override = getattr(args, "pattern", None) or getattr(args, "preset", None)
    kwargs = {"pattern": override} if override is not None else {}
    return load_tokenizer(path, special_tokens=getattr(args, "special_token", None), **kwargs)


# ----- inspect --------------------------------------------------------------------------
def cmd_inspect(args: argparse.Namespace) -> int:
    from .engine.analysis import classify_tokens
    from .engine.errors import SettingsError
    tok = _load(args.tokenizer, args)
    if args.merges is not None:
        try:
            tok = tok.at_step(args.merges)
        except SettingsError as e:   # an imported file: it has no steps
            raise SettingsError(f"--merges: {e}") from None
    reach = classify_tokens(tok)
    if args.json:
        json.dump(reach.as_json(), sys.stdout)
        print()
        return 0
    print("\n".join(inspect_lines(tok, reach, args.tokenizer, args.limit, args.ok)))
    return 0


def inspect_lines(tok, reach, name: str, limit: int | None = None,
                  with_ok: bool = False) -> list[str]:
    """The text report: counts, then each class's tokens (id, readable bytes)."""
    from .engine.analysis import KINDS, UNREACHABLE
    from .engine.display import readable
    counts = reach.counts()
    vocab = tok.vocab
    lines = [f"tokenizer:    {name} ({len(vocab):,} tokens)",
             f"re-encoded:   {reach.describe()}"]
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


# ----- cost -----------------------------------------------------------------------------
def cmd_cost(args: argparse.Namespace) -> int:
    from .engine.errors import SettingsError
    from .engine.formats._common import write_files
    from .engine.langcost import language_cost
    if len(args.tokenizer) > MAX_COST_TOKENIZERS:
        raise SettingsError(f"At most {MAX_COST_TOKENIZERS} tokenizers (got "
                            f"{len(args.tokenizer)}), so the table stays readable; run "
                            "the command again for the others.")
    labels = tokenizer_labels(args.tokenizer)
    toks = {label: _load(p, args) for label, p in zip(labels, args.tokenizer)}
    table = language_cost(args.folder, toks, reference=args.reference, alpha=args.alpha)
    print("\n".join(cost_lines(table)))
    if args.csv:
        out = Path(args.csv).expanduser()
        written = write_files(out.parent, {out.name: table.to_csv().encode("utf-8")})
        print(f"wrote:  {written[0]}")
    return 0


def tokenizer_labels(paths: Sequence[str]) -> list[str]:
    """Short names for the table: the file or folder name, numbered when two clash.

    Example: ['a/tokenizer.json', 'b/tokenizer.json', 'gpt2'] ->
    ['tokenizer.json #1', 'tokenizer.json #2', 'gpt2']
    """
    names = [Path(p).name or str(p) for p in paths]
    out = []
    for k, n in enumerate(names):
        if names.count(n) > 1:
            n = f"{n} #{names[:k + 1].count(n)}"
        out.append(n)
    return out


def cost_lines(table) -> list[str]:
    head = ("language", "tokenizer", "chars", "tokens", "bytes/token", "tokens/char",
            f"parity ({table.reference})", f"Rényi ({table.alpha:g})")
    rows = [head]
    for r in table.rows:
        rows.append((r.language, r.tokenizer, f"{r.chars:,}", f"{r.tokens:,}",
                     _fmt(r.bytes_per_token, 2), _fmt(r.tokens_per_char, 3),
                     _fmt(r.parity, 2), _fmt(r.renyi, 3)))
    widths = [max(len(row[c]) for row in rows) for c in range(len(head))]
    out = []
    for row in rows:
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        cells += [v.rjust(w) for v, w in zip(row[2:], widths[2:])]
        out.append("  ".join(cells).rstrip())
    return out


def _fmt(x: float | None, digits: int) -> str:
    return "-" if x is None else f"{x:.{digits}f}"
