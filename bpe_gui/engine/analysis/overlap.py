"""How much two vocabularies share: tokens compared by their bytes (for the compare view).

Each side's vocabulary is the set of distinct byte strings of its tokens, special tokens
left out (they are markers, not pieces of text). Two tokenizers share a token when both
have those bytes, whatever ids they give it. A character-level token keeps its
``</w>`` marker, so ``low</w>`` (a word end) and ``low`` (anywhere) differ, as they
stand for different things.

"Reaches as a single token": A's token t counts for B when B has a token with t's
bytes that B can produce on its own -- ``ok`` in B's :func:`~.analysis.classify_tokens`.
A shared token that B holds but never produces (unreachable, or part of a UTF-8
character) does not count: B's text for it comes out as several tokens.

Example (GPT-2 against cl100k_base, ``bench/bench_analysis.py``)::

    >>> ov = vocab_overlap(gpt2, cl100k)
    >>> ov.counts()
    {'shared': 43066, 'only_a': 7190, 'only_b': 57190, 'a_single_in_b': 42777, 'b_single_in_a': 42777}
    >>> round(ov.jaccard, 3)
    0.401
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import checks
from .reachability import KINDS, OK, Reachability, classify_tokens
from ..tokenizers.base import BaseTokenizer


@dataclass(frozen=True)
class Overlap:
    """Token byte strings shared and not, sorted by bytes; and how many of each side's
    tokens the other side reaches as one token."""

    shared: tuple[bytes, ...]
    only_a: tuple[bytes, ...]
    only_b: tuple[bytes, ...]
    a_single_in_b: int    # A's tokens that B produces as one token
    b_single_in_a: int

    @property
    def n_a(self) -> int:
        return len(self.shared) + len(self.only_a)

    @property
    def n_b(self) -> int:
        return len(self.shared) + len(self.only_b)

    @property
    def jaccard(self) -> float:
        """|A ∩ B| / |A ∪ B| (0.0 for two empty vocabularies)."""
        union = len(self.shared) + len(self.only_a) + len(self.only_b)
        return len(self.shared) / union if union else 0.0

    def counts(self) -> dict[str, int]:
        return {"shared": len(self.shared), "only_a": len(self.only_a),
                "only_b": len(self.only_b), "a_single_in_b": self.a_single_in_b,
                "b_single_in_a": self.b_single_in_a}


def token_set(tok: BaseTokenizer) -> set[bytes]:
    """The distinct bytes of ``tok``'s tokens, special tokens left out."""
    special = set(tok.special_ids.values())
    return {t for i, t in tok.vocab.items() if i not in special}


def produced_set(tok: BaseTokenizer, reach: Reachability | None = None) -> set[bytes]:
    """The bytes of the tokens ``tok`` produces on its own (class ``ok``)."""
    reach = reach or classify_tokens(tok)
    ok = KINDS.index(OK)
    codes = reach.codes
    return {t for i, t in tok.vocab.items() if 0 <= i < len(codes) and codes[i] == ok}


def vocab_overlap(a: BaseTokenizer, b: BaseTokenizer, reach_a: Reachability | None = None,
                  reach_b: Reachability | None = None) -> Overlap:
    """Compare the vocabularies of ``a`` and ``b``. Pass ``reach_a``/``reach_b`` (from
    :func:`classify_tokens`) when you have them; otherwise they are worked out (a second
    or two for a 200k vocabulary)."""
    checks.instance(a, BaseTokenizer, "vocab_overlap(a)", "a Tokenizer")
    checks.instance(b, BaseTokenizer, "vocab_overlap(b)", "a Tokenizer")
    sa, sb = token_set(a), token_set(b)
    made_a, made_b = produced_set(a, reach_a), produced_set(b, reach_b)
    return Overlap(tuple(sorted(sa & sb)), tuple(sorted(sa - sb)), tuple(sorted(sb - sa)),
                   len(sa & made_b), len(sb & made_a))
