"""The one training flow: pending settings show in the toolbar, Train applies and runs to
the target, a new target goes on or back without re-tokenizing, the merge panel follows
a run while it goes, and Cancel frees the window at once in every phase."""
from __future__ import annotations

import re

import random
import threading

import pytest
from PySide6.QtCore import Qt

from bpe_gui.engine import TrainSettings, Trainer

TEXT = ("the lowest and the newest of the widest words: low, lower, newest, widest. "
        "分词器把文字切成 token，再换成编号。 ") * 20


def big_text(n_words: int = 60_000, seed: int = 1) -> str:
    """Over the controller's SYNC_CHARS, so training runs on the worker thread."""
    rng = random.Random(seed)
    syll = ["lo", "w", "er", "ne", "st", "wi", "de", "分", "词", "ka", "ri", "to"]
    return " ".join("".join(rng.choice(syll) for _ in range(rng.randint(1, 4)))
                    for _ in range(n_words))


def use_corpus(window, ready, text=TEXT, **settings):
    c = window.controller
    c.set_settings(TrainSettings(**settings))
    c.set_corpus_text(text)
    c.training.retrain()
    ready(c)
    return c


def test_pending_settings_show_in_the_toolbar_and_train_applies_them(window, ready, qtbot):
    c = use_corpus(window, ready, vocab_size=300)
    flow, panel = window.actions_menus.flow, window.dock_layout.settings_panel
    assert not flow.badge_action.isVisible() and not flow.badge.text()
    panel.vocab_spin.setValue(320)
    qtbot.waitUntil(lambda: flow.badge.text() != "")
    assert "1 setting not applied" in flow.badge.text()
    assert "vocab size 300 → 320" in flow.badge.toolTip()
    window.actions_menus.acts["run"].trigger()   # one action: apply and run to the target
    qtbot.waitUntil(lambda: not c.busy and c.trainer.is_done, timeout=10_000)
    assert c.settings.vocab_size == 320 and c.trainer.vocab_size == 320
    qtbot.waitUntil(lambda: flow.badge.text() == "")


def test_train_with_settings_that_need_a_new_trainer_trains_to_the_target(window, ready, qtbot):
    c = use_corpus(window, ready, vocab_size=300)
    window.dock_layout.settings_panel.tie_combo.setCurrentIndex(
        window.dock_layout.settings_panel.tie_combo.findData("first-seen"))
    window.actions_menus.acts["run"].trigger()
    qtbot.waitUntil(lambda: not c.busy and c.trainer.is_done, timeout=10_000)
    assert c.trainer.settings.tie_rule == "first-seen" and not c.stale
    fresh = Trainer.from_text(TEXT, c.settings)
    fresh.run()
    assert c.trainer.merges == fresh.merges


@pytest.mark.parametrize("second", [330, 270])
def test_a_new_target_goes_on_or_back_without_retokenizing(window, ready, qtbot, second):
    c = use_corpus(window, ready, vocab_size=300)
    window.actions_menus.acts["run"].trigger()
    qtbot.waitUntil(lambda: not c.busy and c.trainer.is_done, timeout=10_000)
    trainer, table = c.trainer, c.trainer.table
    window.dock_layout.settings_panel.vocab_spin.setValue(second)
    window.actions_menus.acts["run"].trigger()
    qtbot.waitUntil(lambda: not c.busy and c.trainer.is_done, timeout=10_000)
    assert c.trainer is trainer and c.trainer.table is table and not c.stale
    fresh = Trainer.from_text(TEXT, TrainSettings(vocab_size=second))
    fresh.run()
    assert c.trainer.merges == fresh.merges
    # the header and the status bar follow the new target
    target = second - trainer.n_initial
    assert f"/ {target:,}" in window.status.step_label.text()
    assert f"of {target:,}" in window.dock_layout.merge_panel.status.text()


def test_retrain_applies_pending_settings(window, ready, qtbot):
    c = use_corpus(window, ready, vocab_size=300)
    window.dock_layout.settings_panel.minfreq_spin.setValue(3)
    window.dock_layout.settings_panel.prune_check.setChecked(True)
    window.actions_menus.acts["retrain"].trigger()
    ready(c)
    assert c.settings.min_frequency == 3 and c.settings.prune
    # it trains to the target (it used to stop at step 0: issue 21)
    assert c.trainer.settings == c.settings and c.step_index > 0 and c.trainer.is_done


def test_settings_with_errors_are_not_trained_and_say_so(window, ready, qtbot):
    c = use_corpus(window, ready, vocab_size=300)
    panel = window.dock_layout.settings_panel
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("custom"))
    panel.pattern_edit.setText("(unclosed")
    panel.check()
    trainer = c.trainer
    assert not window.actions_menus.flow.train()
    assert c.trainer is trainer and c.step_index == 0
    assert "error" in window.actions_menus.flow.badge.text()


@pytest.mark.regression
def test_step_on_an_edited_big_corpus_waits_for_its_retrain(window, ready, qtbot):
    """Step (F10) on an edited corpus too big to retrain at once started the retraining
    job, then stepped the stale trainer the job replaces (or, with none yet, raised
    AttributeError: an "Unexpected error" box). It now starts the job and steps nothing
    meanwhile; the job lands at step 1, the step asked for (issue 89: it showed 0)."""
    c = window.controller
    c.set_settings(TrainSettings(vocab_size=300))
    c.set_corpus_text(big_text())
    assert c.trainer is None or c.stale
    assert not c.step() and c.busy       # the retrain job runs; nothing was stepped
    ready(c)
    assert c.trainer is not None and not c.stale and c.step_index == 1
    assert c.step() and c.step_index == 2


@pytest.fixture
def slow_steps(monkeypatch):
    """Each merge takes a little longer, so a run is still going when the test looks."""
    real, real_chunk = Trainer.step, Trainer._record_core_steps
    gate = threading.Event()

    def step(self, detail=True):
        gate.wait(0.002)
        return real(self, detail)

    def chunk(self):   # runs in the C core: each chunk of merges slows down (to 16 steps)
        gate.wait(0.1)
        return real_chunk(self)
    monkeypatch.setattr(Trainer, "step", step)
    monkeypatch.setattr(Trainer, "_record_core_steps", chunk)
    return gate


def test_merge_panel_and_timeline_follow_a_running_training(window, ready, qtbot, slow_steps):
    c = use_corpus(window, ready, num_merges=2_000)
    c.live.interval = 0.05
    panel = window.dock_layout.merge_panel
    window.actions_menus.acts["run"].trigger()
    assert c.busy
    qtbot.waitUntil(lambda: len(panel.timeline.records) >= 20 and c.busy, timeout=10_000)
    assert "Step 0 " not in panel.status.text()
    # "Step 57 of 2,000 · ..." while it runs; "Done at step 412 of 2,000: no pair left ·
    # ..." if a loaded machine let it reach the end before this line reads it
    shown = int(re.search(r"[Ss]tep ([\d,]+)", panel.status.text()).group(1).replace(",", ""))
    assert 0 < shown <= 2_000
    c.cancel()
    qtbot.waitUntil(lambda: not c.busy, timeout=5_000)
    assert c.step_index >= shown and len(panel.timeline.records) == c.step_index


@pytest.mark.regression
@pytest.mark.parametrize("interval", [0.05, 100.0])
def test_the_status_bar_says_one_step_while_training_runs(window, ready, qtbot, slow_steps,
                                                           interval):
    """The step label was read off the trainer a few times a second and the progress
    label at every report: "Step 320 / 4,744" beside "640 of 4,744 merges (13%)"."""
    c = use_corpus(window, ready, num_merges=2_000)
    c.live.interval = interval   # 100 s: the window never gets to look during the run
    status = window.status
    seen: list[tuple[str, str]] = []

    def both() -> None:
        seen.append((status.step_label.text(), status.progress_label.text()))
    c.progress.connect(both)           # after the status bar's own slots
    c.livePeek.connect(lambda _: both())
    window.actions_menus.acts["run"].trigger()
    qtbot.waitUntil(lambda: sum(" of 2,000 merges" in p for _s, p in seen) >= 4
                    or not c.busy, timeout=20_000)
    c.cancel()
    qtbot.waitUntil(lambda: not c.busy, timeout=5_000)
    runs = [(s, p) for s, p in seen if " of 2,000 merges" in p]
    assert len(runs) >= 2 and any(not s.startswith("Step 0 ") for s, _p in runs)
    for step, progress in runs:
        done = re.search(r"([\d,]+) of 2,000 merges", progress).group(1)
        # (the corpus has pairs for 72 merges: the last look adds "stopped: no pair left")
        assert re.match(f"Step {done} / 2,000( · stopped: [^·]+)? · vocabulary ", step), \
            (step, progress)


def test_cancel_while_pretokenizing_frees_the_window_at_once(window, ready, qtbot, monkeypatch):
    """Bug 6: the engine's pre-tokenizer may take a while to notice; the window must not."""
    import bpe_gui.engine.corpus.counting as corpus
    c = use_corpus(window, ready, vocab_size=300)
    old = c.trainer
    release, entered = threading.Event(), threading.Event()
    real = corpus.build_table

    def stuck(*a, **kw):   # a phase that does not check cancel for a long time
        entered.set()
        release.wait(10)
        return real(*a, **kw)
    monkeypatch.setattr(corpus, "build_table", stuck)
    c.set_corpus_text(big_text())
    feedback = []
    c.cancelling.connect(feedback.append)
    window.actions_menus.acts["run"].trigger()
    qtbot.waitUntil(entered.is_set)
    assert c.busy and window.actions_menus.acts["cancel"].isEnabled()
    window.dock_layout.encode_view.setFocus()            # Esc works wherever the focus is
    qtbot.keyClick(window.focusWidget() or window, Qt.Key_Escape)
    assert not c.busy                        # at once, not when the engine notices
    assert feedback and "cancelling" in window.status.progress_label.text()
    assert c.trainer is old and window.actions_menus.acts["step"].isEnabled()
    release.set()                            # the late result is dropped, safely
    qtbot.waitUntil(lambda: not c.jobs.ending, timeout=20_000)
    assert c.trainer is old and not c.busy


def test_cancel_while_running_keeps_the_merges_made(window, ready, qtbot, slow_steps):
    c = use_corpus(window, ready, num_merges=2_000)
    window.actions_menus.acts["run"].trigger()
    qtbot.waitUntil(lambda: c.busy)
    qtbot.keyClick(window, Qt.Key_Escape)
    qtbot.waitUntil(lambda: not c.busy, timeout=2_000)
    assert 0 <= c.step_index < 2_000
    assert "cancelled" in window.statusBar().currentMessage()


def test_training_shows_the_trained_tokenizer_after_an_import(window, ready, qtbot, tmp_path):
    """Issue 21: after importing a tokenizer and training, the encode view and the
    vocabulary browser still showed the import, with no hint how to switch back."""
    c = use_corpus(window, ready, vocab_size=300)
    window.actions_menus.acts["run"].trigger()
    ready(c)
    files = c.tokenizer_files.export("hf", str(tmp_path), name="mine")
    assert c.tokenizer_files.import_tokenizer(str(files[0])) is not None
    assert c.use_imported
    window.dock_layout.vocab_dock.raise_()   # a panel behind another tab catches up when shown
    qtbot.waitUntil(lambda: window.dock_layout.vocab_browser.model.source == "imported")
    browser = window.dock_layout.vocab_browser
    assert browser.show_trained.isVisibleTo(browser)
    assert window.dock_layout.encode_view.source.currentIndex() == 1
    messages = []
    c.message.connect(messages.append)
    window.dock_layout.settings_panel.vocab_spin.setValue(320)
    window.actions_menus.acts["run"].trigger()
    ready(c)
    assert not c.use_imported and c.imported is not None
    assert window.dock_layout.encode_view.source.currentIndex() == 0
    assert window.dock_layout.encode_view.source.isEnabled()          # the import is one click away
    qtbot.waitUntil(lambda: window.dock_layout.vocab_browser.model.source == "trained")
    assert any("trained tokenizer" in m for m in messages)


def test_the_request_to_fix_settings_goes_once_they_are_fixed(window, ready, qtbot):
    use_corpus(window, ready, vocab_size=300)
    panel = window.dock_layout.settings_panel
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("custom"))
    panel.pattern_edit.setText("(unclosed")
    assert not window.actions_menus.flow.train()
    bar = window.statusBar()
    assert "marked in red" in bar.currentMessage()
    panel.pattern_edit.setText(r"\S+|\s+")
    panel.pattern_edit.textEdited.emit(panel.pattern_edit.text())
    qtbot.waitUntil(lambda: not panel.errors, timeout=3000)
    assert "marked in red" not in bar.currentMessage()


def test_training_that_stops_early_says_why(window, ready, qtbot):
    """Issue 21: "Step 15 of 18 · vocabulary 27 / 30" when no pair was left."""
    c = use_corpus(window, ready, text="ab ab ab cd", vocab_size=280)
    window.actions_menus.acts["run"].trigger()
    ready(c)
    t = c.trainer
    assert t.is_done and t.n_steps < t.target_steps
    status = window.dock_layout.merge_panel.status.full_text()
    assert status.startswith(f"Done at step {t.n_steps}") and "no pair left" in status
    assert "no pair left" in window.status.step_label.text()
    c.set_settings(TrainSettings(vocab_size=300, min_frequency=3))
    window.actions_menus.acts["run"].trigger()
    ready(c)
    assert "below min frequency 3" in window.dock_layout.merge_panel.status.full_text()


def test_a_status_message_reads_whole_in_the_tooltip(window):
    """Issue 21: at 800x600 a status message was cut ("New target ap…")."""
    window.controller.message.emit("New target applied; Train (F5) goes on from step 10.")
    bar = window.statusBar()
    assert bar.toolTip() == bar.currentMessage() != ""
    bar.clearMessage()
    assert bar.toolTip() == ""


@pytest.mark.regression
def test_no_stale_text_after_a_mode_change_a_reset_or_a_new_target(window, qtbot, ready):
    """Stale text: the corpus label kept "character mode" after a switch to byte-level, the
    status bar "Step 10." after Reset, the header "/ 60,000" after applying 10,000 (issue 10)."""
    c = window.controller
    assert c.corpus_sample == "tutorial"
    panel = window.dock_layout.settings_panel
    panel.byte_radio.setChecked(True)
    assert window.actions_menus.flow.train()
    qtbot.waitUntil(lambda: not c.busy and c.trainer.is_done, timeout=10_000)
    assert c.settings.mode == "byte"
    assert "character mode" not in window.dock_layout.editor.source_label.text()
    window.actions_menus.acts["reset"].trigger()
    assert c.step_index == 0
    assert "Step 10" not in window.statusBar().currentMessage()
    assert "Target reached" not in window.statusBar().currentMessage()
    panel.merges_spin.setValue(4)
    assert panel.apply()
    label = window.status.step_label.text()
    assert "/ 4 " in label and "/ 10" not in label
    assert "of 4 " in window.dock_layout.merge_panel.status.text()


def test_settings_have_errors_takes_you_to_the_error(window, ready, qtbot):
    """The toolbar's "⚠ Settings have errors" showed the settings at whatever scroll
    they had: the red line of the parity box, at their bottom, was out of sight even at
    1920x1080. Clicking it now scrolls that line into view and gives its field the keys."""
    use_corpus(window, ready, vocab_size=300)
    window.resize(800, 600)
    flow, panel = window.actions_menus.flow, window.dock_layout.settings_panel
    window.dock_layout.settings_dock.show()
    window.dock_layout.settings_dock.raise_()
    panel.parity.check.setChecked(True)   # on, with no language: an error
    qtbot.waitUntil(lambda: "Settings have errors" in flow.badge.text())
    bar = panel.scroll_area.verticalScrollBar()
    bar.setValue(0)
    error = panel.parity.error
    viewport = panel.scroll_area.viewport()

    def in_view() -> bool:
        top = error.mapTo(viewport, error.rect().topLeft()).y()
        return 0 <= top and top + error.height() <= viewport.height()
    qtbot.waitUntil(lambda: error.isVisible() or error.text() != "")
    assert bar.maximum() > 0 and not in_view()   # (the premise: it is below the fold)
    qtbot.mouseClick(flow.badge, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(in_view)
    assert "at least two" in error.text()
