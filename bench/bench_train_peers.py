"""Training against the other BPE trainers: whole process, wall and CPU, peak memory of
the process tree, and how each one's merges compare with Hugging Face's and ours.

Run on purpose, never from the unit tests:

    python bench/bench_train_peers.py                       # 20 MB English -> 10k, 3 rounds
    python bench/bench_train_peers.py --workloads en20,zh9,py256,code1g --rounds 3
    python bench/bench_train_peers.py --threads 1,2,16      # every engine at 1, 2, 16 threads
    python bench/bench_train_peers.py --quick               # a 2 MB slice, to check the script
    python bench/bench_train_peers.py --engines ours,gigabpe --rounds 5
    python bench/bench_train_peers.py --before ../main    # + "ours-before": another checkout
    python bench/bench_train_peers.py --engines ours,gigabpe --rounds 10   # + medians

``--threads`` runs every engine at each thread count given (ours ``--threads N``;
gigabpe ``threads=N``; the Rust libraries through ``RAYON_NUM_THREADS=N``, their thread
pool); without it each engine uses what it takes by default (ours: every core).

Every run is a fresh interpreter (``python -c``), and the engines take turns round by
round (ours, gigabpe, ..., ours, gigabpe, ...) so a change in the machine's load hits all
alike. What is measured is the whole process, start-up and import included, from the
corpus file to the merges on disk (ours and gigabpe write ``tokenizer.json``; the
others are asked for their merges in memory and write them as a small JSON file):

- wall: from the parent's start of the process to its exit;
- CPU: user + system seconds of the process and every descendant it waited for
  (``getrusage(RUSAGE_CHILDREN)`` around each run);
- peak: the largest summed RSS of the whole process tree (``treemem.py``).

Our package is byte-compiled first (``compileall``), as an installed one is. The table
shows the best of the rounds of each figure (the machine is shared), then the
ratio of our figure to each peer's; from 5 rounds on, a second table gives the medians
(a lent machine's speed drifts by more than the gaps being measured). Every peer gets GPT-2's pattern, byte-level symbols
and the special token ``<|endoftext|>``; vocabulary sizes count 256 bytes + specials +
merges where the library allows it.

Merges are compared as the sequence of new tokens (left + right, in bytes) against
Hugging Face's ``BpeTrainer`` (one text per line, 256 bytes as the initial alphabet), ours
with ``--lines`` and ours (whole files). Where two lists part, the first differing index is printed with the
two tokens and the likely reason: a token that crosses a line end (``\\n`` and what
follows: whole files, not lines), the same tokens in another order (a tie rule), or a
shorter list (an alphabet of only the bytes seen).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import corpora  # noqa: E402
from treemem import TreeSampler  # noqa: E402

EOT = "<|endoftext|>"
GPT2_PAT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
WORKLOADS = {   # name -> (how to get the corpus, vocabulary size, default engines)
    "en20": ("en-gutenberg-20mb", 10_000,
             ("ours", "ours-lines", "gigabpe", "gigatoken", "hf", "rustbpe", "ffbpe",
              "fast-bpe-rs")),
    "zh9": ("zh-four-classic-novels", 10_000, ("ours", "ours-lines", "gigabpe", "hf",
                                             "rustbpe")),
    "py256": ("python-256mb", 32_000, ("ours", "ours-lines", "gigabpe", "hf", "rustbpe",
                                       "ffbpe")),
    "code1g": ("code-1gib", 32_000, ("ours", "ours-lines", "gigabpe", "gigatoken", "ffbpe")),
}
# what each engine reads as one text, its tie rule and initial alphabet (from the
# libraries' documentation and source; the merge comparison checks what it can)
HOW = {
    "ours": "whole files; ties: greatest pair; 256 bytes",
    "ours-before": "as ours, from the checkout given with --before (built in place)",
    "ours-lines": "one text per line (--lines); ties: HF's (--tie-break lowest-ids-hf); 256 bytes",
    "gigabpe": "one text per line; HF's tie rule; only the bytes seen (asked for as many "
               "merges as ours: the vocabulary size less the bytes never seen)",
    "gigatoken": "whole file; tie_breaking='huggingface'; 256 bytes",
    "hf": "one text per line; its own tie rule; 256 bytes (initial_alphabet)",
    "rustbpe": "one text per line (the file's lines as an iterator); 256 bytes",
    "ffbpe": "one text per line (add_source over the file's lines); 256 bytes",
    "fast-bpe-rs": "one text per line (a list of the file's lines); 256 bytes",
}

# ----- the children: each is `python -c CHILD engine corpus vocab outdir` -----------------

CHILD = r'''
import json, sys
engine, path, vocab, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
EOT = "<|endoftext|>"
PAT = sys.argv[5]
THREADS = int(sys.argv[6]) or None   # 0: the library's default

def dump(tokens):   # the merged tokens in order, as hex
    with open(out + "/merges.json", "w") as f:
        json.dump([t.hex() for t in tokens], f)

if engine == "gigabpe":   # vocab: its alphabet is the bytes seen (see seen_bytes)
    import gigabpe
    gigabpe.train_tokenizer([path], vocab, out + "/tokenizer.json", pretokenizer="bytelevel",
                            special_tokens=[EOT], threads=THREADS)
elif engine == "gigatoken":
    import gigatoken
    v, merges = gigatoken.train_bpe(path, vocab, [EOT], tie_breaking="huggingface")
    dump([a + b for a, b in merges])
elif engine == "hf":
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tr = trainers.BpeTrainer(vocab_size=vocab, special_tokens=[EOT], show_progress=False,
                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train([path], tr)
    tok.save(out + "/tokenizer.json")
elif engine == "rustbpe":
    import rustbpe
    tok = rustbpe.Tokenizer()
    with open(path, encoding="utf-8", newline="") as f:
        tok.train_from_iterator(f, vocab - 1, pattern=PAT)
    ranks = sorted(tok.get_mergeable_ranks(), key=lambda r: r[1])
    dump([bytes(t) for t, r in ranks if r >= 256])
elif engine == "ffbpe":
    import ffbpe
    pre = ffbpe.PreTokenizer([EOT], pat_str=PAT)
    counter = pre.word_counter()
    with open(path, encoding="utf-8", newline="") as f:
        counter.add_source(f)
    tr = ffbpe.BpeTrainer([EOT])
    tr.add_word_counter(counter)
    tr.train(vocab)
    tr.validate_model().save_merges_txt(out + "/merges.txt")
elif engine == "fast-bpe-rs":
    import fast_bpe_rs
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().splitlines(keepends=True)
    bpe = fast_bpe_rs.BPE(PAT, {EOT: vocab - 1})
    bpe.train(vocab - 1, lines)
    del lines
    dump([bpe.decode([i]) for i in range(256, vocab - 1)])
else:
    raise SystemExit("unknown engine " + engine)
'''


def ours_lines_supported() -> bool:
    r = subprocess.run([sys.executable, "-m", "bpe_gui", "train", "--help"], cwd=ROOT,
                       env=child_env(), capture_output=True, text=True)
    return "--lines" in r.stdout


BEFORE: Path | None = None   # --before: the checkout "ours-before" runs


def child_env(engine: str = "", threads: int = 0) -> dict:
    env = dict(os.environ)
    env.pop("RAYON_NUM_THREADS", None)
    if threads:   # the Rust libraries' thread pool (rayon) reads it
        env["RAYON_NUM_THREADS"] = str(threads)
    root = BEFORE if engine == "ours-before" and BEFORE is not None else ROOT
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def command(engine: str, path: Path, vocab: int, out: Path, threads: int = 0) -> list[str]:
    """The command that runs one engine; threads 0: its default."""
    if engine in ("ours", "ours-lines", "ours-before"):
        cmd = [sys.executable, "-m", "bpe_gui", "train", str(path), "--vocab-size", str(vocab),
               "--special-token", EOT, "--format", "hf", "--out", str(out), "-q"]
        if threads:
            cmd += ["--threads", str(threads)]
        return cmd + (["--lines", "--tie-break", "lowest-ids-hf"] if engine == "ours-lines" else [])
    return [sys.executable, "-c", CHILD, engine, str(path), str(vocab), str(out), GPT2_PAT,
            str(threads)]


def seen_bytes(path: Path) -> int:
    """How many distinct byte values the file holds: the alphabet of a trainer that starts
    from the bytes seen (gigabpe), so that it can be asked for as many merges as ours."""
    import numpy as np
    seen = np.zeros(256, dtype=np.int64)
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            seen += np.bincount(np.frombuffer(chunk, dtype=np.uint8), minlength=256)
    return int(np.count_nonzero(seen))


def engine_vocab(engine: str, vocab: int, alphabet: int) -> int:
    """The vocabulary size to ask an engine for so that it makes the same number of merges
    as ours (256 bytes + specials + merges): like with like."""
    return vocab - (256 - alphabet) if engine == "gigabpe" else vocab


def measure(cmd: list[str], engine: str, threads: int = 0) -> dict:
    """Whole-process wall, CPU (the process and its waited-for descendants) and tree peak."""
    import time
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    # `python -m` imports from its working folder first: the checkout that engine runs
    cwd = BEFORE if engine == "ours-before" and BEFORE is not None else ROOT
    proc = subprocess.Popen(cmd, cwd=cwd, env=child_env(engine, threads), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    sampler = TreeSampler(proc.pid).start()
    try:
        out, err = proc.communicate()
    finally:
        sampler.stop()
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode:
        raise SystemExit(f"{cmd[:4]}... failed ({proc.returncode}):\n{err[-2000:]}")
    return {"wall": wall, "cpu": cpu, "peak": sampler.peak_bytes / 1e6}


# ----- merges ---------------------------------------------------------------------------

def _gpt2_bytes(s: str) -> bytes:
    sys.path.insert(0, str(ROOT))
    from bpe_gui.engine.display import gpt2_bytes
    return gpt2_bytes(s)


def merged_tokens(out: Path) -> list[bytes]:
    """The new tokens in merge order, from whatever the engine wrote."""
    if (out / "merges.json").exists():
        return [bytes.fromhex(h) for h in json.loads((out / "merges.json").read_text())]
    if (out / "merges.txt").exists():   # ffbpe: "left right => count" in byte-level text
        toks = []
        for line in (out / "merges.txt").read_text("utf-8").splitlines():
            if not line or line.startswith("#"):
                continue
            pair = line.rsplit(" => ", 1)[0].split(" ")   # (a token may be "=>")
            toks.append(_gpt2_bytes(pair[0]) + _gpt2_bytes(pair[1]))
        return toks
    model = json.loads((out / "tokenizer.json").read_text("utf-8"))["model"]
    toks = []
    for m in model["merges"]:
        a, b = m.split(" ", 1) if isinstance(m, str) else m
        toks.append(_gpt2_bytes(a) + _gpt2_bytes(b))
    return toks


def crosses_line(t: bytes) -> bool:
    """A token no line-by-line trainer can make: a line end with something after it."""
    i = t.find(b"\n")
    return 0 <= i < len(t) - 1


def compare(mine: list[bytes], ref: list[bytes]) -> str:
    """How `mine` differs from `ref`: 'identical', or the first differing index and why."""
    n = min(len(mine), len(ref))
    k = next((i for i in range(n) if mine[i] != ref[i]), None)
    if k is None:
        if len(mine) == len(ref):
            return f"identical ({len(mine):,} merges)"
        return (f"same first {n:,} merges, then {len(mine):,} against {len(ref):,} "
                f"(different number of merges: alphabet or vocabulary count)")
    a, b = mine[k], ref[k]
    if crosses_line(a) or crosses_line(b):
        why = "a token across a line end: whole files against lines"
    else:
        near_a = a in ref[max(0, k - 50):k + 50]
        near_b = b in mine[max(0, k - 50):k + 50]
        why = ("the same tokens in another order: a tie rule" if near_a and near_b
               else "different tokens: the counts differ (lines/files, alphabet or pattern)")
    same = len(set(mine) & set(ref))
    return (f"first differs at merge #{k + 1:,}: {a!r} against {b!r} ({why}); "
            f"{same:,} of {len(ref):,} tokens shared")


# ----- the run ----------------------------------------------------------------------------

def corpus_path(name: str, data: Path, quick: bool) -> Path:
    if name == "en-gutenberg-20mb":
        p = corpora.decompressed("en-gutenberg-20mb.txt.xz", data)
    elif name == "zh-four-classic-novels":
        p = corpora.decompressed("zh-four-classic-novels.txt.xz", data)
    elif name == "python-256mb":
        p = corpora.python_256mb(data)
    elif name == "code-1gib":
        p = corpora.code_1gib(data)
    else:
        raise SystemExit(f"unknown corpus {name}")
    if not quick:
        return p
    small = data / f"quick-train-{p.stem}.txt"
    if not small.exists():
        body = p.read_bytes()[:2_000_000]
        small.write_bytes(body[:body.rfind(b"\n") + 1])
    return small


def thread_counts(text: str | None) -> list[int]:
    """'1,2,16' -> [1, 2, 16]; None -> [0] (each engine's default)."""
    if not text:
        return [0]
    try:
        counts = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise SystemExit(f"--threads {text!r}: give whole numbers, e.g. 1,2,16") from None
    if not counts or min(counts) < 1:
        raise SystemExit(f"--threads {text!r}: every count must be at least 1")
    return counts


def label(engine: str, threads: int) -> str:
    return f"{engine} x{threads}" if threads else engine


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default="en20", help=f"comma list of {', '.join(WORKLOADS)}")
    ap.add_argument("--engines", default=None, help="comma list (default: the workload's)")
    ap.add_argument("--threads", default=None, metavar="N,N,...",
                    help="run every engine at each of these thread counts (default: each "
                         "engine's own default)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--before", type=Path, default=None, metavar="DIR",
                    help="another checkout (C built in place) to run as ours-before")
    args = ap.parse_args()
    global BEFORE
    BEFORE = args.before.resolve() if args.before else None
    threads = thread_counts(args.threads)
    args.data.mkdir(parents=True, exist_ok=True)
    # the bytecode an installed package has (pip compiles it; the peers' wheels have it):
    # without it every run of ours would compile ~100 modules first
    for root in (ROOT, BEFORE) if BEFORE is not None else (ROOT,):
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "bpe_gui")],
                       check=True, stdout=subprocess.DEVNULL)
    lines_ok = ours_lines_supported()
    print(f"machine: {os.cpu_count()} cores, {len(os.sched_getaffinity(0))} usable")
    for wl in args.workloads.split(","):
        name, vocab, default = WORKLOADS[wl]
        engines = args.engines.split(",") if args.engines else list(default)
        if BEFORE is not None and "ours-before" not in engines:
            engines.insert(1, "ours-before")
        if "ours-lines" in engines and not lines_ok:
            print("note: this checkout's `bpe-gui train` has no --lines: no ours-lines row")
            engines.remove("ours-lines")
        run_workload(wl, engines, threads, args)


def run_workload(wl: str, engines: list[str], threads: list[int], args) -> None:
    name, vocab, _ = WORKLOADS[wl]
    path = corpus_path(name, args.data, args.quick)
    size = path.stat().st_size
    alphabet = seen_bytes(path)
    print(f"\n== {wl}: {path.name} ({size / 1e6:,.1f} MB) -> {vocab:,} tokens, "
          f"{args.rounds} rounds, load {os.getloadavg()[0]:.1f}")
    jobs = [(e, t) for t in threads for e in engines]
    runs: dict[str, list[dict]] = {label(e, t): [] for e, t in jobs}
    merges: dict[str, list[bytes]] = {}     # each engine's, from its first thread count
    same: dict[str, bool] = {}              # the same merges at every thread count
    for r in range(args.rounds):
        for e, t in jobs:
            out = Path(tempfile.mkdtemp(prefix=f"bench-train-{e}-"))
            try:
                cmd = command(e, path, engine_vocab(e, vocab, alphabet), out, t)
                res = measure(cmd, e, t)
                runs[label(e, t)].append(res)
                if r == 0:
                    got = merged_tokens(out)
                    if e in merges:
                        same[e] = same.get(e, True) and got == merges[e]
                    else:
                        merges[e] = got
            finally:
                shutil.rmtree(out, ignore_errors=True)
            print(f"  round {r + 1} {label(e, t):14s} wall {res['wall']:7.2f} s  cpu "
                  f"{res['cpu']:7.2f} s  peak {res['peak']:7.0f} MB", flush=True)
    best = {k: {m: min(x[m] for x in v) for m in ("wall", "cpu", "peak")}
            for k, v in runs.items()}
    print_table(wl, args.rounds, jobs, best, merges)
    if args.rounds >= 5:   # on a machine whose speed drifts, the middle run says more
        middle = {k: {m: statistics.median(x[m] for x in v) for m in ("wall", "cpu", "peak")}
                  for k, v in runs.items()}
        print_table(wl, args.rounds, jobs, middle, merges, "median")
    for e, ok in same.items():
        print(f"  {e}: {'the same' if ok else 'DIFFERENT'} merges at "
              f"{', '.join(map(str, threads))} threads")
    print("\nmerges compared (as the new tokens, in order):")
    done: set[frozenset] = set()
    for ref in ("hf", "ours-lines", "ours"):   # HF's, ours as HF reads, ours
        if ref not in merges:
            continue
        for e in engines:
            if e != ref and frozenset((e, ref)) not in done:
                done.add(frozenset((e, ref)))
                print(f"  {e} against {ref}: {compare(merges[e], merges[ref])}")
    print("\nwhat each reads as one text, its tie rule, its alphabet:")
    for e in engines:
        print(f"  {e}: {HOW[e]}")
    for t in threads:
        verdict(best, merges, wl, t)


def print_table(wl: str, rounds: int, jobs: list, best: dict, merges: dict,
                which: str = "best") -> None:
    print(f"\n| {wl} ({which} of {rounds}) | wall s | CPU s | peak MB | ours/peer wall, "
          "CPU, peak | merges |")
    print("|---|---|---|---|---|---|")
    for e, t in jobs:
        b, me = best[label(e, t)], best.get(label("ours", t))
        ratio = "" if me is None or e == "ours" else \
            f"{me['wall'] / b['wall']:.2f}, {me['cpu'] / b['cpu']:.2f}, {me['peak'] / b['peak']:.2f}"
        print(f"| {label(e, t)} | {b['wall']:.2f} | {b['cpu']:.2f} | {b['peak']:.0f} | {ratio} | "
              f"{len(merges[e]):,} |")


def verdict(best: dict, merges: dict, workload: str, threads: int) -> None:
    """Ours (whole files) and ours-lines against gigabpe, figure by figure: ahead when
    ours is lower. gigabpe is ranked against ours-lines only when their merges are the
    same; against ours (whole files) the merges differ by design (lines)."""
    g = best.get(label("gigabpe", threads))
    if g is None:
        return
    print(f"\nagainst gigabpe ({workload}, {threads or 'default'} threads; ours / gigabpe, "
          "below 1 is ahead):")
    for e in ("ours", "ours-lines"):
        b = best.get(label(e, threads))
        if b is None:
            continue
        ratios = {k: b[k] / g[k] for k in ("wall", "cpu", "peak")}
        behind = [k for k, v in ratios.items() if v > 1.0]
        same = e == "ours-lines" and merges.get(e) == merges.get("gigabpe")
        note = "same merges" if same else "merges differ (see above)"
        print(f"  {e}: wall {ratios['wall']:.2f}, CPU {ratios['cpu']:.2f}, peak "
              f"{ratios['peak']:.2f}: "
              f"{'behind on ' + ', '.join(behind) if behind else 'ahead on all three'}; {note}")
    ours = best.get(label("ours", threads))
    if workload == "code1g" and ours is not None:
        print(f"  ours' peak {ours['peak']:.0f} MB: "
              f"{'within' if ours['peak'] <= 200 else 'over'} the 200 MB goal")


if __name__ == "__main__":
    main()
