"""Shared by the panel tests: a real Controller trained on a small corpus."""
from __future__ import annotations

import os
from pathlib import Path

from bpe_gui.engine.trainer import TrainSettings
from bpe_gui.gui.controller.controller import Controller

WORKED = "low low lower newest newest widest widest widest"
# the shared corpora beside the repository, or BPE_GUI_CORPORA_DIR (as tests/conftest.py)
SHAKESPEARE = Path(os.environ.get("BPE_GUI_CORPORA_DIR")
                   or Path(__file__).resolve().parents[3] / "shared" / "corpora") / \
    "en-tinyshakespeare.txt.xz"


def make_controller(text: str = WORKED, **settings) -> Controller:
    c = Controller()
    c.set_settings(TrainSettings(**{"vocab_size": 1000, **settings}))
    c.set_corpus_text(text)
    assert c.retrain()
    return c
