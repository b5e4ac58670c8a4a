"""A model picked by the name the user types, and the filter of a list of models.

:func:`pick_model` takes, in order: the exact name; the name in another case; an Ollama
name without its tag (``llama3.2`` for ``llama3.2:latest``); else a unique prefix of
the name or of its last part (``Llama-3.2`` for ``meta-llama/Llama-3.2-1B``). Anything
else is an ``ArgumentError`` listing the candidates (an ambiguous prefix), the models
there are (an unknown name), or the folders searched (none at all).

:func:`model_matches` is the filter of the window's list and of ``bpe-gui models
WORD...``: every word appears in the model's name, format or source, in any case.
"""
from __future__ import annotations

from ...errors import ArgumentError
from .found import LocalModel, ModelScan

SHOWN = 12   # candidates named in a message


def model_matches(model: LocalModel, text: str) -> bool:
    """Example: a model 'meta-llama/Llama-3.2-1B' (tokenizer.json, Hugging Face) matches
    'llama 3.2', 'hugging' and '', not 'gguf'."""
    hay = f"{model.name} {model.format_label} {model.source}".casefold()
    return all(word in hay for word in text.casefold().split())


def filter_models(models, text: str) -> list[LocalModel]:
    return [m for m in models if model_matches(m, text)]


def _line(m: LocalModel) -> str:
    return f"{m.name} ({m.format_label}, {m.source})"


def _listing(models, shown: int = SHOWN) -> str:
    names = [_line(m) for m in models[:shown]]
    more = f" and {len(models) - shown} more" if len(models) > shown else ""
    return "; ".join(names) + more


def _tail(name: str) -> str:
    return name.rsplit("/", 1)[-1]


def pick_model(scan: ModelScan, name: str) -> LocalModel:
    """The model of ``scan`` that ``name`` names (see the module docstring)."""
    query = name.strip() if isinstance(name, str) else ""
    if not query:
        raise ArgumentError("No model name given: give a name as 'bpe-gui models' lists "
                            "them (e.g. meta-llama/Llama-3.2-1B or llama3.2:1b).")
    models = list(scan.models)
    q = query.casefold()
    for same in (lambda m: m.name == query, lambda m: m.name.casefold() == q,
                 lambda m: ":" not in q and m.name.casefold() == q + ":latest"):
        hits = [m for m in models if same(m)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise ArgumentError(
                f"{len(hits)} models are named {query!r}: "
                + "; ".join(f"{m.source}: {m.tokenizer}" for m in hits[:SHOWN])
                + ". Give the one you mean with --tokenizer PATH.")
    hits = [m for m in models if m.name.casefold().startswith(q)
            or _tail(m.name).casefold().startswith(q)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise ArgumentError(f"{query!r} could be {len(hits)} models: {_listing(hits)}. "
                            "Give more of the name.")
    unfinished = "" if scan.complete else (
        f" (The search stopped before it looked everywhere: {scan.notes[-1]})"
        if scan.notes else " (The search stopped before it looked everywhere.)")
    if not models:
        where = "; ".join(scan.looked) or "nowhere"
        raise ArgumentError(
            f"No model named {query!r}: no models were found on this machine (looked in "
            f"{where}). Download one first (hf download ORG/NAME, "
            "ollama pull NAME, or LM Studio), or give a tokenizer file with --tokenizer PATH."
            + unfinished)
    near = [m for m in models if q in m.name.casefold()]
    raise ArgumentError(
        f"No model named {query!r}"
        + (f"; names holding it: {_listing(near)}." if near else
           f". The models here: {_listing(models)}.")
        + " 'bpe-gui models' lists them all." + unfinished)
