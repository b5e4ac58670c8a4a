"""Check my BPE (issue 31): how long `check_merges` takes, on the tutorial corpus of the
tests and on a bigger one, for a learner's result with each usual mistake.

    python bench/bench_check.py                      # tutorial + 3 MB of Gutenberg, 2000 merges
    python bench/bench_check.py --size 8M --merges 5000
    python bench/bench_check.py --quick              # tutorial only

The bigger corpus is the start of en-gutenberg-20mb (the full file in ../shared/corpora if
there, else the excerpt in tests/fixtures) with <|endoftext|> between paragraphs. Its
learners' results are made fast: by the engine under another setting (tie rule,
pattern, special tokens read as text, documents unsplit) or by the check's own slow
trainer under a wrong rule (overlaps, characters) -- the same merges a learner's trainer
with that mistake makes (tests/engine/check has the learners written out). Figures are
printed, nothing is asserted.
"""
from __future__ import annotations

import argparse
import lzma
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "engine" / "check"))

from bpe_gui.engine import Pretokenizer, PretokenTable, Trainer, TrainSettings  # noqa: E402
from bpe_gui.engine.check import LearnerResult, Rules, check_merges, train_slow  # noqa: E402
from bpe_gui.engine.check.lab import documents  # noqa: E402

EOT = "<|endoftext|>"


def corpus(size: int) -> str:
    full = ROOT.parent.parent / "shared" / "corpora" / "en-gutenberg-20mb.txt.xz"
    path = full if full.is_file() else ROOT / "tests" / "fixtures" / "corpora" / "en-gutenberg-20mb.txt.xz"
    with lzma.open(path, "rt", encoding="utf-8") as f:
        text = f.read(size)
    return text.replace("\n\n", f"\n{EOT}")


def result(merges, specials=(EOT,)) -> LearnerResult:
    vocab = {i: bytes([i]) for i in range(256)}
    for s in specials:
        vocab[len(vocab)] = s.encode()
    for a, b in merges:
        vocab[len(vocab)] = a + b
    return LearnerResult("bench", "pickle", vocab, tuple(merges), tuple(specials))


def learners(text: str, n: int, slow: bool) -> dict[str, list]:
    s = TrainSettings(num_merges=n, special_tokens=(EOT,))

    def engine(settings, table=None):
        t = Trainer(table, settings) if table is not None else Trainer.from_text(text, settings)
        t.run(detail=False)
        return t.merges
    out = {
        "correct": engine(s),
        "tie-first-seen": engine(replace(s, tie_rule="first-seen")),
        "specials": engine(replace(s, special_tokens=())),
        "pattern": engine(replace(s, pattern="whitespace")),
        "boundaries": engine(s, PretokenTable.from_counter(dict(documents(text, (EOT,))))),
    }
    if slow:
        words = list(Counter(Pretokenizer("gpt2", [EOT]).words(text)).items())
        for name, rules in (("overlap", Rules(counting="runs-halved")),
                            ("chars", Rules(base="chars"))):
            t0 = time.perf_counter()
            out[name] = [p for p, _ in train_slow(words, rules, n)]
            print(f"  (made the {name} learner with the slow trainer in "
                  f"{time.perf_counter() - t0:.1f} s)", flush=True)
    return out


def run(label: str, text: str, n: int, slow: bool = True) -> None:
    print(f"\n{label}: {len(text.encode()) / 1e6:.1f} MB, {n:,} merges", flush=True)
    for name, merges in learners(text, n, slow).items():
        t0 = time.perf_counter()
        r = check_merges(result(merges), text)
        dt = time.perf_counter() - t0
        d = r.difference
        what = "agree" if d is None else f"step {d.step:>5}  {d.cause:<11} reach {d.reach:,}"
        print(f"  {name:<15} {dt:6.2f} s   {what}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", default="3M", help="bytes of the bigger corpus (3M, 8M ...)")
    p.add_argument("--merges", type=int, default=2000)
    p.add_argument("--quick", action="store_true", help="the tutorial corpus only")
    a = p.parse_args()
    import bpe_learners
    run("tutorial corpus (tests/fixtures/check_tutorial.txt)", bpe_learners.tutorial_text(),
        150)
    if not a.quick:
        size = int(a.size.rstrip("MmKk")) * (1 << 20 if a.size[-1] in "Mm" else 1 << 10)
        run("Gutenberg excerpt", corpus(size), a.merges)


if __name__ == "__main__":
    main()
