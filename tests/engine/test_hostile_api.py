"""The sweep, Python half: every public entry point fed hostile arguments.

Each case must raise the engine's own error (a BPEError; wrong types are also a
TypeError, absurd values also a ValueError) whose message names what was expected --
never a TypeError/AttributeError from deep inside, never a silent wrong result. Files
fed to the readers are in test_hostile_files.py.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from bpe_gui.engine import BPEError, SettingsError, TrainSettings, Trainer, Tokenizer, train_bpe
from bpe_gui.engine.analysis.reachability import classify_tokens
from bpe_gui.engine.corpus.counting import count_corpus
from bpe_gui.engine.errors import ArgumentError, ArgumentTypeError
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
from bpe_gui.engine.analysis.per_language import language_cost
from bpe_gui.engine.analysis.overlap import vocab_overlap
from bpe_gui.engine.text.pretokenize import Pretokenizer

BYTES = {i: bytes([i]) for i in range(256)}
CORPUS = "low low lower newest newest widest widest widest <s> "


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("hostile") / "corpus.txt"
    p.write_text(CORPUS * 20, encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    t = Trainer.from_text(CORPUS * 5, TrainSettings(num_merges=8))
    t.run()
    return t.tokenizer()


@pytest.fixture(scope="module")
def imported(tok, tmp_path_factory) -> Tokenizer:
    folder = tmp_path_factory.mktemp("imported")
    export_tokenizer(tok, folder, "hf")
    return load_tokenizer(folder / "tokenizer.json")


def refused(call, kind: type, *words: str) -> BPEError:
    """``call()`` raises ``kind`` (an engine error) whose message holds every word."""
    with pytest.raises(BPEError) as info:
        call()
    err = info.value
    assert isinstance(err, kind), f"{type(err).__name__}: {err}"
    for w in words:
        assert w in str(err), f"{w!r} not in {str(err)!r}"
    return err


# ----- a str where a list is expected: refused, not one token per character -----------
def test_special_tokens_as_one_string_is_refused_everywhere(corpus):
    for call in (lambda: TrainSettings(special_tokens="<s>"),
                 lambda: train_bpe(corpus, 300, special_tokens="<s>"),
                 lambda: Tokenizer(BYTES, [], special_tokens="<s>"),
                 lambda: load_tokenizer(corpus, special_tokens="<s>"),
                 lambda: Tokenizer.from_files(corpus, corpus, special_tokens="<s>")):
        err = refused(call, ArgumentTypeError, "special_tokens=['<s>']", "list")
        assert isinstance(err, TypeError)
    err = refused(lambda: TrainSettings(special_tokens="<s>"), SettingsError)
    assert isinstance(err, TypeError)


def test_a_list_of_special_tokens_still_trains(corpus):
    vocab, _ = train_bpe(corpus, 300, special_tokens=["<s>"])
    assert vocab[256] == b"<s>"
    assert TrainSettings(special_tokens=["<s>"]).special_tokens == ("<s>",)


# ----- Tokenizer(...) ------------------------------------------------------------------
TOKENIZER_CASES = {
    "str vocab keys": (lambda: Tokenizer({str(i): bytes([i]) for i in range(256)}, []),
                       ArgumentTypeError, "vocab key", "whole number"),
    "str vocab values": (lambda: Tokenizer({i: chr(i) for i in range(256)}, []),
                         ArgumentTypeError, "bytes", "encode"),
    "vocab a list": (lambda: Tokenizer(list(BYTES.values()), []), ArgumentTypeError, "dict"),
    "vocab None": (lambda: Tokenizer(None, []), ArgumentTypeError, "vocab"),
    "negative id": (lambda: Tokenizer({**BYTES, -1: b"xx"}, []), ArgumentError, "-1"),
    "id past 32 bits": (lambda: Tokenizer({**BYTES, 2**40: b"xx"}, []), ArgumentError,
                        "too large"),
    "merge a str": (lambda: Tokenizer(BYTES, ["ab"]), ArgumentTypeError, "merges[0]", "pair"),
    "merge of str": (lambda: Tokenizer(BYTES, [("a", "b")]), ArgumentTypeError, "merges[0]"),
    "pattern None": (lambda: Tokenizer(BYTES, [], pattern=None), ArgumentTypeError, "pattern",
                     "preset"),
    "pattern int": (lambda: Tokenizer(BYTES, [], pattern=5), ArgumentTypeError, "pattern"),
    "end_of_word middle": (lambda: Tokenizer(BYTES, [], end_of_word="middle"), ArgumentError,
                           "end_of_word", "'suffix', 'prefix'"),
    "mode None": (lambda: Tokenizer(BYTES, [], mode=None), ArgumentError, "mode"),
    "meta a list": (lambda: Tokenizer(BYTES, [], meta=[1]), ArgumentTypeError, "meta"),
}


@pytest.mark.parametrize("case", sorted(TOKENIZER_CASES))
def test_tokenizer_arguments(case):
    call, kind, *words = TOKENIZER_CASES[case]
    refused(call, kind, *words)


# ----- encoding and decoding, for trained and imported tokenizers alike ----------------
@pytest.mark.parametrize("which", ["tok", "imported"])
def test_text_arguments(which, request):
    t = request.getfixturevalue(which)
    for value in (b"low", None, 5, ["low"]):
        for call in (t.encode, t.encode_with_offsets, t.explain):
            refused(lambda: call(value), ArgumentTypeError, "text (a str)")
    refused(lambda: t.encode(b"low"), ArgumentTypeError, "decode('utf-8')")
    refused(lambda: list(t.encode_iterable([b"low"])), ArgumentTypeError, "str")
    refused(lambda: list(t.encode_iterable(None)), ArgumentTypeError, "iterable of str")
    assert t.encode("") == [] and list(t.encode_iterable(iter(["lo", "w"]))) == t.encode("low")


@pytest.mark.parametrize("which", ["tok", "imported"])
def test_decode_arguments(which, request):
    t = request.getfixturevalue(which)
    # a str of digits is not a list of ids (it was read as the ids '1' and '2')
    for value in ("12", None, 5, b"\x01"):
        refused(lambda: t.decode(value), ArgumentTypeError, "list of token ids")
    refused(lambda: t.decode([1.5]), ArgumentTypeError, "whole number")
    assert t.decode(t.encode("lower")) == "lower"


def test_step_arguments(tok):
    refused(lambda: tok.at_step("3"), ArgumentTypeError, "at_step", "int(value)")
    t = Trainer.from_text(CORPUS, TrainSettings(num_merges=3))
    refused(lambda: t.run(until="5"), ArgumentTypeError, "until")
    refused(lambda: t.goto("2"), ArgumentTypeError, "Trainer.goto")
    refused(lambda: t.tokenizer(at_step=1.5), ArgumentTypeError, "at_step")


# ----- TrainSettings, Trainer, train_bpe -----------------------------------------------
SETTINGS_CASES = {
    "vocab_size abc": ({"vocab_size": "abc"}, TypeError, "vocab_size", "whole number"),
    "vocab_size float": ({"vocab_size": 300.5}, TypeError, "vocab_size"),
    "vocab_size True": ({"vocab_size": True}, TypeError, "vocab_size"),
    "vocab_size 10**30": ({"vocab_size": 10**30}, ValueError, "too large", "2,147,483,647"),
    "num_merges abc": ({"num_merges": "abc"}, TypeError, "num_merges"),
    "num_merges 2**40": ({"num_merges": 2**40}, ValueError, "too large"),
    "min_frequency 10**30": ({"min_frequency": 10**30}, ValueError, "min_frequency",
                             "64-bit"),
    "min_frequency str": ({"min_frequency": "2"}, TypeError, "min_frequency"),
    "pattern None": ({"pattern": None}, TypeError, "pattern"),
    "tie_rule None": ({"tie_rule": None}, TypeError, "tie_rule"),
    "prune str": ({"prune": "no"}, TypeError, "prune", "True or False"),
    "special_tokens 5": ({"special_tokens": 5}, TypeError, "special_tokens"),
    "special_tokens [5]": ({"special_tokens": ["<s>", 5]}, TypeError, "special_tokens[1]"),
    # regression: was accepted, then validated() failed with "'<' not supported between
    # instances of 'str' and 'int'"
    "superbpe_from str": ({"superbpe_from": "5"}, TypeError, "superbpe_from", "whole number"),
}


@pytest.mark.parametrize("case", sorted(SETTINGS_CASES))
def test_train_settings(case):
    kw, base, *words = SETTINGS_CASES[case]
    err = refused(lambda: TrainSettings(**kw), SettingsError, *words)
    assert isinstance(err, base)


def test_train_bpe_and_trainer_arguments(corpus):
    refused(lambda: train_bpe(corpus, "abc"), SettingsError, "vocab_size")
    refused(lambda: train_bpe(corpus, 10**30), SettingsError, "too large")
    refused(lambda: train_bpe(5, 300), ArgumentTypeError, "file path")
    refused(lambda: train_bpe(corpus, 300, foo=1), ArgumentTypeError, "foo", "min_frequency")
    refused(lambda: Trainer.from_text(b"low lower"), ArgumentTypeError, "decode('utf-8')")
    refused(lambda: Trainer.from_text(None), ArgumentTypeError, "text")
    refused(lambda: Trainer.from_text("low", {"vocab_size": 300}), ArgumentTypeError,
            "TrainSettings")
    refused(lambda: Trainer("low lower"), ArgumentTypeError, "PretokenTable")
    refused(lambda: Trainer.from_files(b"corpus.txt"), ArgumentTypeError, "file path")
    refused(lambda: Trainer.from_counts(None), ArgumentTypeError, "file path")


def test_vocab_size_beyond_any_machine_is_refused_not_run(corpus):
    # it used to train until the pairs ran out, as if the size were reachable
    refused(lambda: Trainer.from_text(CORPUS, TrainSettings(vocab_size=10**30)),
            SettingsError, "too large")


# ----- the other entry points ------------------------------------------------------------
def test_other_entry_points(tok, corpus, tmp_path):
    refused(lambda: load_tokenizer(None), ArgumentTypeError, "load_tokenizer(path)")
    refused(lambda: load_tokenizer(5), ArgumentTypeError, "file path")
    refused(lambda: export_tokenizer(None, tmp_path, "hf"), ArgumentTypeError, "Tokenizer")
    refused(lambda: export_tokenizer(tok, None, "hf"), ArgumentTypeError, "folder")
    refused(lambda: export_tokenizer(tok, tmp_path, None), ArgumentTypeError, "format name")
    refused(lambda: classify_tokens("tokenizer.json"), ArgumentTypeError, "Tokenizer")
    refused(lambda: vocab_overlap(tok, None), ArgumentTypeError, "vocab_overlap(b)")
    refused(lambda: language_cost(None, {"t": tok}), ArgumentTypeError, "texts")
    refused(lambda: language_cost(tmp_path, tok), ArgumentTypeError, "{label: Tokenizer}")
    refused(lambda: language_cost(tmp_path, {"t": "tok.json"}), ArgumentTypeError,
            "['t']", "Tokenizer")
    refused(lambda: language_cost(tmp_path, {"t": tok}, alpha=float("nan")), ArgumentError,
            "alpha")
    refused(lambda: count_corpus(5), ArgumentTypeError, "count_corpus(paths)")
    refused(lambda: count_corpus(pre="gpt2"), ArgumentTypeError, "Pretokenizer")
    # one string of texts would be one document per character
    refused(lambda: count_corpus(texts="a b a"), ArgumentTypeError, "put it in a list")
    refused(lambda: count_corpus(corpus, workers=0), ArgumentError, "workers")
    assert count_corpus(texts=["a b a"], pre=Pretokenizer("whitespace")).words == ["a", " ", "b"]


def test_pretokenizer_and_corpus_readers(corpus):
    from bpe_gui.engine import read_corpus_text
    from bpe_gui.engine.corpus import read_documents
    refused(lambda: Pretokenizer(None), SettingsError, "pattern", "preset")
    refused(lambda: Pretokenizer("gpt2", "<s>"), SettingsError, "special_tokens=['<s>']")
    refused(lambda: read_corpus_text(None), ArgumentTypeError, "file path")
    refused(lambda: read_documents(5), ArgumentTypeError, "file path")
    # one path, not one path per character
    assert read_corpus_text(str(corpus)) == read_corpus_text([corpus]) == corpus.read_text()
