"""Data-mixture inference on the model-file kinds built here (conftest.py): a GGUF 'gpt2'
vocabulary and tekken.json give the proportions their own merge list gives as a plain
tokenizer; SentencePiece-style vocabularies (a .model, a GGUF 'llama') are refused by name
(their symbols are characters and '▁', not bytes)."""
from __future__ import annotations

import pytest

from bpe_gui.engine.analysis import infer_mixture, mixture_refusal
from bpe_gui.engine.formats import load_tokenizer
from bpe_gui.engine.tokenizers import Tokenizer

from mixture_data import samples

pytest.importorskip("scipy")


def plain(tok) -> Tokenizer:
    """The same merges (and the file's pattern) as a tokenizer trained here would hold."""
    merges = [(bytes(a), bytes(b)) for a, b in tok.merges]
    vocab = {i: bytes([i]) for i in range(256)}
    for a, b in merges:
        vocab[len(vocab)] = a + b
    return Tokenizer(vocab, merges, [], pattern=tok.pattern)


@pytest.fixture(scope="module")
def texts():
    return {k: v[:20_000] for k, v in samples().items()}


@pytest.mark.parametrize("kind", ["gguf", "tekken"])
def test_byte_level_model_files(kind, gguf_files, tekken_files, texts):
    path = gguf_files["gpt2"].path if kind == "gguf" else tekken_files["v3"]
    tok = load_tokenizer(path)
    assert mixture_refusal(tok) is None
    got = infer_mixture(tok, texts).proportions
    want = infer_mixture(plain(tok), texts).proportions
    assert got == pytest.approx(want, abs=1e-9)
    assert sum(got.values()) == pytest.approx(1)


def test_sentencepiece_vocabularies_are_refused_by_name(gguf_files, spm_models):
    for tok in (load_tokenizer(gguf_files["llama"].path),
                load_tokenizer(spm_models["bpe_llama"].path)):
        why = mixture_refusal(tok)
        assert why and "byte-level" in why, why
