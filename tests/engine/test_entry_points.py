"""One obvious entry point (issue 69): ``bpe_gui.engine.load_tokenizer`` opens every kind
as a BaseTokenizer; a file of another format given to ``Tokenizer.from_files`` and a
path given where text is expected are refused, each saying what to call."""
from __future__ import annotations

from pathlib import Path

import pytest

import bpe_gui.engine as engine
from bpe_gui.engine import (BaseTokenizer, FormatError, Tokenizer, Trainer, TrainSettings,
                            export_tokenizer, load_tokenizer, train_bpe)
from bpe_gui.engine.errors import ArgumentError

CORPUS = "the lowest newest widest hello world " * 40


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict[str, Path]:
    t = Trainer.from_text(CORPUS, TrainSettings(vocab_size=290, special_tokens=("<|endoftext|>",)))
    t.run()
    out = {}
    for fmt in ("hf", "gpt2", "tiktoken", "native"):
        d = tmp_path_factory.mktemp(fmt)
        export_tokenizer(t.tokenizer(), d, fmt)
        out[fmt] = d
    return out


def test_load_tokenizer_is_public():
    assert "load_tokenizer" in engine.__all__ and engine.load_tokenizer is load_tokenizer


@pytest.mark.parametrize("fmt", ["hf", "gpt2", "tiktoken", "native"])
def test_every_kind_is_a_base_tokenizer(exported, fmt):
    tok = load_tokenizer(exported[fmt])
    assert isinstance(tok, BaseTokenizer)
    assert tok.decode(tok.encode("hello world")) == "hello world"


@pytest.mark.parametrize("name, what", [("hf/tokenizer.json", "Hugging Face tokenizer.json"),
                                        ("tiktoken/tokenizer.tiktoken.json", "tiktoken"),
                                        ("native/tokenizer.bpe-gui.json", "bpe-gui")])
def test_from_files_names_the_format_and_load_tokenizer(exported, name, what):
    fmt, file = name.split("/")
    with pytest.raises(FormatError, match=f"{what}.*load_tokenizer"):
        Tokenizer.from_files(exported[fmt] / file)


def test_a_path_where_text_is_expected_is_refused(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    settings = TrainSettings(vocab_size=280)
    for call in (lambda: Trainer.from_source(str(corpus), settings),
                 lambda: Trainer.from_text(str(corpus), settings)):
        with pytest.raises(ArgumentError, match=r"names a file.*Trainer\.from_files"):
            call()
    # the ways the message names read the file, as train_bpe does
    t = Trainer.from_source(corpus, settings)
    t.run()
    vocab, merges = train_bpe(str(corpus), vocab_size=280)
    assert t.merges == merges
    again = Trainer.from_files(str(corpus), settings)
    again.run()
    assert again.merges == merges
