"""Export and import tokenizers: GPT-2, Hugging Face, tiktoken, bpe-gui JSON, merges CSV.

Example::

    >>> from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
    >>> export_tokenizer(tok, "out", "hf")
    [PosixPath('out/tokenizer.json')]
    >>> load_tokenizer("out/tokenizer.json").encode("hello") == tok.encode("hello")
    True

Files written into the folder, for ``name="tokenizer"`` (another name NAME prefixes the
standard names as ``NAME-vocab.json``, ``NAME-tokenizer.json``):

=========  ===============================================  ==========================
format     files                                            modes
=========  ===============================================  ==========================
gpt2       vocab.json, merges.txt                           byte
hf         tokenizer.json                                   byte; char (see hf.py)
tiktoken   tokenizer.tiktoken, tokenizer.tiktoken.json      byte
native     tokenizer.bpe-gui.json                           byte, char
csv        tokenizer.merges.csv (export only)               byte, char
=========  ===============================================  ==========================

Exports write every file to a temporary file in the folder and rename it into place,
so a failure leaves the folder as it was. A tokenizer shown at an earlier training
step (``Tokenizer.at_step``) exports as of that step.

:mod:`.local_models` finds the models already on this machine (Hugging Face cache,
Ollama, LM Studio, llama.cpp) and the tokenizer file of each, by name:
``load_tokenizer(pick_model(find_models(), "llama3.2:1b").tokenizer)``.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from .. import checks
from ..errors import ExportError, FormatError
from ..tokenizers.base import BaseTokenizer
from ..text.pretokenize import resolve_pattern
from ..tokenizers.trained import Tokenizer
from . import csv_merges, gpt2, hf, native, tiktoken_fmt
from ..io.atomic import check_name, write_files
from .snapshot import Snapshot, snapshot
from ..tokenizers import gpt2_files
from ..io.reading import read_json
from .known_encodings import recognise
from .tiktoken_fmt import meta_beside
from .local_models import (LocalModel, ModelRoot, ModelScan, filter_models, find_models,
                           model_matches, model_roots, pick_model)
from .sniff import Sniffed, sniff_file

FORMATS: dict[str, str] = {
    "gpt2": "GPT-2 vocab.json + merges.txt",
    "hf": "Hugging Face tokenizer.json",
    "tiktoken": "tiktoken .tiktoken ranks + pattern",
    "native": "bpe-gui JSON (vocab, merges, settings)",
    "csv": "Merges with counts (CSV)",
}
_MODULES = {"gpt2": gpt2, "hf": hf, "tiktoken": tiktoken_fmt, "native": native,
            "csv": csv_merges}
IMPORTABLE = ("gpt2", "hf", "tiktoken", "native")

__all__ = ["FORMATS", "IMPORTABLE", "LocalModel", "ModelRoot", "ModelScan", "Sniffed",
           "detect_format", "export_formats", "export_tokenizer", "filter_models",
           "find_models", "load_tokenizer", "meta_beside", "model_matches", "model_roots",
           "output_files", "pick_model", "recognise", "render_files", "settings_problem",
           "sniff_file", "supported_formats", "unsupported_reason"]


def _module(fmt: str):
    try:
        return _MODULES[fmt]
    except KeyError:
        raise ExportError(f"Unknown format {fmt!r}: use one of {', '.join(FORMATS)}.") from None


def output_files(fmt: str, name: str = "tokenizer") -> list[str]:
    """The file names an export writes. Example: output_files('gpt2') -> ['vocab.json', 'merges.txt']."""
    return _module(fmt).file_names(check_name(name))


def _dump(snap: Snapshot, fmt: str, name: str) -> dict[str, bytes]:
    return _module(fmt).dump(snap, check_name(name))


def settings_problem(fmt: str, settings) -> str | None:
    """Why ``fmt`` cannot hold a tokenizer trained with ``settings`` (its mode, end of
    word and pattern), known before training; None if it may. The format's own rule,
    the one its export applies (formats without one, native and csv, hold any)."""
    rule = getattr(_module(fmt), "settings_problem", None)
    if rule is None:
        return None
    return rule(settings.mode, settings.end_of_word, resolve_pattern(settings.pattern)[0])


def unsupported_reason(tok: Tokenizer, fmt: str) -> str | None:
    """Why ``fmt`` cannot hold ``tok`` (the ExportError message), or None if it can."""
    try:
        _dump(snapshot(tok), fmt, "tokenizer")
    except ExportError as e:
        return str(e)
    return None


def supported_formats(tok: Tokenizer) -> list[str]:
    """The formats that can hold this tokenizer exactly, in FORMATS order."""
    snap = snapshot(tok)
    out = []
    for fmt in FORMATS:
        try:
            _dump(snap, fmt, "tokenizer")
        except ExportError:
            continue
        out.append(fmt)
    return out


def export_tokenizer(tok: Tokenizer, folder: str | Path, fmt: str,
                     name: str = "tokenizer") -> list[Path]:
    """Write ``tok`` in format ``fmt`` into ``folder`` (created if missing); returns the files.

    Raises ExportError (with the fix) if the format cannot hold the tokenizer or the
    folder cannot be written; nothing is left half-written.
    """
    _check_export(tok, folder, fmt, name)
    files = _dump(snapshot(tok), fmt, name)
    return write_files(folder, files)


def render_files(tok: Tokenizer, fmts: Sequence[str], name: str = "tokenizer",
                 skip_unsupported: bool = False) -> tuple[dict[str, bytes], dict[str, str]]:
    """The files of several formats, in memory: ({file name: content}, {skipped format:
    reason}). Without ``skip_unsupported`` a format that cannot hold ``tok`` raises."""
    snap = snapshot(tok)
    files: dict[str, bytes] = {}
    skipped: dict[str, str] = {}
    for fmt in fmts:
        try:
            files.update(_dump(snap, fmt, name))
        except ExportError as e:
            if not skip_unsupported or fmt not in FORMATS:
                raise
            skipped[fmt] = str(e)
    return files, skipped


def export_formats(tok: Tokenizer, folder: str | Path, fmts: Sequence[str],
                   name: str = "tokenizer") -> list[Path]:
    """Several formats at once, all or nothing: every file's content is built before
    any is written, so one format that cannot hold ``tok`` stops the whole export."""
    files, _ = render_files(tok, fmts, name)
    return write_files(folder, files)


def _check_export(tok, folder, fmt, name) -> None:
    checks.instance(tok, BaseTokenizer, "export_tokenizer(tok)", "a Tokenizer")
    checks.path(folder, "export_tokenizer(folder)")
    checks.string(fmt, "export_tokenizer(fmt)", f"a format name ({', '.join(FORMATS)})")
    checks.string(name, "export_tokenizer(name)", "a file name such as 'tokenizer'")


# ----- import ---------------------------------------------------------------------------
_FOLDER_ORDER = (("native", "*" + native.SUFFIX), ("hf", "*tokenizer.json"),
                 ("gpt2", "*vocab.json"), ("gpt2", gpt2_files.OPENAI_VOCAB),
                 ("tiktoken", "*" + tiktoken_fmt.SUFFIX))


def _pick_in_folder(folder: Path) -> tuple[str, Path]:
    """The tokenizer file to load from a folder: the richest format present."""
    for fmt, glob in _FOLDER_ORDER:
        found = sorted(p for p in folder.glob(glob) if p.is_file())
        if fmt == "gpt2":
            found = [p for p in found if gpt2_files.merges_beside(p).is_file()]
        if len(found) == 1:
            return fmt, found[0]
        if len(found) > 1:
            raise FormatError(folder, f"holds several {FORMATS[fmt]} files "
                              f"({', '.join(p.name for p in found[:4])}); pick one file.")
    raise FormatError(folder, "holds no tokenizer files (vocab.json + merges.txt or "
                      "encoder.json + vocab.bpe, tokenizer.json, NAME.tiktoken or "
                      "NAME.bpe-gui.json).")


def detect_format(path: str | Path) -> str:
    """'gpt2' | 'hf' | 'tiktoken' | 'native' | 'csv' for a file or a folder.

    Decided by the file name first, then (for other .json files) by the content.
    """
    p = Path(path)
    if p.is_dir():
        return _pick_in_folder(p)[0]
    name = p.name.lower()
    if name.endswith(native.SUFFIX):
        return "native"
    if name.endswith(tiktoken_fmt.SUFFIX) or name.endswith(tiktoken_fmt.META_SUFFIX):
        return "tiktoken"
    if name.endswith("tokenizer.json"):
        return "hf"
    if name.endswith("vocab.json") or name.endswith("merges.txt") \
            or name in (gpt2_files.OPENAI_VOCAB, gpt2_files.OPENAI_MERGES):
        return "gpt2"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith(".model") and _looks_like_ranks(p):
        return "tiktoken"   # Llama 3's tokenizer.model is a tiktoken ranks file
    if name.endswith(".json"):
        data = read_json(p)
        if isinstance(data, dict):
            if data.get("format") == native.FORMAT:
                return "native"
            # a vocab first: GPT-2's own has tokens spelled "model" and "pat_str"
            if data and all(isinstance(v, int) for v in data.values()):
                return "gpt2"
            if "model" in data:
                return "hf"
            if "pat_str" in data:
                return "tiktoken"
    if not p.exists():
        raise FormatError(p, "file not found. Check the path, or pick the file again.")
    if name.endswith(".model"):
        raise FormatError(p, "is not a tiktoken ranks file (lines 'BASE64 RANK'), so probably a "
                          "SentencePiece model, which this app cannot load. Load the model's "
                          "tokenizer.json instead.")
    raise FormatError(p, "is not a tokenizer file this app knows (vocab.json + merges.txt, "
                      "tokenizer.json, NAME.tiktoken, NAME.bpe-gui.json).")


def _looks_like_ranks(p: Path) -> bool:
    """A first line 'BASE64 RANK' (a SentencePiece .model is binary protobuf instead)."""
    try:
        with open(p, "rb") as f:
            head = f.read(256).split(b"\n", 1)[0]
    except OSError:
        return False
    return re.fullmatch(rb"[A-Za-z0-9+/]+=*[ ][0-9]+\r?", head) is not None


def load_tokenizer(path: str | Path, special_tokens: Sequence[str] | None = None,
                   **kwargs) -> Tokenizer:
    """Load a tokenizer from a file or a folder holding one.

    ``path``: a folder (with vocab.json + merges.txt, tokenizer.json, NAME.tiktoken or
    NAME.bpe-gui.json), a vocab.json or merges.txt (the other one beside it; also
    under OpenAI's names for GPT-2's files, encoder.json and vocab.bpe), a
    tokenizer.json, a NAME.tiktoken (NAME.tiktoken.json or NAME.json beside it), or a
    bpe-gui .json. ``special_tokens`` overrides the special tokens the files list.
    Raises FormatError naming the file and the line or key at fault.
    """
    checks.path(path, "load_tokenizer(path)")
    if special_tokens is not None:
        special_tokens = list(checks.special_tokens(special_tokens))
    p = Path(path).expanduser()
    if not p.exists():
        raise FormatError(p, "file or folder not found. Check the path.")
    fmt = detect_format(p)
    if p.is_dir():
        p = _pick_in_folder(p)[1]
    if fmt == "gpt2":
        if p.name.endswith("merges.txt") or p.suffix.lower() == ".bpe":
            return gpt2.load(gpt2_files.vocab_beside(p), p, special_tokens, **kwargs)
        return gpt2.load(p, None, special_tokens, **kwargs)
    if fmt == "tiktoken" and p.suffix == ".json":  # the metadata: load the ranks beside it
        stem = p.name[: -len(tiktoken_fmt.META_SUFFIX)] if p.name.endswith(
            tiktoken_fmt.META_SUFFIX) else p.stem
        p = p.with_name(stem + tiktoken_fmt.SUFFIX)
    if fmt == "csv":
        raise FormatError(p, "a merges CSV holds no vocabulary, so it cannot be loaded as a "
                          "tokenizer. Load the vocab.json, tokenizer.json or .bpe-gui.json "
                          "exported with it.")
    return _module(fmt).load(p, special_tokens, **kwargs)
