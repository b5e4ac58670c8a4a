"""The settings panel while training on from a tokenizer (controller/train_on.py): a
notice naming the tokenizer above the fields it decides (base symbols, pre-tokenizer,
special tokens, pruning), which mode_fields.py greys, showing the tokenizer's. The number
of merges counts the new merges; the tie rule and the minimum frequency stay free
(changing them trains on again from the same tokenizer).
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from ...theme import colors
from .mode_fields import FieldsHost


class InheritedFields:
    def __init__(self, panel, controller: FieldsHost):
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

    def update(self) -> None:
        p, on = self.panel, self.on
        p.check()   # the fields the source decides: greyed, showing its (mode_fields.py)
        if not on:
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
