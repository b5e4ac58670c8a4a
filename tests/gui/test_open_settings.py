"""A corpus opened from files is read once, with the settings the user sees (issue 21,
item 2).

Before: with "3 settings not applied" (byte-level, 32,000) an opened file was read with
the settings in use (character mode), and Train read the whole file again; and the
tutorial's character-level, 10-merge settings carried over from the start-up sample to a
real corpus."""
from __future__ import annotations

import pytest

import random

from bpe_gui.engine import TrainSettings
from bpe_gui.gui.controller.training import SYNC_CHARS
from bpe_gui.gui.controller.corpus_source import EDIT_BYTES, FileCorpus
from bpe_gui.gui.window.training_flow import REAL_CORPUS_SETTINGS


def text_of(n_chars: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    words = ["low", "lower", "newest", "widest", "the", "of", "tokenizer", "分词", "merge"]
    out, size = [], 0
    while size < n_chars:
        w = rng.choice(words)
        out.append(w)
        size += len(w) + 1
    return " ".join(out) + "\n"


def reads(controller) -> list[str]:
    """Labels of the jobs that pre-tokenize a corpus, as they start."""
    seen: list[str] = []
    controller.jobs.started.connect(
        lambda label: seen.append(label) if "re-tokenizing" in label else None)
    return seen


@pytest.mark.slow
def test_pending_settings_are_applied_when_a_big_file_opens_and_it_is_read_once(
        window, ready, qtbot, tmp_path):
    c, panel, flow = window.controller, window.dock_layout.settings_panel, window.actions_menus.flow
    assert c.settings.mode == "char"               # the tutorial sample at start-up
    panel.byte_radio.setChecked(True)
    panel.vocab_radio.setChecked(True)
    panel.vocab_spin.setValue(280)
    panel.check()
    assert panel.is_pending() and not panel.errors
    path = tmp_path / "big.txt"
    path.write_text(text_of(EDIT_BYTES + 300_000), encoding="utf-8")   # streamed: over it
    started = reads(c)
    assert window.dock_layout.editor.open_files([str(path)])
    ready(c, timeout=60_000)
    assert isinstance(c.corpus_files, FileCorpus)
    assert (c.settings.mode, c.settings.vocab_size, c.settings.num_merges) == \
        ("byte", 280, None)
    assert c.trainer.settings == c.settings and not panel.is_pending()
    assert len(started) == 1
    assert flow.train()                             # F5: runs on, reads nothing again
    ready(c, timeout=60_000)
    assert len(started) == 1 and c.trainer.vocab_size == 280


def test_a_samples_settings_give_way_to_real_corpus_defaults_with_a_way_back(
        window, ready, qtbot, tmp_path):
    c = window.controller
    tutorial = c.settings
    assert c.corpus_sample == "tutorial" and tutorial.mode == "char"
    path = tmp_path / "mine.txt"
    path.write_text(text_of(SYNC_CHARS + 10_000), encoding="utf-8")
    started = reads(c)
    assert window.dock_layout.editor.open_files([str(path)])
    ready(c, timeout=60_000)
    assert c.settings == REAL_CORPUS_SETTINGS == TrainSettings()
    assert c.trainer.settings == REAL_CORPUS_SETTINGS and len(started) == 1
    notice = window.dock_layout.editor.notice
    assert notice.isVisible() and "defaults for a real corpus" in notice.label.text()
    assert "byte-level" in notice.label.text() and "1,000" in notice.label.text()
    notice.keep_btn.click()
    ready(c, timeout=60_000)
    assert c.settings == tutorial and c.trainer.settings == tutorial


def test_settings_the_user_tuned_on_a_sample_are_kept(window, ready, tmp_path):
    c, panel = window.controller, window.dock_layout.settings_panel
    panel.merges_spin.setValue(25)                 # still character mode: the user's choice
    assert panel.apply()
    ready(c)
    path = tmp_path / "small.txt"
    path.write_text(text_of(5_000), encoding="utf-8")
    assert window.dock_layout.editor.open_files([str(path)])
    ready(c, timeout=60_000)
    assert (c.settings.mode, c.settings.num_merges) == ("char", 25)
    assert not window.dock_layout.editor.notice.isVisible()


def test_settings_with_errors_leave_the_new_corpus_untrained_until_fixed(
        window, ready, qtbot, tmp_path):
    c, panel, flow = window.controller, window.dock_layout.settings_panel, window.actions_menus.flow
    messages: list[str] = []
    c.message.connect(messages.append)
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("custom"))
    panel.pattern_edit.setText("(unclosed")
    panel.check()
    assert panel.errors
    path = tmp_path / "big.txt"
    path.write_text(text_of(SYNC_CHARS + 10_000), encoding="utf-8")
    started = reads(c)
    assert window.dock_layout.editor.open_files([str(path)])
    qtbot.waitUntil(lambda: c.corpus_paths == [str(path)] and not c.busy, timeout=30_000)
    assert c.stale and started == []
    assert "fix the training settings" in messages[-1]
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("gpt2"))
    assert flow.train()
    ready(c, timeout=60_000)
    assert c.settings.pattern == "gpt2" and len(started) == 1
