"""The encode view and Compare encode the text exactly as given: a line separator
(U+2028) became a line feed and, in Compare and long texts, a no-break space a space
(QPlainTextEdit.toPlainText), so the window gave other ids than the engine and the
tokenizer's own library. Oracle: tiktoken built from the same ranks and pattern."""
from __future__ import annotations

import pytest
import tiktoken
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from bpe_gui.engine.formats import export_tokenizer
from bpe_gui.engine.train.trainer import Trainer, TrainSettings
from oracles import CORPUS

TEXT = "one\u2028two\u00a0three\nfour \u2028 five\u00a0\u00a0six"


@pytest.fixture
def imported(window, tmp_path):
    t = Trainer.from_text(CORPUS + TEXT * 4, TrainSettings(vocab_size=400, pattern="gpt2"))
    t.run(detail=False)
    tok = t.tokenizer()
    files = export_tokenizer(tok, tmp_path, "tiktoken", name="exact")
    path = next(p for p in files if p.suffix == ".tiktoken")
    c = window.controller
    assert c.tokenizer_files.import_tokenizer(str(path)) is not None and c.use_imported
    ranks = {b: i for i, b in tok.vocab.items()}
    return tiktoken.Encoding("oracle", pat_str=tok.pattern, mergeable_ranks=ranks,
                             special_tokens={})


@pytest.mark.regression
def test_the_encode_view_keeps_line_separators_and_no_break_spaces(window, qtbot, imported):
    ev = window.dock_layout.encode_view
    expected = imported.encode(TEXT, allowed_special="all")
    assert expected != imported.encode(TEXT.replace("\u2028", "\n"), allowed_special="all")   # the text tells
    ev.set_text(TEXT)
    qtbot.waitUntil(lambda: list(ev.encoding.ids) == expected, timeout=10_000)
    assert ev.text() == TEXT


@pytest.mark.regression
def test_compare_keeps_them_too(window, qtbot, imported):
    view = window.dock_layout.compare_view
    expected = imported.encode(TEXT, allowed_special="all")
    assert expected != imported.encode(TEXT.replace("\u00a0", " "), allowed_special="all")
    view.pane_a.set_kind("imported")
    view.set_text(TEXT)
    view.compare_now()
    assert view.shown_text() == TEXT
    assert view.encodings[0] is not None and list(view.encodings[0].ids) == expected


def test_shift_enter_is_a_line_break(window, qtbot):
    """(Qt inserts U+2028 for Shift+Enter; kept now, it would be a character the user
    never typed.)"""
    ev = window.dock_layout.encode_view
    ev.set_text("")
    ev.edit.setFocus()
    qtbot.keyClicks(ev.edit, "ab")
    qtbot.keyClick(ev.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(ev.edit, "cd")
    qtbot.waitUntil(lambda: ev.text() == "ab\ncd")


def test_a_paragraph_separator_the_box_cannot_keep_is_named(window, qtbot):
    """A text box holds U+2029 only as a line break: the status bar says so, and how to
    encode the text exactly."""
    c = window.controller
    said: list[str] = []
    c.message.connect(said.append)
    window.dock_layout.encode_view.set_text("one\u2029two")
    assert any("U+2029" in m and "bpe-gui encode" in m for m in said), said


@pytest.mark.regression
def test_an_edit_in_the_corpus_editor_changes_only_what_was_typed(window, qtbot):
    """The corpus editor handed the controller toPlainText(), so one typed character
    also turned every no-break space into a space and every U+2028 into a line break:
    the corpus trained on (and saved) was not the one opened."""
    c = window.controller
    ed = window.dock_layout.editor
    c.set_corpus_text(TEXT, dirty=False)
    qtbot.waitUntil(lambda: ed.edit.toPlainText() == TEXT)
    ed.edit.setFocus()
    ed.edit.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(ed.edit, "x")
    qtbot.keyClick(ed.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(ed.edit, "y")
    ed.flush()
    assert c.corpus_text == TEXT + "x\ny"


def test_an_unedited_corpus_with_no_break_spaces_is_not_marked_changed(window, qtbot):
    c = window.controller
    ed = window.dock_layout.editor
    c.set_corpus_text(TEXT, dirty=False)
    qtbot.waitUntil(lambda: ed.edit.toPlainText() == TEXT)
    ed.flush()
    assert c.corpus_text == TEXT
    assert not c.corpus.dirty
