"""Model files written out where a format can hold them exactly (issue 28): a GGUF whose
split is a preset and a tekken.json, as tokenizer.json and .tiktoken, load back in
tokenizers and tiktoken with the same ids as the file's own library; the rest is refused
with the reason."""
from __future__ import annotations

import json

import pytest

from bpe_gui.engine.errors import ExportError
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer, supported_formats

from test_gguf_tokenizer import TEXTS, _write_gguf

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")
from tiktoken.load import load_tiktoken_bpe  # noqa: E402

SHORT = {k: v for k, v in TEXTS.items() if k != "long"}


def _hf(path):
    hf = tokenizers.Tokenizer.from_file(str(path))
    return lambda t: hf.encode(t, add_special_tokens=False).ids


def _tt(files, allowed="all"):
    meta = json.loads(files[1].read_text())
    enc = tiktoken.Encoding("x", pat_str=meta["pat_str"], mergeable_ranks=load_tiktoken_bpe(
        str(files[0])), special_tokens=meta["special_tokens"])
    return lambda t: enc.encode(t, allowed_special=allowed)


@pytest.mark.parametrize("pre", ["qwen2", "llama-bpe", "gpt-2"])
def test_a_gguf_of_a_preset_split_exports(tmp_path, byte_bpe, pre):
    tok = load_tokenizer(_write_gguf(tmp_path / "t.gguf", byte_bpe, pre))
    formats = supported_formats(tok)
    assert "hf" in formats
    assert ("gpt2" in formats) == (pre == "gpt-2")
    for fmt in ("hf", "tiktoken", "gpt2"):
        if fmt not in formats:
            continue
        files = export_tokenizer(tok, tmp_path / fmt, fmt)
        oracle = _hf(files[0]) if fmt == "hf" else _tt(files) if fmt == "tiktoken" else None
        back = load_tokenizer(files[0])
        for name, text in SHORT.items():
            want = tok.encode(text, allowed_special="all")
            if oracle is not None:
                assert oracle(text) == want, (fmt, name)
            assert back.encode(text, allowed_special="all") == want, (fmt, name)


def test_a_gguf_of_another_split_is_refused_with_the_reason(tmp_path, byte_bpe):
    tok = load_tokenizer(_write_gguf(tmp_path / "t.gguf", byte_bpe, "starcoder"))
    assert supported_formats(tok) == ["csv"]
    with pytest.raises(ExportError, match="'starcoder' pre-tokenizer"):
        export_tokenizer(tok, tmp_path / "x", "hf")


def test_a_tekken_exports_without_its_special_tokens(tmp_path, tekken_files):
    mc = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
    path = tekken_files["v7"]
    tok, ref = load_tokenizer(path), mc.Tekkenizer.from_file(str(path))
    assert "gpt2" not in supported_formats(tok)
    for fmt in ("hf", "tiktoken"):
        files = export_tokenizer(tok, tmp_path / fmt, fmt)
        oracle = _hf(files[0]) if fmt == "hf" else _tt(files)
        for name, text in {**SHORT, "specials": "<s>[INST] hi [/INST]</s>"}.items():
            want = ref.encode(text, bos=False, eos=False)
            assert oracle(text) == want, (fmt, name)
            assert load_tokenizer(files[0]).encode(text, allowed_special="all") == want, (fmt, name)
