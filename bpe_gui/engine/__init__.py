"""The UI-independent BPE engine: train, step, encode, decode, import and export.

Never imports Qt. Typical use::

    from bpe_gui.engine import train_bpe, Tokenizer
    vocab, merges = train_bpe("corpus.txt", vocab_size=10_000, special_tokens=["<|endoftext|>"])
    tok = Tokenizer(vocab, merges, special_tokens=["<|endoftext|>"])
"""
from __future__ import annotations

from .base import BaseTokenizer, Encoding
from .errors import (BPEError, Cancelled, CorpusError, EncodeError, ExportError, FormatError,
                     NotUTF8Error, PatternError, SettingsError)
from .files import read_corpus_text, read_documents
from .pretokenize import PRESETS, Pretokenizer
from .model import Playback, WordModel
from .table import PretokenTable
from .tokenizer import Tokenizer
from .trainer import (AffectedWord, MergeStep, PairRow, TrainSettings, Trainer, train_bpe)

__all__ = [
    "AffectedWord", "BaseTokenizer", "BPEError", "Cancelled", "CorpusError", "Encoding", "EncodeError",
    "ExportError", "FormatError", "MergeStep", "NotUTF8Error", "PRESETS", "PairRow",
    "PatternError", "Playback", "PretokenTable", "Pretokenizer", "SettingsError", "Tokenizer",
    "TrainSettings", "Trainer", "WordModel", "read_corpus_text", "read_documents",
    "train_bpe",
]
