"""A stream of UTF-8 text -> the parts a reader counts, with giant stretches cut too.

The block readers (``blocks.BlockReader`` for files and texts, ``range_count`` for a Dask
range) cut their buffer at safe boundaries (``blocks.Boundaries.cut``). A stretch with none -- a
run of spaces, digits, newlines or punctuation, one script without spaces, one giant
word -- used to be carried whole (about 2 bytes of memory per byte). Under the patterns
the native scanner runs, :func:`stream_parts` asks the scanner (``scanner.giant_cuts``,
csrc/scan_giant.inc) instead, once a carried tail passes ``GIANT_TAIL``:

1. *settled*: the words up to the one still in progress are final, whatever follows
   (the scan of each read nothing at or past the buffer's end): they are counted from a
   part whose text goes on past them (``Part.stop``), as the words before it need to see
   what follows them, and only the word in progress is carried;
2. *piece cut*: once that word is giant, the scanner names a cut at one of word_limit's
   64 KiB piece boundaries after which the text starts with the rest of the same word
   (per pattern kind, argued in scan_giant.inc); the pieces before it are counted
   (``Part.word``) and the rest is carried, starting at that cut.

Both are exact: the table equals the whole text's words cut by ``word_limit.pieces``.
Still carried whole (the old behaviour, rare): stretches with special tokens that the
rules do not cover (a special token is a cut of its own, below), a giant CR/LF tail of
punctuation (cl100k ``[\\r\\n]*``, o200k ``[\\r\\n/]*``: the text from inside it starts a
whitespace word), o200k letters mixed with marks, or lower-case letters mixed with upper
ones past a run of "both" letters; and every pattern the `regex` module runs.
"""
from __future__ import annotations

from typing import Iterable, Iterator, NamedTuple, cast

from .word_limit import MAX_WORD_BYTES

from ..text.scanner import giant_cuts

GIANT_TAIL = 8 << 20   # a carried tail past this asks the scanner (then at each doubling)


class Part(NamedTuple):
    """One unit for a counter: ``data`` from stream offset ``offset``.

    ``stop >= 0``: count only the words that start before byte ``stop`` (the rest of
    ``data`` is the text that follows them); ``word``: ``data`` is a run of whole pieces
    of one word (count ``word_limit.pieces(data)``); ``last``: the end of the stream.
    """

    data: bytes
    offset: int
    stop: int = -1
    word: bool = False
    last: bool = False

    @property
    def counted(self) -> int:
        """Bytes of the stream this part counts."""
        return self.stop if self.stop >= 0 else len(self.data)


def giant_parts(bounds, buf: bytearray) -> tuple[int, list[Part]]:
    """(bytes used, parts) for a buffer with no safe boundary (``buf[0]`` starts a word, or is
    a piece cut); (0, []) if the rules find nothing. ``bounds`` is a ``blocks.Boundaries``.

    Special tokens: text is cut at them before the scanner sees it, so the end of one
    that the counter matches is a cut (the last one starting before n, below). Then the
    scanner is asked about buf[:n], n = len(buf) - longest + 1: no special token can start
    before n, so the text the scanner sees goes on at least to n.
    """
    if bounds.native is None or not bounds.giant:
        return 0, []
    n = len(buf)
    if bounds.specials:
        n = n - bounds.margin + 1
        end = _last_special_end(buf, bounds.specials, n)
        if end > 0:
            return end, [Part(bytes(buf[:end]), 0)]
        if n <= 0:
            return 0, []
    found = giant_cuts(bounds.native, buf, n, MAX_WORD_BYTES)
    if found is None:
        return 0, []
    settled, reach, cut = found
    parts = []
    if settled > 0:
        with memoryview(buf) as view:
            parts.append(Part(view[:reach].tobytes(), 0, settled))
    if cut > settled:
        with memoryview(buf) as view:
            parts.append(Part(view[settled:cut].tobytes(), settled, word=True))
        return cut, parts
    return settled, parts


def _last_special_end(buf: bytearray, specials: list[bytes], n: int) -> int:
    """The end of the last special token that starts before n, as the counter matches
    them (wordtable.c: from the start, the leftmost, the longest at one start, then on
    from its end); -1 if none. All of them lie in buf, as n + longest - 1 <= len(buf)."""
    nxt = {s: buf.find(s) for s in specials}
    pos = end = -1
    while True:
        for s, i in nxt.items():
            if 0 <= i < pos:
                nxt[s] = buf.find(s, pos)
        live = [(i, -len(s)) for s, i in nxt.items() if i >= 0]
        if not live:
            return end
        at, minus_len = min(live)
        if at >= n:
            return end
        pos = end = at - minus_len


def stream_parts(chunks: Iterable[bytes], bounds) -> Iterator[Part]:
    """The parts of a stream of UTF-8 chunks, in order: blocks cut at safe boundaries
    (``bounds.cut``), giant stretches as above; the last part (``last``, possibly empty)
    at the end of the stream. Memory: the longest stretch the rules cannot cut, plus a
    block."""
    buf = bytearray()
    offset = 0          # of buf[0] in the stream
    searched = 0        # buf[:searched] has no cut
    giant_at = GIANT_TAIL
    for chunk in chunks:
        if not chunk:
            continue
        buf += chunk
        p = bounds.last(buf, max(0, searched - 1), len(buf) - bounds.margin)
        if p > 0 and bounds.native is not None:
            # the buffer itself, counted up to p, and a new one for the text after p (a
            # few bytes): no copy of the block. A safe cut ends every word that starts
            # before it, so the words starting before p are buf[:p]'s own.
            block = buf
            with memoryview(block) as view:
                buf = bytearray(view[p:])
            # (a bytearray read as bytes: the counters take any buffer, and none writes it)
            yield Part(cast(bytes, block), offset, p)
            offset += p
            searched, giant_at = 0, GIANT_TAIL
            continue
        if p > 0:
            with memoryview(buf) as view:
                data = view[:p].tobytes()
            del buf[:p]
            yield Part(data, offset)
            offset += p
            searched, giant_at = 0, GIANT_TAIL
            continue
        searched = max(0, len(buf) - bounds.margin)
        while len(buf) > giant_at:
            used, parts = giant_parts(bounds, buf)
            if used <= 0:
                giant_at = 2 * len(buf)   # asked again only at each doubling: linear in all
                break
            for part in parts:   # (offsets in buf -> in the stream)
                yield Part(part.data, offset + part.offset, part.stop, part.word)
            del buf[:used]
            offset += used
            searched, giant_at = 0, GIANT_TAIL
    yield Part(bytes(buf), offset, last=True)


__all__ = ["GIANT_TAIL", "Part", "stream_parts", "giant_parts"]
