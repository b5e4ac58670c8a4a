"""Compare names a tie rule as the training controls do (it showed the rule's key,
"tie rule greatest", where Training settings says "Greatest pair (by bytes)")."""
from __future__ import annotations

import pytest

from bpe_gui.gui.panels.compare.compare_pane import ComparePane
from bpe_gui.gui.panels.settings.settings_panel import SettingsPanel

pytestmark = pytest.mark.controller("low lower newest widest " * 20, vocab_size=280,
                                    tie_rule="first-seen", step=5)


def training_label(qtbot, controller, key: str) -> str:
    """The words the Training settings' tie rule box shows for ``key``."""
    panel = SettingsPanel(controller)
    qtbot.addWidget(panel)
    box = panel.tie_combo
    return box.itemText(box.findData(key))


def test_the_current_step_names_its_tie_rule_as_training_does(qtbot, controller):
    want = training_label(qtbot, controller, "first-seen")
    assert want and want != "first-seen"
    pane = ComparePane(controller, "A", "current")
    qtbot.addWidget(pane)
    pane.resize(2000, 300)   # wide: the label's longest form
    pane.show()
    text = pane.current_label.full_text()
    assert f"tie rule {want}" in text.lower() or f"tie rule: {want}" in text, text
    assert "first-seen" not in text, text


def test_another_configuration_names_its_tie_rule_as_training_does(qtbot, controller):
    want = training_label(qtbot, controller, "lowest-ids")
    pane = ComparePane(controller, "B", "trained")
    qtbot.addWidget(pane)
    pane.show()
    pane.t_tie.setCurrentIndex(pane.t_tie.findData("lowest-ids"))
    pane.t_vocab.setValue(270)
    with qtbot.waitSignal(pane.trained, timeout=20_000):
        assert pane.train()
    qtbot.waitUntil(lambda: pane.trained_tokenizer is not None)
    assert want in pane.description(), pane.description()
    assert "lowest-ids" not in pane.description()
