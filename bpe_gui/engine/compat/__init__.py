"""Other libraries' APIs over any tokenizer, as adapters (the native API keeps its design).

- :mod:`.hf`: ``tok.as_hf()``, Hugging Face ``tokenizers.Tokenizer``'s API (``HfTokenizer``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .hf import HfEncoding, HfTokenizer

__getattr__, __dir__ = lazy_face(__name__, {
    ".hf": "HfEncoding HfTokenizer",
})

__all__ = ["HfEncoding", "HfTokenizer"]
