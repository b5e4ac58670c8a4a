"""Issue 29's "no slow corner": bpe-gui's speed on each corner text against its English
speed, for every published file kind, in one run.

    python bench/bench_corners.py [--data DIR] [--files cl100k,llama3] [--repeat 2]

Files and texts as bench_encode_peers.py prepares them (the same --data folder; run that
script or bench/corpora.py once to fetch and build them): cl100k, o200k, Llama 3.2, Qwen2
and the SentencePiece-style tokenizer.json; 4 MB of the English text and the 2 MB corner
texts of corpora.CORNERS (long words, whitespace runs, digits, emoji, random Unicode,
decomposed accents). Each (file, text): a freshly loaded tokenizer, one whole-text encode,
CPU seconds, best of --repeat; the table gives MB/s and how many times slower than English
(the issue's bound: 2x). Ids are checked elsewhere (bench/check_encode_ids.py covers the
same corners against tiktoken / HF tokenizers).
"""
from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import corpora  # noqa: E402
from bench_encode_peers import prepare_files, prepare_texts  # noqa: E402

KINDS = ("cl100k", "o200k", "llama3", "qwen2", "spm")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--files", default=",".join(KINDS))
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    from bpe_gui.engine.formats import load_tokenizer

    files = prepare_files(args.data, args.data / "wheels")
    english = prepare_texts(args.data, quick=False)["en"].read_text("utf-8")[:4_000_000]
    texts = {"English": english[:english.rfind("\n") + 1]}
    for name in corpora.CORNERS:
        texts[name] = corpora.corner(name, args.data).read_text("utf-8")
    print("| file | " + " | ".join(texts) + " |")
    print("|---" * (len(texts) + 1) + "|")
    for kind in args.files.split(","):
        speeds = {}
        for name, text in texts.items():
            size, best = len(text.encode("utf-8")), float("inf")
            for _ in range(args.repeat):
                tok = load_tokenizer(files[kind])
                tok.encode("a")
                gc.collect()
                t = time.process_time()
                tok.encode(text)
                best = min(best, time.process_time() - t)
            speeds[name] = size / best / 1e6
        en = speeds["English"]
        cells = [f"{en:.0f} MB/s"] + [
            f"{v:.0f} MB/s, " + (f"**{en / v:.1f}x slower**" if en / v > 2 else f"{en / v:.1f}x")
            for name, v in speeds.items() if name != "English"]
        print(f"| {kind} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
