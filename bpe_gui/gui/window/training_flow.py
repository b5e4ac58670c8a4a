"""The one training flow: a toolbar with Train, a badge for settings not applied yet,
Retrain and Cancel.

Train applies the settings typed in the settings panel (if any), then brings the
trainer up to date and runs it to the target: a new target only moves the live
trainer on or back (no re-tokenizing), anything else trains again from the corpus.
Retrain applies them too and starts over at step 0. The badge sits next to Train, where
the eye is when training, and says what is pending; clicking it shows the settings.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QStyle, QToolBar, QToolButton

from ...engine.text import PRESET_LABELS
from ...engine.train import TrainSettings
from ..models.settings_changes import REAL_CORPUS_SETTINGS, describe_changes, sample_settings
from ..controller.controller import Controller
from ..resources import resources
from ..theme import colors
from .docks import DockLayout

FIX_FIRST = "Fix the training settings marked in red first."
# kept beside the encode view's Tokenizer box (the status bar's message gives way to
# the training's own at once)
TRAIN_SWITCHED = "Train switched this from the imported tokenizer"


class TrainingFlow(QObject):
    """The training toolbar, given the window (its parent, style and status bar), the
    controller, the dock layout (the settings panel and dock, the corpus editor's
    notice) and how to make an action of the window (actions.add_action)."""

    def __init__(self, window: QMainWindow, controller: Controller, layout: DockLayout,
                 add_action: Callable[..., QAction]):
        super().__init__(window)
        self.window, self.layout = window, layout
        self.controller = c = controller
        self.panel = layout.settings_panel
        A = add_action
        self.act_train = A("&Train", self.train, ["F5", "Ctrl+Return", "Ctrl+Enter"],
                           "Apply the settings and train to the target (a new target goes "
                           "on from the current step)")
        self.act_retrain = A("Re&train from step 0", self.retrain, ["Ctrl+R"],
                             "Apply the settings, read the corpus again and train from "
                             "step 0 to the target (Reset, Alt+Home, only goes back)")
        sp = window.style().standardIcon
        self.act_train.setIcon(sp(QStyle.StandardPixmap.SP_MediaSkipForward))
        self.act_retrain.setIcon(sp(QStyle.StandardPixmap.SP_BrowserReload))
        self.badge = QToolButton()
        self.badge.setObjectName("pendingBadge")
        self.badge.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.badge.setAutoRaise(True)
        self.badge.clicked.connect(self.show_settings)
        self.toolbar = QToolBar("Training")
        self.toolbar.setObjectName("trainingToolbar")
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toolbar.addAction(self.act_train)
        self.badge_action = self.toolbar.addWidget(self.badge)
        self.toolbar.addAction(self.act_retrain)
        self.panel.pendingChanged.connect(self._on_pending)
        c.settings_for_new_corpus = self.settings_for_new_corpus
        c.settingsChanged.connect(lambda _: self.panel.check())
        self._on_pending(False, [])

    def add_to_toolbar(self, *actions) -> None:
        self.toolbar.addSeparator()
        self.toolbar.addActions(list(actions))

    # ----- actions ------------------------------------------------------------------
    def apply_pending(self) -> bool:
        """Apply what the settings panel holds; False (and say why) if it cannot."""
        p = self.panel
        p.check()
        if p.errors:
            self.controller.message.emit(FIX_FIRST)
            self.show_settings()
            return False
        if p.is_pending():
            return p.apply()
        return True

    def train(self) -> bool:
        if not self.apply_pending():
            return False
        return self._show_trained(self.controller.training.train())

    def _show_trained(self, started: bool) -> bool:
        """Training is about the trained tokenizer: an imported one on show in the
        encode view and the vocabulary browser gives way to it (after importing GPT-2
        and training, both still showed GPT-2 with no hint why), once training has
        started (a refused one leaves the user's choice alone). Returns ``started``."""
        c = self.controller
        if started and c.tokenizer_files.give_way_to_trained(TRAIN_SWITCHED):
            c.message.emit("Showing the trained tokenizer; the imported one is a choice of "
                           "the encode view's Tokenizer box (or Training › Encode with "
                           "imported tokenizer).")
        return started

    def retrain(self) -> bool:
        """Start over: read the corpus again and train to the target (it used to stop
        at step 0, which looked like nothing had happened)."""
        if not self.apply_pending():
            return False
        return self._show_trained(self.controller.training.retrain(to_target=True))

    def settings_for_new_corpus(self) -> TrainSettings | None:
        """The settings a newly opened corpus is read with (asked by the controller
        before it replaces the corpus): those the user sees in the panel, applied or not;
        None if they have errors (the corpus then waits for Train). Settings a sample
        brought and the user left alone give way to REAL_CORPUS_SETTINGS, with a notice
        that offers them back."""
        p, c = self.panel, self.controller
        p.check()
        if p.errors:
            self.show_settings()
            return None
        shown, _ = p.collect()
        if shown is None or shown != c.settings:
            return shown
        sample = self._sample_settings()
        if sample is None or sample != c.settings or REAL_CORPUS_SETTINGS == c.settings:
            return shown
        title = self._sample_title()
        changes = describe_changes(c.settings, REAL_CORPUS_SETTINGS)
        d = REAL_CORPUS_SETTINGS
        what = (f"{'byte' if d.mode == 'byte' else 'character'}-level, the "
                f"{PRESET_LABELS.get(d.pattern, d.pattern)} pattern, a vocabulary of "
                f"{d.vocab_size:,}")
        self.layout.editor.notice.show_change(
            None, title, changes, c.settings,
            text=(f"The settings of <b>{_esc(title)}</b> were for the sample: this corpus "
                  f"is trained with the defaults for a real corpus ({_esc(what)})."),
            keep="Keep the sample's settings", installed=REAL_CORPUS_SETTINGS)
        return REAL_CORPUS_SETTINGS

    def _sample_settings(self) -> TrainSettings | None:
        sid = self.controller.corpus_sample
        if not sid or self.controller.corpus_dirty:
            return None
        try:
            return sample_settings(resources().sample(sid).settings).validated()
        except (KeyError, TypeError, ValueError, OSError):
            return None

    def _sample_title(self) -> str:
        sid = self.controller.corpus_sample or ""
        try:
            return resources().sample(sid).title.split(" (")[0].split(":")[0]
        except (KeyError, OSError):
            return sid

    def show_settings(self) -> None:
        """The training settings in front; with errors, the first one in view."""
        dock = self.layout.settings_dock
        dock.show()
        dock.raise_()
        if not (self.panel.errors and self.panel.show_first_error()):
            self.panel.setFocus()

    # ----- badge --------------------------------------------------------------------
    def _on_pending(self, pending: bool, changes: list) -> None:
        col = colors(self.window)
        errors = bool(self.panel.errors)
        bar = self.window.statusBar()
        if not errors and "training settings marked in red" in bar.currentMessage():
            bar.clearMessage()   # fixed: the request to fix them would mislead now
        if errors:
            text, color = "⚠ Settings have errors", "error"
            tip = "Fix the fields marked in red: click to see the first"
        elif pending:
            text = f"● {len(changes)} setting{'s' if len(changes) != 1 else ''} not applied"
            tip = ("Train or Retrain applies: " + ", ".join(changes)) if changes else ""
            color = "accent"
        else:
            text, tip, color = "", "", "muted"
        self.badge.setText(text)
        self.badge.setToolTip(tip)
        self.badge.setStyleSheet(f"QToolButton#pendingBadge {{ color: {col[color]}; "
                                 "font-weight: bold; }")
        self.badge_action.setVisible(bool(text))


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
