"""GPT-2 style ``vocab.json`` + ``merges.txt`` (byte-level only).

vocab.json maps each token, written in GPT-2's byte-to-unicode alphabet (a space is
``Ġ``), to its id; special tokens appear as their own text. merges.txt starts with
``#version: 0.2`` and has one merge per line, ``left right`` in the same alphabet, in
the order they were learned. This is what OpenAI published for GPT-2 (under the names
``encoder.json`` + ``vocab.bpe``) and what Hugging Face ``tokenizers`` writes with
``model.save(folder)``, so both load here, under either pair of names.

Example::

    vocab.json   {"!": 0, ..., "Ġt": 256, ..., "<|endoftext|>": 50256}
    merges.txt   #version: 0.2
                 Ġ t
                 ...

Ids are kept as the file gives them (GPT-2 maps ``!`` to 0, not byte 0x00), and the
pattern defaults to GPT-2's since the files do not record one.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..display import gpt2_bytes, gpt2_text
from ..errors import ExportError, FormatError
from ..tokenizer import Tokenizer
from ._common import (Snapshot, as_id, build_tokenizer, json_object_lines, prefixed, snapshot,
                      write_files)
from .reading import read_json, read_text

HEADER = "#version: 0.2"
OPENAI_VOCAB, OPENAI_MERGES = "encoder.json", "vocab.bpe"   # GPT-2's files as published


def file_names(name: str = "tokenizer") -> list[str]:
    return [prefixed(name, "vocab.json"), prefixed(name, "merges.txt")]


def dump(snap: Snapshot, name: str = "tokenizer") -> dict[str, bytes]:
    """File name -> content. Raises ExportError for tokenizers this format cannot hold."""
    if snap.mode != "byte":
        raise ExportError("GPT-2 vocab.json + merges.txt holds byte-level tokenizers only; this "
                          "one is character-level. Export the native JSON or Hugging Face "
                          "tokenizer.json instead, or train in byte mode.")
    keys = vocab_keys(snap)
    vocab_name, merges_name = file_names(name)
    lines = [HEADER] + [f"{gpt2_text(a)} {gpt2_text(b)}" for a, b in snap.merges]
    return {vocab_name: json_object_lines([(keys[i], i) for i in sorted(keys)]),
            merges_name: ("\n".join(lines) + "\n").encode("utf-8")}


def vocab_keys(snap: Snapshot) -> dict[int, str]:
    """id -> vocab.json key: GPT-2 alphabet text, or a special token's own text.

    Ids whose bytes an earlier id already has are left out (encoding never yields them).
    """
    by_id = {i: s for s, i in snap.special_ids.items()}
    dup = snap.duplicates()
    keys: dict[int, str] = {}
    seen: dict[str, int] = {}
    for i in sorted(snap.vocab):
        if i in dup:
            continue
        key = by_id[i] if i in by_id else gpt2_text(snap.vocab[i])
        if key in seen:
            raise ExportError(f"Special token {key!r} (id {max(i, seen[key])}) reads the same as "
                              f"token id {min(i, seen[key])} in GPT-2's alphabet, and vocab.json "
                              "can hold it only once. Rename the special token.")
        seen[key] = i
        keys[i] = key
    return keys


def export(tok: Tokenizer, folder: str | Path, name: str = "tokenizer") -> list[Path]:
    return write_files(folder, dump(snapshot(tok), name))


# ----- loading --------------------------------------------------------------------------
def read_vocab(path: str | Path) -> dict[str, int]:
    """vocab.json -> {key: id}, checked: an object of whole-number ids, each id once."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise FormatError(path, f"should be a JSON object mapping each token to its id, not a "
                                f"{type(data).__name__}.")
    owner: dict[int, str] = {}
    for key, value in data.items():
        i = as_id(value, path, key)
        if i in owner:
            raise FormatError(path, f"id {i} is given to both {owner[i]!r} and {key!r}; "
                                    "each id must name one token.", key=key)
        owner[i] = key
    return data


def read_merges(path: str | Path) -> list[tuple[int, str, str]]:
    """merges.txt -> [(line number, left, right)]. An optional '#version' first line is
    skipped; blank lines are ignored; any other line must be exactly two tokens."""
    text = read_text(path)
    out = []
    for lineno, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        if lineno == 1 and line.startswith("#version"):
            continue
        if not line:
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise FormatError(path, f"a merge line must be two tokens separated by one space "
                                    f"(e.g. 'Ġ t'), but this line has {len(parts)} part(s): "
                                    f"{line[:60]!r}.", line=lineno)
        out.append((lineno, parts[0], parts[1]))
    return out


def load(vocab_path: str | Path, merges_path: str | Path | None = None,
         special_tokens: Sequence[str] | None = None, *, pattern: str = "gpt2",
         **kwargs) -> Tokenizer:
    """Load ``vocab.json`` + ``merges.txt`` (merges.txt beside vocab.json by default).

    ``special_tokens`` default: vocab entries that are not GPT-2 alphabet text, or that
    are longer than one byte and made by no merge (GPT-2's ``<|endoftext|>``).
    ``kwargs`` go to :class:`Tokenizer` (e.g. ``pattern="cl100k"``).
    """
    vocab_path = Path(vocab_path)
    if merges_path is None:
        merges_path = merges_beside(vocab_path)
    keys = read_vocab(vocab_path)
    merge_lines = read_merges(merges_path)
    decoded: dict[str, bytes] = {}
    for key in keys:
        try:
            decoded[key] = gpt2_bytes(key)
        except KeyError:
            pass  # not in GPT-2's alphabet: a special token written as itself
    if special_tokens is None:
        made = {a + b for _, a, b in merge_lines}
        special_tokens = [k for k in sorted(keys, key=keys.__getitem__)
                          if k not in decoded or (len(decoded[k]) > 1 and k not in made)]
    specials = list(special_tokens)
    specials += [k for k in sorted(keys, key=keys.__getitem__) if k not in decoded and k not in specials]
    vocab: dict[int, bytes] = {}
    for key, i in keys.items():
        vocab[i] = key.encode("utf-8") if key in specials else decoded[key]
    merges = []
    for lineno, a, b in merge_lines:
        for part in (a, b, a + b):
            if part not in decoded or part in specials:
                what = "the merged token" if part == a + b else "the token"
                raise FormatError(merges_path, f"{what} {part!r} is not in {vocab_path.name} "
                                  "(or is a special token). The two files do not belong "
                                  "together.", line=lineno)
        merges.append((decoded[a], decoded[b]))
    merges = last_of_each(merges)
    missing = sorted({b for b in range(256)} - {v[0] for v in vocab.values() if len(v) == 1})
    if missing:
        raise FormatError(vocab_path, f"lacks {len(missing)} of the 256 single-byte tokens (first: "
                          f"{gpt2_text(bytes([missing[0]]))!r} = byte 0x{missing[0]:02X}); a "
                          "byte-level vocab.json needs all 256.")
    kwargs.setdefault("mode", "byte")
    meta = {"format": "gpt2", "source": str(vocab_path), **kwargs.pop("meta", {})}
    return build_tokenizer(vocab_path, vocab, merges, specials, pattern=pattern, meta=meta,
                           **kwargs)


def last_of_each(merges: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """A merge given twice ranks where it is given last, as in GPT-2's own encoder.py
    (``dict(zip(merges, range(...)))``) and in Hugging Face tokenizers: the earlier copy
    is dropped. Example: [ab, bc, ab] -> [bc, ab]."""
    last = {m: k for k, m in enumerate(merges)}
    if len(last) == len(merges):
        return merges
    return [m for k, m in enumerate(merges) if last[m] == k]


def merges_beside(vocab_path: Path) -> Path:
    """'vocab.json' -> 'merges.txt'; 'NAME-vocab.json' -> 'NAME-merges.txt';
    'encoder.json' -> 'vocab.bpe' (the names OpenAI published GPT-2's files under)."""
    name = vocab_path.name
    if name.endswith("vocab.json"):
        return vocab_path.with_name(name[: -len("vocab.json")] + "merges.txt")
    if name.lower() == OPENAI_VOCAB:
        return vocab_path.with_name(OPENAI_MERGES)
    return vocab_path.with_name("merges.txt")


def vocab_beside(merges_path: Path) -> Path:
    """'merges.txt' -> 'vocab.json'; 'NAME-merges.txt' -> 'NAME-vocab.json';
    'vocab.bpe' (OpenAI's name for the merges) -> 'encoder.json'."""
    name = merges_path.name
    if name.endswith("merges.txt"):
        return merges_path.with_name(name[: -len("merges.txt")] + "vocab.json")
    return merges_path.with_name(OPENAI_VOCAB)
