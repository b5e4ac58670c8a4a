"""What one core with a count per language could save parity training: the merges of a
parity run (bench_parity.py's six languages, base variant) replayed on its twelve cores
(each language's training words, each language's dev words), on one core over the union
of the training and dev words, and on one over the training words alone, against plain
training's own steps (``Core.run``) on that last core. Fresh cores each time,
alternating, in one process; CPU seconds of the merges only (building is not timed).

One core over the union with no per-language pair counts or heaps is the floor of a
core whose words carry a count per language: it merges each word once.

    python bench/bench_parity_floor.py [--mb 1] [--merges 2000] [--runs 5]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_parity import build  # noqa: E402
from corpora import DEFAULT_DATA  # noqa: E402

from bpe_gui.engine.train import ParityData, ParitySettings, ParityTrainer  # noqa: E402
from bpe_gui.engine.train import parity_cores  # noqa: E402


def replay(cores: list, seq: list[tuple[int, int, int]]) -> float:
    """CPU seconds to merge every (a, b, id) of seq in every core, as a parity run does."""
    start = time.process_time()
    for a, b, new in seq:
        for core in cores:
            core.merge(a, b, new if new < core.n_tokens else -1)
    return time.process_time() - start


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
    assert data.dev is not None
    run = ParityTrainer(data, ParitySettings(num_merges=args.merges), undo=False)
    run.run()
    seq = [(st.pair[0], st.pair[1], st.new_id) for st in run.steps]
    train: dict[bytes, int] = {}
    for words in data.words:
        for w, f in words.items():
            train[w] = train.get(w, 0) + f
    both = dict(train)
    for w, fs in data.dev.items():
        both[w] = both.get(w, 0) + sum(fs)
    times: dict[str, list[float]] = {"twelve cores (now)": [], "one core, train + dev": [],
                                     "one core, train": [], "plain Core.run": []}
    for _ in range(args.runs):
        every = parity_cores.ParityCores(data.words, data.dev, False, undo=False)._every
        times["twelve cores (now)"].append(replay(every, seq))
        times["one core, train + dev"].append(replay([parity_cores.core_of(both, False)], seq))
        times["one core, train"].append(replay([parity_cores.core_of(train, False)], seq))
        core = parity_cores.core_of(train, False)
        start = time.process_time()
        core.run(len(seq))
        times["plain Core.run"].append(time.process_time() - start)
    print(f"{len(seq)} parity merges replayed, CPU s of the merges (best / median of "
          f"{args.runs}, alternating):")
    for name, ts in times.items():
        ts.sort()
        print(f"  {name:24} {ts[0]:6.3f} {ts[len(ts) // 2]:6.3f}")


if __name__ == "__main__":
    main()
