"""``tok.as_hf()``: any tokenizer with Hugging Face ``tokenizers.Tokenizer``'s API, for what
a BPE user calls (docs/API.md lists what it covers and what it refuses).

Thin: every call forwards to the tokenizer's own (``encode_batch``, ``encode_with_offsets``,
``decode``, ``id_to_token``...); what is tokenizers' own is only its shape around them:
:class:`HfEncoding` (ids, tokens as the model spells them, offsets, masks) and padding and
truncation, applied as tokenizers applies them (truncate the text's tokens, add the tokens
the format puts around them, pad). An encoding reads its ids from the batch call and makes
its offsets and token strings when first asked, so ``encode_batch`` costs what the
tokenizer's own ``encode_batch`` costs.

Example::

    >>> hf = tok.as_hf()
    >>> hf.enable_padding(pad_id=0, pad_token="<|endoftext|>")
    >>> [e.attention_mask for e in hf.encode_batch(["a b c", "a"])]
    [[1, 1, 1], [1, 0, 0]]
"""
from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Any, Callable, Iterable, Iterator

from ..errors import ArgumentError, ArgumentTypeError


class HfEncoding(tuple):
    """One text's encoding as tokenizers' ``Encoding`` shows it: a tuple (the adapter, the
    text, the text's own ids, ``keep``: the range of them kept (None: all), ``adds``: the ids
    the format puts before and after them, the padding (how many, tokenizers' padding dict)
    or None, the overflowing parts or None, its batch's cache of offsets and its index
    there). Offsets and token strings are made when first read."""

    __slots__ = ()

    n_sequences = 1
    _hf, _text, _own, _keep, _adds, _pad, _over, _cache, _k = map(property,
                                                                  map(itemgetter, range(9)))

    @property
    def overflowing(self) -> list["HfEncoding"]:
        """What truncation left out, in parts (tokenizers' ``overflowing``)."""
        return list(self._over or ())

    def _field(self, own: list, before: list, after: list, pad_key: str | None,
               pad: Any = 0) -> list:
        k = self._keep
        got = own if k is None else own[k.start:k.stop]   # (ids: the tokenizer's own list)
        if before or after:
            got = [*before, *got, *after]
        if self._pad is None:
            return got
        n, p = self._pad
        filler = [p[pad_key] if pad_key else pad] * n
        return filler + got if p["direction"] == "left" else got + filler

    def _native(self):
        """The tokenizer's own Encoding of the text (offsets), made when first asked."""
        got = self._cache.get(self._k)
        if got is None:
            got = self._cache[self._k] = self._hf._tok.encode_with_offsets(
                self._text, allowed_special="all", add_special_tokens=False)
        return got

    @property
    def ids(self) -> list[int]:
        before, after = self._adds
        return self._field(self._own, before, after, "pad_id")

    @property
    def tokens(self) -> list[str]:
        enc, text, added = self._native(), self._text, self._hf._added()
        spell = self._hf._tok.id_to_token
        own = []
        for i, (s, e) in zip(enc.ids, enc.offsets):
            t = spell(i) or ""
            # an added token that strips spaces around it is spelt with them (lstrip/rstrip)
            own.append(text[s:e] if i in added and t != text[s:e] and t in text[s:e] else t)
        before, after = ([spell(i) or "" for i in ids] for ids in self._adds)
        return self._field(own, before, after, "pad_token")

    @property
    def offsets(self) -> list[tuple[int, int]]:
        offs = self._native().offsets
        k, tok = self._keep, self._hf._tok
        trim = tok.pipeline.trim_offsets
        if k is not None and k.start and len(k) and trim and trim[0] and trim[1]:
            # tokenizers' ByteLevel post-processor trims each truncated part on its own, and
            # keeps one leading space of the part's first token (as added_prefix_space's)
            token = tok.vocab[self._own[k.start]]
            s, e = offs[k.start]
            if token.startswith(b" ") and not token.startswith(b"  ") and s > 0:
                offs = [*offs[:k.start], (s - 1, s - 1 if token == b" " else e),
                        *offs[k.start + 1:]]
        return self._field(offs, *self._zero((0, 0)), None, (0, 0))

    def _zero(self, value: Any) -> tuple[list, list]:
        return [value] * len(self._adds[0]), [value] * len(self._adds[1])

    @property
    def attention_mask(self) -> list[int]:
        return self._field([1] * len(self._own), *self._zero(1), None, 0)

    @property
    def special_tokens_mask(self) -> list[int]:
        """1 for a token the format adds around the text and for padding (as tokenizers
        marks them; a special token typed in the text is 0 there too)."""
        return self._field([0] * len(self._own), *self._zero(1), None, 1)

    @property
    def type_ids(self) -> list[int]:
        return self._field([0] * len(self._own), *self._zero(0), "pad_type_id")

    def __len__(self) -> int:
        n = len(self._own) if self._keep is None else len(self._keep)
        return len(self._adds[0]) + n + len(self._adds[1]) + (self._pad[0] if self._pad else 0)

    def __repr__(self) -> str:
        return (f"Encoding(num_tokens={len(self)}, attributes=[ids, type_ids, tokens, offsets, "
                "attention_mask, special_tokens_mask, overflowing])")

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(f"Encoding.{name} is not covered by as_hf() (it covers ids, "
                             "tokens, offsets, attention_mask, special_tokens_mask, type_ids, "
                             "overflowing, n_sequences and len()); use the tokenizer's own "
                             "encode_with_offsets(text) or split(text) for more.")


class _Whole(HfEncoding):
    """An encoding with nothing cut, added or padded: its ids are the tokenizer's list."""

    __slots__ = ()
    ids = property(itemgetter(2))   # (a C getter: no Python frame per read)


class HfBatch(Sequence):
    """What ``encode_batch`` gives: a sequence of :class:`HfEncoding`, each made when read
    (a batch made whole would have the cyclic garbage collector walk every id list once per
    few hundred objects made: 20% of the batch's time)."""

    __slots__ = ("_make", "_n")

    def __init__(self, make: Callable[[int], HfEncoding], n: int):
        self._make, self._n = make, n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, k):
        at = range(self._n)[k]   # (a list's rules: negative indexes, slices, IndexError)
        return self._make(at) if isinstance(at, int) else list(map(self._make, at))

    def __iter__(self) -> Iterator[HfEncoding]:
        return map(self._make, range(self._n))

    def __repr__(self) -> str:
        return repr(list(self))


_NO_ADDS: tuple[list[int], list[int]] = ([], [])


class HfTokenizer:
    """A tokenizer seen through tokenizers' ``Tokenizer`` API (module docstring)."""

    def __init__(self, tok):
        self._tok = tok
        self.padding: dict | None = None      # tokenizers' Tokenizer.padding
        self.truncation: dict | None = None   # tokenizers' Tokenizer.truncation
        self._vocab: dict[bool, dict[str, int]] = {}

    # ----- encoding -------------------------------------------------------------------
    def encode(self, sequence: str, pair: str | None = None, is_pretokenized: bool = False,
               add_special_tokens: bool = True) -> HfEncoding:
        """tokenizers' ``Tokenizer.encode`` of one text (no pair, not pre-tokenized)."""
        return self.encode_batch([sequence] if pair is None else [(sequence, pair)],
                                 is_pretokenized, add_special_tokens)[0]

    def encode_batch(self, input: Iterable, is_pretokenized: bool = False,
                     add_special_tokens: bool = True) -> HfBatch:
        """tokenizers' ``Tokenizer.encode_batch``: the tokenizer's own ``encode_batch`` (on
        every core), then truncation and padding as set."""
        texts = list(input) if not isinstance(input, str) else None
        if texts is None:
            raise ArgumentTypeError("as_hf().encode_batch takes a list of texts, not one "
                                    "str; use encode(text) for one.")
        for t in texts:
            if not isinstance(t, str):
                raise ArgumentError(
                    f"as_hf() encodes single texts, not {type(t).__name__} items: pairs of "
                    "sequences (encode(a, b), encode_batch([(a, b)])) and pre-tokenized "
                    "input are not covered; encode each text on its own.")
        if is_pretokenized:
            raise ArgumentError("as_hf() does not take pre-tokenized input "
                                "(is_pretokenized=True); give each text as one str.")
        post = self._tok.post if add_special_tokens else None
        adds = ([i for i, _ in post.before], [i for i, _ in post.after]) \
            if post is not None and (post.before or post.after) else _NO_ADDS
        got = self._tok.encode_batch(texts, allowed_special="all", add_special_tokens=False)
        cache: dict[int, Any] = {}   # text k -> the tokenizer's Encoding of it, when read
        if self.truncation is None and self.padding is None and adds is _NO_ADDS:
            return HfBatch(lambda k: _Whole((self, texts[k], got[k], None, adds, None, None,
                                             cache, k)), len(texts))
        n_adds = len(adds[0]) + len(adds[1])
        parts = [self._parts(len(ids), n_adds) for ids in got]
        p = dict(self.padding) if self.padding is not None else None
        if p is not None:   # tokenizers' padding: to the longest (or length), to a multiple
            n = p["length"] if p["length"] is not None else \
                max((n_adds + (len(ids) if k[0] is None else len(k[0]))
                     for ids, k in zip(got, parts)), default=0)
            m = p["pad_to_multiple_of"]
            target = -(-n // m) * m if m else n

        def made(k: int, keep: range | None, over) -> HfEncoding:
            n = n_adds + (len(got[k]) if keep is None else len(keep))
            pad = None if p is None else (max(target - n, 0), p)
            return HfEncoding((self, texts[k], got[k], keep, adds, pad, over, cache, k))
        return HfBatch(lambda k: made(k, parts[k][0], [made(k, r, None) for r in parts[k][1:]]
                                      or None), len(texts))

    encode_batch_fast = encode_batch   # (tokenizers' name for a batch without offsets)

    def _parts(self, n: int, n_adds: int) -> list[range | None]:
        """tokenizers' truncation of a text's ``n`` tokens, room left for the ``n_adds`` the
        format adds: the ranges kept (None: all), the first the encoding's, the others its
        overflowing parts, windows ``stride`` tokens apart."""
        t = self.truncation
        room = t["max_length"] - n_adds if t is not None else n
        if t is None or n <= room or room < 0:   # (room < 0: tokenizers keeps all)
            return [None]
        whole, step = range(n), max(room - t["stride"], 1)
        parts: list[range | None]
        if room == 0:
            parts = [whole[:0], whole]
        elif t["direction"] == "right":
            cuts = [whole[s:s + room] for s in range(0, n, step)]
            parts = list(cuts[:next(k for k, p in enumerate(cuts) if p.stop >= n) + 1])
        else:
            cuts = [whole[max(e - room, 0):e] for e in range(n, 0, -step)]
            parts = list(cuts[:next(k for k, p in enumerate(cuts) if p.start == 0) + 1])
        return parts

    # ----- padding and truncation, as tokenizers sets them ---------------------------------
    def enable_padding(self, direction: str = "right", pad_id: int = 0, pad_type_id: int = 0,
                       pad_token: str = "[PAD]", length: int | None = None,
                       pad_to_multiple_of: int | None = None) -> None:
        """tokenizers' ``enable_padding``: pad every batch to its longest encoding (or to
        ``length``), then up to a multiple of ``pad_to_multiple_of``."""
        if direction not in ("right", "left"):
            raise ArgumentError(f"enable_padding(direction={direction!r}): use \"right\" or "
                                "\"left\".")
        self.padding = {"length": length, "pad_to_multiple_of": pad_to_multiple_of,
                        "pad_id": pad_id, "pad_token": pad_token, "pad_type_id": pad_type_id,
                        "direction": direction}

    def no_padding(self) -> None:
        self.padding = None

    def enable_truncation(self, max_length: int, stride: int = 0,
                          strategy: str = "longest_first", direction: str = "right") -> None:
        """tokenizers' ``enable_truncation``: keep ``max_length`` tokens (the format's added
        ones included), the rest in ``overflowing``."""
        if direction not in ("right", "left"):
            raise ArgumentError(f"enable_truncation(direction={direction!r}): use \"right\" "
                                "or \"left\".")
        if strategy not in ("longest_first", "only_first", "only_second"):
            raise ArgumentError(f"enable_truncation(strategy={strategy!r}): use "
                                "\"longest_first\", \"only_first\" or \"only_second\".")
        if stride >= max_length > 0:
            raise ArgumentError(f"enable_truncation(max_length={max_length}, stride={stride}): "
                                "the stride must be below max_length, as tokenizers requires.")
        self.truncation = {"max_length": max_length, "stride": stride, "strategy": strategy,
                           "direction": direction}

    def no_truncation(self) -> None:
        self.truncation = None

    # ----- decoding and the vocabulary ----------------------------------------------------
    def decode(self, ids: Iterable[int], skip_special_tokens: bool = True) -> str:
        """tokenizers' ``decode``: an id without a token is left out, as tokenizers does."""
        vocab = self._tok.vocab
        return self._tok.decode([i for i in ids if i in vocab],
                                skip_special_tokens=skip_special_tokens)

    def decode_batch(self, sequences: Iterable[Iterable[int]],
                     skip_special_tokens: bool = True) -> list[str]:
        return [self.decode(ids, skip_special_tokens) for ids in sequences]

    def token_to_id(self, token: str) -> int | None:
        return self._tok.token_to_id(token)

    def id_to_token(self, id: int) -> str | None:
        return self._tok.id_to_token(id)

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        """Token string -> id (tokenizers' ``get_vocab``): the model's own (a tokenizer.json's
        ``model.vocab``; elsewhere every token but the special ones), then the added tokens
        (a tokenizer.json's ``added_tokens``; elsewhere the special tokens) by their text."""
        got = self._vocab.get(with_added_tokens)
        if got is None:
            tok, added = self._tok, self._added()
            # a tokenizer.json's model's own strings (its file's keys)
            own = tok.pipeline.model.key_text if tok.pipeline.id_of is not None else None
            spell = tok.id_to_token
            got = {}
            for i in sorted(tok.vocab):
                key = own(i) if own is not None else None if i in added else spell(i)
                if key is not None:
                    got[key] = i
            if with_added_tokens:
                got.update({s: i for i, s in added.items()})
            self._vocab[with_added_tokens] = got
        return dict(got)

    def _added(self) -> dict[int, str]:
        """The added tokens' ids and texts: a tokenizer.json's ``added_tokens``, elsewhere
        the special tokens."""
        got = self.__dict__.get("_added_of")
        if got is None:
            tok = self._tok
            got = {t.id: t.content for t in getattr(tok.pipeline.added, "tokens", ())} \
                if tok.pipeline.id_of is not None else {}
            got = self._added_of = got or {i: s for s, i in tok.special_ids.items()}
        return got

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        return len(self.get_vocab(with_added_tokens))

    def add_tokens(self, tokens) -> int:
        raise ArgumentError("as_hf() cannot add tokens to a loaded tokenizer; load it with "
                            "load_tokenizer(path, extra_special_tokens=[...]) and call "
                            "as_hf() on that.")

    add_special_tokens = add_tokens

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(f"Tokenizer.{name} is not covered by as_hf() (it covers encode, "
                             "encode_batch, decode, decode_batch, token_to_id, id_to_token, "
                             "get_vocab, get_vocab_size, padding and truncation); use the "
                             "tokenizer's own API for the rest.")


__all__ = ["HfBatch", "HfEncoding", "HfTokenizer"]
