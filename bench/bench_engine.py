"""Benchmark of the engine against Hugging Face `tokenizers` and `tiktoken`.

Run on purpose, never from the unit tests (pytest only collects tests/):

    python bench/bench_engine.py            # everything, full size (a few minutes)
    python bench/bench_engine.py --quick    # small slices, to check the script
    python bench/bench_engine.py --only train|encode|steps

Every measured run happens in a fresh subprocess, so peak memory (ru_maxrss) and
caches never mix between our engine and the others. Corpora come from
../shared/corpora beside the repository; the benchmark stops with a message where
that folder is absent.
"""
from __future__ import annotations

import argparse
import json
import lzma
import os
import pickle
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

EOT = "<|endoftext|>"
EN, ZH = "en-gutenberg-20mb.txt.xz", "zh-four-classic-novels.txt.xz"
TRAIN_VOCAB = 10_000
GPT2_VOCAB = 50_257
TARGETS = {"train_ratio": 3.0, "peak_mb": 1536, "encode_ratio": 0.5, "p95_ms": 16.0}


# ----- children: one measurement each, JSON on stdout --------------------------------

def _peak_mb() -> tuple[float, float]:
    """(this process, its largest child) peak resident memory in MB (Linux: KB units)."""
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return me, kids


def child_train_ours(path: str, vocab: int, out: str) -> dict:
    from bpe_gui.engine import train_bpe
    from bpe_gui.engine.trainer import _core
    t0 = time.perf_counter()
    v, merges = train_bpe(path, vocab_size=int(vocab), special_tokens=[EOT])
    secs = time.perf_counter() - t0
    if out:
        with open(out, "wb") as f:
            pickle.dump((v, merges), f)
    me, kids = _peak_mb()
    return {"secs": secs, "peak_mb": me, "workers_peak_mb": kids, "vocab": len(v),
            "core": "C" if _core.__name__.endswith("._core") else "pure Python",
            "tokens": sorted(t.hex() for t in v.values())}


def child_train_hf(path: str, vocab: int, out: str) -> dict:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from bpe_gui.engine.display import gpt2_bytes
    t0 = time.perf_counter()
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(vocab_size=int(vocab), special_tokens=[EOT], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train([path], trainer)
    secs = time.perf_counter() - t0
    me, kids = _peak_mb()
    v = tok.get_vocab()
    tokens = sorted((EOT.encode() if s == EOT else gpt2_bytes(s)).hex() for s in v)
    return {"secs": secs, "peak_mb": me, "workers_peak_mb": kids, "vocab": len(v),
            "tokens": tokens}


def child_encode(vocab_pickle: str, path: str, _unused: str) -> dict:
    import tiktoken
    from bpe_gui.engine import Tokenizer
    with open(vocab_pickle, "rb") as f:
        vocab, merges = pickle.load(f)
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    mb = len(text.encode("utf-8")) / 1e6
    res: dict = {"mb": mb, "vocab": len(vocab)}
    # ours, cold: a fresh Tokenizer (empty caches)
    t0 = time.perf_counter()
    tok = Tokenizer(vocab, merges, special_tokens=[EOT])
    t1 = time.perf_counter()
    ours = tok.encode(text)
    t2 = time.perf_counter()
    res.update(ours_build=t1 - t0, ours_encode=t2 - t1)
    t3 = time.perf_counter()
    tok.encode(text)
    res["ours_warm"] = time.perf_counter() - t3
    # tiktoken from the same vocabulary, cold
    t0 = time.perf_counter()
    specials = {EOT: tok.special_ids[EOT]}
    enc = tiktoken.Encoding("bench", pat_str=tok.pattern, special_tokens=specials,
                            mergeable_ranks={b: i for i, b in vocab.items()
                                             if i not in specials.values()})
    t1 = time.perf_counter()
    theirs = enc.encode(text, allowed_special="all")
    t2 = time.perf_counter()
    res.update(tt_build=t1 - t0, tt_encode=t2 - t1, n_tokens=len(ours),
               identical=ours == theirs)
    if ours != theirs:
        res["first_diff"] = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b),
                                 min(len(ours), len(theirs)))
    return res


def child_steps(path: str, points: str, n_steps: str) -> dict:
    from bpe_gui.engine import TrainSettings, Trainer
    n = int(n_steps)
    t0 = time.perf_counter()
    t = Trainer.from_files(path, TrainSettings(vocab_size=GPT2_VOCAB, special_tokens=(EOT,)))
    res: dict = {"build_secs": time.perf_counter() - t0, "words": len(t.word_texts),
                 "points": []}
    for k in map(int, points.split(",")):
        t.run(until=k, detail=False)
        if t.n_steps != k:
            break
        steps, undos = [], []
        for _ in range(n):                     # forward, as "step" / "play" does
            a = time.perf_counter()
            t.step()
            steps.append((time.perf_counter() - a) * 1000)
        for _ in range(n):                     # and back, as "step back" does
            a = time.perf_counter()
            t.undo()
            undos.append((time.perf_counter() - a) * 1000)
        res["points"].append({"at": k, "step": _pcts(steps), "undo": _pcts(undos)})
    res["peak_mb"] = _peak_mb()[0]
    return res


def _pcts(ms: list[float]) -> dict:
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return {"p50": statistics.median(ms), "p95": q[94], "max": max(ms)}


CHILDREN = {"train-ours": child_train_ours, "train-hf": child_train_hf,
            "encode": child_encode, "steps": child_steps}


def run_child(kind: str, *args: str) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind, *map(str, args)]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        raise SystemExit(f"{kind} failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


# ----- the three sections -------------------------------------------------------------

def decompress(name: str, dest: Path, limit: int | None) -> Path:
    out = dest / name.removesuffix(".xz")
    with lzma.open(CORPORA / name, "rb") as f, open(out, "wb") as g:
        data = f.read(limit) if limit else f.read()
        if limit:  # do not end inside a UTF-8 character
            data = data[:len(data.decode("utf-8", "ignore").encode("utf-8"))]
        g.write(data)
    return out


def section_train(files: dict[str, Path], summary: list) -> None:
    print(f"\n== Training, vocab {TRAIN_VOCAB:,}, special {EOT} (each run in its own process)")
    for name, path in files.items():
        mb = path.stat().st_size / 1e6
        ours = run_child("train-ours", path, TRAIN_VOCAB, "")
        hf = run_child("train-hf", path, TRAIN_VOCAB, "")
        ratio = ours["secs"] / hf["secs"]
        same = len(set(ours["tokens"]) & set(hf["tokens"])) / len(hf["tokens"])
        print(f"{name} ({mb:.1f} MB)")
        label = f"ours ({ours['core']} core):"
        print(f"  {label:<20}{ours['secs']:7.2f} s   peak {ours['peak_mb']:6.0f} MB"
              f" (pre-tokenizer workers {ours['workers_peak_mb']:.0f} MB)")
        print(f"  {'HF tokenizers:':<20}{hf['secs']:7.2f} s   peak {hf['peak_mb']:6.0f} MB")
        print(f"  ratio ours/HF: {ratio:.2f}x time, {ours['peak_mb'] / hf['peak_mb']:.2f}x memory;"
              f" {same:.1%} of HF's tokens are in our vocabulary too")
        peak = max(ours["peak_mb"], ours["workers_peak_mb"])
        summary.append((f"train {name}: ours/HF time", f"{ratio:.2f}x "
                        f"({ours['secs']:.1f} s vs {hf['secs']:.1f} s)",
                        f"<= {TARGETS['train_ratio']:g}x", ratio <= TARGETS["train_ratio"]))
        summary.append((f"train {name}: our peak memory", f"{peak:.0f} MB",
                        f"< {TARGETS['peak_mb']} MB", peak < TARGETS["peak_mb"]))


def section_encode(en: Path, tmp: Path, quick: bool, summary: list) -> None:
    vocab = 5_000 if quick else GPT2_VOCAB
    print(f"\n== Encoding {en.stat().st_size / 1e6:.1f} MB of English, vocab {vocab:,} "
          "(trained by our engine on the same text), fresh objects in a fresh process")
    pkl = tmp / "vocab.pkl"
    tr = run_child("train-ours", en, vocab, pkl)
    print(f"  (training that vocabulary took {tr['secs']:.1f} s)")
    r = run_child("encode", pkl, en, "")
    ours_mbs = r["mb"] / r["ours_encode"]
    tt_mbs = r["mb"] / r["tt_encode"]
    ratio = ours_mbs / tt_mbs
    warm = r["mb"] / r["ours_warm"]
    print(f"  ours:     build {r['ours_build']:.2f} s, encode {r['ours_encode']:.2f} s = "
          f"{ours_mbs:5.1f} MB/s cold ({warm:.1f} MB/s warm, second call)")
    print(f"  tiktoken: build {r['tt_build']:.2f} s, encode {r['tt_encode']:.2f} s = "
          f"{tt_mbs:5.1f} MB/s")
    print(f"  ratio ours/tiktoken: {ratio:.2f}x cold, {warm / tt_mbs:.2f}x warm; "
          f"{r['n_tokens']:,} tokens; ids identical: {r['identical']}"
          + ("" if r["identical"] else f" (first difference at token {r['first_diff']:,})"))
    summary.append(("encode: ours/tiktoken throughput (cold)",
                    f"{ratio:.2f}x ({ours_mbs:.1f} vs {tt_mbs:.1f} MB/s)",
                    f">= {TARGETS['encode_ratio']:g}x", ratio >= TARGETS["encode_ratio"]))
    summary.append(("encode: ours/tiktoken (warm cache)", f"{warm / tt_mbs:.2f}x", "(info)", None))
    summary.append(("encode: ids identical to tiktoken", str(r["identical"]), "True",
                    r["identical"]))


def section_steps(en: Path, quick: bool, summary: list) -> None:
    points = "0,200,1000" if quick else "0,1000,10000,40000"
    n = 100 if quick else 300
    print(f"\n== step()/undo() latency on {en.stat().st_size / 1e6:.1f} MB, {n} steps "
          f"(with full records: ties, affected words) then {n} undos at steps {points}")
    r = run_child("steps", en, points, n)
    print(f"  pre-tokenization and trainer set-up: {r['build_secs']:.1f} s, "
          f"{r['words']:,} distinct words, peak {r['peak_mb']:.0f} MB")
    worst = 0.0
    for p in r["points"]:
        s, u = p["step"], p["undo"]
        print(f"  at step {p['at']:>6,}: step p50 {s['p50']:6.2f} ms  p95 {s['p95']:6.2f} ms  "
              f"max {s['max']:6.1f} ms | undo p50 {u['p50']:6.2f} ms  p95 {u['p95']:6.2f} ms  "
              f"max {u['max']:6.1f} ms")
        worst = max(worst, s["p95"], u["p95"])
    summary.append(("step/undo: worst p95", f"{worst:.2f} ms", f"< {TARGETS['p95_ms']:g} ms",
                    worst < TARGETS["p95_ms"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small slices of the corpora")
    ap.add_argument("--only", choices=["train", "encode", "steps"])
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        kind, *rest = args.child
        print(json.dumps(CHILDREN[kind](*rest)))
        return 0
    if not CORPORA.is_dir():
        print(f"Corpora not found at {CORPORA}: the benchmark reads ../shared/corpora beside "
              "the repository. Nothing measured.")
        return 0
    from bpe_gui.engine.trainer import _core
    print(f"bpe-gui engine benchmark{' (quick)' if args.quick else ''}: "
          f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, "
          f"{'C' if _core.__name__.endswith('._core') else 'pure-Python'} core")
    summary: list = []
    with tempfile.TemporaryDirectory(prefix="bpe-bench-") as d:
        tmp = Path(d)
        t0 = time.perf_counter()
        en = decompress(EN, tmp, 2_000_000 if args.quick else None)
        zh = decompress(ZH, tmp, 1_000_000 if args.quick else None)
        print(f"(decompressed the corpora in {time.perf_counter() - t0:.1f} s; not counted)")
        if args.only in (None, "train"):
            section_train({"en-gutenberg": en, "zh-four-classic-novels": zh}, summary)
        if args.only in (None, "encode"):
            section_encode(en, tmp, args.quick, summary)
        if args.only in (None, "steps"):
            section_steps(en, args.quick, summary)
    print("\n== Summary")
    w = max(len(r[0]) for r in summary)
    print(f"{'measure':<{w}}  {'result':<34} {'target':<10} ok")
    for name, value, target, ok in summary:
        mark = "-" if ok is None else ("yes" if ok else "NO")
        print(f"{name:<{w}}  {value:<34} {target:<10} {mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
