"""A :class:`~bpe_gui.engine.tokenizer.Tokenizer` around a :class:`Pipeline`.

The window, the command line and the stats read a tokenizer's ``vocab``, ``merges``,
``token_to_id`` and special tokens; encoding and decoding go to the pipeline. The merge list is only made into byte pairs when someone reads it
(the vocabulary browser's lineage, an export), one merge at a time.

This subclass is the whole seam with tokenizer.py: no line of ``Tokenizer`` changes, so
its encoder can change freely.
"""
from __future__ import annotations

from typing import Callable, Iterable, Sequence

from .. import checks
from ..errors import BPEError, EncodeError
from ..pretokenize import Pretokenizer
from ..tokenizer import Tokenizer


class LazyMerges(Sequence):
    """merges[k] -> (left bytes, right bytes), read from the C model when asked."""

    def __init__(self, count: Callable[[], int], merge: Callable[[int], tuple[int, int, int]],
                 vocab: dict[int, bytes]):
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
        return (self._vocab.get(a, b""), self._vocab.get(b, b""))

    def __eq__(self, other) -> bool:
        if isinstance(other, (list, tuple, LazyMerges)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def ids(self, k: int) -> tuple[int, int, int]:
        """(left id, right id, new id) of merge k: exact even when two tokens share bytes."""
        return self._merge(k)


class PipelineTokenizer(Tokenizer):
    """A tokenizer loaded from a published file: every encode and decode goes to its
    :class:`~bpe_gui.engine.pipeline.Pipeline`; the rest (vocab, merges, special tokens,
    meta) reads like any Tokenizer's. Always shown with all its merges."""

    def __init__(self, pipeline, *, vocab: dict[int, bytes], token_to_id: dict[bytes, int],
                 merges: LazyMerges, special_ids: dict[str, int], pattern: str, meta: dict):
        # Tokenizer.__init__ is not run: it would rebuild in Python the merge table the
        # C model already holds
        specials = sorted(special_ids, key=special_ids.get)
        try:
            pre = Pretokenizer(pattern, specials)
        except BPEError:   # a pattern only Oniguruma reads: the pipeline has its own copy
            pre = Pretokenizer(r"(?s).+", specials)
        self.pipeline = pipeline
        self.mode, self.end_of_word = "byte", "suffix"
        self.meta = dict(meta)
        self.vocab = vocab
        self.merges = merges
        self.special_tokens = specials
        self.special_ids = dict(special_ids)
        self.pre, self.pattern = pre, pre.pattern
        self.token_to_id = token_to_id
        self._cache, self._ocache = {}, {}
        self._merger, self._unk, self._eow = None, None, None

    @property
    def n_merges(self) -> int:
        return len(self.merges)

    def at_step(self, n_merges: int) -> "PipelineTokenizer":
        return self

    def copy_for_thread(self):
        """Itself: the pipeline's C tables never change after loading and are only read
        with the GIL held, so two threads can use one pipeline."""
        return lambda: self

    def encode(self, text: str) -> list[int]:
        return self.pipeline.encode(text)

    def encode_with_offsets(self, text: str):
        return self.pipeline.encode_with_offsets(text)

    def encode_iterable(self, iterable: Iterable[str], chunk_chars: int = 1 << 16):
        return self.pipeline.encode_iterable(iterable, chunk_chars)

    def decode(self, ids: Iterable[int]) -> str:
        ids = list(checks.ids(ids, "Tokenizer.decode(ids)"))
        missing = [i for i in ids if i not in self.vocab]
        if missing:
            checks.bad_id(missing[0], "Tokenizer.decode(ids)")
            raise EncodeError(f"Token id {missing[0]} is not in the vocabulary "
                              f"(ids go up to {max(self.vocab)}).")
        return self.pipeline.decode(ids)

    def __repr__(self) -> str:
        return (f"PipelineTokenizer({len(self.vocab)} tokens, {self.pipeline.kind}, "
                f"specials={len(self.special_tokens)})")
