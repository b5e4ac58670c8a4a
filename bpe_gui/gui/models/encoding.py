"""Pure helpers for the views that colour a text token by token, over an Encoding
snapshot: which tokens cover a character, each token's kind (:class:`TokenKind`) and
text, and the map from Python string indices (code points) to QTextDocument positions
(UTF-16 units: a character outside the BMP, such as an emoji, takes two).
:class:`TokenSpans` is what a text view colours (widgets/token_text.py's highlighter):
the tokens' spans, kinds, colour groups and marks, and the runs of one format they make.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from enum import IntEnum
from itertools import accumulate
from operator import itemgetter
from typing import Sequence

from ...engine.display import is_partial, readable
from ...engine.tokenizers import Encoding
from .glyphs import shown
from .roles import ReadableCache


def utf16_positions(text: str) -> list[int] | None:
    """Document position of each code-point index (len(text)+1 entries), or None when
    they are equal (no character outside the BMP): the one home of UTF-16 positions. A
    lone surrogate (a str may hold one) is one unit, as a text box holds it.

    Example: 'a😀b' -> [0, 1, 3, 4]
    """
    if len(text.encode("utf-16-le", "surrogatepass")) == 2 * len(text):
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


class TokenKind(IntEnum):
    """What a token is, for how every view draws it."""

    PLAIN = 0
    PARTIAL = 1    # part of a UTF-8 character: hex bytes, a dashed chip, a dotted underline
    SPECIAL = 2    # a special token: never split or merged, drawn bold


PLAIN, PARTIAL, SPECIAL = TokenKind.PLAIN, TokenKind.PARTIAL, TokenKind.SPECIAL


def kind_of(token: bytes, special: bool = False) -> TokenKind:
    """Example: b"\\xe4\\xbd" -> PARTIAL; b" the" -> PLAIN."""
    return SPECIAL if special else PARTIAL if is_partial(token) else PLAIN


def token_kinds(enc: Encoding, cache: ReadableCache | None = None) -> list[TokenKind]:
    """One kind per token of ``enc``."""
    partial = (lambda t: cache(t)[1]) if cache is not None else is_partial
    # bytes.isascii is a fast C test, and most tokens are ASCII (never partial)
    kinds = [PLAIN if t.isascii() else PARTIAL if partial(t) else PLAIN for t in enc.tokens]
    if enc.special and any(enc.special):
        kinds = [SPECIAL if sp else k for k, sp in zip(kinds, enc.special)]
    return kinds


# The text formats of a highlighter, by index: two alternating blocks of plain tokens,
# the same two for parts of a character, one for special tokens; then the first four
# again for tokens marked new (training on: learned here, not inherited).
SPECIAL_FORMAT, MARKED = 4, 5


def format_index(kind: TokenKind, group: int, new: bool = False) -> int:
    """The format a token is drawn in: its kind, its group's colour (0/1), its mark.

    Example: format_index(PARTIAL, 1) -> 3; format_index(PLAIN, 0, new=True) -> 5
    """
    if kind == SPECIAL:
        return SPECIAL_FORMAT
    return (2 if kind == PARTIAL else 0) + group + (MARKED if new else 0)


@dataclass(frozen=True, eq=False)
class TokenSpans:
    """What a text view colours: each token's character span (``offsets``), kind,
    colour group (``groups``: 0/1 alternating by groups of tokens that share a
    character; None: by index) and mark (``news``: training on's new tokens; None: no
    marks), and where each character sits in the text box's document (``u16``,
    utf16_positions; None: the same numbers).

    Example::

        spans = TokenSpans([(0, 2), (2, 3), (2, 3)], [PLAIN, PARTIAL, PARTIAL], [0, 1, 1])
        spans.tokens_at(2) -> [1, 2]
        spans.runs(0, 3) -> [(0, 2, 0), (2, 3, 3), (2, 3, 3)]
    """

    offsets: Sequence[tuple[int, int]] = ()
    kinds: Sequence[TokenKind] = ()
    groups: Sequence[int] | None = None
    news: Sequence[bool] | None = None
    u16: list[int] | None = None
    starts: Sequence[int] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "starts", list(map(itemgetter(0), self.offsets)))

    def __len__(self) -> int:
        return len(self.offsets)

    def pos_of_char(self, i: int) -> int:
        return doc_position(self.u16, i)

    def char_of_pos(self, p: int) -> int:
        return char_index(self.u16, p)

    def tokens_at(self, char: int) -> list[int]:
        """The tokens covering character ``char`` (several for a split character)."""
        return tokens_at(self.offsets, self.starts, char)

    def tokens_in(self, c0: int, c1: int) -> tuple[int, int]:
        """The index range of the tokens that cover any of the characters c0..c1-1."""
        offsets, starts = self.offsets, self.starts
        a, z = bisect_left(starts, c0), bisect_left(starts, c1)
        while a > 0 and offsets[a - 1][1] > c0:
            a -= 1
        return a, z

    def format_of(self, i: int) -> int:
        g = self.groups[i] if self.groups is not None else i & 1
        return format_index(self.kinds[i], g, bool(self.news and self.news[i]))

    def runs(self, p0: int, p1: int) -> list[tuple[int, int, int]]:
        """(start, end, format) in document positions of each token's part in the
        positions p0..p1-1 (a line of the text box), in order."""
        c0, c1 = self.char_of_pos(p0), self.char_of_pos(p1)
        offsets, starts = self.offsets, self.starts
        i = max(0, bisect_right(starts, c0) - 1)
        while i > 0 and offsets[i - 1][1] > c0:
            i -= 1
        out = []
        to_pos, n = self.pos_of_char, len(offsets)
        while i < n and starts[i] < c1:
            s, e = offsets[i]
            if e > c0 and e > s:
                out.append((to_pos(max(s, c0)), to_pos(min(e, c1)), self.format_of(i)))
            i += 1
        return out

    def same_between(self, other: TokenSpans, c0: int, c1: int) -> bool:
        """Characters c0..c1-1 are drawn the same by both: the same tokens, kinds,
        groups and marks over them."""
        a, z = other.tokens_in(c0, c1)
        b, y = self.tokens_in(c0, c1)
        if other.offsets[a:z] != self.offsets[b:y]:
            return False
        return [other.format_of(i) for i in range(a, z)] == \
            [self.format_of(i) for i in range(b, y)]


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
