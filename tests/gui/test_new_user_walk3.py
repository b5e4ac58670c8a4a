"""What a new user's walk found (Xvfb + openbox at 800x600, 1024x700, 1920x1080),
each measured offscreen against Qt's own geometry of the rows and lines drawn."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from screens import SIZES, open_at
from settle import settle as quiet


def rows_cut(tree) -> list[str]:
    """The rows of ``tree`` drawn in part: the viewport's bottom edge runs through them."""
    height = tree.viewport().height()
    out, items = [], [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    while items:
        item = items.pop()
        r = tree.visualItemRect(item)
        if r.top() < height < r.top() + r.height():
            out.append(item.text(0))
        items.extend(item.child(i) for i in range(item.childCount()))
    return out


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_the_merge_lineage_draws_no_row_cut(make_window, qtbot, monkeypatch, size):
    """At 800x600 the lineage tree's last row in sight was drawn half cut: its
    viewport was not a whole number of rows. Whole rows, at least a token and its two
    parts; scrolled to its end, the last row is whole."""
    win = open_at(make_window, qtbot, monkeypatch, size)
    dl, c = win.dock_layout, win.controller
    assert c.goto(10)
    dl.vocab_dock.raise_()
    vb = dl.vocab_browser
    qtbot.waitUntil(vb.isVisible)
    quiet(qtbot, win, c)
    tree = vb.tree
    deepest = max(vb.visible_ids(), key=lambda tid: len(vb.model.entry_by_id(tid).token))
    assert vb.select_id(deepest)
    quiet(qtbot, win, c)
    rows = tree.sizeHintForRow(0)
    assert rows > 0 and tree.topLevelItem(0).childCount() == 2
    assert tree.viewport().height() >= 3 * rows, (tree.viewport().height(), rows, size)
    assert rows_cut(tree) == [], (size, tree.viewport().height(), rows)
    bar = tree.verticalScrollBar()
    bar.setValue(bar.maximum())
    QApplication.processEvents()
    assert rows_cut(tree) == [], size
    last = tree.topLevelItem(0)
    while last.childCount():
        last = last.child(last.childCount() - 1)
    r = tree.visualItemRect(last)
    assert 0 <= r.top() and r.bottom() < tree.viewport().height(), (size, r)
    # a window made a little shorter: still whole rows
    win.resize(win.width(), win.height() - 17)
    quiet(qtbot, win, c)
    assert rows_cut(tree) == [], size
