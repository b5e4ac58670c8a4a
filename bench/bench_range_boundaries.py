"""Range boundaries in one long stretch with no cut (issue 95): the bytes read and the
time of finding every range's start and stop, as the counting threads do
(``range_count.range_ends``: a start is not searched past its range's stop, now) and
with each start and stop searched on to the next cut (before: each read on to the
stretch's end, K ranges K times). The same for a .jsonl file that is one giant line
(line starts are its cuts: ``ranges.line_boundary``).

    python bench/bench_range_boundaries.py                  # 1, 2, 4, 8 MB, o200k
    python bench/bench_range_boundaries.py --sizes 16,32 --preset gpt2

The stretch is random lowercase letters (one word for every preset); the ranges are
those ``bpe-gui count`` plans on 2 threads (``range_threads.range_size``). The cuts of
both ways are checked equal. Not a unit test: figures are printed.
"""
from __future__ import annotations

import argparse
import io
import random
import time

from bpe_gui.engine.corpus import range_threads, ranges
from bpe_gui.engine.corpus.blocks import Boundaries
from bpe_gui.engine.corpus.range_count import range_ends
from bpe_gui.engine.text.pretokenize import Pretokenizer


class Counted(io.BytesIO):
    read_bytes = 0

    def read(self, n: int | None = -1) -> bytes:
        out = super().read(n)
        self.read_bytes += len(out)
        return out


def ends(data: bytes, bounds: Boundaries, now: bool, kind: str) -> tuple[list, int, float]:
    size = len(data)
    starts = list(range(0, size, range_threads.range_size(size, 2)))
    f, got = Counted(data), []
    t0 = time.perf_counter()
    for k, (a, b) in enumerate(zip(starts, starts[1:] + [size])):
        if now:
            f.seek(0)
            start, end = range_ends(f, ranges.Range(k, "x", a, b, size, kind), bounds, False)
        elif kind == "jsonl":
            start, end = (ranges.line_boundary(f, s, size) for s in (a, b))
        else:
            start, end = (ranges.text_boundary(f, s, size, bounds) for s in (a, b))
        got.append((start, end) if start < end else None)   # (an empty range: no words)
    return got, f.read_bytes, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,2,4,8", help="MB, comma-separated")
    ap.add_argument("--preset", default="o200k")
    a = ap.parse_args()
    bounds = Boundaries(Pretokenizer(a.preset))
    rng = random.Random(95)
    print(f"{a.preset}: one stretch of random letters; boundaries of every range "
          "(start and stop)")
    for mb in map(int, a.sizes.split(",")):
        data = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=mb << 20)).encode()
        for kind in ("text", "jsonl"):   # (.jsonl: one line, no newline)
            new, new_read, new_s = ends(data, bounds, True, kind)
            old, old_read, old_s = ends(data, bounds, False, kind)
            assert new == old, "the cuts differ"
            print(f"{mb:>4} MB {kind:>5}  {len(new):>3} ranges  fresh search each: read "
                  f"{old_read / len(data):5.1f} x the file, {old_s:6.2f} s  |  now: read "
                  f"{new_read / len(data):4.1f} x, {new_s:6.2f} s", flush=True)


if __name__ == "__main__":
    main()
