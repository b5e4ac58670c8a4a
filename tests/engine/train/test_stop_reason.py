"""Why training stops: one rule (Trainer.stop, its sentence), read by the window and the CLI."""
from __future__ import annotations

from bpe_gui.engine.train.trainer import Trainer, TrainSettings

WORKED = "low low lower newest newest widest widest widest"


def test_goes_on_until_the_number_of_merges():
    t = Trainer.from_text(WORKED, TrainSettings(num_merges=2))
    assert t.stop() is None and not t.is_done
    t.run()
    assert t.n_steps == 2 and t.is_done
    assert t.stop().sentence == "Target reached at step 2 (2 merges)."


def test_vocab_size_target():
    t = Trainer.from_text(WORKED, TrainSettings(vocab_size=259))
    t.run()
    assert t.vocab_size == 259
    assert "Target reached at step 3" in t.stop().sentence


def test_no_pair_left_says_so_before_the_target():
    t = Trainer.from_text("ab ab", TrainSettings(num_merges=50))
    t.run()
    # 'a b' then ' ab'... until every word is one token, far below 50 merges
    assert t.n_steps < 50 and t.best_pair() is None
    assert "before the target: no pair of symbols is left" in t.stop().sentence


def test_min_frequency_stops_with_the_count():
    t = Trainer.from_text(WORKED, TrainSettings(num_merges=10, min_frequency=4))
    t.run()
    # s t (5), e st (5); then the best pair occurs 3 times
    assert t.n_steps == 2
    assert t.stop().sentence.endswith("the best pair occurs 3 times, below the minimum "
                                      "frequency 4.")
    t.undo()
    assert t.stop() is None
