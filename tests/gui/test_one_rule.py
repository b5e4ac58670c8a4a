"""Rules the window asks the engine for, rather than keeping a copy that can drift."""
from __future__ import annotations

import pytest

from bpe_gui.engine.train.trainer import Trainer, TrainSettings
from bpe_gui.gui.controller.controller import Controller

# inner U+001C (str.isspace() says whitespace; regex's \S takes it) and a special token
# whose characters appear nowhere else in the corpus
CORPUS = "a\x1cb cab <|endoftext|> ba"


@pytest.mark.parametrize("pattern, specials", [
    (r"\S+|\s+", ["<|endoftext|>"]),
    ("gpt2", ["<|endoftext|>"]),
    ("gpt2", []),
])
def test_window_counts_the_char_alphabet_as_the_trainer_does(qtbot, pattern, specials):
    settings = TrainSettings(mode="char", num_merges=5, pattern=pattern,
                             special_tokens=specials)
    c = Controller()
    c.set_settings(settings)
    c.set_corpus_text(CORPUS)
    assert c.queries.char_alphabet_size() == Trainer.from_text(CORPUS, settings).n_base
    c.shutdown()
