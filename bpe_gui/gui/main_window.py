"""The main window: docks and tabs, menus and shortcuts, status bar, remembered layout.

Wiring only: the panels do their own work through the controller. Layout: the merge
step panel in the middle; corpus editor and training settings docked on the left, the
encode view on the right, the vocabulary browser below. Every dock can move, float or
close; the arrangement, window geometry, recent files and theme live in QSettings.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import Sequence

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (QApplication, QDockWidget, QFileDialog, QFrame, QInputDialog,
                               QLabel, QMainWindow, QMessageBox, QProgressBar, QPushButton,
                               QScrollArea, QStyle, QWidget)

from .app import THEMES, app_icon, apply_theme, colors
from .controller import Controller
from .last_folder import last_folder, remember
from .layout_fit import give_central_its_minimum, left_column_width
from .panels.corpus_editor import SESSION_SUFFIX, CorpusEditor, RecentFiles
from .panels.settings_panel import SettingsPanel
from .worker import describe_progress

STATE_VERSION = 1
SESSION_FILTER = f"bpe-gui sessions (*{SESSION_SUFFIX} *.json);;All files (*)"
TOKENIZER_SUFFIXES = {".json", ".tiktoken", ".model"}
AUTOSAVE_NAME = "last-session" + SESSION_SUFFIX
AUTOSAVE_MAX_INLINE = 5_000_000   # characters of edited text the autosave keeps inline


def _load_panel(module: str, cls: str, controller, parent) -> QWidget:
    """A views panel; a placeholder only while its module is still being written."""
    try:
        mod = importlib.import_module(f"bpe_gui.gui.panels.{module}")
    except ModuleNotFoundError as e:
        if e.name != f"bpe_gui.gui.panels.{module}":
            raise
        lab = QLabel(f"{cls} is not available in this build.")
        lab.setAlignment(Qt.AlignCenter)
        return lab
    return getattr(mod, cls)(controller, parent)


class MainWindow(QMainWindow):
    def __init__(self, controller: Controller | None = None, settings: QSettings | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.settings = settings if settings is not None else QSettings()
        self.controller = controller or Controller(self)
        self.recent = RecentFiles(self.settings, parent=self)
        self.last_error: tuple[str, str] | None = None
        self._recorded_paths: list[str] = []
        self._shown_once = False
        self._state_restored = False
        self.setObjectName("MainWindow")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self.setDockOptions(QMainWindow.AnimatedDocks | QMainWindow.AllowTabbedDocks
                            | QMainWindow.AllowNestedDocks)
        self._build_panels()
        self._build_actions()
        self._build_menus()
        self._build_status_bar()
        self._connect()
        self._default_state = self.saveState(STATE_VERSION)
        self.theme = str(self.settings.value("theme", "system"))
        self.set_theme(self.theme, save=False)
        self._restore_layout()
        self._update_title()
        self._update_actions()

    # ----- panels and docks -------------------------------------------------------------
    def _build_panels(self) -> None:
        c = self.controller
        self.merge_panel = _load_panel("merge_panel", "MergePanel", c, self)
        self.setCentralWidget(self._scrollable(self.merge_panel))
        self.editor = CorpusEditor(c, self, recent=self.recent)
        self.settings_panel = SettingsPanel(c, self)
        self.encode_view = _load_panel("encode_view", "EncodeView", c, self)
        self.vocab_browser = _load_panel("vocab_browser", "VocabBrowser", c, self)
        self.charts_view = _load_panel("charts", "ChartsView", c, self)
        self.compare_view = _load_panel("compare_view", "CompareView", c, self)
        self.corpus_dock = self._dock("Corpus", "corpusDock", self.editor, Qt.LeftDockWidgetArea)
        self.settings_dock = self._dock("Training settings", "settingsDock", self.settings_panel,
                                        Qt.LeftDockWidgetArea)
        self.encode_on_right = self._room_for_encode_on_right()
        self.encode_dock = self._dock("Encode", "encodeDock", self.encode_view,
                                      Qt.RightDockWidgetArea if self.encode_on_right
                                      else Qt.BottomDockWidgetArea)
        self.vocab_dock = self._dock("Vocabulary", "vocabDock", self.vocab_browser,
                                     Qt.BottomDockWidgetArea)
        self.charts_dock = self._dock("Charts", "chartsDock", self.charts_view,
                                      Qt.BottomDockWidgetArea)
        self.compare_dock = self._dock("Compare", "compareDock", self.compare_view,
                                       Qt.BottomDockWidgetArea)
        if not self.encode_on_right:
            self.tabifyDockWidget(self.encode_dock, self.vocab_dock)
        self.tabifyDockWidget(self.vocab_dock, self.charts_dock)
        self.tabifyDockWidget(self.charts_dock, self.compare_dock)
        (self.vocab_dock if self.encode_on_right else self.encode_dock).raise_()
        if self._short_screen():
            # Not enough height for corpus and settings one above the other: tabs (before
            # the playback dock joins them, or Qt splits the group).
            self.tabifyDockWidget(self.corpus_dock, self.settings_dock)
        self._add_playback_dock()
        if self._short_screen():
            self.corpus_dock.raise_()
        if hasattr(self.merge_panel, "use_window_toolbar"):
            self.merge_panel.use_window_toolbar()   # Step, Train, Cancel are in the toolbar
        self.setCorner(Qt.BottomLeftCorner, Qt.LeftDockWidgetArea)
        self.setCorner(Qt.BottomRightCorner, Qt.RightDockWidgetArea)
        self.editor.pathsRequested.connect(self.open_paths)
        self.editor.sampleLoaded.connect(self._sample_loaded)

    def _add_playback_dock(self) -> None:
        """Word playback (issue 15): never in the encode view's tab group, so a click on a
        word brings it up without hiding the text. Below the encode view on the right;
        beside the bottom tabs when they have room for both; else a tab of the left
        column, behind the training settings."""
        self.playback_view = _load_panel("word_playback", "WordPlayback", self.controller, self)
        beside = self._default_size()[0] - 440 >= (self.encode_view.minimumSizeHint().width()
                                                   + self.playback_view.sizeHint().width())
        area = Qt.RightDockWidgetArea if self.encode_on_right else \
            Qt.BottomDockWidgetArea if beside else Qt.LeftDockWidgetArea
        self.playback_dock = self._dock("Word playback", "playbackDock", self.playback_view, area)
        if self.encode_on_right:
            self.splitDockWidget(self.encode_dock, self.playback_dock, Qt.Vertical)
        elif not beside:
            self.tabifyDockWidget(self.settings_dock, self.playback_dock)
            self.settings_dock.raise_()
        words = getattr(self.encode_view, "words", None)
        if words is not None and hasattr(self.playback_view, "show_word"):
            words.wordClicked.connect(self.playback_view.show_word)
            words.wordClicked.connect(lambda _w: (self.playback_dock.show(),
                                                  self.playback_dock.raise_()))

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
        if avail.height() < 900:   # a small screen: every pixel counts
            return avail.width(), avail.height()
        w = min(int(avail.width() * 0.95), max(1760, self._width_for_encode_on_right()))
        return w, min(940, int(avail.height() * 0.92))

    @staticmethod
    def _short_screen() -> bool:
        screen = QApplication.primaryScreen()
        return screen is not None and screen.availableGeometry().height() < 900

    def _room_for_encode_on_right(self) -> bool:
        """Encode view beside the merge panel when the default window is wide enough for
        both at their minimum widths; otherwise it is the first tab below the merge panel."""
        return not self._short_screen() and \
            self._default_size()[0] >= self._width_for_encode_on_right()

    def _default_dock_sizes(self) -> None:
        """Sizes of the default layout, relative to the window (needs it laid out)."""
        w, h = max(self.width(), 900), max(self.height(), 600)
        side = max(300, min(440, int(w * 0.24)))
        if self.encode_on_right:
            right = max(side, self.encode_view.minimumSizeHint().width())
            spare = w - right - self.merge_panel.minimumSizeHint().width() - 40
            side = max(self.editor.minimumSizeHint().width(), min(side, spare))
            self.resizeDocks([self.corpus_dock, self.encode_dock], [side, right], Qt.Horizontal)
        else:
            self.resizeDocks([self.corpus_dock], [left_column_width(self, side, w)],
                             Qt.Horizontal)
        self.resizeDocks([self.corpus_dock, self.settings_dock], [int(h * 0.42), int(h * 0.58)],
                         Qt.Vertical)
        below = 0.33 if self.encode_on_right else (0.3 if self._short_screen() else 0.4)
        # Qt sizes a tab group through the dock in front of it
        bottom = self.vocab_dock if self.encode_on_right else self.encode_dock
        self.resizeDocks([bottom], [int(h * below)], Qt.Vertical)
        QTimer.singleShot(0, lambda: give_central_its_minimum(self, bottom))

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            if not self._state_restored:
                self._default_dock_sizes()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.fill_screen and self._shown_once and not self._state_restored:
            # the window manager maximized the window after it was shown: the default
            # dock sizes are relative to the window, so set them again (once)
            self.fill_screen = False
            self._default_dock_sizes()

    @staticmethod
    def _scrollable(widget: QWidget) -> QScrollArea:
        """A panel that scrolls when its area is smaller than its minimum size, so the
        window always fits the screen however the docks are arranged."""
        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.NoFrame)
        area.setWidget(widget)
        return area

    def docks(self) -> list[QDockWidget]:
        return [self.corpus_dock, self.settings_dock, self.encode_dock, self.vocab_dock,
                self.charts_dock, self.compare_dock, self.playback_dock]

    def _dock(self, title: str, name: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(self._scrollable(widget))
        dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable
                         | QDockWidget.DockWidgetClosable)
        self.addDockWidget(area, dock)
        if hasattr(widget, "catch_up"):
            # A dock tab coming to the front was never hidden (see panels/visibility.py):
            # let its panel do the work it skipped, once the dock has its geometry.
            dock.visibilityChanged.connect(
                lambda shown: shown and QTimer.singleShot(0, widget, widget.catch_up))
        return dock

    # ----- actions and menus ------------------------------------------------------------
    def _action(self, text: str, slot, shortcuts: Sequence = (), tip: str = "",
                checkable: bool = False) -> QAction:
        act = QAction(text, self)
        keys = [QKeySequence(k) for k in shortcuts]
        if keys:
            act.setShortcuts(keys)
            act.setShortcutContext(Qt.WindowShortcut)
        if tip:
            shown = ", ".join(k.toString(QKeySequence.NativeText) for k in keys)
            act.setToolTip(f"{tip} ({shown})" if shown else tip)
            act.setStatusTip(tip)
        act.setCheckable(checkable)
        act.triggered.connect(slot)
        self.addAction(act)  # shortcuts work even while the menu bar is hidden
        return act

    def _build_actions(self) -> None:
        c = self.controller
        A = self._action
        self.act_open = A("&Open corpus…", self.editor.open_dialog, [QKeySequence.Open],
                          "Open one or more corpus files")
        self.act_new = A("&New empty corpus", self.editor.new_corpus, [QKeySequence.New],
                         "Start an empty corpus to type or paste into")
        self.act_save_corpus = A("Save corpus &as…", self.editor.save_as_dialog,
                                 ["Ctrl+Shift+S"], "Save the corpus text to a UTF-8 file")
        self.act_open_session = A("Open &session…", self.open_session_dialog, ["Ctrl+Shift+O"],
                                  "Resume a saved session: corpus, settings and step")
        self.act_save_session = A("Save session", self.save_session, [QKeySequence.Save],
                                  "Save corpus reference, settings and step")
        self.act_save_session_as = A("Save session as…", self.save_session_as, [],
                                     "Save the session under a new name")
        self.act_reopen = A("Reopen last session at startup", self._set_reopen, [],
                            "Start where you left off instead of the sample", checkable=True)
        self.act_reopen.setChecked(self.settings.value("reopenLastSession", False, type=bool))
        self.act_import = A("&Import tokenizer…", self.import_dialog, ["Ctrl+I"],
                            "Load vocab.json + merges.txt, tokenizer.json, .tiktoken ...")
        self.act_export = A("&Export…", self.export_dialog, ["Ctrl+E"],
                            "Write the tokenizer as of this step in one or more formats")
        self.act_quit = A("&Quit", self.close, ["Ctrl+Q"], "Quit bpe-gui")
        self.act_quit.setMenuRole(QAction.QuitRole)

        # Alt+arrows and F-keys: text boxes use Ctrl+arrows and Ctrl+Home for editing.
        self.act_step = A("&Step", c.step, ["Alt+Right", "F10"], "Merge the best pair")
        self.act_back = A("Step &back", c.undo, ["Alt+Left", "Shift+F10"],
                          "Undo the last merge")
        self.act_play = A("&Play / Pause", self.toggle_play, ["Ctrl+P"],
                          "Step repeatedly", checkable=True)
        from .training_flow import TrainingFlow
        self.flow = TrainingFlow(self)
        self.act_run, self.act_retrain = self.flow.act_train, self.flow.act_retrain
        self.act_goto = A("Run to step &N…", self.goto_dialog, ["Ctrl+G"],
                          "Run forward or back to a given step")
        self.act_reset = A("&Reset to step 0", c.reset, ["Alt+Home"], "Undo every merge")
        self.act_cancel = A("&Cancel", c.cancel, ["Esc"], "Stop the running job")
        self.act_cancel.setShortcutContext(Qt.ApplicationShortcut)   # also over dialogs/docks
        sp = self.style().standardIcon
        for act, icon in ((self.act_step, QStyle.SP_MediaSeekForward),
                          (self.act_back, QStyle.SP_MediaSeekBackward),
                          (self.act_cancel, QStyle.SP_BrowserStop)):
            act.setIcon(sp(icon))
        self.flow.add_to_toolbar(self.act_back, self.act_step, self.act_cancel)
        self.addToolBar(Qt.TopToolBarArea, self.flow.toolbar)
        self.act_use_imported = A("Encode with &imported tokenizer", c.set_use_imported, [],
                                  "The encode view uses the imported tokenizer", checkable=True)

        self.theme_group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for name in THEMES:
            act = QAction(name.capitalize(), self, checkable=True)
            act.setActionGroup(self.theme_group)
            act.triggered.connect(lambda _=False, n=name: self.set_theme(n))
            self.theme_actions[name] = act
        self.act_reset_layout = A("Reset &layout", self.reset_layout, [],
                                  "Put every panel back where it started")
        self.act_about = A("&About bpe-gui", self.about, [], "About this program")
        self.act_about.setMenuRole(QAction.AboutRole)
        self.act_keys = A("&Keyboard shortcuts", self.show_shortcuts, [QKeySequence.HelpContents],
                          "List the keyboard shortcuts")

    def _build_menus(self) -> None:
        mb = self.menuBar()
        m = mb.addMenu("&File")
        m.addActions([self.act_new, self.act_open])
        self.samples_menu = m.addMenu("Sa&mples")
        self.editor.populate_samples_menu(self.samples_menu)
        self.recent_menu = m.addMenu("&Recent files")
        self.recent_menu.aboutToShow.connect(
            lambda: self.recent.fill_menu(self.recent_menu, self.open_paths))
        self.recent.fill_menu(self.recent_menu, self.open_paths)
        m.addAction(self.act_save_corpus)
        m.addSeparator()
        m.addActions([self.act_open_session, self.act_save_session, self.act_save_session_as,
                      self.act_reopen])
        m.addSeparator()
        m.addActions([self.act_import, self.act_export])
        m.addSeparator()
        m.addAction(self.act_quit)

        m = mb.addMenu("&Training")
        m.addActions([self.act_step, self.act_back, self.act_play, self.act_run, self.act_goto,
                      self.act_reset])
        m.addSeparator()
        m.addActions([self.act_cancel, self.act_retrain])
        m.addSeparator()
        m.addAction(self.act_use_imported)

        m = mb.addMenu("&View")
        for dock in self.docks():
            m.addAction(dock.toggleViewAction())
        m.addSeparator()
        theme = m.addMenu("&Theme")
        theme.addActions(list(self.theme_actions.values()))
        m.addAction(self.act_reset_layout)

        from .dialogs.language_cost import show_language_cost   # issue #14
        mb.addMenu("&Analysis").addAction("Per-language &cost…", lambda: show_language_cost(self))
        m = mb.addMenu("&Help")
        m.addActions([self.act_keys, self.act_about])

    def _build_status_bar(self) -> None:
        sb = self.statusBar()
        self.stale_label = QLabel()
        self.step_label = QLabel()
        self.progress_label = QLabel()
        self.progress_bar = QProgressBar()
        self.progress_bar.setFixedWidth(180)
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the running job (Esc)")
        self.cancel_button.clicked.connect(self.controller.cancel)
        for w in (self.stale_label, self.step_label, self.progress_label, self.progress_bar,
                  self.cancel_button):
            sb.addPermanentWidget(w)
        self._show_busy(False)

    # ----- signals ----------------------------------------------------------------------
    def _connect(self) -> None:
        c = self.controller
        c.errorOccurred.connect(self.show_error)
        c.message.connect(lambda text: self.statusBar().showMessage(text, 10_000))
        c.progress.connect(self._on_progress)
        c.busyChanged.connect(self._show_busy)
        c.busyChanged.connect(lambda _: self._update_actions())
        c.corpusChanged.connect(self._on_corpus_changed)
        c.stepChanged.connect(lambda _: self._on_step())
        c.trainerChanged.connect(self._update_step_label)
        c.targetChanged.connect(self._update_step_label)
        c.livePeek.connect(lambda _: self._update_step_label())
        c.cancelling.connect(lambda label: self.progress_label.setText(f"{label}: cancelling…"))
        c.trainerStale.connect(self._on_stale)
        c.playingChanged.connect(self.act_play.setChecked)
        c.tokenizerChanged.connect(self._update_actions)
        c.notUtf8.connect(self._on_not_utf8)

    def _on_corpus_changed(self) -> None:
        c = self.controller
        self._update_title()
        if c.corpus_paths and not c.corpus_dirty and c.corpus_paths != self._recorded_paths:
            self._recorded_paths = list(c.corpus_paths)
            self.recent.add(c.corpus_paths)

    def _update_title(self) -> None:
        c = self.controller
        if c.corpus_sample and not c.corpus_dirty:
            name = f"sample “{c.corpus_sample}”"
        elif c.corpus_paths:
            name = Path(c.corpus_paths[0]).name + (f" +{len(c.corpus_paths) - 1}"
                                                   if len(c.corpus_paths) > 1 else "")
        else:
            name = "untitled corpus"
        self.setWindowTitle(f"{name}[*] — bpe-gui")
        self.setWindowModified(c.corpus_dirty)

    def _on_stale(self, stale: bool) -> None:
        col = colors(self)
        self.stale_label.setText(f"<span style='color:{col['accent']}'>Changed: retrain "
                                 "(Ctrl+R)</span>" if stale else "")
        self.stale_label.setToolTip("Corpus or settings changed since this training; the "
                                    "next Step retrains from step 0" if stale else "")

    def _on_step(self) -> None:
        self.statusBar().clearMessage()   # "Step 10." or "Target reached" is stale now
        self._update_step_label()

    def _update_step_label(self) -> None:
        c = self.controller
        t = c.trainer
        if t is None or (c.busy and not c.peeking):
            self.step_label.setText("No training yet" if t is None else "")
            return
        target = t.target_steps
        step = f"Step {t.n_steps:,}" + (f" / {target:,}" if target is not None else "")
        self.step_label.setText(f"{step} · vocabulary {t.vocab_size:,} · "
                                f"tie rule: {t.settings.tie_rule}")
        self._update_actions()

    def _update_actions(self) -> None:
        c = self.controller
        busy = c.busy
        for act in (self.act_step, self.act_back, self.act_run, self.act_goto, self.act_reset,
                    self.act_retrain, self.act_export, self.act_open, self.act_open_session,
                    self.act_import, self.act_new):
            act.setEnabled(not busy)
        self.act_cancel.setEnabled(busy)
        self.act_use_imported.setEnabled(c.imported is not None)
        self.act_use_imported.setChecked(c.use_imported)

    def _show_busy(self, busy: bool) -> None:
        if busy:
            self.progress_bar.setRange(0, 0)  # until the first progress report
            self.progress_label.setText(f"{self.controller.jobs.label}…")
        for w in (self.progress_label, self.progress_bar, self.cancel_button):
            w.setVisible(busy)
        self.stale_label.setVisible(not busy)   # "Changed: retrain" while it retrains
        if not busy:
            self._update_step_label()

    def _on_progress(self, label: str, done: int, total: int) -> None:
        if total > 0:
            self.progress_bar.setRange(0, 1000)
            self.progress_bar.setValue(int(1000 * min(done, total) / total))
        self.progress_label.setText(describe_progress(label, done, total,
                                                      self.controller.jobs.unit))

    # ----- errors -----------------------------------------------------------------------
    def show_error(self, title: str, message: str) -> QMessageBox:
        """A message box; unexpected errors (a traceback) go to the details section."""
        self.last_error = (title, message)
        box = QMessageBox(self)
        box.setWindowTitle(title)
        if "Traceback (most recent call last)" in message:
            box.setIcon(QMessageBox.Critical)
            last = message.strip().splitlines()[-1]
            box.setText(f"Something went wrong inside bpe-gui ({last}). Your corpus and settings "
                        "are kept. Please report this with the details below.")
            box.setDetailedText(message)
        else:
            box.setIcon(QMessageBox.Warning)
            box.setText(message)
        box.setStandardButtons(QMessageBox.Ok)
        box.setAttribute(Qt.WA_DeleteOnClose)
        box.open()  # not exec(): jobs and timers keep running behind it
        return box

    def _on_not_utf8(self, paths: list, bad: str, offset: int, message: str) -> None:
        from .dialogs.encoding_dialog import EncodingDialog
        self.last_error = ("Not UTF-8", message)
        dlg = EncodingDialog(list(paths), bad, offset, message, self)
        dlg.setAttribute(Qt.WA_DeleteOnClose)
        dlg.accepted.connect(lambda: self.controller.open_files(list(paths),
                                                                encoding=dlg.encoding()))
        self.encoding_dialog = dlg
        dlg.open()

    # ----- files ------------------------------------------------------------------------
    def open_paths(self, paths: Sequence[str]) -> bool:
        """Open what was dropped or picked: sessions, tokenizer files or corpus files."""
        paths = [str(p) for p in paths if str(p)]
        if not paths:
            return False
        sessions = [p for p in paths if p.endswith(SESSION_SUFFIX)]
        if sessions:
            return self.open_session(sessions[0])
        tokenizers = [p for p in paths if Path(p).is_dir()
                      or Path(p).suffix.lower() in TOKENIZER_SUFFIXES
                      or Path(p).name.lower().endswith("merges.txt")]
        if tokenizers:
            from .dialogs.import_dialog import BACKGROUND_BYTES, _size
            if _size(tokenizers[0]) > BACKGROUND_BYTES:   # progress in the status bar
                return self.controller.import_in_background(tokenizers[0])
            return self.controller.import_tokenizer(tokenizers[0]) is not None
        return self.editor.open_files(paths)

    def dragEnterEvent(self, event) -> None:
        md = event.mimeData()
        if md.hasUrls() and any(u.isLocalFile() for u in md.urls()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event) -> None:
        files = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if files:
            event.acceptProposedAction()
            # after the drop returns, so a message box never runs inside the drag loop
            QTimer.singleShot(0, lambda: self.open_paths(files))
        else:
            super().dropEvent(event)

    def maybe_save_corpus(self) -> bool:
        """Unsaved corpus edits: ask Save / Discard / Cancel. True = go ahead."""
        self.editor.flush()
        c = self.controller
        if not c.corpus_dirty:
            return True
        ans = QMessageBox.question(
            self, "Unsaved corpus",
            "The corpus has edits that are not saved to a file. Save them first?",
            QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        if ans == QMessageBox.Save:   # always through the dialog: it asks before overwriting
            return self.editor.save_as_dialog()
        return ans == QMessageBox.Discard

    # ----- sessions ---------------------------------------------------------------------
    def _encode_text(self) -> str:
        view = self.encode_view
        for name in ("text", "input_text"):
            fn = getattr(view, name, None)
            if callable(fn):
                try:
                    return str(fn())
                except TypeError:
                    pass
        return ""

    def _show_ws(self) -> bool:
        ws = getattr(self.encode_view, "show_ws", None)
        return ws.isChecked() if ws is not None else True

    def _sample_loaded(self, sample) -> None:
        """Offer the sample's example text in the encode view, unless the user typed one."""
        current = self._encode_text()
        if sample.encode_text and (not current.strip() or current == self._sample_encode_text):
            self._set_encode_text(sample.encode_text)
            self._sample_encode_text = sample.encode_text

    _sample_encode_text = ""
    fill_screen = False

    def _set_encode_text(self, text: str) -> None:
        fn = getattr(self.encode_view, "set_text", None)
        if callable(fn) and text:
            fn(text)

    def open_session_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open session", self._session_dir(),
                                              SESSION_FILTER)
        if path:
            remember(path)
            self.open_session(path)

    def open_session(self, path: str) -> bool:
        if not self.maybe_save_corpus():
            return False
        s = self.controller.open_session(path)
        if s is None:
            return False
        self._set_encode_text(s.encode_text)
        ws = getattr(self.encode_view, "show_ws", None)
        if ws is not None:
            ws.setChecked(s.show_whitespace)
        if not path.endswith(AUTOSAVE_NAME):
            self.recent.add([path])
        return True

    def save_session(self) -> bool:
        path = self.controller.session_path
        if not path or path.endswith(AUTOSAVE_NAME):
            return self.save_session_as()
        return self.controller.save_session(path, self._encode_text(), self._show_ws())

    def save_session_as(self) -> bool:
        path, _ = QFileDialog.getSaveFileName(self, "Save session",
                                              str(Path(self._session_dir()) / f"work{SESSION_SUFFIX}"),
                                              SESSION_FILTER)
        if not path:
            return False
        if not path.endswith(SESSION_SUFFIX) and not path.endswith(".json"):
            path += SESSION_SUFFIX
        ok = self.controller.save_session(path, self._encode_text(), self._show_ws())
        if ok:
            remember(path)
            self.recent.add([path])
        return ok

    def _session_dir(self) -> str:
        return last_folder()

    def autosave_path(self) -> Path:
        base = QStandardPaths.writableLocation(QStandardPaths.AppDataLocation)
        return Path(base or Path.home() / ".bpe-gui") / AUTOSAVE_NAME

    def _autosave(self) -> None:
        c = self.controller
        inline = c.corpus_dirty or not c.corpus_paths
        if not c.corpus_text or (inline and len(c.corpus_text) > AUTOSAVE_MAX_INLINE):
            return
        try:
            c.session(self._encode_text(), self._show_ws()).save(self.autosave_path())
        except Exception:  # never block quitting on the autosave
            pass

    def _set_reopen(self, on: bool) -> None:
        self.settings.setValue("reopenLastSession", bool(on))

    def load_initial(self, args: Sequence[str] = ()) -> None:
        """After the window is shown: files from the command line, last session or sample."""
        if args:
            self.open_paths(list(args))
            return
        auto = self.autosave_path()
        if self.act_reopen.isChecked() and auto.exists():
            if self.controller.open_session(str(auto)) is not None:
                return
        from .app import resources
        self.editor.load_sample(resources().default_sample_id())

    # ----- dialogs ----------------------------------------------------------------------
    def export_dialog(self):
        from .dialogs.export_dialog import ExportDialog
        self.editor.flush()
        dlg = ExportDialog(self.controller, self)
        dlg.setAttribute(Qt.WA_DeleteOnClose)
        dlg.open()
        return dlg

    def import_dialog(self):
        from .dialogs.import_dialog import ImportDialog
        dlg = ImportDialog(self.controller, self)
        dlg.setAttribute(Qt.WA_DeleteOnClose)
        dlg.open()
        return dlg

    def goto_dialog(self) -> None:
        c = self.controller
        t = c.trainer
        target = (t.target_steps if t is not None else None) or 1_000_000
        k, ok = QInputDialog.getInt(self, "Run to step", "Go to step (forward or back):",
                                    c.step_index, 0, max(target, c.step_index, 1))
        if ok:
            c.goto(k)

    def toggle_play(self) -> None:
        c = self.controller
        interval = getattr(self.merge_panel, "interval_ms", None)
        c.set_playing(not c.playing, interval() if callable(interval) else None)

    def about(self) -> None:
        QMessageBox.about(self, "About bpe-gui",
                          "<b>bpe-gui</b> shows how a Byte-Pair Encoding tokenizer is trained, "
                          "one merge at a time, and how it cuts text.<br><br>"
                          "The engine is importable on its own: "
                          "<code>from bpe_gui.engine import train_bpe, Tokenizer</code>.")

    def show_shortcuts(self) -> None:
        rows = []
        for act in self.actions():
            keys = ", ".join(k.toString(QKeySequence.NativeText) for k in act.shortcuts())
            if keys:
                rows.append(f"<tr><td>{act.text().replace('&', '')}</td><td><b>{keys}</b></td></tr>")
        QMessageBox.information(self, "Keyboard shortcuts", "<table cellspacing=4>"
                                + "".join(rows) + "</table>")

    # ----- theme and layout -------------------------------------------------------------
    def set_theme(self, name: str, save: bool = True) -> None:
        if name not in THEMES:
            name = "system"
        self.theme = name
        self.theme_actions[name].setChecked(True)
        apply_theme(name)
        self._on_stale(self.controller.stale)
        if save:
            self.settings.setValue("theme", name)

    def reset_layout(self) -> None:
        for dock in self.docks():
            dock.setFloating(False)
            dock.show()
        self.restoreState(self._default_state, STATE_VERSION)
        self._default_dock_sizes()

    def _restore_layout(self) -> None:
        geom = self.settings.value("geometry")
        if isinstance(geom, QByteArray) and not geom.isEmpty():
            self.restoreGeometry(geom)
        else:
            self.resize(*self._default_size())
            self.fill_screen = self._short_screen()   # app.main shows it maximized
        state = self.settings.value("windowState")
        if isinstance(state, QByteArray) and not state.isEmpty():
            self._state_restored = self.restoreState(state, STATE_VERSION)

    def save_layout(self) -> None:
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("windowState", self.saveState(STATE_VERSION))
        self.settings.sync()

    def closeEvent(self, event) -> None:
        if not self.maybe_save_corpus():
            event.ignore()
            return
        self.save_layout()
        self._autosave()
        self.controller.shutdown()
        event.accept()
