"""The names users know from tiktoken and Hugging Face ``tokenizers``, on every tokenizer:
``n_vocab``, ``eot_token``, ``special_tokens_set``, ``decode_batch``,
``decode_single_token_bytes``, ``encode_single_token``, ``id_to_token``,
``token_to_id``, ``get_vocab_size``. Each reads the tables every tokenizer has
(``vocab``, ``bytes_to_id``, ``special_ids``), so each kind answers the same way.

Example::

    >>> tok.n_vocab == max(tok.vocab) + 1
    True
    >>> tok.decode_single_token_bytes(tok.encode("hello")[0])
    b'hello'
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Iterable, Iterator, Sequence

from .. import checks
from ..errors import ArgumentError, UnknownIdError, UnknownTokenError

_EOT = "<|endoftext|>"


class TokenToId(Mapping[bytes, int]):
    """``tok.token_to_id``: called with a token's string, its id or None, as tokenizers'
    ``Tokenizer.token_to_id(token)`` (the string :meth:`LibraryNames.id_to_token` gives:
    ``Ġhello`` for a byte-level token, a special token's text). Indexed by token bytes it
    is ``tok.bytes_to_id``, the table older code read under this name."""

    __slots__ = ("_tok",)

    def __init__(self, tok: "LibraryNames"):
        self._tok = tok

    def __call__(self, token: str) -> int | None:
        return self._tok._id_of_token(token)

    def __getitem__(self, token: bytes) -> int:
        return self._tok.bytes_to_id[token]

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._tok.bytes_to_id)

    def __len__(self) -> int:
        return len(self._tok.bytes_to_id)

    def __contains__(self, token: object) -> bool:
        return token in self._tok.bytes_to_id

    def get(self, token, default=None):   # (the dict's: one call)
        return self._tok.bytes_to_id.get(token, default)


class LibraryNames:
    """tiktoken's and tokenizers' names (mixed into BaseTokenizer, which has the tables
    and methods declared here)."""

    vocab: dict[int, bytes]
    bytes_to_id: dict[bytes, int]              # token bytes -> (first) id
    special_ids: dict[str, int]
    special_tokens: list[str]
    meta: dict

    def decode(self, ids: Iterable[int], errors: str = "replace", *,
               skip_special_tokens: bool | None = None) -> str:   # (BaseTokenizer's)
        raise NotImplementedError

    def _unknown(self, i: object, where: str) -> UnknownIdError:   # (BaseTokenizer's)
        raise NotImplementedError

    @property
    def n_vocab(self) -> int:
        """The largest id plus one (tiktoken's ``n_vocab``)."""
        return max(self.vocab, default=-1) + 1

    @property
    def max_token_value(self) -> int:
        """The largest id (tiktoken's ``max_token_value``)."""
        return max(self.vocab, default=-1)

    def get_vocab_size(self) -> int:
        """How many ids have a token (tokenizers' ``get_vocab_size(with_added_tokens=True)``)."""
        return len(self.vocab)

    @property
    def special_tokens_set(self) -> set[str]:
        """The special tokens' texts (tiktoken's ``special_tokens_set``)."""
        return set(self.special_ids)

    @property
    def eot_token(self) -> int:
        """The id of ``<|endoftext|>`` (tiktoken's ``eot_token``), else of the format's
        end-of-sequence token (a GGUF's or SentencePiece model's EOS)."""
        if _EOT in self.special_ids:
            return self.special_ids[_EOT]
        meta = self.meta if isinstance(self.meta, dict) else {}
        eos = (meta.get("special_token_ids") or {}).get("eos")
        if isinstance(eos, int):
            return eos
        raise UnknownTokenError(f"This tokenizer has no {_EOT} token and names no end-of-sequence "
                            f"token; its special tokens: {', '.join(self.special_tokens[:6]) or 'none'}.")

    def decode_batch(self, batch: Iterable[Sequence[int]], *, errors: str = "replace",
                     num_threads: int | None = None,
                     skip_special_tokens: bool | None = None) -> list[str]:
        """``[decode(ids, errors) for ids in batch]`` (tiktoken's and tokenizers'
        ``decode_batch``); decoding holds the GIL, so ``num_threads`` is only checked."""
        checks.whole(num_threads if num_threads is not None else os.cpu_count() or 1,
                     "Tokenizer.decode_batch(num_threads)", 1)
        return [self.decode(ids, errors, skip_special_tokens=skip_special_tokens)
                for ids in checks.ids(batch, "Tokenizer.decode_batch(batch)")]

    def decode_single_token_bytes(self, token: int) -> bytes:
        """One id's token bytes (tiktoken's ``decode_single_token_bytes``);
        UnknownIdError for an id without a token."""
        got = self.vocab.get(token) if isinstance(token, int) else None
        if got is None:
            raise self._unknown(token, "Tokenizer.decode_single_token_bytes(token)")
        return got

    def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]:
        """Each id's token bytes (tiktoken's ``decode_tokens_bytes``)."""
        return [self.decode_single_token_bytes(i)
                for i in checks.ids(tokens, "Tokenizer.decode_tokens_bytes(tokens)")]

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of the one token whose bytes are these (tiktoken's
        ``encode_single_token``); UnknownTokenError (a ValueError and, as tiktoken's, a
        KeyError) when no token is exactly them."""
        b = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else text_or_bytes
        if not isinstance(b, (bytes, bytearray)):
            raise ArgumentError("Tokenizer.encode_single_token takes a str or bytes, not "
                                f"{type(text_or_bytes).__name__}.")
        got = self.bytes_to_id.get(bytes(b))
        if got is None:
            raise UnknownTokenError(f"No single token of this tokenizer is {bytes(b)!r}; "
                                "encode(text) gives the tokens that spell it.")
        return got

    def id_to_token(self, token: int) -> str | None:
        """The token as the format spells it (tokenizers' ``id_to_token``): a byte-level
        token in GPT-2's alphabet (``Ġhello``), a SentencePiece one with ``▁``, a special
        token as its text; None for an id without a token."""
        vocab = self.vocab
        if not isinstance(token, int) or token not in vocab:
            return None
        key_of = getattr(getattr(self, "pipeline", None), "key_of", None)
        if key_of is not None:
            got = key_of(token)
            if got is not None:
                return got
        b = vocab[token]
        if token in self.special_ids.values() or getattr(self, "mode", "byte") == "char":
            return b.decode("utf-8", "replace")
        from ..display import gpt2_text
        return gpt2_text(b)

    @property
    def token_to_id(self) -> TokenToId:
        """``tok.token_to_id(token: str) -> int | None``: the id of the token the format
        spells so (tokenizers' ``token_to_id``; the inverse of :meth:`id_to_token`), None
        if no token is spelt so. For token bytes use ``bytes_to_id`` (or tiktoken's
        ``encode_single_token``).

        Example: ``tok.token_to_id("Ġhello")`` for the byte-level token `` hello``."""
        return TokenToId(self)

    def _id_of_token(self, token: str) -> int | None:
        if not isinstance(token, str):
            raise ArgumentError("Tokenizer.token_to_id takes a token's string (as "
                                f"id_to_token spells it), not {type(token).__name__}; "
                                "for token bytes use bytes_to_id.get(token).")
        pipeline = getattr(self, "pipeline", None)
        find = getattr(pipeline, "id_of", None)
        if find is not None:   # the file's own token strings (a tokenizer.json's keys)
            return find(token)
        if getattr(pipeline, "key_of", None) is not None:
            return self._key_ids().get(token)
        got = self.special_ids.get(token)
        if got is not None:
            return got
        if getattr(self, "mode", "byte") == "char":
            return self.bytes_to_id.get(token.encode("utf-8"))
        from ..display import gpt2_bytes
        try:
            b = gpt2_bytes(token)
        except KeyError:   # a character outside GPT-2's alphabet: no byte-level token
            return None
        got = self.bytes_to_id.get(b)
        return got if got is not None and got not in self.special_ids.values() else None

    def _key_ids(self) -> dict[str, int]:
        """Each token string -> its id (the first; a special token's own wins), made once
        from id_to_token."""
        got = self.__dict__.get("_key_ids_of")
        if got is None:
            got = {}
            for i in sorted(self.vocab):
                key = self.id_to_token(i)
                if key is not None:
                    got.setdefault(key, i)
            got.update(self.special_ids)
            self.__dict__["_key_ids_of"] = got
        return got


__all__ = ["LibraryNames", "TokenToId"]
