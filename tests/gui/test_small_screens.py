"""Panels readable in the default layout of an 800x600, 1024x700 and 1920x1080 screen
(issue 57 item 4), geometry measured offscreen: Words mode pushed the encode view's ids
strip below the fold, Word playback cut its columns ("Symbols aft…")."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics

from screens import SIZES, in_focus, open_at
from settle import settle as quiet


def in_sight(win, widget) -> bool:
    """All of ``widget`` drawn (nothing scrolled or clipped away) inside the window."""
    top_left = widget.mapTo(win, QPoint(0, 0))
    return widget.isVisible() and widget.visibleRegion().boundingRect() == widget.rect() \
        and QRect(QPoint(0, 0), win.size()).contains(QRect(top_left, widget.size()))


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)   # (at 800x600 the dock was 33 pixels short)
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
    title = ev.words.legend.title   # its wrapped lines whole, not squeezed
    assert title.height() >= title.heightForWidth(title.width()), (title.height(), size)
    # Words off again: the merge panel has its whole minimum back
    ev.words.toggle.setChecked(False)
    central = win.centralWidget()
    qtbot.waitUntil(lambda: central.viewport().height()
                    >= dl.merge_panel.minimumSizeHint().height() - 2)


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
    win = in_focus(make_window, qtbot, monkeypatch, size, "compare")
    dl = win.dock_layout
    view = dl.compare_view
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


def rows_in_sight(win, view) -> int:
    """How many whole rows of a table (or lines of a text view) show inside the window."""
    region = view.viewport().visibleRegion().boundingRect()
    top_left = view.viewport().mapTo(win, region.topLeft())
    shown = QRect(top_left, region.size()).intersected(QRect(QPoint(0, 0), win.size()))
    step = view.verticalHeader().defaultSectionSize() if hasattr(view, "verticalHeader") \
        else view.fontMetrics().lineSpacing()
    return shown.height() // step


def raise_below(win, qtbot, dock, panel):
    dock.raise_()
    qtbot.waitUntil(panel.isVisible)
    quiet(qtbot, win, win.controller)


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_compare_shows_both_sides_and_the_table_without_focus(
        make_window, qtbot, monkeypatch, size):
    """At 800x600 and 1024x700 Compare's dock was about 260 pixels tall: the two sides'
    texts and the table of counts were below the fold unless Focus was on. (At 800x600
    the sides' texts then give way to the table's rows: test_layout_round5.)"""
    win = open_at(make_window, qtbot, monkeypatch, size)
    dl = win.dock_layout
    view = dl.compare_view
    raise_below(win, qtbot, dl.compare_dock, view)
    qtbot.waitUntil(lambda: view.model.columnCount() > 5, timeout=10_000)   # sample text
    area = dl.compare_dock.widget()
    # (the dock grows once its tab is in front)
    qtbot.waitUntil(lambda: area.verticalScrollBar().maximum() == 0 and in_sight(win, view.table))
    small = size == (800, 600)
    # its header and two rows at least; at 800x600 all eight
    want = 8 if small else 2
    qtbot.waitUntil(lambda: rows_in_sight(win, view.table) >= want, timeout=3000)
    for pane in (view.pane_a, view.pane_b):
        if small:
            assert not pane.view.isVisible()
        else:
            assert in_sight(win, pane.view)
            assert rows_in_sight(win, pane.view) >= 2, (pane.name, size)
        caption = pane.caption   # the numbers whole: a variant that fits, not "…"
        assert in_sight(win, caption)
        assert "tokens" in caption.text() and not caption.text().endswith("…"), caption.text()
    assert in_sight(win, view.edit)
    # the merge panel keeps its row of controls in sight
    panel = dl.merge_panel
    for b in (panel.play_btn, panel.goto_btn, panel.goto_spin):
        assert in_sight(win, b), size
    # another tab in front: the merge panel gets its height back
    raise_below(win, qtbot, dl.encode_dock, dl.encode_view)
    central = win.centralWidget()
    qtbot.waitUntil(lambda: central.viewport().height()
                    >= panel.minimumSizeHint().height() - 2)
    assert in_sight(win, panel.pair_view)


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_charts_titles_whole_and_two_charts_in_sight(make_window, qtbot, monkeypatch, size):
    """Three charts in a row of an 800-pixel window cut their titles ("Rényi efficiency
    (…", "Count of the cho…") and the second row was below the fold."""
    win = open_at(make_window, qtbot, monkeypatch, size)
    dl = win.dock_layout
    view = dl.charts_view
    raise_below(win, qtbot, dl.charts_dock, view)
    charts = [c for c in view.charts.values() if not c.isHidden()]   # (parity runs only)
    bold = QFont(view.compression.font())
    bold.setBold(True)
    fm = QFontMetrics(bold)
    for chart in charts:   # each title drawn whole (16: the chart's side margins)
        assert chart.width() - 16 >= fm.horizontalAdvance(chart.title), (chart.title, size)
    assert view.columns == view.columns_for(view.grid_host.width())
    area = dl.charts_dock.widget()
    if size != (1920, 1080):   # (the dock grows once its tab is in front)
        qtbot.waitUntil(lambda: dl.charts_dock.height() > win.height() // 2)
    # (awaited: on a loaded machine the grid settles after the dock)
    want = len(charts) if size == (1920, 1080) else 2
    qtbot.waitUntil(lambda: sum(in_sight(win, c) for c in charts) >= want)
    for chart in charts:   # the rest a scroll away, each whole then
        area.ensureWidgetVisible(chart, 0, 0)
        quiet(qtbot, win, win.controller)
        assert in_sight(win, chart), (chart.title, size)


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES[:2])
def test_compare_in_focus_shows_bs_open_file_button(make_window, qtbot, monkeypatch, size):
    """In Focus, side B as "Imported tokenizer" had its "Open file…" cut at the right."""
    from PySide6.QtWidgets import QPushButton
    win = open_at(make_window, qtbot, monkeypatch, size)
    dl = win.dock_layout
    view = dl.compare_view
    raise_below(win, qtbot, dl.compare_dock, view)
    assert dl.toggle_focus(dl.compare_dock)
    view.pane_b.set_kind("imported")
    quiet(qtbot, win, win.controller)
    buttons = [b for b in view.pane_b.findChildren(QPushButton) if b.isVisible()]
    assert any(b.text() == "Open file…" for b in buttons)
    for b in buttons:
        assert in_sight(win, b), (b.text(), size)
        assert b.width() >= b.fontMetrics().horizontalAdvance(b.text()), b.text()
    dl.unfocus()
