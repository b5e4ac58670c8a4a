"""``bpe_gui.engine.compat.tiktoken``'s module-level calls and its refusals: encodings read
from a folder named by TIKTOKEN_ENCODINGS_BASE and held to tiktoken itself, model names
mapped as tiktoken maps them, special tokens at fixed ids with their clashes named, and a
file that is not on the machine or a name that is not known said in words."""
from __future__ import annotations

import pytest

import bpe_gui.engine.compat.tiktoken as ours
from bpe_gui.engine.errors import ArgumentError, UnknownTokenError

from tiktoken_files import NPM_HOW, npm_ranks

real = pytest.importorskip("tiktoken")
real_model = pytest.importorskip("tiktoken.model")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("encodings")
    for name in ("r50k_base", "p50k_base"):
        if npm_ranks(name, d) is None:
            pytest.skip(f"OpenAI's ranks files are not here ({NPM_HOW})")
    return d


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """No encoding made yet, tiktoken's cache empty."""
    monkeypatch.setattr(ours, "_ENCODINGS", {})
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TIKTOKEN_ENCODINGS_BASE", raising=False)


def test_encodings_from_a_named_folder_are_tiktokens(folder, fresh, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_ENCODINGS_BASE", str(folder))
    text = "hello <|endoftext|> <|fim_prefix|>x<|fim_suffix|> 1234 don't"
    for name in ("gpt2", "r50k_base", "p50k_base", "p50k_edit"):
        enc = ours.get_encoding(name)
        theirs = real.Encoding(name, pat_str=enc._pat_str,
                               mergeable_ranks=enc._mergeable_ranks,
                               special_tokens=enc._special_tokens)
        assert enc.name == name and enc is ours.get_encoding(name)
        assert enc.encode(text, allowed_special="all") == \
            theirs.encode(text, allowed_special="all")
    assert ours.get_encoding("p50k_edit").encode("<|fim_middle|>", allowed_special="all") == \
        [50282]


def test_model_names_map_as_tiktokens():
    names = [*real_model.MODEL_TO_ENCODING, "gpt-4o-2024-05-13", "ft:gpt-4o-mini:org",
             "ft:gpt-4:org", "gpt-oss-120b", "gpt-5-nano", "o4-mini-high", "gpt-35-turbo-16k"]
    for n in names:
        assert ours.encoding_name_for_model(n) == real_model.encoding_name_for_model(n), n
    assert set(ours.list_encoding_names()) == set(real.list_encoding_names())
    with pytest.raises(KeyError, match="get_encoding") as got:
        ours.encoding_for_model("llama-7b")
    assert isinstance(got.value, UnknownTokenError)
    assert str(got.value).startswith("Could not map the model 'llama-7b'")


def test_a_file_not_on_the_machine_is_said(fresh):
    with pytest.raises(ArgumentError, match=r"cl100k_base.tiktoken is not on this machine.*"
                                            r"TIKTOKEN_ENCODINGS_BASE"):
        ours.get_encoding("cl100k_base")
    with pytest.raises(ValueError, match="Unknown encoding 'cl100k'.*cl100k_base"):
        ours.get_encoding("cl100k")


def test_a_file_of_other_content_is_not_taken(folder, fresh, monkeypatch, tmp_path):
    (tmp_path / "r50k_base.tiktoken").write_bytes((folder / "p50k_base.tiktoken").read_bytes())
    monkeypatch.setenv("TIKTOKEN_ENCODINGS_BASE", str(tmp_path))
    with pytest.raises(ArgumentError, match="r50k_base.tiktoken is not on this machine"):
        ours.get_encoding("r50k_base")


RANKS = {bytes([b]): b for b in range(256)} | {b"ab": 256}


@pytest.mark.parametrize("specials, problem", [
    ({"<|x|>": 97}, r"'<\|x\|>' has id 97, the rank of the token b'a'; .*from 257"),
    ({"<|x|>": 300, "<|y|>": 300}, r"'<\|x\|>' and '<\|y\|>' both have id 300"),
    ({"<|x|>": -1}, r"special_tokens\['<\|x\|>'\]"),
])
def test_special_tokens_at_ids_that_clash_are_refused(specials, problem):
    with pytest.raises(ArgumentError, match=problem):
        ours.Encoding("x", pat_str=r"\S+|\s+", mergeable_ranks=RANKS, special_tokens=specials)


def test_special_tokens_keep_the_ids_given_and_explicit_n_vocab_is_checked():
    enc = ours.Encoding("x", pat_str=r"\S+|\s+", mergeable_ranks=RANKS,
                        special_tokens={"<|a|>": 1000, "<|b|>": 257}, explicit_n_vocab=None)
    theirs = real.Encoding("x", pat_str=r"\S+|\s+", mergeable_ranks=RANKS,
                           special_tokens={"<|a|>": 1000, "<|b|>": 257})
    text = "ab<|a|>c<|b|>"
    assert enc.encode(text, allowed_special="all") == \
        theirs.encode(text, allowed_special="all") == [256, 1000, 99, 257]
    assert (enc.n_vocab, enc.max_token_value) == (theirs.n_vocab, theirs.max_token_value)
    ours.Encoding("y", pat_str=r"\S+", mergeable_ranks=RANKS, special_tokens={"<|e|>": 257},
                  explicit_n_vocab=258)
    with pytest.raises(ArgumentError, match="explicit_n_vocab=300"):
        ours.Encoding("y", pat_str=r"\S+", mergeable_ranks=RANKS,
                      special_tokens={"<|e|>": 257}, explicit_n_vocab=300)
