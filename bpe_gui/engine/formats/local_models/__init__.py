"""The models already on this machine, by name: where each tool keeps them, and the
tokenizer file of each (nothing is ever downloaded).

Example::

    >>> from bpe_gui.engine.formats import find_models, load_tokenizer, pick_model
    >>> scan = find_models()        # Hugging Face cache, Ollama, LM Studio, llama.cpp
    >>> [(m.name, m.format_label, m.source) for m in scan.models]
    [('llama3.2:1b', 'GGUF', 'Ollama'), ('meta-llama/Llama-3.2-1B', 'tokenizer.json', ...)]
    >>> tok = load_tokenizer(pick_model(scan, "Llama-3.2").tokenizer)

- :mod:`.roots`: the folders each tool uses, from the environment as the tool reads it.
- :mod:`.found`: a model, a folder, a search's answer, and the bounded reads of a search
  (listings, heads, small JSON files; a note for what cannot be read).
- :mod:`.hf_cache`: the Hugging Face hub cache layout (also llama.cpp's since 2026).
- :mod:`.ollama`: Ollama's manifests and blobs.
- :mod:`.folders`: LM Studio's PUBLISHER/REPO folders and llama.cpp's flat cache.
- :mod:`.scan`: one search of all of them, with progress, a time limit and cancel.
- :mod:`.names`: a model picked by a typed name; the filter of a list of models.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_face

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .found import SOURCES, LocalModel, ModelRoot, ModelScan
    from .names import filter_models, model_matches, pick_model
    from .roots import model_roots
    from .scan import find_models

__getattr__, __dir__ = lazy_face(__name__, {
    ".found": "SOURCES LocalModel ModelRoot ModelScan",
    ".names": "filter_models model_matches pick_model",
    ".roots": "model_roots",
    ".scan": "find_models",
})

__all__ = ["LocalModel", "ModelRoot", "ModelScan", "SOURCES", "filter_models",
           "find_models", "model_matches", "model_roots", "pick_model"]
