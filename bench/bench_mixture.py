"""Data-mixture inference (``bpe-gui mixture``): how close the inferred proportions come to
known ones, how the error grows as samples shrink and merges are cut, and how fast it runs.

    python bench/bench_mixture.py [--trials 3] [--train-mb 8] [--sample-mb 1] [--merges 3000]
                                  [--sweep] [--speed] [--published]

Accuracy: for each trial, draw proportions for the categories (Dirichlet(1), seeded),
train a byte-level BPE with Hugging Face ``tokenizers`` (GPT-2's ByteLevel pre-tokenizer)
on that mixture of the categories' training halves, and infer the mixture from samples of
their other halves. Each corpus is cut into interleaved chunks of ``CHUNK_LINES`` lines:
even chunks train, odd chunks sample, so a sample never holds a line the tokenizer was
trained on; training documents keep their newlines. A category whose training half is
smaller than its share of the training text is repeated (counts scale alike, so the
merge order is that of the mixture). Prints the mean absolute error and the largest
error per trial and overall, and the seconds each inference took.

``--sweep``: the same tokenizers with samples of 1 MB down to 30 KB, and with the first
3,000 merges down to 100. ``--speed``: o200k_base's 200k merges on six 5 MB samples
(``--o200k FILE``, or the ranks from the npm package ``tiktoken``, as bench_analysis.py
gets them); wall and CPU seconds.
``--published``: GPT-2, cl100k, o200k (npm ``tiktoken``) and Llama 3 (``--llama3 FILE``,
Meta's tokenizer.model) over the categories' samples: the table of docs/ANALYSIS.md.

Categories: English (en-gutenberg-20mb), Chinese (zh-four-classic-novels), Python
(code-python-stdlib), Chinese-English-code Markdown (zh-en-d2l-zh-markdown) from
../shared/corpora, and, when bench/corpora.py has built them, Russian (ru-5mb) and C
(c-include-20mb).
"""
from __future__ import annotations

import argparse
import lzma
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
CORPORA = Path(os.environ.get("BPE_GUI_CORPORA_DIR", ROOT.parent / "shared" / "corpora"))
BUILT = Path(os.environ.get("BPE_GUI_BENCH_DATA", Path.home() / ".cache" / "bpe-gui-bench"))
CATEGORIES = {   # name -> (file, folder, characters read at most)
    "en": ("en-gutenberg-20mb.txt.xz", CORPORA, 8_000_000),
    "zh": ("zh-four-classic-novels.txt.xz", CORPORA, 3_000_000),
    "py": ("code-python-stdlib.py.txt.xz", CORPORA, 2_000_000),
    "md": ("zh-en-d2l-zh-markdown.txt.xz", CORPORA, 5_000_000),
    "ru": ("ru-5mb.txt", BUILT, 3_000_000),
    "c": ("c-include-20mb.txt", BUILT, 8_000_000),
}
CHUNK_LINES = 20
MB = 1_000_000


def read(path: Path, chars: int) -> str:
    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.read(chars)


def halves(text: str) -> tuple[list[str], list[str]]:
    """(training chunks, sample chunks): interleaved chunks of CHUNK_LINES lines."""
    lines = text.splitlines(keepends=True)
    chunks = ["".join(lines[i:i + CHUNK_LINES]) for i in range(0, len(lines), CHUNK_LINES)]
    return chunks[0::2], chunks[1::2]


def load_categories() -> dict[str, tuple[list[str], list[str]]]:
    out = {}
    for name, (file, folder, chars) in CATEGORIES.items():
        p = folder / file
        if p.exists():
            out[name] = halves(read(p, chars))
        else:
            print(f"(category {name}: {p} is missing, left out)")
    return out


def prefix_bytes(text: str, n: int) -> str:
    """The first ``n`` UTF-8 bytes of ``text`` (cut back to a character boundary), the
    text repeated as often as needed."""
    b = text.encode("utf-8")
    return (b * (n // len(b) + 1))[:n].decode("utf-8", "ignore")


def spread(chunks: list[str], n: int) -> str:
    """About ``n`` UTF-8 bytes of ``chunks``, taken evenly from all of them (every k-th
    chunk), so that training text and sample cover the same stretch of the corpus;
    all of them repeated when they hold fewer bytes."""
    sizes = np.array([len(c.encode("utf-8")) for c in chunks])
    total = int(sizes.sum())
    out = []
    while n >= total:
        out += chunks
        n -= total
    if n > 0:
        k = total / n
        picked = np.unique(np.floor(np.arange(0, len(chunks), k)).astype(int))
        got = 0
        for i in picked:
            if got >= n:
                break
            out.append(chunks[i])
            got += sizes[i]
    return "".join(out)


def train_hf(cats, props: dict[str, float], train_mb: float, merges: int,
             folder: Path) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    docs = []
    for name, p in props.items():
        text = spread(cats[name][0], int(p * train_mb * MB))
        lines = text.splitlines(keepends=True)
        docs += ["".join(lines[i:i + 200]) for i in range(0, len(lines), 200)]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=256 + merges, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(docs, trainer)
    path = folder / "tokenizer.json"
    tok.save(str(path))
    return path


def chunks(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    return ["".join(lines[i:i + CHUNK_LINES]) for i in range(0, len(lines), CHUNK_LINES)]


def errors(true: dict[str, float], got: dict[str, float]) -> tuple[float, float]:
    e = [abs(true[k] - got[k]) for k in true]
    return float(np.mean(e)), float(np.max(e))


def accuracy(args, cats) -> list[tuple[str, dict, dict]]:
    from bpe_gui.engine.analysis import infer_mixture
    from bpe_gui.engine.formats import load_tokenizer
    names = list(cats)
    rng = np.random.default_rng(args.seed)
    maes, maxes, secs, cpus, kept = [], [], [], [], []
    print(f"\n== accuracy: {len(names)} categories ({', '.join(names)}), {args.merges:,} merges, "
          f"training {args.train_mb} MB, samples {args.sample_mb} MB ==")
    for trial in range(args.trials):
        props = dict(zip(names, rng.dirichlet(np.ones(len(names)))))
        folder = Path(tempfile.mkdtemp(prefix="mix"))
        t0 = time.perf_counter()
        path = train_hf(cats, props, args.train_mb, args.merges, folder)
        t_train = time.perf_counter() - t0
        tok = load_tokenizer(path)
        samples = {n: spread(cats[n][1], int(args.sample_mb * MB)) for n in names}
        t0, c0 = time.perf_counter(), time.process_time()
        r = infer_mixture(tok, samples, merges=args.merges)
        sec, cpu = time.perf_counter() - t0, time.process_time() - c0
        mae, mx = errors(props, r.proportions)
        maes.append(mae)
        maxes.append(mx)
        secs.append(sec)
        cpus.append(cpu)
        kept.append((str(path), props, samples))
        print(f"trial {trial}: true  " + "  ".join(f"{n} {props[n]:.3f}" for n in names))
        print("         got   " + "  ".join(f"{n} {r.proportions[n]:.3f}" for n in names))
        print(f"         MAE {mae:.4f}  max {mx:.4f}  inference {sec:.1f} s ({cpu:.1f} s CPU) "
              f"({r.rounds} rounds, {r.constraints:,} constraints)  training {t_train:.1f} s")
    print(f"overall: MAE {np.mean(maes):.4f}  max error {np.max(maxes):.4f}  "
          f"inference {np.mean(secs):.1f} s wall mean, {np.max(secs):.1f} s max; "
          f"{np.mean(cpus):.1f} s CPU mean, {np.max(cpus):.1f} s max")
    return kept


def sweep(kept) -> None:
    from bpe_gui.engine.analysis import infer_mixture
    from bpe_gui.engine.formats import load_tokenizer
    print("\n== error as samples shrink (all merges) ==")
    print("sample    MAE      max     seconds")
    for size in (1.0, 0.3, 0.1, 0.03):
        res = []
        for path, props, samples in kept:
            tok = load_tokenizer(path)
            s = {n: spread(chunks(t), int(size * MB)) for n, t in samples.items()}
            t0 = time.perf_counter()
            r = infer_mixture(tok, s)
            res.append((*errors(props, r.proportions), time.perf_counter() - t0))
        a = np.array(res)
        print(f"{size * 1000:5.0f} KB  {a[:, 0].mean():.4f}   {a[:, 1].max():.4f}  {a[:, 2].mean():6.1f}")
    print("\n== error as merges are cut (1 MB samples) ==")
    print("merges    MAE      max     seconds")
    for m in (3000, 1000, 300, 100):
        res = []
        for path, props, samples in kept:
            tok = load_tokenizer(path)
            t0 = time.perf_counter()
            r = infer_mixture(tok, samples, merges=m)
            res.append((*errors(props, r.proportions), time.perf_counter() - t0))
        a = np.array(res)
        print(f"{m:6d}    {a[:, 0].mean():.4f}   {a[:, 1].max():.4f}  {a[:, 2].mean():6.1f}")


def published_files(work: Path, wheels: Path | None) -> list[tuple[str, Path]]:
    """GPT-2, cl100k, o200k (.tiktoken from the npm package tiktoken) and Llama 3 (Meta's
    tokenizer.model from a llama-models wheel, or where that package is installed)."""
    import json
    from bench_analysis import fetch_tgz, npm_ranks
    from bench_imports import from_wheels
    out = []
    tgz = fetch_tgz(work)
    if tgz is None:
        print("(npm is missing or offline: no GPT-2, cl100k, o200k)")
    for label, name in (("GPT-2", "gpt2"), ("cl100k", "cl100k_base"), ("o200k", "o200k_base")):
        if tgz is None:
            break
        ranks, meta = npm_ranks(tgz, name)
        (work / f"{name}.tiktoken").write_bytes(ranks)
        (work / f"{name}.tiktoken.json").write_text(json.dumps(meta))
        out.append((label, work / f"{name}.tiktoken"))
    l3 = from_wheels(wheels, "llama_models", "llama3/tokenizer.model")
    if l3:
        (work / "llama3").mkdir()
        (work / "llama3" / "tokenizer.model").write_bytes(l3)
        out.append(("Llama 3", work / "llama3" / "tokenizer.model"))
    else:
        print("(no Llama 3 tokenizer.model: pip download llama-models --no-deps -d DIR, "
              "then --wheels DIR)")
    return out


def speed(args) -> None:
    """o200k's 200k merges on six 5 MB samples: seconds per stage and peak memory."""
    import resource
    from bpe_gui.engine.analysis import infer_mixture
    from bpe_gui.engine.formats import load_tokenizer
    work = Path(tempfile.mkdtemp(prefix="mixspeed"))
    files = {"o200k": args.o200k} if args.o200k else dict(published_files(work, None))
    if "o200k" not in files:
        print("(no o200k_base: --speed skipped)")
        return
    samples = {}
    for name, (file, folder, _) in CATEGORIES.items():
        p = folder / file
        if p.exists():
            samples[name] = prefix_bytes(read(p, 6_000_000), 5 * MB)
    tok = load_tokenizer(files["o200k"])
    stamps: dict[str, list[float]] = {}
    t0, c0 = time.perf_counter(), time.process_time()

    def progress(stage, done, total):
        stamps.setdefault(stage, [time.perf_counter() - t0, 0.0])[1] = time.perf_counter() - t0
    r = infer_mixture(tok, samples, merges=args.speed_merges, progress=progress)
    total, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"\n== speed: o200k_base, {r.merges_used:,} merges, {len(samples)} samples of 5 MB ==")
    for stage, (a, b) in stamps.items():
        print(f"{stage:8s} {b - a:7.1f} s")
    print(f"total    {total:7.1f} s wall, {cpu:.1f} s CPU ({r.rounds} solve rounds); peak memory "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    print("proportions: " + "  ".join(f"{k} {v:.3f}" for k, v in r.proportions.items()))


def published(args) -> None:
    """The docs table: each published tokenizer over the categories' samples."""
    from bpe_gui.engine.analysis import infer_mixture
    from bpe_gui.engine.formats import load_tokenizer
    work = Path(tempfile.mkdtemp(prefix="mixpub"))
    samples = {}
    for name, (file, folder, _) in CATEGORIES.items():
        p = folder / file
        if p.exists():
            samples[name] = spread(halves(read(p, CATEGORIES[name][2]))[1],
                                   int(args.sample_mb * MB))
    names = list(samples)
    print(f"\n== published tokenizers, first {args.published_merges:,} merges, samples "
          f"{args.sample_mb} MB ==")
    print("| tokenizer | " + " | ".join(names) + " | CPU seconds |")
    print("|---|" + "---:|" * (len(names) + 1))
    for label, path in published_files(work, args.wheels):
        tok = load_tokenizer(path)
        c0 = time.process_time()
        r = infer_mixture(tok, samples, merges=args.published_merges)
        print(f"| {label} | " + " | ".join(f"{100 * r.proportions[n]:.1f}%" for n in names)
              + f" | {time.process_time() - c0:.0f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--train-mb", type=float, default=8.0)
    ap.add_argument("--sample-mb", type=float, default=1.0)
    ap.add_argument("--merges", type=int, default=3000)
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--speed", action="store_true")
    ap.add_argument("--speed-merges", type=int, default=None, help="(default: all 200k)")
    ap.add_argument("--o200k", type=Path, default=next(
        (p for p in [Path("/work/assets/o200k_base.tiktoken")] if p.exists()), None),
        help="o200k_base.tiktoken for --speed (default: the npm package's)")
    ap.add_argument("--published", action="store_true")
    ap.add_argument("--published-merges", type=int, default=3000)
    ap.add_argument("--wheels", type=Path, help="folder with a llama-models wheel (Llama 3)")
    ap.add_argument("--no-accuracy", action="store_true")
    args = ap.parse_args()
    if not args.no_accuracy:
        kept = accuracy(args, load_categories())
        if args.sweep:
            sweep(kept)
    if args.published:
        published(args)
    if args.speed:
        speed(args)


if __name__ == "__main__":
    main()
