"""bpe-gui's own JSON: everything needed to reproduce a tokenizer and its training settings.

Token bytes are written as lowercase hex (``"20746865"`` = ``" the"``): unambiguous, and
a partial UTF-8 character survives; ``text`` beside it is for people (visible
whitespace, ``<E4 BD>`` for partial characters) and is ignored when loading. Layout::

    {"format": "bpe-gui", "version": 1,
     "settings": {"mode": "byte", "end_of_word": "suffix", "pattern": "gpt2",
                  "pattern_regex": "...", "tie_rule": "greatest", "min_frequency": 1,
                  "prune": false, "special_tokens": ["<|endoftext|>"]},
     "vocab": [{"id": 0, "bytes": "00", "text": "<00>"}, ...,
               {"id": 256, "bytes": "3c7c...", "text": "<|endoftext|>", "special": true}],
     "merges": [{"rank": 1, "left": "20", "right": "74", "id": 257, "count": 1234,
                 "text": "· t"}, ...],
     "meta": {...}}

``count`` is null for merges of a tokenizer that was not trained here. Both byte and
character mode round-trip exactly (vocab, merges, specials, pattern, settings).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from ..display import pair_text, readable
from ..errors import FormatError
from ..tokenizers.trained import Tokenizer
from ..io.reading import as_id
from .snapshot import Snapshot, build_tokenizer
from ._json import json_str, need
from ..io.reading import read_json
from ..text.pretokenize import resolve_pattern
from . import spm_json

FORMAT, VERSION = "bpe-gui", 1
SUFFIX = ".bpe-gui.json"


def _training_only() -> tuple[str, ...]:
    # (imported when a native file is read or written: the trainer's module pulls in
    # corpus counting, which loading any other format does not need)
    from ..train.trainer import TRAINING_ONLY
    return TRAINING_ONLY


def file_names(name: str = "tokenizer") -> list[str]:
    return [name + SUFFIX]


def to_dict(snap: Snapshot) -> dict[str, Any]:
    specials = set(snap.special_ids.values())
    settings = {"mode": snap.mode, "end_of_word": snap.end_of_word,
                "pattern": snap.pattern_setting, "pattern_regex": snap.pattern,
                **{k: snap.meta[k] for k in _training_only() if k in snap.meta},
                "special_tokens": list(snap.special_tokens)}
    vocab = []
    for i in sorted(snap.vocab):
        entry: dict[str, Any] = {"id": i, "bytes": snap.vocab[i].hex(),
                                 "text": readable(snap.vocab[i])}
        if i in specials:
            entry["special"] = True
        vocab.append(entry)
    merges = [{"rank": k + 1, "left": a.hex(), "right": b.hex(), "id": i, "count": c,
               "text": pair_text(a, b)}
              for k, ((a, b), i, c) in enumerate(zip(snap.merges, snap.merge_ids, snap.counts))]
    extra = {k: v for k, v in snap.meta.items()
             if k not in settings and k not in ("merge_counts", "pattern", "special_tokens",
                                                "mode", "end_of_word")}
    return {"format": FORMAT, "version": VERSION, "settings": settings, "vocab": vocab,
            "merges": merges, "meta": _jsonable(extra)}


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


def dump(snap: Snapshot, name: str = "tokenizer") -> dict[str, bytes]:
    spm_json.refuse(snap.spm, "bpe-gui's own JSON")
    doc = to_dict(snap)
    # one line per setting, vocab entry and merge: readable without indent's bulk
    parts = []
    for key, value in doc.items():
        if isinstance(value, list) and value:
            body = ",\n".join(f"    {json_str(v)}" for v in value)
            parts.append(f"  {json_str(key)}: [\n{body}\n  ]")
        else:
            parts.append(f"  {json_str(key)}: {json_str(value)}")
    return {file_names(name)[0]: ("{\n" + ",\n".join(parts) + "\n}\n").encode("utf-8")}


def _hex(value: Any, path, key: str) -> bytes:
    if not isinstance(value, str):
        raise FormatError(path, f"should be the token bytes in hex, not {value!r}.", key=key)
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise FormatError(path, f"{value[:40]!r} is not hex (two hex digits per byte).",
                          key=key) from None


def load(path: str | Path, special_tokens: Sequence[str] | None = None, **kwargs) -> Tokenizer:
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise FormatError(path, f"is not a bpe-gui tokenizer file (no \"format\": \"{FORMAT}\").",
                          key="format")
    if data.get("version") != VERSION:
        raise FormatError(path, f"has version {data.get('version')!r}; this bpe-gui reads "
                          f"version {VERSION}. Update bpe-gui.", key="version")
    settings = need(data, "settings", dict, path, "an object")
    mode = need(settings, "mode", str, path, "'byte' or 'char'", "settings")
    eow = settings.get("end_of_word", "suffix")
    pattern = settings.get("pattern_regex") or need(settings, "pattern", str, path,
                                                    "a preset name or regex", "settings")
    setting = settings.get("pattern", pattern)
    if isinstance(setting, str) and resolve_pattern(setting)[0] == pattern:
        pattern = setting  # keep the preset name
    specials_given = settings.get("special_tokens", [])
    if not isinstance(specials_given, list) or not all(isinstance(s, str) for s in specials_given):
        raise FormatError(path, "should be a list of strings.", key="settings.special_tokens")
    vocab: dict[int, bytes] = {}
    for n, entry in enumerate(need(data, "vocab", list, path, "a list of tokens")):
        where = f"vocab[{n}]"
        if not isinstance(entry, dict):
            raise FormatError(path, "should be an object with 'id' and 'bytes'.", key=where)
        i = as_id(need(entry, "id", int, path, "the token id", where), path, f"{where}.id")
        if i in vocab:
            raise FormatError(path, f"id {i} appears twice.", key=f"{where}.id")
        vocab[i] = _hex(entry.get("bytes"), path, f"{where}.bytes")
    merges, counts = [], []
    for n, entry in enumerate(need(data, "merges", list, path, "a list of merges")):
        where = f"merges[{n}]"
        if not isinstance(entry, dict):
            raise FormatError(path, "should be an object with 'left' and 'right'.", key=where)
        merges.append((_hex(entry.get("left"), path, f"{where}.left"),
                       _hex(entry.get("right"), path, f"{where}.right")))
        counts.append(entry.get("count"))
    stored = data.get("meta")
    meta = stored if isinstance(stored, dict) else {}
    meta = {**meta, "mode": mode, "end_of_word": eow, "pattern": setting,
            **{k: settings[k] for k in _training_only() if k in settings},
            "special_tokens": list(specials_given), **kwargs.pop("meta", {})}
    if any(c is not None for c in counts):
        meta["merge_counts"] = counts
    specials = list(special_tokens) if special_tokens is not None else specials_given
    pattern = kwargs.pop("pattern", pattern)
    return build_tokenizer(path, vocab, merges, specials, pattern=pattern, mode=mode,
                           end_of_word=eow, meta=meta, **kwargs)
