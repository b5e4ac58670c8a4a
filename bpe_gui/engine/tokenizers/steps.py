"""An encoding carried from one training step to the next without encoding again.

With byte-level BPE, encoding with the first k+1 merges equals encoding with the first
k merges and then applying merge k+1 (a, b) -> new everywhere inside each word, left to
right: every pair of rank <= k is gone already, and a merge only creates pairs that hold
``new``, whose ranks are all above k+1. Undoing merge k turns every ``new`` back into
(a, b), since ``new`` can only have come from that merge. So a step costs O(tokens) list
work instead of an encode; the window's encode view follows training this way.

``words[i]`` is the number of the word (pre-token) token i belongs to (a pair across two
words is never merged); :func:`word_numbers` makes them from the words' start characters.
"""
from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from typing import Callable, Sequence

from .encoding import Encoding


def word_numbers(word_starts: Sequence[int], offsets: Sequence[tuple[int, int]]) -> list[int]:
    """Which word each token belongs to, from the words' start characters.

    Example: words starting at [0, 3], offsets [(0, 2), (2, 3), (3, 5)] -> [0, 0, 1]
    """
    return [bisect_right(word_starts, s) - 1 for s, _ in offsets]


def apply_merge(enc: Encoding, words: list[int], a: int, b: int, new: int,
                token: bytes) -> tuple[Encoding, list[int]]:
    """Apply one merge (a, b) -> new to an encoding, inside words only, left to right
    without overlaps; ``token`` is the bytes of ``new``. Returns ``enc`` and ``words``
    themselves when the pair is nowhere.

    Example: ids [l, o, w, ·, l, o] in words [0, 0, 0, 1, 1, 1], merge (l, o) -> lo
    gives [lo, w, ·, lo]; (a, a) over [a, a, a] gives [aa, a].
    """
    ids = enc.ids
    if a not in ids:
        return enc, words
    n = len(ids)
    hits, i = [], -1
    while True:
        try:
            i = ids.index(a, i + 1)
        except ValueError:
            break
        if i + 1 < n and ids[i + 1] == b and words[i] == words[i + 1]:
            hits.append(i)
            i += 1   # the pair's right half starts no other pair
    if not hits:
        return enc, words
    toks, offs = enc.tokens, enc.offsets
    spec = enc.special or [False] * n
    out = _splice((ids, toks, offs, spec, words), hits, 2, lambda h: (
        (new,), (token,), ((offs[h][0], offs[h + 1][1]),), (False,), (words[h],)))
    return Encoding(out[0], out[1], out[2], out[3], enc.spell), out[4]


def undo_merge(enc: Encoding, words: list[int], new: int, a: int, b: int, left: bytes,
               right: bytes, cob: list[int] | None) -> tuple[Encoding, list[int]]:
    """Undo one merge (a, b) -> new: every ``new`` token becomes (a, b) again (``left``
    and ``right`` their bytes), its character span cut where its bytes split (``cob``:
    :func:`char_of_byte` of the encoded text). Returns ``enc`` and ``words`` themselves
    when ``new`` is nowhere.
    """
    ids = enc.ids
    if new not in ids:
        return enc, words
    toks, offs = enc.tokens, enc.offsets
    n = len(ids)
    spec = enc.special or [False] * n
    hits = [i for i, t in enumerate(ids) if t == new]
    byte_start = [0, *accumulate(map(len, toks))]
    cut = len(left)

    def halves(h: int) -> tuple[tuple, ...]:
        mid = byte_start[h] + cut
        s, e = offs[h]
        # a cut inside a character: both halves cover that whole character
        m1, m0 = (mid, mid) if cob is None else (cob[mid - 1] + 1, cob[mid])
        return (a, b), (left, right), ((s, m1), (m0, e)), (False, False), (words[h], words[h])

    out = _splice((ids, toks, offs, spec, words), hits, 1, halves)
    return Encoding(out[0], out[1], out[2], out[3], enc.spell), out[4]


def _splice(cols: tuple[Sequence, ...], hits: list[int], width: int,
            rows: Callable[[int], tuple[tuple, ...]]) -> list[list]:
    """``cols`` (columns of one length) with the ``width`` rows at each of ``hits``
    replaced by ``rows(h)``, a tuple of new values for each column; the runs between hits
    are copied as slices."""
    out: list[list] = [[] for _ in cols]
    prev = 0
    for h in hits:
        for o, col, new in zip(out, cols, rows(h)):
            o += col[prev:h]
            o += new
        prev = h + width
    for o, col in zip(out, cols):
        o += col[prev:]
    return out


__all__ = ["apply_merge", "undo_merge", "word_numbers"]
