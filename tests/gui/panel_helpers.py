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
