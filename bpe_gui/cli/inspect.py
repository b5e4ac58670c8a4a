"""``bpe-gui inspect``: the tokens no text produces (unreachable, undecodable), the
command line of engine/analysis/reachability.py.

Examples::

    bpe-gui inspect --tokenizer cl100k_base.tiktoken
    bpe-gui inspect --tokenizer out/ --merges 500 --json > classes.json
    bpe-gui inspect --model meta-llama/Llama-3.2-1B
"""
from __future__ import annotations

import argparse
import json
import sys

from ..engine.analysis import KINDS, UNREACHABLE, classify_tokens
from ..engine.display import readable
from ..engine.errors import SettingsError
from .common import non_negative
from .loading import add_tokenizer_overrides, add_tokenizer_source, load_with_overrides, \
    tokenizer_name, tokenizer_path


def add_parser(sub) -> None:
    i = sub.add_parser("inspect", help="list the tokens no text produces (unreachable, "
                       "undecodable)", description="Decode every token and encode its text "
                       "again (the tokenizer check of 'Fishing for Magikarp', Land & Bartolo "
                       "2024). ok: it encodes to itself; unreachable: to other tokens; "
                       "undecodable: its bytes are part of a UTF-8 character; special: a "
                       "special token.")
    add_tokenizer_source(i)
    i.add_argument("--json", action="store_true", help='print {"ok": [...], "unreachable": '
                   '[...], "undecodable": [...], "special": [...]} (ids) instead')
    i.add_argument("--merges", type=non_negative, metavar="N", help="only the first N merges "
                   "(the tokenizer as of training step N; files with a merge list)")
    i.add_argument("--limit", type=non_negative, metavar="N", help="list at most N tokens of "
                   "each class (default: all)")
    i.add_argument("--ok", action="store_true", help="list the ok tokens too")
    add_tokenizer_overrides(i)
    i.set_defaults(func=cmd_inspect)


def cmd_inspect(args: argparse.Namespace) -> int:
    tok = load_with_overrides(tokenizer_path(args), args)
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
    print("\n".join(inspect_lines(tok, reach, tokenizer_name(args), args.limit, args.ok)))
    return 0


def inspect_lines(tok, reach, name: str, limit: int | None = None,
                  with_ok: bool = False) -> list[str]:
    """The text report: counts, then each class's tokens (id, readable bytes)."""
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
