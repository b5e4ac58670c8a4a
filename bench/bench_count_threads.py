"""Counting alone (`bpe-gui count`, reading and counting, no merges), whole process, at
each thread count: wall, CPU (the process and its children) and the tree's peak, as
bench_train_peers.py measures training. Run on purpose, never from the unit tests:

    python bench/bench_count_threads.py                          # py256, 1 and 2 threads
    python bench/bench_count_threads.py --workloads py256,code1g --threads 1,2,4,8,16
    python bench/bench_count_threads.py --before ../main --rounds 3   # + the tree before
    python bench/bench_count_threads.py --workloads en6,en20 --pattern gpt2,whitespace,custom

``--pattern``: the pre-tokenizers to compare, each a preset name, ``custom`` (the GPT-2
pattern with one more alternative, so the `regex` module runs it instead of the native
scanner, with the time limit of a typed pattern) or a regex; ``en6`` is the first 6 MB
of ``en20`` (English, cut at a line end).

"waits": the times a thread of the process blocked (voluntary context switches: on
the GIL, a lock or a read), which a machine's load moves less than wall and CPU.

Every run is a fresh interpreter; the runs take turns round by round (thread count,
then tree), so a change in the machine's load hits all alike. The table shows the best
of the rounds of each figure.
"""
from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_train_peers as peers  # noqa: E402
import corpora  # noqa: E402

EOT = "<|endoftext|>"
# GPT-2's pattern and one alternative more (that never matches where GPT-2's would not:
# a lone "\x00" is matched by ` ?[^\s\p{L}\p{N}]+` first), so no native scanner knows it
CUSTOM = (r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
          r"""|\x00""")


def pattern_args(name: str) -> list[str]:
    """The `bpe-gui count` option that picks pre-tokenizer ``name`` (see --pattern)."""
    if name == "custom":
        return ["--pattern", CUSTOM]
    return ["--preset", name] if name.replace("-", "").isalnum() else ["--pattern", name]


def workload_path(wl: str, data: Path) -> Path:
    """A workload's corpus; ``en6``: the first 6 MB of en20, cut at a line end."""
    if wl != "en6":
        return peers.corpus_path(peers.WORKLOADS[wl][0], data, False)
    small = data / "en-6mb.txt"
    if not small.exists():
        body = peers.corpus_path("en-gutenberg-20mb", data, False).read_bytes()[:6_000_000]
        small.write_bytes(body[:body.rfind(b"\n") + 1])
    return small


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default="py256", help="comma list of py256, code1g, en20, en6")
    ap.add_argument("--threads", default="1,2", metavar="N,N,...")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--pattern", default="gpt2", metavar="P,P,...",
                    help="pre-tokenizers: preset names, custom, or a regex (no comma)")
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--before", type=Path, default=None, metavar="DIR",
                    help="also run this checkout (its extensions built in place)")
    args = ap.parse_args()
    peers.BEFORE = args.before.resolve() if args.before else None
    trees = ["ours"] + (["ours-before"] if args.before else [])
    threads = [int(t) for t in args.threads.split(",")]
    patterns = args.pattern.split(",")
    args.data.mkdir(parents=True, exist_ok=True)
    for wl in args.workloads.split(","):
        path = workload_path(wl, args.data)
        runs: dict[tuple[str, str, int], list[dict]] = {}
        for r in range(args.rounds):
            for t, pat, tree in ((t, p, tr) for t in threads for p in patterns for tr in trees):
                out = Path(tempfile.mkdtemp(prefix="bench-count-"))
                try:   # (--threads 0: the default, every core)
                    cmd = [sys.executable, "-m", "bpe_gui", "count", str(path),
                           "--special-token", EOT, "--out", str(out / "t.tsv"), "-q",
                           *pattern_args(pat)] + (["--threads", str(t)] if t else [])
                    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw
                    m = peers.measure(cmd, tree, t)
                    m["waits"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw - before
                finally:
                    shutil.rmtree(out, ignore_errors=True)
                runs.setdefault((tree, pat, t), []).append(m)
                print(f"  round {r + 1} {tree} {pat} x{t or 'default'}: wall {m['wall']:.2f} "
                      f"s, CPU {m['cpu']:.2f} s, peak {m['peak']:.0f} MB, waits {m['waits']:,}",
                      flush=True)
        print(f"\n| {wl}: count {path.stat().st_size / 1e6:,.0f} MB (best of {args.rounds}) "
              "| wall s | CPU s | peak MB | waits |\n|---|---|---|---|---|")
        for (tree, pat, t), ms in runs.items():
            print(f"| {tree} {pat} x{t or 'default'} | {min(m['wall'] for m in ms):.2f} | "
                  f"{min(m['cpu'] for m in ms):.2f} | {min(m['peak'] for m in ms):.0f} | "
                  f"{min(m['waits'] for m in ms):,} |")


if __name__ == "__main__":
    main()
