"""Numbers for comparing tokenizers and charting training: pure functions, no Qt.

Scripts: every character is Latin, Han, Kana, Cyrillic or Other, or *neutral* (spaces,
digits, punctuation, combining marks: Unicode's Common and Inherited scripts), which
belongs to whatever it stands next to. A token (or word) has the script of the letters
it covers; one with no letters, or letters of two scripts, or a special token, is Other.

Words (for "tokens per word") are the matches of the GPT-2 pre-tokenizer pattern that
are not only whitespace, whatever pattern the tokenizer itself uses, so two tokenizers
are measured against the same words. A Chinese clause without spaces is one word.

Cuts (where an encoding cuts the text) are ``(char, k)`` pairs: before character
``char`` when k == 0, else after its first k UTF-8 bytes (byte-level tokens can split
a character).

Example::

    >>> enc = Encoding([0, 1], [b"a", b"\\xe4\\xbd\\xa0"], [(0, 1), (1, 2)])
    >>> encoding_stats("a你", enc)["Han"].tokens
    1
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Iterator, Sequence

import regex

from .display import is_partial
from .presets import GPT2_PATTERN
from .pretokenize import Pretokenizer
from .base import BaseTokenizer, Encoding
from .merge_model import EOW, UNK

SCRIPTS = ("Latin", "Han", "Kana", "Cyrillic", "Other")
COLUMNS = ("All",) + SCRIPTS
_SCRIPT_RE = {
    "Latin": regex.compile(r"\p{sc=Latin}"),
    "Han": regex.compile(r"\p{sc=Han}"),
    "Kana": regex.compile(r"[\p{sc=Hiragana}\p{sc=Katakana}]"),
    "Cyrillic": regex.compile(r"\p{sc=Cyrillic}"),
}
_NEUTRAL_RE = regex.compile(r"[\p{sc=Common}\p{sc=Inherited}\p{sc=Unknown}]")
_KANA_ONLY_RE = regex.compile(r"[\p{scx=Hiragana}\p{scx=Katakana}&&\P{scx=Han}]", regex.V1)
_WORD_RE = regex.compile(GPT2_PATTERN)

Cut = tuple[int, int]


# ----- scripts -------------------------------------------------------------------------
@lru_cache(maxsize=1 << 16)
def char_script(ch: str) -> str | None:
    """The script of one character, or None for a neutral one.

    Example: 'é' -> 'Latin', 'カ' -> 'Kana', 'ー' -> 'Kana', 'Ω' -> 'Other', '。' -> None
    """
    if ch < "\x80":
        return "Latin" if ch.isalpha() else None
    for name, rx in _SCRIPT_RE.items():
        if rx.match(ch):
            return name
    if _NEUTRAL_RE.match(ch):
        # The prolonged sound mark ー is "Common" but only ever written in kana words.
        return "Kana" if ch.isalpha() and _KANA_ONLY_RE.match(ch) else None
    return "Other"


def span_script(text: str) -> str:
    """The one script of the letters in a span; 'Other' for none or several.

    Example: ' the' -> 'Latin', '你好' -> 'Han', '42!' -> 'Other', 'a你' -> 'Other'
    """
    found = None
    for ch in text:
        s = char_script(ch)
        if s is None:
            continue
        if found is None:
            found = s
        elif s != found:
            return "Other"
    return found or "Other"


def utf8_len(ch: str) -> int:
    o = ord(ch)
    return 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4


# ----- per-encoding statistics -------------------------------------------------------------
@dataclass(frozen=True)
class ScriptStats:
    """Counts for one column of the comparison table (all text, or one script)."""

    chars: int = 0
    bytes: int = 0
    tokens: int = 0
    words: int = 0
    partial: int = 0

    @property
    def bytes_per_token(self) -> float | None:
        return self.bytes / self.tokens if self.tokens else None

    @property
    def tokens_per_word(self) -> float | None:
        return self.tokens / self.words if self.words else None

    @property
    def partial_share(self) -> float | None:
        return self.partial / self.tokens if self.tokens else None


def word_spans(text: str) -> list[tuple[int, int]]:
    """GPT-2-pattern words that are not only whitespace.

    Example: "Hi  there, 你好" -> [(0, 2), (3, 9), (9, 10), (10, 13)]
    """
    return [m.span() for m in _WORD_RE.finditer(text) if not m.group().isspace()]


def token_text_bytes(token: bytes, covered: str, mode: str = "byte",
                     special: bool = False) -> int:
    """The bytes of text a token stands for: its own bytes, without the ``</w>`` marker
    in character mode (an ``<unk>`` stands for the character it replaced)."""
    if mode != "char" or special:
        return len(token)
    if token == UNK:
        return len(covered.encode("utf-8", "surrogatepass"))
    return len(token.replace(EOW, b""))


def encoding_stats(text: str, enc: Encoding, mode: str = "byte") -> dict[str, ScriptStats]:
    """Counts for the comparison table: key 'All' and one per script of :data:`SCRIPTS`.

    'All' counts the bytes of the whole text (so two tokenizers of one text share the
    numerator and bytes per token compares token counts); a script column counts the
    bytes its tokens stand for. Example: 'a你' cut into [a] [你] ->
    All: 2 chars, 4 bytes, 2 tokens, 1 word (GPT-2 words: 'a你' is one), 0 partial.
    """
    acc = {s: [0, 0, 0, 0, 0] for s in SCRIPTS}  # chars, bytes, tokens, words, partial
    for ch in text:
        acc[char_script(ch) or "Other"][0] += 1
    spans = word_spans(text)
    for s, e in spans:
        acc[span_script(text[s:e])][3] += 1
    n_partial = 0
    specials = enc.special or [False] * len(enc)
    for tok, (s, e), special in zip(enc.tokens, enc.offsets, specials):
        covered = text[s:e]
        row = acc["Other" if special else span_script(covered)]
        row[1] += token_text_bytes(tok, covered, mode, special)
        row[2] += 1
        if not special and mode == "byte" and is_partial(tok):
            row[4] += 1
            n_partial += 1
    out = {"All": ScriptStats(len(text), len(text.encode("utf-8", "surrogatepass")),
                              len(enc), len(spans), n_partial)}
    out.update({s: ScriptStats(*v) for s, v in acc.items()})
    return out


def scripts_present(stats: dict[str, ScriptStats]) -> list[str]:
    """The scripts worth a column: those with characters or tokens, in SCRIPTS order."""
    return [s for s in SCRIPTS if stats[s].chars or stats[s].tokens]


# ----- boundaries --------------------------------------------------------------------------
def _advance(text: str, pos: Cut, n_bytes: int) -> Cut:
    c, k = pos
    while n_bytes > 0 and c < len(text):
        room = utf8_len(text[c]) - k
        if n_bytes >= room:
            n_bytes -= room
            c, k = c + 1, 0
        else:
            k += n_bytes
            n_bytes = 0
    return c, k


def cut_points(enc: Encoding, text: str, fold_whitespace: bool = False) -> set[Cut]:
    """Every place an encoding cuts the text (token starts and ends, inside the text).

    Example: 'a你' cut into [a] [E4 BD] [A0] -> {(1, 0), (1, 2)}.
    With ``fold_whitespace`` a cut before whitespace moves to the end of the whitespace
    run, so "where the space goes" (' cat' vs 'the</w>') does not count as a difference.
    """
    cuts: set[Cut] = set()
    end: Cut = (0, 0)
    specials = enc.special or [False] * len(enc)
    for tok, (s, e), special in zip(enc.tokens, enc.offsets, specials):
        start = end if (end[1] and s < end[0] + 1) else (s, 0)
        if start[1] or (not special and is_partial(tok)):
            end = _advance(text, start, len(tok))
        else:
            end = (e, 0)
        cuts.add(start)
        cuts.add(end)
    n = len(text)
    if fold_whitespace:
        folded = set()
        for c, k in cuts:
            if k == 0:
                while c < n and text[c].isspace():
                    c += 1
            folded.add((c, k))
        cuts = folded
    cuts.discard((0, 0))
    cuts.discard((n, 0))
    return cuts


def boundary_diff(a: Encoding, b: Encoding, text: str,
                  fold_whitespace: bool = False) -> tuple[set[Cut], set[Cut]]:
    """Cuts only ``a`` makes, and cuts only ``b`` makes, in the same text.

    Example: 'lower' as [low][er] vs [lo][wer] -> ({(3, 0)}, {(2, 0)})
    """
    ca, cb = cut_points(a, text, fold_whitespace), cut_points(b, text, fold_whitespace)
    return ca - cb, cb - ca


# ----- training curves ---------------------------------------------------------------------
def count_specials(text: str, special_tokens: Sequence[str]) -> int:
    """How many special tokens the text holds (each is one token the trainer never sees).

    Example: ('a<|endoftext|>b<|endoftext|>', ['<|endoftext|>']) -> 2
    """
    if not special_tokens:
        return 0
    return sum(1 for p in Pretokenizer(r"\S+", special_tokens).pieces(text) if p.special)


def special_counts(text: str, special_tokens: Sequence[str]) -> dict[str, int]:
    """How often each special token occurs in the text, found as encoding finds them
    (longest first where two overlap): the ``extra`` counts of :class:`RenyiCurve`.

    Example: ('a<s>b<s><|e|>', ['<s>', '<|e|>']) -> {'<s>': 2, '<|e|>': 1}
    """
    out = dict.fromkeys(special_tokens, 0)
    if special_tokens:
        for p in Pretokenizer(r"\S+", special_tokens).pieces(text):
            if p.special:
                out[p.text] += 1
    return out


def tokens_at_start(steps: Sequence, current_tokens: int) -> int:
    """Corpus tokens at step 0, from the first record (it knows how many it merged)."""
    if steps:
        return steps[0].corpus_tokens + steps[0].merged
    return current_tokens


def corpus_bytes_per_token(steps: Sequence, n_bytes: int, tokens0: int, n_special: int = 0,
                           start: int = 0) -> list[float]:
    """Bytes per token of the training corpus after step k, for k = start .. len(steps).

    The trainer counts only the tokens of words; special tokens in the corpus are one
    token each and their bytes are in ``n_bytes``, so they are added back here. This
    equals ``n_bytes / len(tokenizer(at_step=k).encode(corpus))``.
    Example: 100 bytes, 50 tokens at step 0, one merge that joins 10 -> [2.0, 2.5]
    """
    out = []
    for k in range(start, len(steps) + 1):
        tokens = tokens0 if k == 0 else steps[k - 1].corpus_tokens
        tokens += n_special
        out.append(n_bytes / tokens if tokens else math.nan)
    return out


def pair_counts(steps: Sequence, start: int = 0) -> list[int]:
    """Count of the chosen pair at steps start+1 .. len(steps) (x is the step index)."""
    return [s.count for s in steps[start:]]


@dataclass(frozen=True)
class HeldOut:
    """A held-out text, pre-tokenized once: unique words with frequencies."""

    words: tuple[tuple[str, int], ...]
    n_special: int
    n_bytes: int
    n_chars: int


def held_out(text: str, pattern: str = "gpt2", special_tokens: Sequence[str] = ()) -> HeldOut:
    """Pre-tokenize a held-out text with the tokenizer's own pattern and specials."""
    pre = Pretokenizer(pattern, special_tokens)
    counts = Counter(pre.words(text))
    return HeldOut(tuple(counts.items()), count_specials(text, special_tokens),
                   len(text.encode("utf-8", "surrogatepass")), len(text))


def held_out_tokens(tok: BaseTokenizer, held: HeldOut, batch: int = 200) -> Iterator[int | None]:
    """Count the tokens of a held-out text, a batch of words at a time.

    Yields None after every batch (so a GUI can stop between batches) and the total
    last. ``sum`` over words of freq * len(tokens of the word), plus one per special.
    """
    total = held.n_special
    word_ids = tok.encode_word  # the tokenizer's own (cached) per-word encoding
    for i, (w, f) in enumerate(held.words, 1):
        total += f * len(word_ids(w))
        if i % batch == 0:
            yield None
    yield total


def sample_steps(n: int, max_points: int = 64) -> list[int]:
    """Steps 0..n on a power-of-two grid of at most ``max_points`` + 1 points, and n.

    The grid only coarsens as n grows, so points computed earlier stay on it.
    Example: sample_steps(10, 4) -> [0, 4, 8, 10]
    """
    stride = 1
    while n / stride > max_points:
        stride *= 2
    out = list(range(0, n + 1, stride))
    if out[-1] != n:
        out.append(n)
    return out


# ----- vocabulary --------------------------------------------------------------------------
def token_length(token: bytes, mode: str = "byte") -> int:
    """Length for the histogram: bytes (byte mode) or characters without ``</w>``.

    Example: (b' the', 'byte') -> 4; (b'the</w>', 'char') -> 3
    """
    if mode == "char":
        return len(token.replace(EOW, b"").decode("utf-8", "replace"))
    return len(token)


def length_histogram(tokens: Iterable[bytes], mode: str = "byte") -> dict[int, int]:
    """Example: [b'a', b'b', b'ab'] -> {1: 2, 2: 1}"""
    return dict(sorted(Counter(token_length(t, mode) for t in tokens).items()))


def zipf(counts: Iterable[int]) -> tuple[list[int], list[int]]:
    """Rank (1 = most frequent) vs frequency, tokens that never occur left out.

    Example: [3, 0, 7, 1] -> ([1, 2, 3], [7, 3, 1])
    """
    freqs = sorted((c for c in counts if c > 0), reverse=True)
    return list(range(1, len(freqs) + 1)), freqs


def token_frequencies(trainer) -> list[int]:
    """How often each token id occurs in the training corpus now (trainer.symbol_count)."""
    return [trainer.symbol_count(i) for i in range(len(trainer.vocab_bytes))]


# ----- Rényi efficiency ----------------------------------------------------------------------
RENYI_ALPHA = 2.5   # Zouhar et al. (2023) found alpha 2.5 tracks translation quality best


def renyi_efficiency(counts: Iterable[int], vocab_size: int,
                     alpha: float = RENYI_ALPHA) -> float | None:
    """Rényi efficiency of a token unigram distribution (Zouhar et al. 2023).

    With p_i = c_i / N the share of token i among the N tokens of a text::

        H_alpha(p) = ln(sum_i p_i ** alpha) / (1 - alpha)      (Shannon's H when alpha = 1)
        efficiency = H_alpha(p) / ln(vocab_size)

    ``vocab_size`` is the tokenizer's whole vocabulary -- every id, special tokens
    included, as ``len(tok.vocab)`` counts them -- not the token types the text happens
    to use: ln |V| is the entropy of the uniform distribution over what the tokenizer
    can emit (the paper's H_0), so the score says how much of the vocabulary's capacity
    the text uses, and a tokenizer keeps one denominator across texts. (The authors'
    ``tokenization-scorer`` divides by the types seen unless given the vocabulary size.)
    None for no tokens or a vocabulary of one token.

    Example: counts [1, 1, 1, 1], vocab_size 4 -> 1.0 (uniform over the whole vocabulary);
    counts [1, 1], vocab_size 4 -> 0.5.
    """
    cs = [c for c in counts if c > 0]
    n = sum(cs)
    if not n or vocab_size < 2:
        return None
    return _renyi(cs, n, alpha) / math.log(vocab_size)


def _renyi(counts: Sequence[int], n: int, alpha: float) -> float:
    if alpha == 1.0:
        return -sum(c / n * math.log(c / n) for c in counts)
    return math.log(sum((c / n) ** alpha for c in counts)) / (1.0 - alpha)


def counts_at_start(steps: Sequence, counts_now: Sequence[int]) -> list[int]:
    """Token counts of the training corpus at step 0, from the counts after the last of
    ``steps`` (``token_frequencies(trainer)``): each merge undone in reverse order gives
    its ``merged`` occurrences back to its two parts.

    Example: counts [2, 2, 1] after one merge (0, 1) -> 2 that replaced 1 -> [3, 3, 0]
    """
    out = list(counts_now)
    for s in reversed(steps):
        a, b = s.pair
        out[s.new_id] -= s.merged
        out[a] += s.merged
        out[b] += s.merged
    return out


class RenyiCurve:
    """Rényi efficiency of the training corpus's tokens after each merge step.

    ``values[k]`` is the efficiency after step k: the corpus encoded with the first k
    merges, over a vocabulary of ``n_vocab0 + k`` ids (``n_vocab0``: base symbols and
    special tokens, ``Trainer.n_initial``). Each merge moves ``merged`` occurrences from
    its two parts to the new token, so a step updates three counts and the sum of
    p ** alpha in O(1); undone steps are reversed the same way. ``extra`` holds counts the
    trainer never sees but an encoding has (each special token's occurrences in the
    corpus: :func:`special_counts`). Equal to :func:`renyi_efficiency` of
    ``Counter(trainer.tokenizer(at_step=k).encode(corpus))`` (tested).

    Example::

        curve = RenyiCurve(counts_at_start(t.steps, token_frequencies(t)), t.n_initial,
                           extra=special_counts(corpus, t.settings.special_tokens).values())
        curve.sync(t.steps)       # after steps, undos or a run; cheap when little changed
        chart.set_series("Rényi", range(len(curve.values)), curve.values)
    """

    def __init__(self, counts0: Sequence[int], n_vocab0: int, alpha: float = RENYI_ALPHA,
                 extra: Iterable[int] = ()):
        self.alpha = alpha
        self.n_vocab0 = n_vocab0
        self._counts0 = list(counts0)
        self._extra = [c for c in extra if c > 0]
        self._reset()

    def _reset(self) -> None:
        self._counts = list(self._counts0)
        self._applied: list[tuple[int, int, int, int]] = []   # (a, b, new, merged)
        self._n = sum(self._counts) + sum(self._extra)
        self._power = sum(c ** self.alpha for c in self._counts + self._extra if c > 0)
        self.values: list[float | None] = [self._value()]

    def _value(self) -> float | None:
        size = self.n_vocab0 + len(self._applied)
        if not self._n or size < 2:
            return None
        if self.alpha == 1.0:   # no running sum for Shannon: recompute
            return renyi_efficiency(self._counts + self._extra, size, 1.0)
        h = math.log(self._power / self._n ** self.alpha) / (1.0 - self.alpha)
        return h / math.log(size)

    def _move(self, moves: Sequence[tuple[int, int]]) -> None:
        """Add ``delta`` to the count of each ``(id, delta)``, keeping the power sum."""
        c, a = self._counts, self.alpha
        for i, delta in moves:
            while i >= len(c):
                c.append(0)
            old = c[i]
            c[i] = old + delta
            self._power += (c[i] ** a if c[i] > 0 else 0.0) - (old ** a if old > 0 else 0.0)

    def sync(self, steps: Sequence) -> list[float | None]:
        """Follow one trainer's records (``trainer.steps``, which only change at the end:
        steps append, undos pop): values past ``len(steps)`` are undone, new ones added.
        A new trainer needs a new curve."""
        keep = len(self._applied)
        while keep and (keep > len(steps) or _key(steps[keep - 1]) != self._applied[keep - 1]):
            keep -= 1
        while len(self._applied) > keep:
            a, b, new, m = self._applied.pop()
            self._n += m
            self._move([(new, -m), (a, m), (b, m)])
            self.values.pop()
        for s in steps[keep:]:
            a, b, new, m = _key(s)
            self._n -= m
            self._move([(a, -m), (b, -m), (new, m)])
            self._applied.append((a, b, new, m))
            if len(self._applied) % 4096 == 0:   # rounding of the running sum: start afresh
                self._power = sum(x ** self.alpha for x in self._counts + self._extra if x > 0)
            self.values.append(self._value())
        return self.values


def _key(step) -> tuple[int, int, int, int]:
    return (step.pair[0], step.pair[1], step.new_id, step.merged)


def corpus_renyi_efficiency(steps: Sequence, counts0: Sequence[int], n_vocab0: int,
                            alpha: float = RENYI_ALPHA, start: int = 0,
                            extra: Iterable[int] = ()) -> list[float | None]:
    """Rényi efficiency of the training corpus after step k, k = start .. len(steps)
    (the series for the charts, next to :func:`corpus_bytes_per_token`; see RenyiCurve).

    Example: counts0 [3, 3, 0] (tokens a, b, ab; n_vocab0 2), one merge (a, b) -> ab
    replacing 2: step 0 is uniform over a and b -> 1.0; step 1 has a, b, ab = 1, 1, 2.
    """
    curve = RenyiCurve(counts0, n_vocab0, alpha, extra)
    return curve.sync(steps)[start:]
