"""Folders of model files: LM Studio's models folder and llama.cpp's flat cache.

LM Studio (``~/.lmstudio/models``, its ``downloadsFolder``, the old
``~/.cache/lm-studio/models``) keeps ``PUBLISHER/REPO/`` folders as Hugging Face names
them: GGUF files (several quantizations, a vision projector ``mmproj-*.gguf``) or MLX
folders with a ``tokenizer.json``. One model per REPO folder, named 'PUBLISHER/REPO';
its tokenizer is tokenizer_in's choice (a GGUF: the smallest, its first part if split),
also one folder down; its size is the folder's files. A .gguf lying directly in the
models folder or a publisher's folder is a model of its own, named by its file.

llama.cpp's flat cache (before March 2026; still read by ``--cache-list`` tools)::

    manifest=USER=MODEL=TAG.json     {"ggufFile": {"rfilename": "..."}, "mmprojFile": ...}
    USER_MODEL_RFILENAME.gguf        the file it names ('/' written as '_')
    *.gguf.downloadInProgress        a download not finished

One model per manifest, named 'USER/MODEL:TAG' as ``-hf`` takes it; any other .gguf
there (a ``-mu URL`` download) is a model named by its file.
"""
from __future__ import annotations

import os
import re
from functools import partial
from pathlib import Path

from .found import (LocalModel, ModelRoot, Walk, describe_files, entry_size, first_shard,
                    is_dir, is_file, is_gguf_name, is_mmproj, model_from_file, tokenizer_in)

MAX_SUBFOLDERS = 50
_SHARD = re.compile(r"-\d{5}-of-\d{5}\.gguf$", re.IGNORECASE)


def _loose_gguf(entry: os.DirEntry) -> bool:
    return is_gguf_name(entry.name) and not is_mmproj(entry.name) and \
        first_shard(entry.name) and is_file(entry)


def _shards_size(entries: list[os.DirEntry], first: os.DirEntry) -> int:
    """A GGUF's size with the other parts of a split file ('-0000N-of-0000M.gguf')."""
    m = _SHARD.search(first.name)
    if m is None:
        return entry_size(first)
    stem = first.name[:m.start()]
    return sum(entry_size(e) for e in entries
               if e.name.startswith(stem) and _SHARD.search(e.name))


# ----- LM Studio ----------------------------------------------------------------------
def items(root: ModelRoot, walk: Walk) -> list:
    """One look per PUBLISHER/REPO folder, and per .gguf file lying higher up."""
    out: list = []
    top = walk.listdir(root.path, quiet_missing=True) or []
    for pub in top:
        if pub.name.startswith("."):
            continue              # .internal, .locks ...
        if _loose_gguf(pub):
            out.append((pub.path, partial(look_file, root, Path(pub.name).stem, top, pub, walk)))
            continue
        if not is_dir(pub):
            continue
        inside = walk.listdir(Path(pub.path)) or []
        for repo in inside:
            if repo.name.startswith("."):
                continue
            if _loose_gguf(repo):
                out.append((repo.path, partial(look_file, root,
                                               f"{pub.name}/{Path(repo.name).stem}",
                                               inside, repo, walk)))
            elif is_dir(repo):
                out.append((repo.path, partial(look_folder, root, f"{pub.name}/{repo.name}",
                                               Path(repo.path), walk)))
        if walk.over():
            break
    return out


def look_file(root: ModelRoot, name: str, entries: list[os.DirEntry], entry: os.DirEntry,
              walk: Walk) -> LocalModel | None:
    return model_from_file(walk, name, root.source, Path(entry.path), Path(entry.path).parent,
                           _shards_size(entries, entry))


def look_folder(root: ModelRoot, name: str, folder: Path, walk: Walk) -> LocalModel | None:
    entries = walk.listdir(folder)
    if entries is None:
        return None
    path, detail = tokenizer_in(entries)
    size = sum(entry_size(e) for e in entries if is_file(e))
    subs = [e for e in entries if is_dir(e) and not e.name.startswith(".")][:MAX_SUBFOLDERS]
    for sub in subs:
        inner = walk.listdir(Path(sub.path)) or []
        size += sum(entry_size(e) for e in inner if is_file(e))
        if path is None:
            path, detail = tokenizer_in(inner)
    if path is None:
        walk.note(folder, f"holds no tokenizer or GGUF file ({describe_files(entries)}); "
                  "skipped.")
        return None
    return model_from_file(walk, name, root.source, path, folder, size, detail)


# ----- llama.cpp's flat cache ---------------------------------------------------------
def flat_items(root: ModelRoot, walk: Walk) -> list:
    """One look per manifest=USER=MODEL=TAG.json, and per other .gguf file."""
    entries = walk.listdir(root.path, quiet_missing=True) or []
    by_name = {e.name: e for e in entries}
    out: list = []
    prefixes = []
    for e in entries:
        if not (e.name.startswith("manifest=") and e.name.endswith(".json")):
            continue
        parts = e.name[:-len(".json")].split("=")
        if len(parts) != 4 or not all(parts[1:]):
            walk.note(e.path, "is not named manifest=USER=MODEL=TAG.json; skipped.")
            continue
        user, model, tag = parts[1:]
        prefixes.append(f"{user}_{model}_")
        out.append((e.path, partial(look_manifest, root, f"{user}/{model}:{tag}",
                                    f"{user}/{model}", Path(e.path), by_name, walk)))
    for e in entries:
        if _loose_gguf(e) and not any(e.name.startswith(p) for p in prefixes):
            out.append((e.path, partial(look_file, root, Path(e.name).stem, entries, e, walk)))
    return out


def look_manifest(root: ModelRoot, name: str, repo: str, manifest: Path,
                  by_name: dict[str, os.DirEntry], walk: Walk) -> LocalModel | None:
    data = walk.small_json(manifest, "llama.cpp manifest")
    if data is None:
        return None
    gguf = data.get("ggufFile") if isinstance(data, dict) else None
    rfilename = gguf.get("rfilename") if isinstance(gguf, dict) else None
    if not isinstance(rfilename, str) or not rfilename.strip():
        walk.note(manifest, "has no ggufFile.rfilename; skipped.")
        return None
    local = f"{repo}_{rfilename}".replace("/", "_").replace("\\", "_")
    entry = by_name.get(local)
    if entry is None or not is_file(entry):
        partial_dl = f"{local}.downloadInProgress" in by_name
        walk.note(manifest, f"its GGUF {local} is not there"
                  + (" (its download did not finish)" if partial_dl else "")
                  + f": run 'llama-cli -hf {name}' again; skipped.")
        return None
    entries = list(by_name.values())
    return model_from_file(walk, name, root.source, Path(entry.path), root.path,
                           _shards_size(entries, entry), f"file {local}")
