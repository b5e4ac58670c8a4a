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
from .pretokenize import GPT2_PATTERN, Pretokenizer
from .tokenizer import EOW, UNK, Encoding, Tokenizer

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


def held_out_tokens(tok: Tokenizer, held: HeldOut, batch: int = 200) -> Iterator[int | None]:
    """Count the tokens of a held-out text, a batch of words at a time.

    Yields None after every batch (so a GUI can stop between batches) and the total
    last. ``sum`` over words of freq * len(tokens of the word), plus one per special.
    """
    total = held.n_special
    word_ids = tok._word_ids  # the tokenizer's own cached per-word encoding
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
