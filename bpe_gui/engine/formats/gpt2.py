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

from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ..display import gpt2_texts
from ..errors import ExportError
from .snapshot import Snapshot, build_tokenizer, byte_level_only, prefixed
from ._json import json_object_lines
from . import spm_json

if TYPE_CHECKING:
    from ..tokenizers.trained import Tokenizer

HEADER = "#version: 0.2"


def file_names(name: str = "tokenizer") -> list[str]:
    return [prefixed(name, "vocab.json"), prefixed(name, "merges.txt")]


def settings_problem(mode: str, end_of_word: str, pattern: str) -> str | None:
    """Why this format cannot hold a tokenizer of these settings (None: it may); known
    before training (the command line asks, through formats.settings_problem).

    The files say nothing of how text is cut into words, and their readers (tokenizers'
    ByteLevelBPETokenizer, GPT-2's encoder.py) cut it with GPT-2's pattern: SuperBPE's
    superwords cross that split, so no reader of these files gets them back (another
    preset's pattern can be given to ``load_tokenizer(..., pattern=)``)."""
    from ..text.presets import SUPERBPE_ENCODE_PATTERN
    why = byte_level_only("GPT-2 vocab.json + merges.txt", mode)
    if why is None and pattern == SUPERBPE_ENCODE_PATTERN:
        return ("GPT-2 vocab.json + merges.txt do not say how text is cut into words, and "
                "their readers (tokenizers' ByteLevelBPETokenizer, GPT-2's encoder) cut it "
                "with GPT-2's pattern, which SuperBPE's superwords cross (its stage 2 "
                "keeps spaces inside tokens), so they would give other ids. Export "
                "tokenizer.json or .tiktoken, which keep its pattern.")
    return why


def dump(snap: Snapshot, name: str = "tokenizer") -> dict[str, bytes]:
    """File name -> content. Raises ExportError for tokenizers this format cannot hold."""
    spm_json.refuse(snap.spm, "GPT-2 vocab.json + merges.txt")
    why = settings_problem(snap.mode, snap.end_of_word, snap.pattern)
    if why is not None:
        raise ExportError(why)
    if snap.meta.get("ignore_merges"):
        raise ExportError("This tokenizer takes a word that is itself a token whole before "
                          "any merge (llama.cpp's and tokenizers' ignore_merges, tiktoken's "
                          "rule), which GPT-2 files cannot say. Export tokenizer.json or "
                          ".tiktoken instead.")
    keys = vocab_keys(snap)
    vocab_name, merges_name = file_names(name)
    halves = merge_half_texts(snap, keys)
    lines = [HEADER, *map(" ".join, zip(halves[::2], halves[1::2]))]
    return {vocab_name: json_object_lines([(keys[i], i) for i in sorted(keys)]),
            merges_name: ("\n".join(lines) + "\n").encode("utf-8")}


def vocab_keys(snap: Snapshot) -> dict[int, str]:
    """id -> vocab.json key: GPT-2 alphabet text, or a special token's own text.

    Ids whose bytes an earlier id already has are left out (encoding never yields them).
    """
    by_id = {i: s for s, i in snap.special_ids.items()}
    dup = snap.duplicates()
    ids = [i for i in sorted(snap.vocab) if i not in dup]
    plain = [i for i in ids if i not in by_id]
    texts = dict(zip(plain, gpt2_texts(list(map(snap.vocab.__getitem__, plain)))))
    # the texts of distinct bytes differ, and the special tokens differ from each other:
    # only a special token that reads as some token's text can collide (said below)
    spelled = set(texts.values()) if by_id else set()
    if not any(s in spelled for s in by_id.values()):
        ordered = dict.fromkeys(ids, "")   # (in id order; every id gets its text below)
        ordered.update(texts)
        ordered.update((i, by_id[i]) for i in by_id if i in ordered)
        return ordered
    keys: dict[int, str] = {}
    seen: dict[str, int] = {}
    for i in ids:
        key = by_id[i] if i in by_id else texts[i]
        if key in seen:
            raise ExportError(f"Special token {key!r} (id {max(i, seen[key])}) reads the same as "
                              f"token id {min(i, seen[key])} in GPT-2's alphabet, and vocab.json "
                              "can hold it only once. Rename the special token.")
        seen[key] = i
        keys[i] = key
    return keys


def merge_half_texts(snap: Snapshot, keys: dict[int, str]) -> list[str]:
    """The GPT-2 text (``gpt2_texts``) of each merge's halves, left and right of each in
    turn, read from ``keys`` (``vocab_keys``) where an id has those bytes: the tokens
    of a long vocabulary are spelled once."""
    vocab = snap.vocab
    by_bytes = dict(zip(map(vocab.__getitem__, keys), keys.values()))
    specials = [i for i in snap.special_ids.values() if i in keys]
    if specials:   # (their keys are their own text)
        t = [vocab[i] for i in specials]
        by_bytes.update(zip(t, gpt2_texts(t)))
    halves = list(chain.from_iterable(snap.merges))
    try:
        return list(map(by_bytes.__getitem__, halves))
    except KeyError:   # (bytes only a duplicate id has: not in keys)
        missing = list(set(halves).difference(by_bytes))
        by_bytes.update(zip(missing, gpt2_texts(missing)))
        return list(map(by_bytes.__getitem__, halves))


def load(vocab_path: str | Path, merges_path: str | Path | None = None,
         special_tokens: Sequence[str] | None = None, *, pattern: str = "gpt2",
         **kwargs) -> Tokenizer:
    """Load ``vocab.json`` + ``merges.txt`` (merges.txt beside vocab.json by default;
    :func:`~bpe_gui.engine.tokenizers.gpt2_files.read_gpt2_files` says how they are read).
    ``kwargs`` go to :class:`Tokenizer` (e.g. ``pattern="cl100k"``).
    """
    from ..tokenizers.gpt2_files import read_gpt2_files
    vocab, merges, specials, vocab_path = read_gpt2_files(vocab_path, merges_path,
                                                          special_tokens)
    kwargs.setdefault("mode", "byte")
    meta = {"format": "gpt2", "source": str(vocab_path), **kwargs.pop("meta", {})}
    return build_tokenizer(vocab_path, vocab, merges, specials, pattern=pattern, meta=meta,
                           **kwargs)
