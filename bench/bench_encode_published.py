"""Encoding with the published cl100k_base and o200k_base ranks: bpe-gui against tiktoken,
bpe-openai (github's rust-gems ``bpe``) and wordchipper, and a Llama-3-style
tokenizer.json against Hugging Face ``tokenizers``; then 1, 2, 4 threads on one tokenizer.

    python bench/bench_encode_published.py [--tiktoken-tgz FILE] [--repeat 3] [--quick]

Each library runs in a fresh process (``treemem.run_measured``: peak memory of the
process tree), loads its tokenizer (timed: each file read by its own library) and encodes
each whole text in one thread ``--repeat`` times: the table shows the first encode
(cold caches), then bpe-gui's best (its word cache filled); the ids of every library are checked
identical (digest of the id array) and the script stops if they are not. Texts: 20 MB of
English (en-gutenberg-20mb), the 8.9 MB Chinese corpus (zh-four-classic-novels), 1 MB of
Python (the first MB of code-python-stdlib), from ../shared/corpora (or
BPE_GUI_CORPORA_DIR).

Files: the ranks come from the npm package ``tiktoken`` as in bench_analysis.py (written
to a temporary folder); bpe-openai uses the same ranks compiled into it; wordchipper reads
them from WORDCHIPPER_CACHE_DIR/openai/NAME/NAME.tiktoken (set here: offline it would
otherwise build an empty vocabulary silently). The tokenizer.json is the cl100k ranks with
Llama 3's pipeline (Split with Llama 3's regex + ByteLevel, ignore_merges), written by
bpe-gui's exporter as in bench_imports.py (Llama 3's first 100,256 ranks are cl100k's).
"""
from __future__ import annotations

import argparse
import json
import lzma
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_analysis import fetch_tgz, npm_ranks  # noqa: E402
from bench_imports import as_llama3_json  # noqa: E402
from treemem import run_measured  # noqa: E402

# ../shared/corpora beside the repository, or BPE_GUI_CORPORA_DIR (as the tests read it)
CORPORA = Path(os.environ.get("BPE_GUI_CORPORA_DIR", ROOT.parent / "shared" / "corpora"))
TEXTS = {"en 20 MB": ("en-gutenberg-20mb.txt.xz", None),
         "zh 8.9 MB": ("zh-four-classic-novels.txt.xz", None),
         "py 1 MB": ("code-python-stdlib.py.txt.xz", 1_000_000)}

# One library in a fresh process: load, then each text best of N; prints one JSON line.
CHILD = r"""
import hashlib, json, os, sys, time
from array import array
lib, name, path, pat, texts, repeat = sys.argv[1:7]
texts, repeat = json.loads(texts), int(repeat)
t0 = time.perf_counter()
if lib == "bpe-gui":
    from bpe_gui.engine.formats import load_tokenizer
    t0 = time.perf_counter()
    tok = load_tokenizer(path)
    enc = lambda s: tok.encode(s, add_special_tokens=False)   # as HF's below
elif lib == "tiktoken":
    import tiktoken, tiktoken.load
    t0 = time.perf_counter()
    ranks = tiktoken.load.load_tiktoken_bpe(path)
    e = tiktoken.Encoding(name, pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    enc = e.encode_ordinary
elif lib == "bpe-openai":
    import bpe_openai._bindings as b   # the Rust tokenizer itself: its Python wrapper
    t0 = time.perf_counter()           # refuses texts of 1,000,000 characters or more
    enc = b.tokenizer_for_encoding(name).encode
elif lib == "wordchipper":
    import wordchipper
    opts = wordchipper.TokenizerOptions.default()
    opts.set_parallel(False)           # one thread, as the others
    t0 = time.perf_counter()
    w = wordchipper.Tokenizer.from_pretrained(name, opts)
    enc = w.encode
elif lib == "hf":
    from tokenizers import Tokenizer
    t0 = time.perf_counter()
    tk = Tokenizer.from_file(path)
    enc = lambda s: tk.encode(s, add_special_tokens=False).ids
load = time.perf_counter() - t0
out = {"load": load, "texts": {}}
for label, file in texts.items():
    text = open(file, encoding="utf-8").read()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        ids = enc(text)
        times.append(time.perf_counter() - t)
    a = array("q", ids)
    out["texts"][label] = {"s": times[0], "best": min(times), "n": len(ids),
                           "digest": hashlib.sha256(a.tobytes()).hexdigest()[:16]}
print(json.dumps(out))
"""

# Threads on one tokenizer: MB/s of 1, 2, 4 threads (each encodes its share of the
# pieces with encode) and of encode_batch(threads=k); tiktoken's encode_ordinary_batch.
THREADS = r"""
import json, sys, threading, time
lib, path, pat, file, mb = sys.argv[1:6]
text = open(file, encoding="utf-8").read()[:int(float(mb) * 1e6)]
lines = text.splitlines(keepends=True)
pieces = ["".join(lines[i:i + 400]) for i in range(0, len(lines), 400)]
mb = len(text.encode("utf-8")) / 1e6
if lib == "bpe-gui":
    from bpe_gui.engine.formats import load_tokenizer
    tok = load_tokenizer(path)
    one = lambda s: tok.encode(s, add_special_tokens=False)
    batch = lambda ps, k: tok.encode_batch(ps, threads=k, add_special_tokens=False)
else:
    import tiktoken, tiktoken.load
    e = tiktoken.Encoding("x", pat_str=pat, mergeable_ranks=tiktoken.load.load_tiktoken_bpe(path),
                          special_tokens={})
    one, batch = e.encode_ordinary, lambda ps, k: e.encode_ordinary_batch(ps, num_threads=k)
want = [one(p) for p in pieces]   # also warms the caches
res = {}
for k in (1, 2, 4):
    got = [None] * len(pieces)
    def work(j):
        for i in range(j, len(pieces), k):
            got[i] = one(pieces[i])
    t = time.perf_counter()
    ts = [threading.Thread(target=work, args=(j,)) for j in range(k)]
    [x.start() for x in ts]; [x.join() for x in ts]
    s = time.perf_counter() - t
    assert got == want
    t = time.perf_counter()
    assert batch(pieces, k) == want
    res[k] = (mb / s, mb / (time.perf_counter() - t))
print(json.dumps(res))
"""


def corpus_files(work: Path, quick: bool) -> dict[str, Path]:
    out = {}
    for label, (name, cut) in TEXTS.items():
        with lzma.open(CORPORA / name, "rt", encoding="utf-8") as f:
            text = f.read()
        if quick:
            cut = min(cut or len(text), 500_000)
        if cut:
            text = text[:text.rfind("\n", 0, cut) + 1]
        p = work / f"{label.split()[0]}.txt"
        p.write_text(text, "utf-8")
        out[label] = p
    return out


def child(script: str, *args: str, env: dict | None = None) -> tuple[dict, float]:
    res = run_measured([sys.executable, "-c", script, *args], cwd=ROOT, env=env)
    if res["returncode"] != 0:
        sys.exit(f"bench: {args[0]} failed:\n{res['stderr'][-3000:]}")
    return json.loads(res["stdout"].strip().splitlines()[-1]), res["peak_mb"]


def table(title: str, rows: dict[str, tuple[dict, float]], texts: dict[str, Path],
          ours: str = "bpe-gui") -> None:
    print(f"\n{title}")
    print(f"{'library':12} {'load s':>7} {'peak MB':>8} " +
          " ".join(f"{label + ' MB/s':>15}" for label in texts) + "   ids")
    ref = rows[ours][0]["texts"]
    for lib, (r, peak) in rows.items():
        cells = []
        for label, p in texts.items():
            t = r["texts"][label]
            mb = p.stat().st_size / 1e6 / t["s"]
            cells.append(f"{mb:>8.1f}" + (f" {ref[label]['s'] and t['s'] / ref[label]['s']:>5.1f}x"
                                            if lib != ours else " " * 7))
            if t["digest"] != ref[label]["digest"] or t["n"] != ref[label]["n"]:
                sys.exit(f"bench: {lib} and {ours} give different ids on {label}")
        print(f"{lib:12} {r['load']:>7.3f} {peak:>8.0f} " + " ".join(f"{c:>15}" for c in cells)
              + "   identical")
    warm = "  ".join(f"{label} {p.stat().st_size / 1e6 / ref[label]['best']:.1f}"
                     for label, p in texts.items())
    print(f"(MB/s of the first encode of each text by a fresh tokenizer; Nx: how many times "
          f"longer than {ours} that library takes)\n{ours} again, its word cache filled: {warm} MB/s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tiktoken-tgz", type=Path, help="the npm package (npm pack tiktoken)")
    ap.add_argument("--repeat", type=int, default=3, help="encodes per text (best is shown)")
    ap.add_argument("--quick", action="store_true", help="500 KB of each text")
    ap.add_argument("--threads-mb", type=float, default=5,
                    help="millions of characters of English for the thread section")
    args = ap.parse_args()
    if not CORPORA.is_dir():
        sys.exit(f"bench: {CORPORA} is missing; the benchmarks read ../shared/corpora.")
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        tgz = args.tiktoken_tgz or fetch_tgz(work)
        if tgz is None:
            sys.exit("bench: no ranks (give --tiktoken-tgz or install npm)")
        texts = corpus_files(work, args.quick)
        arg_texts = json.dumps({k: str(v) for k, v in texts.items()})
        env = dict(os.environ, WORDCHIPPER_CACHE_DIR=str(work / "wordchipper"))
        files = {}
        for name in ("cl100k_base", "o200k_base"):
            ranks, meta = npm_ranks(tgz, name)
            path = work / f"{name}.tiktoken"
            path.write_bytes(ranks)
            (work / f"{name}.tiktoken.json").write_text(json.dumps(meta))
            wc = work / "wordchipper" / "openai" / name
            wc.mkdir(parents=True)
            shutil.copy(path, wc / path.name)
            files[name] = (path, meta["pat_str"])
            rows = {lib: child(CHILD, lib, name, str(path), meta["pat_str"], arg_texts,
                               str(args.repeat), env=env)
                    for lib in ("bpe-gui", "tiktoken", "bpe-openai", "wordchipper")}
            table(f"{name} (one whole text, one thread)", rows, texts)
        llama = as_llama3_json(files["cl100k_base"][0], work / "llama3-style")
        rows = {lib: child(CHILD, lib, "llama3", str(llama), "", arg_texts, str(args.repeat))
                for lib in ("bpe-gui", "hf")}
        table("Llama-3-style tokenizer.json (cl100k ranks, Split + ByteLevel, ignore_merges)",
              rows, texts)
        en = texts["en 20 MB"]
        print(f"\nthreads on one tokenizer ({args.threads_mb:g} M characters of English in "
              f"pieces of 400 lines; MB/s: threads calling encode / encode_batch)")
        for name in ("o200k_base", "cl100k_base"):
            path, pat = files[name]
            for lib in ("bpe-gui", "tiktoken"):
                r, _ = child(THREADS, lib, str(path), pat, str(en), str(args.threads_mb))
                print(f"  {name:12} {lib:9} " + "  ".join(
                    f"{k} thr {v[0]:6.1f} / {v[1]:6.1f}" for k, v in r.items()))


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    main()
