"""Parity training's one core against its floor: the merges of a parity run
(bench_parity.py's six languages, base variant) replayed on the run's core (one
``ColumnCore``: every language's training and dev words, a count per language, each
training language's pair counts and heap), on one plain core over the union of the
training and dev words, and on one over the training words alone, against plain
training's own steps (``Core.run``) on that last core. Fresh cores each time,
alternating, in one process; CPU seconds of the merges, and apart the building of the
run's core from the count tables.

One plain core over the union, with no per-language pair counts or heaps, is the floor
of a core whose words carry a count per language: it merges each word once.

    python bench/bench_parity_floor.py [--mb 1] [--merges 2000] [--runs 5]
"""
from __future__ import annotations

import argparse
import sys
import time
from array import array
from itertools import accumulate
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_parity import build  # noqa: E402
from corpora import DEFAULT_DATA  # noqa: E402

from bpe_gui.engine.train import ParityData, ParitySettings, ParityTrainer  # noqa: E402
from bpe_gui.engine.train import parity_cores, trainer  # noqa: E402


def replay(cores: list, seq: list[tuple[int, int, int]]) -> float:
    """CPU seconds to merge every (a, b, id) of seq in every core, as a parity run does."""
    start = time.process_time()
    for a, b, new in seq:
        for core in cores:
            core.merge(a, b, new if new < core.n_tokens else -1)
    return time.process_time() - start


def plain_core(words: dict[bytes, int]):
    """A plain core over these byte words, HF's parity tie rule."""
    starts = array("q", accumulate(map(len, words), initial=0))
    return trainer.new_core(b"".join(words), starts, array("q", words.values()),
                            [bytes([i]) for i in range(256)], trainer.PARITY_TIE_RULE, False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=1.0, help="training MB per language")
    ap.add_argument("--merges", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = ap.parse_args()
    langs = build(args.data, args.mb)
    data = ParityData.from_files({n: t for n, (t, _) in langs.items()},
                                 {n: d for n, (_, d) in langs.items()}, lines=True)
    assert data.dev_tables is not None
    run = ParityTrainer(data, ParitySettings(num_merges=args.merges), undo=False)
    run.run()
    seq = [(st.pair[0], st.pair[1], st.new_id) for st in run.steps]
    train: dict[bytes, int] = {}
    for words in data.words:
        for w, f in words.items():
            train[w] = train.get(w, 0) + f
    both = dict(train)
    for w, fs in (data.dev or {}).items():
        both[w] = both.get(w, 0) + sum(fs)
    times: dict[str, list[float]] = {"build the run's core": [], "the run's core": [],
                                     "plain core, train + dev": [], "plain core, train": [],
                                     "plain Core.run": []}
    for _ in range(args.runs):
        start = time.process_time()
        cores = parity_cores.ParityCores(data.tables, data.dev_tables, False, undo=False)
        times["build the run's core"].append(time.process_time() - start)
        times["the run's core"].append(replay([cores.core], seq))
        times["plain core, train + dev"].append(replay([plain_core(both)], seq))
        times["plain core, train"].append(replay([plain_core(train)], seq))
        core = plain_core(train)
        start = time.process_time()
        core.run(len(seq))
        times["plain Core.run"].append(time.process_time() - start)
    print(f"{len(seq)} parity merges replayed, CPU s (best / median of {args.runs}, "
          "alternating):")
    for name, ts in times.items():
        ts.sort()
        print(f"  {name:24} {ts[0]:6.3f} {ts[len(ts) // 2]:6.3f}")


if __name__ == "__main__":
    main()
