"""What code ported from tiktoken or tokenizers calls, on OpenAI's published cl100k ranks
(the npm package tiktoken, tiktoken_files.py) with tiktoken over the same file as the
oracle: decode's ``errors``, ``encode_ordinary_batch``, ids of the wrong type refused as
tiktoken refuses them, and a file that is not GPT-2's given to ``Tokenizer.from_files``."""
from __future__ import annotations

import pytest

pytest.importorskip("tiktoken")

from bpe_gui.engine import Tokenizer, load_tokenizer  # noqa: E402
from bpe_gui.engine.errors import ArgumentError, BPEError, FormatError  # noqa: E402

from tiktoken_files import npm_encoding  # noqa: E402

TEXTS = ["hello world", "你好世界 🙂", "é" * 3 + " x", "", "a<|endoftext|>b"]


@pytest.fixture(scope="module")
def cl100k(tmp_path_factory):
    path, enc = npm_encoding("cl100k_base", tmp_path_factory.mktemp("cl100k"))
    return load_tokenizer(path), enc, path


@pytest.mark.regression
@pytest.mark.parametrize("errors", ["replace", "strict", "ignore", "backslashreplace"])
def test_decode_errors_as_tiktoken(cl100k, errors):
    """decode(ids, errors=...) raised TypeError: an unexpected keyword argument."""
    tok, enc, _ = cl100k
    for text in ["héllo 你好 🙂", "plain"]:
        ids = enc.encode(text)
        for cut in (ids, ids[:-1], ids[1:], ids[:1]):   # (some cut inside a character)
            try:
                want: str | type = enc.decode(cut, errors=errors)
            except UnicodeDecodeError:
                want = UnicodeDecodeError
            if want is UnicodeDecodeError:
                with pytest.raises(UnicodeDecodeError):
                    tok.decode(cut, errors=errors)
            else:
                assert tok.decode(cut, errors=errors) == want
    with pytest.raises(ArgumentError, match="names no error handler"):
        tok.decode(ids, errors="nonsense")


def test_decode_errors_on_a_decoder_that_rewrites(tmp_path):
    """A tokenizer.json whose decoder rewrites its tokens takes "replace" and "strict";
    another handler is refused with the fix, not applied to something else."""
    tokenizers = pytest.importorskip("tokenizers")
    from hf_files import CASES
    hf = CASES["metaspace-always-split"]()
    hf.save(str(tmp_path / "tokenizer.json"))
    tok = load_tokenizer(tmp_path / "tokenizer.json")
    ids = hf.encode("hello world", add_special_tokens=False).ids
    assert tok.decode(ids, errors="strict") == hf.decode(ids) == tok.decode(ids)
    with pytest.raises(ArgumentError, match="decode_bytes"):
        tok.decode(ids, errors="ignore")
    assert isinstance(tokenizers, object)


@pytest.mark.regression
def test_encode_ordinary_batch_as_tiktoken(cl100k):
    """encode_ordinary_batch was missing."""
    tok, enc, _ = cl100k
    assert tok.encode_ordinary_batch(TEXTS, num_threads=2) == enc.encode_ordinary_batch(TEXTS)


@pytest.mark.regression
@pytest.mark.parametrize("bad", [[15339.0, 1917.0], [[1]], ["1"], [None]])
def test_ids_of_the_wrong_type_are_refused_as_tiktoken_refuses_them(cl100k, bad):
    """decode([15339.0, 1917.0]) gave 'hello world' and decode([[1]]) a bare
    "unhashable type" TypeError; tiktoken raises TypeError for both."""
    tok, enc, _ = cl100k
    with pytest.raises(TypeError):
        enc.decode(bad)
    for call in (tok.decode, tok.decode_bytes, tok.decode_tokens_bytes):
        with pytest.raises(TypeError) as got:
            call(bad)
        assert isinstance(got.value, BPEError) and "whole number" in str(got.value)


@pytest.mark.regression
def test_from_files_on_another_format_names_load_tokenizer(cl100k, tmp_path):
    """Tokenizer.from_files on a .tiktoken file said "line 1: is not valid JSON"."""
    _, _, path = cl100k
    with pytest.raises(FormatError, match=r"tiktoken ranks.*load_tokenizer\(path\)"):
        Tokenizer.from_files(path)
    (tmp_path / "tokenizer.json").write_text('{"model": {"type": "BPE"}}', "utf-8")
    with pytest.raises(FormatError, match=r"tokenizer.json.*load_tokenizer\(path\)"):
        Tokenizer.from_files(tmp_path / "tokenizer.json")
