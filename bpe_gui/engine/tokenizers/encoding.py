"""One encoding's result (:class:`Encoding`), and the tables by id that place each token
in the text from its id alone (:func:`token_tables`): what every door of every tokenizer
hands back, shared by the runtime (pipeline.py) and the tokenizer's face (base.py)."""
from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Callable

from ..errors import ArgumentError


@dataclass(frozen=True)
class Encoding:
    """One encoding result: ids, token bytes and character spans, index-aligned.

    ``offsets[i] = (start, end)``: the characters of the text that token i covers. A
    token holding part of a UTF-8 character covers that whole character, so two
    neighbouring tokens may share one. ``special[i]`` marks special tokens.

    A token has two spellings, each by its own name: ``tokens`` are its bytes
    (``b' quick'``), ``token_strings`` its string as the format spells it (``'Ġquick'``,
    as tokenizers' ``Encoding.tokens`` and the command line's ``--json`` give it).
    """

    ids: list[int]
    tokens: list[bytes]
    offsets: list[tuple[int, int]]
    special: list[bool] = field(default_factory=list)
    # id -> the token's string (the tokenizer's id_to_token), set by the tokenizer
    spell: Callable[[int], str | None] | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def token_strings(self) -> list[str]:
        """Each token's string as its format spells it (``id_to_token``): ``Ġquick`` for a
        byte-level token, ``▁the`` for a SentencePiece one, a special token's text."""
        if self.spell is None:
            raise ArgumentError("This Encoding was not made by a tokenizer, so it cannot spell "
                                "its tokens; use tok.encode_with_offsets(text).token_strings.")
        spell = self.spell
        return [spell(i) or "" for i in self.ids]


def token_tables(vocab: dict[int, bytes]) -> tuple[array, list[bytes]]:
    """(the byte length of each id's token as an ``array('i')``, each id's token bytes as
    a list), indexed by id up to the largest: what the C encoder's ``encode_offsets``
    reads to place each token in the text from its id alone (an id without a token has
    length 0 there, and the C side then gives up: the caller's slow path runs)."""
    top = max(vocab, default=-1) + 1
    get = vocab.get
    tokens = [get(i, b"") for i in range(top)]
    return array("i", map(len, tokens)), tokens
