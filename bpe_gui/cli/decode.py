"""``bpe-gui decode``: token ids -> the text they stand for."""
from __future__ import annotations

import argparse
import json
import re
import sys

from ..engine.io import loads_bounded
from .common import UsageError, add_quiet, json_head
from .loading import add_tokenizer_overrides, add_tokenizer_source, load_with_overrides, \
    tokenizer_name, tokenizer_path

_ID = re.compile(r"-?[0-9]+")


def add_parser(sub) -> None:
    d = sub.add_parser("decode", help="decode token ids with a trained or imported tokenizer",
                       description="Print the text a list of token ids stands for (the "
                       "tokenizer as for 'bpe-gui encode'). Ids are given as arguments or on "
                       "standard input ('-' or none), separated by spaces or commas, or as a "
                       "JSON list.")
    add_tokenizer_source(d)
    d.add_argument("ids", nargs="*", metavar="ID", help="token ids; '-' or none reads "
                   "standard input")
    skip = d.add_mutually_exclusive_group()
    skip.add_argument("--skip-special-tokens", dest="skip", action="store_true", default=None,
                      help="leave special tokens out (default: as the format's library "
                      "decodes: tokenizer.json skips them, the others keep them)")
    skip.add_argument("--keep-special-tokens", dest="skip", action="store_false",
                      help="write special tokens as their text")
    d.add_argument("--json", action="store_true", help='print {"schema", "tokenizer", '
                   '"ids", "text", "token_strings"} (docs/CLI.md)')
    add_tokenizer_overrides(d)
    add_quiet(d, "no notes on stderr")
    d.set_defaults(func=cmd_decode)


def parse_ids(words: list[str]) -> list[int]:
    """Ids from the arguments or standard input: whole numbers split by spaces or commas,
    or one JSON list. Example: ['1,2', '3'] -> [1, 2, 3]."""
    if not words or words == ["-"]:
        text = sys.stdin.read()
        stripped = text.strip()
        if stripped.startswith("["):
            try:
                got = loads_bounded(stripped)
            except ValueError as e:
                raise UsageError(f"standard input starts like a JSON list but is not one ({e})")
            words = [str(x) for x in got] if isinstance(got, list) else [stripped]
        else:
            words = [stripped]
    ids: list[int] = []
    for word in words:
        for part in word.replace(",", " ").split():
            if not _ID.fullmatch(part):
                raise UsageError(f"{part!r} is not a token id (a whole number); give ids "
                                 "such as 15339 1917 or 15339,1917")
            ids.append(int(part))
    return ids


def cmd_decode(args: argparse.Namespace) -> int:
    for flag in ("preset", "pattern"):
        if getattr(args, flag) is not None:
            raise UsageError(f"--{flag} changes how text is split into words, and decode "
                             "splits no text: leave it out (--special-token still adds "
                             "tokens)")
    tok = load_with_overrides(tokenizer_path(args), args)
    ids = parse_ids(args.ids)
    text = tok.decode(ids, skip_special_tokens=args.skip)
    if args.json:
        out = {**json_head("decode", 2), "tokenizer": tokenizer_name(args), "ids": ids,
               "text": text, "token_strings": [tok.id_to_token(i) for i in ids]}
        json.dump(out, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(text + "\n")
    return 0
