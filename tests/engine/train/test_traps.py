"""Traps of the training API (issue 78, item 8): a step past the steps made is refused,
settings are checked when made, and whether training is done is a property (a method
read as a flag was always true)."""
from __future__ import annotations

from pathlib import Path

import pytest

from bpe_gui.engine.errors import BPEError, SettingsError
from bpe_gui.engine.train import (SUPERBPE, ParitySettings, ParityTrainer,
                                  Trainer, TrainingSpec, TrainSettings, build_run, train_on)

TEXT = "low low lower newest newest widest widest widest " * 20
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "parallel"


def runs():
    """A run of every kind, two steps made."""
    plain = Trainer.from_text(TEXT, TrainSettings(num_merges=10))
    superbpe = build_run(TrainingSpec(mode=SUPERBPE, text=TEXT, settings=TrainSettings(
        num_merges=10, superbpe_from=1)), prepare=False)
    base = Trainer.from_text(TEXT, TrainSettings(num_merges=3))
    base.run()
    on = train_on(base.tokenizer(), text=TEXT, settings=TrainSettings(num_merges=10))
    on.goto(0)
    files = [(lang, FIXTURES / f"{lang}.train.txt") for lang in ("en", "de")]
    parity = ParityTrainer.from_files(files, None, ParitySettings(num_merges=10,
                                                                  ratios=(1.0, 1.0)))
    run = ParityTrainer.from_files(files, None, ParitySettings(num_merges=10, ratios=(1.0, 1.0)),
                                   lines=True)
    out = {"plain": plain, "superbpe": superbpe, "train-on": on, "parity": parity,
           "parity-run": run}
    for t in out.values():
        for _ in range(2):
            t.step()
    return out


@pytest.mark.regression
@pytest.mark.parametrize("kind", ["plain", "superbpe", "train-on", "parity", "parity-run"])
def test_a_step_past_the_steps_made_is_refused(kind):
    """tokenizer(at_step=5) after 2 steps gave the tokenizer of 2 merges, silently."""
    t = runs()[kind]
    assert t.n_steps == 2
    with pytest.raises(SettingsError, match=r"only steps 0 to 2 are made; run to step 5"):
        t.tokenizer(at_step=5)
    with pytest.raises(SettingsError, match="0 or more"):
        t.tokenizer(at_step=-1)
    assert t.tokenizer(at_step=1).n_merges - getattr(t, "n_inherited", 0) == 1
    assert t.tokenizer(at_step=2).n_merges - getattr(t, "n_inherited", 0) == 2


@pytest.mark.regression
@pytest.mark.parametrize("kw, said", [
    (dict(vocab_size=-5, mode="bytes", tie_rule="max"), "Unknown mode 'bytes'"),
    (dict(tie_rule="max"), "Unknown tie rule 'max'"),
    (dict(vocab_size=-5), "Vocab size is -5"),
    (dict(end_of_word="middle"), "Unknown end-of-word position"),
    (dict(min_frequency=0), "Minimum frequency is 0"),
    (dict(num_merges=-1), "Number of merges is -1"),
    (dict(superbpe_from=-1), "merge number of 0 or more"),
])
def test_settings_are_refused_when_made(kw, said):
    """TrainSettings(vocab_size=-5, mode='bytes', tie_rule='max') was built, and failed
    only when used."""
    with pytest.raises(SettingsError, match=said):
        TrainSettings(**kw)


@pytest.mark.regression
def test_is_done_is_a_property():
    """``if trainer.is_done:`` read a bound method, always true."""
    for kind, t in runs().items():
        assert t.is_done is False, kind
        t.run()
        assert t.is_done is True, kind
        with pytest.raises(TypeError):
            t.is_done()   # a flag, not a method


def test_every_error_is_a_bpe_error():
    with pytest.raises(BPEError):
        Trainer.from_text(TEXT, TrainSettings(num_merges=2)).tokenizer(at_step=3)


@pytest.mark.regression
@pytest.mark.parametrize("kind", ["plain", "superbpe", "train-on", "parity", "parity-run"])
def test_one_cancel_contract(kind):
    """Cancel stopped Trainer.run but raised Cancelled out of parity's run: now every
    run stops, keeps the steps made and returns their records."""
    t = runs()[kind]
    calls = []

    def cancel() -> bool:
        calls.append(1)
        return len(calls) > 3
    made = t.run(cancel=cancel)
    assert 2 < t.n_steps < 10 and list(made) == list(t.steps[2:])
