"""The Hugging Face hub cache (and llama.cpp's cache since March 2026, the same layout)::

    models--ORG--NAME/
      refs/main                  the commit the branch pointed at when downloaded
      snapshots/COMMIT/FILE      links into blobs/ (copies where links are not allowed)
      blobs/HASH                 each file once; HASH.incomplete while it downloads

One model per ``models--`` folder, named as huggingface_hub names it ('--' read as '/').
Its tokenizer is looked for in the snapshot ``refs/main`` names (else the newest), in
tokenizer_in's order, then in its tokenizer/ and original/ folders; a snapshot without
one is tried against up to ``MAX_SNAPSHOTS`` older ones. Its size is the blobs' (each
file once, as ``huggingface-cli scan-cache`` counts), or the snapshot's files where
there are no blobs. Datasets and spaces are not models and are passed over.
"""
from __future__ import annotations

import os
import re
from functools import partial
from pathlib import Path

from .found import (SUBFOLDERS, LocalModel, ModelRoot, Walk, describe_files, entry_size,
                    is_dir, is_file, model_from_file, tokenizer_in)

PREFIX = "models--"
MAX_SNAPSHOTS = 5
_COMMIT = re.compile(r"[0-9a-f]{40}")


def items(root: ModelRoot, walk: Walk) -> list:
    """One look per model folder of the cache."""
    entries = walk.listdir(root.path, quiet_missing=True) or []
    return [(e.path, partial(look, root, Path(e.path), walk)) for e in entries
            if e.name.startswith(PREFIX) and is_dir(e)]


def repo_name(folder: str) -> str:
    """Example: 'models--meta-llama--Llama-3.2-1B' -> 'meta-llama/Llama-3.2-1B'."""
    return folder[len(PREFIX):].replace("--", "/")


def _ref(repo: Path) -> str | None:
    try:
        with open(repo / "refs" / "main", "rb") as f:
            text = f.read(128).decode("ascii", "replace").strip()
    except OSError:
        return None
    return text if _COMMIT.fullmatch(text) else None


def _mtime(entry: os.DirEntry) -> float:
    try:
        return entry.stat(follow_symlinks=False).st_mtime
    except OSError:
        return 0.0


def _broken(entries: list[os.DirEntry]) -> list[str]:
    return [e.name for e in entries if e.is_symlink() and not is_file(e) and not is_dir(e)]


def find_tokenizer(walk: Walk, folder: Path, entries: list[os.DirEntry]) -> tuple[Path | None, str]:
    """tokenizer_in the folder, else in its tokenizer/ or original/ subfolder."""
    path, detail = tokenizer_in(entries)
    if path is not None:
        return path, detail
    for sub in SUBFOLDERS:
        if any(e.name == sub and is_dir(e) for e in entries):
            inner = walk.listdir(folder / sub) or []
            path, detail = tokenizer_in(inner)
            if path is not None:
                return path, detail
    return None, ""


def look(root: ModelRoot, repo: Path, walk: Walk) -> LocalModel | None:
    name = repo_name(repo.name)
    if not name or any(not part for part in name.split("/")):
        walk.note(repo, "is not named like a model folder (models--ORG--NAME); skipped.")
        return None
    blobs = walk.listdir(repo / "blobs", quiet_missing=True) or []
    incomplete = sum(1 for b in blobs if b.name.endswith(".incomplete"))
    snaps = [e for e in walk.listdir(repo / "snapshots", quiet_missing=True) or []
             if is_dir(e)]
    if not snaps:
        why = (f" (a download in progress or cut short: {incomplete} .incomplete file"
               f"{'s' * (incomplete != 1)})" if incomplete else "")
        walk.note(repo, f"holds no downloaded snapshot yet{why}; skipped.")
        return None
    commit = _ref(repo)
    snaps.sort(key=lambda e: (e.name != commit, -_mtime(e)))
    path = None
    detail = ""
    tried: list[os.DirEntry] = []
    for snap in snaps[:MAX_SNAPSHOTS]:
        tried = walk.listdir(Path(snap.path)) or []
        path, detail = find_tokenizer(walk, Path(snap.path), tried)
        if path is not None:
            break
    if path is None:
        broken = _broken(tried)
        why = (f"its {', '.join(broken[:3])} {'is a broken link' if len(broken) == 1 else 'are broken links'} "
               "(the blobs are gone: download the model again)" if broken else
               f"no tokenizer file in snapshot {snaps[0].name[:7]} ({describe_files(tried)})")
        walk.note(repo, f"{why}; skipped.")
        return None
    snapshot = path.parent if path.parent.name not in SUBFOLDERS else path.parent.parent
    size = sum(entry_size(b, follow=False) for b in blobs
               if not b.name.endswith(".incomplete") and is_file(b))
    if not size:   # no blobs: files copied into the snapshot (no symlinks on this disk)
        size = sum(entry_size(e) for e in walk.listdir(snapshot) or [] if is_file(e))
    parts = [f"revision {snapshot.name[:7]}" + (" (main)" if snapshot.name == commit else "")]
    if len(snaps) > 1:
        parts.append(f"{len(snaps)} revisions")
    if incomplete:
        parts.append(f"still downloading or cut short: {incomplete} file"
                     f"{'s' * (incomplete != 1)} incomplete")
    if detail:
        parts.append(detail)
    return model_from_file(walk, name, root.source, path, snapshot, size, "; ".join(parts))
