"""SuperBPE's stage 2 on small samples: how often it rebuilds its core for skipped pairs,
how often ``superbpe.skip_reason`` runs, CPU seconds, and a digest of the merges (the
same digest before and after a change = the same merges).

    python bench/bench_superbpe_settle.py            # en, de, zh and mixed samples
    python bench/bench_superbpe_settle.py --profile  # + the ten costliest functions

Each rebuild comes when a pair stage 2 skips reaches the top; ``settle`` then looks at
the LOOK_AHEAD leading candidates for every skipped pair among them. Samples: the parallel
fixtures (22 KB English, 26 KB German, 20 KB Chinese) and the window's mixed Chinese/English sample.
Not a unit test: nothing is asserted, figures are printed.
"""
from __future__ import annotations

import argparse
import cProfile
import hashlib
import pstats
import time
from pathlib import Path

from bpe_gui.engine.train import superbpe, train_superbpe
from bpe_gui.engine.train.trainer import TrainSettings

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = [   # (file, transition, merges in all)
    (ROOT / "tests/fixtures/parallel/en.train.txt", 500, 5000),
    (ROOT / "tests/fixtures/parallel/de.train.txt", 500, 5000),
    (ROOT / "tests/fixtures/parallel/zh.train.txt", 500, 5000),
    (ROOT / "resources/samples/zh-en.txt", 200, 1500),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    calls = [0]
    plain = getattr(superbpe.skip_reason, "__wrapped__", superbpe.skip_reason)

    def counted(token: bytes):
        calls[0] += 1
        return plain(token)
    superbpe.skip_reason = counted
    for path, T, n in SAMPLES:
        calls[0] = 0
        prof = cProfile.Profile() if a.profile else None
        t0 = time.process_time()
        if prof:
            prof.enable()
        t = train_superbpe(path, TrainSettings(num_merges=n, superbpe_from=T))
        if prof:
            prof.disable()
        cpu = time.process_time() - t0
        merges = repr([(s.left, s.right, s.new_id) for s in (*t.stage1_steps, *t.steps)])
        digest = hashlib.sha256(merges.encode()).hexdigest()[:16]
        print(f"{path.name:<14} T={T:<4} merges {len(t.stage1_steps) + len(t.steps):>5}  "
              f"rebuilds {t.n_rebuilds:>4}  skip_reason calls {calls[0]:>9,}  "
              f"CPU {cpu:6.2f} s  merges sha256 {digest}", flush=True)
        if prof:
            pstats.Stats(prof).sort_stats("tottime").print_stats(10)


if __name__ == "__main__":
    main()
