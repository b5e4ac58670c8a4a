"""Benchmark of the C core on the shared corpora.

    python bench/bench_core.py [zh|en|all] [--steps N] [--rule greatest|first-seen|lowest-ids]

Reads ../shared/corpora (next to the project) or $BPE_CORPORA; skips a corpus that is
absent. Reports pre-tokenising time (not the core's), Core() construction, run(N), the
latency of single step()/undo() calls at a few points of training, and peak RSS.
"""
from __future__ import annotations

import argparse
import collections
import lzma
import os
import resource
import statistics
import sys
import time
from array import array
from pathlib import Path

import regex

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bpe_gui.engine.train._core import FIRST_SEEN, GREATEST, LOWEST_IDS, Core  # noqa: E402

PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
CORPORA = {"zh": "zh-four-classic-novels.txt.xz", "en": "en-gutenberg-20mb.txt.xz"}
RULES = {"greatest": GREATEST, "first-seen": FIRST_SEEN, "lowest-ids": LOWEST_IDS}


def corpora_dir() -> Path:
    env = os.environ.get("BPE_CORPORA")
    for d in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "corpora",
                                             Path("/work/shared/corpora")]:
        if d.is_dir():
            return d
    return ROOT.parent / "shared" / "corpora"


def rss_mb() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return float("nan")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def table(path: Path):
    text = lzma.open(path, "rt", encoding="utf-8").read()
    counts = collections.Counter(regex.compile(PATTERN).findall(text))
    del text
    symbols, starts, freqs = array("i"), array("q", [0]), array("q")
    for w, f in counts.items():
        symbols.extend(w.encode("utf-8"))
        starts.append(len(symbols))
        freqs.append(f)
    return symbols, starts, freqs


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def bench(name: str, steps: int, rule: int) -> None:
    path = corpora_dir() / CORPORA[name]
    if not path.exists():
        print(f"[{name}] skipped: {path} not found")
        return
    t0 = time.perf_counter()
    symbols, starts, freqs = table(path)
    t1 = time.perf_counter()
    print(f"[{name}] pre-tokenised in {t1 - t0:.2f} s: {len(freqs):,} unique words, "
          f"{len(symbols):,} symbols")
    tb = [bytes([i]) for i in range(256)]
    rss0 = rss_mb()
    t0 = time.perf_counter()
    core = Core(symbols, starts, freqs, tb, rule)
    t1 = time.perf_counter()
    done = core.run(steps)
    t2 = time.perf_counter()
    print(f"[{name}] Core(): {t1 - t0:.2f} s   run({steps}): {t2 - t1:.2f} s ({done} steps)   "
          f"total {t2 - t0:.2f} s   peak RSS {peak_rss_mb():.0f} MB (Core adds "
          f"{rss_mb() - rss0:.0f} MB)")
    print(f"[{name}] last merges: " + ", ".join(
        repr(core.token(t).decode("utf-8", "replace")) for t in range(core.n_tokens - 5,
                                                                       core.n_tokens)))
    # latency of single steps/undos at various points
    for target in (done, done // 2, done // 10, 0):
        while core.n_steps > target:
            core.undo()
        at = core.n_steps
        st, un = [], []
        for _ in range(200):
            t = time.perf_counter()
            r = core.step()
            st.append(time.perf_counter() - t)
            if r is None:
                break
        while core.n_steps > at:
            t = time.perf_counter()
            core.undo()
            un.append(time.perf_counter() - t)
        print(f"[{name}] at step {at:>5}: step p50 {1e6 * statistics.median(st):8.1f} us "
              f"p95 {1e6 * pct(st, 95):9.1f} us max {1e6 * max(st):9.1f} us | undo p50 "
              f"{1e6 * statistics.median(un):8.1f} us p95 {1e6 * pct(un, 95):9.1f} us")
    t = time.perf_counter()
    core.run(steps)
    t_redo = time.perf_counter() - t
    t = time.perf_counter()
    while core.n_steps:
        core.undo()
    t_undo = time.perf_counter() - t
    core.run(steps)
    print(f"[{name}] redo run({steps}) from 0: {t_redo:.2f} s, undo all: {t_undo:.2f} s, "
          f"top(200): {timeit(lambda: core.top(200)):.1f} us, tied(50): "
          f"{timeit(lambda: core.tied(50)):.1f} us   peak RSS {peak_rss_mb():.0f} MB")


def timeit(f, n=20):
    t = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - t) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("which", nargs="?", default="all", choices=["zh", "en", "all"])
    ap.add_argument("--steps", type=int, default=9744)
    ap.add_argument("--rule", default="greatest", choices=list(RULES))
    a = ap.parse_args()
    for name in (["zh", "en"] if a.which == "all" else [a.which]):
        bench(name, a.steps, RULES[a.rule])


if __name__ == "__main__":
    main()
