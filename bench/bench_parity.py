"""Parity-aware training on six languages: ours (``bpe-gui train --parity``) against
Hugging Face tokenizers' ``ParityBpeTrainer`` on the same lines, and against our plain
training (``bpe-gui train``, the same number of merges) on the same six training files,
each in a fresh process, alternating, best of ``--runs``; the parity merges compared.

The six "languages" are the shared corpora (../shared/corpora): English prose (Gutenberg),
Early Modern English verse (Shakespeare), classical Chinese novels, Chinese+English
Markdown (d2l-zh), Python source, and Markus Kuhn's many-script UTF-8 demo (14 KB: the
low-resource one). Each gives its first ``--mb`` MB (cut at a line end) as training text
and the next 100 KB (less where the corpus is shorter) as dev text; they are written once
into ``--data``/parity-MB/.

    python bench/bench_parity.py [--mb 1] [--merges 2000] [--runs 3] [--variant base]
                                 [--baseline DIR]

``--baseline DIR``: also the parity command of another checkout (its repository root,
extensions built), alternating with the rest: a change against its base, same session.

Prints CPU seconds (user + system of the whole process, all its threads: HF trains on
both cores), wall seconds and peak memory of the process tree, our parity CPU time over
HF's and over our plain training's. On a loaded machine compare CPU seconds, not wall.
"""
from __future__ import annotations

import argparse
import json
import lzma
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpora import DEFAULT_DATA, shared  # noqa: E402
from treemem import run_measured  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = {
    "en": "en-gutenberg-20mb.txt.xz",
    "shakespeare": "en-tinyshakespeare.txt.xz",
    "zh": "zh-four-classic-novels.txt.xz",
    "d2l": "zh-en-d2l-zh-markdown.txt.xz",
    "python": "code-python-stdlib.py.txt.xz",
    "multi": "multi-utf8-demo.txt",
}
DEV_BYTES = 100_000

HF_SCRIPT = r"""
import json, sys
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
spec = json.loads(sys.argv[1])
def lines(p):
    with open(p, encoding="utf-8", newline="\n") as f:
        return f.readlines()
tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tr = trainers.ParityBpeTrainer(num_merges=spec["merges"], variant=spec["variant"],
                               show_progress=False)
tr.train_from_iterator(tok, [iter(lines(p)) for p in spec["train"]],
                       dev_iterators=[iter(lines(p)) for p in spec["dev"]])
tok.save(spec["out"])
"""


def cut_at_line(data: bytes, limit: int) -> bytes:
    if len(data) <= limit:
        return data
    end = data.rfind(b"\n", 0, limit)
    return data[:end + 1] if end >= 0 else data[:limit]


def build(data_dir: Path, mb: float) -> dict[str, tuple[Path, Path]]:
    folder = data_dir / f"parity-{mb:g}mb"
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, file in LANGUAGES.items():
        train, dev = folder / f"{name}.train.txt", folder / f"{name}.dev.txt"
        if not (train.exists() and dev.exists()):
            p = shared(file)
            raw = lzma.open(p).read() if p.suffix == ".xz" else p.read_bytes()
            # a short corpus keeps its last part (up to a third) for the dev text
            dev_size = min(DEV_BYTES, len(raw) // 3)
            head = cut_at_line(raw, min(int(mb * 1e6), len(raw) - dev_size))
            train.write_bytes(head)
            dev.write_bytes(cut_at_line(raw[len(head):], dev_size))
        out[name] = (train, dev)
    return out


def merges(path: Path) -> list[str]:
    return [" ".join(m) if isinstance(m, list) else m
            for m in json.loads(path.read_text("utf-8"))["model"]["merges"]]


def measured(cmd: list[str], cwd: Path | None = None) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = run_measured(cmd, cwd=cwd)   # (python -m finds bpe_gui in cwd first)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    res["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if res["returncode"] != 0:
        sys.exit(f"bench: {cmd[:4]}... failed:\n{res['stderr']}")
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=1.0, help="training MB per language")
    ap.add_argument("--merges", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--variant", choices=("base", "window"), default="base")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--baseline", type=Path, metavar="DIR",
                    help="another checkout whose parity command runs too (alternating)")
    args = ap.parse_args()
    if args.baseline is not None and not (args.baseline / "bpe_gui").is_dir():
        sys.exit(f"bench: --baseline {args.baseline}: no bpe_gui package there; give the "
                 "root of a checkout with its extensions built")
    langs = build(args.data, args.mb)
    tmp = Path(tempfile.mkdtemp(prefix="bench-parity-"))
    ours_cmd = [sys.executable, "-m", "bpe_gui.cli", "train", "--parity", args.variant,
                *[a for n, (t, _) in langs.items() for a in ("--language", f"{n}={t}")],
                *[a for n, (_, d) in langs.items() for a in ("--dev", f"{n}={d}")],
                "--num-merges", str(args.merges), "--lines", "--format", "hf", "-q",
                "--out", str(tmp / "ours")]
    spec = {"merges": args.merges, "variant": args.variant, "out": str(tmp / "hf.json"),
            "train": [str(t) for t, _ in langs.values()],
            "dev": [str(d) for _, d in langs.values()]}
    hf_cmd = [sys.executable, "-c", HF_SCRIPT, json.dumps(spec)]
    plain_cmd = [sys.executable, "-m", "bpe_gui.cli", "train",
                 *[str(t) for t, _ in langs.values()], "--num-merges", str(args.merges),
                 "--lines", "--format", "hf", "-q", "--out", str(tmp / "plain")]
    sizes = ", ".join(f"{n} {t.stat().st_size / 1e6:.2f}+{d.stat().st_size / 1e3:.0f}k"
                      for n, (t, d) in langs.items())
    print(f"parity {args.variant}, {args.merges} merges, six languages, training + dev "
          f"bytes: {sizes}")
    cmds = {"bpe-gui": (ours_cmd, ROOT), "plain": (plain_cmd, ROOT),
            "tokenizers": (hf_cmd, None)}
    if args.baseline is not None:
        cmds["baseline"] = ([*ours_cmd[:-1], str(tmp / "baseline")], args.baseline.resolve())
    results: dict[str, list[dict]] = {k: [] for k in cmds}
    for _ in range(args.runs):
        for name, (cmd, cwd) in cmds.items():
            results[name].append(measured(cmd, cwd))
    same = merges(tmp / "ours" / "tokenizer.json") == merges(tmp / "hf.json")
    best = {k: min(v, key=lambda r: r["cpu"]) for k, v in results.items()}
    print("(plain: our plain BPE on the six training files together; bpe-gui and "
          "tokenizers: parity" + (f"; baseline: parity in {args.baseline}" if args.baseline
                                  else "") + ")")
    print(f"{'':12} {'CPU s':>8} {'wall s':>8} {'peak MB':>8}   (best of {args.runs} "
          "alternating runs, by CPU)")
    for name, r in best.items():
        print(f"{name:12} {r['cpu']:8.2f} {r['secs']:8.2f} {r['peak_mb']:8.0f}")
    ratio = best["bpe-gui"]["cpu"] / best["tokenizers"]["cpu"]
    print(f"bpe-gui CPU / tokenizers CPU: {ratio:.2f}x (target <= 1); wall "
          f"{best['bpe-gui']['secs'] / best['tokenizers']['secs']:.2f}x; merges "
          f"{'identical' if same else 'DIFFER'}")
    print(f"parity / plain (bpe-gui, same training files): CPU "
          f"{best['bpe-gui']['cpu'] / best['plain']['cpu']:.2f}x, peak "
          f"{best['bpe-gui']['peak_mb'] / best['plain']['peak_mb']:.2f}x (target <= 1)")
    if args.baseline is not None:
        again = merges(tmp / "baseline" / "tokenizer.json") == merges(tmp / "hf.json")
        print(f"parity / baseline parity: CPU {best['bpe-gui']['cpu'] / best['baseline']['cpu']:.2f}x, "
              f"peak {best['bpe-gui']['peak_mb'] / best['baseline']['peak_mb']:.2f}x; baseline "
              f"merges {'identical' if again else 'DIFFER'}")


if __name__ == "__main__":
    main()
