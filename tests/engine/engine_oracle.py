"""A slow, obviously-correct BPE trainer used as the oracle for the engine's trainer.

It shares no code with the engine: its own special-token splitting, its own
pre-tokenization with ``regex``, and pair counts recomputed from scratch every step.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import regex

GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
WHITESPACE = r"""\S+|\s+"""
PATTERNS = {"gpt2": GPT2, "whitespace": WHITESPACE}


def split_specials(text: str, specials) -> list[tuple[str, bool]]:
    """Leftmost special token first; where several start there, the longest wins."""
    longest_first = sorted(specials, key=len, reverse=True)
    out, plain, i = [], [], 0
    while i < len(text):
        hit = next((s for s in longest_first if text.startswith(s, i)), None)
        if hit is None:
            plain.append(text[i])
            i += 1
            continue
        if plain:
            out.append(("".join(plain), False))
            plain = []
        out.append((hit, True))
        i += len(hit)
    if plain:
        out.append(("".join(plain), False))
    return out


def word_counts(text: str, specials, pattern: str = "gpt2") -> dict[str, int]:
    """Pre-token -> frequency, in order of first appearance."""
    counts: dict[str, int] = {}
    for piece, is_special in split_specials(text, specials):
        if is_special:
            continue
        for w in regex.findall(PATTERNS[pattern], piece):
            if w:
                counts[w] = counts.get(w, 0) + 1
    return counts


def gpt2_chars() -> list[str]:
    """Byte -> the character GPT-2's encoder.py writes it as (its bytes_to_unicode)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) \
        + list(range(ord("®"), ord("ÿ") + 1))
    out, n = {}, 0
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + n)
            n += 1
    return [out[b] for b in range(256)]


@dataclass
class Oracle:
    tokens: list[bytes]                       # id -> bytes
    words: list[list[int]]                    # symbol ids of each distinct word
    freqs: list[int]
    rule: str
    merges: list[tuple[int, int, int]] = field(default_factory=list)  # (a, b, count)
    n_tied: list[int] = field(default_factory=list)
    tied: list[set] = field(default_factory=list)
    ambiguous: bool = False                   # a tie the rule cannot break (equal bytes)
    n_specials: int = 0
    live: list[int] = field(default_factory=list)  # live symbols + specials after each merge
    removed: list[set] = field(default_factory=list)

    def live_now(self) -> int:
        """Symbols that still occur somewhere, plus the special tokens."""
        return len({s for w in self.words for s in w}) + self.n_specials

    def pair_counts(self) -> dict[tuple[int, int], int]:
        """Insertion order = order first met scanning words in order, left to right."""
        counts: dict[tuple[int, int], int] = {}
        for w, f in zip(self.words, self.freqs):
            for p in zip(w, w[1:]):
                counts[p] = counts.get(p, 0) + f
        return counts

    def ranking(self) -> list[tuple[int, int, int]]:
        """Every pair with its count, best first under the tie rule."""
        counts = self.pair_counts()
        first = {p: i for i, p in enumerate(counts)}
        if self.rule == "greatest":
            # max of (bytes_a, bytes_b) first: sort descending on it, stable for count
            order = sorted(counts, key=lambda p: (self.tokens[p[0]], self.tokens[p[1]]),
                           reverse=True)
            order = sorted(order, key=lambda p: -counts[p])
        elif self.rule == "first-seen":
            order = sorted(counts, key=lambda p: (-counts[p], first[p]))
        elif self.rule == "lowest-ids-hf":
            order = sorted(counts, key=lambda p: (-counts[p], self.hf_ids(p)))
        else:
            order = sorted(counts, key=lambda p: (-counts[p], p))
        return [(a, b, counts[(a, b)]) for a, b in order]

    def best(self):
        counts = self.pair_counts()
        if not counts:
            return None
        top = max(counts.values())
        tied = [p for p in counts if counts[p] == top]
        if self.rule == "greatest":
            def key(p):
                return self.tokens[p[0]], self.tokens[p[1]]
            best = max(tied, key=key)
            if sum(1 for p in tied if key(p) == key(best)) > 1:
                self.ambiguous = True
        elif self.rule == "first-seen":
            best = tied[0]
        elif self.rule == "lowest-ids-hf":
            best = min(tied, key=self.hf_ids)
        else:
            best = min(tied)
        return best, top, tied

    def hf_ids(self, p: tuple[int, int]) -> tuple[int, int]:
        """A pair in tokenizers' numbering: in byte mode its alphabet is the 256 bytes
        sorted by the character GPT-2's byte map gives each (``gpt2_chars``); a character
        mode alphabet is sorted by code point already, and new tokens count on alike."""
        if self.tokens[:256] != [bytes([i]) for i in range(256)]:
            return p
        chars = gpt2_chars()
        order = sorted(range(256), key=lambda b: chars[b])
        rank = {b: r for r, b in enumerate(order)}
        return tuple(rank.get(t, t) for t in p)  # type: ignore[return-value]

    def merge(self, a: int, b: int) -> int:
        new = len(self.tokens)
        self.tokens.append(self.tokens[a] + self.tokens[b])
        for k, w in enumerate(self.words):
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(new)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            self.words[k] = out
        return new

    def train(self, num_merges=None, vocab_size=None, min_frequency=1,
              prune=False) -> "Oracle":
        while not self.ambiguous:
            if num_merges is not None:
                if len(self.merges) >= num_merges:
                    break
            elif (self.live_now() if prune else len(self.tokens)) >= vocab_size:
                break
            found = self.best()
            if found is None or found[1] < min_frequency or self.ambiguous:
                break
            (a, b), count, tied = found
            self.merge(a, b)
            present = {s for w in self.words for s in w}
            self.removed.append({t for t in (a, b) if t not in present})
            self.live.append(self.live_now())
            self.merges.append((a, b, count))
            self.n_tied.append(len(tied))
            self.tied.append(set(tied))
        return self


def make_oracle(text: str, specials=(), mode: str = "byte", end_of_word: str = "suffix",
                pattern: str = "gpt2", rule: str = "greatest") -> Oracle | None:
    """The oracle's starting state, or None when there is nothing to train on."""
    counts = word_counts(text, specials, pattern)
    if mode == "byte":
        tokens = [bytes([i]) for i in range(256)] + [s.encode() for s in specials]
        words = [list(w.encode("utf-8")) for w in counts]
        freqs = list(counts.values())
    else:
        chars = sorted({c for w in counts for c in w.strip()})
        tokens = [c.encode() for c in chars] + [b"</w>", b"<unk>"] + [s.encode() for s in specials]
        cid = {c: i for i, c in enumerate(chars)}
        eow = len(chars)
        merged: dict[tuple[int, ...], int] = {}
        for w, f in counts.items():
            core = w.strip()
            if not core:
                continue
            ids = [cid[c] for c in core]
            if end_of_word == "suffix":
                ids.append(eow)
            elif w[0].isspace():
                ids.insert(0, eow)
            merged[tuple(ids)] = merged.get(tuple(ids), 0) + f
        words = [list(k) for k in merged]
        freqs = list(merged.values())
    if not words:
        return None
    return Oracle(tokens, words, freqs, rule, n_specials=len(specials))


# --- running the engine's trainer on each core -------------------------------------

def available_cores() -> list[str]:
    """'c' (the extension) where it is built, and always 'py' (the pure-Python stand-in)."""
    try:
        from bpe_gui.engine.train import _core  # noqa: F401
        return ["c", "py"]
    except ImportError:
        return ["py"]


# Real-text tests train smaller jobs on the pure-Python core, which recounts every step.
HAS_C_CORE = "c" in available_cores()


class using_core:
    """Context manager: make the Trainer use the C core or the pure-Python one."""

    def __init__(self, name: str):
        self.name = name

    def __enter__(self):
        from bpe_gui.engine.train import _pycore, trainer
        self._saved = trainer._core
        if self.name == "py":
            trainer._core = _pycore
        else:
            from bpe_gui.engine.train import _core
            trainer._core = _core
        return self

    def __exit__(self, *exc):
        from bpe_gui.engine.train import trainer
        trainer._core = self._saved
        return False


def count_ranges_here(paths, pre, range_bytes: int = 64 << 20, lines: bool = False):
    """Every range counted in this process, one after the other: the reference for what
    a cluster computes (range_count.count_range of each of ranges.plan_ranges)."""
    from bpe_gui.engine.corpus.range_count import count_range
    from bpe_gui.engine.corpus.ranges import plan_ranges
    for rng in plan_ranges(paths, range_bytes):
        yield count_range(rng, pre.preset or pre.pattern, pre.special_tokens, lines)
