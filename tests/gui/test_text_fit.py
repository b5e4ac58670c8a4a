"""Text that does not fit is cut short with "…" (never clipped mid-letter or drawn over
its neighbours), and table columns share a view's width."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QFontMetrics, QImage, QPainter

from bpe_gui.gui.panels.compare.compare_view import CompareView
from bpe_gui.gui.widgets.fit_columns import share_widths
from bpe_gui.gui.widgets.text_pane import TextPane
from bpe_gui.gui.widgets.token_chips import ChipPainter
from panel_helpers import make_controller

LONG = ("24 pairs share the top count 327; LF SR wins because it is the greatest pair "
        "comparing bytes (first token, then second): it beats HEAD ROOM and every other "
        "tied pair.")


def shown_pane(qtbot, text: str, lines: int, width: int) -> TextPane:
    pane = TextPane(text, lines)
    qtbot.addWidget(pane)
    pane.resize(width, pane.height())
    pane.show()
    qtbot.waitExposed(pane)
    return pane


@pytest.mark.parametrize("lines", [1, 2])
def test_a_long_text_is_cut_with_an_ellipsis_and_fits(qtbot, lines):
    pane = shown_pane(qtbot, LONG, lines, 260)
    doc = pane._shown_doc()
    shown = doc.toPlainText()
    assert shown.endswith("…") and LONG.startswith(shown[:-1]) and len(shown) > 10
    if lines == 1:
        assert doc.idealWidth() <= pane.width()
    else:
        assert doc.size().height() <= pane.height()
        longer = pane._trial(pane._doc, len(shown))   # one character more does not fit
        assert longer.size().height() > pane.height()
    assert pane.toolTip() == LONG


def test_rich_text_keeps_its_bold_when_cut(qtbot):
    pane = shown_pane(qtbot, "<b>Step 31744:</b> ModeSupport + Handler → "
                      "<b>ModeSupportHandler</b> (id 31999), count 327", 1, 200)
    doc = pane._shown_doc()
    assert doc.toPlainText().startswith("Step 31744:") and doc.toPlainText().endswith("…")
    assert doc.firstBlock().begin().fragment().charFormat().font().bold()
    assert "count 327" in pane.toolTip()


def test_text_that_fits_is_shown_whole_without_a_tooltip(qtbot):
    pane = shown_pane(qtbot, "Step 3: w + i → wi", 1, 400)
    assert pane._shown_doc().toPlainText() == "Step 3: w + i → wi"
    assert pane.toolTip() == ""
    pane.setText(LONG)           # cut: the whole text as its tooltip ...
    pane._shown_doc()
    pane.setText("short again")  # ... and gone once the text fits again
    pane._shown_doc()
    assert pane.toolTip() == ""


def test_variants_show_the_longest_that_fits(qtbot):
    pane = shown_pane(qtbot, "", 1, 150)
    forms = ["22 tokens · 22 characters · 22 bytes · 1.00 bytes/token",
             "22 tokens · 1.00 bytes/token", "22 tokens"]
    pane.set_variants(forms)
    fm = pane.fontMetrics()
    fitting = [f for f in forms if fm.horizontalAdvance(f) <= pane.width() - 4]
    assert pane.text() == fitting[0] and pane.full_text() == forms[0]
    assert pane.toolTip() == forms[0]
    pane.resize(1000, pane.height())
    qtbot.waitUntil(lambda: pane.text() == forms[0])


def test_a_chip_that_does_not_fit_is_elided(qtbot, monkeypatch):
    from PySide6.QtWidgets import QWidget
    font = QWidget().font()
    painter_ = ChipPainter()
    fonts = painter_.fonts_for(font)
    drawn = []
    real = painter_._pixmap
    monkeypatch.setattr(painter_, "_pixmap", lambda text, *a: drawn.append(text) or real(text, *a))
    img = QImage(400, 40, QImage.Format_ARGB32)
    p = QPainter(img)
    chips = [("红楼梦", False), ("贾宝玉和林黛玉在大观园里读西厢记", False)]
    width = 110
    painter_.draw_chips(p, 0, 0, width, 30, chips, fonts)
    p.end()
    assert drawn[0] == "红楼梦" and drawn[-1].endswith("…") and len(drawn) == 2
    first = painter_._width("红楼梦", False, False, fonts)
    last = QFontMetrics(font).horizontalAdvance(drawn[-1]) + 8
    assert 4 + first + 3 + last <= width


@pytest.mark.parametrize("avail, want", [(400, [100, 200, 100]), (170, [42, 86, 42]),
                                         (100, [40, 80, 40])])
def test_share_widths(avail, want):
    assert share_widths(avail, (1, 2, 1), (40, 80, 40)) == want


def test_garbage_is_collected_by_the_gui_timer_not_in_the_middle_of_a_paint(qtbot):
    """A top-level widget left in a reference cycle used to be freed by Python's
    automatic collection inside another widget's paint (valgrind: the painter drew into
    the freed widget's backing store, then the test run crashed)."""
    import gc
    import weakref

    from PySide6.QtWidgets import QWidget

    from bpe_gui.gui.controller.controller import Controller
    c = Controller()
    assert not gc.isenabled()   # automatic collection is off once the window's parts exist
    w = QWidget()
    w.me = w                    # a cycle: only the cyclic collector can free it
    gone = weakref.ref(w)
    del w
    junk = [[i] for i in range(5000)]   # past the young generation's threshold
    qtbot.waitUntil(lambda: gone() is None, timeout=5_000)   # the timer collected it
    del junk
    c.shutdown()


def test_compare_cut_marks_stay_inside_their_lines(qtbot):
    """A cut mark used to run from the cursor's top to its bottom, and a Chinese
    character's fallback font has a taller cursor than the line: marks reached into the
    lines above and below."""
    text = ("分词器把一句话切成 token。Byte-pair encoding merges the most frequent pair: "
            "2024 年，模型读到的是整数 ID。\nThe quick brown fox jumps over the lazy dog.")
    c = make_controller(text * 3, vocab_size=400, pattern="cjk")
    try:
        c.goto(60)
        view = CompareView(c)
        qtbot.addWidget(view)
        view.resize(700, 600)
        view.show()
        qtbot.waitExposed(view)
        view.pane_b.set_step(5)
        view.set_text(text)
        side = view.pane_b.view
        assert side.marks
        spans = sorted({side.mark_line(ch, k)[1:] for ch, k in side.marks})
        assert len(spans) >= 3                          # marks on several lines
        for (top, bottom), (next_top, _) in zip(spans, spans[1:]):
            assert bottom < next_top, (top, bottom, next_top)   # drawn lines never meet
    finally:
        c.shutdown()
