"""The words of a tokenizer whose pre-tokenizer is not one regex's matches over the text
as typed, as the window's words view and ``explain`` read them (the same methods as
:class:`~.branches.BranchMatcher`): a tokenizer.json's pieces (:class:`PieceWords`: its
Whitespace, Digits, Metaspace ... steps), and a Split pattern over the text a Unicode
normal form made (:class:`NormalizedWords`: Qwen2's NFC). The pieces come from the
tokenizer's own runtime (``tokenizers.pipeline``), passed in; this module reads text only.
"""
from __future__ import annotations

import unicodedata
from typing import Callable, Sequence

from ..errors import BPEError
from .branches import Branch, BranchMatcher


WHOLE = r"(?s).+"


class PieceWords:
    """The words of an imported tokenizer whose pre-tokenizer is not one regex's matches
    (a tokenizer.json's Whitespace, WhitespaceSplit, Digits, Punctuation, Metaspace, a
    Split that removes or merges its matches, a Sequence): the pieces the pipeline
    itself makes, at the spans of the text they come from. Same methods as
    :class:`~bpe_gui.engine.text.branches.BranchMatcher`, so the window's words view
    and ``explain`` read them like a pattern's words. Rule names come from the file's
    Split regex or the lone step's kind of piece (``rules``), a piece no rule takes
    whole is "pre-tokenizer piece"."""

    WINDOW = 4096   # characters read past ``stop``: a piece longer than this is cut there

    def __init__(self, pipeline, pattern: str, rules: str | None, kinds: Sequence[str],
                 timeout: float | None):
        self.pipeline = pipeline
        self.pattern, self.preset, self.timeout = pattern, None, timeout
        self._rules: BranchMatcher | None = None
        source = rules or (pattern if pattern != WHOLE else None)
        if source is not None:
            try:
                self._rules = BranchMatcher(source, timeout)
            except BPEError:
                self._rules = None
        steps = " + ".join(kinds) or "pre-tokenizer"
        piece = Branch(0, "", f"{steps} piece",
                       f"a piece as the tokenizer.json pre-tokenizer ({steps}) cuts the text")
        known = list(self._rules.branches) if self._rules is not None else []
        self.branches = known + [Branch(len(known), piece.source, piece.name, piece.about)]
        n = len(self.branches)
        self.title = f"The {steps} pre-tokenizer's pieces: {n} kind{'s' if n != 1 else ''}"

    def branch_at(self, text: str, start: int) -> int:
        got = self.words(text, start, start + 1)
        return got[0][2] if got and got[0][0] == start else len(self.branches) - 1

    def _branch(self, word: str) -> int:
        if self._rules is not None:
            found = self._rules.words(word)
            if len(found) == 1 and found[0][:2] == (0, len(word)):
                return found[0][2]
        return len(self.branches) - 1

    def words(self, text: str, pos: int = 0, stop: int | None = None) -> list[tuple[int, int, int]]:
        """``(start, end, branch)`` of the pieces of ``text`` (a text without special
        tokens) that start in ``pos..stop-1``; ``pos`` must be where a piece starts.
        A piece's span takes the marks a normalizer folded into its last letter
        (:func:`with_marks`)."""
        stop = len(text) if stop is None else stop
        end = len(text) if stop >= len(text) else min(len(text), stop + self.WINDOW)
        spans: list[tuple[int, int]] = []
        last = pos
        for piece, _tid in self.pipeline.pieces(text[pos:end], pos):
            s, e = piece.span(0, len(piece.text))
            s = max(s, last)        # a normalizer's inserted characters: no overlaps
            if e <= s:
                continue
            if s >= stop:
                break
            spans.append((s, e))
            last = e
        norm = getattr(self.pipeline, "normalize", None)
        out: list[tuple[int, int, int]] = []
        for s, e in with_marks(text, spans, end):
            # (a rule read off the text the pre-tokenizer got)
            word = text[s:e] if norm is None or self._rules is None else norm.text(text[s:e])
            out.append((s, e, self._branch(word)))
        return out


class NormalizedWords(BranchMatcher):
    """The words of an imported tokenizer whose Split pattern tiles the text a Unicode
    normal form made (Qwen2's NFC): the pattern's words of the normalized text, at the
    spans of the text as typed. "cafe" + U+0301 + "s" is one word, "cafés", where the
    pattern over the typed text ends a word before the mark; the word clicked is then the
    text that makes the piece, and its playback the tokenizer's. A text already in the
    form (the usual one) is read as :class:`BranchMatcher` reads it."""

    WINDOW = PieceWords.WINDOW

    def __init__(self, pattern: str, timeout: float | None,
                 alignment: Callable[[str], tuple[str, Sequence[int], Sequence[int]] | None]):
        super().__init__(pattern, timeout)
        self._alignment = alignment

    def words(self, text: str, pos: int = 0, stop: int | None = None) -> list[tuple[int, int, int]]:
        stop = len(text) if stop is None else stop
        end = len(text) if stop >= len(text) else min(len(text), stop + self.WINDOW)
        made = self._alignment(text[pos:end])
        if made is None:   # (in the form already)
            return super().words(text, pos, stop)
        normal, starts, ends = made
        found = super().words(normal)
        spans = with_marks(text, [(pos + starts[s], pos + ends[e - 1]) for s, e, _k in found], end)
        return [(s, e, k) for (s, e), (_s, _e, k) in zip(spans, found) if s < stop]


def with_marks(text: str, spans: Sequence[tuple[int, int]], end: int) -> list[tuple[int, int]]:
    """Each span taking the combining marks after it, up to the next span (or ``end``):
    the marks a normalizer folded into the span's last letter (NFC's "é" of "e" + U+0301
    spans the "e" alone, as tokenizers' offsets do)."""
    out = []
    for i, (s, e) in enumerate(spans):
        nxt = spans[i + 1][0] if i + 1 < len(spans) else end
        while e < nxt and unicodedata.combining(text[e]):
            e += 1
        out.append((s, e))
    return out
