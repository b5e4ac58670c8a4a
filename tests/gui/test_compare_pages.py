"""Compare pages a long text as the encode view does (its text box held the whole of a
long paste, laid out on the GUI thread): each page of 100,000 characters is compared on
its own, the page bar moves between pages, edits are kept, and ``text()`` is the whole
text. Oracle: each side's tokenizer encoding the page on its own."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, Qt
from PySide6.QtWidgets import QApplication

from bpe_gui.gui.panels.compare.compare_view import CompareView
from bpe_gui.gui.panels.encode.pages import PAGE_CHARS, page_starts

CORPUS = "the lower newest widest, 我们学习字节对编码。 lowest 你好世界。\n" * 12
LINE = "The newest lowest tokens: 字节对编码和解码器，你好！ widest\n"

pytestmark = [pytest.mark.controller(CORPUS, vocab_size=400, step=40),
              pytest.mark.slow]   # (two 100,000-character pages on both sides: ~5 s each)


@pytest.fixture
def view(qtbot, controller):
    v = CompareView(controller)
    qtbot.addWidget(v)
    v.resize(1200, 800)
    v.show()
    qtbot.waitExposed(v)
    v.pane_a.set_kind("current")
    v.pane_b.set_kind("step")
    v.pane_b.set_step(10)
    return v


def pages_of(text: str) -> list[str]:
    starts = page_starts(text) + [len(text)]
    return [text[a:b] for a, b in zip(starts, starts[1:])]


def test_a_long_text_is_compared_a_page_at_a_time(qtbot, view):
    text = LINE * (250_000 // len(LINE))
    pages = pages_of(text)
    assert len(pages) == 3
    view.set_text(text)
    assert not view.page_bar.isHidden() and "Page 1 of 3" in view.page_bar.label.text()
    assert view.edit.toPlainText() == pages[0] and len(pages[0]) <= PAGE_CHARS
    for k, page in enumerate(pages):
        if k:
            with qtbot.waitSignal(view.compared, timeout=20_000):
                qtbot.mouseClick(view.page_bar.next_button, Qt.LeftButton)
        assert view.edit.toPlainText() == page
        assert f"Page {k + 1} of 3" in view.page_bar.label.text()
        for enc, tok in zip(view.encodings, view.tokenizers):
            assert enc is not None and enc.ids == tok.encode(page, allowed_special="all")
    assert not view.page_bar.next_button.isEnabled()
    assert view.text() == text   # the whole text, every page


def test_edits_of_a_page_are_kept_and_a_long_paste_is_paged(qtbot, view):
    text = LINE * (150_000 // len(LINE))
    view.set_text(text)
    view.edit.moveCursor(view.edit.textCursor().MoveOperation.Start)
    qtbot.keyClicks(view.edit, "XYZ ")
    qtbot.mouseClick(view.page_bar.next_button, Qt.LeftButton)
    assert view.text() == "XYZ " + text
    # a paste that would make the page long pages the whole text again
    view.set_text("short text")
    assert view.page_bar.isHidden()
    mime = QMimeData()
    mime.setText(LINE * (120_000 // len(LINE)))
    QApplication.clipboard().setMimeData(mime)
    view.edit.moveCursor(view.edit.textCursor().MoveOperation.End)
    with qtbot.waitSignal(view.compared, timeout=20_000):
        view.edit.paste()
    assert not view.page_bar.isHidden()
    assert view.text() == "short text" + mime.text()
    assert len(view.edit.toPlainText()) <= PAGE_CHARS
    tok = view.tokenizers[0]
    assert view.encodings[0].ids == tok.encode(view.edit.toPlainText(), allowed_special="all")
