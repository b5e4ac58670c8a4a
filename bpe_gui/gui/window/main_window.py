"""The main window: the panels in docks around the merge panel, wired to one controller.

Wiring only: the panels do their own work through the controller. Layout: the merge
step panel in the middle; corpus editor and training settings docked on the left, the
encode view on the right, the vocabulary browser below. Every dock can move, float or
close; the arrangement, window geometry, recent files and theme live in QSettings.

The window is put together from parts in ``gui/window/``, one per concern, each
composed (given what it needs), none mixed in:

- ``docks.py``     panels and docks, the default layout fitted to the screen, the
                   remembered layout, Reset layout (DockLayout)
- ``actions.py``   actions declared as data (ACTIONS, MENUS, TOOLBAR), the menus and
                   shortcuts built from them, and the small dialogs they open
                   (ActionsAndMenus)
- ``status.py``    the status bar (step, progress, Cancel), the title, error boxes
                   (StatusBar; ``_connect`` below wires the controller's signals to it)
- ``files.py``     open and drag-and-drop of sessions, tokenizers and corpora; unsaved
                   edits; the not-UTF-8 dialog (Files)
- ``sessions.py``  session files, the autosave, what opens at start (Sessions)
- ``theme_menu.py`` light / dark / system (ThemeMenu)

The window keeps the names tests and parts look at (``merge_panel``, ``vocab_dock``,
``act_step``, ``flow`` ...) as attributes that point into its parts.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from PySide6.QtCore import QSettings, QStandardPaths
from PySide6.QtWidgets import QMainWindow, QWidget

from ..resources import app_icon
from ..controller.controller import Controller
from ..panels.corpus.corpus_editor import RecentFiles
from ..widgets.status_line import StatusLine
from .actions import ActionsAndMenus, add_action
from .docks import DockLayout
from .files import Files
from .sessions import AUTOSAVE_NAME, RECOVER_KEY, Sessions
from .status import StatusBar
from .theme_menu import ThemeMenu
from .train_on_flow import TrainOnFlow

class MainWindow(QMainWindow):
    """The window: its parts (gui/window/) built in order, then the remembered layout."""

    def __init__(self, controller: Controller | None = None, settings: QSettings | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.settings = settings if settings is not None else QSettings()
        self.controller = controller or Controller(self)
        self.recent = RecentFiles(self.settings, parent=self)
        self.setObjectName("MainWindow")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self.setDockOptions(QMainWindow.AnimatedDocks | QMainWindow.AllowTabbedDocks
                            | QMainWindow.AllowNestedDocks)
        self.setStatusBar(StatusLine(self))   # messages cut with "…", never run into labels
        self.dock_layout = d = DockLayout(self, self.controller, self.settings, self.recent,
                                          self.open_paths)
        self.merge_panel, self.editor, self.settings_panel = (d.merge_panel, d.editor,
                                                              d.settings_panel)
        self.encode_view, self.vocab_browser, self.charts_view = (d.encode_view,
                                                                  d.vocab_browser, d.charts_view)
        self.compare_view, self.playback_view = d.compare_view, d.playback_view
        self.corpus_dock, self.settings_dock, self.encode_dock = (d.corpus_dock, d.settings_dock,
                                                                  d.encode_dock)
        self.vocab_dock, self.charts_dock = d.vocab_dock, d.charts_dock
        self.compare_dock, self.playback_dock = d.compare_dock, d.playback_dock
        self.encode_on_right = d.encode_on_right
        self.files = Files(self, self.controller, self.editor,
                           lambda path: self.sessions.open_session(path),
                           lambda title, message: self.show_error(title, message))
        self.sessions = Sessions(self, self.controller, self.settings, self.recent, self.editor,
                                 self.encode_view, self.merge_panel, self.files,
                                 lambda: self.act_reopen.isChecked(),
                                 lambda title, message: self.show_error(title, message))
        self.editor.sampleLoaded.connect(self.sessions.sample_loaded)
        self.train_on_flow = TrainOnFlow(self, self.controller)
        self.actions_menus = a = ActionsAndMenus(
            self, self.controller, self.settings, self.editor, self.merge_panel, self.recent,
            d.docks(), self.open_paths, lambda name: self.set_theme(name), self.train_on_flow)
        for name, act in a.acts.items():
            setattr(self, f"act_{name}", act)
        self.flow, self.theme_actions = a.flow, a.theme_actions
        self.samples_menu, self.recent_menu = a.samples_menu, a.recent_menu
        self._update_actions = a.update_actions
        self.status = StatusBar(self, self.controller, self.recent, self._update_actions)
        s = self.status   # the parts of the status bar that tests and panels look at
        self.step_label, self.stale_label = s.step_label, s.stale_label
        self.progress_label, self.progress_bar = s.progress_label, s.progress_bar
        self.cancel_button, self.show_error = s.cancel_button, s.show_error
        self._connect()
        d.focusChanged = self._focus_changed
        d.keep_default()
        self.themes = ThemeMenu(self.settings, self.theme_actions,
                                lambda: self.status.on_stale(self.controller.stale))
        self.themes.set(self.themes.name, save=False)
        d.restore_layout()
        self.status.update_title()
        self._update_actions()

    def _connect(self) -> None:
        """The controller's signals, to the parts of the window that show them."""
        c = self.controller
        s = self.status
        c.errorOccurred.connect(s.show_error)
        c.message.connect(lambda text: self.statusBar().showMessage(text, 10_000))
        # (a message cut by the labels beside it is whole in its tooltip: StatusLine)
        c.progress.connect(s.on_progress)
        c.busyChanged.connect(s.show_busy)
        c.busyChanged.connect(lambda _: self._update_actions())
        c.corpusChanged.connect(s.on_corpus_changed)
        c.stepChanged.connect(lambda _: s.on_step())
        c.trainerChanged.connect(s.update_step_label)
        c.targetChanged.connect(s.update_step_label)
        c.livePeek.connect(lambda _: s.update_step_label())
        c.cancelling.connect(lambda label: self.progress_label.setText(f"{label}: cancelling…"))
        c.trainerStale.connect(s.on_stale)
        c.playingChanged.connect(self.act_play.setChecked)
        c.tokenizerChanged.connect(self._update_actions)
        c.corpusChanged.connect(self._update_actions)   # train on needs a corpus
        c.trainerChanged.connect(self._update_actions)
        c.settingsChanged.connect(lambda _: self._update_actions())   # (train on: leave)
        c.notUtf8.connect(self.files.on_not_utf8)

    # ----- layout and actions (docks.py, actions.py) ----------------------------------------
    @property
    def fill_screen(self) -> bool:
        """A small screen: app.main shows the window maximized."""
        return self.dock_layout.fill_screen

    def docks(self) -> list:
        return self.dock_layout.docks()

    def reset_layout(self) -> None:
        self.dock_layout.reset_layout()

    def toggle_focus(self, *_checked) -> bool:
        """Focus mode: the panel in use gets the whole window, or back (docks.py)."""
        return self.dock_layout.toggle_focus()

    def _focus_changed(self, dock) -> None:
        self.act_focus.setChecked(dock is not None)
        self.encode_view.focus_button.setChecked(dock is self.encode_dock)
        self.compare_view.focus_button.setChecked(dock is self.compare_dock)

    def save_layout(self) -> None:
        self.dock_layout.save_layout()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.dock_layout.shown()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.dock_layout.resized()

    def add_action(self, text: str, slot, shortcuts: Sequence = (), tip: str = "",
                   checkable: bool = False):
        """A new action of the window (training_flow.py makes Train and Retrain)."""
        return add_action(self, text, slot, shortcuts, tip, checkable)

    # ----- sessions (sessions.py) ------------------------------------------------------------
    def autosave_path(self) -> Path:
        base = QStandardPaths.writableLocation(QStandardPaths.AppDataLocation)
        return Path(base or Path.home() / ".bpe-gui") / AUTOSAVE_NAME

    def load_initial(self, args: Sequence[str] = ()) -> None:
        """After the window is shown: files from the command line, last session or sample."""
        self.sessions.load_initial(args)

    def open_session(self, path: str) -> bool:
        return self.sessions.open_session(path)

    def open_session_dialog(self) -> None:
        self.sessions.open_dialog()

    def save_session(self) -> bool:
        return self.sessions.save()

    def save_session_as(self) -> bool:
        return self.sessions.save_as()

    # ----- files (files.py) ----------------------------------------------------------------
    def open_paths(self, paths: Sequence[str]) -> bool:
        """Open what was dropped or picked: sessions, tokenizer files or corpus files."""
        return self.files.open_paths(paths)

    def maybe_save_corpus(self) -> bool:
        """Unsaved corpus edits: ask Save / Discard / Cancel. True = go ahead."""
        return self.files.maybe_save_corpus()

    @property
    def encoding_dialog(self):
        return self.files.encoding_dialog

    def dragEnterEvent(self, event) -> None:
        if not self.files.drag_enter(event):
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:
        if not self.files.drag_move(event):
            super().dragMoveEvent(event)

    def dropEvent(self, event) -> None:
        if not self.files.drop(event):
            super().dropEvent(event)

    @property
    def theme(self) -> str:
        return self.themes.name

    def set_theme(self, name: str, save: bool = True) -> None:
        self.themes.set(name, save)

    @property
    def last_error(self) -> tuple[str, str] | None:
        """The last error box's (title, message)."""
        return self.status.last_error

    @last_error.setter
    def last_error(self, value: tuple[str, str] | None) -> None:
        self.status.last_error = value

    def quit_for_signal(self) -> None:
        """End the session for SIGTERM or SIGINT (a logout, ``kill``, Ctrl+C in the
        terminal): as File > Quit, but nobody is there to answer a question, so unsaved
        corpus edits are not asked about; they are kept in the autosaved session, which
        the next start opens (see ``Sessions.load_initial``)."""
        self._closing_for_signal = True
        self.close()

    def closeEvent(self, event) -> None:
        by_signal = getattr(self, "_closing_for_signal", False)
        self.editor.flush()
        if by_signal:
            self.settings.setValue(RECOVER_KEY, self.controller.corpus_dirty)
        elif not self.maybe_save_corpus():
            event.ignore()
            return
        self.save_layout()
        # the running job stopped first: the autosave reads a trainer that holds still
        # (a run to the target kept stepping on the worker thread while it was read)
        self.controller.shutdown()
        self.sessions.autosave()
        event.accept()
