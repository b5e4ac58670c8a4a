"""The settings panel's "special-token text" choice (TrainSettings.special_text): greyed
with the spec's reason where it is not used, and what it says reaches the spec, its
command and the run."""
from __future__ import annotations

from bpe_gui.engine import TrainSettings
from bpe_gui.engine.train import Trainer

TEXT = "low lower<|endoftext|>newest widest<|endoftext|>" * 20


def test_the_choice_is_greyed_without_special_tokens_and_trains_as_it_says(
        make_window, ready, qtbot):
    window = make_window()
    c = window.controller
    c.set_settings(TrainSettings(num_merges=12))
    c.set_corpus_text(TEXT)
    panel = window.dock_layout.settings_panel
    combo = panel.special_text_combo
    assert [combo.itemData(i) for i in range(combo.count())] == ["cut", "text", "word"]
    panel.check()
    assert not combo.isEnabled()
    assert "no special tokens" in combo.toolTip()
    panel.specials_edit.setPlainText("<|endoftext|>")
    qtbot.waitUntil(combo.isEnabled)
    assert "ordinary text" in combo.toolTip()        # its own tooltip is back
    combo.setCurrentIndex(combo.findData("text"))
    panel.apply()
    assert c.settings.special_text == "text"
    assert c.training.spec().settings.special_text == "text"
    assert "--special-text=text" in c.training.command()[0]
    c.training.retrain()
    ready(c)
    window.actions_menus.acts["run"].trigger()
    qtbot.waitUntil(lambda: not c.busy and c.trainer is not None and c.trainer.is_done,
                    timeout=20_000)
    want = Trainer.from_text(TEXT, TrainSettings(num_merges=12, special_tokens=(
        "<|endoftext|>",), special_text="text"))
    want.run()
    cut = Trainer.from_text(TEXT, TrainSettings(num_merges=12,
                                                special_tokens=("<|endoftext|>",)))
    cut.run()
    assert c.trainer.merges == want.merges != cut.merges
    assert (b"|", b">") in want.merges          # a merge inside the token's text

    panel.specials_edit.setPlainText("")                # no special tokens: greyed again
    qtbot.waitUntil(lambda: not combo.isEnabled())
    assert combo.currentData() == "cut"                 # the mode's value shown meanwhile
    panel.specials_edit.setPlainText("<|endoftext|>")
    qtbot.waitUntil(combo.isEnabled)
    assert combo.currentData() == "text"                # the user's own, back
    panel.parity.check.setChecked(True)                 # parity: no special tokens at all
    qtbot.waitUntil(lambda: not combo.isEnabled())
    assert "parity training has no special tokens" in combo.toolTip()
    panel.parity.check.setChecked(False)
    qtbot.waitUntil(combo.isEnabled)
    assert combo.currentData() == "text"
