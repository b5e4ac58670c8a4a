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
from typing import TYPE_CHECKING, Sequence

from .branch_words import char_name, limit_of
from .branches import Branch, BranchMatcher
from .display import visible_controls, visible_ws

if TYPE_CHECKING:
    from .pretokenize import Pretokenizer
    from .tokenizer import Tokenizer

Span = tuple[int, int, int]   # (start, end, branch); branch -1: a special token


@dataclass(frozen=True)
class MergeApplied:
    """One step of a playback: a merge applied everywhere in the word (or a rule)."""

    rank: int | None                 # the merge's rank (0 = learned first); None: a rule
    pair: tuple[bytes, ...]          # (left, right) merged; () for a rule step
    token: bytes                     # the token it makes
    token_id: int
    at: tuple[int, ...]              # where, in the symbols before it, the pair was merged
    symbols: tuple[bytes, ...]       # the symbols after this step
    ids: tuple[int, ...]
    rule: str = ""                   # for a rule step: what the rule did, in words

    def new_positions(self) -> tuple[int, ...]:
        """Where the new tokens are in ``symbols``. Example: at (0, 3) -> (0, 2)."""
        return tuple(p - k for k, p in enumerate(self.at))


@dataclass(frozen=True)
class Playback:
    """One word's symbols at the start, then every step until no learned merge applies."""

    word: str
    symbols: tuple[bytes, ...]       # at the start: bytes, or characters (+ </w>)
    ids: tuple[int, ...]
    steps: tuple[MergeApplied, ...]
    n_merges: int                    # how many merges the tokenizer had

    def symbols_at(self, k: int) -> tuple[bytes, ...]:
        """The symbols after ``k`` steps (0: the start)."""
        return self.steps[k - 1].symbols if k > 0 else self.symbols

    def ids_at(self, k: int) -> tuple[int, ...]:
        return self.steps[k - 1].ids if k > 0 else self.ids

    @property
    def final_symbols(self) -> tuple[bytes, ...]:
        return self.symbols_at(len(self.steps))

    @property
    def final_ids(self) -> tuple[int, ...]:
        return self.ids_at(len(self.steps))


@dataclass(frozen=True)
class ExplainedWord:
    """A word (or special token) of the text, the branch that took it, why it ended
    there, and how its tokens were built."""

    text: str
    start: int                       # character offsets in the text
    end: int
    branch: int                      # index into Explanation.branches; -1: special token
    reason: str                      # why the word ended where it did
    playback: Playback | None        # None for a special token
    special_id: int | None = None

    @property
    def special(self) -> bool:
        return self.branch < 0

    @property
    def ids(self) -> tuple[int, ...]:
        if self.playback is None:
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

    @property
    def ids(self) -> list[int]:
        """The token ids of the whole text (equal to ``Tokenizer.encode``)."""
        return [i for w in self.words for i in w.ids]


# ----- merge playback ----------------------------------------------------------------------
def playback(tok: "Tokenizer", word: str) -> Playback:
    """The merges that turn one word into its tokens, in the order they apply."""
    ids = list(tok._symbols(word))
    vocab = tok.vocab
    start = Playback(word, tuple(vocab[i] for i in ids), tuple(ids), (), tok.n_merges)
    rule = _whole_word_rule(tok, start)
    if rule is not None:
        return Playback(word, start.symbols, start.ids, (rule,), tok.n_merges)
    ranks, limit = tok._ranks, tok.n_merges
    steps: list[MergeApplied] = []
    while len(ids) > 1:
        best, key = None, None
        for pair in zip(ids, ids[1:]):
            got = ranks.get(pair)
            if got is not None and got[0] < limit and (best is None or got[0] < best[0]):
                best, key = got, pair
        if best is None:
            break
        ids, at = _merge_everywhere(ids, key, best[1])
        steps.append(MergeApplied(best[0], (vocab[key[0]], vocab[key[1]]), vocab[best[1]],
                                  best[1], at, tuple(vocab[i] for i in ids), tuple(ids)))
    return Playback(word, start.symbols, start.ids, tuple(steps), tok.n_merges)


def _merge_everywhere(ids: list[int], pair: tuple[int, int], new: int) -> tuple[list[int], tuple[int, ...]]:
    """Replace ``pair`` at every place, left to right, without overlaps.

    Example: [a, a, a], pair (a, a) -> ([aa, a], (0,))
    """
    out, at, i, n = [], [], 0, len(ids)
    a, b = pair
    while i < n:
        if i + 1 < n and ids[i] == a and ids[i + 1] == b:
            out.append(new)
            at.append(i)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out, tuple(at)


def _whole_word_rule(tok: "Tokenizer", start: Playback) -> MergeApplied | None:
    """Hugging Face ``ignore_merges``: a word that is a token is that token, unmerged."""
    if not getattr(tok, "ignore_merges", False) or len(start.ids) < 2:
        return None
    whole = b"".join(start.symbols)
    tid = tok.token_to_id.get(whole)
    if tid is None or tid not in tok.vocab:
        return None
    return MergeApplied(None, (), whole, tid, (0,), (whole,),
                        (tid,), rule="The whole word is a token of the vocabulary, so it "
                        "becomes that one token without any merge (ignore_merges).")


# ----- words and branches ------------------------------------------------------------------
@lru_cache(maxsize=16)
def matcher_for(pattern: str, timeout: float | None = None) -> BranchMatcher:
    return BranchMatcher(pattern, timeout)


def word_spans(pre: "Pretokenizer", matcher: BranchMatcher, text: str, lo: int = 0,
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
    start, or a line start whose first character is not whitespace (no preset word
    reaches from a line break into a non-space)."""
    while i > 0:
        j = text.rfind("\n", 0, i)
        if j < 0:
            return 0
        if j + 1 < len(text) and not text[j + 1].isspace():
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
        if not text[j + 1].isspace():
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


def explain(tok: "Tokenizer", text: str) -> Explanation:
    """Every word of ``text`` with its branch, why it ended, and its merge playback."""
    matcher = matcher_for(tok.pattern, tok.pre.timeout)
    spans = word_spans(tok.pre, matcher, text)
    plays: dict[str, Playback] = {}
    words = []
    for i, span in enumerate(spans):
        s, e, k = span
        w = text[s:e]
        reason = why_it_ends(matcher.branches, text, span,
                             spans[i + 1] if i + 1 < len(spans) else None)
        if k < 0:
            words.append(ExplainedWord(w, s, e, k, reason, None, tok.special_ids[w]))
            continue
        pb = plays.get(w)
        if pb is None:
            pb = plays[w] = playback(tok, w)
        words.append(ExplainedWord(w, s, e, k, reason, pb))
    return Explanation(text, matcher.pattern, tok.pre.preset, tuple(matcher.branches),
                       tuple(words), tok.n_merges)
