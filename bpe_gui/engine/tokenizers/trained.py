"""Tokenizer: encode text with learned merges, decode ids, stream big files.

Merges apply in the order they were learned (lowest rank first) inside each word;
the lowest-rank pair is merged at every place it occurs, left to right, which is
exactly what training did. Any id layout works: ids come from the vocabulary, ranks
from the merge list (so GPT-2's own files load as they are).

Example::

    >>> tok = Tokenizer(vocab, merges, special_tokens=["<|endoftext|>"])
    >>> tok.decode(tok.encode("héllo<|endoftext|>", allowed_special="all"))
    'héllo<|endoftext|>'
"""
from __future__ import annotations

import copy
from typing import Callable, Iterable, Sequence

from .. import checks
from .base import BaseTokenizer
from ..errors import ArgumentError, BPEError, FormatError
from .gpt2_files import read_gpt2_files
from .merge_model import EOW, UNK, MergeModel
from .pipeline import PatternParts, Pipeline
from ..text.pretokenize import Pretokenizer

__all__ = ["EOW", "UNK", "Tokenizer"]



class Tokenizer(BaseTokenizer):
    """A byte-level (or character-level ``</w>``) BPE tokenizer over learned merges.

    ``vocab`` maps id -> token bytes; ``merges`` lists (left, right) byte pairs in the
    order they were learned. Special tokens missing from ``vocab`` get new ids after
    the largest one. ``pattern`` is a preset name or regex; ``mode`` is "byte" or
    "char"; in char mode ``end_of_word`` is "suffix" (``low</w>``) or "prefix"
    (a space before a word becomes a leading ``</w>``). Its model is a
    :class:`~.merge_model.MergeModel`.
    """

    model: MergeModel
    _vocab: dict[int, bytes] | None
    # (the full vocabulary, the merges' new ids, how many merges are in use): at_step's clone
    _vocab_of: tuple[dict[int, bytes], Sequence[int], int] | None

    def __init__(self, vocab: dict[int, bytes], merges: Sequence[tuple[bytes, bytes]],
                 special_tokens: Sequence[str] | None = None, *, pattern: str = "gpt2",
                 mode: str = "byte", end_of_word: str = "suffix",
                 meta: dict | None = None):
        checks.tokenizer_args(vocab, merges, special_tokens, pattern, mode, end_of_word, meta)
        if mode not in ("byte", "char"):
            raise BPEError(f"Unknown mode {mode!r}: use 'byte' or 'char'.")
        specials = list(special_tokens or [])
        pre = Pretokenizer(pattern, specials)
        vocab = dict(vocab)
        bytes_to_id: dict[bytes, int] = {}
        for i, t in vocab.items():
            bytes_to_id.setdefault(t, i)
        next_id = max(vocab, default=-1) + 1
        special_ids: dict[str, int] = {}
        for s in specials:
            b = s.encode("utf-8")
            if b not in bytes_to_id:
                vocab[next_id] = b
                bytes_to_id[b] = next_id
                next_id += 1
            special_ids[s] = bytes_to_id[b]
        model = MergeModel(vocab, bytes_to_id, [tuple(m) for m in merges], mode=mode,
                           end_of_word=end_of_word)
        super().__init__(model, vocab=vocab, bytes_to_id=bytes_to_id, merges=model.merges,
                         special_tokens=specials, special_ids=special_ids, pre=pre,
                         mode=mode, end_of_word=end_of_word, meta=dict(meta or {}))
        self._vocab_of = None
        # the runtime: no normalizer, the pattern's words and the special tokens, the
        # merges (pipeline.py)
        parts = PatternParts(pre, {t: special_ids[t] for t in pre.special_tokens})
        self.pipeline = Pipeline(model, vocab=vocab, added=parts, pre=parts,
                                 specials=frozenset(special_ids.values()))

    def add_merges(self, merges: Iterable[tuple[bytes, bytes, int | None]]) -> None:
        """Append merges ``(left, right, new_id)`` in order (``new_id``: the id of the new
        token when the vocabulary lacks it)."""
        self.model.extend(merges)
        self.pipeline.reset()   # its caches and C encoder were made with fewer merges
        self.__dict__.pop("_restricted_of", None)

    def _ids_name(self) -> str:
        return super()._ids_name() or f"trained with bpe-gui, {self.n_merges:,} merges"

    # ----- as of a training step -------------------------------------------------
    def at_step(self, n_merges: int) -> "Tokenizer":
        """The same tokenizer with only the first ``n_merges`` merges (shares the tables)."""
        checks.whole(n_merges, "Tokenizer.at_step(n_merges)", -checks.MAX_ID)
        n = max(0, min(n_merges, len(self.merges)))
        clone = copy.copy(self)
        clone.model = self.model.at(n)
        clone.pipeline = self.pipeline.with_model(clone.model)
        clone.__dict__.pop("_restricted_of", None)
        if n < len(self.merges):
            clone.merges = self.merges[:n]
            clone._vocab = None   # the tokens of the first n merges, worked out when asked
            clone._vocab_of = (self.vocab, self.model.merge_ids, n)
        return clone

    @property
    def vocab(self) -> dict[int, bytes]:
        """id -> token bytes (only the tokens reachable with the merges in use)."""
        if self._vocab is None:
            assert self._vocab_of is not None   # at_step sets it whenever it drops _vocab
            full, merge_ids, n = self._vocab_of
            drop = set(merge_ids[n:]) - set(merge_ids[:n])
            self._vocab = {i: t for i, t in full.items() if i not in drop}
        return self._vocab

    @vocab.setter
    def vocab(self, value: dict[int, bytes]) -> None:
        self._vocab = value
        if "pipeline" in self.__dict__:
            self.pipeline.vocab = value
            self.pipeline.reset()   # (encode_with_offsets' lengths and tokens: made again)

    # ----- encoding ---------------------------------------------------------------
    def encode_word(self, word: str) -> tuple[int, ...]:
        """The ids of one word of the pattern, through the pipeline's word cache."""
        try:
            return self.pipeline.word_ids(word)
        except UnicodeEncodeError:
            return super().encode_word(word)

    # ----- decoding ---------------------------------------------------------------
    def _decode(self, ids: list[int]) -> str:
        vocab = self.vocab
        data = b"".join(vocab[i] for i in ids)
        if self.mode == "char":
            text = data.decode("utf-8", errors="replace").replace(EOW.decode(), " ")
            return text.strip() if self.end_of_word == "suffix" else text.lstrip()
        return data.decode("utf-8", errors="replace")

    def _decodes_bytes(self) -> bool:
        return self.mode == "byte"

    # ----- another thread -----------------------------------------------------------
    def copy_for_thread(self) -> Callable[[], Tokenizer]:
        """For work on another thread while this tokenizer stays in use here. Encoding
        is safe from many threads on one tokenizer; what this adds is a snapshot: a
        trainer's tokenizer grows as training steps, and the twin keeps this step's
        vocabulary and merges. Copies them now (C-level copies: about 1 ms for 20k
        merges) and returns a function that builds the twin from them (tens of
        milliseconds: call it on the worker thread).

        Example::

            build = trainer.tokenizer().copy_for_thread()   # on the GUI thread
            twin = build()                                  # on the worker thread
            assert twin.encode(text) == trainer.tokenizer().encode(text)
        """
        vocab, merges = dict(self.vocab), list(self.merges[:self.n_merges])
        specials, pattern = list(self.special_tokens), self.pattern
        mode, eow = self.mode, self.end_of_word
        return lambda: Tokenizer(vocab, merges, specials, pattern=pattern, mode=mode,
                                 end_of_word=eow)

    # ----- pickles ------------------------------------------------------------------
    def __reduce__(self):
        """Pickled as its data: the vocabulary and merges in use, special tokens,
        pattern, mode and meta (and what a format set on it after loading)."""
        state = {k: self.__dict__[k] for k in ("post", "reads_specials", "skip_special_default")
                 if k in self.__dict__}
        return _rebuilt, (dict(self.vocab), list(self.merges[:self.n_merges]),
                          list(self.special_tokens), self.pattern, self.mode,
                          self.end_of_word, self.meta), state

    # ----- loading ----------------------------------------------------------------
    @classmethod
    def from_files(cls, vocab_path, merges_path=None, special_tokens: Sequence[str] | None = None,
                   **kwargs) -> "Tokenizer":
        """GPT-2 style ``vocab.json`` + ``merges.txt`` (byte-to-unicode alphabet; merges.txt
        beside vocab.json by default). ``kwargs`` go to :class:`Tokenizer` (e.g.
        ``pattern="cl100k"``; GPT-2's pattern by default, since the files record none).

        Example: ``Tokenizer.from_files("vocab.json", "merges.txt").encode("hi")``
        """
        vocab, merges, specials, path = read_gpt2_files(vocab_path, merges_path, special_tokens)
        kwargs.setdefault("pattern", "gpt2")
        kwargs.setdefault("mode", "byte")
        kwargs["meta"] = {"format": "gpt2", "source": str(path), **(kwargs.get("meta") or {})}
        try:
            return cls(vocab, merges, specials, **kwargs)
        except BPEError as e:
            if isinstance(e, (FormatError, ArgumentError)):   # a caller's mistake, not the file's
                raise
            raise FormatError(path, str(e)) from None

    def __repr__(self) -> str:
        return (f"Tokenizer({len(self.vocab)} tokens, {self.n_merges} merges, mode={self.mode}, "
                f"specials={self.special_tokens})")


def _rebuilt(vocab, merges, specials, pattern, mode, end_of_word, meta) -> Tokenizer:
    """A pickled Tokenizer made again (``Tokenizer.__reduce__``)."""
    return Tokenizer(vocab, merges, specials, pattern=pattern, mode=mode,
                     end_of_word=end_of_word, meta=meta)
