"""TrainingSpec and build_run (engine/train/spec.py, build.py): every mode built in one
place gives the merges of the engine's own trainer of that mode, built by hand (a
Trainer; a Trainer to T then a SuperBPETrainer on its tokenizer; an InheritedTrainer;
a ParityTrainer); the rules of which modes and settings go
together; a run's table lent to the next run that reads the same words."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bpe_gui.engine.errors import SettingsError
from bpe_gui.engine.train import (PARITY, PLAIN, SUPERBPE, TRAIN_ON, Language, ParityData,
                                  ParityOptions, ParitySettings, ParityTrainer, Trainer,
                                  TrainingSpec, TrainSettings, build_run, resolve, unused)
from bpe_gui.engine.corpus.counting import table_from_text
from bpe_gui.engine.text.pretokenize import Pretokenizer
from bpe_gui.engine.train.inherited import InheritedTrainer
from bpe_gui.engine.train.superbpe import SuperBPETrainer, stage2_pretokenizer

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "parallel"
TEXT = (FIXTURES / "en.train.txt").read_text("utf-8")


@pytest.fixture
def corpus(tmp_path) -> Path:
    p = tmp_path / "c.txt"
    p.write_text(TEXT, encoding="utf-8")
    return p


def base_tokenizer():
    t = Trainer.from_text(TEXT[:3000], TrainSettings(num_merges=40, special_tokens=("<s>",)))
    t.run()
    return t.tokenizer()


@pytest.mark.parametrize("undo", [True, False])
def test_each_mode_gives_its_own_trainers_merges(corpus, undo):
    s = TrainSettings(num_merges=60, tie_rule="first-seen")
    plain = build_run(TrainingSpec(corpus=(str(corpus),), settings=s), undo=undo)
    plain.run(detail=False)
    ref = Trainer.from_text(TEXT, s)
    ref.run()
    assert plain.merges == ref.merges and plain.spec.mode == PLAIN

    sb = TrainSettings(num_merges=60, superbpe_from=40)
    run = build_run(TrainingSpec(SUPERBPE, corpus=(str(corpus),), settings=sb), undo=undo)
    run.run(detail=False)
    t1 = Trainer.from_text(TEXT, replace(sb, num_merges=40, superbpe_from=None))
    t1.run()
    t2 = SuperBPETrainer(t1.tokenizer(), table_from_text(TEXT, stage2_pretokenizer()),
                         replace(sb, num_merges=20, superbpe_from=40))
    t2.run()
    assert run.tokenizer().merges == t2.tokenizer().merges

    src = base_tokenizer()
    on = build_run(TrainingSpec(TRAIN_ON, text=TEXT, settings=s, base="src"), base=src,
                   undo=undo)
    on.run(detail=False)
    by_hand = InheritedTrainer(src, table_from_text(TEXT, Pretokenizer(src.pattern,
                                                                      src.special_tokens)), s)
    by_hand.run()
    assert on.merges == by_hand.merges
    assert on.spec.settings.special_tokens == ("<s>",)   # the tokenizer's, filled in

    langs = (Language("en", str(FIXTURES / "en.train.txt"), ratio=1.0),
             Language("de", str(FIXTURES / "de.train.txt"), ratio=1.3))
    spec = TrainingSpec(PARITY, settings=TrainSettings(num_merges=50, lines=True),
                        parity=ParityOptions(langs, "window", 5, 12, 1.5))
    par = build_run(spec, undo=undo)
    par.run(detail=False)
    ref_p = ParityTrainer(ParityData.from_files([("en", FIXTURES / "en.train.txt"),
                                                 ("de", FIXTURES / "de.train.txt")],
                                                lines=True),
                          ParitySettings(num_merges=50, variant="window", global_merges=5,
                                         window_size=12, alpha=1.5, ratios=(1.0, 1.3)))
    ref_p.run()
    assert par.merges == ref_p.merges


def test_settings_a_mode_does_not_use_go_back_to_their_defaults():
    """validated() keeps no setting its mode ignores: parity is GPT-2's byte level with
    HF's tie rule; SuperBPE neither prunes nor reads lines; byte mode has no </w>."""
    langs = (Language("en", "en.txt", dev="en.dev"), Language("de", "de.txt", dev="de.dev"))
    s = TrainSettings(num_merges=30, tie_rule="first-seen", prune=True, pattern="cl100k",
                      special_tokens=("<s>",), lines=True, min_frequency=3)
    p = TrainingSpec(PARITY, corpus=("x.txt",), settings=s,
                     parity=ParityOptions(langs)).validated()
    assert (p.settings.tie_rule, p.settings.prune, p.settings.pattern,
            p.settings.special_tokens) == ("greatest", False, "gpt2", ())
    assert (p.settings.lines, p.settings.min_frequency, p.corpus) == (True, 3, ())
    assert {"tie_rule", "prune", "pattern", "special_tokens", "superbpe_from"} <= set(unused(p))
    sb = TrainingSpec(SUPERBPE, text="a b", settings=TrainSettings(
        num_merges=9, superbpe_from=5, prune=True, lines=True)).validated()
    assert not sb.settings.prune and not sb.settings.lines
    eow = TrainingSpec(text="a", settings=TrainSettings(end_of_word="prefix")).validated()
    assert eow.settings.end_of_word == "suffix"
    assert "SuperBPE" in unused(TrainingSpec(text="a"))["superbpe_from"]


@pytest.mark.parametrize("spec, said", [
    (TrainingSpec(), "Give the corpus"),
    (TrainingSpec(corpus=("a",), text="b"), "not several"),
    (TrainingSpec(TRAIN_ON, text="a"), "the tokenizer to train on"),
    (TrainingSpec(SUPERBPE, counts=("t.tsv",), settings=TrainSettings(superbpe_from=5)),
     "word-count table holds only stage 1's words"),
    (TrainingSpec(SUPERBPE, text="a", settings=TrainSettings(num_merges=10,
                                                             superbpe_from=20)),
     "after the target of 10 merges"),
    (TrainingSpec(PARITY, settings=TrainSettings(vocab_size=500)), "number of merges"),
    (TrainingSpec(PARITY, settings=TrainSettings(num_merges=5), parity=ParityOptions(
        (Language("en", "a", dev="d"), Language("de", "b", ratio=1.0)))), "not both"),
    (TrainingSpec(PARITY, settings=TrainSettings(num_merges=5), parity=ParityOptions(
        (Language("en", "a", ratio=1.0), Language("de", "b")))), "No ratio for 'de'"),
    (TrainingSpec(PARITY, settings=TrainSettings(num_merges=5), parity=ParityOptions(
        (Language("en", "a"), Language("en", "b")))), "given twice"),
    (TrainingSpec(PARITY, settings=TrainSettings(num_merges=5), parity=ParityOptions(
        (Language("en", "a", ratio=-1.0),))), "positive number"),
    (TrainingSpec("bogus"), "Unknown training mode"),
])
def test_what_does_not_go_together_is_refused(spec, said):
    with pytest.raises(SettingsError, match=said):
        spec.validated()


def test_a_run_lends_its_table_to_a_spec_that_reads_the_same_words(corpus):
    spec = TrainingSpec(corpus=(str(corpus),), settings=TrainSettings(num_merges=20))
    first = build_run(spec)
    again = build_run(TrainingSpec(corpus=(str(corpus),), settings=TrainSettings(
        num_merges=30, tie_rule="lowest-ids")), reuse=first)
    assert again.table is first.table
    other = build_run(TrainingSpec(corpus=(str(corpus),), settings=TrainSettings(
        num_merges=30, pattern="cl100k")), reuse=first)
    assert other.table is not first.table


def test_training_on_needs_the_tokenizer_loaded():
    with pytest.raises(SettingsError, match="base=tokenizer"):
        resolve(TrainingSpec(TRAIN_ON, text="a b", base="gpt2"))
