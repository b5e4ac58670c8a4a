"""What the charts rebuild step 0 from, in every kind of run: each record made without
detail (how long runs step) says how many tokens it replaced, ``merged``, the corpus's
tokens before it less those after it. The charts count step 0 as the first record's
tokens plus its ``merged`` and move each merge's ``merged`` occurrences from its parts
to the new token (analysis.curves); a record saying 0 made step 0 the last step's
distribution (issue 63, parity runs).

Tokens are recounted here: a word list cut by GPT-2's pattern, the run's merges
replayed one at a time on each word's symbols.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import regex

from bpe_gui.engine.tokenizers import Tokenizer
from bpe_gui.engine.train import (SUPERBPE, TRAIN_ON, ParityTrainer, ParitySettings, TrainingSpec,
                                  TrainSettings, Trainer, build_run)

GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "parallel"
TEXT = ("the cat sat on the mat, the cat ate the rat; 猫坐在垫子上。 the end. " * 30
        + "a rather different sentence with other words in it. " * 12)


def replayed_tokens(words: list[bytes], merges) -> list[int]:
    """Total tokens of ``words`` after 0, 1, ... of ``merges`` ((a, b) bytes each)."""
    split = [[bytes([x]) for x in w] for w in words]
    out = [sum(map(len, split))]
    for a, b in merges:
        for w in split:
            i = 0
            while i < len(w) - 1:
                if (w[i], w[i + 1]) == (a, b):
                    w[i:i + 2] = [a + b]
                i += 1
        out.append(sum(map(len, split)))
    return out


def check(records, start: int) -> None:
    before = start
    for rec in records:
        assert rec.merged == before - rec.corpus_tokens > 0, rec.index
        before = rec.corpus_tokens


def test_plain_records():
    t = Trainer.from_text(TEXT, TrainSettings(num_merges=60))
    recs = t.run(detail=False)
    want = replayed_tokens([w.encode() for w in regex.findall(GPT2, TEXT)],
                           [(r.left, r.right) for r in recs])
    assert [r.corpus_tokens for r in recs] == want[1:]
    check(recs, want[0])


def test_superbpe_records_within_each_stage():
    """Stage 2 reads the corpus again with its own pieces: its first record follows
    stage 2's count at the transition, every other record its predecessor."""
    run = build_run(TrainingSpec(mode=SUPERBPE, text=TEXT,
                                 settings=TrainSettings(num_merges=60, superbpe_from=30)),
                    prepare=False)
    recs = list(run.run(detail=False))
    assert len(recs) == 60
    check(recs[:30], len(TEXT.encode()))
    check(recs[30:], recs[30].corpus_tokens + recs[30].merged)
    assert all(r.merged > 0 for r in recs)


def test_train_on_records():
    src_run = Trainer.from_text("some other text, the source of the merges. " * 20,
                                TrainSettings(num_merges=30))
    src_run.run(detail=False)
    src: Tokenizer = src_run.tokenizer()
    t = build_run(TrainingSpec(mode=TRAIN_ON, text=TEXT, settings=TrainSettings(num_merges=25),
                               base="src"), base=src)
    recs = list(t.run(detail=False))
    assert len(recs) == 25
    check(recs, len(src.encode(TEXT)))


@pytest.mark.regression
def test_parity_records():
    langs = ("en", "de")
    run = ParityTrainer.from_files([(n, FIXTURES / f"{n}.train.txt") for n in langs],
                                   [(n, FIXTURES / f"{n}.dev.txt") for n in langs],
                                   ParitySettings(num_merges=30), lines=True)
    recs = list(run.run(detail=False))
    check(recs, sum(len((FIXTURES / f"{n}.train.txt").read_bytes()) for n in langs))
