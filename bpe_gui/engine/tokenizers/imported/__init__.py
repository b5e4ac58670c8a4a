"""Imported tokenizers, run exactly as their own libraries run them: the parts a file
reader (``engine/formats``) assembles into a :class:`~..pipeline.Pipeline` (the runtime
every tokenizer shares: ``tokenizers/pipeline.py``).

- :mod:`.imported_tokenizer`: ``PipelineTokenizer``, a ``BaseTokenizer`` around a pipeline.
- :mod:`.lazy`: ``Later`` / ``Lazy``: the id -> bytes and bytes -> id tables, made when
  first read (encoding needs only the C model).
- :mod:`.hf_parts`, :mod:`.added_tokens`, :mod:`.decoders`, :mod:`.normalized`: a
  ``tokenizer.json``'s normalizers and pre-tokenizers, added tokens and decoders.
- :mod:`.word_model`: the ``WordModel`` over the C model (``_pipeline``, or the
  pure-Python stand-in ``_pymodel``); :mod:`.ranks`: a model over tiktoken-style ranks.
- :mod:`.file_patterns`: regexes from files, under the custom patterns' time limit.
- :mod:`.spm`: SentencePiece BPE (a ``.model``, a GGUF ``llama`` vocabulary) as
  sentencepiece / llama.cpp run it, on the C model's kind "spm" (pure-Python stand-in:
  ``_pyspm``).
- :mod:`.llama_cpp`: how llama.cpp cuts text for a GGUF ``gpt2`` vocabulary (each ``.pre``
  name's regex sequence, read with collapsed Unicode classes; special tokens cut out
  longest first); :mod:`.llama_vocab`: such a vocabulary assembled into a tokenizer.
- :mod:`.clip`: CLIP's cleaning and split (the merges file's tokenizer).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_face

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .imported_tokenizer import PipelineTokenizer

__getattr__, __dir__ = lazy_face(__name__, {
    ".imported_tokenizer": "PipelineTokenizer",
})

__all__ = ["PipelineTokenizer"]
