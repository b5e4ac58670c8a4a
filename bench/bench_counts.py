"""Word-count tables and counting on Dask: time and peak memory, in one run.

    python bench/bench_counts.py            # 1 GiB of code (bench/corpora.py builds it)
    python bench/bench_counts.py --quick    # a 1.5 MB slice: checks the script in seconds
    python bench/bench_counts.py --data DIR --vocab-size 32000 --range-size 64M

Sections:
- count: `bpe-gui count CODE --out T` here, then `--dask local:2`, each a fresh process;
  wall time, peak memory of the whole process tree (Dask's worker processes included,
  bench/treemem.py) and of the client process alone (its own high-water mark); the two
  tables must be byte for byte the same.
- table: its size on disk, rows, and `bpe-gui train --counts T --vocab-size N` (time,
  peak), against `bpe-gui train CODE` on the corpus itself (same merges checked).
- rows: writing and reading a table of 10 M distinct words (in this process).
"""
from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from treemem import TreeSampler  # noqa: E402
from corpora import CODE_1G, DEFAULT_DATA  # noqa: E402


def measured(cmd: list[str]) -> dict:
    """Run cmd: wall time, peak of the tree, peak of the first process alone (MB)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreeSampler(proc.pid).start()
    out, err = proc.communicate()
    sampler.stop()
    if proc.returncode:
        sys.exit(f"bench: {' '.join(cmd)} failed:\n{err}")
    return {"secs": time.perf_counter() - t0, "tree_mb": sampler.peak_bytes / 1e6,
            "client_mb": sampler.hwm.get(proc.pid, 0) / 1e6, "procs": len(sampler.hwm),
            "stdout": out}


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "bpe_gui.cli", *args]


def bench_count(corpus: Path, tmp: Path, range_size: str, vocab: int) -> None:
    here, dask = tmp / "here.counts.tsv", tmp / "dask.counts.tsv"
    size = corpus.stat().st_size
    print(f"corpus: {corpus} ({size / (1 << 30):.2f} GiB); {os.cpu_count()} cores, "
          "shared with other work")
    print(f"{'count':<28} {'time':>8} {'MB/s':>7} {'tree peak':>10} {'client peak':>12} procs")
    for label, extra in (("here (threads)", []),
                         ("--dask local:2", ["--dask", "local:2", "--range-size", range_size])):
        out = here if not extra else dask
        r = measured(cli("count", str(corpus), "--out", str(out), "-q", *extra))
        print(f"{label:<28} {r['secs']:>7.1f}s {size / 1e6 / r['secs']:>7.0f} "
              f"{r['tree_mb']:>8.0f}MB {r['client_mb']:>10.0f}MB {r['procs']:>5}")
    same = filecmp.cmp(here, dask, shallow=False)
    print(f"tables byte for byte the same: {same}")
    from bpe_gui.engine.corpus.table_file import read_table
    t = read_table(here)
    print(f"table: {here.stat().st_size / 1e6:.1f} MB on disk, {len(t):,} unique words, "
          f"{t.total:,} words")
    del t
    a = measured(cli("train", "--counts", str(here), "--vocab-size", str(vocab), "--out",
                     str(tmp / "a"), "--format", "native", "-q"))
    b = measured(cli("train", str(corpus), "--vocab-size", str(vocab), "--out", str(tmp / "b"),
                     "--format", "native", "-q"))
    print(f"{'train to ' + str(vocab):<28} {'time':>8} {'peak':>9}")
    print(f"{'  from the table':<28} {a['secs']:>7.1f}s {a['tree_mb']:>7.0f}MB")
    print(f"{'  from the corpus':<28} {b['secs']:>7.1f}s {b['tree_mb']:>7.0f}MB")
    same = filecmp.cmp(tmp / "a" / "tokenizer.bpe-gui.json", tmp / "b" / "tokenizer.bpe-gui.json",
                       shallow=False)
    print(f"same tokenizer: {same}")


def bench_rows(tmp: Path, n: int) -> None:
    from bpe_gui.engine.corpus.counting import PretokenTable
    from bpe_gui.engine.corpus.table_file import CountMeta, read_table, write_table
    from bpe_gui.engine.text.pretokenize import Pretokenizer
    words = [f" w{i}é\t{i % 7}" if i % 3 == 0 else f"x{i:x}" for i in range(n)]
    table = PretokenTable.from_words(words, [i % 1000 + 1 for i in range(n)])
    del words
    table._words = None
    meta = CountMeta.for_counting(Pretokenizer())
    path = tmp / "rows.counts.tsv"
    t0 = time.perf_counter()
    write_table(table, path, meta)
    w = time.perf_counter() - t0
    t0 = time.perf_counter()
    back = read_table(path)
    r = time.perf_counter() - t0
    assert back.blob == table.blob and back.counts == table.counts
    mb = path.stat().st_size / 1e6
    print(f"rows: {n:,} words, {mb:.0f} MB: write {w:.2f} s ({mb / w:.0f} MB/s), read "
          f"{r:.2f} s ({mb / r:.0f} MB/s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--vocab-size", type=int, default=32_000)
    ap.add_argument("--range-size", default="64M")
    ap.add_argument("--only", choices=("count", "rows"))
    a = ap.parse_args()
    corpus = a.data / (f"quick-{CODE_1G}" if a.quick else CODE_1G)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        if a.only in (None, "count"):
            if not corpus.exists():
                sys.exit(f"bench: {corpus} is missing; build it with python bench/corpora.py")
            bench_count(corpus, tmp, "256K" if a.quick else a.range_size,
                        2000 if a.quick else a.vocab_size)
        if a.only in (None, "rows"):
            bench_rows(tmp, 100_000 if a.quick else 10_000_000)


if __name__ == "__main__":
    main()
