"""The names users know from tiktoken and Hugging Face ``tokenizers``, on every tokenizer:
``n_vocab``, ``eot_token``, ``special_tokens_set``, ``decode_batch``,
``decode_single_token_bytes``, ``encode_single_token``, ``id_to_token``,
``get_vocab_size``. Each reads the tables every tokenizer has (``vocab``,
``special_ids``), so each kind answers the same way.

Example::

    >>> tok.n_vocab == max(tok.vocab) + 1
    True
    >>> tok.decode_single_token_bytes(tok.encode("hello")[0])
    b'hello'
"""
from __future__ import annotations

import os
from typing import Iterable, Sequence

from .. import checks
from ..errors import ArgumentError, UnknownIdError

_EOT = "<|endoftext|>"


class LibraryNames:
    """tiktoken's and tokenizers' names (mixed into BaseTokenizer, which has the tables
    and methods declared here)."""

    vocab: dict[int, bytes]
    token_to_id: dict[bytes, int]
    special_ids: dict[str, int]
    special_tokens: list[str]
    meta: dict

    def decode(self, ids: Iterable[int], *,
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
        raise ArgumentError(f"This tokenizer has no {_EOT} token and names no end-of-sequence "
                            f"token; its special tokens: {', '.join(self.special_tokens[:6]) or 'none'}.")

    def decode_batch(self, batch: Iterable[Sequence[int]], *,
                     num_threads: int | None = None,
                     skip_special_tokens: bool | None = None) -> list[str]:
        """``[decode(ids) for ids in batch]`` (tiktoken's and tokenizers'
        ``decode_batch``); decoding holds the GIL, so ``num_threads`` is only checked."""
        checks.whole(num_threads if num_threads is not None else os.cpu_count() or 1,
                     "Tokenizer.decode_batch(num_threads)", 1)
        return [self.decode(ids, skip_special_tokens=skip_special_tokens)
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
        ``encode_single_token``); ArgumentError when no token is exactly them."""
        b = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else text_or_bytes
        if not isinstance(b, (bytes, bytearray)):
            raise ArgumentError("Tokenizer.encode_single_token takes a str or bytes, not "
                                f"{type(text_or_bytes).__name__}.")
        got = self.token_to_id.get(bytes(b))
        if got is None:
            raise ArgumentError(f"No single token of this tokenizer is {bytes(b)!r}; "
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


__all__ = ["LibraryNames"]
