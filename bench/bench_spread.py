"""The same encode in fresh processes: how far its time spreads, and what moves with it
(issue 65, item 4).

    python bench/bench_spread.py [--file cl100k] [--text en] [--runs 12] [--parallel 2]
                                 [--tree DIR,DIR]

Each run is a fresh interpreter that loads the tokenizer, reads the text and times one
``encode_ordinary_to_array`` (cold caches): the CPU seconds of the call
(``time.process_time``), and from ``getrusage`` around it the minor page faults and the
system seconds, and from ``/proc/self/smaps_rollup`` the anonymous memory in huge pages
after it. Runs go one at a time (``--parallel 1``), then ``--parallel`` of them at once.
``--tree A,B`` takes ours from those checkouts, the trees alternating (before against
after). The transparent-huge-page settings and ASLR are printed first: they decide where
the tables land and in what pages.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import corpora  # noqa: E402
from bench_encode_peers import prepare_files, prepare_texts  # noqa: E402

CHILD = r"""
import json, resource, sys, time
path, text_file = sys.argv[1:3]
from bpe_gui.engine.formats import load_tokenizer
text = open(text_file, encoding="utf-8").read()
enc = load_tokenizer(path).pipeline.whole_text_encoder
r0 = resource.getrusage(resource.RUSAGE_SELF)
c = time.process_time()
ids = enc.encode_ordinary_to_array(text)
cpu = time.process_time() - c
r1 = resource.getrusage(resource.RUSAGE_SELF)
huge = 0
for line in open("/proc/self/smaps_rollup"):
    if line.startswith("AnonHugePages:"):
        huge = int(line.split()[1]) // 1024
print(json.dumps({"cpu": cpu, "sys": r1.ru_stime - r0.ru_stime,
                  "minflt": r1.ru_minflt - r0.ru_minflt, "huge_mb": huge, "n": len(ids)}))
"""


def settings() -> str:
    out = []
    for name in ("enabled", "defrag"):
        p = Path("/sys/kernel/mm/transparent_hugepage") / name
        out.append(f"THP {name}: {p.read_text().strip() if p.exists() else '(none)'}")
    p = Path("/proc/sys/kernel/randomize_va_space")
    out.append(f"ASLR: {p.read_text().strip() if p.exists() else '(none)'}")
    return "; ".join(out)


def launch(tree: Path, file: Path, text: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("BPE_GUI_MERGE", None)
    return subprocess.Popen([sys.executable, "-c", CHILD, str(file), str(text)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def result(p: subprocess.Popen) -> dict:
    out, err = p.communicate(timeout=600)
    if p.returncode != 0:
        sys.exit(f"bench: a run failed:\n{err[-2000:]}")
    return json.loads(out.strip().splitlines()[-1])


def measure(trees: list[Path], file: Path, text: Path, runs: int, parallel: int
            ) -> dict[Path, list[dict]]:
    got: dict[Path, list[dict]] = {t: [] for t in trees}
    for _ in range(runs):
        for t in trees:
            procs = [launch(t, file, text) for _ in range(parallel)]
            got[t].extend(result(p) for p in procs)
    return got


def row(label: str, rs: list[dict]) -> str:
    cpu = sorted(r["cpu"] for r in rs)
    flt = [r["minflt"] for r in rs]
    return (f"| {label} | {len(rs)} | {statistics.median(cpu):.3f} | {cpu[0]:.3f}-{cpu[-1]:.3f} "
            f"| {cpu[-1] / cpu[0]:.2f}x | {statistics.median(r['sys'] for r in rs):.3f} "
            f"| {min(flt)}-{max(flt)} | {min(r['huge_mb'] for r in rs)}-"
            f"{max(r['huge_mb'] for r in rs)} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", default="cl100k")
    ap.add_argument("--text", default="en")
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--parallel", type=int, default=2, help="processes at once in the "
                    "second table (0: none)")
    ap.add_argument("--tree", default=str(ROOT), help="checkouts, comma-separated")
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--wheels", type=Path, default=Path("/work/assets/wheels"))
    a = ap.parse_args()
    files = prepare_files(a.data, a.wheels)
    texts = dict(prepare_texts(a.data, quick=False),
                 py=corpora.decompressed("code-python-stdlib.py.txt.xz", a.data))
    trees = [Path(t) for t in a.tree.split(",")]
    print(settings())
    print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"\n{a.file} on {a.text}: the first encode_ordinary_to_array of a fresh process")
    print("\n| tree, processes at once | runs | CPU s median | fastest-slowest | spread "
          "| system s | minor faults | huge pages MB |")
    print("|---|---:|---:|---|---:|---:|---|---|")
    for par in [1] + ([a.parallel] if a.parallel > 1 else []):
        got = measure(trees, files[a.file], texts[a.text], a.runs, par)
        for t, rs in got.items():
            if len({r["n"] for r in rs}) != 1:
                sys.exit("bench: the runs gave different numbers of ids")
            name = t.name if len(trees) > 1 else "ours"
            print(row(f"{name}, {par} at once", rs), flush=True)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
