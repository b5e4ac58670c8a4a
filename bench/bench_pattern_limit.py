"""What the time limit of a typed pattern costs: CPU seconds to cut a corpus into words
with a typed pattern that is proved linear (so it runs without the limit,
text/backtracking.py), and with the limit forced on the same pattern (as every typed
pattern ran before), in the same process. Run on purpose, never from the unit tests:

    python bench/bench_pattern_limit.py                  # first 6 MB of en20, 3 rounds
    python bench/bench_pattern_limit.py --mb 20 --rounds 5

The text is cut in blocks of 1 MB at line ends, as counting hands them out, and each
block goes through ``Pretokenizer.words`` (``concurrent=True``, as counting calls it).
The table shows the best of the rounds; the runs take turns round by round.
"""
from __future__ import annotations

import argparse
import lzma
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

import corpora  # noqa: E402

from bpe_gui.engine.text import pretokenize  # noqa: E402
from bpe_gui.engine.text.pretokenize import Pretokenizer  # noqa: E402

# bench_count_threads.py's `custom`: GPT-2's pattern and one alternative more, so no
# native scanner knows it and the `regex` module runs it
CUSTOM = (r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
          r"""|\x00""")
BLOCK = 1 << 20


def blocks(mb: int) -> list[str]:
    with lzma.open(corpora.shared("en-gutenberg-20mb.txt.xz"), "rt", encoding="utf-8") as f:
        text = f.read(mb * 1_000_000)
    text = text[:text.rfind("\n") + 1]
    out, start = [], 0
    while start < len(text):
        end = text.find("\n", start + BLOCK)
        end = len(text) if end < 0 else end + 1
        out.append(text[start:end])
        start = end
    return out


def run(pre: Pretokenizer, texts: list[str]) -> tuple[float, int]:
    t = time.process_time()
    n = sum(len(pre.words(s, concurrent=True)) for s in texts)
    return time.process_time() - t, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=6, help="MB of en20 to cut (default: 6)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    texts = blocks(args.mb)
    free = Pretokenizer(CUSTOM)
    limited = Pretokenizer(CUSTOM)
    limited.__dict__["_limit"] = pretokenize.CUSTOM_TIMEOUT_S   # the limit forced on
    print(f"limit of {CUSTOM!r}: {free._limit} (proved linear: None)")
    best: dict[str, float] = {}
    counts: dict[str, int] = {}
    for r in range(args.rounds):
        for name, pre in (("no limit (now)", free), ("limit forced (before)", limited)):
            cpu, n = run(pre, texts)
            best[name] = min(best.get(name, cpu), cpu)
            counts[name] = n
            print(f"  round {r + 1} {name}: CPU {cpu:.2f} s, {n:,} words", flush=True)
    assert len(set(counts.values())) == 1, counts
    print(f"\n| {args.mb} MB English, {len(texts)} blocks (best of {args.rounds}) | CPU s |\n"
          "|---|---|")
    for name, cpu in best.items():
        print(f"| {name} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
