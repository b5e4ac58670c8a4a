"""Texts the tokenizer tests share: long words one after another (merge.c's flat loop)
next to other words: shorter ones, longer than the flat loop takes, whitespace
runs, words ending outside ASCII (cut where no token crosses), a word that comes back (from
the per-thread table), a word that is one token (tiktoken's whole words)."""
from __future__ import annotations

import random


def _row_text() -> str:
    rng = random.Random(29)
    words: list[str] = []
    for k in range(260):
        w = "".join(rng.choice("abdehilnorstx") for _ in range(rng.randint(20, 300)))
        if k % 37 == 5:
            w = w + "你好" * 3                  # ends outside ASCII
        if k % 41 == 7:
            w = "x" * 1100                      # longer than the flat loop takes
        if k % 43 == 11:
            w = words[-2].strip()               # comes back
        if k % 47 == 13:
            w = "xx" * 18                       # one token of the files below (x * 2**k)
        words.append(w)
        if k % 31 == 3:
            words.append("\n" + " " * 40)        # a whitespace run
    return " ".join(words)


ROW = _row_text()
