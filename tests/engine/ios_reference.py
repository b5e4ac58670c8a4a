"""PickyBPE's intersection over self, counted slowly without the engine: the oracle for
the window's and the command line's dead-weight tests.

Each piece of text (cut at special tokens, then by the pattern with ``regex``) starts as
its bytes; the lowest-ranked adjacent pair is merged, one pair at a time, and both of
its sides count as *merged*; the tokens left at the end count as *output*. A token's
IoS is merged / (merged + output).

Two ways of ranking, as the two kinds of file do:

* merges (a trained tokenizer): a pair's rank is its merge's index;
* tiktoken ranks: a pair's rank is the rank of the token it makes, and a piece that is
  itself a token is taken whole (its parts never formed).

A piece merges the same way wherever it occurs, so each distinct piece is merged once
and its counts multiplied by how often it occurs.

Example: tiktoken ranks {aa: 256, aaa: 257, aaab: 258} and the text " aaab aaab": the
piece " aaab" merges a+a, aa+a, aaa+b (" a" has no rank), so merged {a: 3, aa: 1, aaa: 1,
b: 1} and output {" ": 1, aaab: 1}, twice over.
"""
from __future__ import annotations

import base64
from collections import Counter
from pathlib import Path
from typing import Mapping, Sequence

import regex

Pair = tuple[bytes, bytes]


def python_pattern(pattern: str) -> str:
    """A tiktoken pattern (Rust's ``\\x{88F}`` escapes) as ``regex`` reads it."""
    return regex.sub(r"\\x\{([0-9A-Fa-f]+)\}", lambda m: "\\U%08x" % int(m[1], 16), pattern)


def pieces(text: str, pattern: str, specials: Sequence[str] = ()) -> Counter:
    """The pieces the model merges, with how often each occurs (special tokens dropped:
    they are never merged)."""
    parts = regex.split("|".join(map(regex.escape, specials)), text) if specials else [text]
    pat = regex.compile(python_pattern(pattern))
    return Counter(w for part in parts for w in pat.findall(part))


def _merge_piece(symbols: list[bytes], rank_of) -> tuple[list[bytes], Counter]:
    merged: Counter = Counter()
    while len(symbols) > 1:
        ranked = [(rank_of(symbols[k], symbols[k + 1]), k) for k in range(len(symbols) - 1)]
        ranked = [(r, k) for r, k in ranked if r is not None]
        if not ranked:
            break
        _, k = min(ranked)
        merged[symbols[k]] += 1
        merged[symbols[k + 1]] += 1
        symbols[k:k + 2] = [symbols[k] + symbols[k + 1]]
    return symbols, merged


def counts(text: str, pattern: str, *, merges: Sequence[Pair] | None = None,
           ranks: Mapping[bytes, int] | None = None,
           specials: Sequence[str] = ()) -> tuple[Counter, Counter]:
    """(output, merged) counts by token bytes. Give ``merges`` (a trained tokenizer's) or
    ``ranks`` (a tiktoken file's)."""
    if merges is not None:
        pair_rank = {p: r for r, p in reversed(list(enumerate(merges)))}

        def rank_of(a: bytes, b: bytes):
            return pair_rank.get((a, b))
    else:
        assert ranks is not None

        def rank_of(a: bytes, b: bytes):
            return ranks.get(a + b)
    output: Counter = Counter()
    merged: Counter = Counter()
    for piece, n in pieces(text, pattern, specials).items():
        raw = piece.encode("utf-8")
        if ranks is not None and raw in ranks:
            output[raw] += n
            continue
        final, m = _merge_piece([bytes([b]) for b in raw], rank_of)
        for t in final:
            output[t] += n
        for t, c in m.items():
            merged[t] += c * n
    return output, merged


def by_id(counted: Counter, vocab: Mapping[int, bytes]) -> dict[int, int]:
    """Counts by token bytes -> by id (the vocabulary's ids)."""
    ids = {t: i for i, t in vocab.items()}
    return {ids[t]: n for t, n in counted.items() if n}


def dead_ids(output: Mapping[int, int], merged: Mapping[int, int], removable, threshold: float,
             min_count: int = 1) -> list[int]:
    """The removable ids that occur at least ``min_count`` times (and at all) and whose
    IoS is at least ``threshold``, the highest IoS first, then the most merged, then the
    lowest id."""
    def n(i: int) -> int:
        return merged.get(i, 0) + output.get(i, 0)

    def ios(i: int) -> float:
        return merged.get(i, 0) / n(i)
    found = [i for i in removable if n(i) and n(i) >= min_count
             and merged.get(i, 0) >= threshold * n(i)]
    return sorted(found, key=lambda i: (-ios(i), -merged.get(i, 0), i))


def read_tiktoken(path: Path) -> dict[bytes, int]:
    """A .tiktoken file: one base64 token and its rank per line."""
    out = {}
    for line in Path(path).read_text("ascii").splitlines():
        if line.strip():
            token, rank = line.split()
            out[base64.b64decode(token)] = int(rank)
    return out
