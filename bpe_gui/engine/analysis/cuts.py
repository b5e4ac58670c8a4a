"""Where an encoding cuts a text into tokens, and where two encodings cut it differently.

Cuts are ``(char, k)`` pairs: before character ``char`` when k == 0, else after its first
k UTF-8 bytes (byte-level tokens can split a character).
"""
from __future__ import annotations

from ..display import is_partial
from ..tokenizers.encoding import Encoding
from .scripts import utf8_len

Cut = tuple[int, int]


def _advance(text: str, pos: Cut, n_bytes: int) -> Cut:
    c, k = pos
    while n_bytes > 0 and c < len(text):
        room = utf8_len(text[c]) - k
        if n_bytes >= room:
            n_bytes -= room
            c, k = c + 1, 0
        else:
            k += n_bytes
            n_bytes = 0
    return c, k


def cut_points(enc: Encoding, text: str, fold_whitespace: bool = False) -> set[Cut]:
    """Every place an encoding cuts the text (token starts and ends, inside the text).

    Example: 'a你' cut into [a] [E4 BD] [A0] -> {(1, 0), (1, 2)}.
    With ``fold_whitespace`` a cut before whitespace moves to the end of the whitespace
    run, so "where the space goes" (' cat' vs 'the</w>') does not count as a difference.
    """
    cuts: set[Cut] = set()
    end: Cut = (0, 0)
    specials = enc.special or [False] * len(enc)
    for tok, (s, e), special in zip(enc.tokens, enc.offsets, specials):
        start = end if (end[1] and s < end[0] + 1) else (s, 0)
        if start[1] or (not special and is_partial(tok)):
            end = _advance(text, start, len(tok))
        else:
            end = (e, 0)
        cuts.add(start)
        cuts.add(end)
    n = len(text)
    if fold_whitespace:
        folded = set()
        for c, k in cuts:
            if k == 0:
                while c < n and text[c].isspace():
                    c += 1
            folded.add((c, k))
        cuts = folded
    cuts.discard((0, 0))
    cuts.discard((n, 0))
    return cuts


def boundary_diff(a: Encoding, b: Encoding, text: str,
                  fold_whitespace: bool = False) -> tuple[set[Cut], set[Cut]]:
    """Cuts only ``a`` makes, and cuts only ``b`` makes, in the same text.

    Example: 'lower' as [low][er] vs [lo][wer] -> ({(3, 0)}, {(2, 0)})
    """
    ca, cb = cut_points(a, text, fold_whitespace), cut_points(b, text, fold_whitespace)
    return ca - cb, cb - ca
