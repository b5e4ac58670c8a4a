"""Slow, obviously-correct references for training on from a tokenizer and for SuperBPE.

Shares no code with the engine: its own merge-list encoder, its own pair counting from
scratch at every step, its own pre-tokenization (``regex``) and line splitting.
"""
from __future__ import annotations

import random
from collections import Counter

import regex

GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# PythonNut/superbpe, scripts/extend_tokenizer.sh (a Split in "isolated" behaviour)
SUPERBPE_SPLIT = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"


def ref_encode(word: bytes, ranks: dict[tuple[bytes, bytes], int]) -> list[bytes]:
    """Merge-list BPE: the lowest-rank pair present, every occurrence left to right."""
    parts = [word[i:i + 1] for i in range(len(word))]
    while len(parts) > 1:
        found = [ranks.get((parts[i], parts[i + 1])) for i in range(len(parts) - 1)]
        best = min((r for r in found if r is not None), default=None)
        if best is None:
            break
        out, i = [], 0
        while i < len(parts):
            if i + 1 < len(parts) and ranks.get((parts[i], parts[i + 1])) == best:
                out.append(parts[i] + parts[i + 1])
                i += 2
            else:
                out.append(parts[i])
                i += 1
        parts = out
    return parts


def split_specials(text: str, specials) -> list[str]:
    """The plain stretches between special tokens (longest special first)."""
    if not specials:
        return [text]
    alt = "|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True))
    return [p for p in regex.split(alt, text) if p]


def gpt2_words(text: str, specials=()) -> Counter:
    words: Counter = Counter()
    for piece in split_specials(text, specials):
        words.update(regex.findall(GPT2, piece))
    return words


def isolated_split(text: str, pattern: str) -> list[str]:
    """tokenizers' Split(..., behavior="isolated"): each match and each gap is a piece."""
    out, last = [], 0
    for m in regex.finditer(pattern, text):
        if m.start() > last:
            out.append(text[last:m.start()])
        out.append(m.group())
        last = m.end()
    if last < len(text):
        out.append(text[last:])
    return out


def superbpe_words(text: str, specials=()) -> Counter:
    """Stage-2 pieces: the text read line by line (newline kept), then the split."""
    words: Counter = Counter()
    for piece in split_specials(text, specials):
        for line in regex.findall(r"[^\n]*\n|[^\n]+", piece):   # "\n" only, not \r
            words.update(isolated_split(line, SUPERBPE_SPLIT))
    return words


def superbpe_skipped(token: bytes) -> bool:
    """The fork's rules: no token holding ": ", none of more than 4 words."""
    return b": " in token or len([w for w in token.split(b" ") if w]) > 4


def ref_train(words: dict[str, int], merges: list[tuple[bytes, bytes]],
              vocab: dict[int, bytes], n: int, rule: str, skip=None,
              order: list[str] | None = None) -> list[tuple[bytes, bytes, int]]:
    """``n`` merges on top of ``merges`` (each word first segmented by them); returns
    (left, right, new id) of each, new ids from max(vocab) + 1. ``order``: the words in
    order of first appearance (first-seen ties)."""
    ranks = {m: r for r, m in enumerate(merges)}
    t2i: dict[bytes, int] = {}
    for i, t in sorted(vocab.items()):
        t2i.setdefault(t, i)
    tok = dict(vocab)
    order = order or list(words)
    segs = [[t2i[p] for p in ref_encode(w.encode("utf-8"), ranks)] for w in order]
    freqs = [words[w] for w in order]
    next_id = max(vocab) + 1
    out = []
    while len(out) < n:
        counts: Counter = Counter()
        first: dict[tuple[int, int], tuple[int, int]] = {}
        for wi, (s, f) in enumerate(zip(segs, freqs)):
            for i in range(len(s) - 1):
                p = (s[i], s[i + 1])
                counts[p] += f
                first.setdefault(p, (wi, i))
        cands = [p for p in counts if not (skip and skip(tok[p[0]] + tok[p[1]]))]
        if not cands:
            break
        top = max(counts[p] for p in cands)
        tied = [p for p in cands if counts[p] == top]
        if rule == "greatest":
            a, b = max(tied, key=lambda p: (tok[p[0]], tok[p[1]], p[0], p[1]))
        elif rule == "lowest-ids":
            a, b = min(tied)
        else:
            a, b = min(tied, key=lambda p: first[p])
        new = next_id
        next_id += 1
        tok[new] = tok[a] + tok[b]
        out.append((tok[a], tok[b], new))
        for s in segs:
            i = 0
            while i < len(s) - 1:
                if s[i] == a and s[i + 1] == b:
                    s[i:i + 2] = [new]
                i += 1
    return out


def sample_text(seed: int, n_sentences: int = 400, lang: str = "en") -> str:
    """Repetitive text with phrases, numbers, punctuation, colons and line breaks."""
    rng = random.Random(seed)
    if lang == "zh":
        chars = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年"
        lines = ["".join(rng.choice(chars) for _ in range(rng.randint(4, 20))) + rng.choice("，。！？")
                 for _ in range(n_sentences)]
        return "\n".join(lines) + "\n"
    phrases = ["at the end of the day", "by the way", "in the middle of the night",
               "one of the most", "as a matter of fact", "the rest of the world",
               "Note: this is it", "said the old man", "it was the best of times"]
    words = "the of and to a in that it was he for on is with as his at by".split()
    out = []
    for _ in range(n_sentences):
        k = rng.random()
        if k < 0.5:
            s = rng.choice(phrases)
        else:
            s = " ".join(rng.choice(words) for _ in range(rng.randint(2, 8)))
        if rng.random() < 0.2:
            s += f" {rng.randint(0, 2000)}"
        out.append(s.capitalize() + rng.choice([".", ",", ";", "...", "!", ":", " --"]))
        out.append(rng.choice([" ", " ", "\n", "\n\n", "  "]))
    return "".join(out)
