"""Where one whole-text encode's time goes, ours against gigatoken's, per stage (issue 65).

    python bench/bench_encode_stages.py [--rows cl100k:en,llama3:py] [--runs 7]
    python bench/bench_encode_stages.py --strategies auto,small,flat,reference [--rows ...]

Each measurement is one fresh process (the tokenizer loaded from its file, empty caches),
run one after another, never two at once, the contestants alternating; the figure is the
median of ``--runs`` processes of the CPU seconds (``time.process_time``) of each call.

Stages, by calling them separately in one process, in this order:

  scan     ours: the native scanner alone over the text (``_scan.count_words`` with the
           encoder's scanner id: word boundaries, no ids). gigatoken exposes its
           pre-tokenizer for GPT-2's pattern only, so it has no scan column.
  cold     the first ``encode_to_array`` (gigatoken: ``encode``, a numpy array): every
           word is new, so this is scan + lookup + merge + emit.
  warm     the same text again: every word is found in the cache, so this is
           scan + lookup + emit; ``cold - warm`` is the merging (and filling the cache),
           ``warm - scan`` the cache lookups and the ids written out.
  list     ours: ``encode`` (a list of int) on the warm cache; ``list - warm`` is the
           making of int objects.

``--threads 1,2,16`` instead times batches (``--batch-file``, default cl100k, on the 20 MB
of English cut into ``--texts`` texts): the wall seconds of the first ``encode_batch`` of a
fresh process at each thread count, to lists and to arrays (ours: ``Encoder.encode_batch``,
``as_array``; gigatoken: ``encode_batch_list`` and ``encode_batch``, its pool sized by
``RAYON_NUM_THREADS``); ``--tree A,B`` takes ours from those checkouts, alternating
(before against after).

``--strategies`` instead times the cold ``encode_to_array`` with each merge strategy
forced (``BPE_GUI_MERGE``; ``auto``: none forced), the strategies alternating;
``NAME@DIR`` takes that one from another checkout (``auto,auto@/tmp/before``: after
against before), ``NAME+MODE`` runs it with the cl100k family's pre-tokenizer forced
(``BPE_GUI_PRETOK``: ``auto,auto+word``), then the spread of each between its fastest and
slowest process.
Files and texts come from bench_encode_peers.py's data folder (``--data``); ``py`` is the
shared corpora's 1 MB of Python standard library.
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

ROWS = [(f, t) for f in ("cl100k", "o200k", "llama3") for t in ("en", "py", "zh")]

CHILD = r"""
import json, os, sys, time
lib, path, text_file, cpu = sys.argv[1:5]
if cpu != "-":
    os.sched_setaffinity(0, {int(cpu)})
os.environ["RAYON_NUM_THREADS"] = "1"
text = open(text_file, encoding="utf-8").read()
def timed(f, *a):
    c = time.process_time()
    r = f(*a)
    return time.process_time() - c, r
out = {}
if lib == "ours":
    from bpe_gui.engine.text import _scan
    from bpe_gui.engine.formats import load_tokenizer
    tok = load_tokenizer(path)
    pl = tok.pipeline
    enc = pl.whole_text_encoder
    assert enc is not None, "this file does not run on the one-pass C encoder"
    out["scan"], _ = timed(_scan.count_words, pl._native, text)
    out["cold"], ids = timed(enc.encode_ordinary_to_array, text)
    out["warm"], again = timed(enc.encode_ordinary_to_array, text)
    out["list"], lst = timed(enc.encode_ordinary, text)
    assert ids == again and len(lst) == len(ids)
else:
    import gigatoken
    tok = (gigatoken.Tokenizer.from_tiktoken(path) if path.endswith(".tiktoken")
           else gigatoken.Tokenizer(path))
    out["cold"], ids = timed(tok.encode, text)
    out["warm"], again = timed(tok.encode, text)
    assert (ids == again).all()
out["n"] = len(ids)
print(json.dumps(out))
"""

ONE = r"""
import hashlib, json, os, sys, time
path, text_file, cpu = sys.argv[1:4]
if cpu != "-":
    os.sched_setaffinity(0, {int(cpu)})
from bpe_gui.engine.formats import load_tokenizer
text = open(text_file, encoding="utf-8").read()
tok = load_tokenizer(path)
enc = tok.pipeline.whole_text_encoder
c = time.process_time()
ids = enc.encode_ordinary_to_array(text)
print(json.dumps({"cold": time.process_time() - c, "n": len(ids),
                  "h": hashlib.sha256(ids.tobytes()).hexdigest()}))
"""


BATCH = r"""
import json, os, sys, time
lib, path, text_file, threads, n_texts, as_array = sys.argv[1:7]
threads, n_texts, as_array = int(threads), int(n_texts), as_array == "1"
text = open(text_file, encoding="utf-8").read()
step = len(text) // n_texts
texts = [text[i * step:(i + 1) * step if i + 1 < n_texts else len(text)] for i in range(n_texts)]
if lib == "ours":
    from bpe_gui.engine.formats import load_tokenizer
    enc = load_tokenizer(path).pipeline.whole_text_encoder
    run = lambda: enc.encode_batch(texts, threads, as_array=as_array, ordinary=True)
    count = lambda r: sum(len(x) for x in r)
else:
    import gigatoken
    tok = (gigatoken.Tokenizer.from_tiktoken(path) if path.endswith(".tiktoken")
           else gigatoken.Tokenizer(path))
    run = (lambda: tok.encode_batch(texts)) if as_array else (lambda: tok.encode_batch_list(texts))
    count = lambda r: sum(len(x) for x in r)
t = time.perf_counter()
r = run()
wall = time.perf_counter() - t
print(json.dumps({"wall": wall, "n": count(r)}))
"""


def batches(file, text, files, texts, runs, threads, n_texts, trees, env) -> None:
    print(f"wall s of the first encode_batch of a fresh process, {file} on {text} cut into "
          f"{n_texts} texts, median of {runs}, contestants alternating; (Nx): against 1 thread")
    who = [("ours", t) for t in trees] + [("theirs", None)]
    names = [f"ours ({t})" if len(trees) > 1 else "ours" for t in trees] + ["gigatoken"]
    print("\n| threads | " + " | ".join(f"{n} {k}" for n in names for k in ("lists", "arrays"))
          + " |")
    print("|---:|" + "---:|" * (2 * len(who)))
    base: dict[tuple, float] = {}
    for k in threads:
        got: dict[tuple, list[float]] = {}
        counts = set()
        for _ in range(runs):
            for lib, tree in who:
                for arr in ("0", "1"):
                    e = dict(env, RAYON_NUM_THREADS=str(k))
                    if tree is not None:
                        e["PYTHONPATH"] = str(tree)
                    r = child(BATCH, [lib, str(files[file]), str(texts[text]), str(k),
                                      str(n_texts), arr], e)
                    got.setdefault((lib, tree, arr), []).append(r["wall"])
                    counts.add(r["n"])
        cells = []
        for lib, tree in who:
            for arr in ("0", "1"):
                m = med(got[(lib, tree, arr)])
                base.setdefault((lib, tree, arr), m)
                cells.append(f"{m:.3f} ({base[(lib, tree, arr)] / m:.1f}x)")
        same = "" if len(counts) == 1 else " IDS DIFFER IN NUMBER"
        print(f"| {k}{same} | " + " | ".join(cells) + " |", flush=True)


def child(script: str, args: list[str], env: dict) -> dict:
    p = subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True,
                       text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"bench: {args} failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def stages(rows, files, texts, runs, cpu, env) -> None:
    print(f"CPU s of each call, median of {runs} fresh processes, alternating ours / gigatoken")
    print("\n| file | text | ours scan | ours lookup+emit | ours merge | ours array | "
          "ours list | gigatoken lookup+scan+emit | gigatoken merge | gigatoken array | "
          "gigatoken ÷ ours |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for f, t in rows:
        got: dict[str, list[dict]] = {"ours": [], "theirs": []}
        for _ in range(runs):
            for lib in ("ours", "theirs"):
                got[lib].append(child(CHILD, [lib, str(files[f]), str(texts[t]), cpu], env))
        if {r["n"] for r in got["ours"]} != {r["n"] for r in got["theirs"]}:
            print(f"| {f} | {t} | ids differ in number | | | | | | | | |")
            continue
        o = {k: med([r[k] for r in got["ours"]]) for k in ("scan", "cold", "warm", "list")}
        g = {k: med([r[k] for r in got["theirs"]]) for k in ("cold", "warm")}
        print(f"| {f} | {t} | {o['scan']:.3f} | {o['warm'] - o['scan']:.3f} | "
              f"{o['cold'] - o['warm']:.3f} | **{o['cold']:.3f}** | "
              f"{o['cold'] + o['list'] - o['warm']:.3f} | {g['warm']:.3f} | "
              f"{g['cold'] - g['warm']:.3f} | **{g['cold']:.3f}** | "
              f"{g['cold'] / o['cold']:.2f} |", flush=True)


def strategies(rows, names, files, texts, runs, cpu, env) -> None:
    print(f"CPU s of the cold encode_to_array, median of {runs} fresh processes, "
          f"strategies alternating (BPE_GUI_MERGE)")
    print("\n| file | text | " + " | ".join(names) + " |")
    print("|---|---|" + "---:|" * len(names))
    spread: dict[tuple[str, str], list[str]] = {}
    for f, t in rows:
        got: dict[str, list[float]] = {s: [] for s in names}
        seen = set()
        for _ in range(runs):
            for s in names:
                e = dict(env)
                e.pop("BPE_GUI_MERGE", None)
                e.pop("BPE_GUI_PRETOK", None)
                name, _, tree = s.partition("@")   # NAME@DIR: ours from that checkout
                if tree:
                    e["PYTHONPATH"] = tree
                name, _, pretok = name.partition("+")   # NAME+MODE: BPE_GUI_PRETOK=MODE
                if pretok:
                    e["BPE_GUI_PRETOK"] = pretok
                if name != "auto":
                    e["BPE_GUI_MERGE"] = name
                r = child(ONE, [str(files[f]), str(texts[t]), cpu], e)
                got[s].append(r["cold"])
                seen.add((r["n"], r["h"]))
        base = med(got[names[0]])
        cells = [f"{med(v):.3f}" + ("" if s == names[0] else f" ({med(v) / base - 1:+.0%})")
                 for s, v in got.items()]
        same = "" if len(seen) == 1 else " IDS DIFFER"
        print(f"| {f} | {t}{same} | " + " | ".join(cells) + " |", flush=True)
        spread[(f, t)] = [f"{min(v):.3f}-{max(v):.3f} ({max(v) / min(v):.2f}x)"
                          for v in got.values()]
    print(f"\nspread between the {runs} processes (fastest-slowest):\n")
    print("| file | text | " + " | ".join(names) + " |")
    print("|---|---|" + "---:|" * len(names))
    for (f, t), cells in spread.items():
        print(f"| {f} | {t} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="", help="file:text,... (default: cl100k, o200k, llama3 "
                    "on en, py, zh)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--strategies", default="", help="auto,small,... : time these forced")
    ap.add_argument("--threads", default="", help="1,2,16: time batches at these")
    ap.add_argument("--batch-file", default="cl100k")
    ap.add_argument("--texts", type=int, default=2000, help="texts a batch is cut into")
    ap.add_argument("--tree", default=str(ROOT),
                    help="the checkout(s) ours comes from, comma-separated (before,after)")
    ap.add_argument("--cpu", default="-", help="a core to pin each process to (default: none)")
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--wheels", type=Path, default=Path("/work/assets/wheels"))
    a = ap.parse_args()
    rows = [tuple(r.split(":")) for r in a.rows.split(",")] if a.rows else ROWS
    files = prepare_files(a.data, a.wheels)
    texts = dict(prepare_texts(a.data, quick=False),
                 py=corpora.decompressed("code-python-stdlib.py.txt.xz", a.data))
    env = dict(os.environ, PYTHONPATH=str(ROOT), RAYON_NUM_THREADS="1",
               TOKENIZERS_PARALLELISM="false")
    env.pop("BPE_GUI_MERGE", None)
    load = os.getloadavg()[0]
    print(f"load average at the start: {load:.1f} on {os.cpu_count()} cores")
    if a.threads:
        batches(a.batch_file, "en", files, texts, a.runs, [int(k) for k in a.threads.split(",")],
                a.texts, [Path(t) for t in a.tree.split(",")], env)
    elif a.strategies:
        strategies(rows, a.strategies.split(","), files, texts, a.runs, a.cpu, env)
    else:
        stages(rows, files, texts, a.runs, a.cpu, env)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
