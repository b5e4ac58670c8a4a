"""Every control reachable and no sideways scrolling at common window sizes, light and
dark, also after View > Reset layout (geometry checked offscreen)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QAbstractButton, QScrollArea, QToolBar

from bpe_gui.gui.widgets.visibility import on_screen
from settle import settle as quiet

SIZES = [(800, 600), (1024, 700), (1366, 768), (1920, 1080)]


def inside_window(win, w) -> bool:
    top_left = w.mapTo(win, QPoint(0, 0))
    return QRect(QPoint(0, 0), win.size()).contains(QRect(top_left, w.size()))


def settle(qtbot, win, size):
    win.resize(*size)
    qtbot.waitUntil(lambda: win.size().width() == size[0])
    win.dock_layout.reset_layout()
    quiet(qtbot, win, win.controller)   # the layout requests it posted are delivered


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", SIZES)
def test_step_controls_and_toolbar_are_inside_the_window(window, qtbot, size, theme):
    window.themes.set(theme, save=False)
    settle(qtbot, window, size)
    bar = window.actions_menus.flow.toolbar
    assert bar.isVisible() and inside_window(window, bar)
    acts = window.actions_menus.acts
    for act in (acts["run"], acts["retrain"], acts["back"], acts["step"], acts["cancel"]):
        button = bar.widgetForAction(act)
        assert button is not None and button.isVisible(), act.text()
        assert button.width() > 0 and button.height() > 0 and inside_window(window, button)
    panel = window.dock_layout.merge_panel
    for b in panel.findChildren(QAbstractButton):
        if b.isVisibleTo(panel) and b.isVisible():
            assert b.width() > 0 and b.height() > 0, b.text()
            assert inside_window(window, b), b.text()
    for w in (panel.goto_spin, panel.speed):
        assert w.isVisible() and inside_window(window, w)


@pytest.mark.parametrize("size", SIZES)
def test_no_dock_scrolls_sideways(window, qtbot, size):
    settle(qtbot, window, size)
    central = window.centralWidget()
    for dock in [*window.dock_layout.docks(), None]:
        area = central if dock is None else dock.widget()
        if dock is not None:
            dock.raise_()
            qtbot.waitUntil(lambda: on_screen(area), timeout=3000)
            quiet(qtbot, window, window.controller)
        assert isinstance(area, QScrollArea)
        name = "merge panel" if dock is None else dock.objectName()
        assert not area.horizontalScrollBar().isVisible(), (name, size)
    inner = window.dock_layout.settings_panel.findChild(QScrollArea)
    assert not inner.horizontalScrollBar().isVisible()


def test_toolbar_is_a_real_toolbar_that_can_be_hidden(window):
    assert isinstance(window.actions_menus.flow.toolbar, QToolBar)
    assert window.actions_menus.flow.toolbar.objectName()   # saved with the layout


@pytest.mark.parametrize("size", SIZES)
def test_merge_panel_fits_its_area_without_scrolling(window, qtbot, size):
    """The merge panel (with a wrapping row of controls) used to be sized by its tables'
    preferred heights, so it scrolled vertically at 1366x768 (even at 1920x1080) and the
    timeline sat partly below the fold."""
    settle(qtbot, window, size)
    area = window.centralWidget()
    panel = window.dock_layout.merge_panel
    qtbot.waitUntil(lambda: not area.verticalScrollBar().isVisible())
    assert panel.height() <= area.viewport().height()
    for view, box in ((panel.pair_view, panel.pairs_box), (panel.affected_view, panel.last_box),
                      (panel.timeline_view, panel.timeline_box)):
        if panel.right_tabs.isVisible() and panel.right_tabs.indexOf(box) >= 0:
            panel.right_tabs.setCurrentWidget(box)   # (a short or narrow panel's tabs)
            qtbot.waitUntil(view.isVisible)
        assert view.isVisible() and inside_window(window, view)
        assert view.viewport().height() >= 2 * view.verticalHeader().defaultSectionSize(), \
            (view.objectName(), size)


def test_flow_bar_grows_a_row_when_narrow(qtbot):
    from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget
    from bpe_gui.gui.widgets.flow_layout import FlowBar
    host = QWidget()
    lay = QVBoxLayout(host)
    bar = FlowBar(spacing=4)
    buttons = [QPushButton(f"button number {i}") for i in range(4)]
    for b in buttons:
        bar.addWidget(b)
    lay.addWidget(bar)
    lay.addStretch(1)
    qtbot.addWidget(host)
    host.resize(2000, 300)
    host.show()
    qtbot.waitUntil(lambda: bar.width() > 1000)
    one_row = bar.height()
    assert len({b.y() for b in buttons}) == 1
    host.resize(bar.flow.minimumSize().width() + 30, 300)
    qtbot.waitUntil(lambda: len({b.y() for b in buttons}) == 4)
    qtbot.waitUntil(lambda: bar.height() >= 4 * buttons[0].height())
    assert bar.height() > one_row and not bar.hasHeightForWidth()
    assert all(b.geometry().bottom() < bar.height() for b in buttons)



@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("tab", [0, 1])
def test_compare_tabs_fit_the_window(window, qtbot, size, theme, tab):
    """Issue 21: the Vocabulary overlap tab widened the dock past a 1024-wide window,
    and even at 1920x1080 the results table was below the fold."""
    window.themes.set(theme, save=False)
    settle(qtbot, window, size)
    dock, view = window.dock_layout.compare_dock, window.dock_layout.compare_view
    dock.raise_()
    qtbot.waitUntil(lambda: on_screen(view), timeout=3000)
    view.lower_tabs.setCurrentIndex(tab)
    quiet(qtbot, window, window.controller)
    area = dock.widget()
    assert not area.horizontalScrollBar().isVisible(), (size, tab)
    assert window.width() == size[0] and inside_window(window, dock)
    shown = view.lower_tabs.currentWidget()
    assert shown.width() <= area.viewport().width()
    if size[1] >= 1000:   # a tall window shows the results without scrolling the dock
        assert not area.verticalScrollBar().isVisible(), (size, tab)
        assert inside_window(window, view.lower_tabs) and view.lower_tabs.height() >= 120


# ----- room to read at every size (issue 30 item 7) --------------------------------------
@pytest.mark.regression
def test_focus_gives_the_encode_view_the_window_and_gives_it_back(window, qtbot):
    """At 800x600 the Encode dock opened as a sliver: Focus (Ctrl+Shift+F, View menu, the
    view's button) gives the panel in use the whole window; again, all is as it was."""
    settle(qtbot, window, (800, 600))
    ev = window.dock_layout.encode_view
    merge_area = window.centralWidget()
    before = [(d.objectName(), d.isVisible()) for d in window.dock_layout.docks()]
    ev.edit.setFocus()
    window.actions_menus.acts["focus"].trigger()
    quiet(qtbot, window, window.controller)
    assert window.actions_menus.acts["focus"].isChecked() and ev.focus_button.isChecked()
    assert window.centralWidget().isAncestorOf(ev) and not any(
        d.isVisible() for d in window.dock_layout.docks())
    assert ev.height() > 0.7 * window.height()
    assert window.actions_menus.flow.toolbar.isVisible()   # Step and Train still there
    window.controller.step()                               # and the view follows a step
    qtbot.waitUntil(lambda: "step 1" in ev.source.currentText())
    window.dock_layout.save_layout()                       # (the layout around it)
    qtbot.mouseClick(ev.focus_button, Qt.LeftButton)       # its own button: back
    quiet(qtbot, window, window.controller)
    assert window.centralWidget() is merge_area and window.dock_layout.encode_dock.isAncestorOf(ev)
    assert [(d.objectName(), d.isVisible()) for d in window.dock_layout.docks()] == before
    assert not window.actions_menus.acts["focus"].isChecked() and not ev.focus_button.isChecked()
    state = window.settings.value(f"layouts/{window.dock_layout._class}/windowState")
    assert window.restoreState(state, 1) and window.dock_layout.encode_dock.isVisible()


@pytest.mark.regression
def test_a_short_screen_leaves_the_encode_view_room_to_read(make_window, qtbot,
                                                            monkeypatch):
    """At 800x600 the Encode dock opened as a sliver, at 1024x700 the docks below showed
    about 4 rows: on a short screen the merge panel is compact (last merge and timeline
    as tabs) and the docks below start with room (issue 30 item 7)."""
    from bpe_gui.gui.window.docks import DockLayout
    monkeypatch.setattr(DockLayout, "_screen_height", staticmethod(lambda: 600))
    win = make_window()
    assert win.dock_layout.merge_panel.compact
    settle(qtbot, win, (800, 600))
    ev = win.dock_layout.encode_view
    line = ev.edit.fontMetrics().lineSpacing()
    assert ev.edit.viewport().height() >= 2 * line, ev.edit.viewport().height()
    tabs = win.dock_layout.merge_panel.right_tabs
    # (too narrow for two columns with every table column: the next merge a tab too)
    assert tabs.isVisible() and [tabs.tabText(i) for i in range(tabs.count())][-2:] == [
        "Last merge", "Timeline"]
    area = win.centralWidget()
    qtbot.waitUntil(lambda: not area.verticalScrollBar().isVisible())   # the panel fits


@pytest.mark.regression
@pytest.mark.parametrize("size", [(800, 600), (1024, 700)])
def test_pairs_show_both_chips_and_the_timeline_its_ties(window, qtbot, size, ready):
    """The pair table hid the second chip and the timeline its Ties column (issue 30)."""
    assert window.dock_layout.editor.load_sample("zh-en")
    ready(window.controller)
    window.controller.goto(60)
    settle(qtbot, window, size)
    panel = window.dock_layout.merge_panel
    pv, tv = panel.pair_view, panel.timeline_view
    for view in (pv, tv):
        assert not view.horizontalScrollBar().isVisible(), view.objectName()
    fonts = pv.cells.fonts_for(pv.font())
    widest = max(pv.cells.cell_width(panel.pair_model.cell(r, 1), fonts)
                 for r in range(min(12, panel.pair_model.n_rows())))
    assert pv.columnWidth(1) >= min(widest, pv.viewport().width() // 2)
    ties = tv.model().HEADERS.index("Ties")
    assert not tv.isColumnHidden(ties)
    assert tv.columnViewportPosition(ties) + tv.columnWidth(ties) <= tv.viewport().width()


@pytest.mark.regression
@pytest.mark.parametrize("no_font", ["", "कสབ😀ኢក"])
def test_status_bar_texts_never_run_into_each_other(make_window, qtbot, no_font):
    """At 1024 wide the status bar's message ran into "No training yet" and the progress
    text (issue 30 item 7): the message is cut with "…" before the labels beside it.
    On a machine without fonts for several scripts, the font note named them all and
    took the message's whole room: the message was not shown at all (a full test run,
    where earlier tests had met those scripts)."""
    from bpe_gui.gui.models.glyphs import Glyphs, use_glyphs
    # (each test has its own Glyphs, conftest.fresh_glyphs; this one has no fonts for
    # no_font's scripts)
    seen = Glyphs(has_glyph=lambda ch: ch not in no_font)
    assert not any(seen.drawable(ch) for ch in no_font)
    use_glyphs(seen)
    try:
        window = make_window()
    finally:
        use_glyphs(None)
    settle(qtbot, window, (1024, 700))
    sb = window.statusBar()
    long = ("Restored where you left off. (File > Reopen last session at startup turns "
            "this off.) " * 3)
    window.status.show_busy(True)           # the progress label and bar, as when restoring
    window.status.progress_label.setText("Reading and pre-tokenizing big.txt (1.05 GB)… 60%")
    # whatever was pending (a timed message's clearing too) has run before the message
    quiet(qtbot, window, window.controller)
    sb.showMessage(long)
    pane = sb.message_pane
    st = window.status
    assert st.font_note.isVisible() == bool(no_font)

    def apart() -> bool:
        labels = [w for w in (st.font_note, st.stale_label, st.step_label,
                              st.progress_label, st.progress_bar, st.cancel_button)
                  if w.isVisible()]
        right_edge = pane.mapTo(sb, QPoint(pane.width(), 0)).x()
        return bool(labels) and all(right_edge <= w.mapTo(sb, QPoint(0, 0)).x()
                                    for w in labels)

    def shown() -> bool:   # (shown again if something cleared it)
        if sb.currentMessage() != long:
            sb.showMessage(long)
        return sb.currentMessage() == long

    # laid out again: the message's first words, cut with "…" beside the labels, whole
    # in the tooltip (made with the text as drawn: the pane is asked for it)
    qtbot.waitUntil(lambda: shown() and pane.width() >= 100 and apart()
                    and pane.shown().startswith("Restored") and pane.shown().endswith("…")
                    and pane.toolTip() == long)
    window.status.show_busy(False)


@pytest.mark.regression
@pytest.mark.parametrize("size", [(800, 600), (1024, 700)])
def test_a_loading_corpus_does_not_make_the_window_wider_than_the_screen(window, qtbot,
                                                                         size):
    """While a corpus loaded, the status bar's progress and step labels made the window
    904 pixels wide at least (Focus and the dock buttons went off a 1024-pixel screen
    with a longer file name)."""
    settle(qtbot, window, size)
    st = window.status
    st.show_busy(True)
    st.on_progress("Reading and pre-tokenizing a-corpus-with-a-rather-long-name.txt.xz "
                   "(20.4 MB)", 3_120_000, 20_400_000)
    st.step_label.setText("Step 4,744 / 4,744 · stopped: no pair occurs twice or more · "
                          "vocabulary 5,000")
    quiet(qtbot, window, window.controller)
    assert window.minimumSizeHint().width() <= size[0]
    assert window.width() <= size[0]
    assert st.progress_label.isVisible() and st.progress_label.width() >= 100
    st.show_busy(False)


@pytest.mark.regression
@pytest.mark.parametrize("size", [(800, 600), (1024, 700)])
def test_the_step_label_is_as_wide_as_its_text(window, qtbot, size):
    """The status bar's step label kept 216 pixels, the width of "Step 88,888 / 88,888 ·
    vocabulary 88,888", whatever it said: "No training yet" left a gap the message
    could have had, and "... · stopped: no pair left ..." was cut with "…" beside an
    empty message. It takes its text's width now (the font's advance: the oracle), and
    gives way to the message and the progress as the other labels do."""
    settle(qtbot, window, size)
    st, sb = window.status, window.statusBar()
    fm = st.step_label.fontMetrics()
    for text in ["No training yet", "Step 3 / 10 · vocabulary 259",
                 "Step 9,382 / 29,744 · stopped: no pair left · vocabulary 9,638"]:
        st.step_label.setText(text)
        quiet(qtbot, window, window.controller)
        assert st.step_label.shown() == text   # whole: the message is empty
        assert abs(st.step_label.width() - fm.horizontalAdvance(text)) <= 8, text
    sb.showMessage("Restored where you left off. " * 6)
    st.show_busy(True)
    st.on_progress("Training to target", 3_008, 29_744)
    quiet(qtbot, window, window.controller)
    assert window.width() <= size[0] and sb.message_pane.width() >= 100
    assert st.step_label.width() >= 90 and st.progress_label.width() >= 100
    st.show_busy(False)


@pytest.mark.regression
def test_a_combo_box_too_narrow_for_its_text_ends_it_with_an_ellipsis(window, qtbot,
                                                                      tmp_path):
    """Combo boxes cut their text mid-letter ("Imported: gpt2_vocab.jsc") with no sign
    of more (issue 30 item 7): "…" and the whole text in the tooltip."""
    c = window.controller
    files = c.tokenizer_files.export("hf", str(tmp_path),
                                     "a_tokenizer_with_a_rather_long_file_name")
    assert c.tokenizer_files.import_tokenizer(str(files[0])) is not None
    combo = window.dock_layout.encode_view.source
    combo.setMinimumWidth(0)
    combo.setMinimumContentsLength(4)
    combo.resize(140, combo.height())
    combo.setFixedWidth(140)
    qtbot.waitUntil(lambda: combo.width() == 140)
    combo.grab()   # painted: the tooltip follows what is shown
    assert combo.is_elided()
    assert combo.currentText() in combo.toolTip()


# ----- a long text, paged, in the encode view (issue 37) ------------------------------------
def _paged_text(n_chars: int) -> str:
    lines, n = [], 0
    while n < n_chars:
        lines.append(f"第{len(lines)}回 贾宝玉 low lower newest widest 分词器 tokenizers.\n")
        n += len(lines[-1])
    return "".join(lines)[:n_chars]


def _in_view(w, area) -> bool:
    """``w`` is shown whole inside the scroll area's viewport."""
    vp = area.viewport()
    return w.isVisible() and QRect(QPoint(0, 0), vp.size()).contains(
        QRect(w.mapTo(vp, QPoint(0, 0)), w.size()))


@pytest.mark.regression
@pytest.mark.parametrize("size", [(800, 600), (1024, 700), (1920, 1050)])
def test_a_paged_text_keeps_the_encode_view_inside_its_dock(make_window, qtbot, monkeypatch,
                                                            size):
    """Once a pasted text was paged, the encode view grew wider than its dock at 800x600
    and 1920x1080: scroll bars, Focus, Next page and Words cut off, the counts' first
    digits scrolled away, and the page buttons moved from page to page (Next clicked
    three times in one spot went to pages 2, 1, 2)."""
    from PySide6.QtCore import QMimeData
    from bpe_gui.gui.window.docks import DockLayout
    monkeypatch.setattr(DockLayout, "_screen_height",
                        staticmethod(lambda: 1080 if size[0] == 1920 else size[1]))
    if size[0] == 1920:
        monkeypatch.setattr(DockLayout, "_default_size", lambda self: size)
    win = make_window()
    settle(qtbot, win, size)
    dl = win.dock_layout
    dl.encode_dock.raise_()
    ev = dl.encode_view
    ev.edit.setFocus()
    ev.edit.selectAll()
    mime = QMimeData()
    mime.setText(_paged_text(300_000))
    ev.edit.insertFromMimeData(mime)
    qtbot.waitUntil(lambda: not getattr(ev, "encoding_pending", False) and len(ev.encoding) > 1000,
                    timeout=20_000)
    quiet(qtbot, win, win.controller)
    area = dl.encode_dock.widget()
    assert not area.horizontalScrollBar().isVisible(), size
    bar = ev.page_bar
    for w in (ev.source, ev.show_ws, ev.words.toggle, ev.counts, ev.focus_button,
              bar.label, bar.prev_button, bar.next_button):
        assert _in_view(w, area), (size, type(w).__name__, getattr(w, "text", str)())
    assert ev.counts.text().split()[0][0].isdigit()       # "95,839 tokens", not ",839"
    assert ev.edit.viewport().height() >= 2 * ev.edit.fontMetrics().lineSpacing()
    assert ev.edit.firstVisibleBlock().text()             # the paste's first line, in sight

    def spot():
        return bar.next_button.mapTo(win, QPoint(0, 0)), bar.next_button.size()
    where = spot()
    for k in (1, 2, 3):
        qtbot.mouseClick(bar.next_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not getattr(ev, "encoding_pending", False), timeout=20_000)
        quiet(qtbot, win, win.controller)
        assert ev.pages.index == k and spot() == where, (size, k)
        assert not area.horizontalScrollBar().isVisible()
