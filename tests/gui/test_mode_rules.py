"""Modes that combined wrongly, with no sign (issue 79, item 4), each walked as the issue's
new user did: SuperBPE ticked while training on, pruning and SuperBPE during parity, a
special token left behind by training on left through parity, and trained work thrown
away by open, an edit, Recent and Clear."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bpe_gui.engine.train import ParitySettings, ParityTrainer, Trainer, TrainSettings
from bpe_gui.gui.controller.parity_setup import Language, ParitySetup

from conftest import wait_idle, wait_ready
from test_nothing_lost import answer_next_box, train_english_to

tokenizers = pytest.importorskip("tokenizers")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "parallel"
EOT = "<|endoftext|>"
TEXT = (FIXTURES / "de.train.txt").read_text("utf-8")[:4000]


@pytest.fixture(scope="module")
def gpt2_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gpt2")
    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator([(FIXTURES / "en.train.txt").read_text("utf-8")],
                            vocab_size=400, special_tokens=[EOT], show_progress=False)
    bpe.save_model(str(folder))
    return folder


def trained_on(window, qtbot, gpt2_dir, n: int = 40):
    c = window.controller
    c.set_settings(TrainSettings(num_merges=30))   # (the window opens in character mode)
    c.set_corpus_text(TEXT, dirty=False)
    assert c.tokenizer_files.import_tokenizer(str(gpt2_dir)) is not None
    wait_idle(qtbot, c)
    assert c.train_on.start(num_merges=n)
    qtbot.waitUntil(lambda: not c.busy and c.train_on.origin() is not None, timeout=30_000)
    return c


def parity_on(c, langs=("en", "de")) -> ParitySetup:
    setup = ParitySetup(enabled=True, languages=tuple(
        Language(n, str(FIXTURES / f"{n}.train.txt"), dev=str(FIXTURES / f"{n}.dev.txt"))
        for n in langs))
    c.set_parity(setup)
    return setup


@pytest.mark.regression
def test_superbpe_ticked_while_training_on_is_greyed_and_not_applied(window, qtbot, gpt2_dir):
    """SuperBPE ticked during train-on showed no sign and F5 kept the plain run."""
    c = trained_on(window, qtbot, gpt2_dir)
    panel = window.dock_layout.settings_panel
    panel.check()
    assert not panel.superbpe.isEnabled()
    assert "SuperBPE's stage 2 on a tokenizer is `bpe-gui train --from" in \
        panel.superbpe.toolTip()
    assert c.set_settings(replace(c.settings, superbpe_from=30))
    window.actions_menus.flow.train()
    wait_ready(qtbot, c, 30_000)
    assert c.trainer.spec.mode == "train-on" and c.trainer.transition is None
    assert c.trainer.settings.superbpe_from is None   # the run says what it is


@pytest.mark.regression
def test_pruning_and_superbpe_are_not_parity_settings(window, qtbot):
    """With Parity ticked, Prune and SuperBPE stayed enabled, shown ticked for a run that
    had neither."""
    c = window.controller
    panel = window.dock_layout.settings_panel
    panel.prune_check.setChecked(True)
    panel.parity.check.setChecked(True)
    assert not panel.prune_check.isEnabled() and not panel.prune_check.isChecked()
    assert "parity training keeps every token" in panel.prune_check.toolTip()
    assert c.set_settings(TrainSettings(num_merges=30, prune=True, superbpe_from=20))
    parity_on(c)
    assert c.training.train()
    wait_ready(qtbot, c, 60_000)
    run = c.trainer
    assert run.parity is not None and not run.settings.prune and run.transition is None
    ref = ParityTrainer.from_files([(n, FIXTURES / f"{n}.train.txt") for n in ("en", "de")],
                                   [(n, FIXTURES / f"{n}.dev.txt") for n in ("en", "de")],
                                   ParitySettings(num_merges=30), lines=True)
    ref.run()
    assert run.merges == ref.merges
    panel.parity.check.setChecked(False)   # left: the user's ticks come back
    assert panel.superbpe.isEnabled() and panel.superbpe.value() == 20
    assert not panel.prune_check.isEnabled()   # (SuperBPE's mode: it does not prune)
    panel.superbpe.check.setChecked(False)
    panel.check()
    assert panel.prune_check.isEnabled() and panel.prune_check.isChecked()


@pytest.mark.regression
def test_training_on_left_through_parity_leaves_no_special_token(window, qtbot, gpt2_dir):
    """Train on, tick Parity, untick it: the Special tokens box held <|endoftext|>, never
    typed, and the plain run gave it id 256."""
    c = trained_on(window, qtbot, gpt2_dir)
    assert c.settings.special_tokens == ()
    parity_on(c)
    assert not c.train_on.active   # parity reads its languages: training on ends
    c.set_parity(replace(c.parity, enabled=False))
    window.dock_layout.settings_panel.set_settings(c.settings)
    assert window.dock_layout.settings_panel.special_tokens() == []
    c.training.retrain(to_target=True)
    wait_ready(qtbot, c, 30_000)
    assert c.trainer.spec.mode == "plain" and c.trainer.settings.special_tokens == ()
    ref = Trainer.from_text(TEXT, replace(c.trainer.settings))
    ref.run()
    assert c.trainer.merges == ref.merges and c.trainer.n_initial == 256


@pytest.mark.regression
def test_opening_a_file_over_a_trained_run_asks_first(window, ready, qtbot, tmp_path):
    """Ctrl+O of another file on a trained run went to step 0 with no question."""
    c = train_english_to(window, ready, 40, 40)
    other = tmp_path / "other.txt"
    other.write_text("another corpus, another text " * 20, encoding="utf-8")
    seen = answer_next_box(qtbot, None)   # Escape: nothing changes
    assert not window.dock_layout.editor.open_files([str(other)])
    assert seen and "40 merges" in seen[0] and "Open other.txt" in seen[0]
    assert c.step_index == 40 and not c.stale and c.corpus_sample == "english"
    seen = answer_next_box(qtbot, "Open")   # Recent and a drop take the same road
    assert window.files.open_paths([str(other)])
    ready(c)
    assert seen and c.corpus_paths == [str(other)]


@pytest.mark.regression
def test_an_edit_keeps_the_trained_run_until_train(window, ready, qtbot):
    """Typing one character in the corpus reset a trained run to step 0."""
    c = train_english_to(window, ready, 40, 40)
    text, steps = c.corpus_text, [s.pair for s in c.trainer.steps]
    said = []
    c.message.connect(said.append)
    c.set_corpus_text(text + "x", paths=c.corpus_paths, dirty=True)   # an edit
    qtbot.wait(600)   # (past the retrain-after-an-edit pause: nothing retrains)
    assert c.stale and c.step_index == 40 and [s.pair for s in c.trainer.steps] == steps
    assert any("kept until you train again" in s for s in said)
    c.set_corpus_text(text, paths=c.corpus_paths, dirty=True)   # undone
    assert not c.stale and c.step_index == 40


@pytest.mark.regression
def test_a_new_corpus_does_not_touch_a_parity_run(window, qtbot, tmp_path):
    """On a parity run, a corpus from Recent reset parity to step 0, and Clear warned it
    would throw away the training, which stayed."""
    c = window.controller
    c.set_settings(replace(c.settings, num_merges=30, vocab_size=None))
    parity_on(c)
    window.actions_menus.flow.train()
    wait_ready(qtbot, c, 60_000)
    assert c.trainer.parity is not None and c.step_index == 30
    run = c.trainer
    other = tmp_path / "other.txt"
    other.write_text("another corpus " * 30, encoding="utf-8")
    assert window.files.open_paths([str(other)])   # nothing at stake: no question
    wait_idle(qtbot, c)
    assert c.trainer is run and c.step_index == 30 and not c.stale
    window.dock_layout.editor.new_corpus()        # Clear: no question, the run stays
    assert c.corpus_text == "" and c.trainer is run and not c.stale
