"""Encoding step by step: which branch of the pattern cut each word, and which merges
built its tokens.

Encoding runs in two stages, and :func:`explain` records both: the pre-tokenizer pattern
cuts the text into words (each taken by one top-level alternative, a "branch"), then
inside each word the learned merges apply, lowest rank first, each pair at every place
it occurs, left to right, until no learned merge applies. The merge playback here is
computed in plain Python, independently of the tokenizer's own (C) merge loop, and its
final symbols are the word's tokens.

Worked example (byte level, four merges)::

    >>> from bpe_gui.engine import Tokenizer
    >>> merges = [(b"l", b"o"), (b"lo", b"w"), (b"e", b"s"), (b"es", b"t")]
    >>> vocab = {i: bytes([i]) for i in range(256)}
    >>> vocab.update({256 + k: a + b for k, (a, b) in enumerate(merges)})
    >>> ex = Tokenizer(vocab, merges).explain("lowest!")
    >>> [(w.text, ex.branches[w.branch].name) for w in ex.words]
    [('lowest', 'letters'), ('!', 'punctuation')]
    >>> ex.words[0].reason
    'It ends before the punctuation “!”, which rule 2 · letters does not take; the next word, “!”, is rule 4 · punctuation.'
    >>> pb = ex.words[0].playback
    >>> pb.symbols                                   # the bytes at the start
    (b'l', b'o', b'w', b'e', b's', b't')
    >>> for step in pb.steps:
    ...     print(step.rank, step.pair, step.symbols)
    0 (b'l', b'o') (b'lo', b'w', b'e', b's', b't')
    1 (b'lo', b'w') (b'low', b'e', b's', b't')
    2 (b'e', b's') (b'low', b'es', b't')
    3 (b'es', b't') (b'low', b'est')
    >>> ex.ids                                       # what encode gives
    [257, 259, 33]

An imported tokenizer with Hugging Face's ``ignore_merges`` turns a word that is itself
in the vocabulary into one token before any merge; the playback shows that rule as its
only step (``rank`` None, ``rule`` saying why).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Protocol, Sequence

from ..text.branch_words import char_name, limit_of
from ..text.branches import Branch, BranchMatcher
from ..display import visible_controls, visible_ws
from ..text.presets import line_break_ends_words
from .model import MergeApplied, Piece, Playback, Word, WordModel
from ..text.pretokenize import Pretokenizer


class Explainable(Protocol):
    """What explaining asks of a tokenizer (every BaseTokenizer has it): a protocol, so
    that base.py can offer ``explain`` without this module importing it back."""

    @property
    def pattern(self) -> str: ...

    @property
    def pre(self) -> Pretokenizer: ...

    @property
    def model(self) -> WordModel: ...

    @property
    def n_merges(self) -> int: ...

    def playback(self, word: str) -> Playback: ...

    def split(self, text: str) -> Iterable[Piece]: ...


__all__ = ["PLAYBACK_MAX", "Explanation", "ExplainedWord", "MergeApplied", "Playback", "explain",
           "playback"]

Span = tuple[int, int, int]   # (start, end, branch); branch -1: a special token
# Longer words get their ids and no merge playback: the replay is Python and slows with the
# square of the length (1,000 characters: 0.2-0.5 s; a text a pre-tokenizer keeps as one
# piece, 41,000 characters: over a minute). The window's playback dock keeps the same limit.
PLAYBACK_MAX = 1000
# The branch of a piece that a tokenizer.json pre-tokenizer or normalizer cut, not the
# pattern alone (its ``source`` is empty: no regex describes it)
PIECE = Branch(0, "", "pre-tokenizer piece", "a piece as the tokenizer.json pre-tokenizer "
               "(and normalizer) give it to the model; the pattern alone does not cut it so")
PIECE_REASON = ("The tokenizer.json pre-tokenizer (or its normalizer) made this piece; "
                "its steps are not one pattern, so no rule of the pattern is named.")


@dataclass(frozen=True)
class ExplainedWord:
    """A word (or special token) of the text, the branch that took it, why it ended
    there, and how its tokens were built."""

    text: str
    start: int                       # character offsets in the text
    end: int
    branch: int                      # index into Explanation.branches; -1: special token
    reason: str                      # why the word ended where it did
    playback: Playback | None        # None for a special token, or a word too long to play
    special_id: int | None = None
    # a word longer than PLAYBACK_MAX characters: its ids, not played back (None otherwise)
    token_ids: tuple[int, ...] | None = None

    @property
    def special(self) -> bool:
        return self.branch < 0

    @property
    def ids(self) -> tuple[int, ...]:
        if self.playback is None:
            if self.token_ids is not None:
                return self.token_ids
            return () if self.special_id is None else (self.special_id,)
        return self.playback.final_ids


@dataclass(frozen=True)
class Explanation:
    text: str
    pattern: str
    preset: str | None
    branches: tuple[Branch, ...]
    words: tuple[ExplainedWord, ...]
    n_merges: int
    # what cut the words when no pattern alone does (an imported pre-tokenizer's pieces:
    # "The Whitespace pre-tokenizer's pieces: 3 kinds"), else ""
    title: str = ""

    @property
    def ids(self) -> list[int]:
        """The token ids of the whole text (equal to ``Tokenizer.encode``)."""
        return [i for w in self.words for i in w.ids]


# ----- merge playback ----------------------------------------------------------------------
def playback(tok: Explainable, word: str) -> Playback:
    """The merges that turn one word into its tokens, in the order they apply (the
    tokenizer's model replays them: see engine/model.py)."""
    return tok.playback(word)


# ----- words and branches ------------------------------------------------------------------
@lru_cache(maxsize=16)
def matcher_for(pattern: str, timeout: float | None = None) -> BranchMatcher:
    return BranchMatcher(pattern, timeout)


def word_spans(pre: Pretokenizer, matcher: BranchMatcher, text: str, lo: int = 0,
               hi: int | None = None) -> list[Span]:
    """Words and special tokens that start in ``lo..hi-1``, as ``(start, end, branch)``.

    ``lo`` must be where a word starts (0, or see :func:`safe_start`). Special tokens are
    cut out first, as the tokenizer does, and each run of text between them is searched
    on its own, so a look-ahead at its end sees the end of the text.
    """
    hi = len(text) if hi is None else hi
    out: list[Span] = []
    for piece in pre.pieces(text):
        end = piece.start + len(piece.text)
        if end <= lo:
            continue
        if piece.start >= hi:
            break
        if piece.special:
            out.append((piece.start, end, -1))
            continue
        base = piece.start
        out += [(s + base, e + base, k)
                for s, e, k in matcher.words(piece.text, max(0, lo - base), hi - base)]
    return out


def safe_start(text: str, i: int) -> int:
    """A position at or before ``i`` where every preset pattern starts a word: the text's
    start, or a line start after a break that ends every word
    (``presets.line_break_ends_words``)."""
    while i > 0:
        j = text.rfind("\n", 0, i)
        if j < 0:
            return 0
        if line_break_ends_words(text, j):
            return j + 1
        i = j
    return 0


def safe_end(text: str, i: int) -> int:
    """A position at or after ``i`` where every preset word has ended (see safe_start)."""
    n = len(text)
    while i < n:
        j = text.find("\n", i)
        if j < 0 or j + 1 >= n:
            return n
        if line_break_ends_words(text, j):
            return j + 1
        i = j + 1
    return n


def show(text: str, limit: int = 24) -> str:
    """A word as people read it in a sentence: visible whitespace, cut when long."""
    s = visible_ws(visible_controls(text))
    return s if len(s) <= limit else s[:limit - 1] + "…"


def why_it_ends(branches: Sequence[Branch], text: str, word: Span,
                nxt: Span | None) -> str:
    """Why a word ended where it did, from the next word and the character after it."""
    s, e, k = word
    if k < 0:
        return "A special token: cut out of the text before the pattern runs, never split or merged."
    b = branches[k]
    if e >= len(text):
        return "It ends where the text ends."
    if nxt is None or nxt[0] > e:
        gap = text[e:nxt[0]] if nxt is not None else text[e:]
        return (f"It ends before “{show(gap)}”, which no rule of the pattern matches: "
                "those characters are left out of every word.")
    ns, ne, nk = nxt
    nword = show(text[ns:ne])
    if nk < 0:
        return (f"It ends at the special token “{nword}”, which is cut out of the text "
                "before the pattern runs.")
    nb, c = branches[nk], text[e]
    if b.source.endswith("(?!\\S)") and c.isspace() and not text[ns:ne].isspace():
        return (f"Whitespace stops before its last character when a word follows: "
                f"{char_name(c)} leads the next word, “{nword}” ({nb.label}).")
    if nk == k:
        limit = limit_of(b.source)
        if limit:
            return f"{limit[0].upper()}{limit[1:]}; the next word, “{nword}”, is the same rule again."
        return (f"It ends before {char_name(c)}, where {b.label} cannot go on; the next "
                f"word, “{nword}”, starts the same rule again.")
    return (f"It ends before {char_name(c)}, which {b.label} does not take; the next "
            f"word, “{nword}”, is {nb.label}.")


def explain(tok: Explainable, text: str) -> Explanation:
    """Every word of ``text`` with its branch, why it ended, and its merge playback.

    The words are the pieces the tokenizer gives its model (``tok.split``); each takes
    its branch from the pattern's word with the same span. A piece the pattern alone
    does not cut (a tokenizer.json pre-tokenizer step, a normalizer) gets the extra
    branch :data:`PIECE`.
    """
    matcher = tok.pre.matcher or matcher_for(tok.pattern, tok.pre.timeout)
    spans = word_spans(tok.pre, matcher, text)
    where = {(s, e): n for n, (s, e, _) in enumerate(spans)}
    branches = list(matcher.branches)
    plays: dict[Word, Playback] = {}
    words = []
    for piece in tok.split(text):
        s, e = piece.start, piece.end
        w = text[s:e]
        n = where.get((s, e))
        if n is not None:
            k = spans[n][2]
            reason = why_it_ends(branches, text, spans[n],
                                 spans[n + 1] if n + 1 < len(spans) else None)
        elif piece.special_id is not None:
            k, reason = -1, ("An added token: cut out of the text before the "
                             "pre-tokenizer runs, never split or merged.")
        else:
            if not branches or branches[-1].name != PIECE.name:
                branches.append(Branch(len(branches), PIECE.source, PIECE.name, PIECE.about))
            k, reason = len(branches) - 1, PIECE_REASON
        if piece.special_id is not None:
            words.append(ExplainedWord(w, s, e, -1, reason, None, piece.special_id))
            continue
        if len(piece.text) > PLAYBACK_MAX:
            words.append(ExplainedWord(w, s, e, k, reason, None,
                                       token_ids=tuple(tok.model.merge(piece.text))))
            continue
        pb = plays.get(piece.text)
        if pb is None:
            pb = plays[piece.text] = tok.model.playback(piece.text, w)
        elif pb.word != w:
            pb = Playback(w, pb.symbols, pb.ids, pb.steps, pb.n_merges)
        words.append(ExplainedWord(w, s, e, k, reason, pb))
    return Explanation(text, matcher.pattern, tok.pre.preset, tuple(branches),
                       tuple(words), tok.n_merges, getattr(matcher, "title", ""))
