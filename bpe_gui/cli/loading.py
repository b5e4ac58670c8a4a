"""Tokenizers named on the command line (encode, inspect, cost): a file or folder
(``--tokenizer PATH``) or a model already on this machine (``--model NAME``), loaded with
the command's --special-token/--preset/--pattern overrides."""
from __future__ import annotations

import argparse
import warnings
from pathlib import Path

from ..engine.errors import ArgumentError, PatternAssumedWarning
from ..engine.formats import LocalModel, describe_source, find_models, load_tokenizer, \
    pick_model, tokenizer_file
from .common import UsageError, check_preset, note
from .paths import refuse_special_files

MODEL_HELP = ("a model already on this machine, by name (as 'bpe-gui models' lists it: "
              "meta-llama/Llama-3.2-1B, llama3.2:1b ...; a unique start of the name will do): "
              "its tokenizer file. Nothing is downloaded")


def add_tokenizer_source(p: argparse.ArgumentParser) -> None:
    """--tokenizer PATH | --model NAME, one of them required."""
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--tokenizer", metavar="PATH", help="tokenizer file or folder")
    src.add_argument("--model", metavar="NAME", help=MODEL_HELP)


def local_model(name: str) -> LocalModel:
    """The model ``name`` picks among those found here (ArgumentError, listing the
    candidates, if none or several); says on stderr which file that is."""
    model = pick_model(find_models(), name)
    if model.problem:
        raise ArgumentError(f"{model.name} ({model.source}): its tokenizer {model.tokenizer} "
                            f"{model.problem}")
    note(f"{model.name} ({model.source}): {model.tokenizer}")
    return model


def tokenizer_path(args: argparse.Namespace) -> str:
    """The file or folder of --tokenizer, or of --model's tokenizer."""
    if getattr(args, "model", None) is not None:
        model = local_model(args.model)
        args.model = model.name     # the whole name, for what the command prints
        return str(model.tokenizer)
    return args.tokenizer


def tokenizer_name(args: argparse.Namespace) -> str:
    """--model's name (whole, once tokenizer_path has picked it) or --tokenizer's path."""
    return args.model if getattr(args, "model", None) is not None else args.tokenizer


def add_tokenizer_overrides(p: argparse.ArgumentParser) -> None:
    """--special-token / --preset / --pattern that override a loaded tokenizer's own."""
    p.add_argument("--special-token", action="append", default=None, metavar="T",
                   help="add a special token to those the files list (repeatable): those "
                   "keep their ids, a new one gets the next id after the vocabulary")
    pat = p.add_mutually_exclusive_group()
    pat.add_argument("--preset", metavar="NAME", help="pre-tokenizer preset to use instead of "
                     "the files' pattern (GPT-2 vocab.json + merges.txt record none: gpt2 is "
                     "assumed), as `train --preset` names them")
    pat.add_argument("--pattern", metavar="REGEX", help="pre-tokenizer regex to use instead "
                     "of the files'")


def load_with_overrides(path: str, args: argparse.Namespace):
    """The tokenizer at ``path``, with the command's --special-token/--preset/--pattern."""
    refuse_special_files([path], "tokenizer file or folder", folders=True)
    check_preset(getattr(args, "preset", None))   # (an unknown name is no regex to split by)
    override = getattr(args, "pattern", None)
    if override is None:
        override = getattr(args, "preset", None)
    kwargs = {"pattern": override} if override is not None else {}
    with warnings.catch_warnings():   # (warn_if_guessed says it, as a note)
        warnings.simplefilter("ignore", PatternAssumedWarning)
        tok = load_tokenizer(path, extra_special_tokens=getattr(args, "special_token", None),
                             **kwargs)
    if Path(path).expanduser().is_dir():   # which of the folder's files
        note(f"{path}: loaded {tokenizer_file(path)}")
    warn_if_guessed(tok, path)
    return tok


def check_merges_option(tok, n: int | None) -> None:
    """--merges N with more merges than the tokenizer has: refused (it would silently
    mean all of them)."""
    if n is not None and n > tok.n_merges:
        raise UsageError(f"--merges {n:,}: the tokenizer has only {tok.n_merges:,} merges; "
                         f"give at most {tok.n_merges:,}, or leave --merges out for all "
                         "of them")


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
