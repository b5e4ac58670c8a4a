"""Each merge strategy forced against the reference merge: instructions of one cold encode
(callgrind, counted only around the call), per file and text.

    python bench/bench_strategies.py [--files cl100k,llama3] [--texts english,chinese,c,russian]
                                     [--strategies all] [--bytes 400000] [--data DIR]

Each (file, text, strategy) runs in a process of its own under valgrind with
BPE_GUI_MERGE=strategy (auto: none forced), the tokenizer loaded and warmed before the
count starts, so the figure is the encode alone, whatever the machine's load. A strategy
stays in csrc/merge/ only while it gains 10% or more on some published file and text
on every CPU it runs on (issue 65: time that with bench_encode_stages.py --strategies;
instructions here say where, whatever the load).
Needs valgrind and its headers (Debian: valgrind), and a C compiler.
"""
from __future__ import annotations

import argparse
import lzma
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import corpora  # noqa: E402

TOGGLE = """#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_TOGGLE_COLLECT; }
void cg_stop(void) { CALLGRIND_TOGGLE_COLLECT; CALLGRIND_STOP_INSTRUMENTATION; }
"""
ONE = """import ctypes, sys
sys.path.insert(0, sys.argv[1])
from bpe_gui.engine.formats import load_tokenizer
text = open(sys.argv[3], encoding="utf-8").read()
tok = load_tokenizer(sys.argv[2])
tok.encode("a")
cg = ctypes.CDLL(sys.argv[4])
cg.cg_start()
tok.encode(text)
cg.cg_stop()
"""
FILES = {"cl100k": "cl100k_base.tiktoken", "o200k": "o200k_base.tiktoken",
         "llama3": "llama3/tokenizer.json", "qwen2": "qwen2/tokenizer.json",
         "spm": "spm/tokenizer.json"}


def text_of(name: str, data: Path, size: int) -> str:
    """A stretch of `size` bytes (whole lines) from the middle of a corpus."""
    if name == "english":
        with lzma.open(corpora.shared("en-gutenberg-20mb.txt.xz"), "rt", encoding="utf-8") as f:
            raw = f.read(6_000_000 + size)[6_000_000:]
    elif name == "chinese":
        with lzma.open(corpora.shared("zh-four-classic-novels.txt.xz"), "rt",
                       encoding="utf-8") as f:
            raw = f.read(1_000_000 + size // 3)[1_000_000:]
    elif name == "c":
        raw = corpora.c_source(data).read_text("utf-8")[1_000_000:1_000_000 + size]
    elif name == "russian":
        raw = corpora.russian(data).read_text("utf-8")[500_000:500_000 + size // 2]
    else:
        raise SystemExit(f"bench_strategies: no text named {name!r}")
    return raw[raw.find("\n") + 1:raw.rfind("\n") + 1]


def count(lib: Path, script: Path, path: Path, text: Path, strategy: str, out: Path) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("BPE_GUI_MERGE", None)
    if strategy != "auto":
        env["BPE_GUI_MERGE"] = strategy
    subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
                    f"--callgrind-out-file={out}", sys.executable, str(script), str(ROOT),
                    str(path), str(text), str(lib)], env=env, capture_output=True, check=True)
    return int(re.search(r"^totals: (\d+)", out.read_text(), re.M).group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", default="cl100k,llama3")
    ap.add_argument("--texts", default="english,chinese,c,russian")
    ap.add_argument("--strategies", default="all")
    ap.add_argument("--bytes", type=int, default=400_000)
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from bpe_gui.engine.tokenizers import merge_strategies
    names = [s.name for s in merge_strategies()] \
        if args.strategies == "all" else args.strategies.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "toggle.c").write_text(TOGGLE)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", str(d / "toggle.c"), "-o",
                        str(d / "toggle.so")], check=True)
        (d / "one.py").write_text(ONE)
        print("| file | text | " + " | ".join(["auto", *names]) + " |")
        print("|---|---|" + "---|" * (len(names) + 1))
        for f in args.files.split(","):
            path = args.data / "files" / FILES[f]
            if not path.exists():
                sys.exit(f"bench_strategies: {path} is missing; run bench/bench_encode_peers.py once")
            for t in args.texts.split(","):
                tp = d / f"{t}.txt"
                if not tp.exists():
                    tp.write_text(text_of(t, args.data, args.bytes), "utf-8")
                got = {s: count(d / "toggle.so", d / "one.py", path, tp, s, d / "cg.out")
                       for s in ["auto", *names]}
                ref = got.get("reference") or got["auto"]
                cells = [f"{got[s] / 1e6:.1f}M ({got[s] / ref - 1:+.0%})" for s in ["auto", *names]]
                print(f"| {f} | {t} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
