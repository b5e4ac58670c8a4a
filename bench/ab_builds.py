"""Two builds of bpe-gui on the corner texts, their processes alternating: a change's
before and after in one run, where the machine's drift (±15% here) would swamp two
separate runs.

    python bench/ab_builds.py BEFORE AFTER [--files cl100k,llama3] [--rounds 5] [--data DIR]
                              [--texts long-words]

BEFORE and AFTER are checkouts with their C extensions built (`git worktree add /tmp/old
<commit>` and `python setup.py build_ext --inplace` there). Each round runs this
checkout's bench/bench_corners.py on each build (its --root) (a freshly loaded tokenizer per text, best of 3,
CPU time) in a process of its own, BEFORE and AFTER in turn; the table gives each text's
median and best MB/s over the rounds, and AFTER / BEFORE of the medians.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import corpora  # noqa: E402

ROW = re.compile(r"^\| (\w+) \| (.*) \|$")


def one_run(checkout: Path, files: str, data: Path, texts: str) -> dict[tuple[str, str], float]:
    """(file, text) -> MB/s from one bench_corners run of `checkout`'s build."""
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_corners.py"),
                          "--files", files, "--repeat", "3", "--data", str(data),
                          "--texts", texts, "--root", str(checkout)],
                         capture_output=True, text=True, check=True, cwd=checkout,
                         env={**os.environ, "PYTHONPATH": str(checkout)}).stdout
    texts: list[str] = []
    got = {}
    for line in out.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        if m.group(1) == "file":
            texts = [c.strip() for c in m.group(2).split("|")]
            continue
        for text, cell in zip(texts, m.group(2).split("|")):
            speed = re.match(r"\s*([\d.]+) MB/s", cell)
            if speed:
                got[(m.group(1), text)] = float(speed.group(1))
    return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--files", default="cl100k,o200k,llama3,qwen2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--texts", default=",".join(corpora.CORNERS),
                    help="the corners to time (English always)")
    args = ap.parse_args()
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for r in range(args.rounds):
        for name in ("before", "after"):
            runs[name].append(one_run(getattr(args, name).resolve(), args.files, args.data,
                                      args.texts))
        print(f"round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    keys = [k for k in runs["before"][0] if all(k in x for x in runs["before"] + runs["after"])]
    print("| file | text | before: median, best MB/s | after: median, best MB/s | after / before |")
    print("|---|---|---|---|---|")
    for key in keys:
        b = [x[key] for x in runs["before"]]
        a = [x[key] for x in runs["after"]]
        mb, ma = statistics.median(b), statistics.median(a)
        print(f"| {key[0]} | {key[1]} | {mb:.1f}, {max(b):.1f} | {ma:.1f}, {max(a):.1f} | "
              f"{ma / mb:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
