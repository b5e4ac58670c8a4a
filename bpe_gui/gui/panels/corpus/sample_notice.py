"""After a sample replaced the user's own training settings: say what changed, and offer
them back (one click), instead of asking first.

A sample is a corpus *and* the settings it was written for (the tutorial needs
character mode and 10 merges to show its five-way tie), so loading one applies them: that
is what someone picking "Tutorial" expects. But settings the user tuned are work; the
notice under the corpus title names each change and "Keep my settings" restores them
(and retrains). Switching between samples, or the first sample at start-up, replaces
nothing of the user's, so no notice shows then.
"""
from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from ....engine.train import TrainSettings
from ...theme import colors, follow_palette


def replaces_user_settings(current: TrainSettings, corpus_text: str,
                           sample_settings: TrainSettings | None) -> bool:
    """Whether loading a sample would replace settings the user chose: not at start-up
    (nothing loaded yet), not when the settings are still those of the sample on show.

    Example: (TrainSettings(), "", None) -> False; (TrainSettings(vocab_size=5000),
    "my text", None) -> True.
    """
    if not corpus_text and current == TrainSettings():
        return False
    return sample_settings is None or current != sample_settings


class NoticeHost(Protocol):
    """What the sample's notice reads of the controller."""

    corpusChanged: SignalInstance
    settingsChanged: SignalInstance
    parityChanged: SignalInstance
    message: SignalInstance
    settings: TrainSettings

    @property
    def busy(self) -> bool: ...
    @property
    def corpus_sample(self) -> str | None: ...
    @property
    def training(self) -> _Retrains: ...
    def set_settings(self, settings: TrainSettings) -> bool: ...


class _Retrains(Protocol):
    def retrain(self, quiet: bool = False) -> bool: ...


class SampleNotice(QFrame):
    def __init__(self, controller: NoticeHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.setObjectName("sampleNotice")
        self.previous: TrainSettings | None = None
        self.sample_id: str | None = None
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.keep_btn = QToolButton()
        self.keep_btn.setText("Keep my settings")
        self.keep_btn.setToolTip("Put back the training settings you had before the sample "
                                 "and train again with them")
        self.keep_btn.clicked.connect(self.keep_previous)
        self.ok_btn = QToolButton()
        self.ok_btn.setText("OK")
        self.ok_btn.setToolTip("Use the sample's settings")
        self.ok_btn.clicked.connect(self.hide)
        # the buttons under the text: beside it, in a narrow dock, they squeezed it into
        # a column of single words
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.setSpacing(2)
        lay.addWidget(self.label)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.keep_btn)
        row.addWidget(self.ok_btn)
        lay.addLayout(row)
        self.installed: TrainSettings | None = None   # the settings the notice is about
        controller.corpusChanged.connect(self._on_corpus_changed)
        controller.settingsChanged.connect(self._on_settings_changed)
        controller.parityChanged.connect(self._on_parity_changed)
        follow_palette(self, self._restyle)
        self.hide()

    def _restyle(self) -> None:
        # the theme's colours from the application: this frame's own palette is its
        # style sheet's (a dark notice read itself as dark after a switch to light)
        col = colors()
        sheet = (f"QFrame#sampleNotice {{ background: {col['info_bg']}; border-radius: 3px; }}"
                 f" QFrame#sampleNotice QLabel {{ color: {col['info_fg']}; }}")
        if sheet != self.styleSheet():   # a new style sheet is itself a palette change
            self.setStyleSheet(sheet)

    def show_change(self, sample_id: str | None, title: str, changes: list[str],
                    previous: TrainSettings, text: str | None = None,
                    keep: str = "Keep my settings",
                    installed: TrainSettings | None = None) -> None:
        """Say that ``previous`` settings were replaced by ``installed`` (None: those
        in use now); ``text`` (rich text) instead of the sample sentence, ``keep``: the
        button that puts them back. The notice goes when the corpus is no longer
        ``sample_id`` (None: a corpus that is no sample), when other settings are
        applied, and when parity-aware training (which reads its own files) is on."""
        self.sample_id, self.previous = sample_id, previous
        self.installed = installed or self.controller.settings
        self.label.setText(text or f"<b>{_esc(title)}</b> comes with its own training "
                           f"settings: {_esc(', '.join(changes))}.")
        self.keep_btn.setText(keep)
        self.show()

    def keep_previous(self) -> bool:
        c, prev = self.controller, self.previous
        self.hide()
        if prev is None or not c.set_settings(prev):
            return False
        c.message.emit("Your training settings are back; training again with them.")
        if not c.busy:
            c.training.retrain(quiet=True)
        return True

    def _on_settings_changed(self, settings: TrainSettings) -> None:
        if self.isVisible() and settings != self.installed:
            self.hide()   # the user's own settings now: nothing to offer back

    def _on_parity_changed(self, setup) -> None:
        if self.isVisible() and setup.active:
            self.hide()   # the corpus is not what is trained

    def _on_corpus_changed(self) -> None:
        if self.isVisible() and self.controller.corpus_sample != self.sample_id:
            self.hide()   # another corpus: the notice no longer applies


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
