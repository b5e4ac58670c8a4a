"""The words of a text view, found around what it shows, with the rule that took each.

:class:`EditWords` keeps the words (``spans``: start, end, branch; -1 a special token)
of the characters ``lo..hi`` of the view's text and finds more when asked about
characters outside. A window starts and ends at line starts where every preset pattern
starts a word (``engine.explain.safe_start``), so its words are those of the whole text
and a 1 MB corpus costs no more than a page. A custom pattern is searched over the
whole text up to ``FULL_LIMIT`` characters (its words may reach across such a line
start); beyond that it is windowed too, and may differ at a window's edge.

No Qt: it is given how to read the view's text (``read_text``) and what to do when a
pattern runs away (``pattern_failed``); the view's words mode (widgets/word_branches.py)
holds one.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Callable

from ...engine.errors import BPEError
from ...engine.text import BranchMatcher, Pretokenizer
from ...engine.tokenizers import safe_end, safe_start, why_it_ends, word_spans
from .encoding import char_index, doc_position, utf16_positions

FULL_LIMIT = 200_000     # custom patterns: the whole text up to this many characters
MARGIN = 4_000           # characters searched beyond what is asked for


@dataclass(frozen=True)
class ClickedWord:
    text: str
    start: int               # character offsets in the view's text
    end: int
    branch: int              # -1: a special token
    label: str               # e.g. "rule 2 · letters"
    reason: str              # why it ended there


class EditWords:
    pre: Pretokenizer | None = None          # special tokens, pattern
    matcher: BranchMatcher | None = None     # the pattern's alternatives
    error = ""
    text: str | None = None  # None: the text changed since it was last read
    lo = hi = 0              # the characters the spans cover
    _u16: list[int] | None = None

    def __init__(self, read_text: Callable[[], str],
                 pattern_failed: Callable[[str], None] = lambda _message: None):
        self.read_text, self.pattern_failed = read_text, pattern_failed
        # the number of the page after the text read, when that text is a page of a longer
        # one (the encode view's pages), else None: a word at its end ends with the page
        self.next_page: Callable[[], int | None] = lambda: None
        self.spans: list[tuple[int, int, int]] = []
        self.starts: list[int] = []
        self.shades: list[int] = []
        self.fresh: set[int] = set()      # the view's lines coloured with these spans

    def pos_of_char(self, i: int) -> int:
        return doc_position(self._u16, i)

    def char_of_pos(self, p: int) -> int:
        return char_index(self._u16, p)

    def read(self) -> str:
        text = self.read_text()
        self.text, self._u16 = text, utf16_positions(text)
        self.lo = self.hi = 0
        self.spans, self.starts, self.shades = [], [], []
        return text

    def covers(self, c0: int, c1: int) -> bool:
        return self.text is not None and self.lo <= c0 and c1 <= self.hi

    def ensure(self, c0: int, c1: int) -> bool:
        """Find the words of characters c0..c1 (and around) if not found yet."""
        pre, matcher = self.pre, self.matcher
        if matcher is None or pre is None:
            return False
        text = self.text if self.text is not None else self.read()
        if not text:
            return False
        if self.hi > self.lo and self.covers(c0, c1):
            return True
        n = len(text)
        if n <= 2 * MARGIN or (pre.preset is None and n <= FULL_LIMIT):
            lo, hi = 0, n
        else:
            lo, hi = safe_start(text, max(0, c0 - MARGIN)), safe_end(text, min(n, c1 + MARGIN))
        try:
            spans = word_spans(pre, matcher, text, lo, hi)
        except BPEError as e:     # a custom pattern that runs away
            self.matcher, self.error = None, str(e)
            self.pattern_failed(self.error)
            return False
        self.spans, self.lo, self.hi = spans, lo, hi
        self.starts = [s for s, _e, _k in spans]
        self.shades = shades(text, spans)
        self.fresh = set()
        return True

    def word_at(self, ch: int) -> ClickedWord | None:
        """The word (or special token) covering character ``ch``, with why it ended."""
        if not self.ensure(ch, ch + 1):
            return None
        text, pre, matcher = self.text, self.pre, self.matcher
        if text is None or pre is None or matcher is None:   # (ensure found them)
            return None
        i = bisect_right(self.starts, ch) - 1
        if i < 0 or self.spans[i][1] <= ch:
            return None
        s, e, k = self.spans[i]
        nxt = self.spans[i + 1] if i + 1 < len(self.spans) else None
        if nxt is None and e < len(text):
            after = word_spans(pre, matcher, text, e, e + 1)
            nxt = after[0] if after else None
        branches = matcher.branches
        label = "special token" if k < 0 else branches[k].label
        page = self.next_page() if e >= len(text) and k >= 0 else None
        reason = (why_it_ends(branches, text, (s, e, k), nxt) if page is None else
                  f"It ends where this page ends; the text goes on on page {page:,}. A long "
                  "text is shown a page at a time, and each page is cut into words and "
                  "encoded on its own.")
        return ClickedWord(text[s:e], s, e, k, label, reason)


def shades(text: str, spans: list[tuple[int, int, int]]) -> list[int]:
    """Two shades alternate along a run of touching words of the same rule; a run
    starts again at each line, so a window's shades do not depend on where it starts.

    Example: 'a b' with gpt2 -> spans (0,1,1), (1,3,1) -> [0, 1]
    """
    out: list[int] = []
    prev = None
    for s, e, k in spans:
        joined = (prev is not None and prev[1] == s and prev[2] == k
                  and s > 0 and text[s - 1] != "\n")
        out.append(1 - out[-1] if joined else 0)
        prev = (s, e, k)
    return out
