"""The longest word training takes whole: longer ones are cut into pieces.

A "word" (pre-token) of megabytes -- a file of one repeated letter, a base64 blob, a
minified line under the whitespace preset -- is no word of any language, and the trainer
keeps every symbol of every unique word (about 30 bytes each): one 20 MB run of ``a``
took 8.5 GB to train. So, as other trainers bound what they take whole (SentencePiece
skips sentences over ``max_sentence_length``), a word longer than ``MAX_WORD_BYTES`` is
counted as pieces of at most that many bytes, cut from its start at character
boundaries; identical pieces are one word with their counts summed. Repeated text then
costs as much as one piece; text that never repeats still costs its size. The rule
applies to the table (count here, on Dask, train from files or text alike), so tables
and training stay equal whichever way the corpus was counted.
"""
from __future__ import annotations

from array import array
from itertools import islice
from operator import sub

from .table import PretokenTable

try:
    from . import _count
except ImportError:  # pragma: no cover - the C extension is optional
    _count = None  # type: ignore[assignment]  # optional C extension: None where it was not built

MAX_WORD_BYTES = 1 << 16   # 64 KiB: far beyond any word of a language


def pieces(word: bytes, limit: int = MAX_WORD_BYTES) -> list[bytes]:
    """``word`` cut every ``limit`` bytes, backing off to a UTF-8 character start.

    Example: pieces(b"abcde", 2) -> [b"ab", b"cd", b"e"]; a 3-byte character is never split.
    """
    out, i, n = [], 0, len(word)
    while n - i > limit:
        j = i + limit
        while j > i + 1 and 0x80 <= word[j] < 0xC0:   # a continuation byte: back off
            j -= 1
        out.append(word[i:j])
        i = j
    out.append(word[i:])
    return out


def count_pieces(counter, data: bytes, block: int, ordinal: int = 0) -> tuple[int, int]:
    """Count ``data``, whole pieces of one word that goes on after them, as word_limit
    cuts it; returns (the next ordinal, the cuts made: one after each piece)."""
    words = [p.decode("utf-8") for p in pieces(data)]
    counter.add_size(sum(map(len, words)), len(data))
    return counter.count_words(words, block, ordinal), len(words)


def has_long_words(table: "PretokenTable", limit: int = MAX_WORD_BYTES) -> bool:
    if len(table.blob) <= limit:
        return False
    return longest_word(table.starts) > limit


def longest_word(starts: array) -> int:
    """The longest word of a table's ``starts`` (int64), in bytes (0: no word)."""
    if _count is not None:   # (every training run asks, between counting and merging)
        return _count.longest_gap(starts)
    return max(map(sub, islice(starts, 1, None), starts), default=0)


def split_long_words(table: "PretokenTable", limit: int = MAX_WORD_BYTES) -> "PretokenTable":
    """``table`` with every word over ``limit`` bytes replaced by its pieces, in order of
    first appearance (a piece seen before keeps its place), the cuts made added to its
    ``cuts``; the table itself if none is."""
    if not has_long_words(table, limit):
        return table
    blob, starts, counts = table.blob, table.starts, table.counts
    summed: dict[bytes, int] = {}
    cuts = 0
    for i in range(len(counts)):
        word, c = blob[starts[i]:starts[i + 1]], counts[i]
        parts = pieces(word, limit) if len(word) > limit else (word,)
        cuts += (len(parts) - 1) * c
        for p in parts:
            summed[p] = summed.get(p, 0) + c
    new_starts = array("q", [0])
    pos = 0
    for w in summed:
        pos += len(w)
        new_starts.append(pos)
    out = type(table)(b"".join(summed), new_starts, array("q", summed.values()),
                        table.n_chars, table.n_bytes)
    out.meta = table.meta
    out.cuts = table.cuts + cuts
    return out
