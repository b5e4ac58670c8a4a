"""Where a stream of text may be cut, so that encoding the parts equals encoding the whole.

``encode_iterable`` (trained and imported tokenizers alike) buffers the stream and asks
:func:`stream_boundary` where the buffer may be cut: the text before the cut is encoded on its
own, the rest waits for more text. A cut ``p`` must keep, for whatever text follows the
buffer, ``words(text) == words(buf[:p]) + words(text[p:])``, and never fall inside a
special token, even one whose end has not arrived yet.

- A pattern the native scanner runs: the scanner's safe boundaries (proved for every
  continuation: csrc/scan/scan_safe_boundaries.inc), moved out of special tokens.
- A pattern run by ``regex`` (cjk, whitespace, custom): a heuristic, as nothing can be
  proved of any regex. Text from ``len(buf) - hold`` on may still change (a special token
  can start there and end a piece), and the last word before that may be cut short by it:
  the words before those two are kept, and the cut moves back a word at a time until
  ``buf[:p]`` scanned alone ends its words where the whole buffer does (a lookahead such
  as ``\\s+(?!\\S)`` cuts whitespace at the end of a text differently).

Example (GPT-2 preset): ``stream_boundary(Pretokenizer("gpt2"), "one two three", 64)`` -> 7
(before " three").

One text per line (training's ``lines``, as Hugging Face's trainer reads files): a text is
cut after each \\n, and nothing crosses such a cut (:func:`lines_of`).
"""
from __future__ import annotations

from .pretokenize import Pretokenizer

_CHECK_WORDS = 4  # words before a regex cut scanned again on their own
_TAIL = 1024      # characters at a buffer's end searched first for a native cut
_BACK_WORDS = 16  # how far a regex cut may move back before the buffer waits for more


def stream_boundary(pre: Pretokenizer, buf: str, chunk_chars: int) -> int:
    """The last cut p, 0 < p < len(buf), found in about the last ``chunk_chars`` characters
    (the native scanner) or the whole buffer (regex); 0 if there is none."""
    hold = max(0, pre.max_special_len - 1)
    if pre.native is None:
        return _regex_cut(pre, buf, hold)
    hi = len(buf) - 1 - hold
    lo = max(0, hi - chunk_chars)
    if hi <= lo:
        return 0
    # the last cut is nearly always in the last few words: look there first (the scanner
    # reads only text[lo - 2 : hi + 1]), then in the whole window
    cut = pre.native.safe_cut(buf, max(lo, hi - _TAIL), hi)
    if cut < 0 and hi - _TAIL > lo:
        cut = pre.native.safe_cut(buf, lo, hi)
    if cut > 0 and pre.special_tokens:
        cut = outside_specials(buf, cut, lo, list(pre.special_tokens))
    return max(cut, 0)


def _regex_cut(pre: Pretokenizer, buf: str, hold: int) -> int:
    spans = list(pre.spans(buf))
    final = len(buf) - hold  # a special token may start at or after it
    j = next((k for k, s in enumerate(spans) if s[1] > final), len(spans))
    for k in range(j - 2, max(0, j - 2 - _BACK_WORDS), -1):  # spans[j - 1] may end early at `final`: keep it back
        cut = spans[k][0]
        first = max(0, k - _CHECK_WORDS)
        start = spans[first][0]
        alone = [(s + start, e + start, sp) for s, e, sp in pre.spans(buf[start:cut])]
        if alone == spans[first:k]:
            return cut
    return 0


# How far before a cut the rules look (the scanner reads 8 bytes back, see scan.h).
CONTEXT = 8


def outside_specials(buf, p: int, lo: int, specials) -> int:
    """Fix a cut p for special tokens: text is cut at special tokens before any rule
    sees it, so a cut inside one moves to its start (or, once, its end, if the start is
    not after ``lo``), and a cut whose rule looked back into one (a token ending less than
    CONTEXT before p) moves to that token's end, where a new piece starts anyway; until
    no token holds it (all moves but that one go left). Works on str and bytes alike;
    returns -1 if no fix stays after ``lo``.

    Example: ``outside_specials("ab<s>cd", 3, 0, ["<s>"]) -> 2``.
    """
    went_right = False
    while True:
        moved = False
        for s in specials:
            n = len(s)
            i = buf.find(s, max(0, p - n - CONTEXT), p + n - 1)
            while i != -1 and i < p:
                end = i + n
                if i < p < end:                    # inside the token
                    if i <= lo and went_right:
                        return -1
                    went_right |= i <= lo
                    p = i if i > lo else end
                    moved = True
                    break
                if p - CONTEXT < end < p:          # the rule saw the token's last bytes
                    p = end
                    moved = True
                    break
                i = buf.find(s, i + 1, p + n - 1)
        if not moved:
            return p if p > lo else -1


def lines_of(text: str) -> list[str]:
    """The lines of a text as Hugging Face's trainer reads a file: cut after each \\n only
    (not at \\r, U+2028 or the other breaks ``str.splitlines`` knows), each \\n kept.

    Example: ``lines_of("a\\r\\nb\\n\\nc") -> ["a\\r\\n", "b\\n", "\\n", "c"]``
    """
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out
