"""Which formats can hold a tokenizer is known from its training settings before
training (the command line refuses ``--format gpt2 --mode char`` at once): the format's
own rule, the one its export applies, so the two cannot drift. Checked here against
exports of real trained tokenizers."""
from __future__ import annotations

import itertools

import pytest

from bpe_gui.engine.formats import FORMATS, settings_problem, unsupported_reason
from bpe_gui.engine.train.trainer import Trainer, TrainSettings

TEXT = "low lower newest widest, the 2024 words: hello world!\n" * 20


@pytest.mark.parametrize("mode, end_of_word, pattern", list(itertools.product(
    ("byte", "char"), ("suffix", "prefix"), ("gpt2", "whitespace"))))
def test_the_settings_rule_is_what_the_export_says(mode, end_of_word, pattern):
    settings = TrainSettings(num_merges=10, mode=mode, end_of_word=end_of_word,
                             pattern=pattern)
    t = Trainer.from_source(TEXT, settings)
    t.run()
    for fmt in FORMATS:
        before = settings_problem(fmt, settings)
        after = unsupported_reason(t.tokenizer(), fmt)
        assert before == after, (fmt, before, after)


def test_the_rule_refuses_character_level_gpt2_and_tiktoken():
    char = TrainSettings(mode="char")
    assert "byte-level" in settings_problem("gpt2", char)
    assert "byte-level" in settings_problem("tiktoken", char)
    assert settings_problem("native", char) is None and settings_problem("csv", char) is None
    assert "whitespace" in settings_problem("hf", char)
    assert settings_problem("hf", TrainSettings(mode="char", pattern="whitespace")) is None
