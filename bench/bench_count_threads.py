"""Counting alone (`bpe-gui count`, reading and counting, no merges), whole process, at
each thread count: wall, CPU (the process and its children) and the tree's peak, as
bench_train_peers.py measures training. Run on purpose, never from the unit tests:

    python bench/bench_count_threads.py                          # py256, 1 and 2 threads
    python bench/bench_count_threads.py --workloads py256,code1g --threads 1,2,4,8,16
    python bench/bench_count_threads.py --before ../main --rounds 3   # + the tree before

Every run is a fresh interpreter; the runs take turns round by round (thread count,
then tree), so a change in the machine's load hits all alike. The table shows the best
of the rounds of each figure.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_train_peers as peers  # noqa: E402
import corpora  # noqa: E402

EOT = "<|endoftext|>"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default="py256", help="comma list of py256, code1g, en20")
    ap.add_argument("--threads", default="1,2", metavar="N,N,...")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--before", type=Path, default=None, metavar="DIR",
                    help="also run this checkout (its extensions built in place)")
    args = ap.parse_args()
    peers.BEFORE = args.before.resolve() if args.before else None
    trees = ["ours"] + (["ours-before"] if args.before else [])
    threads = [int(t) for t in args.threads.split(",")]
    for wl in args.workloads.split(","):
        path = peers.corpus_path(peers.WORKLOADS[wl][0], args.data, False)
        runs: dict[tuple[str, int], list[dict]] = {}
        for r in range(args.rounds):
            for t in threads:
                for tree in trees:
                    out = Path(tempfile.mkdtemp(prefix="bench-count-"))
                    try:
                        cmd = [sys.executable, "-m", "bpe_gui", "count", str(path),
                               "--special-token", EOT, "--out", str(out / "t.tsv"), "-q",
                               "--threads", str(t)]
                        m = peers.measure(cmd, tree, t)
                    finally:
                        shutil.rmtree(out, ignore_errors=True)
                    runs.setdefault((tree, t), []).append(m)
                    print(f"  round {r + 1} {tree} x{t}: wall {m['wall']:.2f} s, CPU "
                          f"{m['cpu']:.2f} s, peak {m['peak']:.0f} MB", flush=True)
        print(f"\n| {wl}: count {path.stat().st_size / 1e6:,.0f} MB (best of {args.rounds}) "
              "| wall s | CPU s | peak MB |\n|---|---|---|---|")
        for (tree, t), ms in runs.items():
            print(f"| {tree} x{t} | {min(m['wall'] for m in ms):.2f} | "
                  f"{min(m['cpu'] for m in ms):.2f} | {min(m['peak'] for m in ms):.0f} |")


if __name__ == "__main__":
    main()
