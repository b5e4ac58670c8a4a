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
- ``text_keys.py`` the window's Ctrl and Alt shortcuts before a text field's own
                   keys (WindowKeysFirst)

Each part is an attribute of the window (``dock_layout``, ``actions_menus``, ``status``,
``files``, ``sessions``, ``themes``, ``train_on_flow``, ``text_keys``); what it holds is asked of it
(``window.dock_layout.merge_panel``, ``window.actions_menus.acts["step"]``,
``window.status.last_error``). The window itself keeps only Qt's events, the controller
and the settings.
"""
from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow, QWidget

from ..resources import app_icon
from ..controller.controller import Controller
from ..panels.corpus.corpus_editor import RecentFiles
from ..widgets.status_line import StatusLine
from .actions import ActionsAndMenus
from .docks import DockLayout
from .files import Files
from .sessions import RECOVER_KEY, Sessions
from .status import StatusBar
from .text_keys import WindowKeysFirst
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
        self._closing_for_signal = False   # quit_for_signal: no question to answer
        self.setObjectName("MainWindow")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks
                            | QMainWindow.DockOption.AllowTabbedDocks
                            | QMainWindow.DockOption.AllowNestedDocks)
        self.setStatusBar(StatusLine(self))   # messages cut with "…", never run into labels
        self.dock_layout = d = DockLayout(self, self.controller, self.settings, self.recent,
                                          lambda paths: self.files.open_paths(paths))
        self.files = Files(self, self.controller, d.editor,
                           lambda path: self.sessions.open_session(path),
                           lambda title, message: self.status.show_error(title, message),
                           lambda title, message: self.status.note_error(title, message))
        self.sessions = Sessions(self, self.controller, self.settings, self.recent, d.editor,
                                 d.encode_view, d.merge_panel, self.files,
                                 lambda: self.actions_menus.acts["reopen"].isChecked(),
                                 lambda title, message: self.status.show_error(title, message),
                                 d.compare_view)
        d.editor.sampleLoaded.connect(self.sessions.sample_loaded)
        d.editor.ask_to_save = self.files.confirm_replace   # (open, recent, a sample)
        d.editor.confirm_clear = self.files.confirm_clear
        self.controller.training.confirm_drop = self.files.confirm_drop   # (trained steps)
        self.train_on_flow = TrainOnFlow(self, self.controller, d.editor,
                                         lambda title, why: self.status.show_error(title, why))
        self.actions_menus = a = ActionsAndMenus(
            self, self.controller, self.settings, d, self.recent, self.files.open_paths,
            lambda name: self.themes.set(name), self.train_on_flow)
        self.status = StatusBar(self, self.controller, self.recent, a.update_actions)
        self.text_keys = WindowKeysFirst(self)   # Ctrl+E exports from a text field too
        self._connect()
        d.focus_changed = a.focus_changed
        d.keep_default()
        self.themes = ThemeMenu(self.settings, a.theme_actions,
                                lambda: self.status.on_stale(self.controller.stale))
        self.themes.set(self.themes.name, save=False)
        d.restore_layout()
        self.status.update_title()
        a.update_actions()

    def _connect(self) -> None:
        """The controller's signals, to the parts of the window that show them."""
        c = self.controller
        s = self.status
        c.errorOccurred.connect(s.show_error)
        c.message.connect(lambda text: self.statusBar().showMessage(text, 10_000))
        # (a message cut by the labels beside it is whole in its tooltip: StatusLine)
        update = self.actions_menus.update_actions
        c.busyChanged.connect(lambda _: update())
        c.corpusChanged.connect(s.on_corpus_changed)
        s.follow()   # the step, a parity run's turns, a job's progress
        c.cancelling.connect(lambda label: s.progress_label.setText(f"{label}: cancelling…"))
        c.trainerStale.connect(s.on_stale)
        c.playingChanged.connect(self.actions_menus.acts["play"].setChecked)
        c.tokenizerChanged.connect(update)
        c.corpusChanged.connect(update)   # train on needs a corpus
        c.trainerChanged.connect(update)
        c.settingsChanged.connect(lambda _: update())   # (train on: leave)
        c.notUtf8.connect(self.files.on_not_utf8)

    # ----- Qt's events, handed to the parts ---------------------------------------------------
    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.dock_layout.shown()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.dock_layout.resized()

    def dragEnterEvent(self, event) -> None:
        if not self.files.drag_enter(event):
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:
        if not self.files.drag_move(event):
            super().dragMoveEvent(event)

    def dropEvent(self, event) -> None:
        if not self.files.drop(event):
            super().dropEvent(event)

    def quit_for_signal(self) -> None:
        """End the session for SIGTERM or SIGINT (a logout, ``kill``, Ctrl+C in the
        terminal): as File > Quit, but nobody is there to answer a question, so unsaved
        corpus edits are not asked about; they are kept in the autosaved session, which
        the next start opens (see ``Sessions.load_initial``)."""
        self._closing_for_signal = True
        self.close()

    def closeEvent(self, event) -> None:
        self.dock_layout.editor.flush()
        self.files.discarded = False   # (set by this close's question only)
        if self._closing_for_signal:
            self.settings.setValue(RECOVER_KEY, self.controller.corpus_dirty)
        elif not self.files.maybe_save_corpus():
            event.ignore()
            return
        self.dock_layout.save_layout()
        # the running job stopped first: the autosave reads a trainer that holds still
        # (a run to the target kept stepping on the worker thread while it was read)
        self.controller.shutdown()
        self.sessions.autosave(discard_edits=self.files.discarded)
        event.accept()
