"""tiktoken's ``Encoding`` over any tokenizer: ``tok.as_tiktoken()``.

Every public name of ``tiktoken.Encoding`` with its signature, defaults, return type and
exceptions (KeyError for an unknown id or token), the private attributes code reads
(``_pat_str``, ``_mergeable_ranks``, ``_special_tokens``, ``_encode_bytes``...) and
pickling, each forwarding to the tokenizer's own call. :mod:`bpe_gui.engine.compat.tiktoken`
is the module (``Encoding`` is this class); building from ranks needs the imported
tokenizers, above this module, so that module hands its builder to :data:`from_ranks`.

Example: ``load_tokenizer("cl100k_base.tiktoken").as_tiktoken().decode_with_offsets(
[15339, 1917])`` -> ``('hello world', [0, 5])``
"""
from __future__ import annotations

from bisect import bisect_left
from functools import cached_property
from typing import Any, Callable, Sequence

from ..errors import ArgumentError
from .special_policy import SpecialSet as Special

# (name, pat_str, mergeable_ranks, special_tokens) -> a tokenizer; set by compat.tiktoken
from_ranks: Callable[[str, str, dict[bytes, int], dict[str, int]], Any] | None = None
_SPACE = frozenset(b" \n\t")


def _lead_bytes(token: bytes) -> int:
    """How many characters begin in these UTF-8 bytes (bytes that are no continuation).

    Example: b'\\xe4\\xbd\\xa0a' -> 2"""
    return sum(1 for c in token if not 0x80 <= c < 0xC0)


class _Forward:
    """An attribute of the face that is the tokenizer's own of that name."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, enc: Any, owner: type | None = None) -> Any:
        return self if enc is None else getattr(enc._tok, self.name)


def _wrapped(tok: Any, name: str) -> "TiktokenEncoding":
    return TiktokenEncoding.wrapping(tok, name)


def _rebuilt(build: Callable, name: str, pat_str: str, ranks: dict[bytes, int],
             specials: dict[str, int]) -> "TiktokenEncoding":
    """An Encoding made from ranks by ``build`` (compat.tiktoken's: named in a pickle,
    so unpickling imports it)."""
    enc = TiktokenEncoding.wrapping(build(name, pat_str, ranks, specials), name)
    enc._reduce = (_rebuilt, (build, name, pat_str, ranks, specials))
    enc._pat_str, enc._mergeable_ranks, enc._special_tokens = pat_str, ranks, specials
    return enc


class TiktokenEncoding:
    """``tiktoken.Encoding`` (see the module docstring); ``_tok`` is the tokenizer."""

    _tok: Any
    name: str
    _reduce: tuple   # what __reduce__ gives

    def __init__(self, name: str, *, pat_str: str, mergeable_ranks: dict[bytes, int],
                 special_tokens: dict[str, int], explicit_n_vocab: int | None = None):
        """A tokenizer over tiktoken's ranks, as ``tiktoken.Encoding(...)`` makes one:
        ``special_tokens`` at the ids given (an id a rank or another special token has
        is refused, ArgumentError); ``explicit_n_vocab`` checked as tiktoken checks it."""
        if from_ranks is None:
            raise ArgumentError("Encoding(name, pat_str=..., mergeable_ranks=...) is "
                                "built by bpe_gui.engine.compat.tiktoken: import it first.")
        if explicit_n_vocab:
            top = max([*mergeable_ranks.values(), *special_tokens.values()], default=-1)
            if len(mergeable_ranks) + len(special_tokens) != explicit_n_vocab or \
                    top != explicit_n_vocab - 1:
                raise ArgumentError(
                    f"Encoding({name!r}, explicit_n_vocab={explicit_n_vocab}): there are "
                    f"{len(mergeable_ranks)} ranks and {len(special_tokens)} special tokens, "
                    f"the largest id {top}; they should number explicit_n_vocab, with ids "
                    "up to explicit_n_vocab - 1.")
        self.__dict__ = _rebuilt(from_ranks, name, pat_str, mergeable_ranks,
                                 special_tokens).__dict__

    @classmethod
    def wrapping(cls, tok: Any, name: str | None = None) -> "TiktokenEncoding":
        """The face over ``tok`` (``tok.as_tiktoken(name)``)."""
        enc = object.__new__(cls)
        meta = tok.meta if isinstance(tok.meta, dict) else {}
        enc._tok, enc.name = tok, name or meta.get("encoding") or meta.get("name") or "bpe-gui"
        enc._reduce = (_wrapped, (tok, enc.name))   # (the tokenizer pickles as its files)
        return enc

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r}>"

    def __reduce__(self):
        """A tokenizer read from a file pickles as its files (formats/sources.py); one
        made from ranks as its arguments, as tiktoken's pickles."""
        return self._reduce

    # ----- what tiktoken's tests and downstream code read (made when first read) ------
    @cached_property
    def _pat_str(self) -> str:
        return self._tok.pattern

    @cached_property
    def _special_tokens(self) -> dict[str, int]:
        return dict(self._tok.special_ids)

    @cached_property
    def _mergeable_ranks(self) -> dict[bytes, int]:
        specials = set(self._tok.special_ids.values())
        return {b: i for i, b in sorted(self._tok.vocab.items()) if i not in specials}

    @cached_property
    def _sorted_bytes(self) -> list[bytes]:
        return sorted(self._mergeable_ranks)

    # the tokenizer's own, as they are (tiktoken's signatures)
    max_token_value = _Forward()
    n_vocab = _Forward()
    eot_token = _Forward()
    special_tokens_set = _Forward()
    encode_ordinary = _Forward()
    encode_single_token = _Forward()
    decode_single_token_bytes = _Forward()
    decode_tokens_bytes = _Forward()

    def is_special_token(self, token: int) -> bool:
        return token in self._tok.special_ids.values()

    def token_byte_values(self) -> list[bytes]:
        """Every ordinary token's bytes, sorted."""
        return list(self._sorted_bytes)

    # ----- encoding ---------------------------------------------------------------------
    def encode(self, text: str, *, allowed_special: Special = frozenset(),
               disallowed_special: Special = "all") -> list[int]:
        return self._tok.encode(text, allowed_special=allowed_special,
                                disallowed_special=disallowed_special, add_special_tokens=False)

    def encode_to_numpy(self, text: str, *, allowed_special: Special = frozenset(),
                        disallowed_special: Special = "all"):
        import numpy as np
        return np.frombuffer(self._tok.encode_to_array(
            text, allowed_special=allowed_special, disallowed_special=disallowed_special,
            add_special_tokens=False), dtype=np.uint32)

    def encode_ordinary_batch(self, text: list[str], *, num_threads: int = 8) -> list[list[int]]:
        return self._tok.encode_ordinary_batch(text, num_threads=num_threads)

    def encode_batch(self, text: list[str], *, num_threads: int = 8,
                     allowed_special: Special = frozenset(),
                     disallowed_special: Special = "all") -> list[list[int]]:
        return self._tok.encode_batch(text, num_threads=num_threads,
                                      allowed_special=allowed_special,
                                      disallowed_special=disallowed_special,
                                      add_special_tokens=False)

    def _encode_single_piece(self, text_or_bytes: str | bytes) -> list[int]:
        """One piece merged as it is (no pattern, no special tokens)."""
        b = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else text_or_bytes
        return list(self._tok.model.merge(bytes(b))) if b else []

    def _last_piece(self, text: str, ids: list[int]) -> int:
        """How many of ``ids`` (``text``'s, ordinary) the last word of ``text`` gave, with
        the whitespace tokens before it when it begins with one (tiktoken's unstable end)."""
        pieces = self._tok.split(text)
        if not pieces or pieces[-1].end != len(text):
            return 0
        n = len(self.encode_ordinary(text[pieces[-1].start:]))
        vocab = self._tok.vocab
        if n and set(vocab[ids[-n]]) <= _SPACE:
            while n < len(ids) and set(vocab[ids[-n - 1]]) <= _SPACE:
                n += 1
        return n

    def _encode_bytes(self, text: bytes) -> list[int]:
        """Bytes that need not be UTF-8: the valid part encoded, its last word merged
        again with the rest as bytes (tiktoken's ``_encode_bytes``)."""
        try:
            return self.encode_ordinary(text.decode("utf-8"))
        except UnicodeDecodeError as e:
            cut = e.start
        good = text[:cut].decode("utf-8")
        ids = self.encode_ordinary(good)
        n = self._last_piece(good, ids)
        tail = self._tok.decode_bytes(ids[len(ids) - n:]) + text[cut:]
        return ids[:len(ids) - n] + self._encode_single_piece(tail)

    def encode_with_unstable(self, text: str, *, allowed_special: Special = frozenset(),
                             disallowed_special: Special = "all"
                             ) -> tuple[list[int], list[list[int]]]:
        """(the stable tokens, every token sequence the text's unstable end may become
        once more text follows), as tiktoken's (whose order of the sequences is a set's)."""
        ids = self.encode(text, allowed_special=allowed_special,
                          disallowed_special=disallowed_special)
        n = self._last_piece(text, ids) if ids and ids[-1] not in \
            self._tok.special_ids.values() else 0
        end = self._tok.decode_bytes(ids[len(ids) - n:]) if n else b""
        stable, found = ids[:len(ids) - n], set[tuple[int, ...]]()
        ranks, sorted_bytes = self._mergeable_ranks, self._sorted_bytes
        for k in range(len(end)):   # a token that holds end[k:] and goes on
            at = bisect_left(sorted_bytes, end[k:])
            while at < len(sorted_bytes) and sorted_bytes[at].startswith(end[k:]):
                if k == 0:
                    found.add((ranks[sorted_bytes[at]],))
                else:
                    found.add(self._covering(end[:k] + sorted_bytes[at], len(end)))
                at += 1
        last = end.decode("utf-8", "ignore")[-1:]
        if len(end) > 1 and last.isspace() and len(end) > len(last.encode()):
            cut = len(end) - len(last.encode())
            found.add(tuple(self._encode_single_piece(end[:cut])
                            + self._encode_single_piece(end[cut:])))
        return stable, [list(s) for s in found]

    def _covering(self, data: bytes, length: int) -> tuple[int, ...]:
        """The first tokens of ``data``'s encoding that reach ``length`` bytes."""
        try:
            ids = self.encode_ordinary(data.decode("utf-8"))
        except UnicodeDecodeError:
            ids = self._encode_single_piece(data)
        out, got = [], 0
        for i in ids:
            out.append(i)
            got += len(self._tok.vocab[i])
            if got >= length:
                break
        return tuple(out)

    # ----- decoding ---------------------------------------------------------------------
    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        return self._tok.decode_bytes(tokens)

    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        return self._tok.decode(tokens, errors, skip_special_tokens=False)

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """(the text, where each token's first character is in it): a token that begins
        inside a character starts at that character (UnicodeDecodeError if the text is
        not whole UTF-8, as tiktoken's)."""
        parts = self.decode_tokens_bytes(tokens)
        starts, at = [], 0
        for b in parts:
            starts.append(max(0, at - (1 if b and 0x80 <= b[0] < 0xC0 else 0)))
            at += _lead_bytes(b)
        return b"".join(parts).decode("utf-8", "strict"), starts

    def decode_batch(self, batch: Sequence[Sequence[int]], *, errors: str = "replace",
                     num_threads: int = 8) -> list[str]:
        return self._tok.decode_batch(batch, errors=errors, num_threads=num_threads,
                                      skip_special_tokens=False)

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *,
                           num_threads: int = 8) -> list[bytes]:
        return [self.decode_bytes(ids) for ids in batch]
