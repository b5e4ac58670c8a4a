"""The main window's actions, menus, keyboard shortcuts and the small dialogs they
open (export, import, run to step N, about, the shortcut list).

:class:`ActionsAndMenus` is a part of :class:`~bpe_gui.gui.main_window.MainWindow` (a
mixin). Every action is made by :meth:`add_action`, which also adds it to the window so
its shortcut works while the menu bar is hidden.
"""
from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (QInputDialog,
                               QMessageBox, QStyle)

from ..theme import THEMES


class ActionsAndMenus:
    """Actions (with shortcuts), menus, and the dialogs they open."""

    def add_action(self, text: str, slot, shortcuts: Sequence = (), tip: str = "",
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
        A = self.add_action
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
        self.act_reopen.setChecked(self.settings.value("reopenLastSession", True, type=bool))
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
        self.act_language_cost = A(
            "Per-language &cost…", self.language_cost_dialog, ["Ctrl+Shift+L"],
            "Tokens per text of several languages, for up to four tokenizers")
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

        mb.addMenu("&Analysis").addAction(self.act_language_cost)
        m = mb.addMenu("&Help")
        m.addActions([self.act_keys, self.act_about])

    def _update_actions(self) -> None:
        """Actions that start work are off while a job runs; Cancel is on then."""
        c = self.controller
        busy = c.busy
        for act in (self.act_step, self.act_back, self.act_run, self.act_goto, self.act_reset,
                    self.act_retrain, self.act_export, self.act_open, self.act_open_session,
                    self.act_import, self.act_new):
            act.setEnabled(not busy)
        self.act_cancel.setEnabled(busy)
        self.act_use_imported.setEnabled(c.imported is not None)
        self.act_use_imported.setChecked(c.use_imported)


    # ----- dialogs ----------------------------------------------------------------------
    def export_dialog(self):
        from ..dialogs.export_dialog import ExportDialog
        self.editor.flush()
        dlg = ExportDialog(self.controller, self)
        dlg.setAttribute(Qt.WA_DeleteOnClose)
        dlg.open()
        return dlg

    def import_dialog(self):
        from ..dialogs.import_dialog import ImportDialog
        dlg = ImportDialog(self.controller, self)
        dlg.setAttribute(Qt.WA_DeleteOnClose)
        dlg.open()
        return dlg

    def language_cost_dialog(self):
        from ..dialogs.language_cost import show_language_cost   # issue #14
        return show_language_cost(self)

    def goto_dialog(self) -> None:
        c = self.controller
        t = c.view()
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
