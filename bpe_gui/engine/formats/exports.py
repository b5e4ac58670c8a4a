"""Export: the formats' names, their files, and a tokenizer rendered in several formats
in memory (each format's module imported when that format is first written), or written
into a folder all or none (``io.write_files``)."""
from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .. import checks
from ..errors import ExportError
from ..io.atomic import check_name, write_files
from .snapshot import Snapshot, snapshot

if TYPE_CHECKING:
    from ..tokenizers.trained import Tokenizer

FORMATS: dict[str, str] = {
    "gpt2": "GPT-2 vocab.json + merges.txt",
    "hf": "Hugging Face tokenizer.json",
    "tiktoken": "tiktoken .tiktoken ranks + pattern",
    "native": "bpe-gui JSON (vocab, merges, settings)",
    "csv": "Merges with counts (CSV)",
}
# the module of each format, relative to this package
_MODULES = {"gpt2": ".gpt2", "hf": ".hf", "tiktoken": ".tiktoken_fmt", "native": ".native",
            "csv": ".csv_merges"}


def _module(fmt: str):
    try:
        name = _MODULES[fmt]
    except KeyError:
        raise ExportError(f"Unknown format {fmt!r}: use one of {', '.join(FORMATS)}.") from None
    return importlib.import_module(name, __package__)


def output_files(fmt: str, name: str = "tokenizer") -> list[str]:
    """The file names an export writes. Example: output_files('gpt2') -> ['vocab.json', 'merges.txt']."""
    return _module(fmt).file_names(check_name(name))


def _dump(snap: Snapshot, fmt: str, name: str) -> dict[str, bytes]:
    module = _module(fmt)
    why = snap.meta.get("export_problem") or (snap.meta.get("export_problems") or {}).get(fmt)
    if why and fmt != "csv":   # an imported file this format cannot hold exactly
        raise ExportError(why)
    return module.dump(snap, check_name(name))


def settings_problem(fmt: str, settings) -> str | None:
    """Why ``fmt`` cannot hold a tokenizer trained with ``settings`` (its mode, end of
    word and pattern), known before training; None if it may. The format's own rule,
    the one its export applies (formats without one, native and csv, hold any)."""
    rule = getattr(_module(fmt), "settings_problem", None)
    if rule is None:
        return None
    from ..text.pretokenize import resolve_pattern
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
    return write_export(folder, files, name)[0]


def render_files(tok: "Tokenizer | Snapshot", fmts: Sequence[str], name: str = "tokenizer",
                 skip_unsupported: bool = False) -> tuple[dict[str, bytes], dict[str, str]]:
    """The files of several formats, in memory: ({file name: content}, {skipped format:
    reason}). Without ``skip_unsupported`` a format that cannot hold ``tok`` raises.
    ``tok`` may be a snapshot already (``trainer_snapshot``: a trainer's at its last
    step, made without its tokenizer)."""
    snap = tok if isinstance(tok, Snapshot) else snapshot(tok)
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
    return write_export(folder, files, name)[0]


# ----- which files our exports wrote -------------------------------------------------------
# A hidden record in the folder: for each export name, the files written under it and
# each one's SHA-256 as written. It tells a later whole export which files of an earlier
# one it leaves stale (and that a file changed since is not ours to remove).
RECORD = ".bpe-gui-exports.json"


def write_export(folder: str | Path, files: dict[str, bytes], name: str, *,
                 whole: bool = False) -> tuple[list[Path], list[Path]]:
    """Write an export's ``files`` all or none (``io.write_files``) and note them in the
    folder's record; returns (written, removed). ``whole``: these files are the whole
    export ``name`` (a training run's): the files an earlier export of ``name`` wrote
    that this one does not write are removed in the same swap, if they are still as
    written (a file changed or replaced since is left alone). Otherwise (one format at a
    time, as the window exports) nothing is removed and the files join the record."""
    folder = Path(folder).expanduser()
    record = _read_record(folder)
    earlier = record.get(name, {})
    hashes = {f: _hash(data) for f, data in files.items()}
    stale = [folder / f for f, h in earlier.items()
             if whole and f not in files and _sha256(folder / f) == h]
    record[name] = hashes if whole else {**earlier, **hashes}
    out = {**files, RECORD: json.dumps(record, indent=1, sort_keys=True).encode("utf-8")}
    written = write_files(folder, out, remove=stale)
    return [p for p in written if p.name != RECORD], stale


def _read_record(folder: Path) -> dict[str, dict[str, str]]:
    try:
        data = json.loads((folder / RECORD).read_text("utf-8"))
    except (OSError, ValueError):   # none yet, or unreadable: no file is known to be ours
        return {}
    if not isinstance(data, dict):
        return {}
    return {n: {f: h for f, h in files.items() if isinstance(f, str) and isinstance(h, str)
                and "/" not in f and "\\" not in f and f not in ("", ".", "..")}
            for n, files in data.items() if isinstance(n, str) and isinstance(files, dict)}


def _sha256(path: Path) -> str | None:
    try:
        if not path.is_file() or path.is_symlink():
            return None
        return _hash(path.read_bytes())
    except OSError:
        return None


def _hash(data: bytes) -> str:
    # hashlib loads OpenSSL (3.5 MiB resident): imported when a folder is written, after
    # training has let go of its memory, not with the command that trains
    import hashlib
    return hashlib.sha256(data).hexdigest()


def _check_export(tok, folder, fmt, name) -> None:
    from ..tokenizers.base import BaseTokenizer
    checks.instance(tok, BaseTokenizer, "export_tokenizer(tok)", "a Tokenizer")
    checks.path(folder, "export_tokenizer(folder)")
    checks.string(fmt, "export_tokenizer(fmt)", f"a format name ({', '.join(FORMATS)})")
    checks.string(name, "export_tokenizer(name)", "a file name such as 'tokenizer'")
