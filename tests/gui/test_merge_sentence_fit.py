"""The merge panel's teaching sentence whole and every table column present at 800x600,
1024x700 and 1920x1080 (issue 57): at 1024x700 "w i wins becaus…" was cut in the Next
box and the Last merge tab (the rest only in a tooltip), at 800x600 the Next box showed
"(count 3)…" and the pair table had lost "Merges into" and "Tie", the timeline "New
token". Geometry is measured offscreen, in the default layout of each screen."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QTextDocument

from screens import SIZES, open_at
from settle import settle as quiet


def whole_and_in_sight(win, pane) -> None:
    """All of the pane's text fits the pane, and all of the pane is in the window."""
    doc = QTextDocument()
    doc.setDocumentMargin(1)
    doc.setDefaultFont(pane.font())
    doc.setHtml(pane.text()) if "<" in pane.text() else doc.setPlainText(pane.text())
    doc.setTextWidth(pane.width())
    assert doc.size().height() <= pane.height() + 0.5, (pane.text(), pane.size())
    assert pane.isVisible()
    assert pane.visibleRegion().boundingRect() == pane.rect(), pane.visibleRegion()
    top_left = pane.mapTo(win, QPoint(0, 0))
    assert QRect(QPoint(0, 0), win.size()).contains(QRect(top_left, pane.size()))


def tabbed(panel, box) -> bool:
    return panel.right_tabs.isVisible() and panel.right_tabs.indexOf(box) >= 0


def every_column(view) -> None:
    model = view.model()
    header = view.horizontalHeader()
    fm = header.fontMetrics()
    for col in range(model.columnCount()):
        title = str(model.headerData(col, Qt.Orientation.Horizontal) or "")
        assert not view.isColumnHidden(col), title
        assert header.sectionSize(col) >= fm.horizontalAdvance(title), title
    assert not view.horizontalScrollBar().isVisible()


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_the_whole_sentence_and_every_column_at_each_size(make_window, qtbot, monkeypatch,
                                                          size):
    win = open_at(make_window, qtbot, monkeypatch, size)
    c, panel = win.controller, win.dock_layout.merge_panel
    assert c.goto(3)   # the next step is the tutorial's five-way tie at count 3
    quiet(qtbot, win, c)
    assert "5 pairs share the top count 3; w i wins because" in panel.next_label.text()
    if tabbed(panel, panel.pairs_box):
        panel.right_tabs.setCurrentWidget(panel.pairs_box)
        quiet(qtbot, win, c)
    whole_and_in_sight(win, panel.next_label)
    every_column(panel.pair_view)

    assert c.goto(4)   # the tie as the last merge
    quiet(qtbot, win, c)
    assert "w i wins because" in panel.last_reason.text()
    for box in (panel.last_box, panel.timeline_box):
        if tabbed(panel, box):
            panel.right_tabs.setCurrentWidget(box)
            quiet(qtbot, win, c)
        if box is panel.last_box:
            whole_and_in_sight(win, panel.last_reason)
            every_column(panel.affected_view)
        else:
            every_column(panel.timeline_view)
    area = win.centralWidget()   # and the panel neither scrolls nor is scrolled sideways
    assert not area.horizontalScrollBar().isVisible()
    assert not area.verticalScrollBar().isVisible()
