"""Counts near 2**63 are refused where they are summed, never wrapped (issue 23): a
table whose pair counts would pass 64 bits made 'b·' the first merge instead of 'ab'."""
from __future__ import annotations

from array import array

import pytest

from bpe_gui.engine.corpus.counting import PretokenTable

_core = pytest.importorskip("bpe_gui.engine.train._core")

BYTES = [bytes([i]) for i in range(256)]


def core(words: list[bytes], freqs: list[int]):
    symbols = array("i", [b for w in words for b in w])
    starts = array("q", [0])
    for w in words:
        starts.append(starts[-1] + len(w))
    return _core.Core(symbols, starts, array("q", freqs), BYTES, 0)


def test_the_core_refuses_pair_counts_past_64_bits():
    big = 2**62
    with pytest.raises(ValueError, match="2\\*\\*63 - 1"):
        core([b"ab", b"ab ", b" ab", b"da"], [big, big, big - 5, 10])
    with pytest.raises(ValueError, match="pair counts would overflow"):
        core([b"abababab"], [2**61])   # 'ab' 4 times: 2**63


def test_the_largest_counts_that_fit_still_train():
    # freq x symbols = 2**63 - 2: every count fits, exactly
    c = core([b"ab", b"cd"], [2**61, 2**62 - 1 - 2**61])
    assert c is not None
    from bpe_gui.engine.train.trainer import Trainer, TrainSettings
    table = PretokenTable.from_words(["ab", "cd"], [2**61, 2**62 - 1 - 2**61])
    t = Trainer(table, TrainSettings(num_merges=1, pattern="whitespace"))
    step = t.step()
    assert (step.left, step.right, step.count) == (b"a", b"b", 2**61)
