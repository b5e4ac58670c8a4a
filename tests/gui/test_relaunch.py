"""Quit and relaunch: the window comes back as it was left (issue 21 item 3)."""
from __future__ import annotations

import pytest


TEXT = "the encode text: low lower 你好"


def test_relaunch_restores_encode_text_step_undone_steps_settings(make_window, ready, qtbot):
    first = make_window()
    c = first.controller
    assert first.dock_layout.editor.load_sample("english")
    ready(c)
    first.dock_layout.settings_panel.merges_radio.setChecked(True)
    first.dock_layout.settings_panel.merges_spin.setValue(60)
    assert first.dock_layout.settings_panel.apply()
    ready(c)
    assert c.goto(60)
    assert c.goto(45)     # 15 steps undone: the timeline's redo tail
    first.dock_layout.encode_view.set_text(TEXT)
    saved = (c.corpus_text, c.settings, [s.pair for s in c.trainer.steps])
    first.close()

    second = make_window()
    c2 = second.controller
    ready(c2)
    qtbot.waitUntil(lambda: c2.step_index == 45, timeout=10_000)
    assert (c2.corpus_text, c2.settings, [s.pair for s in c2.trainer.steps]) == saved
    assert second.dock_layout.settings_panel.merges_spin.value() == 60
    assert second.dock_layout.settings_panel.merges_radio.isChecked()
    assert second.dock_layout.encode_view.text() == TEXT
    assert c2.trainer.furthest_step == 60
    assert len(second.dock_layout.merge_panel.timeline.records) == 60


def test_relaunch_restores_the_first_start_tutorial_and_an_imported_tokenizer(
        make_window, ready, qtbot, tmp_path):
    first = make_window()           # the first start: the tutorial sample, 10 merges
    c = first.controller
    assert c.settings.num_merges == 10
    assert c.goto(7)
    files = c.tokenizer_files.export("hf", str(tmp_path), "tok")
    assert first.files.open_paths([str(files[0])]) and c.use_imported
    first.dock_layout.encode_view.set_text("newest widest")
    first.close()

    second = make_window()
    c2 = second.controller
    ready(c2)
    assert c2.settings.num_merges == 10 and c2.settings.mode == "char"
    assert c2.corpus_sample == "tutorial" and not c2.corpus_dirty   # not "unsaved"
    assert second.dock_layout.settings_panel.merges_spin.value() == 10
    assert c2.step_index == 7
    assert c2.imported_path == str(files[0]) and c2.use_imported
    assert second.dock_layout.encode_view.text() == "newest widest"


def test_reopen_can_be_turned_off(make_window, ready):
    first = make_window()
    assert first.actions_menus.acts["reopen"].isChecked()     # on by default
    first.actions_menus.acts["reopen"].trigger()
    assert first.dock_layout.editor.load_sample("english")
    ready(first.controller)
    first.close()
    second = make_window()
    assert not second.actions_menus.acts["reopen"].isChecked()
    assert second.controller.corpus_sample == "tutorial"


def test_an_emptied_corpus_does_not_bring_back_an_older_session(make_window, ready):
    first = make_window()
    assert first.dock_layout.editor.load_sample("english")
    ready(first.controller)
    first.close()
    second = make_window()
    assert second.controller.corpus_sample == "english"
    second.controller.set_corpus_text("", dirty=False)    # File > New empty corpus
    second.close()
    third = make_window()
    assert third.controller.corpus_sample == "tutorial"    # not the english session


@pytest.mark.slow
def test_a_word_count_table_corpus_comes_back(make_window, ready, tmp_path):
    from bpe_gui.engine.corpus.counting import table_from_text
    from bpe_gui.engine.corpus.table_file import write_table
    from bpe_gui.engine.text.pretokenize import Pretokenizer
    table = table_from_text("hug pug pun bun hugs " * 30, Pretokenizer("gpt2", ()))
    path = tmp_path / "words.tsv"
    write_table(table, path)
    first = make_window()
    assert first.dock_layout.editor.open_files([str(path)])
    ready(first.controller)
    assert first.controller.corpus_table is not None
    first.controller.goto(5)
    first.close()
    second = make_window()
    ready(second.controller)
    assert second.controller.corpus_table is not None
    assert second.controller.corpus_paths == [str(path)]
    assert second.controller.step_index == 5
