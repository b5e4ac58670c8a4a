"""One search of every folder :func:`model_roots` names: :func:`find_models`.

First each folder is listed (the models it holds, cheap), then each model is looked at
(its tokenizer file's head, its size), with ``progress(done, total)`` after each and the
deadline and ``cancelled()`` checked before each. What cannot be read, or is not a
model, is a note in the answer, never an exception; a search stopped by its time limit
or a cancel says so and keeps what it found.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable

from ...errors import BPEError
from . import folders, hf_cache, ollama
from .found import SOURCES, TIME_LIMIT, LocalModel, ModelRoot, ModelScan, Walk
from .roots import home_of, model_roots

LAYOUTS = {"hf-hub": hf_cache.items, "ollama": ollama.items, "folders": folders.items,
           "llama.cpp": folders.flat_items}


def _sort_key(m: LocalModel):
    return (m.name.casefold(), SOURCES.index(m.source) if m.source in SOURCES else 9,
            str(m.tokenizer))


def find_models(roots: Iterable[ModelRoot] | None = None, *, time_limit: float = TIME_LIMIT,
                progress: Callable[[int, int], None] | None = None,
                cancelled: Callable[[], bool] | None = None,
                home: str | Path | None = None) -> ModelScan:
    """The models on this machine whose tokenizer can be opened by name.

    ``roots``: the folders to search (default: :func:`model_roots`, from this process's
    environment); ``time_limit``: seconds before the search stops (with a note);
    ``progress(done, total)`` in models looked at; ``cancelled()``: stop early; ``home``:
    shown as '~' in notes. Only folder listings, small manifests and the first 64 KiB of
    each tokenizer file are read; nothing is downloaded.

    Example::

        >>> scan = find_models()
        >>> [(m.name, m.format_label, m.source) for m in scan.models][:2]
        [('llama3.2:1b', 'GGUF', 'Ollama'), ('meta-llama/Llama-3.2-1B', 'tokenizer.json',
          'Hugging Face')]
    """
    roots = model_roots() if roots is None else list(roots)
    walk = Walk.starting_now(time_limit, cancelled,
                             Path(home) if home is not None else home_of(os.environ))
    work: list[tuple[str, list | str]] = []   # (where, its looks or why there are none)
    for root in roots:
        where = f"{walk.show(root.path)} ({root.source}" + (
            f", {root.why})" if root.why != "default" else ")")
        if not root.path.is_dir():
            work.append((where, "not there"))
            continue
        n_notes = len(walk.notes)
        listed = LAYOUTS[root.layout](root, walk)
        unreadable = not listed and len(walk.notes) > n_notes
        work.append((where, "cannot be read" if unreadable else listed))
    listed_all = not walk.over()
    total = sum(len(items) for _, items in work if not isinstance(items, str))
    done = 0
    models: list[LocalModel] = []
    looked: list[str] = []
    for where, items in work:
        if isinstance(items, str):
            looked.append(f"{where}: {items}")
            continue
        found = 0
        for path, look in items:
            if walk.over():
                break
            try:
                model = look()
            except (OSError, ValueError, LookupError, TypeError, RecursionError,
                    BPEError) as e:   # a file changing under us, a manifest of odd shape
                walk.note(path, f"could not be read ({type(e).__name__}: {str(e)[:120]}); "
                          "skipped.")
                model = None
            done += 1
            if model is not None:
                models.append(model)
                found += 1
            if progress is not None:
                progress(done, total)
        looked.append(f"{where}: {found} model{'s' * (found != 1)}")
    complete = done == total and listed_all
    if not complete:
        why = "cancelled" if cancelled is not None and cancelled() else \
            f"stopped after {time_limit:g} s"
        walk.notes.append(f"The search was {why}: {total - done:,} of the {total:,} models "
                          "listed were not looked at" + ("." if listed_all else ", and "
                                                         "some folders were not listed."))
    return ModelScan(tuple(sorted(models, key=_sort_key)), tuple(roots), tuple(looked),
                     tuple(walk.notes), complete)
