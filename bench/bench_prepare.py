"""Data preparation: a corpus file -> the ids of its documents joined by the end-of-text
id, ours against gigatoken and tiktoken, at each thread count (issue 91).

    python bench/bench_prepare.py [--texts en,c,zh] [--threads 1,2] [--runs 3]
                                  [--libs ours,ours-xz,gigatoken,tiktoken] [--data DIR]
                                  [--separator '']   (default: documents cut at blank lines)

Contestants, each in a fresh process, in turns round by round (the median of ``--runs``):

  ours       ``load_tokenizer(F).encode_files([txt], "ids.bin", separator="\\n\\n",
             num_threads=N)``: the ids on disk (uint32 for cl100k) and the sidecar
  ours-xz    the same reading the published ``.xz`` itself (decompression included)
  gigatoken  ``Tokenizer.from_tiktoken(F).encode_files(TextFileSource([txt],
             separator="\\n\\n"))``: an awkward array in memory, ``RAYON_NUM_THREADS=N``
  tiktoken   the file read, split at "\\n\\n", ``encode_ordinary_batch(docs,
             num_threads=N)``: lists in memory

Each child times its call alone (the tokenizer loaded and warmed on a short text before):
MB/s = the text's UTF-8 bytes / those seconds, by the wall clock and by the CPU seconds
of the process (all its threads: what counts on a machine others load too). Peak = the
child's peak resident memory (``ru_maxrss``; every contestant is one process, its
threads in it, so this is the whole process tree) from its start to the end of the
call: interpreter, tokenizer, text and ids, not the checks after it. The
ids of every child, empty documents left out and the end-of-text id between the rest,
are hashed and must equal tiktoken's.

Texts: ``en`` (20 MB of Gutenberg) and ``zh`` (8.9 MB, four classic novels) decompressed
from ../shared/corpora's ``.xz`` into a temporary folder that is removed at the end
(gigatoken reads only plain, .gz and .zst files), ``c`` (20 MB of C headers,
``corpora.c_source``) built there too. Tokenizer: OpenAI's cl100k_base as published
(rebuilt from the npm package tiktoken, ``BPE_GUI_TIKTOKEN_TGZ``, into ``--data``).
"""
from __future__ import annotations

import argparse
import json
import lzma
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import corpora  # noqa: E402
import subprocess  # noqa: E402

SHARED = corpora.SHARED   # ../shared/corpora, or BPE_GUI_CORPORA_DIR
XZ = {"en": "en-gutenberg-20mb.txt.xz", "zh": "zh-four-classic-novels.txt.xz"}

CHILD = r'''
import hashlib, json, resource, sys, time
import numpy as np
lib, tok_path, text_path, threads, out, sep = sys.argv[1:7]
threads, sep = int(threads), (sep or None)
EOT = 100257

def digest(flat, counts):
    """ids of the non-empty documents joined by EOT, as uint32, hashed."""
    flat = np.asarray(flat, dtype=np.uint32)
    ends = np.cumsum(counts)[np.asarray(counts) > 0]
    return hashlib.sha256(np.insert(flat, ends[:-1], EOT).tobytes()).hexdigest()

if lib.startswith("ours"):
    from bpe_gui.engine import load_tokenizer
    tok = load_tokenizer(tok_path)
    tok.encode_ordinary_batch(["warm up the tokenizer"])
    import os
    if os.path.exists(out):   # (a new file, not one replacing the last run's)
        os.unlink(out)
    r0, t = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    meta = tok.encode_files([text_path], out, separator=sep, num_threads=threads)
    secs, r1 = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF)
    CPU = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    HWM = r1.ru_maxrss / 1e3   # (kB: the process's peak so far, before the checks below)
    ids = np.fromfile(out, dtype=meta["dtype"])
    dig = hashlib.sha256(ids.astype(np.uint32).tobytes()).hexdigest()
elif lib == "gigatoken":
    import awkward as ak, gigatoken
    tok = gigatoken.Tokenizer.from_tiktoken(tok_path)
    tok.encode("warm up the tokenizer")
    r0, t = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    got = tok.encode_files(gigatoken.TextFileSource([text_path], separator=sep))
    secs, r1 = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF)
    CPU = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    HWM = r1.ru_maxrss / 1e3   # (kB: the process's peak so far, before the checks below)
    dig = digest(ak.flatten(got).to_numpy(), ak.num(got).to_numpy())
else:
    import tiktoken, tiktoken.load, tiktoken_ext.openai_public as op
    op.load_tiktoken_bpe = lambda url, expected_hash=None: \
        tiktoken.load.load_tiktoken_bpe(tok_path, expected_hash)
    enc = tiktoken.Encoding(**op.cl100k_base())
    enc.encode_ordinary("warm up the tokenizer")
    r0, t = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    with open(text_path, encoding="utf-8") as f:
        docs = [d for d in (f.read().split(sep) if sep else [f.read()]) if d]
    got = enc.encode_ordinary_batch(docs, num_threads=threads)
    secs, r1 = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF)
    CPU = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    HWM = r1.ru_maxrss / 1e3   # (kB: the process's peak so far, before the checks below)
    dig = digest([i for ids in got for i in ids], [len(ids) for ids in got])
print(json.dumps({"secs": secs, "cpu": CPU, "peak_mb": HWM, "digest": dig}))
'''


def texts(tmp: Path, wanted: list[str]) -> dict[str, Path]:
    out = {}
    for name in wanted:
        if name == "c":
            out[name] = corpora.c_source(tmp)
        else:
            p = tmp / XZ[name].removesuffix(".xz")
            with lzma.open(SHARED / XZ[name]) as src:
                p.write_bytes(src.read())
            out[name] = p
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--texts", default="en,c,zh")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--libs", default="ours,ours-xz,gigatoken,tiktoken")
    ap.add_argument("--data", default=str(ROOT.parent / "bench-data"))
    ap.add_argument("--separator", default="\n\n", help="what cuts documents ('' : none, "
                    "a file is one document; default: blank lines)")
    args = ap.parse_args()
    sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "engine")]   # (tiktoken_files imports bpe_gui)
    from tiktoken_files import NPM_HOW, npm_ranks
    Path(args.data).mkdir(parents=True, exist_ok=True)
    tok = Path(args.data) / "cl100k_base.tiktoken"
    if not tok.exists() and npm_ranks("cl100k_base", Path(args.data)) is None:
        raise SystemExit(f"no cl100k_base.tiktoken: {NPM_HOW}")
    libs = args.libs.split(",")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cut = f"cut at {args.separator!r}" if args.separator else "a file each"
    print(f"cl100k_base, documents {cut}; load: {os.getloadavg()[0]:.1f}")
    print("each cell: MB/s by wall time, MB per CPU second (the process's threads), peak MB")
    print(f"{'text':5} {'MB':>5} {'thr':>3}  " + "  ".join(f"{lib:>16}" for lib in libs))
    differ = False
    with tempfile.TemporaryDirectory(prefix="bench_prepare.") as tmp:
        for name, path in texts(Path(tmp), args.texts.split(",")).items():
            mb = path.stat().st_size / 1e6
            for n in [int(x) for x in args.threads.split(",")]:
                got: dict[str, list[tuple[float, float]]] = {lib: [] for lib in libs}
                digests = {}
                for _ in range(args.runs):
                    for lib in libs:
                        src = SHARED / XZ[name] if lib == "ours-xz" and name in XZ else path
                        res = subprocess.run([sys.executable, "-c", CHILD, lib, str(tok),
                                              str(src), str(n), str(Path(tmp) / "ids.bin"),
                                              args.separator],
                                             env=dict(env, RAYON_NUM_THREADS=str(n)),
                                             capture_output=True, text=True)
                        if res.returncode != 0:
                            raise SystemExit(f"{lib} failed:\n{res.stderr}")
                        child = json.loads(res.stdout.strip().splitlines()[-1])
                        got[lib].append((child["secs"], child["cpu"], child["peak_mb"]))
                        digests.setdefault(lib, set()).add(child["digest"])
                want = digests.get("tiktoken") or next(iter(digests.values()))
                bad = [lib for lib, d in digests.items() if d != want]
                differ = differ or bool(bad)
                cells = []
                for lib in libs:
                    secs = statistics.median(s for s, _, _ in got[lib])
                    cpu = statistics.median(c for _, c, _ in got[lib])
                    peak = max(p for _, _, p in got[lib])
                    cells.append(f"{mb / secs:5.1f} {mb / cpu:5.1f} {peak:4.0f}")
                print(f"{name:5} {mb:5.1f} {n:3}  " + "  ".join(f"{c:>16}" for c in cells)
                      + ("" if not bad else f"  IDS DIFFER: {bad}"), flush=True)
    print("ids DIFFER on a row above" if differ else "ids equal on every row (tiktoken's)")


if __name__ == "__main__":
    main()
