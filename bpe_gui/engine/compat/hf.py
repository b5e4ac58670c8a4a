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

from typing import Any, Iterable

from ..errors import ArgumentError, ArgumentTypeError

_NOT_COVERED = ("is not covered by as_hf() (it covers ids, tokens, offsets, attention_mask, "
                "special_tokens_mask, type_ids, overflowing, n_sequences and len())")


class HfEncoding:
    """One text's encoding as tokenizers' ``Encoding`` shows it: the tokens ``keep`` (a
    range) of the text's own, the ``before``/``after`` ids the format adds around them, then
    the padding. Offsets and token strings are made when first read."""

    def __init__(self, hf: "HfTokenizer", text: str, ids: list[int], keep: range,
                 adds: tuple[list[int], list[int]]):
        self._hf, self._tok, self._text, self._own = hf, hf._tok, text, ids
        self._keep, self._adds = keep, adds
        self._pad: tuple[int, dict] = (0, {})   # (how many, tokenizers' padding dict)
        self._enc: Any = None   # the tokenizer's own Encoding of the text, when asked
        self.overflowing: list[HfEncoding] = []
        self.n_sequences = 1

    def _field(self, own: list, before: list, after: list, pad_key: str | None,
               pad: Any = 0) -> list:
        k = self._keep
        got = [*before, *own[k.start:k.stop], *after]
        n, p = self._pad
        filler = [p.get(pad_key, pad) if pad_key else pad] * n
        return filler + got if p.get("direction") == "left" else got + filler

    def _native(self):
        if self._enc is None:
            self._enc = self._tok.encode_with_offsets(self._text, allowed_special="all",
                                                      add_special_tokens=False)
        return self._enc

    @property
    def ids(self) -> list[int]:
        return self._field(self._own, *self._adds, "pad_id")

    @property
    def tokens(self) -> list[str]:
        enc, text, added = self._native(), self._text, self._hf._added()
        spell = self._tok.id_to_token
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
        k, trim = self._keep, self._tok.pipeline.trim_offsets
        if k.start and len(k) and trim and trim[0] and trim[1]:
            # tokenizers' ByteLevel post-processor trims each truncated part on its own, and
            # keeps one leading space of the part's first token (as added_prefix_space's)
            token = self._tok.vocab[self._own[k.start]]
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
        return len(self._adds[0]) + len(self._keep) + len(self._adds[1]) + self._pad[0]

    def __repr__(self) -> str:
        return (f"Encoding(num_tokens={len(self)}, attributes=[ids, type_ids, tokens, offsets, "
                "attention_mask, special_tokens_mask, overflowing])")

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(f"Encoding.{name} {_NOT_COVERED}; use the tokenizer's own "
                             "encode_with_offsets(text) or split(text) for more.")


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

    def encode_batch(self, input: Iterable[str], is_pretokenized: bool = False,
                     add_special_tokens: bool = True) -> list[HfEncoding]:
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
        adds = ([i for i, _ in post.before], [i for i, _ in post.after]) if post else ([], [])
        got = self._tok.encode_batch(texts, allowed_special="all", add_special_tokens=False)
        out = [self._truncated(t, ids, adds) for t, ids in zip(texts, got)]
        if self.padding is not None:
            self._pad(out)
        return out

    encode_batch_fast = encode_batch   # (tokenizers' name for a batch without offsets)

    def _truncated(self, text: str, ids: list[int], adds) -> HfEncoding:
        """tokenizers' truncation of one text's tokens (room left for the tokens the format
        adds), the rest in ``overflowing``, windows ``stride`` tokens apart."""
        whole = range(len(ids))
        t = self.truncation
        room = t["max_length"] - len(adds[0]) - len(adds[1]) if t else 0
        if t is None or len(ids) <= room or room < 0:   # (room < 0: tokenizers keeps all)
            return HfEncoding(self, text, ids, whole, adds)
        step = max(room - t["stride"], 1)
        if room == 0:
            parts = [whole[:0], whole]
        elif t["direction"] == "right":
            parts = [whole[s:s + room] for s in range(0, len(ids), step)]
            parts = parts[:next(k for k, p in enumerate(parts) if p.stop >= len(ids)) + 1]
        else:
            parts = [whole[max(e - room, 0):e] for e in range(len(ids), 0, -step)]
            parts = parts[:next(k for k, p in enumerate(parts) if p.start == 0) + 1]
        first, *rest = [HfEncoding(self, text, ids, p, adds) for p in parts]
        first.overflowing = rest
        return first

    def _pad(self, encs: list[HfEncoding]) -> None:
        """tokenizers' padding of a batch: to its longest encoding (or ``length``), up to a
        multiple of ``pad_to_multiple_of``; each encoding's overflowing parts alike."""
        p = dict(self.padding or {})
        n = p["length"] if p["length"] is not None else max(map(len, encs), default=0)
        m = p["pad_to_multiple_of"]
        if m:
            n = -(-n // m) * m
        for e in (e for x in encs for e in (x, *x.overflowing)):
            e._pad = (max(n - len(e), 0), p)

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


__all__ = ["HfEncoding", "HfTokenizer"]
