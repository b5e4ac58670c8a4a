"""The settings panel while training on from a tokenizer (controller/train_on.py): the
fields the tokenizer decides (base symbols, pre-tokenizer, special tokens, pruning)
are shown as they are, disabled, under a notice naming the tokenizer; the panel's
settings keep them as in use, so they never count as a change. The number of merges
counts the new merges; the tie rule and the minimum frequency stay free (changing them
trains on again from the same tokenizer).
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from ....engine.train import TrainSettings
from ...controller.origin import FIXED_FIELDS
from ...theme import colors


class InheritedFields:
    def __init__(self, panel, controller):
        self.panel, self.controller = panel, controller
        self.notice = QLabel(wordWrap=True)
        self.notice.setObjectName("inheritedNotice")
        self.notice.setTextFormat(Qt.TextFormat.RichText)
        self.notice.hide()
        panel.tie_box.parentWidget().layout().insertWidget(0, self.notice)
        controller.settingsChanged.connect(lambda _: self.update())
        controller.trainerChanged.connect(self.update)

    @property
    def on(self) -> bool:
        return self.controller.train_on.active

    def fixed(self, s: TrainSettings) -> TrainSettings:
        """``s`` with what the tokenizer decides, while training on from it."""
        if not self.on:
            return s
        used = self.controller.settings
        return replace(s, **{f: getattr(used, f) for f in FIXED_FIELDS})

    def update(self) -> None:
        p, on = self.panel, self.on
        for w in (p.byte_radio, p.char_radio, p.eow_combo, p.eow_label, p.preset_combo,
                  p.pattern_edit, p.specials_edit, p.prune_check):
            w.setEnabled(not on)
        if not on:
            p.check()   # the end-of-word field follows the mode again
            self.notice.hide()
            return
        col = colors(p)
        label = self.controller.train_on.label
        self.notice.setText(
            f"<span style='color:{col['accent']}'><b>Training on from {_esc(label)}</b></span>: "
            "its base symbols, pre-tokenizer and special tokens are fixed (shown greyed). "
            "The number of merges counts the new ones. Training › Train from scratch "
            "again frees them.")
        self.notice.show()


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
