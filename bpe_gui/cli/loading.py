"""Tokenizers named on the command line (encode, inspect, cost): loaded with the
command's --special-token/--preset/--pattern overrides."""
from __future__ import annotations

import argparse

from ..engine.formats import describe_source, load_tokenizer
from .common import note
from .paths import refuse_special_files


def add_tokenizer_overrides(p: argparse.ArgumentParser) -> None:
    """--special-token / --preset / --pattern that override a loaded tokenizer's own."""
    p.add_argument("--special-token", action="append", default=None, metavar="T",
                   help="override the special tokens the files list (repeatable)")
    pat = p.add_mutually_exclusive_group()
    pat.add_argument("--preset", metavar="NAME", help="pre-tokenizer preset to use instead of "
                     "the files' (GPT-2 vocab.json + merges.txt record none: gpt2 is assumed)")
    pat.add_argument("--pattern", metavar="REGEX", help="pre-tokenizer regex to use instead "
                     "of the files'")


def load_with_overrides(path: str, args: argparse.Namespace):
    """The tokenizer at ``path``, with the command's --special-token/--preset/--pattern."""
    refuse_special_files([path], "tokenizer file or folder", folders=True)
    override = getattr(args, "pattern", None)
    if override is None:
        override = getattr(args, "preset", None)
    kwargs = {"pattern": override} if override is not None else {}
    tok = load_tokenizer(path, special_tokens=getattr(args, "special_token", None), **kwargs)
    warn_if_guessed(tok, path)
    return tok


def warn_if_guessed(tok, path: str) -> None:
    """A note on stderr when nothing said which pattern the tokenizer splits with (a bare
    .tiktoken file of no well-known encoding): the command never guesses silently."""
    meta = tok.meta if isinstance(tok.meta, dict) else {}
    guessed = meta.get("pattern_guessed")
    if guessed:
        preset, why = guessed
        note(f"{path}: {why}, so its pattern was assumed to be the {preset} preset "
             "(GPT-4's); ids differ from the file's own library if it splits otherwise. "
             "Say which with --preset NAME or --pattern REGEX.")


def source_line(tok) -> str:
    """'format: ...' for the command's report (empty if the format is not known)."""
    what = describe_source(tok)
    return f"format: {what}" if what else ""
