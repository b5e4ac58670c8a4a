"""Counting giant stretches (issue 23): peak memory of `bpe-gui count` on one stretch that
has no safe cut, for each kind of stretch, against HF tokenizers' and rustbpe's counting
(each trained with no merges, which is their counting of words) in the same run.

    python bench/bench_giant_word.py                 # 200 MB each; references at 20 MB
    python bench/bench_giant_word.py --quick         # 4 MB / 2 MB: checks the script
    python bench/bench_giant_word.py --size 200M --ref-size 50M --only spaces,cjk

Each run is a fresh process; memory is the peak of its process tree (bench/treemem.py).
The old reader held a stretch whole (645 MB for 200 MB); the block reader now carries only
the word in progress, cut at word_limit's 64 KiB pieces (bpe_gui/engine/corpus/giant.py). The
references read a file line by line (HF) or take lines from Python (rustbpe), so a stretch
with no newline is one line they hold whole: run at --ref-size, and compared with ours at
the same size. Not a unit test: nothing is asserted, figures are printed.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from treemem import run_measured  # noqa: E402

# name -> (repeated unit, preset that shows it best)
STRETCHES = {
    "spaces": (" ", "gpt2"),
    "newlines": ("\n", "cl100k"),
    "digits": ("0123456789", "cl100k"),
    "digits-gpt2": ("0123456789", "gpt2"),
    "cjk": ("中文字符测试", "o200k"),
    "cyrillic": ("приветмир", "cl100k"),
    "mixed-case": ("AbCdEfGhIj", "o200k"),
    "punctuation": ("!?.,;:-*&", "gpt2"),
    "letters": ("a", "gpt2"),
}
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

HF = textwrap.dedent("""
    import sys
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(sys.argv[2]), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    trainer = trainers.BpeTrainer(vocab_size=256, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train([sys.argv[1]], trainer)
""")
RUSTBPE = textwrap.dedent("""
    import sys, rustbpe
    def lines():
        with open(sys.argv[1], encoding="utf-8", newline="") as f:
            yield from f
    rustbpe.Tokenizer().train_from_iterator(lines(), 256, pattern=sys.argv[2])
""")


def size_arg(s: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(s[:-1]) * units[s[-1].upper()]) if s[-1].upper() in units else int(s)


def write_stretch(path: Path, unit: str, size: int) -> None:
    b = unit.encode()
    block = b * max(1, (1 << 20) // len(b))
    with open(path, "wb") as f:
        left = size // len(b) * len(b)
        while left > 0:
            f.write(block[:left])
            left -= min(left, len(block))


def measure(cmd: list[str], timeout: float) -> str:
    try:
        r = run_measured(cmd, timeout=timeout)
    except Exception as e:  # noqa: BLE001 - a timeout: say so and go on
        return f"{'-':>8} ({type(e).__name__})"
    if r["returncode"]:
        last = (r["stderr"].strip().splitlines() or ["?"])[-1][:40]
        return f"{'failed':>8} ({last})"
    return f"{r['peak_mb']:8.0f} MB {r['secs']:6.1f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=size_arg, default=200 << 20)
    ap.add_argument("--ref-size", type=size_arg, default=20 << 20)
    ap.add_argument("--only", default="", help="comma-separated stretch names")
    ap.add_argument("--no-refs", action="store_true", help="only bpe-gui")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()
    if a.quick:
        a.size, a.ref_size = 4 << 20, 2 << 20
    names = [n for n in a.only.split(",") if n] or list(STRETCHES)
    print(f"peak memory of the process tree (shared machine: times are noisy); "
          f"ours at {a.size >> 20} MB and at {a.ref_size >> 20} MB, references at "
          f"{a.ref_size >> 20} MB (HF and rustbpe count with the GPT-2 pattern)")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            unit, preset = STRETCHES[name]
            row = [f"{name:<12} {preset:<7}"]
            for size in (a.size, a.ref_size):
                f = Path(tmp) / f"{name}-{size}.txt"
                write_stretch(f, unit, size)
                out = Path(tmp) / "t.tsv"
                row.append("ours " + measure([sys.executable, "-m", "bpe_gui", "count", str(f),
                                              "--out", str(out), "--preset", preset, "-q"],
                                             a.timeout))
                if size == a.ref_size and not a.no_refs:
                    row.append("HF " + measure([sys.executable, "-c", HF, str(f),
                                                GPT2_PATTERN], a.timeout))
                    row.append("rustbpe " + measure([sys.executable, "-c", RUSTBPE, str(f),
                                                     GPT2_PATTERN], a.timeout))
                f.unlink()
            print(" | ".join(row), flush=True)


if __name__ == "__main__":
    main()
