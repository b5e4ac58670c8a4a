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


# ----- sessions are written from a complete state, never a half-restored one (issue 30) -----
import json        # noqa: E402
import random      # noqa: E402
import threading   # noqa: E402

import pytest      # noqa: E402

RESTORE_STEP, RESTORE_FURTHEST = 40, 70


@pytest.fixture
def held_restore(tmp_path, monkeypatch):
    """An autosaved session (step 40 of 70 on a corpus file too big to train on the GUI
    thread) whose training job, once started, waits at its start until ``release()``:
    the window is caught mid-restore, as a 1 GiB corpus keeps it for a minute."""
    from bpe_gui.engine.errors import Cancelled
    from bpe_gui.engine.train import Session
    from bpe_gui.engine.train import TrainSettings
    from bpe_gui.gui.controller import training as training_mod

    rng = random.Random(30)
    syll = ["lo", "w", "er", "ne", "st", "wi", "de", "ka", "ri", "to"]
    words = [" ".join("".join(rng.choice(syll) for _ in range(rng.randint(1, 4)))
                      for _ in range(12)) for _ in range(4_000)]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(words) + "\n", encoding="utf-8")   # > SYNC_CHARS: a job
    settings = TrainSettings(vocab_size=400)
    Session(settings=settings, corpus_paths=[str(corpus)], step=RESTORE_STEP,
            furthest_step=RESTORE_FURTHEST, encode_text="lower").save(
                tmp_path / "autosave.bpesession")
    gate = threading.Event()
    real = training_mod.build_run

    def gated(spec, progress=None, cancelled=None, **kwargs):   # (in the training job)
        while not gate.wait(0.01):
            if cancelled():
                raise Cancelled()
        return real(spec, progress, cancelled, **kwargs)
    monkeypatch.setattr(training_mod, "build_run", gated)

    class Held:
        auto = tmp_path / "autosave.bpesession"
        release = gate.set

        @staticmethod
        def saved() -> dict:
            return json.loads(Held.auto.read_text(encoding="utf-8"))
    return Held


def start_restore(make_window, qtbot):
    win = make_window(load=False)
    win.sessions.load_initial([])
    c = win.controller
    qtbot.waitUntil(lambda: c.training_job, timeout=10_000)   # read; training held
    assert c.step_index == 0
    return win


@pytest.mark.regression
def test_quitting_while_the_last_session_is_restored_keeps_its_step(
        make_window, qtbot, held_restore):
    """Quit (Ctrl+Q) while the last session was still being read and pre-tokenized
    overwrote it with "step": 0 and no furthest_step (issue 30 item 1)."""
    win = start_restore(make_window, qtbot)
    win.dock_layout.encode_view.set_text("typed during the restore")
    assert win.close()
    saved = held_restore.saved()
    assert saved["step"] == RESTORE_STEP and saved["furthest_step"] == RESTORE_FURTHEST
    assert saved["settings"]["vocab_size"] == 400
    assert saved["encode_text"] == "typed during the restore"   # the view's part: as it is


@pytest.mark.regression
def test_saving_a_session_while_it_is_restored_writes_that_session(
        make_window, qtbot, tmp_path, held_restore):
    """Save session during a restore wrote step 0 (issue 30 item 1)."""
    win = start_restore(make_window, qtbot)
    out = tmp_path / "mine.bpesession"
    assert win.controller.opening.save_session(str(out), "x")
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["step"] == RESTORE_STEP and saved["furthest_step"] == RESTORE_FURTHEST


def test_a_cancelled_restore_keeps_the_session_until_the_user_moves_on(
        make_window, qtbot, held_restore, ready):
    win = start_restore(make_window, qtbot)
    c = win.controller
    c.cancel()                                     # Esc while reading: dropped
    qtbot.waitUntil(lambda: not c.busy, timeout=10_000)
    assert win.sessions.autosave() is None
    assert held_restore.saved()["step"] == RESTORE_STEP   # nothing of it was lost
    held_restore.release()
    assert win.dock_layout.editor.load_sample("english")   # another corpus: the live state counts
    ready(c)
    assert win.sessions.autosave() is None
    saved = held_restore.saved()
    assert saved["corpus"].get("sample") == "english" and saved["step"] == c.step_index


def test_once_restored_the_session_saved_is_the_live_one(make_window, qtbot, held_restore,
                                                         ready):
    win = start_restore(make_window, qtbot)
    c = win.controller
    held_restore.release()
    qtbot.waitUntil(lambda: not c.busy and c.step_index == RESTORE_STEP, timeout=30_000)
    assert c.trainer.furthest_step == RESTORE_FURTHEST
    assert c.step()                                # the user goes on from there
    win.close()
    saved = held_restore.saved()
    assert saved["step"] == RESTORE_STEP + 1


@pytest.mark.regression
def test_the_pattern_chosen_for_a_bare_tiktoken_comes_back(make_window, ready, qtbot,
                                                           tmp_path):
    """The pattern picked in the import dialog for a .tiktoken holding only ranks was not
    saved in the session: at the next launch the file ran with the assumed (cl100k)
    pattern and its ids changed."""
    from bpe_gui.engine.formats import load_tokenizer
    from bpe_gui.gui.dialogs.import_dialog import ImportDialog
    from oracles import BARE_TEXT as text, bare_tiktoken
    _, ranks, expected = bare_tiktoken(tmp_path)
    assert load_tokenizer(ranks).encode(text, allowed_special="all") != expected   # (the text tells them apart)

    first = make_window()
    c = first.controller
    dlg = ImportDialog(c, first, path=str(ranks))
    dlg.pattern_combo.setCurrentIndex(dlg.pattern_combo.findData("gpt2"))
    dlg.do_import()
    assert c.use_imported and c.tokenizer().encode(text, allowed_special="all") == expected
    first.close()

    second = make_window()
    c2 = second.controller
    ready(c2)
    qtbot.waitUntil(lambda: c2.imported is not None, timeout=10_000)
    assert c2.imported_path == str(ranks) and c2.use_imported
    assert c2.tokenizer().encode(text, allowed_special="all") == expected
    ev = second.dock_layout.encode_view
    ev.set_text(text)
    qtbot.waitUntil(lambda: list(ev.encoding.ids) == expected, timeout=10_000)
