"""SentencePiece BPE models (a ``.model``, a GGUF ``llama`` vocabulary) written as a
Hugging Face ``tokenizer.json`` that ``tokenizers`` runs to the same ids: the BPE model
with ``byte_fallback`` and ``fuse_unk`` (sentencepiece's one <unk> for a run), the merges
derived from the scores (``SpmModel.merge_list``: every split of a piece into two pieces,
by the piece's score), the normalizers ``Prepend("▁")`` and ``Replace(" ", "▁")`` (the
dummy prefix before the text, every space as '▁'; transformers' Llama converter writes the
same), no pre-tokenizer, and the Llama decoder.

What ``tokenizers`` cannot run the same way is refused, naming it: a precompiled charsmap
(tokenizers reads it cluster by cluster and takes the *shortest* rule; sentencepiece the
longest), ``remove_extra_whitespaces``, whitespace as a suffix, user-defined symbols
(tokenizers would cut them out before the dummy prefix), UNUSED pieces (re-split after
merging), equal scores among mergeable pieces (sentencepiece breaks the tie by place,
tokenizers by merge rank), a text that names two pieces.
"""
from __future__ import annotations

import json

from ..errors import ExportError
from .snapshot import prefixed

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
SPACE = "\u2581"


def refuse(model, what: str) -> None:
    """The formats other than tokenizer.json cannot hold a SentencePiece model."""
    if model is not None:
        raise ExportError(f"{what} cannot hold a SentencePiece model: it merges characters by "
                          "score, with byte fallback. Export it as a Hugging Face "
                          "tokenizer.json (hf) instead.")


def problem(model) -> str | None:
    """Why ``tokenizers`` could not run this model to the same ids, or None."""
    s = model.spec
    if s.charsmap:
        name = s.meta.get("normalizer") or "a precompiled charsmap"
        return (f"its normalizer ({name!r}) is a precompiled charsmap, which tokenizers "
                "applies per grapheme cluster with the shortest rule where sentencepiece "
                "takes the longest, so some texts would get other ids")
    if s.remove_extra_whitespaces and not s.llama:
        return ("it removes extra whitespace (remove_extra_whitespaces), which tokenizers "
                "has no exact normalizer for")
    if s.treat_whitespace_as_suffix or not s.escape_whitespaces:
        return "it writes whitespace as a suffix, or not as '▁', which tokenizers cannot"
    types = s.types
    if not s.llama and any(t == USER_DEFINED for t in types):
        return ("it has user-defined symbols, which tokenizers would cut out of the text "
                "before the dummy prefix is added")
    if not s.llama and any(t == UNUSED and len(p) > 1 for p, t in zip(s.pieces, types)):
        return "it has UNUSED pieces, which sentencepiece splits back after merging"
    if len(set(s.pieces)) != len(s.pieces):
        return "two of its pieces have the same text, which a tokenizer.json vocabulary cannot"
    seen: dict[float, str] = {}
    made = {new for _, _, new in model.merge_list()}   # pieces a merge makes
    for i in sorted(made):
        p, sc = s.pieces[i], s.scores[i]
        if sc in seen:
            return (f"the pieces {seen[sc]!r} and {p!r} have the same score {sc}: "
                    "sentencepiece breaks such ties by place, tokenizers by merge rank")
        seen[sc] = p
    return None


def dump(model, name: str = "tokenizer") -> dict[str, bytes]:
    """tokenizer.json's bytes for a SentencePiece model (an ``SpmModel``)."""
    why = problem(model)
    if why is not None:
        raise ExportError(f"This SentencePiece model cannot be written as a tokenizer.json "
                          f"that tokenizers runs to the same ids: {why}.")
    s = model.spec
    pieces = s.pieces
    unk = next((p for p, t in zip(pieces, s.types) if t == UNKNOWN), None)
    added = []
    if s.llama:   # llama.cpp cuts these out of the text first; so does tokenizers
        added = [{"id": i, "content": p, "single_word": False, "lstrip": False,
                  "rstrip": False, "normalized": False, "special": True}
                 for i, (p, t) in enumerate(zip(pieces, s.types))
                 if p and t in (CONTROL, USER_DEFINED, UNKNOWN)]
    norms = [{"type": "Replace", "pattern": {"String": " "}, "content": SPACE}]
    if s.add_dummy_prefix:
        norms.insert(0, {"type": "Prepend", "prepend": SPACE})
    model_node = {"type": "BPE", "dropout": None, "unk_token": unk,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": bool(s.byte_fallback or s.llama),
                  "ignore_merges": False,
                  "vocab": {p: i for i, p in enumerate(pieces)},
                  "merges": [[pieces[a], pieces[b]] for a, b, _ in model.merge_list()]}
    decoder = {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": SPACE}, "content": " "},
        {"type": "ByteFallback"}, {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1 if s.add_dummy_prefix else 0, "stop": 0}]}
    doc = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
           "normalizer": {"type": "Sequence", "normalizers": norms}, "pre_tokenizer": None,
           "post_processor": None, "decoder": decoder, "model": model_node}
    text = json.dumps(doc, ensure_ascii=False)
    return {prefixed(name, "tokenizer.json"): (text + "\n").encode("utf-8")}


__all__ = ["dump", "problem", "refuse"]
