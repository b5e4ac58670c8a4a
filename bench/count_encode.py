"""Repeatable counts of one ``encode_to_array``: callgrind instructions, page faults.

Two measures a timing on a shared machine cannot give, for comparing two builds of our
own code (bench/bench_encode_core.py times them against gigatoken):

    python bench/count_encode.py --rows cl100k:en,cl100k:c [--bytes 2000000] [--top 15]
    python bench/count_encode.py --faults --rows cl100k:en   # whole text, no valgrind

Default: each row's text cut to its first ``--bytes`` bytes (at a line end) is encoded
once by a freshly loaded tokenizer under ``valgrind --tool=callgrind``, instrumentation on
for that one call only (``callgrind_control -i on``/``off``, as bench/profile_encode.py
does); printed: the instructions of the call, per byte, and with ``--top`` the functions
of most instructions, inclusive. ``--faults``: no valgrind; the whole text, one call in
a fresh process, its minor page faults (each a page the kernel zeroed or mapped) and its
user and system CPU seconds, best of ``--repeat``.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import corpora  # noqa: E402
from bench_encode_peers import prepare_files, prepare_texts  # noqa: E402

CHILD = r"""
import os, resource, subprocess, sys
path, text_file, nbytes, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
from bpe_gui.engine.formats import load_tokenizer
tok = load_tokenizer(path)
b = open(text_file, "rb").read()
if nbytes:
    b = b[:nbytes]
    b = b[:b.rfind(b"\n") + 1]
text = b.decode("utf-8")
tok.encode_to_array("a")
def ctl(how):
    subprocess.run(["callgrind_control", "-i", how, str(os.getpid())], check=True,
                   stdout=subprocess.DEVNULL)
if mode == "callgrind":
    ctl("on")
r0 = resource.getrusage(resource.RUSAGE_SELF)
ids = tok.encode_to_array(text)
r1 = resource.getrusage(resource.RUSAGE_SELF)
if mode == "callgrind":
    ctl("off")
print("RESULT", len(b), len(ids), r1.ru_minflt - r0.ru_minflt, r1.ru_utime - r0.ru_utime,
      r1.ru_stime - r0.ru_stime, flush=True)
"""


def run_child(path: Path, text: Path, nbytes: int, mode: str, out: Path | None) -> list[str]:
    cmd = [sys.executable, "-c", CHILD, str(path), str(text), str(nbytes), mode]
    if mode == "callgrind":
        cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
               f"--callgrind-out-file={out}"] + cmd
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT")]
    if p.returncode or not lines:
        sys.exit(f"count_encode: {path.name} / {text.name} failed:\n{p.stderr[-3000:]}")
    return lines[-1].split()[1:]


def top_functions(out: Path, top: int) -> tuple[int, list[tuple[int, str]]]:
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(out)],
                         capture_output=True, text=True).stdout
    total = int(re.search(r"^([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", ann, re.M).group(1)
                .replace(",", ""))
    rows = []
    for ln in ann.splitlines():
        m = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S.*)$", ln)
        if m and "PROGRAM TOTALS" not in ln:
            name = m.group(2).split(":", 1)[-1].split(" [")[0]
            rows.append((int(m.group(1).replace(",", "")), name))
    return total, rows[:top]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="cl100k:en,cl100k:c,o200k:en,llama3:en,qwen2:c")
    ap.add_argument("--bytes", type=int, default=2_000_000)
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--faults", action="store_true", help="page faults and CPU of the whole text")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", type=Path, default=None,
                    help="keep the callgrind files here (callgrind_annotate them)")
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--wheels", type=Path, default=Path("/work/assets/wheels"))
    a = ap.parse_args()
    files = prepare_files(a.data, a.wheels)
    texts = prepare_texts(a.data, quick=False)
    rows = [tuple(r.split(":")) for r in a.rows.split(",")]
    if a.faults:
        print("| file | text | bytes | ids | minor faults | user s | sys s |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for f, t in rows:
            runs = [run_child(files[f], texts[t], 0, "plain", None) for _ in range(a.repeat)]
            nb, nid = runs[0][0], runs[0][1]
            flt = min(int(r[2]) for r in runs)
            user = min(float(r[3]) for r in runs)
            sys_s = min(float(r[4]) for r in runs)
            print(f"| {f} | {t} | {nb} | {nid} | {flt} | {user:.3f} | {sys_s:.3f} |", flush=True)
        return
    print(f"callgrind, one encode_to_array of the first {a.bytes} bytes (to a line end)")
    print("| file | text | bytes | ids | instructions | per byte |")
    print("|---|---|---:|---:|---:|---:|")
    details = []
    with tempfile.TemporaryDirectory() as tmp:
        keep = a.keep or Path(tmp)
        keep.mkdir(parents=True, exist_ok=True)
        for f, t in rows:
            out = keep / f"cg.{f}.{t}"
            nb, nid, *_ = run_child(files[f], texts[t], a.bytes, "callgrind", out)
            total, funcs = top_functions(out, a.top)
            print(f"| {f} | {t} | {nb} | {nid} | {total:,} | {total / int(nb):.1f} |", flush=True)
            details.append((f, t, funcs))
    for f, t, funcs in details:
        if funcs:
            print(f"\n{f} / {t}: inclusive instructions")
            for n, name in funcs:
                print(f"{n:>14,}  {name}")


if __name__ == "__main__":
    main()
