"""Reading a learner's result: every format as written (merges kept in their order, even
wrong ones), and pickles read without running any code."""
from __future__ import annotations

import os
import pickle
import pickletools

import pytest

import bpe_learners as L
from bpe_gui.engine.check import SafeUnpickler, read_result
from bpe_gui.engine.errors import FormatError

VOCAB = {i: bytes([i]) for i in range(256)} | {256: b"<|endoftext|>", 257: b"st", 258: b"est"}
MERGES = [(b"s", b"t"), (b"e", b"st")]


class Payload:
    """Unpickling this runs os.system: a pickle that can run code."""

    def __reduce__(self):
        return (os.system, ("touch pwned-by-pickle",))


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_a_cs336_pickle_reads_in_every_protocol(tmp_path, protocol):
    path = tmp_path / "bpe.pkl"
    path.write_bytes(pickle.dumps((VOCAB, MERGES), protocol=protocol))
    r = read_result(path)
    assert (r.format, r.vocab, list(r.merges)) == ("pickle", VOCAB, MERGES)
    assert r.special_tokens == ("<|endoftext|>",)   # in the vocabulary, made by no merge
    assert r.pattern is None


def test_a_pickle_that_would_run_code_is_refused_without_running_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "evil.pkl"
    path.write_bytes(pickle.dumps((VOCAB, [Payload()])))
    assert b"system" in path.read_bytes()
    with pytest.raises(FormatError) as e:
        read_result(path)
    assert "posix.system" in str(e.value) or "os.system" in str(e.value)
    assert "a pickle can run code" in str(e.value)
    assert not (tmp_path / "pwned-by-pickle").exists()


def test_the_safe_unpickler_builds_plain_data_only(tmp_path):
    import io
    data = pickle.dumps({"a": [1, (2, b"x")], 3: "s"})
    assert SafeUnpickler(io.BytesIO(data)).load() == {"a": [1, (2, b"x")], 3: "s"}
    for obj in ({1, 2}, 1.5j, range(3)):
        ops = {op.name for op, _, _ in pickletools.genops(pickle.dumps(obj))}
        if "STACK_GLOBAL" in ops or "GLOBAL" in ops:
            with pytest.raises(pickle.UnpicklingError):
                SafeUnpickler(io.BytesIO(pickle.dumps(obj))).load()


def test_a_dict_pickle_and_str_tokens_are_read_with_a_note(tmp_path):
    path = tmp_path / "bpe.pickle"
    vocab = {i: t.decode("latin-1") if i >= 256 else t for i, t in VOCAB.items()}
    path.write_bytes(pickle.dumps({"vocab": vocab, "merges": [("s", "t"), ("e", "st")]}))
    r = read_result(path)
    assert list(r.merges) == MERGES
    assert r.notes and "str" in r.notes[0]


@pytest.mark.parametrize("data, says", [
    (pickle.dumps([1, 2]), "the vocabulary (first item) is a int"),
    (pickle.dumps([1, 2, 3]), "holds a list"),
    (pickle.dumps(({"x": 1.5}, [])), "is not an id"),
    (pickle.dumps((VOCAB, [(b"s",)])), "merge #1"),
    (b"\x80\x04garbage", "not a readable pickle"),
])
def test_malformed_pickles_say_what_is_wrong(tmp_path, data, says):
    path = tmp_path / "bad.pkl"
    path.write_bytes(data)
    with pytest.raises(FormatError, match=says.replace("(", r"\(").replace(")", r"\)")):
        read_result(path)


def test_gpt2_files_keep_merges_as_written_even_wrong_ones(tmp_path):
    vocab, merges = dict(VOCAB), [(b"s", b"t"), (b"e", b"st"), (b"e", b"st"), (b"x", b"yz")]
    L.write_gpt2(tmp_path, vocab, merges)
    r = read_result(tmp_path)   # the folder
    assert r.format == "gpt2" and list(r.merges) == merges   # a loader would refuse "yz"
    assert read_result(tmp_path / "merges.txt").merges == r.merges


def test_tokenizer_json_records_its_pattern_and_special_tokens(tmp_path):
    L.write_hf(tmp_path, VOCAB, MERGES)
    r = read_result(tmp_path / "tokenizer.json")
    assert (r.format, r.pattern, r.special_tokens) == ("hf", "gpt2", ("<|endoftext|>",))
    assert list(r.merges) == MERGES


def test_tiktoken_merges_come_from_the_ranks(tmp_path):
    r = read_result(L.write_tiktoken(tmp_path, VOCAB, MERGES))
    assert r.format == "tiktoken" and list(r.merges) == MERGES
    assert r.pattern == L.GPT2 and r.special_tokens == ("<|endoftext|>",)


def test_a_folder_with_a_pickle_reads_the_pickle(tmp_path):
    L.write_pickle(tmp_path, VOCAB, MERGES)
    assert read_result(tmp_path).format == "pickle"


def test_files_that_hold_no_merges_are_refused(tmp_path):
    with pytest.raises(FormatError, match="not found"):
        read_result(tmp_path / "missing.pkl")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(FormatError):
        read_result(tmp_path / "notes.txt")
