"""Shared by the panel tests: a real Controller trained on a small corpus."""
from __future__ import annotations

from bpe_gui.engine.train.trainer import TrainSettings
from bpe_gui.gui.controller.controller import Controller

WORKED = "low low lower newest newest widest widest widest"


def make_controller(text: str = WORKED, **settings) -> Controller:
    c = Controller()
    c.set_settings(TrainSettings(**{"vocab_size": 1000, **settings}))
    c.set_corpus_text(text)
    assert c.training.retrain()
    return c


def trained_side_b(controller: Controller, qtbot, vocab_size: int = 270):
    """Compare's side B set to "another training configuration", trained on the
    controller's corpus to ``vocab_size`` tokens and shown."""
    from bpe_gui.gui.panels.compare.compare_pane import ComparePane
    pane = ComparePane(controller, "B", "trained")
    qtbot.addWidget(pane)
    pane.show()
    pane.t_vocab.setValue(vocab_size)
    with qtbot.waitSignal(pane.trained, timeout=20_000):
        assert pane.train()
    qtbot.waitUntil(lambda: pane.trained_tokenizer is not None)
    return pane
