"""Throughput of the native pre-tokenizer scanner against `regex` (run on purpose).

    python bench/bench_scan.py            # English, Chinese and code corpora, all presets
    python bench/bench_scan.py --quick    # the first 2 M characters of each

For each corpus and preset, MB/s (UTF-8 bytes per second) of:
  scan     word boundaries only, no Python objects (``_scan.count_words`` on bytes,
           without the GIL): what the streaming counter and encoder build on;
  words    ``_scan.words(preset, str)``: the list of str, as ``Pretokenizer.words``;
  regex    ``regex.findall(pattern, str)``, the reference (its words are compared).
Corpora are decompressed into memory first (not timed); each figure is the best of
--repeat runs, as wall time and as process CPU time (the machine may be shared).
"""
from __future__ import annotations

import argparse
import lzma
import sys
import time
from pathlib import Path

import regex

from bpe_gui.engine.text.presets import KIND_PATTERNS, KINDS
from bpe_gui.engine.text.scanner import _scan

CORPORA = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
FILES = {"English": "en-gutenberg-20mb.txt.xz", "Chinese": "zh-four-classic-novels.txt.xz",
         "code": "code-python-stdlib.py.txt.xz"}
# every kind of pattern the scanner runs (presets.KINDS)
PRESETS = [(kind, i, KIND_PATTERNS[kind]) for i, kind in enumerate(KINDS)]


def best(fn, repeat: int) -> tuple[float, float, object]:
    """(best wall seconds, best CPU seconds, last result) over `repeat` runs."""
    walls, cpus, out = [], [], None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus), out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the first 2 M characters of each corpus")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--corpora", type=Path, default=CORPORA)
    args = ap.parse_args(argv)
    if _scan is None:
        print("bpe_gui.engine.text._scan is not built; reinstall with a C compiler", file=sys.stderr)
        return 1
    if not args.corpora.is_dir():
        print(f"corpora not found at {args.corpora} (--corpora DIR); nothing measured")
        return 0
    print(f"{'corpus':8} {'preset':7} {'MB':>6} | {'scan MB/s':>15} | {'words MB/s':>15} |"
          f" {'regex MB/s':>15} | same")
    print(f"{'':24} | {'wall':>7} {'cpu':>7} | {'wall':>7} {'cpu':>7} | {'wall':>7} {'cpu':>7} |")
    for label, file in FILES.items():
        with lzma.open(args.corpora / file, "rt", encoding="utf-8") as f:
            text = f.read(2_000_000 if args.quick else -1)
        data = text.encode()
        mb = len(data) / 1e6
        for name, preset, pattern in PRESETS:
            rx = regex.compile(pattern)
            scan = best(lambda: _scan.count_words(preset, data), args.repeat)
            words = best(lambda: _scan.words(preset, text), args.repeat)
            ref = best(lambda: rx.findall(text), max(1, args.repeat - 1))
            same = words[2] == ref[2] and scan[2] == len(ref[2])
            cells = " | ".join(f"{mb / r[0]:7.1f} {mb / max(r[1], 1e-9):7.1f}"
                               for r in (scan, words, ref))
            print(f"{label:8} {name:7} {mb:6.1f} | {cells} | {'yes' if same else 'NO'}",
                  flush=True)
            del words, ref
    return 0


if __name__ == "__main__":
    sys.exit(main())
