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
from .glyphs import shown
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
            got = shown(readable(token, show_ws=False).replace("\n", "↵").replace("\r", "\\r"))
            if len(self._plain) > 100_000:
                self._plain.clear()
            self._plain[token] = got
        return got
