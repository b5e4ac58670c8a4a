"""Issue 67, layout: each panel readable at the sizes the issue names, measured offscreen
against the panels' own texts (widths from font metrics, rows from the views' viewports)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QApplication, QWidget

from screens import SIZES, open_at
from settle import settle as quiet


def bold_width(widget, text: str) -> int:
    font = QFont(widget.font())
    font.setBold(True)
    return QFontMetrics(font).horizontalAdvance(text)


@pytest.mark.regression
def test_run_to_step_dialog_fits_its_title(make_window, qtbot, monkeypatch):
    """The title bar reads "Run to step — bpe-gui" whole: the window manager adds the
    application's name, an icon and three buttons (about 20 pixels each) to the dialog's
    width; at the spin box's width openbox showed "Run t… pe-gui"."""
    win = open_at(make_window, qtbot, monkeypatch, (800, 600))
    dlg = win.actions_menus.goto_dialog()
    qtbot.waitUntil(dlg.isVisible)
    name = QApplication.applicationDisplayName()   # (the test runner's, here)
    assert dlg.windowTitle() == "Run to step" and name
    needed = bold_width(dlg, f"Run to step \u2014 {name}") + 4 * 20
    assert dlg.width() >= needed, (dlg.width(), needed)
    dlg.setIntValue(3)     # and it still runs to the step asked for
    dlg.accept()
    qtbot.waitUntil(lambda: win.controller.step_index == 3)


def whole(widget) -> bool:
    """Shown, and nothing of it scrolled or clipped away."""
    return widget.isVisible() and widget.visibleRegion().boundingRect() == widget.rect()


@pytest.mark.regression
@pytest.mark.parametrize("size", [(800, 600), (1024, 700)])
@pytest.mark.parametrize("tab", ["compare_dock", "charts_dock"])
def test_a_tall_panel_in_front_leaves_the_merge_panel_its_controls_alone(
        make_window, qtbot, monkeypatch, size, tab):
    """Compare or Charts in front on a short screen: the merge panel shows its row of
    controls whole and not a pixel of what is below it (a strip of its tabs showed)."""
    win = open_at(make_window, qtbot, monkeypatch, size)
    dl = win.dock_layout
    panel = dl.merge_panel
    getattr(dl, tab).raise_()
    quiet(qtbot, win, win.controller)
    qtbot.waitUntil(dl.tall_in_front)
    below = [w for w in panel.findChildren(QWidget) if w.isVisible()
             and w.parentWidget() is panel and w is not panel.controls_bar]
    assert below   # the status line, the tables' splitter
    qtbot.waitUntil(lambda: whole(panel.controls_bar)
                    and all(w.visibleRegion().isEmpty() for w in below))


def rows_in_view(view) -> int:
    """Rows of a table drawn whole inside its viewport."""
    height = view.viewport().height()
    return sum(1 for r in range(view.model().rowCount())
               if 0 <= view.rowViewportPosition(r)
               and view.rowViewportPosition(r) + view.rowHeight(r) <= height)


def columns_cut(view) -> list[str]:
    """The shown columns not drawn whole in the viewport, by header text."""
    width, model = view.viewport().width(), view.model()
    return [model.headerData(c, Qt.Orientation.Horizontal)
            for c in range(model.columnCount()) if not view.isColumnHidden(c)
            and not (0 <= view.columnViewportPosition(c)
                     and view.columnViewportPosition(c) + view.columnWidth(c) <= width)]


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_the_vocabulary_shows_rows_every_column_and_its_lineage_title(
        make_window, qtbot, monkeypatch, size):
    """At 800x600 the table showed about 3 rows, its Class column cut to "Clas", and
    the Merge lineage heading was clipped mid-line."""
    from bpe_gui.gui.models.vocab_model import VocabModel
    win = open_at(make_window, qtbot, monkeypatch, size)
    dl, c = win.dock_layout, win.controller
    assert c.goto(10)
    dl.vocab_dock.raise_()
    vb = dl.vocab_browser
    qtbot.waitUntil(vb.isVisible)
    quiet(qtbot, win, c)
    assert vb.select_id(vb.visible_ids()[-1])   # a lineage to show
    quiet(qtbot, win, c)
    view = vb.view
    assert not view.isColumnHidden(VocabModel.CLASS)
    assert columns_cut(view) == [], (columns_cut(view), size)
    assert view.horizontalScrollBar().maximum() == 0
    fm = view.fontMetrics()
    assert view.columnWidth(VocabModel.CLASS) >= fm.horizontalAdvance("undecodable")
    assert rows_in_view(view) >= 6, (rows_in_view(view), size)
    title = vb.lineage_title   # its wrapped lines whole, inside the dock's view
    assert whole(title) and title.height() >= title.heightForWidth(title.width()), size
    tree = vb.tree   # and the lineage's tree a few rows below it
    assert whole(tree), (tree.visibleRegion().boundingRect(), tree.rect())
    assert tree.viewport().height() >= 2 * tree.sizeHintForRow(0), size


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_word_playback_status_line_is_whole(make_window, qtbot, monkeypatch, size):
    """At 800x600 the line under the slider ("Step 2 of 2: merge #5: wi + d → wid,
    once (le…") was cut: it wraps onto the lines it needs."""
    win = open_at(make_window, qtbot, monkeypatch, size)
    dl, c = win.dock_layout, win.controller
    assert c.goto(6)
    quiet(qtbot, win, c)
    pb, ev = dl.playback_view, dl.encode_view
    ev.set_text("lowest newer wider low")
    qtbot.waitUntil(lambda: ev.tok is not None)
    pb.show_word(ev.words.found.word_at(len("lowest newer w")))   # as a click on "wider"
    dl.playback_dock.raise_()
    qtbot.waitUntil(pb.isVisible)
    pb.set_step(pb.slider.maximum())   # the longest line: the last merge, and the end
    quiet(qtbot, win, c)
    line = pb.step_label
    text = line.text()
    assert text.startswith(f"Step {pb.slider.maximum()} of ") and "…" not in text, text
    fm = line.fontMetrics()
    need = fm.boundingRect(QRect(0, 0, line.width() - 4, 10_000),
                           int(Qt.TextFlag.TextWordWrap), text).height()
    assert need > fm.lineSpacing() or size != (800, 600)   # (it needs two lines there)
    qtbot.waitUntil(lambda: line.height() >= need)
    assert whole(line), size
    area = dl.playback_dock.widget()
    qtbot.waitUntil(lambda: area.verticalScrollBar().maximum() == 0)   # nothing below
    assert rows_in_view(pb.table) == pb.model.rowCount() == 3   # start, two merges


# rows of the per-script table in sight (of 8: four metrics, sides A and B), in the default
# layout and in Focus: at 800x600 only the Tokens rows showed, even in Focus; at
# 1024x700, 2 rows. At 800x600 outside Focus (a dock of about 470 by 400 pixels) the
# table showed one row, cut sideways: there the sides' texts give way to it.
COMPARE_ROWS = {((800, 600), False): 8, ((1024, 700), False): 6, ((1920, 1080), False): 4,
                ((800, 600), True): 6, ((1024, 700), True): 8, ((1920, 1080), True): 8}
TEXTS_GIVE_WAY = {((800, 600), False)}


@pytest.mark.regression
@pytest.mark.parametrize("focus", [False, True])
@pytest.mark.parametrize("size", SIZES)
def test_compare_per_script_table_shows_its_rows_and_columns(
        make_window, qtbot, monkeypatch, size, focus):
    win = open_at(make_window, qtbot, monkeypatch, size)
    dl = win.dock_layout
    view = dl.compare_view
    dl.compare_dock.raise_()
    qtbot.waitUntil(view.isVisible)
    if focus:
        assert dl.toggle_focus(dl.compare_dock)
    elif size != (1920, 1080):   # (the dock grows once its tab is in front)
        qtbot.waitUntil(lambda: dl.compare_dock.height() > win.height() // 2)
    qtbot.waitUntil(lambda: view.model.columnCount() > 5, timeout=10_000)   # sample text
    quiet(qtbot, win, win.controller)
    table = view.table
    titles = [str(view.model.headerData(c, Qt.Orientation.Horizontal))
              for c in range(view.model.columnCount())]
    assert any(t.startswith("Cyrillic") for t in titles), titles
    want = COMPARE_ROWS[size, focus]
    qtbot.waitUntil(lambda: rows_in_view(table) >= want, timeout=3000)
    port = table.viewport()   # (the rows counted are drawn: none clipped from below)
    assert port.visibleRegion().boundingRect().height() == port.height(), (size, focus)
    assert columns_cut(table) == [], (size, focus)
    assert table.horizontalScrollBar().maximum() == 0, (size, focus)
    for pane in (view.pane_a, view.pane_b):
        if (size, focus) in TEXTS_GIVE_WAY:   # the side's header still counts its tokens
            assert not pane.view.isVisible()
            assert whole(pane.caption) and " tokens, " in pane.caption.text()
        else:   # the sides keep two lines of text
            assert whole(pane.view)
            assert pane.view.viewport().height() >= 2 * pane.view.fontMetrics().lineSpacing()


@pytest.mark.regression
def test_compare_compact_table_names_every_row_in_its_cells_or_tooltips(
        make_window, qtbot, monkeypatch):
    """The compact table at 800x600: each row says its side by letter, and its metric's
    full name is in the tooltip of every cell of the row, with the side's own name."""
    from bpe_gui.gui.models.compare_table import METRICS
    win = open_at(make_window, qtbot, monkeypatch, (800, 600))
    dl = win.dock_layout
    view = dl.compare_view
    dl.compare_dock.raise_()
    qtbot.waitUntil(lambda: view.compact, timeout=5000)
    model = view.model
    for r in range(model.rowCount()):
        side = "AB"[r % 2]
        assert model.index(r, 1).data() == side
        name = f"{'AB'[r % 2]}: "
        for c in range(model.columnCount()):
            tip = model.index(r, c).data(Qt.ItemDataRole.ToolTipRole)
            assert tip.startswith(METRICS[r // 2][1] + ", " + name), tip
    # the texts are hidden, and the line over the table says so and how to see them
    from bpe_gui.gui.panels.compare.compare_view import HIDDEN_TEXTS
    qtbot.waitUntil(lambda: "only B" in view.summary.text())
    assert HIDDEN_TEXTS in view.summary.text() and "Focus" in view.summary.toolTip()
    assert view.summary.isVisible()
    assert dl.toggle_focus(dl.compare_dock)   # Focus: the texts and long names again
    qtbot.waitUntil(lambda: not view.compact and view.pane_a.view.isVisible())
    assert model.index(0, 1).data().startswith("A: ")
    assert model.index(2, 0).data() == METRICS[1][1]
    assert HIDDEN_TEXTS not in view.summary.text() and not view.summary.toolTip()


@pytest.mark.regression
def test_compare_dragging_the_handle_gives_the_sides_their_texts_back(
        make_window, qtbot, monkeypatch):
    """Compact at 800x600: a drag of the handle between the sides and the table is the
    user's choice of sizes, and the sides show their coloured texts again."""
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest
    win = open_at(make_window, qtbot, monkeypatch, (800, 600))
    dl = win.dock_layout
    view = dl.compare_view
    dl.compare_dock.raise_()
    qtbot.waitUntil(lambda: view.compact, timeout=5000)
    assert not view.pane_a.view.isVisible()
    handle = view.split.handle(1)
    mid = handle.rect().center()
    QTest.mousePress(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, mid)
    QTest.mouseMove(handle, mid + QPoint(0, 60))
    QTest.mouseRelease(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       mid + QPoint(0, 60))
    qtbot.waitUntil(lambda: not view.compact)
    for pane in (view.pane_a, view.pane_b):
        qtbot.waitUntil(lambda p=pane: whole(p.view))
    win.resize(800, 560)   # a resize after it keeps the user's choice
    quiet(qtbot, win, win.controller)
    assert not view.compact and view.pane_a.view.isVisible()
