"""Pure helpers for the encode view, over an Encoding snapshot: which tokens cover a
character, each token's kind and text, and the map from Python string indices (code
points) to QTextDocument positions (UTF-16 units: a character outside the BMP, such as
an emoji, takes two).
"""
from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from typing import Sequence

from ...engine.display import is_partial, readable
from ...engine.tokenizers import Encoding
from .roles import ReadableCache


def utf16_positions(text: str) -> list[int] | None:
    """Document position of each code-point index (len(text)+1 entries), or None when
    they are equal (no character outside the BMP).

    Example: 'a😀b' -> [0, 1, 3, 4]
    """
    if len(text.encode("utf-16-le")) == 2 * len(text):
        return None
    return [0, *accumulate(2 if ord(c) > 0xFFFF else 1 for c in text)]


# For a text view whose token spans are in code points and its document in UTF-16:
# ``u16`` is utf16_positions(text) (None: the same numbers).
def doc_position(u16: list[int] | None, i: int) -> int:
    """The document position of character ``i``."""
    return i if u16 is None else u16[min(i, len(u16) - 1)]


def char_index(u16: list[int] | None, p: int) -> int:
    """The character at document position ``p``."""
    return p if u16 is None else max(0, bisect_right(u16, p) - 1)


def tokens_at(offsets: Sequence[tuple[int, int]], starts: Sequence[int], char: int) -> list[int]:
    """Indices of the tokens whose span covers character ``char`` (several when they
    share a character, e.g. the three byte tokens of one Chinese character).

    Example: offsets [(0, 1), (1, 2), (1, 2), (2, 3)], char 1 -> [1, 2]
    """
    i = bisect_right(starts, char) - 1
    out = []
    while i >= 0 and offsets[i][1] > char:
        out.append(i)
        i -= 1
    out.reverse()
    return out


def group_parity(offsets: Sequence[tuple[int, int]],
                 line_starts: Sequence[int] = ()) -> list[int]:
    """Alternating colour (0/1) per token, counted over groups of tokens that share a
    character, so neighbouring blocks in the text always differ.

    The count restarts at each line (``line_starts``: the characters that begin a line,
    ascending): a group that begins a line gets 0 unless the group before it reaches
    into that line. So a merge changes the colours of its own line only, and a step
    re-colours only the lines the merge touched.

    Example: offsets [(0, 2), (2, 3), (2, 3), (3, 4)] -> [0, 1, 1, 0];
    offsets [(0, 2), (2, 3), (3, 5)] with a line starting at 3 -> [0, 1, 0].
    """
    out: list[int] = []
    append = out.append
    g, end = 1, -1
    lines = iter(line_starts)
    line = next(lines, None)          # the next line start not yet passed
    line_start = 0                    # the start of the line the last group began on
    for s, e in offsets:
        if s >= end:                  # a new group
            if line is not None and s >= line:
                while line is not None and line <= s:
                    line_start = line
                    line = next(lines, None)
                g = 0 if end <= line_start else g ^ 1
            else:
                g ^= 1
        if e > end:
            end = e
        append(g)
    return out


def token_kinds(enc: Encoding, cache: ReadableCache | None = None) -> list[int]:
    """0 plain, 2 part of a UTF-8 character, 3 special token; one per token."""
    partial = (lambda t: cache(t)[1]) if cache is not None else is_partial
    # bytes.isascii is a fast C test, and most tokens are ASCII (never partial)
    kinds = [0 if t.isascii() else 2 if partial(t) else 0 for t in enc.tokens]
    if enc.special and any(enc.special):
        kinds = [3 if sp else k for k, sp in zip(kinds, enc.special)]
    return kinds


class TokenTexts:
    """Readable token texts for the id list, memoised; whitespace visible or not.

    Example: b" the" -> '·the' (visible) or ' the'; b"\n" -> '↵' either way (a chip
    must show something); b"\xe4\xbd" -> '<E4 BD>'.
    """

    def __init__(self):
        self.visible = ReadableCache()
        self._plain: dict[bytes, str] = {}

    def __call__(self, token: bytes, show_ws: bool = True) -> str:
        if show_ws:
            return self.visible.text(token)
        got = self._plain.get(token)
        if got is None:
            got = readable(token, show_ws=False).replace("\n", "↵").replace("\r", "\\r")
            if len(self._plain) > 100_000:
                self._plain.clear()
            self._plain[token] = got
        return got


# ----- following a training step without re-encoding ------------------------------------
#
# With byte-level BPE, encoding with the first k+1 merges equals encoding with the first
# k merges and then applying merge k+1 (a, b) -> new everywhere inside each word, left to
# right: every pair of rank <= k is gone already, and a merge only creates pairs that
# hold `new`, whose ranks are all above k+1. Undoing merge k turns every `new` back into
# (a, b), since `new` can only have come from that merge. So a step re-colours in
# O(tokens) list work instead of a full encode; tests compare it with a fresh encode.

def char_of_byte(text: str) -> list[int] | None:
    """Character index of each UTF-8 byte of ``text`` (None for ASCII: the identity).

    Example: 'a你' -> [0, 1, 1, 1]
    """
    if text.isascii():
        return None
    out: list[int] = []
    for ci, ch in enumerate(text):
        out.extend([ci] * len(ch.encode("utf-8")))
    return out


def word_numbers(word_starts: Sequence[int], offsets: Sequence[tuple[int, int]]) -> list[int]:
    """Which word (pre-token) each token belongs to, from the words' start characters.

    Example: words starting at [0, 3], offsets [(0, 2), (2, 3), (3, 5)] -> [0, 0, 1]
    """
    return [bisect_right(word_starts, s) - 1 for s, _ in offsets]


def merge_step(enc: Encoding, words: list[int], a: int, b: int, new: int,
               token: bytes) -> tuple[Encoding, list[int]]:
    """Apply one merge (a, b) -> new to an encoding, inside words only.

    Example: ids [l, o, w, ·, l, o] in words [0, 0, 0, 1, 1, 1], merge (l, o) -> lo
    gives [lo, w, ·, lo]; a pair across two words is never merged.
    """
    ids = enc.ids
    if a not in ids:
        return enc, words
    n = len(ids)
    hits, i = [], -1
    while True:   # left to right, without overlaps (a a a with (a, a) -> aa a)
        try:
            i = ids.index(a, i + 1)
        except ValueError:
            break
        if i + 1 < n and ids[i + 1] == b and words[i] == words[i + 1]:
            hits.append(i)
            i += 1
    if not hits:
        return enc, words
    toks, offs = enc.tokens, enc.offsets
    spec = enc.special or [False] * n
    o_ids, o_toks, o_offs, o_spec, o_words = [], [], [], [], []
    prev = 0
    for h in hits:   # copy the runs between merges as slices (C speed)
        o_ids += ids[prev:h]
        o_toks += toks[prev:h]
        o_offs += offs[prev:h]
        o_spec += spec[prev:h]
        o_words += words[prev:h]
        o_ids.append(new)
        o_toks.append(token)
        o_offs.append((offs[h][0], offs[h + 1][1]))
        o_spec.append(False)
        o_words.append(words[h])
        prev = h + 2
    o_ids += ids[prev:]
    o_toks += toks[prev:]
    o_offs += offs[prev:]
    o_spec += spec[prev:]
    o_words += words[prev:]
    return Encoding(o_ids, o_toks, o_offs, o_spec), o_words


def split_step(enc: Encoding, words: list[int], new: int, a: int, b: int, left: bytes,
               right: bytes, cob: list[int] | None) -> tuple[Encoding, list[int]]:
    """Undo one merge: every ``new`` token becomes (a, b) again, with its character span
    cut where its bytes split (``cob`` from :func:`char_of_byte`).
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
    o_ids, o_toks, o_offs, o_spec, o_words = [], [], [], [], []
    prev = 0
    for h in hits:
        o_ids += ids[prev:h]
        o_toks += toks[prev:h]
        o_offs += offs[prev:h]
        o_spec += spec[prev:h]
        o_words += words[prev:h]
        mid = byte_start[h] + cut
        s, e = offs[h]
        m1, m0 = (mid, mid) if cob is None else (cob[mid - 1] + 1, cob[mid])
        o_ids += (a, b)
        o_toks += (left, right)
        o_offs += ((s, m1), (m0, e))
        o_spec += (False, False)
        o_words += (words[h], words[h])
        prev = h + 1
    o_ids += ids[prev:]
    o_toks += toks[prev:]
    o_offs += offs[prev:]
    o_spec += spec[prev:]
    o_words += words[prev:]
    return Encoding(o_ids, o_toks, o_offs, o_spec), o_words
