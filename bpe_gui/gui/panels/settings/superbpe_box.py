"""The settings panel's SuperBPE control: "stage 2 from step T" (a check box and the
step), its default (the step where the vocabulary holds 90% of the target, as the
paper's transition points are), a line saying what the step means, and its check.

Stage 1 is ordinary BPE up to step T; stage 2 trains on without splitting at spaces,
so tokens may bridge words (engine/train/superbpe.py has the rules).
"""
from __future__ import annotations


from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QGroupBox, QHBoxLayout, QLabel, QVBoxLayout

from ....engine.errors import BPEError
from ....engine.train import check_transition
from ....engine.train import TrainSettings
from ...widgets.number_box import NumberBox
from ...widgets.text_pane import TextPane
from ...widgets.wrapped_choice import WrappedChoice

SHARE = 0.9   # the default transition: 90% of the target vocabulary (the paper's choice)


def default_transition(s: TrainSettings) -> int:
    """Step T at which the vocabulary holds 90% of the target (byte mode).

    Example: vocab_size=4000, no special tokens -> 3344 (256 + 3344 = 3600 tokens)
    """
    if s.num_merges is not None:
        return max(1, round(SHARE * s.num_merges))
    n_initial = 256 + len(s.special_tokens)
    return max(1, round(SHARE * (s.vocab_size or 0)) - n_initial)


def transition_problem(s: TrainSettings) -> str | None:
    """What is wrong with ``s``' transition, with the fix; None if it can train."""
    T = s.superbpe_from
    if T is None:
        return None
    if s.mode != "byte":
        return ("SuperBPE trains byte-level tokenizers: choose byte-level base symbols, or "
                "turn SuperBPE off.")
    if T < 1:
        return (f"Stage 2 from step {T}: stage 1 must make at least one merge. Choose a "
                "step of 1 or more (about 90% of the target is usual).")
    try:
        check_transition(s, 256 + len(s.special_tokens))
    except BPEError as e:
        return str(e)
    return None


OFF = "Off: ordinary BPE; tokens never bridge words."


class SuperBPEBox(QGroupBox):
    """Check box + step spin box; ``changed`` when either changes."""

    changed = Signal()

    def __init__(self, max_step: int, parent=None):
        super().__init__("SuperBPE: superwords", parent)
        self.check = QCheckBox("Stage 2 from step")
        self.check.setToolTip(
            "Stage 1 is ordinary BPE up to this step; stage 2 goes on without splitting at "
            "spaces, so tokens can bridge words (“·of·the”). Stage 2 never makes a token "
            "holding “: ” or more than 4 words (Liu et al. 2025, SuperBPE).")
        self.spin = NumberBox(maximum=max_step, singleStep=100)
        self.spin.setToolTip("The last step of stage 1 (T); stage 2 starts after it")
        # two fixed lines: a hint that grows or shrinks as the settings change would
        # move the fields below it under the pointer
        self.hint = TextPane(lines=2)
        self.error = QLabel(wordWrap=True)
        self.error.setObjectName("inlineError")
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setVisible(False)
        row = QHBoxLayout()
        row.addWidget(WrappedChoice(self.check))
        row.addWidget(self.spin, 1)
        self.spin.setMinimumWidth(60)   # a narrow dock: the row must not widen it
        lay = QVBoxLayout(self)
        lay.addLayout(row)
        lay.addWidget(self.hint)
        lay.addWidget(self.error)
        self.check.toggled.connect(self._toggled)
        self.spin.numberChanged.connect(self.changed.emit)
        self._toggled(False)

    def _toggled(self, on: bool) -> None:
        self.spin.setEnabled(on)
        self.changed.emit()

    def value(self) -> int | None:
        """The transition step, or None when SuperBPE is off."""
        return self.spin.number() if self.check.isChecked() else None

    def set_value(self, T: int | None) -> None:
        """Show a transition (from the controller); None: off."""
        self.check.setChecked(T is not None)
        if T is not None:
            self.spin.setValue(T)
        else:   # (a mode that greys it shows it off: no stage 1 or 2 described)
            self.hint.setText(OFF)

    def follow(self, s: TrainSettings, byte_mode: bool) -> None:
        """Keep the default following the target while SuperBPE is off; say what the
        step means for these settings."""
        self.setEnabled(byte_mode)
        if not self.check.isChecked():
            self.spin.blockSignals(True)
            self.spin.setValue(default_transition(s))
            self.spin.blockSignals(False)
        T = self.spin.number() or 0
        if not byte_mode:
            self.hint.setText("Byte-level only.")
            return
        if not self.check.isChecked():
            self.hint.setText(OFF)
            return
        at = 256 + len(s.special_tokens) + T
        if s.num_merges is not None:
            rest = s.num_merges - T
            self.hint.setText(f"{T:,} merges of stage 1, then {max(rest, 0):,} of stage 2 "
                              "(superwords).")
        else:
            share = f" ({at / s.vocab_size:.0%} of {s.vocab_size:,})" if s.vocab_size else ""
            self.hint.setText(f"Stage 2 starts at {at:,} tokens{share} and adds "
                              f"{max((s.vocab_size or 0) - at, 0):,} (superwords among them).")
