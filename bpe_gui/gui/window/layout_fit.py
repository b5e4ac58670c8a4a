"""Fitting the layout to the window: the merge panel at its full minimum height, a left
column wide enough for its tab titles (used by docks.py's default dock sizes), whether
two docks stand side by side (docks.py's fit_to_size), the window's size class (each
keeps a layout of its own) and the panels in sight below their minimum readable size
(a layout that leaves one is given up for the default). No state of its own."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QScrollArea, QTabBar, QWidget

SIDES = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea)
# a panel in sight is readable at its minimum size, up to this (a panel whose minimum is
# bigger scrolls; less than this, the pair table read "Pai…" and Encode its header)
READABLE = (200, 90)


def size_class(width: int, height: int) -> str:
    """The window's size class, each with its own remembered layout: "small" (800x600),
    "medium" (1024x700 to 1440x900), "large" (1920x1080 and up)."""
    if height < 650 or width < 900:
        return "small"
    return "medium" if height < 900 or width < 1800 else "large"


def unreadable(window: QMainWindow, docks: list[QDockWidget],
               middle: int | None = None) -> list[QWidget]:
    """The docks in sight (a tab behind is not) and the middle panel that are smaller
    than their panel's minimum size, up to READABLE (``middle``: the height the middle
    panel is left on purpose, when not that)."""
    out = []
    for outer in [window.centralWidget(), *docks]:
        area = outer.widget() if isinstance(outer, QDockWidget) else outer
        inner = area.widget() if isinstance(area, QScrollArea) else area
        if outer is None or inner is None or not outer.isVisible() or \
                outer.visibleRegion().isEmpty() or \
                (isinstance(outer, QDockWidget) and outer.isFloating()):
            continue
        want = inner.minimumSizeHint()
        tall = middle if middle is not None and outer is window.centralWidget() else \
            min(want.height(), READABLE[1])
        if outer.width() < min(want.width(), READABLE[0]) or outer.height() < tall:
            out.append(outer)
    return out


def side_by_side(window: QMainWindow, a: QDockWidget, b: QDockWidget) -> bool:
    """Both docks of ``window`` in sight, one to the right of the other (not one above
    the other, nor tabs of one group: a tab behind keeps isVisible(), moved out of sight)."""
    return a.isVisible() and b.isVisible() and b not in window.tabifiedDockWidgets(a) and \
        (b.x() >= a.x() + a.width() or a.x() >= b.x() + b.width())


def left_column_width(window: QMainWindow, side: int, window_width: int) -> int:
    """``side``, or wider when the corpus dock shares a tab bar whose titles would be cut
    ("Corp…", "Training settin…"), up to 36% of the window."""
    tabs = [t.sizeHint().width() for t in window.findChildren(QTabBar)
            if any(t.tabText(i) == "Corpus" for i in range(t.count()))]
    return max([side] + [min(t + 8, int(window_width * 0.36)) for t in tabs])


def give_central_its_minimum(window: QMainWindow, central: QWidget,
                             bottom: QDockWidget, exactly: bool = False,
                             floor: int = 0) -> bool:
    """Take height from the docks below until the ``central`` panel (the merge panel)
    gets its minimum height, so it does not scroll (the docks below scroll first).
    ``exactly``: also give the docks below what the panel has over its minimum (a short
    screen, where the encode view below needs every pixel). True if it moved the docks
    (the docks' tab bar is outside the dock, so a second pass may be needed). The docks
    below keep at least ``floor`` pixels (the panel in front there needs them)."""
    scroll = window.centralWidget()
    if not isinstance(scroll, QScrollArea):   # (docks.py puts it in a scroll area)
        return False
    need = central.minimumSizeHint().height() - scroll.viewport().height()
    if exactly and need < 0:
        need += 2   # (a pixel's rounding must not bring the scroll bar)
    if (need > 0 or (exactly and need < -1)) and \
            window.dockWidgetArea(bottom) == Qt.DockWidgetArea.BottomDockWidgetArea:
        # resizeDocks sizes a tab group with its tab bar, which is outside the dock
        bar = next((t.height() for t in window.findChildren(QTabBar) if t.isVisible() and
                    any(t.tabText(i) == bottom.windowTitle() for i in range(t.count()))), 0)
        size = max(bottom.minimumSizeHint().height(), floor, bottom.height() - need) + bar
        if size != bottom.height() + bar:
            window.resizeDocks([bottom], [size], Qt.Orientation.Vertical)
            return True
    return False
