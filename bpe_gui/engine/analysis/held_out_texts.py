"""Texts measured apart from training: held-out texts pre-tokenized once, and the special
tokens a text holds."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterator, Sequence

from ..text.pretokenize import Pretokenizer
from ..tokenizers.base import BaseTokenizer


def count_specials(text: str, special_tokens: Sequence[str]) -> int:
    """How many special tokens the text holds (each is one token the trainer never sees).

    Example: ('a<|endoftext|>b<|endoftext|>', ['<|endoftext|>']) -> 2
    """
    if not special_tokens:
        return 0
    return sum(1 for p in Pretokenizer(r"\S+", special_tokens).pieces(text) if p.special)


def special_counts(text: str, special_tokens: Sequence[str]) -> dict[str, int]:
    """How often each special token occurs in the text, found as encoding finds them
    (longest first where two overlap): the ``extra`` counts of :class:`RenyiCurve`.

    Example: ('a<s>b<s><|e|>', ['<s>', '<|e|>']) -> {'<s>': 2, '<|e|>': 1}
    """
    out = dict.fromkeys(special_tokens, 0)
    if special_tokens:
        for p in Pretokenizer(r"\S+", special_tokens).pieces(text):
            if p.special:
                out[p.text] += 1
    return out


@dataclass(frozen=True)
class HeldOut:
    """A held-out text, pre-tokenized once: unique words with frequencies."""

    words: tuple[tuple[str, int], ...]
    n_special: int
    n_bytes: int
    n_chars: int


def held_out(text: str, pattern: str = "gpt2", special_tokens: Sequence[str] = ()) -> HeldOut:
    """Pre-tokenize a held-out text with the tokenizer's own pattern and specials."""
    pre = Pretokenizer(pattern, special_tokens)
    counts = Counter(pre.words(text))
    return HeldOut(tuple(counts.items()), count_specials(text, special_tokens),
                   len(text.encode("utf-8", "surrogatepass")), len(text))


def held_out_tokens(tok: BaseTokenizer, held: HeldOut, batch: int = 200) -> Iterator[int | None]:
    """Count the tokens of a held-out text, a batch of words at a time.

    Yields None after every batch (so a GUI can stop between batches) and the total
    last. ``sum`` over words of freq * len(tokens of the word), plus one per special.
    """
    total = held.n_special
    word_ids = tok.encode_word  # the tokenizer's own (cached) per-word encoding
    for i, (w, f) in enumerate(held.words, 1):
        total += f * len(word_ids(w))
        if i % batch == 0:
            yield None
    yield total
