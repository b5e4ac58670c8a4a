"""Where one encode's time goes: `perf` samples of the encode alone, without the load
(bench/profile_encode.py counts instructions under callgrind; this samples time, so
cache misses, page faults and the kernel's zeroing of fresh pages show).

    python bench/perf_encode.py FILE TEXT [--warm] [--array] [--repeat 3] [--top 25] [--data DIR]

FILE is one of bench_corners.py's kinds (cl100k, o200k, llama3, qwen2, spm); TEXT is
"English" (4 MB of it, as bench_corners.py times), a corner of corpora.CORNERS
(long-words, unicode, emoji, ...) or a whole text of bench_encode_peers.py (en, zh, c,
ru). Each of --repeat freshly loaded tokenizers encodes
the text once, as bench_corners.py times it; with --warm one tokenizer encodes it once
untimed and then --repeat variants of it (a run number in front: its words are in the
cache, the text is new), as the warm batches of bench_encode_peers.py do.

`perf record` is attached to this process once the tokenizers are loaded, its events
switched on through its control fifo just before the first encode and off after the
last (perf 5.9+), so the report has the encodes only. It needs `perf` (Debian:
linux-perf) and perf_event_paranoid <= 1 or root. In a virtual machine without a PMU
perf samples on a timer: the cycles of a stalled load land on the instruction after
it. `--callers` records call chains (whose first writes the kernel's page zeroing was for).
`--keep PATH` keeps perf.data for `perf annotate -i PATH -s SYMBOL`.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import corpora  # noqa: E402
from bench_encode_peers import prepare_files, prepare_texts  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("text")
    ap.add_argument("--warm", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--keep", type=Path)
    ap.add_argument("--array", action="store_true",
                    help="encode_to_array (bench_encode_core.py's call) instead of encode")
    ap.add_argument("--callers", action="store_true",
                    help="record call chains: who the kernel's page faults were for")
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    args = ap.parse_args()
    if not shutil.which("perf"):
        sys.exit("perf_encode: no `perf` on PATH (Debian: apt-get install linux-perf)")
    from bpe_gui.engine.formats import load_tokenizer

    files = prepare_files(args.data, args.data / "wheels")
    if args.file not in files:
        sys.exit(f"perf_encode: no file {args.file!r} (known: {', '.join(files)})")
    main_texts = prepare_texts(args.data, quick=False)
    if args.text == "English":
        text = main_texts["en"].read_text("utf-8")[:4_000_000]
    elif args.text in main_texts:   # en, zh, c, ru: the main measure's whole texts
        text = main_texts[args.text].read_text("utf-8")
    else:
        text = corpora.corner(args.text, args.data).read_text("utf-8")
    size = len(text.encode("utf-8"))
    if args.warm:
        tok = load_tokenizer(files[args.file])
        tok.encode(text)
        jobs = [(tok, f"{r} {text}") for r in range(args.repeat)]
    else:
        jobs = []
        for _ in range(args.repeat):
            tok = load_tokenizer(files[args.file])
            tok.encode("a")
            jobs.append((tok, text))
    tmp = Path(tempfile.mkdtemp())
    out = args.keep or tmp / "perf.data"
    ctl, ack = tmp / "ctl", tmp / "ack"
    os.mkfifo(ctl)
    os.mkfifo(ack)
    # started with its events off and switched on and off through the fifos: the samples
    # are of the encodes alone, and perf has surely attached before the first one
    perf = subprocess.Popen(["perf", "record", "-q", "-F", "4000", "-o", str(out), "-D", "-1",
                             *(["-g"] if args.callers else []),
                             "--control", f"fifo:{ctl},{ack}", "-p", str(os.getpid())],
                            stderr=subprocess.DEVNULL)
    with open(ctl, "w") as c_out, open(ack) as a_in:
        def say(what: str) -> None:
            c_out.write(what + "\n")
            c_out.flush()
            # perf answers "ack\n" with the string's NUL after it: the next line starts with it
            if a_in.readline().strip("\x00\n ") != "ack":
                sys.exit(f"perf_encode: perf did not take {what!r}")
        say("enable")
        for tok, t in jobs:
            c = time.process_time()
            (tok.encode_to_array if args.array else tok.encode)(t)
            print(f"{size / (time.process_time() - c) / 1e6:.1f} MB/s", flush=True)
        say("disable")
    perf.send_signal(signal.SIGINT)
    perf.wait()
    report = subprocess.run(["perf", "report", "-i", str(out), "--no-children", "--sort",
                             "symbol", "--stdio", *(["-G"] if args.callers else [])],
                            capture_output=True, text=True).stdout
    rows = [line for line in report.splitlines() if line.strip() and not line.startswith("#")]
    print("\n".join(rows[:args.top]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
