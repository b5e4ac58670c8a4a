"""Training from an iterator of texts (issue 78, item 4): ``train_from_iterator`` and
``Trainer.from_texts`` stream (a block at a time), each text its own document, and give
train_bpe's merges on the same texts written to a file; a list of texts is never read as
file paths without a word."""
from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from bpe_gui.engine import train_from_iterator
from bpe_gui.engine.errors import ArgumentError, ArgumentTypeError, BPEError
from bpe_gui.engine.train import Trainer, TrainSettings, train_bpe

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "parallel"
SPECIALS = ["<|endoftext|>"]


def test_an_open_file_trains_as_the_file_read_line_by_line():
    path = FIXTURES / "en.train.txt"
    with open(path, encoding="utf-8", newline="\n") as f:
        tok = train_from_iterator(f, vocab_size=600, special_tokens=SPECIALS, lines=True)
    vocab, merges = train_bpe(path, 600, SPECIALS, lines=True)
    assert tok.merges == merges and tok.vocab == vocab


def test_a_generator_of_documents_trains_as_a_jsonl_file_of_them(tmp_path):
    docs = [line.strip() + "<|endoftext|>" for line in
            (FIXTURES / "de.train.txt").read_text("utf-8").split("\n\n") if line.strip()]
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text("".join(json.dumps({"text": d}) + "\n" for d in docs), "utf-8")
    tok = train_from_iterator((d for d in docs), vocab_size=500, special_tokens=SPECIALS,
                              tie_rule="first-seen")
    vocab, merges = train_bpe(jsonl, 500, SPECIALS, tie_rule="first-seen")
    assert tok.merges == merges and tok.vocab == vocab
    assert tok.encode("Der Hund<|endoftext|>", allowed_special="all")[-1] == \
        tok.special_ids["<|endoftext|>"]


def test_from_texts_steps_like_from_files():
    path = FIXTURES / "ru.train.txt"
    s = TrainSettings(num_merges=40, lines=True)
    with open(path, encoding="utf-8", newline="\n") as f:
        t = Trainer.from_texts(f, s)
    ref = Trainer.from_files([path], s)
    for _ in range(10):
        assert t.step() == ref.step()
    t.undo()
    ref.undo()
    t.run()
    ref.run()
    assert t.merges == ref.merges


def test_the_iterator_is_streamed_not_held():
    """8 MB of text from a generator: Python's peak stays a few blocks' worth."""
    line = "the quick brown fox jumps over the lazy dog near the river bank\n"
    n = (8 << 20) // len(line)
    tracemalloc.start()
    try:
        tok = train_from_iterator((f"{line[:-1]} {i % 97}\n" for i in range(n)),
                                  vocab_size=300)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert tok.n_merges == 300 - 256
    assert peak < 4 << 20, f"peak {peak / 2**20:.1f} MiB for 8 MiB of texts"


@pytest.mark.regression
@pytest.mark.parametrize("call", [
    lambda texts: Trainer.from_source(texts, TrainSettings(num_merges=5)),
    lambda texts: train_bpe(texts, 300),
])
def test_a_list_of_texts_is_not_read_as_paths(call):
    """Trainer.from_source(list_of_texts) read each text as a file's path."""
    with pytest.raises(ArgumentError, match=r"item 0 .*reads as text.*from_texts"):
        call(["the cat sat on the mat", "a dog"])


def test_bad_texts_are_named():
    with pytest.raises(BPEError, match=r"train_from_iterator\(iterator\)\[1\] .*not bytes"):
        train_from_iterator(iter(["ok", b"raw"]), vocab_size=300)
    with pytest.raises(BPEError, match=r"Trainer.from_texts\(texts\)\[1\] .*not bytes"):
        Trainer.from_texts(iter(["ok", b"raw"]))
    with pytest.raises(BPEError, match="One text: put it in a list"):
        Trainer.from_texts("just one text")


def test_train_bpe_reads_a_generator_once_paths_or_texts():
    """A generator given to train_bpe is read once: of paths it trains as their list; of
    texts it is refused with the call for texts (it used to say the corpus was empty)."""
    path = FIXTURES / "en.train.txt"
    assert train_bpe((p for p in [path]), 400) == train_bpe([path], 400)
    with pytest.raises(ArgumentError, match="train_from_iterator"):
        train_bpe((line for line in path.read_text("utf-8").splitlines()[:50]), 400)


@pytest.mark.regression
@pytest.mark.parametrize("call, name", [
    (lambda texts: train_from_iterator(texts, vocab_size=300),
     "train_from_iterator(iterator)"),
    (lambda texts: Trainer.from_texts(texts), "Trainer.from_texts(texts)")])
@pytest.mark.parametrize("texts, k, kind", [
    ([b"low low"], 0, "bytes"), (["low", None], 1, "NoneType"), (["low", 7], 1, "int"),
    ("a stream", 1, "bytes")])
def test_a_text_that_is_not_one_is_named_by_the_call_made(call, name, texts, k, kind):
    """train_from_iterator([b"low low"]) said "count_corpus(texts)[0] should be a string
    such as '<|endoftext|>'": an internal function, and a special token as a text."""
    with pytest.raises(ArgumentTypeError) as e:
        call((t for t in ["low", b"x"]) if texts == "a stream" else texts)
    said = str(e.value)
    assert said.startswith(f"{name}[{k}]") and f"not {kind}" in said, said
    assert "count_corpus" not in said and "<|" not in said


@pytest.mark.regression
@pytest.mark.parametrize("spec, name", [
    (dict(threads="many"), "TrainingSpec(threads)"), (dict(threads=0), "TrainingSpec(threads)"),
    (dict(corpus=(1, 2)), "TrainingSpec(corpus)[0]")])
def test_build_run_names_the_spec_not_the_counting(tmp_path, spec, name):
    """build_run with threads="many" or corpus (1, 2) said count_corpus(workers)..."""
    from bpe_gui.engine.train import TrainingSpec, build_run
    (tmp_path / "c.txt").write_text("low lower", encoding="utf-8")
    with pytest.raises(BPEError) as e:
        build_run(TrainingSpec(**{"corpus": (str(tmp_path / "c.txt"),), **spec},
                               settings=TrainSettings(num_merges=3)))
    assert str(e.value).startswith(name) and "count_corpus" not in str(e.value)
