"""Loading a sample applies its own settings; settings the user chose can be had back
with one click (the notice under the corpus title), and no notice nags otherwise."""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt

from bpe_gui.engine.train.trainer import TrainSettings
from bpe_gui.gui.resources import resources
from bpe_gui.gui.models.settings_changes import sample_settings


def test_no_notice_at_start_up_or_between_untouched_samples(window, ready):
    notice = window.dock_layout.editor.notice
    assert window.controller.corpus_sample == "tutorial" and notice.isHidden()
    assert window.dock_layout.editor.load_sample("tutorial-bytes")
    ready(window.controller)
    assert notice.isHidden()       # the tutorial's own settings were replaced, not the user's


def test_keep_my_settings_puts_the_users_settings_back(window, ready, qtbot):
    c = window.controller
    mine = TrainSettings(vocab_size=700, tie_rule="first-seen", min_frequency=2)
    assert c.set_settings(mine)
    ready(c)
    assert window.dock_layout.editor.load_sample("zh-en")
    ready(c)
    zh = sample_settings(resources().sample("zh-en").settings)
    assert c.settings == zh.validated()
    notice = window.dock_layout.editor.notice
    assert notice.isVisible()
    text = notice.label.text()
    for change in ("vocab size 700 → 600", "pre-tokenizer", "tie rule", "min frequency"):
        assert change in text
    qtbot.mouseClick(notice.keep_btn, Qt.LeftButton)
    ready(c)
    assert notice.isHidden()
    assert c.settings == mine.validated() and c.trainer.settings == mine.validated()
    assert c.corpus_sample == "zh-en"                 # the sample's text stays
    assert c.corpus_text == resources().sample_text(resources().sample("zh-en"))


def test_ok_keeps_the_samples_settings_and_another_corpus_hides_the_notice(window, ready, qtbot):
    c = window.controller
    assert c.set_settings(replace(c.settings, num_merges=30))
    ready(c)
    assert window.dock_layout.editor.load_sample("tutorial")
    notice = window.dock_layout.editor.notice
    assert notice.isVisible()
    qtbot.mouseClick(notice.ok_btn, Qt.LeftButton)
    assert notice.isHidden() and c.settings.pattern == "whitespace"
    assert c.set_settings(replace(c.settings, num_merges=40))
    assert window.dock_layout.editor.load_sample("zh-en")
    assert notice.isVisible()
    c.set_corpus_text("my own text now")
    assert notice.isHidden()


def test_loading_a_sample_says_which_settings_it_changed(window, qtbot, ready):
    messages = []
    window.controller.message.connect(messages.append)
    assert window.dock_layout.editor.load_sample("tutorial-bytes")
    assert any("settings changed: mode" in m for m in messages)
