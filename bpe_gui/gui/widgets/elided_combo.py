"""A combo box whose text, when it does not fit, ends in "…" with the whole in its tooltip.

A QComboBox narrower than its current item cuts the text at the edge, mid-letter and
without a sign that more follows: "Imported: gpt2_vocab.jsc", "Trained, as of step
21,27" in the encode view's Tokenizer box at 1024x700 (issue 30). This one draws the
current text elided ("Imported: gpt2_vo…") and says the whole of it in its tooltip
(the list that drops down shows every item whole, as before).
"""
from __future__ import annotations

from typing import Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QWidget


class ElidedComboBox(QComboBox):
    """A QComboBox (not editable) that elides its current text (module docstring)."""

    def __init__(self, parent: QWidget | None = None, items: Iterable[tuple[str, str]] = ()):
        """``items``: (data, text) pairs, an item each, in order."""
        super().__init__(parent)
        for key, label in items:
            self.addItem(label, key)
        self._own_tip = ""
        self._shown_tip = ""
        self.currentTextChanged.connect(lambda _t: self.update())

    def setToolTip(self, tip: str) -> None:
        """The box's own tooltip; the current text is added to it when elided."""
        self._own_tip = tip
        super().setToolTip(tip)

    def paintEvent(self, _event) -> None:
        painter = QStylePainter(self)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        room = field.width() - (opt.iconSize.width() + 4 if not opt.currentIcon.isNull()
                                else 0)
        full = opt.currentText
        shown = self.fontMetrics().elidedText(full, Qt.TextElideMode.ElideRight, max(0, room))
        opt.currentText = shown
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt)
        tip = (f"{full}\n{self._own_tip}" if self._own_tip else full) if shown != full \
            else self._own_tip
        if tip != self._shown_tip:   # (not from within paint: a tooltip does not repaint)
            self._shown_tip = tip
            super().setToolTip(tip)

    def is_elided(self) -> bool:
        """The current text does not fit (tests; the tooltip then holds it whole)."""
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        return self.fontMetrics().horizontalAdvance(opt.currentText) > field.width()
