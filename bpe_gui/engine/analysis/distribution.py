"""How a vocabulary's tokens are distributed: lengths, ranks and frequencies (Zipf), and
Rényi efficiency (Zouhar et al. 2023)."""
from __future__ import annotations

import math
from collections import Counter
from typing import Iterable, Sequence

from ..tokenizers.merge_model import EOW


def token_length(token: bytes, mode: str = "byte") -> int:
    """Length for the histogram: bytes (byte mode) or characters without ``</w>``.

    Example: (b' the', 'byte') -> 4; (b'the</w>', 'char') -> 3
    """
    if mode == "char":
        return len(token.replace(EOW, b"").decode("utf-8", "replace"))
    return len(token)


def length_histogram(tokens: Iterable[bytes], mode: str = "byte") -> dict[int, int]:
    """Example: [b'a', b'b', b'ab'] -> {1: 2, 2: 1}"""
    return dict(sorted(Counter(token_length(t, mode) for t in tokens).items()))


def zipf(counts: Iterable[int]) -> tuple[list[int], list[int]]:
    """Rank (1 = most frequent) vs frequency, tokens that never occur left out.

    Example: [3, 0, 7, 1] -> ([1, 2, 3], [7, 3, 1])
    """
    freqs = sorted((c for c in counts if c > 0), reverse=True)
    return list(range(1, len(freqs) + 1)), freqs


RENYI_ALPHA = 2.5   # Zouhar et al. (2023) found alpha 2.5 tracks translation quality best


def renyi_efficiency(counts: Iterable[int], vocab_size: int,
                     alpha: float = RENYI_ALPHA) -> float | None:
    """Rényi efficiency of a token unigram distribution (Zouhar et al. 2023).

    With p_i = c_i / N the share of token i among the N tokens of a text::

        H_alpha(p) = ln(sum_i p_i ** alpha) / (1 - alpha)      (Shannon's H when alpha = 1)
        efficiency = H_alpha(p) / ln(vocab_size)

    ``vocab_size`` is the tokenizer's whole vocabulary -- every id, special tokens
    included, as ``len(tok.vocab)`` counts them -- not the token types the text happens
    to use: ln |V| is the entropy of the uniform distribution over what the tokenizer
    can emit (the paper's H_0), so the score says how much of the vocabulary's capacity
    the text uses, and a tokenizer keeps one denominator across texts. (The authors'
    ``tokenization-scorer`` divides by the types seen unless given the vocabulary size.)
    None for no tokens or a vocabulary of one token.

    Example: counts [1, 1, 1, 1], vocab_size 4 -> 1.0 (uniform over the whole vocabulary);
    counts [1, 1], vocab_size 4 -> 0.5.
    """
    cs = [c for c in counts if c > 0]
    n = sum(cs)
    if not n or vocab_size < 2:
        return None
    return _renyi(cs, n, alpha) / math.log(vocab_size)


def _renyi(counts: Sequence[int], n: int, alpha: float) -> float:
    if alpha == 1.0:
        return -sum(c / n * math.log(c / n) for c in counts)
    return math.log(sum((c / n) ** alpha for c in counts)) / (1.0 - alpha)
