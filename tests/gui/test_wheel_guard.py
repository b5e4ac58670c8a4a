"""The mouse wheel scrolls a panel; only a focused control takes it (issue 21, item 1).

Before: ten notches over the pre-tokenizer box turned GPT-2 into "Custom pattern…", one
over the vocabulary size turned 32,000 into 31,900, while the page did not move."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox,
                               QScrollArea, QScrollBar)

from bpe_gui.gui.panels.settings.settings_panel import SettingsPanel
from bpe_gui.gui.widgets.wheel_guard import guard_wheel


def wheel(widget, notches: int = -1) -> None:
    """A wheel turn over the middle of ``widget`` (negative: towards the user, i.e. down)."""
    local = QPointF(widget.width() / 2, widget.height() / 2)
    glob = QPointF(widget.mapToGlobal(local.toPoint()))
    ev = QWheelEvent(local, glob, QPoint(0, 0), QPoint(0, 120 * notches), Qt.NoButton,
                     Qt.NoModifier, Qt.NoScrollPhase, False)
    QApplication.sendEvent(widget, ev)


@pytest.fixture
def panel(qtbot, controller):
    p = SettingsPanel(controller)
    guard_wheel(p)
    qtbot.addWidget(p)
    p.resize(320, 260)   # shorter than its fields: the page scrolls
    p.show()
    qtbot.waitExposed(p)
    return p


def test_wheel_over_unfocused_combo_and_spin_box_scrolls_the_page(panel, qtbot):
    area = panel.findChild(QScrollArea)
    bar = area.verticalScrollBar()
    assert bar.maximum() > 0
    panel.vocab_radio.setChecked(True)
    panel.check()
    for control, value in ((panel.preset_combo, panel.preset_combo.currentIndex),
                           (panel.vocab_spin, panel.vocab_spin.value),
                           (panel.tie_combo, panel.tie_combo.currentIndex)):
        assert not control.hasFocus()
        before, top = value(), bar.value()
        for _ in range(3):
            wheel(control, -1)
        assert value() == before, control
        assert bar.value() > top or bar.value() == bar.maximum(), control
        bar.setValue(0)
    assert not panel.errors and not panel.is_pending()


def test_a_focused_control_still_takes_the_wheel(panel, qtbot):
    panel.activateWindow()
    spin = panel.vocab_spin
    panel.vocab_radio.setChecked(True)
    panel.check()
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus)
    before = spin.value()
    wheel(spin, -1)
    assert spin.value() == before - spin.singleStep()
    combo = panel.preset_combo
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    index = combo.currentIndex()
    wheel(combo, -1)
    assert combo.currentIndex() == index + 1


def test_every_wheel_sensitive_control_of_the_window_is_guarded(window):
    controls = [w for cls in (QComboBox, QAbstractSpinBox, QAbstractSlider)
                for w in window.findChildren(cls) if not isinstance(w, QScrollBar)]
    assert len(controls) >= 10
    for w in controls:
        assert w.property("wheelGuarded"), w.objectName() or type(w).__name__
        assert w.focusPolicy() != Qt.WheelFocus
