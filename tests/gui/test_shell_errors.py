"""Bad input gets a clear message (inline or in a box), never a traceback, and nothing is lost."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from bpe_gui.engine.text import PRESETS


def test_bad_pattern_is_shown_inline_as_you_type(window, qtbot):
    panel, c = window.dock_layout.settings_panel, window.controller
    before = c.settings
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("custom"))
    panel.pattern_edit.clear()
    qtbot.keyClicks(panel.pattern_edit, r"(\p{L}+")
    qtbot.waitUntil(lambda: "does not compile" in panel.pattern_error.text(), timeout=2_000)
    assert panel.pattern_error.isVisible()
    assert not panel.apply_button.isEnabled()
    assert panel.pattern_edit.text() == r"(\p{L}+"  # what the user typed stays
    assert not panel.apply()
    assert c.settings == before
    qtbot.keyClicks(panel.pattern_edit, ")")
    qtbot.waitUntil(lambda: not panel.pattern_error.isVisible(), timeout=2_000)
    assert "[low]" in panel.preview_label.text()
    assert panel.apply()
    assert c.settings.pattern == r"(\p{L}+)"


def test_runaway_pattern_is_caught_by_the_preview(window, qtbot):
    panel, c = window.dock_layout.settings_panel, window.controller
    c.set_corpus_text("a" * 40 + "!", dirty=False)
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("custom"))
    panel.pattern_edit.setText(r"(a|aa)+$")
    panel.check()
    assert "backtracks catastrophically" in panel.pattern_error.text()
    assert not panel.apply_button.isEnabled()


def test_special_token_errors_inline(window, qtbot):
    panel = window.dock_layout.settings_panel
    panel.specials_edit.setPlainText("<|endoftext|>\n\n<pad>")
    panel.check()
    assert panel.specials_error.isVisible() and "#2 is empty" in panel.specials_error.text()
    panel.specials_edit.setPlainText("<pad>\n<pad>\n")
    panel.check()
    assert "given twice" in panel.specials_error.text()
    assert not panel.apply_button.isEnabled()
    panel.specials_edit.setPlainText("<|endoftext|>\n")  # a trailing newline is fine
    panel.check()
    assert not panel.specials_error.isVisible()
    assert panel.apply()
    assert window.controller.settings.special_tokens == ("<|endoftext|>",)


def test_vocab_size_below_the_base_alphabet(window, ready):
    panel, c = window.dock_layout.settings_panel, window.controller
    assert window.dock_layout.editor.load_sample("english")
    ready(c)
    panel.vocab_radio.setChecked(True)
    panel.vocab_spin.setValue(200)
    panel.check()
    assert "below the base alphabet (256 bytes)" in panel.target_error.text()
    assert not panel.apply_button.isEnabled()
    panel.char_radio.setChecked(True)  # char mode: the corpus's characters + </w>, <unk>
    panel.vocab_spin.setValue(20)
    panel.check()
    assert "base symbols in this corpus" in panel.target_error.text()
    panel.vocab_spin.setValue(300)
    panel.check()
    assert not panel.target_error.isVisible()
    panel.merges_radio.setChecked(True)
    panel.vocab_spin.setValue(5)  # ignored when a number of merges is the target
    panel.check()
    assert panel.apply()
    ready(c)
    assert c.trainer.settings.mode == "char" and c.trainer.settings.num_merges is not None


def test_settings_follow_the_controller(window):
    panel, c = window.dock_layout.settings_panel, window.controller
    window.dock_layout.editor.load_sample("tutorial")
    assert panel.char_radio.isChecked()
    assert panel.eow_combo.currentData() == "suffix"
    assert panel.preset_combo.currentData() == "whitespace"
    assert panel.merges_spin.value() == 10
    assert "greatest" in panel.tie_help.text()
    panel.tie_combo.setCurrentIndex(panel.tie_combo.findData("first-seen"))
    panel.check()
    assert "occurs first" in panel.tie_help.text()
    assert panel.apply() and c.settings.tie_rule == "first-seen"


def test_not_utf8_file_offers_another_encoding(window, tmp_path, qtbot, ready):
    c = window.controller
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("café crème brûlée".encode("latin-1"))
    window.dock_layout.editor.open_files([str(bad)])
    qtbot.waitUntil(lambda: getattr(window.files, "encoding_dialog", None) is not None
                    and window.files.encoding_dialog.isVisible(), timeout=10_000)
    dlg = window.files.encoding_dialog
    assert dlg.offset == 3
    assert "byte offset 3" in window.status.last_error[1]
    assert c.corpus_sample == "tutorial"  # nothing replaced
    dlg.combo.setCurrentIndex(dlg.combo.findData("latin-1"))
    assert "café" in dlg.preview.toPlainText()
    dlg.accept()
    qtbot.waitUntil(lambda: "café crème" in c.corpus_text, timeout=10_000)
    ready(c)
    assert c.corpus_paths == [str(bad)]


def test_a_utf8_file_cut_inside_a_character_says_so_and_offers_no_encoding(
        window, tmp_path, qtbot, idle):
    """A file cut by head -c inside its last character opened the encoding dialog, whose
    every choice reads it wrong: now it is said to be cut, at the character's offset,
    and nothing is replaced."""
    c = window.controller
    data = "分词器把文字切成 token。\n".encode("utf-8") * 20
    cut = tmp_path / "cut.txt"
    cut.write_bytes(data + "汉".encode("utf-8")[:2])
    window.dock_layout.editor.open_files([str(cut)])
    qtbot.waitUntil(lambda: window.status.last_error is not None, timeout=10_000)
    idle(c)
    title, why = window.status.last_error
    assert "ends in the middle of a UTF-8 character" in why
    assert f"byte offset {len(data)}" in why and "cut.txt" in why
    assert getattr(window.files, "encoding_dialog", None) is None
    assert c.corpus_sample == "tutorial"


def test_not_utf8_without_a_listener_is_a_message(tmp_path, qtbot, qapp):
    from bpe_gui.gui.controller.controller import Controller
    c = Controller()
    bad = tmp_path / "gbk.txt"
    bad.write_bytes("分词器".encode("gbk"))
    with qtbot.waitSignal(c.errorOccurred, timeout=10_000) as sig:
        c.opening.open_files([str(bad)])
    assert "byte offset 0" in sig.args[1]
    c.shutdown()


def test_binary_file_is_refused(window, tmp_path, qtbot, idle):
    c = window.controller
    blob = tmp_path / "image.png"
    blob.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    window.dock_layout.editor.open_files([str(blob)])
    qtbot.waitUntil(lambda: window.status.last_error is not None, timeout=10_000)
    idle(c)
    why = window.status.last_error[1]
    assert "binary" in why and "Traceback" not in why
    assert c.corpus_sample == "tutorial"


def test_empty_corpus(window, tmp_path, qtbot, idle, monkeypatch):
    c = window.controller
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    window.dock_layout.editor.open_files([str(empty)])
    qtbot.waitUntil(lambda: window.status.last_error is not None, timeout=10_000)
    title, why = window.status.last_error
    assert title == "Empty corpus" and "empty.txt" in why
    idle(c)
    assert c.corpus_sample == "tutorial" and c.trainer is not None   # the corpus is kept
    # an empty corpus on purpose (Clear, said yes to): Step says what to do
    monkeypatch.setattr(QMessageBox, "exec", lambda box: next(
        b for b in box.buttons() if b.text() == "Clear").click())
    window.dock_layout.editor.new_corpus()
    window.status.last_error = None
    window.actions_menus.acts["step"].trigger()
    assert window.status.last_error and window.status.last_error[0] == "Empty corpus"
    assert c.trainer is None
    assert "0 characters" in window.dock_layout.editor.stats_label.text()


def test_missing_recent_file_is_a_message(window, tmp_path, qtbot):
    window.files.open_paths([str(tmp_path / "gone.txt")])
    qtbot.waitUntil(lambda: window.status.last_error is not None, timeout=10_000)
    assert "not found" in window.status.last_error[1]


def test_unexpected_error_shows_the_trace_in_details(window):
    trace = "Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: boom"
    box = window.status.show_error("Training: unexpected error (please report it)", trace)
    assert "ValueError: boom" in box.text() and "report" in box.text()
    assert box.detailedText() == trace
    box.close()
    plain = window.status.show_error("Export failed", "Cannot write into /x. Pick a folder.")
    assert plain.text() == "Cannot write into /x. Pick a folder." and not plain.detailedText()
    assert plain.icon() == QMessageBox.Warning
    plain.close()


def test_the_panel_says_what_train_settings_say(window, ready):
    """The settings panel has no vocab size rule of its own: its message is the one
    TrainSettings.validated gives (issue #12: one rule, one place)."""
    from bpe_gui.engine.errors import VocabSizeError
    from bpe_gui.engine.train.trainer import TrainSettings
    panel = window.dock_layout.settings_panel
    assert window.dock_layout.editor.load_sample("english")
    ready(window.controller)
    panel.vocab_radio.setChecked(True)
    panel.vocab_spin.setValue(250)
    panel.check()
    with pytest.raises(VocabSizeError) as ei:
        TrainSettings(vocab_size=250).validated()
    assert panel.target_error.text() == str(ei.value)


@pytest.mark.regression
def test_a_pattern_that_matches_nothing_says_so_inline_without_popups(
        window, qtbot, ready):
    """A pattern matching nothing said "The corpus is empty... type or paste some text" in a
    popup that came back after every corpus edit (issue 10)."""
    c = window.controller
    popups = []
    c.errorOccurred.connect(lambda t, m: popups.append(m))
    panel = window.dock_layout.settings_panel
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("custom"))
    panel.pattern_edit.setText("zzz+")
    panel.check()
    assert "finds no words" in panel.pattern_error.text() and panel.pattern_error.isVisibleTo(panel)
    assert "empty" not in panel.pattern_error.text()
    # applied anyway through the controller (e.g. from a session): no popup on corpus edits
    from dataclasses import replace
    c.set_settings(replace(c.settings, pattern="zzz+"))
    qtbot.waitUntil(lambda: not c.retrain_pending, timeout=3_000)
    window.dock_layout.editor.edit.appendPlainText(" more text")
    window.dock_layout.editor.flush()
    qtbot.waitUntil(lambda: not c.retrain_pending, timeout=3_000)
    assert popups == []
    assert "finds no words" in window.statusBar().currentMessage()


@pytest.mark.regression
def test_an_empty_file_is_refused_like_a_binary_one(window, qtbot, tmp_path, idle):
    """An empty file replaced the corpus, where a binary file was refused and the corpus
    kept (issue 10)."""
    c = window.controller
    before = c.corpus_text
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    errors = []
    c.errorOccurred.connect(lambda t, m: errors.append(m))
    window.files.open_paths([str(empty)])
    idle(c)
    assert c.corpus_text == before and c.corpus_sample == "tutorial"
    assert errors and "kept" in errors[0]


def _type_into(qtbot, box, text: str) -> None:
    box.setFocus()
    box.selectAll()
    qtbot.keyClick(box, Qt.Key_Delete)
    if text:
        qtbot.keyClicks(box, text)


@pytest.mark.regression
@pytest.mark.parametrize("typed, said", [
    ("0", "Vocab size 0 is below the base alphabet"),
    ("1000000000000", "vocab_size = 1000000000000 is too large"),
    ("", "Type a vocabulary size"),
])
def test_a_vocab_size_that_cannot_work_stays_as_typed_and_says_why(
        window, ready, qtbot, typed, said):
    """Vocabulary size 0 showed no error and Train (F5) quietly put the last value back;
    10**12 was capped at 10,000,000 while typing, without a word (issue 30 item 5)."""
    from bpe_gui.engine.errors import BPEError
    from bpe_gui.engine.train import TrainSettings
    panel, c = window.dock_layout.settings_panel, window.controller
    assert window.dock_layout.editor.load_sample("english")
    ready(c)
    panel.vocab_radio.setChecked(True)
    assert panel.check() and panel.apply()
    ready(c)
    before = c.settings
    _type_into(qtbot, panel.vocab_spin, typed)
    window.dock_layout.merge_panel.setFocus()   # the field loses focus
    qtbot.waitUntil(lambda: panel.target_error.isVisible())
    assert said in panel.target_error.text()
    assert panel.vocab_spin.number() == (int(typed) if typed else None)
    assert panel.vocab_spin.text().replace(",", "") == typed  # as typed, not replaced
    assert not window.actions_menus.flow.train()   # F5: refused, says what to fix
    assert c.settings == before
    assert panel.vocab_spin.text().replace(",", "") == typed
    if typed:
        with pytest.raises(BPEError) as ei:   # the engine's own rule and words
            TrainSettings(vocab_size=int(typed)).validated()
        assert panel.target_error.text() == str(ei.value)


@pytest.mark.regression
def test_a_minimum_frequency_of_0_says_why(window, ready, qtbot):
    """A minimum frequency of 0 went back to 1 silently (issue 30 item 5)."""
    panel = window.dock_layout.settings_panel
    assert window.dock_layout.editor.load_sample("english")
    ready(window.controller)
    _type_into(qtbot, panel.minfreq_spin, "0")
    window.dock_layout.merge_panel.setFocus()
    qtbot.waitUntil(lambda: panel.target_error.isVisible())
    assert "Minimum frequency is 0" in panel.target_error.text()
    assert panel.minfreq_spin.text() == "0"


def test_a_pattern_typed_by_name(window, qtbot, ready):
    """A published pattern's name typed as the pattern stands for it (it was a regex that
    matched only itself); a plain word that names no pattern says so inline."""
    from bpe_gui.engine.text.presets import QWEN2_PATTERN
    panel, c = window.dock_layout.settings_panel, window.controller
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("custom"))
    panel.pattern_edit.clear()
    qtbot.keyClicks(panel.pattern_edit, "llama4")
    qtbot.waitUntil(lambda: "not the name of a pattern" in panel.pattern_error.text(),
                    timeout=2_000)
    assert "qwen2" in panel.pattern_error.text() and not panel.apply_button.isEnabled()
    panel.pattern_edit.clear()
    qtbot.keyClicks(panel.pattern_edit, "qwen2")
    qtbot.waitUntil(lambda: not panel.pattern_error.isVisible(), timeout=2_000)
    assert "[low]" in panel.preview_label.text()
    assert panel.apply()
    ready(c)
    assert c.settings.pattern == QWEN2_PATTERN == c.tokenizer().pre.pattern
    assert panel.pattern_edit.text() == QWEN2_PATTERN       # the field shows the pattern
    assert not panel.apply_button.isEnabled()                # and it reads as applied


@pytest.mark.regression
@pytest.mark.parametrize("typed, key", [("gpt4", "cl100k"), ("gpt-4", "cl100k"),
                                        ("gpt-2", "gpt2"), ("GPT2", "gpt2"),
                                        ("ws", "whitespace"), ("gpt4o", "o200k"),
                                        ("gpt-4o", "o200k"), (PRESETS["o200k"], "o200k")])
def test_a_presets_other_spelling_typed_as_the_pattern(window, qtbot, ready, typed, key):
    """A preset's other spelling typed as the pattern (gpt4), or its pattern, trained as the
    preset, then read as a change not applied ("gpt4" kept, the field giving "cl100k")."""
    panel, c = window.dock_layout.settings_panel, window.controller
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("cjk"))
    assert panel.apply()   # from another preset, so that every spelling is a change
    ready(c)
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("custom"))
    panel.pattern_edit.clear()
    qtbot.keyClicks(panel.pattern_edit, typed)
    qtbot.waitUntil(lambda: "[low]" in panel.preview_label.text(), timeout=2_000)
    assert not panel.pattern_error.isVisible()
    assert panel.apply()
    ready(c)
    assert c.settings.pattern == key and panel.preset_combo.currentData() == key
    assert not panel.apply_button.isEnabled() and not panel.is_pending()
    assert "In use." in panel.state_label.text()


@pytest.mark.regression
def test_a_session_holding_a_presets_written_out_pattern_opens_as_applied(make_window, ready,
                                                                          tmp_path):
    """A session saved with a preset's pattern written out (as sessions held it before a
    preset's spellings became its name) opened reading "1 setting not applied": the
    window showed the preset, the settings held the regex."""
    first = make_window()
    first.dock_layout.editor.load_sample("zh-en")
    ready(first.controller)
    path = tmp_path / "old.bpesession"
    assert first.controller.opening.save_session(str(path))
    d = json.loads(path.read_text(encoding="utf-8"))
    d["settings"]["pattern"] = PRESETS["o200k"]
    path.write_text(json.dumps(d), encoding="utf-8")

    second = make_window(load=False)
    assert second.files.open_paths([str(path)])
    ready(second.controller)
    panel = second.dock_layout.settings_panel
    assert second.controller.settings.pattern == "o200k"
    assert panel.preset_combo.currentData() == "o200k"
    assert not panel.apply_button.isEnabled() and not panel.is_pending()
    assert "In use." in panel.state_label.text()


def test_a_pattern_that_leaves_text_out_says_so_and_still_applies(window, qtbot, ready):
    """A custom pattern that skips text (digits and punctuation here) trained on what it
    matched with no sign; the settings now say, over the preview, how much of the corpus
    start it leaves out and how to keep it -- a warning, not an error: Apply stays on."""
    c = window.controller
    c.set_corpus_text("hello world 123, again!\n" * 20)
    ready(c)
    panel = window.dock_layout.settings_panel
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("custom"))
    panel.pattern_edit.setText("[a-z]+")
    panel.check()
    warning = panel.pattern_warning
    assert warning.isVisibleTo(panel)
    assert "matches no word in" in warning.text() and r"|\s+|\S" in warning.text()
    assert "pattern" not in panel.errors and panel.apply_button.isEnabled()
    panel.pattern_edit.setText(r"[a-z]+|\s+|\S")
    panel.check()
    assert not warning.isVisibleTo(panel) and warning.text() == ""
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("whitespace"))
    panel.check()
    assert not warning.isVisibleTo(panel)
