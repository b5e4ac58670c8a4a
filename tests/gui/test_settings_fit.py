"""Training settings at the default dock width: every validation message wraps inside
the dock and shows whole, Apply stays reachable, and clicking a field does not move the
layout under the pointer (issue 21, item 4).

Before: an error made the panel wider than its dock ("Vocab size 10 is below the base
alphabet (256 ... Choose a vocab..."), Apply was cut off, and a scroll bar coming and
going re-wrapped the labels above the field just clicked."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QScrollArea

from bpe_gui.gui.widgets.visibility import on_screen
from settle import settle as quiet


def vocab_10(p):
    p.byte_radio.setChecked(True)
    p.vocab_radio.setChecked(True)
    p.vocab_spin.setValue(10)
    return p.target_error


def bad_pattern(p):
    p.preset_combo.setCurrentIndex(p.preset_combo.findData("custom"))
    p.pattern_edit.setText(r"(?P<unclosed>\p{L}+|\s+")
    return p.pattern_error


def empty_special(p):
    p.specials_edit.setPlainText("<|endoftext|>\n   \n<|pad|>")
    return p.specials_error


def char_below_alphabet(p):
    p.char_radio.setChecked(True)
    p.vocab_radio.setChecked(True)
    p.vocab_spin.setValue(3)
    return p.target_error


CASES = {"vocab": vocab_10, "pattern": bad_pattern, "specials": empty_special,
         "char": char_below_alphabet}


def show_settings(qtbot, window, size):
    window.resize(*size)
    qtbot.waitUntil(lambda: window.width() == size[0])
    window.dock_layout.reset_layout()
    quiet(qtbot, window, window.controller)
    window.dock_layout.settings_dock.raise_()
    panel = window.dock_layout.settings_panel
    qtbot.waitUntil(lambda: on_screen(panel), timeout=3000)
    quiet(qtbot, window, window.controller)
    return panel, panel.findChild(QScrollArea)


def inside_horizontally(w, viewport) -> bool:
    left = w.mapTo(viewport, QPoint(0, 0)).x()
    return left >= 0 and left + w.width() <= viewport.width()


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("size", [(800, 600), (1024, 700), (1920, 1080)])
def test_every_validation_message_fits_the_default_dock(window, qtbot, size, case):
    panel, area = show_settings(qtbot, window, size)
    label = CASES[case](panel)
    panel.check()
    quiet(qtbot, window, window.controller)
    assert panel.errors, case
    text = label.text()
    assert label.isVisible() and label.wordWrap() and len(text) > 40
    vp = area.viewport()
    assert area.widget().width() <= vp.width(), "the fields are wider than the dock"
    assert label.width() <= window.dock_layout.settings_dock.width()
    assert inside_horizontally(label, vp), (case, size)
    # the whole text shows: the label is as tall as its wrapped text needs
    assert label.height() >= label.heightForWidth(label.width()) > 0
    for w in (panel.apply_button, panel.revert_button, panel.state_label):
        assert inside_horizontally(w, vp), w
    assert not window.dock_layout.settings_dock.widget().horizontalScrollBar().isVisible()


@pytest.mark.parametrize("size", [(800, 600), (1024, 700)])
def test_clicking_a_field_does_not_move_the_layout_under_the_pointer(window, qtbot, size):
    panel, area = show_settings(qtbot, window, size)
    assert panel.char_radio.isChecked()          # the tutorial sample's settings
    watched = (panel.byte_radio, panel.char_radio, panel.tie_combo, panel.preset_combo)
    before = [(w.mapToGlobal(QPoint(0, 0)), w.size()) for w in watched]
    qtbot.mouseClick(panel.byte_radio, Qt.LeftButton,
                     pos=QPoint(8, panel.byte_radio.height() // 2))
    assert panel.byte_radio.isChecked()
    panel.check()
    quiet(qtbot, window, window.controller)
    assert [(w.mapToGlobal(QPoint(0, 0)), w.size()) for w in watched] == before


def test_a_presets_pattern_is_shown_read_only_without_a_clear_button(window, qtbot):
    panel = window.dock_layout.settings_panel
    edit = panel.pattern_edit
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("gpt2"))
    panel.check()
    assert edit.isReadOnly() and not edit.isClearButtonEnabled()
    assert "read-only" in edit.toolTip() and edit.styleSheet()
    shown = edit.grab().toImage()
    panel.preset_combo.setCurrentIndex(panel.preset_combo.findData("custom"))
    panel.check()
    assert not edit.isReadOnly() and edit.isClearButtonEnabled()
    assert edit.text()                              # starts from the preset's pattern
    # it looks different from a field to type in (the background above the text)
    at = QPoint(edit.width() // 2, 3)
    assert shown.pixelColor(at) != edit.grab().toImage().pixelColor(at)


@pytest.mark.regression
def test_the_panel_fits_a_narrow_dock_and_scrolls_sideways_in_a_narrower_one(window, qtbot):
    """At 800x600 the dock was about 190 pixels wide and the panel wider: cut on the
    right with no scroll bar, Apply out of sight, the tie rule's help, "Byte-level (256
    bytes, G…" and the refusal of a pattern name (its list of names) cut off."""
    panel, area = show_settings(qtbot, window, (800, 600))
    dock = window.dock_layout.settings_dock
    vp = area.viewport()
    bad_pattern(panel)
    panel.pattern_edit.setText("foo")                  # refused, the names listed
    panel.check()
    assert "not the name of a pattern" in panel.pattern_error.text()
    window.resizeDocks([dock], [190], Qt.Orientation.Horizontal)
    qtbot.waitUntil(lambda: dock.width() <= 195)
    quiet(qtbot, window, window.controller)
    assert area.widget().width() <= vp.width(), "the fields are wider than the dock"
    assert not area.horizontalScrollBar().isVisible()
    texts = [panel.tie_help, panel.pattern_error, panel.state_label]
    for w in (*texts, panel.byte_radio.parentWidget(), panel.char_radio.parentWidget(),
              panel.prune_check.parentWidget(), panel.apply_button, panel.revert_button,
              panel.tie_combo, panel.preset_combo, panel.vocab_spin):
        assert w.isVisible() and inside_horizontally(w, vp), w
    for label in texts:                                # wrapped, shown whole
        assert label.height() >= label.heightForWidth(label.width()) > 0
    byte = panel.byte_radio.parentWidget()             # its text wraps beside it
    assert "GPT-2" in byte.label.text() and not panel.byte_radio.isChecked()
    qtbot.mouseClick(byte.label, Qt.MouseButton.LeftButton)
    assert panel.byte_radio.isChecked()                # a click on the text chooses it
    # narrower than the narrowest fields: it scrolls sideways, and Apply can be reached
    window.resizeDocks([dock], [110], Qt.Orientation.Horizontal)
    bar = area.horizontalScrollBar()
    qtbot.waitUntil(lambda: bar.isVisible() and bar.maximum() > 0)
    bar.setValue(bar.maximum())
    assert inside_horizontally(panel.apply_button, vp)
