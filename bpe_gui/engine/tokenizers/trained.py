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
from array import array
from itertools import accumulate
from typing import Callable, Iterable, Iterator, Sequence

from .. import checks
from .base import BaseTokenizer, Encoding, token_tables
from ..errors import ArgumentError, BPEError, FormatError
from .gpt2_files import read_gpt2_files
from .merge_model import EOW, UNK, MergeModel
from .steps import char_of_byte
from ..text.presets import PRESET_IDS
from ..text.pretokenize import Pretokenizer
from ..text.boundaries import stream_boundary

__all__ = ["EOW", "UNK", "Tokenizer"]

_CACHE_LIMIT = 1 << 18


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
    _tables: tuple[array, list[bytes]] | None   # by id: token lengths, token bytes

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
        self._reset_caches()

    def _reset_caches(self) -> None:
        self._cache: dict[str, tuple[int, ...]] = {}
        # word -> (ids, token bytes, character spans inside the word), for offsets
        self._ocache: dict[str, tuple[tuple[int, ...], tuple[bytes, ...], tuple]] = {}
        # the one-pass C encoder of whole texts (made when first used; every thread shares
        # it and its word cache)
        self._encoder = None
        # (token lengths, token bytes) by id: encode_with_offsets through the C encoder
        self._tables = None
        # a scanner preset whose whole texts encode in C (None: BPE_GUI_NATIVE_SCAN=0)
        self._native: int | None = None
        if self.model.native and self.pre.native is not None and self.pre.kind is not None:
            self._native = PRESET_IDS.get(self.pre.kind)

    def add_merge(self, left: bytes, right: bytes, new_id: int | None = None) -> None:
        """Append one merge (the trainer grows its tokenizer this way, step by step);
        ``new_id``: the id of the new token when the vocabulary lacks it."""
        self.add_merges([(left, right, new_id)])

    def add_merges(self, merges: Iterable[tuple[bytes, bytes, int | None]]) -> None:
        """Append merges ``(left, right, new_id)`` in order, as :meth:`add_merge` does."""
        self.model.extend(merges)
        self._cache.clear()
        self._ocache.clear()
        self._encoder = None   # its cache was made with fewer merges
        self._tables = None

    # ----- as of a training step -------------------------------------------------
    def at_step(self, n_merges: int) -> "Tokenizer":
        """The same tokenizer with only the first ``n_merges`` merges (shares the tables)."""
        checks.whole(n_merges, "Tokenizer.at_step(n_merges)", -checks.MAX_ID)
        n = max(0, min(n_merges, len(self.merges)))
        clone = copy.copy(self)
        clone.model = self.model.at(n)
        clone._reset_caches()
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
        self._tables = None   # (encode_with_offsets' lengths and tokens: made again)

    # ----- encoding ---------------------------------------------------------------
    def encode_word(self, word: str) -> tuple[int, ...]:
        """The ids of one word of the pattern, through the tokenizer's word cache."""
        cached = self._cache.get(word)
        if cached is None:
            try:
                cached = self.model.merge(word)
            except UnicodeEncodeError:
                return super().encode_word(word)
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[word] = cached
        return cached

    def _encode(self, text: str) -> list[int]:
        enc = self._native_encoder()
        if enc is not None:   # special tokens, words and merges in one pass, in C
            return enc.encode(text)   # (lone surrogates: UnicodeEncodeError, see encode)
        plain = self._encode_c if self.model.native else self._encode_words
        if not self.pre.special_tokens:
            return plain(text)
        out: list[int] = []
        for piece in self.pre.pieces(text):
            if piece.special:
                out.append(self.special_ids[piece.text])
            else:
                out.extend(plain(piece.text))
        return out

    def _encode_words(self, text: str) -> list[int]:
        """Ids of a text without special tokens, word by word (any pattern)."""
        word_ids = self.encode_word
        return [i for w in self.pre.findall(text) for i in word_ids(w)]

    def _encode_c(self, text: str) -> list[int]:
        """Byte-level words through the C merge loop and the word cache."""
        return self.model.encode_words(self.pre.findall(text), self._cache, _CACHE_LIMIT)

    def _native_encoder(self):
        """The C encoder of whole texts (the presets with a native scanner), shared by
        every thread; None when words are merged another way."""
        if self._native is None or not self.model.native:   # (merges in Python: no C)
            return None
        enc = self._encoder
        if enc is None:   # two threads may both make one: either serves
            matched = {t: self.special_ids[t] for t in self.pre.special_tokens}
            enc = self._encoder = self.model.encoder(self._native, matched)
        return enc

    def _encode_offsets(self, text: str) -> Encoding:
        enc = self._native_encoder() if self.mode == "byte" else None
        if enc is not None:   # the C encoder's ids, each token placed by its byte length
            if self._tables is None:
                self._tables = token_tables(self.vocab)
            got = enc.encode_offsets(text, *self._tables)
            if got is not None:
                ids, toks, offs, marks = got
                special = [False] * len(ids)
                for k in marks:
                    special[k] = True
                return Encoding(ids, toks, offs, special)
        return self._offsets_by_word(text)

    def _offsets_by_word(self, text: str) -> Encoding:
        """encode_with_offsets word by word, through the offsets cache (any pattern and
        mode; the reference the C path is tested against)."""
        ids: list[int] = []
        toks: list[bytes] = []
        offs: list[tuple[int, int]] = []
        specials: list[int] = []
        cache, entry_of = self._ocache, self._offset_entry
        for piece in self.pre.pieces(text):
            if piece.special:
                i = self.special_ids[piece.text]
                specials.append(len(ids))
                ids.append(i)
                toks.append(self.vocab[i])
                offs.append((piece.start, piece.start + len(piece.text)))
                continue
            words = self.pre.findall(piece.text)
            placed: Iterable[tuple[str, int]]
            if sum(map(len, words)) == len(piece.text):  # the presets cover every character
                placed = zip(words, accumulate(map(len, words), initial=piece.start))
            else:  # a custom pattern skipped some text: ask the regex where words are
                placed = ((piece.text[s:e], piece.start + s)
                          for s, e, _ in self.pre.spans(piece.text))
            for word, start in placed:
                entry = cache.get(word)
                if entry is None:
                    if not word:
                        continue
                    if len(cache) >= _CACHE_LIMIT:
                        cache.clear()
                    entry = cache[word] = entry_of(word)
                wids, wtoks, rel = entry
                ids += wids
                toks += wtoks
                offs += [(start + s, start + e) for s, e in rel]
        spec = [False] * len(ids)
        for k in specials:
            spec[k] = True
        return Encoding(ids, toks, offs, spec)

    def _offset_entry(self, word: str) -> tuple[tuple[int, ...], tuple[bytes, ...], tuple]:
        wids = self.encode_word(word)
        vocab = self.vocab
        if self.mode == "byte":
            spans = _byte_spans(word, [len(vocab[i]) for i in wids])
        else:
            spans = self._char_spans(word, wids)
        return wids, tuple(vocab[i] for i in wids), tuple(spans)

    def _char_spans(self, word: str, wids: tuple[int, ...]) -> list[tuple[int, int]]:
        lead = len(word) - len(word.lstrip())
        pos, spans = lead, []
        for i in wids:
            t = self.vocab[i]
            eow = t.endswith(EOW) if self.end_of_word == "suffix" else t.startswith(EOW)
            body = t.replace(EOW, b"") if eow else t
            n = len(body.decode("utf-8", "replace")) if i != self.model.unk else 1
            if eow and self.end_of_word == "prefix":
                spans.append((pos - 1 if pos else 0, pos + n))
            else:
                spans.append((pos, pos + n))
            pos += n
        return spans

    def _encode_stream(self, iterable: Iterable[str], chunk_chars: int) -> Iterator[int]:
        """Text is buffered until ``chunk_chars``, then cut where nothing after can change
        the words before (``text/boundaries.py``), never inside a special token, and the part
        before the cut is encoded: the ids equal ``encode`` of the whole text (proved for
        patterns the native scanner runs). A buffer that cannot be cut (one huge word)
        is tried again only once it has doubled, so the work stays linear.
        """
        parts: list[str] = []
        size, limit = 0, chunk_chars
        for chunk in iterable:
            parts.append(chunk)
            size += len(chunk)
            if size < limit:
                continue
            buf = "".join(parts)
            cut = stream_boundary(self.pre, buf, chunk_chars)  # (text/boundaries.py says where and why)
            if cut > 0:
                yield from self._encode(buf[:cut])
            parts, size = [buf[cut:]], len(buf) - cut
            limit = max(chunk_chars, 2 * size)
        buf = "".join(parts)
        if buf:
            yield from self._encode(buf)

    def _restricted(self, allow: frozenset[str]) -> "Tokenizer":
        """This tokenizer reading only ``allow`` of its special tokens from text."""
        clone = copy.copy(self)
        clone.pre = self.pre.with_specials([t for t in self.pre.special_tokens if t in allow])
        clone._reset_caches()
        return clone

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


def _byte_spans(word: str, lengths: list[int]) -> list[tuple[int, int]]:
    """Character span of each token, given token byte lengths within one word.

    Example: word 'a你', lengths [1, 2, 1] -> [(0, 1), (1, 2), (1, 2)]
    (the last two tokens each hold part of 你).
    """
    cob = char_of_byte(word)
    spans, pos = [], 0
    if cob is None:   # ASCII: bytes are characters
        for n in lengths:
            spans.append((pos, pos + n))
            pos += n
        return spans
    for n in lengths:
        spans.append((cob[pos], cob[pos + n - 1] + 1))
        pos += n
    return spans
