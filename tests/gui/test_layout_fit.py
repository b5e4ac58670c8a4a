"""Every control reachable and no sideways scrolling at common window sizes, light and
dark, also after View > Reset layout (geometry checked offscreen)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect
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
    for view in (panel.pair_view, panel.affected_view, panel.timeline_view):
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
