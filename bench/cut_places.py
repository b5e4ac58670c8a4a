"""What the cut path (csrc/merge/token_boundaries.c) meets in a corner text: at each place
inside the long non-ASCII words, does a token of the vocabulary cross it? By the place's
position in its character (between two characters, after a character's 1st, 2nd, 3rd
byte), as the share of places no token crosses (where the word can be cut).

    python bench/cut_places.py [--files llama3,o200k,qwen2] [--text unicode] [--chars 60000]

Exact and slow (every span of every word is looked up in the vocabulary's set of byte
strings): it says what an exact cut test would answer, which the bit tables only
approximate ("maybe" leaves a place uncut). Files and texts as bench_encode_peers.py and
corpora.py prepare them (the same --data folder). Bench README, round 15.
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import corpora  # noqa: E402
from bench_encode_peers import FILES, prepare_files  # noqa: E402

CUT_FROM = 9   # token_boundaries.c: shorter words are merged whole


def places(vocab: set[bytes], longest: int, text: str) -> collections.Counter:
    """(character bytes, place in it, crossed) -> places, over the words the cut path
    takes (9 bytes or more, every byte after the first outside ASCII)."""
    out: collections.Counter = collections.Counter()
    for word in text.split():
        w = word.encode("utf-8")
        if len(w) < CUT_FROM or min(w[1:]) < 0x80:
            continue
        starts = [i for i, b in enumerate(w) if b & 0xC0 != 0x80] + [len(w)]
        where = {}
        for a, b in zip(starts, starts[1:]):
            for i in range(a, b):
                where[i] = (b - a, i - a)
        for p in range(1, len(w)):
            crossed = any(w[a:b] in vocab for a in range(max(0, p - longest + 1), p)
                          for b in range(p + 1, min(len(w), a + longest) + 1))
            out[(*where[p], crossed)] += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--files", default="llama3,o200k,qwen2")
    ap.add_argument("--text", default="unicode", help="a corner of corpora.CORNERS")
    ap.add_argument("--chars", type=int, default=60_000)
    args = ap.parse_args()
    from bpe_gui.engine.formats import load_tokenizer
    files = prepare_files(args.data, args.data / "wheels")
    text = corpora.corner(args.text, args.data).read_text("utf-8")[:args.chars]
    names = args.files.split(",")
    unknown = [f for f in names if f not in FILES]
    if unknown:
        sys.exit(f"cut_places: unknown file {unknown[0]!r}; use some of {', '.join(FILES)}")
    print(f"Share of places no token crosses, {args.text}, first {args.chars:,} characters\n")
    print("| place | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    counts = {}
    for f in names:
        vocab = {b for b in load_tokenizer(files[f]).vocab.values() if len(b) > 1}
        counts[f] = places(vocab, max(map(len, vocab)), text)
    rows = [((n, k), f"before a {n}-byte character" if k == 0 else
             f"inside a {n}-byte character, after its byte {k}")
            for n in (1, 2, 3, 4) for k in range(n)]
    for (n, k), label in rows:
        cells = []
        for f in names:
            cut, crossed = counts[f][(n, k, False)], counts[f][(n, k, True)]
            cells.append(f"{cut / (cut + crossed):.0%} of {cut + crossed:,}" if cut + crossed else "·")
        if any(c != "·" for c in cells):
            print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
