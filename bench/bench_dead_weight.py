"""Dead weight (engine/analysis/dead_weight.py): how fast, against encoding the same text,
and what it finds in published vocabularies.

    python bench/bench_dead_weight.py [--mb 5] [--tiktoken-tgz FILE]

1. Speed: a tokenizer trained here on tiny Shakespeare (2,000 tokens, GPT-2 pattern), as
   itself, as its .tiktoken export and as its tokenizer.json export (the pieces then come
   from the native scanner, the native scanner, and the Hugging Face pipeline's split),
   on the first --mb MB of the 20 MB English corpus: the time of ``dead_weight_of`` and
   of ``encode`` alone (the least any count of output tokens costs), and their ratio;
   the output counts must equal the encoding's ids counted.
2. Published vocabularies (GPT-2, cl100k, o200k, from the npm package ``tiktoken`` as in
   bench_analysis.py; skipped without npm or --tiktoken-tgz) on the English corpus, the
   four Chinese novels and the Python standard library (each its first --mb MB): how
   many merged tokens have IoS >= 0.9, how many never occur, the top ones.
"""
from __future__ import annotations

import argparse
import lzma
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
# the shared corpora beside the checkout (or beside the folder of worktrees), or where
# BPE_GUI_CORPORA_DIR says
CORPORA = next((p for p in (Path(os.environ.get("BPE_GUI_CORPORA_DIR", "")),
                            ROOT.parent / "shared" / "corpora",
                            ROOT.parent.parent / "shared" / "corpora")
                if str(p) != "." and p.is_dir()), ROOT.parent / "shared" / "corpora")

from bpe_gui.engine.analysis import dead_weight_of  # noqa: E402
from bpe_gui.engine.display import readable  # noqa: E402
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer  # noqa: E402
from bpe_gui.engine.train import Trainer, TrainSettings  # noqa: E402


def text_of(name: str, mb: float) -> str:
    with lzma.open(CORPORA / name, "rt", encoding="utf-8") as f:
        return f.read(int(mb * 1_000_000))


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def speed(mb: float) -> None:
    print(f"1. speed on {mb:g} MB of English (seconds; dead weight / encode alone)")
    train = text_of("en-tinyshakespeare.txt.xz", 2)
    t = Trainer.from_text(train, TrainSettings(vocab_size=2000, pattern="gpt2"))
    t.run()
    text = text_of("en-gutenberg-20mb.txt.xz", mb)
    with tempfile.TemporaryDirectory() as d:
        export_tokenizer(t.tokenizer(), d, "tiktoken")
        export_tokenizer(t.tokenizer(), d, "hf")
        kinds = {"trained": lambda: t.tokenizer(),
                 ".tiktoken": lambda: load_tokenizer(Path(d) / "tokenizer.tiktoken"),
                 "tokenizer.json": lambda: load_tokenizer(Path(d) / "tokenizer.json")}
        for name, make in kinds.items():
            dw, t_dw = timed(lambda: dead_weight_of(make(), text))
            ids, t_enc = timed(lambda: make().encode(text))
            same = dw.output == dict(Counter(ids))
            print(f"   {name:<15} dead weight {t_dw:6.2f} s ({mb / t_dw:5.1f} MB/s)   "
                  f"encode {t_enc:5.2f} s   ratio {t_dw / t_enc:5.1f}x   "
                  f"outputs = encoding: {same}   "
                  f"{len(dw.dead())} of {len(dw.removable)} at IoS >= 0.9")


def published(mb: float, tgz: Path | None) -> None:
    from bench_analysis import fetch_tgz, npm_ranks
    import json
    work = Path(tempfile.mkdtemp())
    tgz = tgz or fetch_tgz(work)
    if tgz is None:
        print("2. published vocabularies: skipped (no npm, no --tiktoken-tgz)")
        return
    texts = {"English": text_of("en-gutenberg-20mb.txt.xz", mb),
             "Chinese": text_of("zh-four-classic-novels.txt.xz", mb),
             "Python": text_of("code-python-stdlib.py.txt.xz", mb)}
    print(f"2. published vocabularies, first {mb:g} MB of each corpus "
          "(merged tokens at IoS >= 0.9 / never occurring)")
    for name in ("gpt2", "cl100k_base", "o200k_base"):
        data, meta = npm_ranks(tgz, name)
        (work / f"{name}.tiktoken").write_bytes(data)
        (work / f"{name}.tiktoken.json").write_text(json.dumps(meta))
        tok = load_tokenizer(work / f"{name}.tiktoken")
        for corpus, text in texts.items():
            dw, secs = timed(lambda: dead_weight_of(tok, text))
            dead = dw.dead()
            n = len(dw.removable)
            top = ", ".join(readable(t.token) for t in
                            sorted(dead, key=lambda t: -t.merged)[:8])
            print(f"   {name:<12} {corpus:<8} {len(dead):6,} ({100 * len(dead) / n:4.1f}%) / "
                  f"{dw.never_seen():7,} of {n:,} ({secs:5.1f} s)   "
                  f"most merged: {top[:80]}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=5.0)
    ap.add_argument("--tiktoken-tgz", type=Path)
    ap.add_argument("--no-published", action="store_true")
    args = ap.parse_args()
    speed(args.mb)
    if not args.no_published:
        published(args.mb, args.tiktoken_tgz)
    return 0


if __name__ == "__main__":
    sys.exit(main())
