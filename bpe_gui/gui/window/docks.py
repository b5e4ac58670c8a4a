"""The main window's panels, docks and tabs: where each panel goes by default (fitted
to the screen), the remembered layout (geometry and dock state in QSettings), Reset
layout, panels catching up when their dock tab comes to the front, and on a short screen
the height shared between the merge panel and the tab in front below it (the
vocabulary, Compare and Charts take all but the merge panel's row of controls; a panel that asks for its
minimum, the encode view in Words mode, gets it).

:class:`DockLayout` is a part of :class:`~bpe_gui.gui.window.main_window.MainWindow`,
composed, not mixed in: it is given the window whose docks it arranges, the controller
its panels show, the settings that remember the layout, the recent-files list (the
corpus editor's) and how to open the paths the corpus editor asks for.
"""
from __future__ import annotations

from typing import Callable, Sequence

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer
from PySide6.QtWidgets import (QApplication, QDockWidget, QMainWindow, QScrollArea, QTabBar,
                               QWidget)

from ..controller.controller import Controller
from .layout_fit import (READABLE, SIDES, give_central_its_minimum, left_column_width,
                         side_by_side, size_class, unreadable)
from ..panels.charts.charts import ChartsView
from ..panels.compare.compare_view import CompareView
from ..panels.chat.chat_view import ChatView
from ..panels.corpus.corpus_editor import CorpusEditor
from ..panels.encode.encode_view import EncodeView
from ..panels.merge.merge_panel import MergePanel
from ..panels.playback.word_playback import WordPlayback
from ..panels.vocab.vocab_browser import VocabBrowser
from ..panels.settings.settings_panel import SettingsPanel
from ..widgets.scrolled import scrolled
from ..widgets.visibility import on_screen
from ..widgets.wheel_guard import guard_wheel

STATE_VERSION = 1
COMPACT_BELOW = 720   # screens shorter than this: the merge panel is compact
TIGHT_BELOW = 650     # and shorter than this (800x600): only its minimum height
# screens up to this height (1920x1080, 1920x1200 and smaller) open the window maximized:
# a window of 1760x940 on 1920x1080 left a border of unused screen and gave the Training
# settings dock a scroll bar
FILL_BELOW = 1300
BESIDE_FROM = 1800   # windows this wide: the settings beside the corpus (the middle keeps
                     # about 700 pixels; at 1440 it would have been squeezed to its minimum)
REFIT_AFTER_MS = 150  # a window being resized: the docks are refitted once it rests


class DockLayout:
    """Panels in docks: built, laid out by default, remembered, reset."""

    def __init__(self, window: QMainWindow, controller: Controller, settings: QSettings, recent,
                 open_paths: Callable[[Sequence[str]], object]):
        self.window, self.controller, self.settings = window, controller, settings
        self.fill_screen = False   # a small screen: app.main shows the window maximized
        self._shown_once = False
        self._state_restored = False
        self._default_state = QByteArray()
        # focus mode: (dock, its area, central, state, the window's size then)
        self._focus: tuple | None = None
        # the window's size class (layout_fit.size_class) and each class's arrangement as
        # last left (save_layout keeps them): a small window's docks never come back on a
        # big one
        self._class = ""
        self._states: dict[str, QByteArray] = {}
        # the window made narrower than the corpus and the settings side by side need:
        # they were put in tabs (and go back beside each other when it is wide again)
        self._auto_tabbed = False
        self._fitted_width = self._fitted_height = 0   # the window's size when the docks
        #                                                 were last fitted to it
        self._refit = QTimer(window)
        self._refit.setSingleShot(True)
        self._refit.setInterval(REFIT_AFTER_MS)
        self._refit.timeout.connect(self.fit_to_size)
        # told when focus mode goes on (the dock) or off (None): the window's action and
        # the panels' buttons follow (ActionsAndMenus.focus_changed, set by the window)
        self.focus_changed: Callable[[QDockWidget | None], None] = lambda _dock: None
        c, w = controller, window
        self.merge_panel = MergePanel(c, w)
        # a short screen: the last merge and the timeline as tabs, the docks below get
        # the height (issue 30: a sliver of an encode view at 800x600)
        self.merge_panel.set_compact(self._screen_height() < COMPACT_BELOW)
        central = scrolled(self.merge_panel)
        # (not its scroll bars' minimum: a tall panel below leaves it the row of controls)
        central.setMinimumHeight(1)
        w.setCentralWidget(central)
        self.editor = CorpusEditor(c, w, recent=recent)
        self.settings_panel = SettingsPanel(c, w)
        self.encode_view = EncodeView(c, w)
        self.vocab_browser = VocabBrowser(c, w)
        self.charts_view = ChartsView(c, w)
        self.compare_view = CompareView(c, w)
        self.chat_view = ChatView(c, w)
        self.corpus_dock = self._dock("Corpus", "corpusDock", self.editor,
                                      Qt.DockWidgetArea.LeftDockWidgetArea)
        self.settings_dock = self._dock("Training settings", "settingsDock", self.settings_panel,
                                        Qt.DockWidgetArea.LeftDockWidgetArea)
        self.encode_on_right = self._room_for_encode_on_right()
        self.encode_dock = self._dock("Encode", "encodeDock", self.encode_view,
                                      Qt.DockWidgetArea.RightDockWidgetArea if self.encode_on_right
                                      else Qt.DockWidgetArea.BottomDockWidgetArea)
        self.vocab_dock = self._dock("Vocabulary", "vocabDock", self.vocab_browser,
                                     Qt.DockWidgetArea.BottomDockWidgetArea)
        self.charts_dock = self._dock("Charts", "chartsDock", self.charts_view,
                                      Qt.DockWidgetArea.BottomDockWidgetArea)
        self.compare_dock = self._dock("Compare", "compareDock", self.compare_view,
                                       Qt.DockWidgetArea.BottomDockWidgetArea)
        if not self.encode_on_right:
            w.tabifyDockWidget(self.encode_dock, self.vocab_dock)
        w.tabifyDockWidget(self.vocab_dock, self.charts_dock)
        w.tabifyDockWidget(self.charts_dock, self.compare_dock)
        self.chat_dock = self._dock("Chat", "chatDock", self.chat_view,
                                    Qt.DockWidgetArea.BottomDockWidgetArea)
        w.tabifyDockWidget(self.compare_dock, self.chat_dock)
        (self.vocab_dock if self.encode_on_right else self.encode_dock).raise_()
        # a wide screen: the training settings beside the corpus, each the whole height
        # (one above the other, the settings needed a scroll bar at 1920x1080)
        self.settings_beside = self._room_for_settings_beside()
        if self.settings_beside:
            w.splitDockWidget(self.corpus_dock, self.settings_dock, Qt.Orientation.Horizontal)
        if self._short_screen():
            # Not enough height for corpus and settings one above the other: tabs (before
            # the playback dock joins them, or Qt splits the group).
            w.tabifyDockWidget(self.corpus_dock, self.settings_dock)
        self._add_playback_dock()
        if self._short_screen():
            self.corpus_dock.raise_()
        if hasattr(self.merge_panel, "use_window_toolbar"):
            self.merge_panel.use_window_toolbar()   # Step, Train, Cancel are in the toolbar
        w.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        w.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.editor.pathsRequested.connect(open_paths)
        self.encode_view.focusRequested.connect(lambda: self.toggle_focus(self.encode_dock))
        self.compare_view.focusRequested.connect(lambda: self.toggle_focus(self.compare_dock))
        # a short screen: the vocabulary, Compare and Charts, in front below, take the
        # merge panel's height but its row of controls (their tables and charts need
        # the rows a dock of a third of the height cannot give); another tab in front
        # gives it back
        self.tall_docks = (self.vocab_dock, self.charts_dock, self.compare_dock, self.chat_dock)
        self._front_below: QDockWidget | None = None
        self._height_before_tall: int | None = None   # the docks below before they grew
        for dock in (self.encode_dock, *self.tall_docks):
            dock.visibilityChanged.connect(
                lambda shown, d=dock: self._front_changed(d) if shown else None)
        words = getattr(self.encode_view, "words", None)
        if words is not None:
            words.toggle.toggled.connect(lambda _on: self.refit_below())
        self.encode_view.needsChanged.connect(self.refit_below)
        guard_wheel(w)   # the wheel scrolls the docks; it changes only a focused control

    def _add_playback_dock(self) -> None:
        """Word playback (issue 15): never in the encode view's tab group, so a click on a
        word brings it up without hiding the text. Below the encode view on the right;
        beside the bottom tabs when they have room for both; else a tab of the left
        column, behind the training settings."""
        self.playback_view = WordPlayback(self.controller, self.window)
        beside = self._default_size()[0] - 440 >= (self.encode_view.minimumSizeHint().width()
                                                   + self.playback_view.sizeHint().width())
        areas = Qt.DockWidgetArea
        area = areas.RightDockWidgetArea if self.encode_on_right else \
            areas.BottomDockWidgetArea if beside else areas.LeftDockWidgetArea
        self.playback_dock = self._dock("Word playback", "playbackDock", self.playback_view, area)
        if self.encode_on_right:
            self.window.splitDockWidget(self.encode_dock, self.playback_dock,
                                        Qt.Orientation.Vertical)
        elif not beside:
            self.window.tabifyDockWidget(self.settings_dock, self.playback_dock)
            self.settings_dock.raise_()
        words = getattr(self.encode_view, "words", None)
        if words is not None and hasattr(self.playback_view, "show_word"):
            words.wordClicked.connect(self.playback_view.show_word)
            words.wordRecut.connect(self.playback_view.show_word)
            words.wordGone.connect(self.playback_view.let_go)
            words.wordClicked.connect(lambda _w: self._bring_up(self.playback_dock))

    @staticmethod
    def _bring_up(dock: QDockWidget) -> None:
        dock.show()
        dock.raise_()

    def _width_for_encode_on_right(self) -> int:
        # the docks below the merge panel share its width: the widest of them counts
        middle = max(w.minimumSizeHint().width() for w in (
            self.merge_panel, self.vocab_browser, self.charts_view, self.compare_view))
        return middle + sum(w.minimumSizeHint().width()
                            for w in (self.encode_view, self.editor)) + 260

    def _default_size(self) -> tuple[int, int]:
        screen = QApplication.primaryScreen()
        avail = screen.availableGeometry() if screen is not None else None
        if avail is None:
            return 1500, 940
        if avail.height() < FILL_BELOW:   # every pixel counts: the window is maximized
            return avail.width(), avail.height()
        w = min(int(avail.width() * 0.9), max(1760, self._width_for_encode_on_right()))
        return w, int(avail.height() * 0.9)

    @staticmethod
    def _screen_height() -> int:
        screen = QApplication.primaryScreen()
        return screen.availableGeometry().height() if screen is not None else 10_000

    def _fit_height(self) -> int:
        """The screen's height, or the window's when it is shorter (800x600 on a
        1920x1080 screen is laid out as on an 800x600 screen)."""
        h = self._screen_height()
        return min(h, self.window.height() + 30) if self._shown_once else h

    def _short_screen(self) -> bool:
        return self._fit_height() < 900

    def _room_for_encode_on_right(self, width: int = 0) -> bool:
        """Encode view beside the merge panel when the default window (or one ``width``
        wide) is wide enough for both at their minimum widths; otherwise it is the first
        tab below the merge panel."""
        return not self._short_screen() and \
            (width or self._default_size()[0]) >= self._width_for_encode_on_right()

    def _settings_width(self) -> int:
        return max(340, self.settings_panel.minimumSizeHint().width())

    def _beside_needs(self) -> int:
        """The window width the corpus and the settings side by side need, beside the
        merge panel and the encode view's column at their minimum widths."""
        return self._width_for_encode_on_right() + self._settings_width()

    def _room_for_settings_beside(self) -> bool:
        """Corpus and training settings side by side when the screen is tall and the
        default window has the width for them beside the encode view's column."""
        return self.encode_on_right and \
            self._default_size()[0] >= max(BESIDE_FROM, self._beside_needs())

    def _default_widths(self, w: int, beside: bool | None = None
                        ) -> tuple[list[QDockWidget], list[int]]:
        """The docks at the sides and their widths in the default layout of a window
        ``w`` pixels wide (``beside``: with the settings beside the corpus or not; default
        as the layout was built)."""
        win = self.window
        beside = self.settings_beside if beside is None else beside
        side = max(300, min(440, int(w * 0.24)))
        if not self.encode_on_right:
            return [self.corpus_dock], [left_column_width(win, side, w)]
        right = max(side, self.encode_view.minimumSizeHint().width())
        spare = w - right - self.merge_panel.minimumSizeHint().width() - 40
        if beside:   # two columns on the left: narrower ones
            spare -= self._settings_width()
            side = min(side, max(300, int(w * 0.18)))
        side = max(self.editor.minimumSizeHint().width(), min(side, spare))
        docks, sizes = [self.corpus_dock, self.encode_dock], [side, right]
        if beside:
            docks.insert(1, self.settings_dock)
            sizes.insert(1, self._settings_width())
        return docks, sizes

    def _default_dock_sizes(self) -> None:
        """Sizes of the default layout, relative to the window (needs it laid out)."""
        win = self.window
        w, h = max(win.width(), 900), max(win.height(), 600)
        win.resizeDocks(*self._default_widths(w), Qt.Orientation.Horizontal)
        self._fitted_width, self._fitted_height = win.width(), win.height()
        # the training settings whole when the corpus keeps room for a dozen lines
        # (at 1920x1080, 58% of the height left the settings a scroll bar)
        if not self.settings_beside:
            settings = max(int(h * 0.58), self.settings_panel.sizeHint().height() + 40)
            corpus = max(h - settings, self.editor.minimumSizeHint().height()
                         + 12 * self.editor.fontMetrics().lineSpacing())
            win.resizeDocks([self.corpus_dock, self.settings_dock], [corpus, h - corpus],
                            Qt.Orientation.Vertical)
        # 0.45 on the right too: at 0.33 Compare's results were below the fold at 1920x1080
        # and at 0.4 its two texts showed about two lines (issue 30);
        # a short screen's compact merge panel leaves 0.45 to the docks below (the encode
        # view first), of which the panel takes back what its minimum needs
        win.resizeDocks([self._bottom()], [int(h * self._below_share())], Qt.Orientation.Vertical)
        QTimer.singleShot(0, win, self._fit_central)

    def _below_share(self) -> float:
        """The share of the window's height the docks below the merge panel get."""
        return 0.45 if not self._short_screen() or self.merge_panel.compact else 0.3

    def _bottom(self) -> QDockWidget:
        """The dock below the merge panel that sizes its tab group (Qt sizes a group
        through the dock in front of it; a tab behind keeps the height it had there, and
        a fit counted from it took the merge panel's height: 66 px at 1134x612)."""
        return self._front() or (self.vocab_dock if self.encode_on_right else self.encode_dock)

    def _front(self) -> QDockWidget | None:
        """The dock in front below the merge panel (docked there, its tab in front)."""
        front = self._front_below
        return front if front is not None and not front.isFloating() and on_screen(front) \
            and self.window.dockWidgetArea(front) == Qt.DockWidgetArea.BottomDockWidgetArea \
            else None

    def _front_changed(self, dock: QDockWidget) -> None:
        """A dock of the group below the merge panel came to the front."""
        if dock.isFloating() or self.window.dockWidgetArea(dock) != \
                Qt.DockWidgetArea.BottomDockWidgetArea:
            return
        self._front_below = dock
        QTimer.singleShot(0, self.window, self._fit_central)

    def tall_in_front(self) -> bool:
        """A short screen with the vocabulary, Compare or Charts in front below the merge
        panel: they get the height (their two panes, their charts' second row need it)."""
        return self._short_screen() and self._focus is None and self._front() in self.tall_docks

    def _bar_of(self, dock: QDockWidget) -> int:
        """The height of the tab bar of ``dock``'s group (outside the dock; resizeDocks
        sizes a group with it)."""
        return next((t.height() for t in self.window.findChildren(QTabBar) if t.isVisible()
                     and any(t.tabText(i) == dock.windowTitle() for i in range(t.count()))), 0)

    def _grow_tall_front(self) -> None:
        """The dock in front below as tall as the window allows, the merge panel left
        its row of controls (it scrolls for the rest)."""
        win, front = self.window, self._front_below
        scroll = win.centralWidget()
        if front is None or not isinstance(scroll, QScrollArea):
            return
        spare = scroll.height() - self.merge_panel.controls_height()
        if spare > 1:
            if self._height_before_tall is None:
                self._height_before_tall = front.height()
            win.resizeDocks([front], [front.height() + spare + self._bar_of(front)],
                            Qt.Orientation.Vertical)

    def _grow_front_to_minimum(self) -> bool:
        """A short screen: the panel in front below at least its minimum height, taken
        from the merge panel, which keeps its row of controls (Words mode's rules and
        legend pushed the encode view's ids out of sight at 800x600). True if it moved."""
        win, front = self.window, self._front()
        scroll = win.centralWidget()
        if front is None or not self._short_screen() or self._focus is not None or \
                not isinstance(scroll, QScrollArea):
            return False
        short = self._front_floor() - front.height()
        spare = scroll.height() - self.merge_panel.controls_height()
        grow = min(short, spare)
        if grow <= 0:
            return False
        win.resizeDocks([front], [front.height() + grow + self._bar_of(front)],
                        Qt.Orientation.Vertical)
        return True

    def _front_floor(self) -> int:
        """On a short screen, the height of the dock in front below at which its panel
        has its minimum height, when the panel asks for it (the encode view in Words
        mode: wants_its_minimum); else 0, and the merge panel's minimum comes first."""
        front = self._front()
        if front is None or not self._short_screen():
            return 0
        area = front.widget()
        if not isinstance(area, QScrollArea):
            return 0
        inner = area.widget()
        if inner is None or not getattr(inner, "wants_its_minimum", lambda: False)():
            return 0
        return front.height() + inner.minimumSizeHint().height() - area.viewport().height()

    def refit_below(self) -> None:
        """A panel below changed what it needs (Words mode on or off): fit again."""
        QTimer.singleShot(0, self.window, self._fit_central)

    def _fit_central(self, passes: int = 3) -> None:
        """The merge panel at least its minimum height, from the docks below (a pass
        more while they moved: their tab bar is outside them); with Compare or Charts in
        front below on a short screen, the docks below the height instead."""
        win = self.window
        if self.tall_in_front():
            self._grow_tall_front()
            return
        before, self._height_before_tall = self._height_before_tall, None
        front = self._front_below
        if before is not None and front is not None and self._focus is None \
                and not front.isFloating() and \
                win.dockWidgetArea(front) == Qt.DockWidgetArea.BottomDockWidgetArea:
            # another tab in front: the docks below as they were before they grew
            win.resizeDocks([front], [before + self._bar_of(front)], Qt.Orientation.Vertical)
            QTimer.singleShot(0, win, lambda: self._fit_central(passes))   # once laid out
            return
        if self._grow_front_to_minimum():
            return
        if give_central_its_minimum(win, self.merge_panel, self._bottom(),
                                    exactly=self._fit_height() < TIGHT_BELOW,
                                    floor=max(self._front_floor(), READABLE[1])) \
                and passes > 1:
            QTimer.singleShot(0, win, lambda: self._fit_central(passes - 1))

    def shown(self) -> None:
        """The window's showEvent: the default sizes once it is first laid out."""
        if not self._shown_once:
            self._shown_once = True
            # (a remembered layout: as it was)
            self._fitted_width, self._fitted_height = self.window.width(), self.window.height()
            if not self._state_restored:
                self._default_dock_sizes()
            else:   # (a remembered layout that leaves a panel unreadable: the default)
                QTimer.singleShot(0, self.window, self._keep_readable)

    def resized(self) -> None:
        """The window's resizeEvent."""
        win = self.window
        if self.fill_screen and self._shown_once and not self._state_restored and \
                size_class(win.width(), win.height()) == self._class:
            # the window manager maximized the window after it was shown: the default
            # dock sizes are relative to the window, so set them again (once; a window
            # shown at the screen's size is not maximized again, and the user's first
            # resize, to 800x600, was taken for it: the docks kept 1920x1080's layout)
            self.fill_screen = False
            self._default_dock_sizes()
        elif self._shown_once and self._focus is None:
            self.fill_screen = False
            self._refit.start()   # (again at each step of a drag: once it rests)

    def fit_to_size(self) -> None:
        """The docks after the window changed size (a window of 1920x1080 made 1024x700,
        or back): the corpus and the training settings in tabs when the window is
        narrower than the two side by side need (at 1024 the corpus was squeezed to 83
        pixels and the settings cut off), beside each other again when it is wide enough
        (if they were put in tabs here); when the window grew, the docks at the sides get
        back the width the default layout gives them (Qt gives all of it to the middle:
        they stayed squeezed until View > Reset layout); and the merge panel its minimum
        height, as in the default layout."""
        win = self.window
        if self._focus is not None or not self._shown_once:
            return
        cls = size_class(win.width(), win.height())
        # a short window: the merge panel compact, as on a short screen (issue 30)
        self.merge_panel.set_compact(self._fit_height() < COMPACT_BELOW)
        if cls != self._class:   # another size class: its own layout, else its default
            self._class = cls
            state = self._states.get(cls) or self.settings.value(f"layouts/{cls}/windowState")
            if isinstance(state, QByteArray) and not state.isEmpty() and \
                    win.restoreState(state, STATE_VERSION):
                self._fitted_width, self._fitted_height = win.width(), win.height()
            else:
                self.reset_layout()   # (then fitted below, as the window it is now)
        corpus, settings = self.corpus_dock, self.settings_dock
        left = Qt.DockWidgetArea.LeftDockWidgetArea
        docked = all(d.isVisible() and not d.isFloating() and win.dockWidgetArea(d) == left
                     for d in (corpus, settings))
        tabbed = settings in win.tabifiedDockWidgets(corpus)
        need = self._beside_needs()
        if docked and not tabbed and win.width() < need and side_by_side(win, corpus, settings):
            focus = QApplication.focusWidget()
            front = settings if focus is not None and settings.isAncestorOf(focus) else corpus
            win.tabifyDockWidget(corpus, settings)
            front.raise_()
            self._auto_tabbed = True
            # one column now: as wide as the default layout's left column at this width
            QTimer.singleShot(0, win, lambda: self._resize_sides(narrow_only=False))
        elif self._auto_tabbed and tabbed and win.width() >= max(BESIDE_FROM, need):
            # (splitDockWidget on a dock in a tab group only adds another tab)
            win.removeDockWidget(settings)
            win.addDockWidget(left, settings)
            win.splitDockWidget(corpus, settings, Qt.Orientation.Horizontal)
            corpus.show()
            settings.show()
            self._auto_tabbed = False
            QTimer.singleShot(0, win, lambda: self._resize_sides(narrow_only=False))
        else:
            if self._auto_tabbed and not tabbed:
                self._auto_tabbed = False   # the user moved them: theirs now
            if win.width() > self._fitted_width:
                QTimer.singleShot(0, win, self._resize_sides)
        self._fitted_width = win.width()
        if win.height() > self._fitted_height:
            QTimer.singleShot(0, win, self._resize_bottom)
        else:   # (a lower window: the docks below give the merge panel its minimum)
            QTimer.singleShot(0, win, self._fit_central)
        QTimer.singleShot(0, win, self._keep_readable)   # (after the fits posted above)
        self._fitted_height = win.height()

    def _keep_readable(self) -> None:
        """A layout that leaves a panel in sight below its minimum readable size gives
        way to the default for this size (View > Reset layout's); the layout is then
        this size class's."""
        if self._focus is not None:
            return
        if self.unreadable():
            self.reset_layout()
        self._states[self._class] = self.window.saveState(STATE_VERSION)

    def unreadable(self) -> list[QWidget]:
        """The panels in sight below their minimum readable size (layout_fit's; on a
        short screen, a tall panel in front below leaves the merge panel its row of
        controls on purpose)."""
        return unreadable(self.window, self.docks(),
                          self.merge_panel.controls_height() if self.tall_in_front() else None)

    def _narrow_default(self) -> None:
        """The default layout of a wide screen in a narrow window: as a small screen's
        default has them, the right column's docks join the tabs below the merge panel
        (the encode view in front) and the corpus and the settings are tabs."""
        win, areas = self.window, Qt.DockWidgetArea
        for dock in (self.encode_dock, self.playback_dock):
            if win.dockWidgetArea(dock) == areas.RightDockWidgetArea:
                win.removeDockWidget(dock)
                win.addDockWidget(areas.BottomDockWidgetArea, dock)
                win.tabifyDockWidget(self.vocab_dock, dock)
                dock.show()
        if self.settings_dock not in win.tabifiedDockWidgets(self.corpus_dock):
            win.tabifyDockWidget(self.corpus_dock, self.settings_dock)
        self.encode_dock.raise_()
        self.merge_panel.set_compact(self._fit_height() < COMPACT_BELOW)
        self._default_dock_sizes()

    def _resize_bottom(self) -> None:
        """The window grew taller: the docks below the merge panel get back their share
        of the height when they have less (at 800x600 they gave the merge panel its
        minimum, and Qt gave a taller window's height to the merge panel alone); then the
        merge panel its minimum again."""
        win, front = self.window, self._front()
        want = int(max(win.height(), 600) * self._below_share())
        if front is not None and front.height() < want:
            win.resizeDocks([front], [want], Qt.Orientation.Vertical)
        QTimer.singleShot(0, win, self._fit_central)

    def _resize_sides(self, narrow_only: bool = True) -> None:
        """The docks at the sides as wide as the default layout makes them at the window's
        width (``narrow_only``: only those narrower; wider ones stay as the user made
        them), taking the width from or giving it to the middle."""
        win = self.window
        beside = side_by_side(win, self.corpus_dock, self.settings_dock)
        docks, sizes = self._default_widths(win.width(), beside)
        grow = [(d, size) for d, size in zip(docks, sizes) if d.isVisible() and
                not d.isFloating() and win.dockWidgetArea(d) in SIDES and
                (d.width() < size or not narrow_only)]
        if grow:
            win.resizeDocks([d for d, _ in grow], [size for _, size in grow],
                            Qt.Orientation.Horizontal)

    def docks(self) -> list[QDockWidget]:
        return [self.corpus_dock, self.settings_dock, self.encode_dock, self.vocab_dock,
                self.charts_dock, self.compare_dock, self.chat_dock, self.playback_dock]

    def _dock(self, title: str, name: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self.window)
        dock.setObjectName(name)
        dock.setWidget(scrolled(widget))
        feature = QDockWidget.DockWidgetFeature
        dock.setFeatures(feature.DockWidgetMovable | feature.DockWidgetFloatable
                         | feature.DockWidgetClosable)
        self.window.addDockWidget(area, dock)
        if hasattr(widget, "catch_up"):
            # A dock tab coming to the front was never hidden (see widgets/visibility.py):
            # let its panel do the work it skipped, once the dock has its geometry.
            dock.visibilityChanged.connect(
                lambda shown: shown and QTimer.singleShot(0, widget, widget.catch_up))
        return dock

    def keep_default(self) -> None:
        """The arrangement as built (docks and toolbars): what Reset layout goes back to."""
        self._default_state = self.window.saveState(STATE_VERSION)

    def reset_layout(self) -> None:
        self.unfocus()
        for dock in self.docks():
            dock.setFloating(False)
            dock.show()
        self.window.restoreState(self._default_state, STATE_VERSION)
        self._auto_tabbed = False
        self._default_dock_sizes()
        if self._shown_once and (self.unreadable() or self.encode_on_right and
                                 not self._room_for_encode_on_right(self.window.width())):
            self._narrow_default()   # a wide screen's, made narrow or short

    # ----- focus: the panel in use gets the whole window -----------------------------------
    @property
    def focused(self) -> QDockWidget | None:
        """The dock whose panel has the window (focus mode), or None."""
        return self._focus[0] if self._focus is not None else None

    def dock_in_use(self) -> QDockWidget:
        """The dock holding the keyboard focus (a floating one counts), else the encode
        view's."""
        w = QApplication.focusWidget()
        for dock in self.docks():
            if w is not None and dock.isAncestorOf(w) and not dock.isFloating():
                return dock
        return self.encode_dock

    def toggle_focus(self, dock: QDockWidget | None = None) -> bool:
        """Focus mode on (for ``dock``, default the dock in use) or off again; True if on.

        The panel takes the merge panel's place and every dock is hidden (the toolbar
        stays: Step, Train and the step keys work as before, and the panel follows); off,
        the window is as it was. At 800x600 the Encode dock opened as a sliver and at
        1024x700 the docks below showed about 4 rows (issue 30): one key gives the panel
        being read the whole window."""
        if self._focus is not None:
            self.unfocus()
            return False
        win = self.window
        dock = dock or self.dock_in_use()
        state = win.saveState(STATE_VERSION)
        area = dock.widget()
        central = win.takeCentralWidget()
        self._focus = (dock, area, central, state, win.size())
        win.setCentralWidget(area)   # (the dock gives its scroll area up)
        for d in self.docks():
            d.hide()
        self.focus_changed(dock)
        return True

    def unfocus(self) -> None:
        """Focus mode off: the panel back in its dock, the window as it was."""
        if self._focus is None:
            return
        win = self.window
        dock, area, central, state, size = self._focus
        self._focus = None
        win.takeCentralWidget()
        dock.setWidget(area)
        win.setCentralWidget(central)
        win.restoreState(state, STATE_VERSION)
        # again once the merge panel is laid out in its place: the sizes restored with
        # it missing were the docks' alone (the merge panel came back squeezed)
        QTimer.singleShot(0, win, lambda: self._focus is None and win.restoreState(
            state, STATE_VERSION))
        if size != win.size():   # resized meanwhile: fitted to the size it has now
            QTimer.singleShot(0, win, self.fit_to_size)
        self.focus_changed(None)

    @staticmethod
    def _screen_size() -> str:
        """The primary screen's available size, 'WxH' ('' without a screen)."""
        screen = QApplication.primaryScreen()
        if screen is None:
            return ""
        avail = screen.availableGeometry()
        return f"{avail.width()}x{avail.height()}"

    def restore_layout(self) -> None:
        """The window's size kept for this screen's size (save_layout; another screen's,
        a laptop taken off its monitor, would not fit: this screen's default instead),
        and the docks kept for the window's size class (a layout saved before classes:
        the one kept for this screen, or before that, the one kept at all)."""
        win = self.window
        s = self.settings
        key = f"layouts/{self._screen_size() or 'any'}"
        geom = s.value(f"{key}/geometry")
        if geom is None and s.value(f"{key}/windowState") is None:   # an older file
            saved_on = str(s.value("geometryScreen", ""))   # '': saved before that rule
            geom = s.value("geometry") if saved_on in ("", self._screen_size()) else None
        if isinstance(geom, QByteArray) and not geom.isEmpty():
            win.restoreGeometry(geom)
        else:
            win.resize(*self._default_size())
            self.fill_screen = self._screen_height() < FILL_BELOW   # app.main maximizes it
        if self.fill_screen:
            w, h = self._default_size()
        else:
            w, h = win.width(), win.height()
        self._class = cls = size_class(w, h)
        here = f"layouts/{cls}"
        if s.value(f"{here}/windowState") is None:
            here = key if s.value(f"{key}/windowState") is not None else ""
        state = s.value(f"{here}/windowState" if here else "windowState")
        if isinstance(state, QByteArray) and not state.isEmpty():
            self._state_restored = win.restoreState(state, STATE_VERSION)
            # tabs made for a narrow window go back beside each other in a wide one, after
            # a restart too
            self._auto_tabbed = self._state_restored and \
                str(s.value(f"{here}/autoTabbed", "false")).lower() == "true"

    def save_layout(self) -> None:
        """The window's geometry, kept for this screen's size, and its docks, kept for
        its size class with those of the other classes it had this session: a layout
        made at 800x600 does not come back on a maximized 1920x1080 window, and back
        (in focus mode, the layout around it)."""
        win = self.window
        state = self._focus[3] if self._focus is not None else win.saveState(STATE_VERSION)
        cls = self._class or size_class(win.width(), win.height())
        self._states[cls] = state
        self.settings.setValue(f"layouts/{self._screen_size() or 'any'}/geometry",
                               win.saveGeometry())
        for name, kept in self._states.items():
            self.settings.setValue(f"layouts/{name}/windowState", kept)
        self.settings.setValue(f"layouts/{cls}/autoTabbed", self._auto_tabbed)
        for old in ("geometry", "geometryScreen", "windowState"):   # before per-size keys
            self.settings.remove(old)
        self.settings.remove(f"layouts/{self._screen_size() or 'any'}/windowState")
        self.settings.sync()
