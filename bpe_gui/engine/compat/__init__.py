"""Other libraries' faces on bpe-gui's tokenizers, for code written for them to run
unchanged (the native API keeps its own design).

- :mod:`.tiktoken`: a stand-in for the ``tiktoken`` module (``import
  bpe_gui.engine.compat.tiktoken as tiktoken``): ``Encoding`` (also ``tok.as_tiktoken()``),
  ``get_encoding`` and ``encoding_for_model`` from files on this machine.
- :mod:`.hf`: ``tok.as_hf()``, Hugging Face ``tokenizers.Tokenizer``'s API (``HfTokenizer``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .hf import HfEncoding, HfTokenizer
    from .tiktoken import (Encoding, encoding_for_model, encoding_name_for_model, get_encoding,
                           list_encoding_names)

__getattr__, __dir__ = lazy_face(__name__, {
    ".hf": "HfEncoding HfTokenizer",
    ".tiktoken": ("Encoding encoding_for_model encoding_name_for_model get_encoding "
                  "list_encoding_names"),
})

__all__ = ["Encoding", "HfEncoding", "HfTokenizer", "encoding_for_model",
           "encoding_name_for_model", "get_encoding", "list_encoding_names"]
