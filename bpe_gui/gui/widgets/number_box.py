"""A spin box that keeps what was typed, so the form can say what is wrong with it.

A plain QSpinBox silently replaces what does not fit its range: digits past its
maximum are refused as they are typed (10**12 stopped at 10,000,000), and a number
below its minimum, or an empty field, goes back to the last value when the field loses
focus or the user presses Train (vocabulary size 0 showed no error; issue 30). Here any
run of digits is accepted and kept as typed: :meth:`NumberBox.number` is the number
typed (also one past the box's range) or None for an empty field, and the form checks
it like any other value (the training settings' own rules say what is wrong, in red).

The arrows and the wheel step within the range, as a QSpinBox does.

Example::

    box = NumberBox(maximum=10_000_000)
    box.lineEdit().setText("1000000000000")   # typed
    box.number()  ->  1000000000000          # value() is the box's maximum meanwhile
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QAbstractSpinBox, QSpinBox, QWidget

INT_MAX = 2**31 - 1   # QSpinBox holds an int


class NumberBox(QSpinBox):
    """A QSpinBox whose typed number is kept as typed (see the module docstring).
    ``numberChanged`` says the number (or the empty field) changed, typed or stepped."""

    numberChanged = Signal()

    def __init__(self, minimum: int = 0, maximum: int = INT_MAX, value: int = 0,
                 singleStep: int = 1, parent: QWidget | None = None):
        super().__init__(parent)
        self._over: int | None = None   # typed past the range (value() is the bound)
        self._empty = False
        self.setRange(minimum, min(maximum, INT_MAX))
        self.setSingleStep(singleStep)
        self.setValue(value)
        self.setGroupSeparatorShown(True)   # (10,000,000: its digits counted at a glance)
        self.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToPreviousValue)
        self.lineEdit().textEdited.connect(self._edited)
        self.valueChanged.connect(lambda _v: self.numberChanged.emit())

    # ----- what was typed ----------------------------------------------------------------
    def _digits(self, text: str) -> str:
        sep = self.locale().groupSeparator()
        for s in (sep, ",", " ", "\u00a0", "\u202f", "'"):
            if s:
                text = text.replace(s, "")
        return text.strip()

    def number(self) -> int | None:
        """The number in the field as typed (None: empty)."""
        if self._empty:
            return None
        return self._over if self._over is not None else self.value()

    def _edited(self, text: str) -> None:
        digits = self._digits(text)
        before = (self._empty, self._over)
        self._empty = digits == ""
        n = int(digits) if digits.isdigit() else None
        self._over = n if n is not None and (n > self.maximum() or n < self.minimum()) \
            else None
        if (self._empty, self._over) != before:
            self.numberChanged.emit()

    # ----- QSpinBox ----------------------------------------------------------------------
    def validate(self, text: str, pos: int):
        digits = self._digits(text)
        if digits == "" or digits.isdigit():
            return QValidator.State.Acceptable, text, pos
        return QValidator.State.Invalid, text, pos

    def valueFromText(self, text: str) -> int:
        digits = self._digits(text)
        if not digits.isdigit():
            return self.value()
        return max(self.minimum(), min(int(digits), self.maximum()))

    def textFromValue(self, value: int) -> str:
        if self._empty:
            return ""
        if self._over is not None and value == max(self.minimum(),
                                                   min(self._over, self.maximum())):
            return self._grouped(self._over)
        return super().textFromValue(value)

    def _grouped(self, n: int) -> str:
        return f"{n:,}".replace(",", self.locale().groupSeparator() or ",")

    def stepBy(self, steps: int) -> None:
        if self._empty or self._over is not None:
            self._empty, self._over = False, None
            self.numberChanged.emit()
        super().stepBy(steps)

    def setValue(self, value: int) -> None:
        """A value from the program (settings shown): the typed text gives way."""
        if self._empty or self._over is not None:
            self._empty, self._over = False, None
            self.numberChanged.emit()
        super().setValue(value)
        self.lineEdit().setText(self.textFromValue(self.value()))
