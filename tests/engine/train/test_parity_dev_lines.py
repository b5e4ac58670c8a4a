"""Dev texts of different lengths are not parallel (parity_dev): the data counts each
dev text's lines (from files: from the counted words; from texts: the texts), says so in
a sentence naming each text and its lines, and every reader of the run says it too --
the run's ParityTrainer.warning, and each step's sentence, which then does not claim "the
same sentences". Parallel dev texts (the fixture's) get none of it."""
from __future__ import annotations

from pathlib import Path

import pytest

from bpe_gui.engine.train import ParityData, ParitySettings, ParityTrainer, \
    turn_sentence
from bpe_gui.engine.train.parity_dev import text_lines

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "parallel"
LANGS = ("en", "de")


def _oracle_lines(path: Path) -> int:
    """Lines as a reader counts them: every \\n, and a last line without one."""
    return len(path.read_text("utf-8").splitlines())


def _files(tmp_path: Path, keep: int | None):
    """The fixture's training and dev files; de's dev text cut to its first ``keep``
    lines (None: whole)."""
    dev = {n: FIXTURES / f"{n}.dev.txt" for n in LANGS}
    if keep is not None:
        short = tmp_path / "de.dev.txt"
        short.write_text("".join(dev["de"].read_text("utf-8").splitlines(True)[:keep]),
                         "utf-8")
        dev["de"] = short
    return {n: FIXTURES / f"{n}.train.txt" for n in LANGS}, dev


@pytest.mark.parametrize("lines", [True, False])
def test_files_of_different_lengths_are_named_with_their_lines(tmp_path, lines):
    train, dev = _files(tmp_path, keep=30)
    data = ParityData.from_files(train, dev, lines=lines)
    assert data.dev_lines == tuple(_oracle_lines(dev[n]) for n in LANGS)
    said = data.unparallel(" with --ratio NAME=R")
    assert said is not None
    assert f"en ({dev['en']}): {_oracle_lines(dev['en']):,}" in said
    assert f"de ({dev['de']}): 30" in said
    assert "with --ratio NAME=R" in said


def test_parallel_files_and_no_dev_set_get_no_warning(tmp_path):
    train, dev = _files(tmp_path, keep=None)
    assert ParityData.from_files(train, dev, lines=True).unparallel() is None
    assert ParityData.from_files(train, None, lines=True).unparallel() is None


@pytest.mark.parametrize("texts,expected", [
    ("a", 1), ("a\n", 1), ("a\nb", 2), ("\n\n", 2), (["a\nb", "c"], 3)])
def test_texts_count_their_lines(texts, expected):
    data = ParityData.from_texts({"en": "the cat", "de": "die Katze"},
                                 dev={"en": texts, "de": "x\n" * 7})
    assert data.dev_lines == (expected, 7)
    want_note = expected != 7
    assert (data.unparallel() is not None) == want_note
    if isinstance(texts, str):
        assert text_lines(texts) == expected == len(texts.splitlines())


def test_an_empty_text_has_no_line():
    assert text_lines("") == 0


def test_the_run_and_each_step_say_the_dev_texts_are_not_parallel(tmp_path):
    train, dev = _files(tmp_path, keep=30)
    run = ParityTrainer.from_files(train, dev, ParitySettings(num_merges=5), lines=True)
    run.run()
    assert run.parity is not None and run.parity.warning is not None
    assert "different numbers of lines" in run.parity.warning
    rec = run.parity.steps[0]
    said = turn_sentence(rec, run.parity.names, run.parity.parity_settings, parallel=False)
    assert "for the same sentences" not in said and "not the same sentences" in said
    trainer = ParityTrainer(ParityData.from_files(train, dev, lines=True),
                            ParitySettings(num_merges=3))
    assert "not the same sentences" in trainer.explain(trainer.run()[0])


def test_parallel_runs_say_the_same_sentences(tmp_path):
    train, dev = _files(tmp_path, keep=None)
    run = ParityTrainer.from_files(train, dev, ParitySettings(num_merges=5), lines=True)
    run.run()
    assert run.parity is not None and run.parity.warning is None
    trainer = ParityTrainer(ParityData.from_files(train, dev, lines=True),
                            ParitySettings(num_merges=3))
    assert "for the same sentences" in trainer.explain(trainer.run()[0])
