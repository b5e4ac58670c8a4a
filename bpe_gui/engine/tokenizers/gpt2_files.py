"""GPT-2's vocab.json + merges.txt read into bytes (no tokenizer built here).

``Tokenizer.from_files`` and the ``gpt2`` format (formats/gpt2.py) both read the files
through :func:`read_gpt2_files`, so the rules of the format live once, below the
tokenizer: the byte-to-unicode alphabet, special tokens (entries outside the alphabet or
made by no merge), merges given twice (the last one counts, as in GPT-2's encoder.py),
and which line or key is wrong.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from .. import checks
from ..display import gpt2_bytes, gpt2_text
from ..errors import FormatError
from ..io.reading import as_id, loads, read_text

OPENAI_VOCAB, OPENAI_MERGES = "encoder.json", "vocab.bpe"   # GPT-2's files as published
_RANK_LINE = re.compile(r"[A-Za-z0-9+/=]+ [0-9]+\r?\n")


def read_vocab(path: str | Path) -> dict[str, int]:
    """vocab.json -> {key: id}, checked: an object of whole-number ids, each id once."""
    text = read_text(path)
    head = text.lstrip(" \t\r\n")[:200]
    if not head.startswith(("{", "[")):   # (not JSON at all: another format)
        what = " (it looks like tiktoken ranks: 'BASE64 RANK' lines)" \
            if _RANK_LINE.match(head) else ""
        raise FormatError(path, f"is not a GPT-2 vocab.json, a JSON object of token: id"
                          f"{what}. Tokenizer.from_files reads GPT-2 files only; load it with "
                          "bpe_gui.engine.load_tokenizer(path), which opens every format.",
                          line=1)
    data = loads(text, path)
    if not isinstance(data, dict):
        raise FormatError(path, f"should be a JSON object mapping each token to its id, not a "
                                f"{type(data).__name__}.")
    other = _other_format(data)
    if other is not None:
        raise FormatError(path, f"is {other}, not a GPT-2 vocab.json. Load it with "
                          "bpe_gui.engine.load_tokenizer(path), which opens every format.")
    owner: dict[int, str] = {}
    for key, value in data.items():
        i = as_id(value, path, key)
        if i in owner:
            raise FormatError(path, f"id {i} is given to both {owner[i]!r} and {key!r}; "
                                    "each id must name one token.", key=key)
        owner[i] = key
    return data


def _other_format(data: dict) -> str | None:
    """The tokenizer format a JSON object is when it is not a vocab.json (whose values are
    all ids), else None."""
    if isinstance(data.get("model"), dict):
        return "a Hugging Face tokenizer.json"
    if "pat_str" in data and not isinstance(data.get("pat_str"), int):
        return "a tiktoken metadata file (NAME.tiktoken.json)"
    if isinstance(data.get("config"), dict) and "vocab" in data:
        return "a Mistral tekken.json"
    if data.get("format") == "bpe-gui":
        return "a bpe-gui JSON export"
    return None


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


def read_gpt2_files(vocab_path: str | Path, merges_path: str | Path | None = None,
                    special_tokens: Sequence[str] | None = None
                    ) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]], list[str], Path]:
    """(vocab id -> bytes, merges, special tokens, the vocab path) of GPT-2 style files
    (merges.txt beside vocab.json by default).

    ``special_tokens`` default: vocab entries that are not GPT-2 alphabet text, or that
    are longer than one byte and made by no merge (GPT-2's ``<|endoftext|>``).
    """
    if special_tokens is not None:   # a str would be one token per character
        special_tokens = list(checks.special_tokens(special_tokens))
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
    return vocab, merges, specials, vocab_path


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
