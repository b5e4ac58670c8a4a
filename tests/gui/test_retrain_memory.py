"""A retrain keeps the app's memory that of one trainer (issue 21 item 8): the table of
the trainer in use is reused when only the mode or target changed (no second read), and
a big stale trainer is let go before the new one is built."""
from __future__ import annotations

import pytest

import gc
import weakref

from bpe_gui.engine.train.trainer import Trainer, TrainSettings

pytestmark = pytest.mark.slow   # big files, memory bounds: CI runs it

WORDS = ["low", "lower", "newest", "widest", "hug", "pug", "pun", "bun", "hugs", "你好"]


def corpus(n_chars: int) -> str:
    import random
    rng = random.Random(7)
    out, size = [], 0
    while size < n_chars:
        w = rng.choice(WORDS) + str(rng.randrange(2000))   # ~20k unique words
        out.append(w)
        size += len(w) + 1
    return " ".join(out)


def test_a_mode_change_reuses_the_pre_token_table(window, ready, qtbot):
    from bpe_gui.gui.controller.training import SYNC_CHARS
    c = window.controller
    text = corpus(SYNC_CHARS + 50_000)     # big enough for the worker thread
    char = TrainSettings(mode="char", vocab_size=None, num_merges=40)
    assert c.set_settings(char)
    c.set_corpus_text(text, dirty=True)
    assert c.training.retrain()
    ready(c)
    table = c.trainer.table
    byte = TrainSettings(vocab_size=400)
    assert c.set_settings(byte)
    labels = []
    c.jobs.started.connect(labels.append)
    assert c.training.train()
    ready(c)
    assert labels == ["Preparing the word counts"]    # not "Pre-tokenizing corpus"
    assert c.trainer.table is table
    ref = Trainer.from_text(text, byte)
    ref.run(detail=False)
    assert c.trainer.merges == ref.merges and c.trainer.n_steps == ref.n_steps


def test_a_new_pattern_or_corpus_reads_again(window, ready):
    from bpe_gui.gui.controller.training import SYNC_CHARS
    c = window.controller
    text = corpus(SYNC_CHARS + 50_000)
    c.set_corpus_text(text, dirty=True)
    assert c.training.retrain()
    ready(c)
    table = c.trainer.table
    other = "cjk" if c.trainer.settings.pattern == "whitespace" else "whitespace"
    assert c.set_settings(TrainSettings(pattern=other))
    assert c.training.train()
    ready(c)
    assert c.trainer.table is not table
    table = c.trainer.table
    c.set_corpus_text(text + " more words", dirty=True)
    assert c.training.train()
    ready(c)
    assert c.trainer.table is not table
    ref = Trainer.from_text(text + " more words", TrainSettings(pattern=other))
    ref.run(detail=False)
    assert c.trainer.merges == ref.merges


def test_a_big_stale_trainer_is_let_go_before_the_new_one_is_built(window, ready, qtbot,
                                                                  monkeypatch):
    from bpe_gui.gui.controller import training as training_module
    c = window.controller
    text = corpus(training_module.SYNC_CHARS + 50_000)
    c.set_corpus_text(text, dirty=True)
    assert c.training.retrain()
    ready(c)
    monkeypatch.setattr(training_module, "SYNC_TABLE_WORDS", 100)   # this one is "big"
    old = weakref.ref(c.trainer)
    assert c.set_settings(TrainSettings(mode="char", vocab_size=None, num_merges=30))
    seen = []
    c.busyChanged.connect(lambda busy: seen.append((busy, old() is None or None)))
    assert c.training.train()
    gc.collect()
    assert old() is None, "the stale trainer is still held while the new one is built"
    ready(c)
    assert c.trainer is not None and c.trainer.settings.mode == "char"
    assert c.step_index == 30
