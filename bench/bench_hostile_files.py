"""Hostile "tokenizer" files: how fast, and in how much memory, they are refused.

Each file is sparse (a head, then a hole that reads as NUL bytes; no disk used) and is
loaded in a fresh process measured with treemem (peak RSS of the whole process). The
baseline is the same process importing the engine and loading nothing; Hugging Face
``tokenizers`` loads the tokenizer.json files under 1 GiB too, for comparison.

    python bench/bench_hostile_files.py [folder for the files, default /tmp]
"""
from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from treemem import run_measured  # noqa: E402

CASES = {   # name: (file name, head, size)
    "1 GiB, random bytes": ("tokenizer.json", random.Random(0).randbytes(4096), 1 << 30),
    "1 GiB, JSON-looking head": ("tokenizer.json", b'{"model": ' + b" " * (80 << 10), 1 << 30),
    "400 MiB, JSON-looking head": ("tokenizer.json", b'{"model": ' + b" " * (80 << 10),
                                   400 << 20),
    "400 MiB, ranks-looking head": ("x.tiktoken", b"YQ== 0\n" * 20000, 400 << 20),
}
HF = ("import sys, tokenizers\ntry:\n    tokenizers.Tokenizer.from_file(sys.argv[1])\n"
      "except Exception as e:\n    print(str(e)[:60])\n")
LOAD = ("import sys\nfrom bpe_gui.engine.formats import load_tokenizer\n"
        "from bpe_gui.engine.errors import BPEError\n"
        "try:\n    load_tokenizer(sys.argv[1])\nexcept BPEError as e:\n    print(e)\n")
BASE = "import bpe_gui.engine.formats\n"


def main() -> None:
    root = Path(tempfile.mkdtemp(dir=sys.argv[1] if len(sys.argv) > 1 else None))
    base = run_measured([sys.executable, "-c", BASE])
    print(f"{'case':30} {'secs':>6} {'peak MB':>8}   (baseline: import only, "
          f"{base['secs']:.2f} s, {base['peak_mb']:.0f} MB)")
    for name, (fname, head, size) in CASES.items():
        p = root / fname
        with open(p, "wb") as f:
            f.write(head)
            f.truncate(size)
        res = run_measured([sys.executable, "-c", LOAD, str(p)])
        print(f"{name:30} {res['secs']:6.2f} {res['peak_mb']:8.0f}   "
              f"{res['stdout'].strip()[len(str(p)):][:70]}")
        if fname == "tokenizer.json" and size < 1 << 30:
            hf = run_measured([sys.executable, "-c", HF, str(p)])
            print(f"{'  tokenizers, same file':30} {hf['secs']:6.2f} {hf['peak_mb']:8.0f}   "
                  f"{hf['stdout'].strip()[:60]}  (x{hf['peak_mb'] / res['peak_mb']:.1f} memory)")
        p.unlink()


if __name__ == "__main__":
    main()
