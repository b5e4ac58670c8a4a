"""An imported tokenizer: a :class:`~bpe_gui.engine.tokenizers.base.BaseTokenizer` around a :class:`Pipeline`.

Encoding and decoding go to the pipeline (normalizer, pre-tokenizer, added tokens,
decoder, as the file's library runs them); its word model
(:class:`~.word_model.PipelineModel`) answers the model questions every tokenizer
answers (start symbols, pair ranks, word playback). The merge list is only made into
byte pairs when someone reads it (the vocabulary browser's lineage, an export), one
merge at a time.
"""
from __future__ import annotations


from typing import Callable, Sequence

from ..base import BaseTokenizer
from ...errors import BPEError, SettingsError
from ...text.piece_words import WHOLE, NormalizedWords, PieceWords
from ...text.pretokenize import Pretokenizer
from ...text.unicode_versions import Classes
from .lazy import Later, Lazy
from .word_model import PipelineModel


class LazyMerges(Sequence):
    """merges[k] -> (left bytes, right bytes), read from the C model when asked."""

    def __init__(self, count: Callable[[], int], merge: Callable[[int], tuple[int, int, int]],
                 vocab: dict[int, bytes] | Later[dict[int, bytes]]):
        self._count = count
        self._merge = merge
        self._vocab = vocab

    def __len__(self) -> int:
        return self._count()

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        n = len(self)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("merge index out of range")
        a, b, _ = self._merge(k)
        if isinstance(self._vocab, Later):
            self._vocab = self._vocab()
        return (self._vocab.get(a, b""), self._vocab.get(b, b""))

    def __eq__(self, other) -> bool:
        if isinstance(other, (list, tuple, LazyMerges)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def ids(self, k: int) -> tuple[int, int, int]:
        """(left id, right id, new id) of merge k: exact even when two tokens share bytes."""
        return self._merge(k)


class PipelineTokenizer(BaseTokenizer):
    """A tokenizer loaded from a published file: every encode and decode goes to its
    :class:`~bpe_gui.engine.tokenizers.pipeline.Pipeline`; the rest (vocab, merges, special tokens,
    meta, the model) reads like any tokenizer's. Always shown with all its merges."""

    vocab = Lazy[dict[int, bytes]]()          # each a dict, or a Later made when first read
    bytes_to_id = Lazy[dict[bytes, int]]()

    def __init__(self, pipeline, *, vocab: dict[int, bytes] | Later[dict[int, bytes]],
                 bytes_to_id: dict[bytes, int] | Later[dict[bytes, int]],
                 merges: LazyMerges, special_ids: dict[str, int], pattern: str, meta: dict,
                 matched_specials: Sequence[str] | None = None, classes: Classes | None = None):
        """``pattern``: the words' regex in ``regex`` syntax (a file's own translated),
        whose classes are ``classes``' (the file's library's Unicode tables). ``vocab``
        and ``bytes_to_id`` may be :class:`Later`: made when first read (encoding needs
        only the C model).
        ``matched_specials``: the special tokens found in text (default: all of
        ``special_ids``); the others (a tekken file's, llama.cpp's control tokens without
        parse_special) are only ids, their text in the input is ordinary text."""
        specials = sorted(special_ids, key=special_ids.__getitem__)
        matched = specials if matched_specials is None else \
            [s for s in specials if s in set(matched_specials)]
        try:
            pre = Pretokenizer(pattern, matched, classes=classes)
        except BPEError:   # a pattern this app cannot run: the pipeline has its own parts
            pattern = WHOLE
            pre = Pretokenizer(pattern, matched)
        steps = getattr(pipeline, "pre", None)
        norm = getattr(pipeline, "normalize", None)
        if steps is not None and steps.kinds and \
                (steps.tiling_pattern is None or norm is not None):
            # the words are the pre-tokenizer's pieces, which no one regex finds (nor a
            # regex over the text as typed, when a normalizer changes it first); a Split
            # pattern after a Unicode normal form: its words of the normalized text
            if steps.tiling_pattern is not None and pattern != WHOLE and \
                    norm is not None and norm.alignment is not None:
                pre.matcher = NormalizedWords(pattern, pre.timeout, norm.alignment)
            else:
                pre.matcher = PieceWords(pipeline, pattern, steps.rules_pattern, steps.kinds,
                                         pre.timeout)
        model: PipelineModel = pipeline.model
        super().__init__(model, vocab=vocab, bytes_to_id=bytes_to_id,  # type: ignore[arg-type]
                         merges=merges,
                         special_tokens=specials, special_ids=dict(special_ids), pre=pre,
                         meta=dict(meta))
        self.pipeline = pipeline

    @property
    def n_merges(self) -> int:
        return len(self.merges)

    def at_step(self, n_merges: int) -> "PipelineTokenizer":
        """Itself with all its merges; fewer raise SettingsError (an imported file runs
        exactly as its library runs it, and tiktoken's whole-piece rule has no step)."""
        if n_merges >= self.n_merges:
            return self
        fmt = self.meta.get("format") if isinstance(self.meta, dict) else None
        what = {"gguf": "GGUF", "tekken": "tekken.json", "clip": "CLIP", "hf": "tokenizer.json",
                "sentencepiece": "SentencePiece"}.get(str(fmt), ".tiktoken")
        raise SettingsError(f"This imported {what} tokenizer runs with "
                            f"all its {self.n_merges:,} merges and cannot be cut at step "
                            f"{n_merges:,}. Steps need a tokenizer with a merge list "
                            "(trained here, GPT-2 or bpe-gui's own files).")

    def copy_for_thread(self):
        """Itself: the pipeline's C tables never change after loading and are only read
        with the GIL held, so two threads can use one pipeline."""
        return lambda: self

    def encode_word(self, word: str) -> tuple[int, ...]:
        """The ids of one word, cut into pieces by the pipeline (no special tokens)."""
        return tuple(self._encode_clean(word))

    def _decode(self, ids: list[int]) -> str:
        return self.pipeline.decode(ids)

    def _decodes_bytes(self) -> bool:
        return self.pipeline.decodes_bytes()

    def __repr__(self) -> str:
        return (f"PipelineTokenizer({len(self.vocab)} tokens, "
                f"specials={len(self.special_tokens)})")
