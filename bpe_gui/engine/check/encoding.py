"""Check a learner's encoder: the ids it produced for a text against the tokenizer's.

The tokenizer is the learner's own vocabulary and merges, encoded by the rule (split
at special tokens, cut words with the pattern, in each word merge the lowest-rank pair
first). :func:`check_ids` finds the first token where the two part, the word (pre-token)
it lies in, plays that word back merge by merge, and names the rule the learner's
encoder broke by encoding again the ways encoders usually go wrong:

=============  ====================================================================
cause          tried by
=============  ====================================================================
special        special tokens not split out (encoded as text)
across-special a token that spans a special token and the text beside it
pattern        the other patterns, and no pre-tokenization at all
order          in the word: the highest rank first, the leftmost mergeable pair
               first, a run merged from the right, the longest token first
=============  ====================================================================

Example::

    >>> r = check_ids(result, "the lowest", their_ids)
    >>> r.cause, r.word.text
    ('order', ' lowest')
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

from .. import Tokenizer
from ..display import readable
from ..errors import FormatError
from ..tokenizers.model import Playback, char_of_byte, char_spans
from .causes import PATTERNS, pattern_label
from .result import LearnerResult
from .variants import merge_word

Pair = tuple[bytes, bytes]
NO_PATTERN = r"[\s\S]+"
ENCODE_CAUSES: dict[str, str] = {
    "unknown-id": "an id that is not in the vocabulary",
    "text": "ids that decode to another text",
    "special": "a special token encoded as text",
    "across-special": "a token across a special token",
    "pattern": "words cut by another pattern (or none)",
    "order": "merges applied out of rank order",
    "unknown": "none of the usual rules",
}


class Token(NamedTuple):
    """A token of an encoding: its id and bytes, the characters it covers, and whether
    it is a special token."""

    id: int
    token: bytes
    start: int
    end: int
    special: bool = False


@dataclass(frozen=True)
class Step:
    """One merge in a word: its rank (None: not a merge, e.g. a longest-match cut),
    the pair, and the symbols after it."""

    rank: int | None
    pair: Pair | None
    symbols: tuple[bytes, ...]


@dataclass(frozen=True)
class WordDifference:
    """The first word whose tokens differ: its character span and text, both sides'
    tokens (bytes, ids), the tokenizer's playback of it and, when a wrong rule
    reproduces the learner's tokens, that rule's steps (``their_steps``)."""

    start: int
    end: int
    text: str
    theirs: tuple[bytes, ...]
    their_ids: tuple[int, ...]
    ours: tuple[bytes, ...]
    our_ids: tuple[int, ...]
    playback: Playback | None
    their_steps: tuple[Step, ...] = ()
    their_rule: str = ""


@dataclass(frozen=True)
class EncodeReport:
    """``check_ids``'s answer. ``first`` the index of the first token that differs
    (None: they agree); ``marks`` the character spans of every word whose tokens
    differ; ``ours``/``theirs`` each side's tokens (:class:`Token`)."""

    agree: bool
    n_theirs: int
    n_ours: int
    first: int | None
    cause: str
    sentence: str
    word: WordDifference | None
    marks: tuple[tuple[int, int], ...]
    ours: tuple[Token, ...]
    theirs: tuple[Token, ...]

    @property
    def cause_name(self) -> str:
        return ENCODE_CAUSES.get(self.cause, self.cause)


def read_ids(source: str | Path) -> list[int]:
    """Ids from a file (a Path) or a text: a JSON list, or numbers separated by spaces,
    commas or new lines. Example: "[1, 2,3]\\n4" -> [1, 2, 3, 4]."""
    if isinstance(source, Path):
        try:
            text = source.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise FormatError(source, f"cannot be read as text ({e}).") from None
        where: str | Path | None = source
    else:
        text, where = source, None
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
            if isinstance(data, list) and all(isinstance(i, int) and not isinstance(i, bool)
                                              for i in data):
                return data
        except json.JSONDecodeError:
            pass
    bad = re.search(r"[^\d\s,\[\]]", stripped)
    if bad:
        raise FormatError(where, f"holds {bad.group()!r} at character {bad.start()}; give the "
                          "ids as numbers separated by spaces or commas (or a JSON list).")
    return [int(x) for x in re.findall(r"\d+", stripped)]


def check_ids(result: LearnerResult | Tokenizer, text: str, ids: Sequence[int], *,
              pattern: str | None = None,
              special_tokens: Sequence[str] | None = None) -> EncodeReport:
    """The learner's ``ids`` for ``text`` against the tokenizer of ``result`` (its
    vocabulary and merges, encoded by the rule; or a given Tokenizer)."""
    tok = result if isinstance(result, Tokenizer) else result.tokenizer(pattern, special_tokens)
    ids = list(ids)
    enc = tok.encode_with_offsets(text, allowed_special="all", add_special_tokens=False)
    ours = list(enc.ids)
    data = text.encode("utf-8", "surrogatepass")
    charpos = (char_of_byte(text) or list(range(len(text)))) + [len(text)]
    our_spans = _spans(tok, ours, text)
    unknown = [i for i in ids if i not in tok.vocab]
    if unknown:
        k = ids.index(unknown[0])
        return _plain(ids, ours, k, "unknown-id", f"Your id {unknown[0]} (token {k + 1}) is not in "
                      f"the vocabulary (ids go up to {max(tok.vocab):,}).", our_spans, ())
    decoded = b"".join(tok.vocab[i] for i in ids)
    if decoded != data:
        at = next((i for i, (x, y) in enumerate(zip(decoded, data)) if x != y),
                  min(len(decoded), len(data)))
        c = charpos[min(at, len(data))] if data else 0
        return _plain(ids, ours, None, "text", f"Your ids decode to another text: from byte "
                      f"{at:,} (character {c:,}) the text has “{readable(data[at:at + 12])}” and "
                      f"your tokens “{readable(decoded[at:at + 12])}”.", our_spans, ())
    their_spans = _spans(tok, ids, text)
    marks = _marks(tok, text, charpos, ours, ids)
    if ids == ours:
        return EncodeReport(True, len(ids), len(ours), None, "", f"All {len(ids):,} tokens "
                            "agree with the tokenizer's.", None, (), tuple(our_spans),
                            tuple(their_spans))
    first = next(i for i, (a, b) in enumerate(zip(ids, ours)) if a != b)
    cause, sentence, word = _diagnose(tok, text, ids, ours, first, charpos)
    return EncodeReport(False, len(ids), len(ours), first, cause, sentence, word, tuple(marks),
                        tuple(our_spans), tuple(their_spans))


def _plain(ids, ours, first, cause, sentence, our_spans, their_spans) -> EncodeReport:
    return EncodeReport(False, len(ids), len(ours), first, cause, sentence, None, (),
                        tuple(our_spans), tuple(their_spans))


def _byte_bounds(tok: Tokenizer, ids: Sequence[int]) -> list[int]:
    """Byte offsets where each token starts, and the end."""
    out, pos = [0], 0
    for i in ids:
        pos += len(tok.vocab[i])
        out.append(pos)
    return out


def _spans(tok, ids, text: str) -> list[Token]:
    b = _byte_bounds(tok, ids)
    specials = set(tok.special_ids.values())
    return [Token(i, tok.vocab[i], s, e, i in specials)
            for i, (s, e) in zip(ids, char_spans(text, b[:-1], b[1:]))]


def _word_bytes(tok: Tokenizer, text: str) -> list[tuple[int, int, bool]]:
    """(start byte, end byte, special) of every word and special token."""
    offsets = [0]
    for ch in text:
        offsets.append(offsets[-1] + len(ch.encode("utf-8", "surrogatepass")))
    return [(offsets[s], offsets[e], sp) for s, e, sp in tok.pre.spans(text)]


def _marks(tok, text, charpos, ours, theirs) -> list[tuple[int, int]]:
    """Character spans of the words whose token boundaries differ."""
    cuts_ours, cuts_theirs = set(_byte_bounds(tok, ours)), set(_byte_bounds(tok, theirs))
    out = []
    for s, e, _ in _word_bytes(tok, text):
        inside = range(s, e + 1)
        if {c for c in cuts_ours if c in inside} != {c for c in cuts_theirs if c in inside}:
            out.append((charpos[s], charpos[e]))
    return out


# ----- the diagnosis ------------------------------------------------------------------------
def _diagnose(tok: Tokenizer, text: str, theirs: list[int], ours: list[int], first: int,
              charpos: list[int]) -> tuple[str, str, WordDifference]:
    tb, ob = _byte_bounds(tok, theirs), _byte_bounds(tok, ours)
    at = ob[first]
    words = _word_bytes(tok, text)
    ws, we, special = next(((s, e, sp) for s, e, sp in words if s <= at < e), (at, at + 1, False))
    t_idx = [k for k in range(len(theirs)) if tb[k] < we and tb[k + 1] > ws]
    o_idx = [k for k in range(len(ours)) if ob[k] < we and ob[k + 1] > ws]
    wtext = text[charpos[ws]:charpos[we]]
    word = WordDifference(charpos[ws], charpos[we], wtext,
                          tuple(tok.vocab[theirs[k]] for k in t_idx),
                          tuple(theirs[k] for k in t_idx),
                          tuple(tok.vocab[ours[k]] for k in o_idx),
                          tuple(ours[k] for k in o_idx),
                          None if special else tok.playback(wtext))
    shown = "“" + readable(wtext.encode("utf-8", "surrogatepass")) + "”"
    toks = " ".join(f"“{readable(t)}”" for t in word.theirs)
    if special:
        if _same(_variant(tok, specials=False), text, theirs):
            return "special", (f"Your encoder encodes the special token {shown} as text "
                               f"({toks}): split the text at special tokens first and give "
                               f"each its own id ({word.our_ids[0]})."), word
        return "across-special", (f"Your tokens over the special token {shown} are {toks}, "
                                   f"not its id {word.our_ids[0]}: no token may join a "
                                   "special token with the text beside it."), word
    crosses = tb[t_idx[0]] < ws or tb[t_idx[-1] + 1] > we
    for pat, label in [*PATTERNS, (NO_PATTERN, "no pre-tokenization")]:
        if pat != tok.pattern and _same(_variant(tok, pattern=pat), text, theirs):
            how = ("does not cut the text into words" if pat == NO_PATTERN else
                   f"cuts words with {label}")
            where = (f"a token of yours ({toks}) spans the end of the word {shown}" if crosses
                     else f"in {shown} your tokens are {toks}")
            return "pattern", (f"Your encoder {how}, not {pattern_label(tok.pattern)}: {where}; "
                               "encoded that way all your ids come out the same."), word
    if crosses:
        return "pattern", (f"A token of yours ({toks}) spans the end of the word {shown}: merges "
                           f"never cross the words {pattern_label(tok.pattern)} cuts, so "
                           "encode each word on its own."), word
    return _order(tok, word, shown, toks)


def _order(tok: Tokenizer, word: WordDifference, shown: str, toks: str
           ) -> tuple[str, str, WordDifference]:
    ranks: dict[Pair, int] = {}
    for r, m in enumerate(tok.merges):
        ranks.setdefault((m[0], m[1]), r)
    start = [bytes([b]) for b in word.text.encode("utf-8", "surrogatepass")]
    known = set(tok.vocab.values())
    for rule, describe, play in ORDER_RULES:
        steps = play(start, ranks, known)
        final = steps[-1].symbols if steps else tuple(start)
        if final != word.theirs:
            continue
        ours_steps = word.playback.steps if word.playback is not None else ()
        k = next((i for i, (a, b) in enumerate(zip(steps, ours_steps)) if a.pair != b.pair), 0)
        parted = ""
        if k < len(steps) and k < len(ours_steps) and steps[k].pair is not None:
            a, b = steps[k], ours_steps[k]
            parted = (f" it merges “{_pair(a.pair)}” (rank {a.rank}) where the rule merges "
                      f"“{_pair(b.pair)}” (rank {b.rank}) first;")
        sentence = (f"In {shown} your encoder {describe}:{parted} merges must be applied "
                    "lowest rank first, each everywhere in the word before the next.")
        return "order", sentence, replace(word, their_steps=tuple(steps), their_rule=rule)
    ours = " ".join(f"“{readable(t)}”" for t in word.ours)
    return "unknown", (f"In {shown} your tokens are {toks} and the tokenizer's {ours}; no usual "
                       "mistake (merge order, longest match, pattern) gives yours. Compare "
                       "with the tokenizer's playback of the word, merge by merge."), word


def _pair(pair) -> str:
    return " ".join(readable(x) for x in pair) if pair else ""


def _same(tok: Tokenizer | None, text: str, ids: list[int]) -> bool:
    return tok is not None and tok.encode(text, allowed_special="all", add_special_tokens=False) == ids


def _variant(tok: Tokenizer, pattern: str | None = None, specials: bool = True) -> Tokenizer | None:
    try:
        return Tokenizer(tok.vocab, list(tok.merges), tok.special_tokens if specials else [],
                         pattern=pattern or tok.pattern)
    except Exception:   # a pattern our regex engine refuses: not this cause
        return None


# ----- encoders that go wrong inside a word -------------------------------------------------
def _merge_at(symbols: list[bytes], pair: Pair, positions: Sequence[int]) -> list[bytes]:
    out, i, at = [], 0, set(positions)
    while i < len(symbols):
        if i in at and i + 1 < len(symbols):
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def _by_rank(pick: Callable[[list[int]], int], everywhere: bool, from_right: bool = False):
    """Merge by rank: ``pick`` chooses among the ranks present (min is the rule)."""
    def play(start, ranks, known) -> list[Step]:
        syms, steps = list(start), []  # type: list[bytes], list[Step]
        while True:
            present = [(ranks[(syms[i], syms[i + 1])], i) for i in range(len(syms) - 1)
                       if (syms[i], syms[i + 1]) in ranks]
            if not present:
                return steps
            r = pick([x for x, _ in present])
            pair = next((syms[i], syms[i + 1]) for x, i in present if x == r)
            syms = merge_word(syms, pair, "right" if from_right else "left") if everywhere \
                else _merge_at(syms, pair, [next(i for x, i in present if x == r)])
            steps.append(Step(r, pair, tuple(syms)))
    return play


def _leftmost(start, ranks, known) -> list[Step]:
    syms, steps = list(start), []  # type: list[bytes], list[Step]
    while True:
        i = next((i for i in range(len(syms) - 1) if (syms[i], syms[i + 1]) in ranks), None)
        if i is None:
            return steps
        pair = (syms[i], syms[i + 1])
        syms = _merge_at(syms, pair, [i])
        steps.append(Step(ranks[pair], pair, tuple(syms)))


def _longest(start, ranks, known) -> list[Step]:
    data, out, i = b"".join(start), [], 0
    while i < len(data):
        n = next(n for n in range(len(data) - i, 0, -1) if data[i:i + n] in known or n == 1)
        out.append(data[i:i + n])
        i += n
    return [Step(None, None, tuple(out))]


ORDER_RULES = (
    ("highest-rank", "merges the pair learned last first (the highest rank, max instead of min)",
     _by_rank(max, True)),
    ("leftmost", "merges the leftmost pair that has a merge, whatever its rank", _leftmost),
    ("from-right", "merges a run like “aaa” from the right", _by_rank(min, True, True)),
    ("longest", "takes the longest token of the vocabulary at each place (longest match, not "
     "BPE)", _longest),
)
