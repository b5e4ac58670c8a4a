"""A parity trainer's core released after training (what the command line does before
it exports): the records, merges and tokenizer stay; what needs the core says why it
fails."""
from __future__ import annotations

import pytest

from bpe_gui.engine.errors import SettingsError
from bpe_gui.engine.train import ParitySettings, ParityTrainer, PlainCurve

TRAIN = {"en": ["the cat sat on the mat"] * 3, "de": ["die Katze sass auf der Matte"] * 2}
DEV = {"en": ["the cat"], "de": ["die Katze"]}


def test_a_released_core_keeps_the_run_and_says_why_the_rest_fails():
    kept = ParityTrainer.from_texts(TRAIN, DEV, ParitySettings(num_merges=6))
    kept.run()
    t = ParityTrainer.from_texts(TRAIN, DEV, ParitySettings(num_merges=6))
    t.run()
    t.release_core()
    assert t.merges == kept.merges and t.tokens == kept.tokens
    assert t.tokenizer().encode("the cat") == kept.tokenizer().encode("the cat")
    assert t.step() is None   # at its target: nothing asked of the core
    with pytest.raises(SettingsError, match="released after training"):
        t.top_pairs()
    with pytest.raises(SettingsError, match="released after training"):
        t.undo()
    assert t.merges == kept.merges and t.n_steps == 6


def test_released_tables_train_the_same_and_plain_bpe_says_why_it_fails():
    """The count tables freed before training (the command line does it): the core holds
    the words, so the run is the same; plain BPE on the same data needs the tables."""
    kept = ParityTrainer.from_texts(TRAIN, DEV, ParitySettings(num_merges=6))
    kept.run()
    t = ParityTrainer.from_texts(TRAIN, DEV, ParitySettings(num_merges=6))
    t.release_tables()
    assert t.data.tables == []
    t.run()
    assert t.merges == kept.merges and t.curve() == kept.curve()
    assert [s.language for s in t.steps] == [s.language for s in kept.steps]
    with pytest.raises(SettingsError, match="count tables were released"):
        PlainCurve(t.data, t.parity_settings)


def test_a_trainer_without_undo_reads_as_one_with_it():
    """undo=False (the command line's) keeps only what is read of the turns: the tokens
    before step 1 and before the last step."""
    from bpe_gui.engine.train import ParityData
    data = ParityData.from_texts(TRAIN, DEV)
    full = ParityTrainer(data, ParitySettings(num_merges=7))
    lean = ParityTrainer(data, ParitySettings(num_merges=7), undo=False)
    for t in (full, lean):
        t.run()
    assert lean.curve() == full.curve() and lean.initial_tokens == full.initial_tokens
    assert lean.steps[-1].merged == full.steps[-1].merged > 0
    assert lean.merges == full.merges
    with pytest.raises(RuntimeError, match="keeps no undo log"):
        lean.undo()
    assert lean.merges == full.merges
