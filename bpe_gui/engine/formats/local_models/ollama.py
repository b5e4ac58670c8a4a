"""Ollama's model store (``OLLAMA_MODELS``, ~/.ollama/models)::

    manifests/HOST/NAMESPACE/MODEL/TAG    JSON: {"layers": [{"mediaType", "digest", "size"}]}
    blobs/sha256-HEX                      each layer, named by its digest

A manifest is one model, named as ``ollama list`` names it: 'llama3.2:1b' (the
default registry's library), 'user/model:tag' (another namespace of it),
'hf.co/ORG/REPO:TAG' (another host). Its tokenizer is the blob of the layer of media
type ``application/vnd.ollama.image.model``: a GGUF file, whose vocabulary is in its
head (only its first bytes are read here). Its size is its blobs on disk (every layer
and the config), as ``ollama list`` counts it.

A manifest that is not JSON, has no model layer, or names a digest that is not
``sha256:`` and 64 hex digits (which could point outside blobs/) is skipped with a note;
so is a model whose blob is missing (a pull cut short) or is not GGUF.
"""
from __future__ import annotations

import os
import re
from functools import partial
from pathlib import Path

from .. import gguf_fmt
from ...io.reading import file_size
from .found import LocalModel, ModelRoot, Walk, is_dir, is_file, model_from_file

MODEL_MEDIA_TYPE = "application/vnd.ollama.image.model"
DEFAULT_HOST, DEFAULT_NAMESPACE = "registry.ollama.ai", "library"
MAX_LAYERS = 64
_DIGEST = re.compile(r"sha256[:-]([0-9a-f]{64})")


def items(root: ModelRoot, walk: Walk) -> list:
    """One look per manifest (manifests/HOST/NAMESPACE/MODEL/TAG)."""
    out: list = []
    manifests = root.path / "manifests"
    for host in walk.listdir(manifests, quiet_missing=True) or []:
        for ns in (walk.listdir(Path(host.path)) or []) if is_dir(host) else []:
            for model in (walk.listdir(Path(ns.path)) or []) if is_dir(ns) else []:
                if walk.over():
                    return out
                for tag in (walk.listdir(Path(model.path)) or []) if is_dir(model) else []:
                    if is_file(tag):
                        name = model_name(host.name, ns.name, model.name, tag.name)
                        out.append((tag.path, partial(look, root, name, Path(tag.path), walk)))
    return out


def model_name(host: str, namespace: str, model: str, tag: str) -> str:
    """Example: ('registry.ollama.ai', 'library', 'llama3.2', '1b') -> 'llama3.2:1b'."""
    if host == DEFAULT_HOST:
        return f"{model}:{tag}" if namespace == DEFAULT_NAMESPACE else \
            f"{namespace}/{model}:{tag}"
    return f"{host}/{namespace}/{model}:{tag}"


def blob_path(blobs: Path, digest: object) -> Path | None:
    """The blob file of a digest ('sha256:HEX'), under its current name (sha256-HEX) or
    the one Ollama used before 2024 (sha256:HEX); None if the digest is not a sha256."""
    m = _DIGEST.fullmatch(digest) if isinstance(digest, str) else None
    if m is None:
        return None
    path = blobs / f"sha256-{m.group(1)}"
    if not path.exists() and os.name != "nt" and (blobs / f"sha256:{m.group(1)}").exists():
        return blobs / f"sha256:{m.group(1)}"
    return path


def look(root: ModelRoot, name: str, manifest: Path, walk: Walk) -> LocalModel | None:
    data = walk.small_json(manifest, "Ollama manifest")
    if data is None:
        return None
    layers = data.get("layers") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(layers, list) or not layers:
        walk.note(manifest, "is not an Ollama manifest (no 'layers' list); skipped.")
        return None
    blobs = root.path / "blobs"
    model_blob = None
    paths: dict[str, Path] = {}
    config = data.get("config")
    for layer in [*layers[:MAX_LAYERS], *([config] if isinstance(config, dict) else [])]:
        if not isinstance(layer, dict):
            continue
        digest = layer.get("digest")
        path = blob_path(blobs, digest)
        if path is None:
            walk.note(manifest, f"names a layer digest {str(digest)[:80]!r} that is not "
                      "'sha256:' and 64 hex digits; skipped.")
            return None
        paths[path.name] = path
        if layer.get("mediaType") == MODEL_MEDIA_TYPE and model_blob is None:
            model_blob = path
    if model_blob is None:
        walk.note(manifest, f"has no model layer ({MODEL_MEDIA_TYPE}): nothing to read a "
                  "vocabulary from; skipped.")
        return None
    if not model_blob.is_file():
        walk.note(manifest, f"its model blob {model_blob.name[:19]}… is missing (a pull cut "
                  f"short?): run 'ollama pull {name}' again.")
        return None
    got = walk.head(model_blob)
    if got is None:
        return None
    if got[0][:4] != gguf_fmt.MAGIC:
        walk.note(model_blob, f"the model blob of {name} is not a GGUF file (it starts "
                  f"with {got[0][:4]!r}); an old Ollama format? 'ollama pull {name}' "
                  "again gets a GGUF.")
        return None
    size = sum(file_size(p) for p in paths.values())
    return model_from_file(walk, name, root.source, model_blob, manifest, size,
                           f"manifest {walk.show(manifest)}")
