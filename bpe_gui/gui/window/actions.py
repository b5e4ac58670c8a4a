"""The main window's actions, menus, keyboard shortcuts and the small dialogs they
open (export, import, run to step N, about, the shortcut list).

The actions are declared as data: :data:`ACTIONS` (name, text, handler, shortcuts,
tip, when it is enabled, icon), :data:`MENUS` and :data:`TOOLBAR`; the window's
actions (``acts[name]``), its menus, the training toolbar's extra buttons and which are
enabled while a job runs are all built from them. Help > Keyboard shortcuts lists the
window's actions, so it follows too. Every action is made by :func:`add_action`, which
also adds it to the window so its shortcut works while the menu bar is hidden.

:class:`ActionsAndMenus` is a part of :class:`~bpe_gui.gui.window.main_window.MainWindow`,
composed, not mixed in: it is given the window (the actions' parent, its menu bar and
toolbar, the dialogs' parent, and the handlers that are the window's parts), the
controller, the settings, the dock layout (its corpus editor, merge panel, settings and
docks), the recent-files list, how to open paths and how to set the theme.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from functools import partial
from typing import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, QSettings, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (QDockWidget, QInputDialog, QMainWindow, QMenu, QMessageBox,
                               QStyle)

from ...engine.display import bpe_gui_version
from ...engine.extensions import engine_report
from ..controller.controller import Controller
from ..dialogs.export_dialog import ExportDialog
from ..dialogs.import_dialog import ImportDialog
from ..dialogs.check_dialog import show_check_dialog       # issue #31
from ..dialogs.ids_dialog import show_ids_dialog           # issue #91
from ..dialogs.language_cost import show_language_cost   # issue #14
from ..dialogs.training_mixture import show_training_mixture   # issue #56
from ..dialogs.open_model import show_open_model         # issue #28
from ..theme import THEMES
from ..widgets.title_fit import fit_title
from .docks import DockLayout
from .train_on_flow import TrainOnFlow
from .training_flow import TrainingFlow

IDLE, BUSY, IMPORTED = "idle", "busy", "imported"   # enabled: no job runs / a job runs /
                                                    # a tokenizer was imported
TRAIN_ON, TRAINING_ON = "train_on", "training_on"   # it can train on / the mode is on
                                                    # (window/train_on_flow.py)


@dataclass(frozen=True)
class ActionSpec:
    """One action of the window: ``acts[name]``; ``handler`` names a method of
    :class:`ActionsAndMenus` (the dialogs) or of one of its parts ("controller.step",
    "editor.open_dialog"), else of the window or one of the window's parts
    ("sessions.save", "close")."""

    name: str
    text: str
    handler: str
    keys: tuple = ()
    tip: str = ""
    when: str = ""          # IDLE, BUSY, IMPORTED, or "" (always enabled)
    checkable: bool = False
    icon: QStyle.StandardPixmap | None = None


# Alt+arrows and F-keys for stepping: text boxes use Ctrl+arrows and Ctrl+Home for editing.
ACTIONS = (
    ActionSpec("open", "&Open corpus…", "editor.open_dialog", (QKeySequence.StandardKey.Open,),
               "Open one or more corpus files", IDLE),
    ActionSpec("new", "&New empty corpus", "editor.new_corpus", (QKeySequence.StandardKey.New,),
               "Start an empty corpus to type or paste into", IDLE),
    ActionSpec("save_corpus", "Save corpus &as…", "editor.save_as_dialog", ("Ctrl+Shift+S",),
               "Save the corpus text to a UTF-8 file"),
    ActionSpec("open_session", "Open &session…", "sessions.open_dialog", ("Ctrl+Shift+O",),
               "Resume a saved session: corpus, settings and step", IDLE),
    ActionSpec("save_session", "Save session", "sessions.save",
               (QKeySequence.StandardKey.Save,), "Save corpus reference, settings and step"),
    ActionSpec("save_session_as", "Save session as…", "sessions.save_as", (),
               "Save the session under a new name"),
    ActionSpec("reopen", "Reopen last session at startup", "sessions.set_reopen", (),
               "Start where you left off instead of the sample", checkable=True),
    ActionSpec("import", "&Import tokenizer…", "import_dialog", ("Ctrl+I",),
               "Load vocab.json + merges.txt, tokenizer.json, .tiktoken ...", IDLE),
    ActionSpec("open_model", "Open &model…", "open_model_dialog", ("Ctrl+Shift+I",),
               "Open the tokenizer of a model already on this machine, by name (Hugging "
               "Face cache, Ollama, LM Studio, llama.cpp)", IDLE),
    ActionSpec("export", "&Export…", "export_dialog", ("Ctrl+E",),
               "Write the tokenizer as of this step in one or more formats", IDLE),
    ActionSpec("encode_files", "Encode files to i&ds…", "ids_dialog", ("Ctrl+Shift+D",),
               "Turn corpus files (text, JSONL) into one file of token ids for a training "
               "script (numpy.memmap reads it)"),
    ActionSpec("quit", "&Quit", "close", ("Ctrl+Q",), "Quit bpe-gui"),
    ActionSpec("step", "&Step", "controller.step", ("Alt+Right", "F10"),
               "Merge the best pair", IDLE, icon=QStyle.StandardPixmap.SP_MediaSeekForward),
    ActionSpec("back", "Step &back", "controller.undo", ("Alt+Left", "Shift+F10"),
               "Undo the last merge", IDLE, icon=QStyle.StandardPixmap.SP_MediaSeekBackward),
    ActionSpec("play", "&Play / Pause", "toggle_play", ("Ctrl+P",), "Step repeatedly",
               checkable=True),
    # (here the training toolbar adds Train (acts["run"]) and Retrain: training_flow.py)
    ActionSpec("goto", "Run to step &N…", "goto_dialog", ("Ctrl+G",),
               "Run forward or back to a given step", IDLE),
    ActionSpec("reset", "&Reset to step 0", "controller.reset", ("Alt+Home",),
               "Undo every merge", IDLE),
    ActionSpec("cancel", "&Cancel", "controller.cancel", ("Esc",), "Stop the running job",
               BUSY, icon=QStyle.StandardPixmap.SP_BrowserStop),
    ActionSpec("train_on", "Train o&n from the imported tokenizer…", "train_on_flow.ask",
               ("Ctrl+Shift+T",), "Keep the imported tokenizer's merges and ids and learn "
               "new merges on the corpus", TRAIN_ON),
    ActionSpec("train_on_leave", "Train from scratch again", "train_on_flow.leave", (),
               "Stop training on from the imported tokenizer: Train learns from bytes again",
               TRAINING_ON),
    ActionSpec("copy_command", "Copy training as co&mmand", "layout.settings_panel.copy_command",
               ("Ctrl+Alt+C",),
               "Put the exact `bpe-gui train` command that makes this training on the "
               "clipboard (the settings applied)"),
    ActionSpec("check", "Check &my BPE…", "check_dialog", ("Ctrl+Shift+B",),
               "Hold your own trainer's merges (and encoder's ids) against the reference: "
               "where they part, and why"),
    ActionSpec("use_imported", "Encode with &imported tokenizer",
               "controller.tokenizer_files.set_use_imported", (),
               "The encode view uses the imported tokenizer", IMPORTED, checkable=True),
    ActionSpec("focus", "&Focus on the panel in use", "toggle_focus", ("Ctrl+Shift+F",),
               "Give the panel you are working in (else the encode view) the whole window; "
               "again to go back", checkable=True),
    ActionSpec("reset_layout", "Reset &layout", "layout.reset_layout", (),
               "Put every panel back where it started"),
    ActionSpec("about", "&About bpe-gui", "about", (), "About this program"),
    ActionSpec("language_cost", "Per-language &cost…", "language_cost_dialog",
               ("Ctrl+Shift+L",),
               "Tokens per text of several languages, for up to four tokenizers"),
    ActionSpec("training_mixture", "&What was it trained on?…", "training_mixture_dialog",
               ("Ctrl+Shift+M",),
               "Infer the mix of languages, code and domains a tokenizer was trained on, "
               "from its merge order and a sample per category"),
    ActionSpec("keys", "&Keyboard shortcuts", "show_shortcuts",
               (QKeySequence.StandardKey.HelpContents,), "List the keyboard shortcuts"),
)
FLOW_AFTER = "play"   # the training toolbar's own actions are made after this one
IDLE_TOO = ("run", "retrain")   # the training toolbar's actions: off while a job runs

# "-" a separator; "@samples", "@recent", "@docks", "@theme": submenus built here
MENUS = (
    ("&File", ("new", "open", "@samples", "@recent", "save_corpus", "-", "open_session",
               "save_session", "save_session_as", "reopen", "-", "import", "open_model",
               "export", "encode_files", "-", "quit")),
    ("&Training", ("step", "back", "play", "run", "goto", "reset", "-", "cancel", "retrain",
                   "-", "train_on", "train_on_leave", "-", "copy_command", "check", "-",
                   "use_imported")),
    ("&View", ("focus", "-", "@docks", "-", "@theme", "reset_layout")),
    ("&Analysis", ("language_cost", "training_mixture")),
    ("&Help", ("keys", "about")),
)
TOOLBAR = ("back", "step", "cancel")   # after Train and the pending-settings badge


def add_action(window: QMainWindow, text: str, slot, shortcuts: Sequence = (), tip: str = "",
               checkable: bool = False) -> QAction:
    """An action of the window, with its shortcuts and tool tip."""
    act = QAction(text, window)
    keys = [QKeySequence(k) for k in shortcuts]
    if keys:
        act.setShortcuts(keys)
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    if tip:
        shown = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in keys)
        act.setToolTip(f"{tip} ({shown})" if shown else tip)
        act.setStatusTip(tip)
    act.setCheckable(checkable)
    act.triggered.connect(slot)
    window.addAction(act)  # shortcuts work even while the menu bar is hidden
    return act


def about_text() -> str:
    """The About box's rich text: the program, its release, the engine that runs."""
    version = bpe_gui_version()
    report = html.escape(engine_report()).split("\n")
    engine = "<b>" + report[0][0].upper() + report[0][1:] + "</b>" + \
        "".join(f"<br>&nbsp;&nbsp;{line.strip()}" for line in report[1:])
    return ("<b>bpe-gui</b>" + (f" {html.escape(version)}" if version else "")
            + " shows how a Byte-Pair Encoding tokenizer is trained, one merge at a time, "
            "and how it cuts text.<br><br>"
            "The engine is importable on its own: "
            "<code>from bpe_gui.engine import train_bpe, Tokenizer</code>.<br><br>"
            + engine)


class GreyedStatus(QObject):
    """A menu's event filter: the pointer on a greyed entry puts its reason (its status
    tip, update_actions') in the window's status bar, as Qt does for an enabled one (Qt
    never makes a greyed entry current, so it showed nothing)."""

    def eventFilter(self, menu: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.MouseMove and isinstance(menu, QMenu):
            act = menu.actionAt(event.position().toPoint())   # type: ignore[attr-defined]
            window = self.parent()
            if act is not None and not act.isEnabled() and isinstance(window, QMainWindow):
                window.statusBar().showMessage(act.statusTip())
        return False


class ActionsAndMenus:
    """Actions (with shortcuts), menus, and the dialogs they open. ``acts`` holds each
    action by name; ``flow`` is the training toolbar (training_flow.py)."""

    def __init__(self, window: QMainWindow, controller: Controller, settings: QSettings,
                 layout: DockLayout, recent, open_paths: Callable[[Sequence[str]], object],
                 set_theme: Callable[[str], None], train_on_flow: TrainOnFlow):
        self.window, self.controller, self.settings = window, controller, settings
        self.train_on_flow = train_on_flow     # whether training on can start / is on
        self.layout, self.recent = layout, recent
        self.editor, self.merge_panel = layout.editor, layout.merge_panel
        self._docks, self._open_paths, self._set_theme = layout.docks(), open_paths, set_theme
        self.acts: dict[str, QAction] = {}
        self._tips: dict[str, tuple[str, str]] = {}   # each action's tips when enabled
        self._build_actions()
        self._build_menus()

    def _handler(self, path: str):
        first = path.split(".")[0]
        obj = self if hasattr(self, first) else self.window
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    def _build_actions(self) -> None:
        w = self.window
        sp = w.style().standardIcon
        acts = self.acts
        for spec in ACTIONS:
            act = add_action(w, spec.text, self._handler(spec.handler), spec.keys,
                             spec.tip, spec.checkable)
            if spec.icon is not None:
                act.setIcon(sp(spec.icon))
            acts[spec.name] = act
            if spec.name == FLOW_AFTER:
                self.flow = TrainingFlow(w, self.controller, self.layout,
                                         partial(add_action, w))
                acts["run"], acts["retrain"] = self.flow.act_train, self.flow.act_retrain
        acts["reopen"].setChecked(bool(self.settings.value("reopenLastSession", True, type=bool)))
        acts["quit"].setMenuRole(QAction.MenuRole.QuitRole)
        acts["about"].setMenuRole(QAction.MenuRole.AboutRole)
        # also over dialogs and docks
        acts["cancel"].setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.flow.add_to_toolbar(*(acts[n] for n in TOOLBAR))
        w.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.flow.toolbar)
        self.theme_group = QActionGroup(w)
        self.theme_actions: dict[str, QAction] = {}
        for name in THEMES:
            act = QAction(name.capitalize(), w, checkable=True)
            act.setActionGroup(self.theme_group)
            act.triggered.connect(lambda _=False, n=name: self._set_theme(n))
            self.theme_actions[name] = act

    def _build_menus(self) -> None:
        mb = self.window.menuBar()
        for title, entries in MENUS:
            m = mb.addMenu(title)
            m.setToolTipsVisible(True)   # a greyed entry's tooltip says why (update_actions)
            for entry in entries:
                if entry == "-":
                    m.addSeparator()
                elif entry == "@samples":
                    self.samples_menu = m.addMenu("Sa&mples")
                    self.editor.populate_samples_menu(self.samples_menu)
                elif entry == "@recent":
                    self.recent_menu = m.addMenu("&Recent files")
                    self.recent_menu.aboutToShow.connect(
                        lambda: self.recent.fill_menu(self.recent_menu, self._open_paths))
                    self.recent.fill_menu(self.recent_menu, self._open_paths)
                elif entry == "@docks":
                    m.addActions([dock.toggleViewAction() for dock in self._docks])
                elif entry == "@theme":
                    m.addMenu("&Theme").addActions(list(self.theme_actions.values()))
                else:
                    m.addAction(self.acts[entry])
        greyed = GreyedStatus(self.window)
        for menu in mb.findChildren(QMenu):   # (the submenus too)
            menu.installEventFilter(greyed)

    def update_actions(self) -> None:
        """Each action's ``when``: those that start work are off while a job runs;
        Cancel is on then; Encode with imported once a tokenizer is imported. A greyed
        action says why in its tooltip and the status bar (its status tip)."""
        c = self.controller
        busy = f"Busy: {c.job_label or 'a job is running'}. Wait for it or cancel it (Esc)."
        why = {IDLE: busy if c.busy else None,
               BUSY: None if c.busy else "Nothing is running to cancel.",
               IMPORTED: None if c.imported is not None else
               "Import a tokenizer first (File › Import tokenizer…).",
               TRAIN_ON: c.train_on.why_not(),
               TRAINING_ON: busy if c.busy and c.train_on.active else None
               if c.train_on.active else "Training already learns from scratch: no "
               "imported tokenizer is trained on (Training › Train on from the imported "
               "tokenizer…)."}
        whens = [(spec.name, spec.when) for spec in ACTIONS if spec.when]
        for name, when in whens + [(name, IDLE) for name in IDLE_TOO]:
            act, reason = self.acts[name], why[when]
            tip, status = self._tips.setdefault(name, (act.toolTip(), act.statusTip()))
            act.setEnabled(reason is None)
            act.setToolTip(tip if reason is None else f"{tip}\n\nGreyed: {reason}")
            act.setStatusTip(status if reason is None else reason)
        self.acts["use_imported"].setChecked(c.use_imported)

    # ----- focus mode (docks.py) ---------------------------------------------------------
    def toggle_focus(self, _checked: bool = False) -> bool:
        """Focus mode: the panel in use gets the whole window, or back (docks.py)."""
        return self.layout.toggle_focus()

    def focus_changed(self, dock: QDockWidget | None) -> None:
        """Focus mode went on (for ``dock``) or off (None): the action and the panels'
        Focus buttons follow."""
        d = self.layout
        self.acts["focus"].setChecked(dock is not None)
        d.encode_view.focus_button.setChecked(dock is d.encode_dock)
        d.compare_view.focus_button.setChecked(dock is d.compare_dock)

    # ----- dialogs ----------------------------------------------------------------------
    def export_dialog(self):
        self.editor.flush()
        dlg = ExportDialog(self.controller, self.window)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.open()
        return dlg

    def import_dialog(self):
        dlg = ImportDialog(self.controller, self.window)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.open()
        return dlg

    def open_model_dialog(self):
        return show_open_model(self.controller, self.window)

    def ids_dialog(self):
        return show_ids_dialog(self.controller, self.window)

    def language_cost_dialog(self):
        return show_language_cost(self.controller, self.window)

    def training_mixture_dialog(self):
        return show_training_mixture(self.controller, self.window)

    def check_dialog(self):
        return show_check_dialog(self.controller, self.window)

    def goto_dialog(self) -> QInputDialog:
        """Run to step N (window-modal, opened: it goes to the step when accepted)."""
        c = self.controller
        t = c.view()
        target = (t.target_steps if t is not None else None) or 1_000_000
        dlg = QInputDialog(self.window)
        dlg.setWindowTitle("Run to step")
        dlg.setLabelText("Go to step (forward or back):")
        dlg.setInputMode(QInputDialog.InputMode.IntInput)
        dlg.setIntRange(0, max(target, c.step_index, 1))
        dlg.setIntValue(c.step_index)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        fit_title(dlg)
        dlg.intValueSelected.connect(c.goto)
        dlg.open()
        return dlg

    def toggle_play(self) -> None:
        c = self.controller
        interval = getattr(self.merge_panel, "interval_ms", None)
        c.set_playing(not c.playing, interval() if callable(interval) else None)

    def about(self) -> None:
        """Help > About: what the program is, its release, and which engine runs (C or
        Python, per extension, and why). Opened, not exec'd: a running job goes on; the
        text can be selected and copied (an import error to report)."""
        box = QMessageBox(QMessageBox.Icon.NoIcon, "About bpe-gui", about_text(),
                          QMessageBox.StandardButton.Ok, self.window)
        box.setObjectName("about_box")
        icon = self.window.windowIcon()
        if not icon.isNull():
            box.setIconPixmap(icon.pixmap(64, 64))
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def show_shortcuts(self) -> None:
        rows = []
        for act in self.window.actions():
            keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText)
                             for k in act.shortcuts())
            if keys:
                rows.append(f"<tr><td>{act.text().replace('&', '')}</td><td><b>{keys}</b></td></tr>")
        QMessageBox.information(self.window, "Keyboard shortcuts", "<table cellspacing=4>"
                                + "".join(rows) + "</table>")
