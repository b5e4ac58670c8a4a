"""The UI-independent BPE engine: train, step, encode, decode, import and export.

Never imports Qt. Typical use::

    from bpe_gui.engine import train_bpe, Tokenizer, load_tokenizer
    vocab, merges = train_bpe("corpus.txt", vocab_size=10_000, special_tokens=["<|endoftext|>"])
    tok = Tokenizer(vocab, merges, special_tokens=["<|endoftext|>"])
    gpt4 = load_tokenizer("cl100k_base.tiktoken")   # any tokenizer file: one BaseTokenizer

The engine is a set of feature packages, each naming its public API in its ``__init__``
(``_``-prefixed modules stay inside their package), in layers, each importing only the
ones below it (``pyproject.toml`` checks this; docs/ARCHITECTURE.md draws it):

- :mod:`.formats`: tokenizer files, read and written, one module per format.
- :mod:`.train`, :mod:`.analysis`: training (plain, on top of a tokenizer, SuperBPE);
  questions about tokenizers and training.
- :mod:`.tokenizers`: every tokenizer as one kind of object (``imported/``: tokenizers run
  as their own libraries run them).
- :mod:`.corpus`: a corpus into the table of its words.
- :mod:`.text`: text into words (presets, the native scanner, the pre-tokenizer).
- :mod:`.io`, and the leaves :mod:`.errors`, :mod:`.checks`, :mod:`.display`.
"""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ._lazy import lazy_face

# BPE_GUI_PURE=1: no C extension loads and each package runs its one Python fallback, so
# the same tests run over both. A module marked None in sys.modules fails to import,
# which is how each package already finds an extension missing.
if os.environ.get("BPE_GUI_PURE", "") not in ("", "0"):
    from .extensions import EXTENSIONS
    for _name, _, _ in EXTENSIONS:
        sys.modules.setdefault(f"{__name__}.{_name}", None)  # type: ignore[arg-type]

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .corpus import PretokenTable, read_corpus_text
    from .errors import (BPEError, Cancelled, CorpusError, DecodeError, DisallowedSpecialError,
                         EncodeError, ExportError, FormatError, NotUTF8Error,
                         PatternAssumedWarning, PatternError, SettingsError, UnknownIdError)
    from .formats import export_tokenizer, load_tokenizer
    from .text import PRESETS, Pretokenizer
    from .tokenizers import BaseTokenizer, Encoding, Playback, Tokenizer
    from .train import (AffectedWord, MergeStep, PairRow, Trainer, TrainSettings, train_bpe,
                        train_from_iterator)

__getattr__, __dir__ = lazy_face(__name__, {
    ".corpus": "PretokenTable read_corpus_text",
    ".errors": ("BPEError Cancelled CorpusError DecodeError DisallowedSpecialError EncodeError "
                "ExportError FormatError NotUTF8Error PatternAssumedWarning PatternError "
                "SettingsError UnknownIdError"),
    ".formats": "export_tokenizer load_tokenizer",
    ".text": "PRESETS Pretokenizer",
    ".tokenizers": "BaseTokenizer Encoding Playback Tokenizer",
    ".train": "AffectedWord MergeStep PairRow Trainer TrainSettings train_bpe train_from_iterator",
})

# the public API (docs/API.md): what a script or notebook needs; each feature package's
# face names the rest
__all__ = [
    "AffectedWord", "BaseTokenizer", "BPEError", "Cancelled", "CorpusError", "DecodeError",
    "DisallowedSpecialError", "Encoding", "EncodeError", "ExportError", "FormatError",
    "MergeStep", "NotUTF8Error", "PRESETS", "PairRow", "PatternAssumedWarning", "PatternError",
    "Playback",
    "PretokenTable", "Pretokenizer", "SettingsError", "Tokenizer", "TrainSettings", "Trainer",
    "UnknownIdError", "export_tokenizer", "load_tokenizer", "read_corpus_text", "train_bpe",
    "train_from_iterator",
]
