"""Nothing the user made goes without a confirmation (issue 63, part 5): Clear asks
before a trained state goes, Discard at quit drops the corpus edits only, and the
imported tokenizer and Compare's side B come back after a relaunch."""
from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from bpe_gui.engine.train import Trainer
from bpe_gui.gui.resources import resources

from oracles import BARE_TEXT, bare_tiktoken, crossing_tiktoken


def answer_next_box(qtbot, button_text: str | None) -> list[str]:
    """Click the button whose text starts with ``button_text`` (None: Escape) in the next
    message box shown; the list gets the box's text, so a test can see it was asked."""
    seen: list[str] = []
    tries = [300]   # 3 s: a box that never comes leaves ``seen`` empty

    def answer() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            tries[0] -= 1
            if tries[0] > 0:
                QTimer.singleShot(10, answer)
            return
        seen.append(box.text() + "\n" + box.informativeText())
        if button_text is None:
            box.reject()
            return
        chosen = [b for b in box.buttons() if b.text().replace("&", "").startswith(button_text)]
        assert len(chosen) == 1, [b.text() for b in box.buttons()]
        chosen[0].click()
    QTimer.singleShot(0, answer)
    return seen


def train_english_to(window, ready, merges: int, step: int):
    c = window.controller
    assert window.dock_layout.editor.load_sample("english")
    ready(c)
    panel = window.dock_layout.settings_panel
    panel.merges_radio.setChecked(True)
    panel.merges_spin.setValue(merges)
    assert panel.apply()
    ready(c)
    assert c.goto(merges) and c.goto(step)
    return c


def reference_pairs(text: str, settings, steps: int) -> list:
    """The merges a fresh engine trainer learns on ``text`` (the oracle of the window)."""
    t = Trainer.from_text(text, settings)
    for _ in range(steps):
        t.step()
    return [s.pair for s in t.steps]


# ----- Clear --------------------------------------------------------------------------------
def test_clear_asks_before_a_trained_state_goes_and_cancel_keeps_it(window, ready, qtbot):
    c = train_english_to(window, ready, 30, 30)
    before = (c.corpus_text, c.corpus_sample, c.settings, [s.pair for s in c.trainer.steps])
    seen = answer_next_box(qtbot, None)            # Escape: cancel
    window.dock_layout.editor.new_corpus()
    assert seen and "30" in seen[0] and "Clear" in seen[0]
    assert (c.corpus_text, c.corpus_sample, c.settings,
            [s.pair for s in c.trainer.steps]) == before
    assert c.step_index == 30 and not c.stale
    assert window.dock_layout.editor.edit.toPlainText() == before[0]

    seen = answer_next_box(qtbot, "Clear")         # asked again, and this time it goes
    window.actions_menus.acts["new"].trigger()
    assert seen
    assert c.corpus_text == "" and window.dock_layout.editor.edit.toPlainText() == ""


def test_clear_names_unsaved_edits_and_cancel_keeps_them(window, qtbot):
    c, editor = window.controller, window.dock_layout.editor
    editor.edit.selectAll()
    qtbot.keyClicks(editor.edit, "words typed here")
    seen = answer_next_box(qtbot, "Cancel")
    editor.new_corpus()
    assert seen and "not saved" in seen[0]
    assert c.corpus_text == "words typed here" and c.corpus_dirty


def test_clear_of_nothing_trained_does_not_ask(window, qtbot, monkeypatch):
    c = window.controller
    c.set_corpus_text("", dirty=False)
    monkeypatch.setattr(QMessageBox, "exec", lambda self: (_ for _ in ()).throw(
        AssertionError(f"asked: {self.text()}")))
    window.dock_layout.editor.new_corpus()
    assert c.corpus_text == ""


# ----- Discard at quit ------------------------------------------------------------------------
def test_discard_at_quit_drops_the_edits_only(make_window, ready, qtbot, monkeypatch):
    first = make_window()
    c = train_english_to(first, ready, 60, 30)    # 30 steps on show, 30 more to redo
    english = resources().sample_text(resources().sample("english"))
    assert c.corpus_text == english
    settings = c.settings
    editor = first.dock_layout.editor
    editor.edit.moveCursor(editor.edit.textCursor().MoveOperation.End)
    qtbot.keyClicks(editor.edit, " an edit to throw away")
    editor.flush()
    assert c.corpus_dirty
    monkeypatch.setattr(QMessageBox, "question",
                        staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard))
    assert first.close()

    second = make_window()
    c2 = second.controller
    ready(c2)
    qtbot.waitUntil(lambda: c2.step_index == 30, timeout=10_000)
    assert c2.corpus_text == english and "throw away" not in c2.corpus_text
    assert c2.corpus_sample == "english" and not c2.corpus_dirty
    assert c2.settings == settings and c2.settings.num_merges == 60
    assert c2.trainer.furthest_step == 60
    assert [s.pair for s in c2.trainer.steps] == reference_pairs(english, settings, 30)


def test_discard_at_quit_of_an_edited_file_keeps_the_file(make_window, ready, qtbot,
                                                          monkeypatch, tmp_path):
    corpus = tmp_path / "mine.txt"
    corpus.write_text("hug pug pun bun hugs " * 40, encoding="utf-8")
    first = make_window()
    c = first.controller
    assert first.dock_layout.editor.open_files([str(corpus)])
    ready(c)
    assert c.goto(4)
    editor = first.dock_layout.editor
    editor.edit.moveCursor(editor.edit.textCursor().MoveOperation.End)
    qtbot.keyClicks(editor.edit, "zzz")
    editor.flush()
    monkeypatch.setattr(QMessageBox, "question",
                        staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard))
    assert first.close()
    second = make_window()
    c2 = second.controller
    ready(c2)
    qtbot.waitUntil(lambda: c2.step_index == 4, timeout=10_000)
    assert c2.corpus_paths == [str(corpus)] and not c2.corpus_dirty
    assert "zzz" not in c2.corpus_text
    assert [s.pair for s in c2.trainer.steps] == reference_pairs(
        corpus.read_text(encoding="utf-8"), c2.settings, 4)


# ----- the imported tokenizer and Compare's side B --------------------------------------------
def test_imported_tokenizer_and_compare_side_b_come_back(make_window, ready, qtbot, tmp_path):
    mine, ranks, ids = bare_tiktoken(tmp_path)
    side_b = crossing_tiktoken(tmp_path, 400, name="side_b")
    first = make_window()
    c = first.controller
    ready(c)
    assert c.tokenizer_files.import_tokenizer(str(ranks), pattern="gpt2") is not None
    assert c.use_imported
    first.dock_layout.encode_view.set_text(BARE_TEXT)
    pane = first.dock_layout.compare_view.pane_b
    assert pane.open_file(str(side_b))
    qtbot.waitUntil(lambda: pane.kind_key() == "imported" and pane.tokenizer() is not None)
    b_ids = pane.tokenizer().encode(BARE_TEXT)
    first.close()

    second = make_window()
    c2 = second.controller
    ready(c2)
    assert c2.imported_path == str(ranks) and c2.use_imported
    assert c2.imported.encode(BARE_TEXT) == ids        # with the pattern it was read with
    assert second.dock_layout.encode_view.encoding.ids == ids
    pane2 = second.dock_layout.compare_view.pane_b
    qtbot.waitUntil(lambda: pane2.kind_key() == "imported" and pane2.tokenizer() is not None)
    assert pane2.description() == side_b.name
    assert pane2.tokenizer().encode(BARE_TEXT) == b_ids


def test_compare_side_b_step_comes_back(make_window, ready, qtbot):
    first = make_window()
    c = train_english_to(first, ready, 40, 40)
    first.dock_layout.compare_dock.raise_()     # in front, as a user comparing has it
    pane = first.dock_layout.compare_view.pane_b
    qtbot.waitUntil(lambda: pane.step_spin.maximum() == 40)
    pane.set_kind("step")
    pane.set_step(17)
    assert pane.step_spin.value() == 17
    first.close()
    second = make_window()
    ready(second.controller)
    second.dock_layout.compare_dock.raise_()
    pane2 = second.dock_layout.compare_view.pane_b
    qtbot.waitUntil(lambda: pane2.kind_key() == "step" and pane2.step_spin.value() == 17,
                    timeout=10_000)
    assert second.controller.step_index == 40 == c.step_index


def test_missing_files_at_relaunch_are_said_in_the_status_bar(make_window, ready, qtbot,
                                                             tmp_path):
    _mine, ranks, _ids = bare_tiktoken(tmp_path)
    side_b = crossing_tiktoken(tmp_path, 400, name="side_b")
    first = make_window()
    ready(first.controller)
    assert first.controller.tokenizer_files.import_tokenizer(str(ranks)) is not None
    pane = first.dock_layout.compare_view.pane_b
    assert pane.open_file(str(side_b))
    first.close()
    ranks.unlink()
    side_b.unlink()

    second = make_window()
    c2 = second.controller
    ready(c2)
    assert c2.imported is None and not c2.use_imported
    assert second.status.last_error is None            # no error box at start
    pane2 = second.dock_layout.compare_view.pane_b
    qtbot.waitUntil(lambda: "side_b.tiktoken" in second.statusBar().currentMessage())
    shown = second.statusBar().currentMessage()
    assert "bare.tiktoken" in shown and "not found" in shown
    assert "import" in shown.lower()
    assert pane2.tokenizer() is None


def test_compare_side_b_trained_configuration_comes_back_trained(make_window, ready, qtbot):
    first = make_window()
    c = train_english_to(first, ready, 20, 20)
    pane = first.dock_layout.compare_view.pane_b
    pane.set_kind("trained")
    pane.t_vocab.setValue(300)
    pane.t_tie.setCurrentIndex(pane.t_tie.findData("first-seen"))
    with qtbot.waitSignal(pane.trained, timeout=20_000):
        assert pane.train()
    settings = pane.form_settings()
    first.close()

    second = make_window()
    c2 = second.controller
    ready(c2)
    pane2 = second.dock_layout.compare_view.pane_b
    qtbot.waitUntil(lambda: pane2.kind_key() == "trained"
                    and pane2.trained_tokenizer is not None, timeout=20_000)
    assert pane2.form_settings() == settings
    oracle = Trainer.from_text(c.corpus_text, settings)
    oracle.run(detail=False)
    sample = c2.corpus_text[:3000]
    assert pane2.trained_tokenizer.encode(sample) == oracle.tokenizer().encode(sample)
    assert len(pane2.trained_tokenizer.vocab) == 300


# ----- Step after an edit, a mode change (issue 89, item 3) -----------------------------------
def test_step_after_an_edit_asks_then_lands_at_step_1(window, ready, qtbot):
    """One character typed, then Step (F10): the 14 merges went without a question and
    the run showed step 0. Now Step asks; Cancel keeps the run, Train again trains the
    edited corpus and shows its first merge."""
    c = train_english_to(window, ready, 14, 14)
    pairs = [s.pair for s in c.trainer.steps]
    editor = window.dock_layout.editor
    editor.edit.moveCursor(editor.edit.textCursor().MoveOperation.End)
    qtbot.keyClicks(editor.edit, "x")
    editor.flush()
    assert c.stale and c.corpus_dirty
    seen = answer_next_box(qtbot, None)            # Escape: keep the run
    window.actions_menus.acts["step"].trigger()
    assert seen and "14 trained merges" in seen[0], seen
    assert c.step_index == 14 and [s.pair for s in c.trainer.steps] == pairs
    seen = answer_next_box(qtbot, "Train again")
    window.actions_menus.acts["step"].trigger()
    assert seen
    ready(c)
    assert c.step_index == 1
    assert [s.pair for s in c.trainer.steps][:1] == \
        reference_pairs(c.corpus_text, c.trainer.settings, 1)


def test_applying_another_mode_asks_before_the_steps_go(window, ready, qtbot):
    c = train_english_to(window, ready, 14, 14)
    pairs = [s.pair for s in c.trainer.steps]
    panel = window.dock_layout.settings_panel
    panel.byte_radio.setChecked(True)
    panel.superbpe.check.setChecked(True)
    panel.superbpe.spin.setValue(5)
    assert panel.check(), panel.errors
    seen = answer_next_box(qtbot, None)
    assert not panel.apply()
    assert seen and "mode" in seen[0] and "14 trained merges" in seen[0], seen
    assert c.settings.superbpe_from is None and [s.pair for s in c.trainer.steps] == pairs
    assert panel.is_pending()                      # still there to apply
    seen = answer_next_box(qtbot, "Train again")
    assert panel.apply() and seen
    assert c.settings.superbpe_from == 5
