"""Bugs found by walking through the window as a new user (issue #10), one test each;
every test failed before its fix."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from bpe_gui.gui.panels.encode.encode_view import EncodeView
from panel_helpers import make_controller


pytestmark = pytest.mark.controller("贾宝玉和林黛玉读书 🇯🇵 low lower 😀 newest\n" * 4)


def test_bug1_emoji_lines_are_coloured_to_their_end(qtbot, controller):
    view = EncodeView(controller)
    qtbot.addWidget(view)
    view.resize(700, 400)
    view.show()
    text = "🇯🇵贾宝玉和黛读\nab😀cd 🇯🇵🇯🇵 x"
    view.set_text(text)
    qtbot.waitUntil(lambda: view.offsets and view._shown_text == text)
    doc_text = view.edit.document().toPlainText()
    kinds = view.format_kinds()
    # document positions are UTF-16 units; every one but the line break is coloured
    units = [c for c in doc_text for _ in range(2 if ord(c) > 0xFFFF else 1)]
    assert len(kinds) == len(units)
    uncoloured = [i for i, (k, c) in enumerate(zip(kinds, units)) if k < 0 and c != "\n"]
    assert uncoloured == []


def test_bug2_enter_in_the_step_box_goes_there(window, qtbot):
    panel = window.merge_panel
    box = panel.goto_spin
    box.setFocus()
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), "3")
    qtbot.keyClick(box.lineEdit(), Qt.Key_Return)
    assert window.controller.step_index == 3


def test_bug3_one_export_error_is_said_once_and_its_folder_not_remembered(
        window, ready, tmp_path):
    from bpe_gui.gui.dialogs.export_dialog import ExportDialog
    from bpe_gui.gui.widgets.last_folder import last_folder, remember
    c = window.controller
    assert window.editor.load_sample("english")
    ready(c)
    c.goto(20)
    shown = []
    c.errorOccurred.connect(lambda title, msg: shown.append(msg))
    good = tmp_path / "good"
    good.mkdir()
    remember(str(good))   # the one folder every file dialog remembers (issue 21)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    dlg = ExportDialog(c, window)
    for cb in dlg.checks.values():
        cb.setChecked(cb.isEnabled())
    assert len(dlg.selected_formats()) >= 3
    dlg.folder_edit.setText(str(blocker / "sub"))
    assert dlg.export() == []
    assert len(shown) == 1                      # not one popup per format
    assert last_folder() == str(good)
    dlg.close()
    assert ExportDialog(c, window).folder_edit.text() == str(good)


def test_bug4_words_preview_keeps_an_applied_special_token_whole(window, qtbot, ready):
    c = window.controller
    window.editor.edit.setPlainText("hello world<|endoftext|>next doc")
    window.editor.flush()
    panel = window.settings_panel
    panel.specials_edit.setPlainText("<|endoftext|>")
    assert panel.apply()
    ready(c)
    panel.check()
    text = panel.preview_label.text()
    assert "[<|endoftext|>]" in text and "[<|]" not in text


def test_bug5_a_pattern_that_matches_nothing_says_so_inline_without_popups(
        window, qtbot, ready):
    c = window.controller
    popups = []
    c.errorOccurred.connect(lambda t, m: popups.append(m))
    panel = window.settings_panel
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("custom"))
    panel.pattern_edit.setText("zzz+")
    panel.check()
    assert "finds no words" in panel.pattern_error.text() and panel.pattern_error.isVisibleTo(panel)
    assert "empty" not in panel.pattern_error.text()
    # applied anyway through the controller (e.g. from a session): no popup on corpus edits
    from dataclasses import replace
    c.set_settings(replace(c.settings, pattern="zzz+"))
    qtbot.waitUntil(lambda: not c.retrain_pending, timeout=3_000)
    window.editor.edit.appendPlainText(" more text")
    window.editor.flush()
    qtbot.waitUntil(lambda: not c.retrain_pending, timeout=3_000)
    assert popups == []
    assert "finds no words" in window.statusBar().currentMessage()


def test_bug7_no_stale_text_after_mode_change_reset_or_new_target(window, qtbot, ready):
    c = window.controller
    assert c.corpus_sample == "tutorial"
    panel = window.settings_panel
    panel.byte_radio.setChecked(True)
    assert window.flow.train()
    qtbot.waitUntil(lambda: not c.busy and c.trainer.is_done(), timeout=10_000)
    assert c.settings.mode == "byte"
    assert "character mode" not in window.editor.source_label.text()
    window.act_reset.trigger()
    assert c.step_index == 0
    assert "Step 10" not in window.statusBar().currentMessage()
    assert "Target reached" not in window.statusBar().currentMessage()
    panel.merges_spin.setValue(4)
    assert panel.apply()
    assert "/ 4 " in window.step_label.text() and "/ 10" not in window.step_label.text()
    assert "of 4 " in window.merge_panel.status.text()


def test_loading_a_sample_says_which_settings_it_changed(window, qtbot, ready):
    messages = []
    window.controller.message.connect(messages.append)
    assert window.editor.load_sample("tutorial-bytes")
    assert any("settings changed: mode" in m for m in messages)


def test_bug8_timeline_page_down_and_first_click_after_a_scroll_drag(window, qtbot, ready):
    from PySide6.QtCore import QPoint
    c = window.controller
    assert window.editor.load_sample("english")
    ready(c)
    window.settings_panel.merges_spin.setValue(300)
    window.settings_panel.merges_radio.setChecked(True)
    assert window.flow.train()
    qtbot.waitUntil(lambda: not c.busy and c.step_index == 300, timeout=20_000)
    view = window.merge_panel.timeline_view
    window.resize(1366, 768)
    c.goto(0)
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    qtbot.keyClick(view, Qt.Key_PageDown)
    assert c.step_index > 0 and c.step_index == view.currentIndex().row()
    # drag the scroll bar, then click a row once: it jumps there
    bar = view.verticalScrollBar()
    handle = QPoint(bar.width() // 2, 12)
    qtbot.mousePress(bar, Qt.LeftButton, pos=handle)
    qtbot.mouseMove(bar, QPoint(handle.x(), handle.y() + 30))
    qtbot.mouseRelease(bar, Qt.LeftButton, pos=QPoint(handle.x(), handle.y() + 30))
    row_rect = view.visualRect(view.model().index(view.rowAt(40), 0))
    target = view.rowAt(row_rect.center().y())
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=row_rect.center())
    assert c.step_index == target


def test_bug9_a_burst_of_keys_is_all_typed_and_encoded_once_after(qtbot, controller,
                                                                   monkeypatch):
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication
    view = EncodeView(controller)
    qtbot.addWidget(view)
    view.show()
    view.edit.setFocus()
    qtbot.waitUntil(view.edit.hasFocus)
    encodes = []
    real = view.encode_now
    monkeypatch.setattr(view, "encode_now", lambda: (encodes.append(view.edit.toPlainText()),
                                                     real()))
    view._timer.timeout.disconnect()
    view._timer.timeout.connect(view.encode_now)
    keys = "low lower 贾宝玉 newest widest " * 8
    for ch in keys:    # queued at once, as a fast typist's keys arrive
        for kind in (QEvent.KeyPress, QEvent.KeyRelease):
            QApplication.postEvent(view.edit, QKeyEvent(kind, 0, Qt.NoModifier, ch))
    qtbot.waitUntil(lambda: view.edit.toPlainText() == keys)
    qtbot.waitUntil(lambda: view._shown_text == keys)
    assert encodes == [keys]          # once, after every key; none lost


def test_bug10_an_empty_file_is_refused_like_a_binary_one(window, qtbot, tmp_path, idle):
    c = window.controller
    before = c.corpus_text
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    errors = []
    c.errorOccurred.connect(lambda t, m: errors.append(m))
    window.open_paths([str(empty)])
    idle(c)
    assert c.corpus_text == before and c.corpus_sample == "tutorial"
    assert errors and "kept" in errors[0]


def test_bug10_saving_a_corpus_from_a_file_asks_before_overwriting(window, qtbot, tmp_path,
                                                                     idle, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QMessageBox
    src = tmp_path / "mine.txt"
    src.write_text("original words here", encoding="utf-8")
    c = window.controller
    window.open_paths([str(src)])
    idle(c)
    window.editor.edit.appendPlainText(" edited")
    window.editor.flush()
    asked = []
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.Save))
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (asked.append(a), ("", ""))[1]))
    assert not window.maybe_save_corpus()       # the dialog was cancelled: nothing written
    assert asked and src.read_text(encoding="utf-8") == "original words here"
    c.mark_corpus_saved()


def test_bug11_sessions_restore_the_imported_tokenizer_and_whitespace(
        make_window, ready, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog
    first = make_window()
    c = first.controller
    c.goto(5)
    files = c.export("hf", str(tmp_path), "tok")
    assert c.import_tokenizer(str(files[0])) is not None and c.use_imported
    first.encode_view.show_ws.setChecked(False)
    path = tmp_path / "s.bpesession"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(path), "")))
    assert first.save_session()
    second = make_window(load=False)
    assert second.open_session(str(path))
    ready(second.controller)
    c2 = second.controller
    assert c2.imported is not None and c2.use_imported
    assert c2.imported_path == str(files[0])
    assert not second.encode_view.show_ws.isChecked()


def test_a_chart_of_step_0_alone_does_not_run_its_x_axis_below_zero(qtbot):
    from bpe_gui.gui.widgets.chart_widget import ChartWidget
    chart = ChartWidget("Compression", "merge step", "bytes per token")
    qtbot.addWidget(chart)
    chart.set_series("corpus", [0], [1.0])
    x0, x1, _, _ = chart._ranges()
    assert x0 == 0 and x1 > 0


def test_tie_sentence_counts_are_written_like_the_table():
    from bpe_gui.engine import TrainSettings, Trainer
    t = Trainer.from_text("ab " * 1500 + "cd " * 1500, TrainSettings(num_merges=3))
    rec = t.next_choice()
    assert rec.count == 1500 and "1,500" in rec.reason and "(1500)" not in rec.reason


def test_open_save_png_and_sessions_start_in_one_last_folder(window, tmp_path, monkeypatch,
                                                             idle):
    from PySide6.QtWidgets import QFileDialog
    folder = tmp_path / "work"
    folder.mkdir()
    corpus = folder / "c.txt"
    corpus.write_text("some words to train on", encoding="utf-8")
    starts = []

    def opened(*a, **k):
        starts.append(a[2])
        return [str(corpus)], ""
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(opened))
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (starts.append(a[2]), ("", ""))[1]))
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (starts.append(a[2]), ("", ""))[1]))
    window.editor.open_dialog()
    idle(window.controller)
    window.charts_view._ask_png()
    window.save_session_as()
    window.open_session_dialog()
    from pathlib import Path
    assert [str(Path(s) if Path(s).is_dir() else Path(s).parent) for s in starts[1:]] \
        == [str(folder)] * 3


def test_partial_character_pairs_say_which_character_they_belong_to(qtbot):
    from bpe_gui.gui.models.pair_table import part_of
    from bpe_gui.gui.panels.merge.merge_panel import MergePanel
    from bpe_gui.gui.models.roles import TOOLTIP
    text = "中文 中国 中间 hello"
    c = make_controller(text)
    panel = MergePanel(c)
    qtbot.addWidget(panel)
    panel.show()
    m = panel.pair_model
    tips = [m.data(m.index(r, 1), TOOLTIP) for r in range(m.rowCount())]
    vocab = m.snapshot.vocab
    for r, tip in enumerate(tips):
        row = m.rows[r]
        merged = vocab[row.a] + vocab[row.b]
        # oracle: the characters of the corpus whose UTF-8 contains the merged bytes
        owners = [ch for ch in text if ord(ch) > 0x7F and merged in ch.encode()]
        try:
            merged.decode("utf-8")
            whole = True
        except UnicodeDecodeError:
            whole = False
        if whole or not owners:   # whole characters, or bytes across two characters
            assert "part of" not in tip
        else:
            assert f"part of the character {owners[0]}" in tip
    assert any("part of the character 中" in t for t in tips)
    assert part_of(b"\xe4\xb8", ["ab", "中"]) == "中" and part_of(b"ab", ["ab"]) is None
    c.shutdown()


def test_timeline_scrubber_and_find_the_step_that_made_a_token(window, qtbot, ready):
    c = window.controller
    window.act_run.trigger()
    qtbot.waitUntil(lambda: not c.busy and c.trainer.is_done(), timeout=10_000)
    steps = list(c.trainer.steps)
    tools = window.merge_panel.timeline_tools
    assert tools.scrubber.maximum() == len(steps) and tools.scrubber.value() == len(steps)
    tools.scrubber.setValue(3)                 # as a drag ends
    assert c.step_index == 3
    target = steps[6]                          # a token made at step 7
    tools.find_edit.setText(window.merge_panel.timeline.cache.text(target.token))
    assert tools.find()
    expected = next(r.index for r in steps if r.token == target.token)
    assert c.step_index == expected and tools.scrubber.value() == expected
    tools.find_edit.setText("no such token anywhere")
    assert not tools.find() and c.step_index == expected
