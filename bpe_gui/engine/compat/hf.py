"""Hugging Face ``tokenizers.Tokenizer``'s API over any tokenizer (``tok.as_hf()``): the
adapter lives beside the base tokenizer (tokenizers/hf_api.py), which builds it."""
from __future__ import annotations

from ..tokenizers.hf_api import HfBatch, HfEncoding, HfTokenizer

__all__ = ["HfBatch", "HfEncoding", "HfTokenizer"]
