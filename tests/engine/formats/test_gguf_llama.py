"""GGUF ``llama`` vocabularies (SentencePiece-style: scores, token types, <0xNN> bytes)
encode exactly as llama.cpp does.

Oracles: llama.cpp's own expected ids (the ``.inp``/``.out`` pairs beside the vocabulary
GGUFs of llama-cpp-python 0.3.36's sdist, used when that sdist's models are in the test
cache), and sentencepiece on the model a built GGUF was written from (conftest.py: the
same pieces, scores and types; on text without control or user-defined symbols
llama.cpp's rules give sentencepiece's ids).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bpe_gui.engine.errors import FormatError
from bpe_gui.engine.formats import detect_format, gguf_fmt, load_tokenizer

LLAMA_CPP_MODELS = Path.home() / ".cache" / "bpe-gui-tests" / "llama-cpp-python-0.3.36-models"

TEXTS = ["Hello world", " Hello world", "Hello, World! It's 3:45pm", "  two  spaces\t\ttabs\n\n",
         "你好世界，这是一个测试。", "日本語のテキスト", "Привет, мир!", "مرحبا بالعالم",
         "family 👨\u200d👩\u200d👧 🇨🇳", "def f(x):\n    return x**2\n", "12345 3.14159",
         "ﬁx ① Ａｂｃ e\u0301", "", " ", "x" * 3000]


@pytest.mark.parametrize("name", ["llama-spm", "phi-3"])
def test_llama_cpps_own_expected_ids(name):
    path = LLAMA_CPP_MODELS / f"ggml-vocab-{name}.gguf"
    if not path.exists():
        pytest.skip("llama-cpp-python's vocabulary files are not in the test cache")
    tok = gguf_fmt.load(path, parse_special=False)   # test-tokenizer-0's setting
    inputs = (LLAMA_CPP_MODELS / f"{path.name}.inp").read_text("utf-8") \
        .split("\n__ggml_vocab_test__\n")
    outputs = (LLAMA_CPP_MODELS / f"{path.name}.out").read_text("utf-8").split("\n")
    assert len(inputs) >= 30
    for text, ids in zip(inputs, outputs):
        assert tok.encode(text, allowed_special="all") == [int(x) for x in ids.split()], text


def test_a_built_gguf_equals_sentencepiece_on_its_model(gguf_files, spm_models):
    spm = pytest.importorskip("sentencepiece")
    path = gguf_files["llama"].path
    assert detect_format(path) == "gguf"
    tok = load_tokenizer(path)
    sp = spm.SentencePieceProcessor(model_file=str(spm_models["bpe_llama"].path))
    assert tok.meta["format"] == "gguf" and tok.meta["model"] == "llama"
    for text in TEXTS:
        assert tok.encode(text, allowed_special="all") == sp.encode(text), text
        enc = tok.encode_with_offsets(text, allowed_special="all")
        assert enc.ids == sp.encode(text)
        assert all(0 <= s <= e <= len(text) for s, e in enc.offsets)
        assert list(tok.playback(text).final_ids) == sp.encode(text)


def test_control_tokens_are_cut_out_with_the_space_prefix_after_them(gguf_files, spm_models):
    """llama.cpp (parse_special): '</s>' in text is its id; the text after a special token
    gets the space prefix again."""
    spm = pytest.importorskip("sentencepiece")
    tok = load_tokenizer(gguf_files["llama"].path)
    sp = spm.SentencePieceProcessor(model_file=str(spm_models["bpe_llama"].path))
    eos = sp.eos_id()
    assert tok.encode("hello</s>world", allowed_special="all") == sp.encode("hello") + [eos] + sp.encode("world")
    plain = gguf_fmt.load(gguf_files["llama"].path, parse_special=False)
    assert eos not in plain.encode("hello</s>world", allowed_special="all")


def test_the_pure_python_model_gives_the_same(gguf_files, monkeypatch):
    fast = load_tokenizer(gguf_files["llama"].path)
    monkeypatch.setitem(sys.modules, "bpe_gui.engine.tokenizers.imported._pipeline", None)
    slow = load_tokenizer(gguf_files["llama"].path)
    assert type(slow.pipeline.model.native).__module__.endswith("_pyspm")
    for text in TEXTS[:-1]:
        assert slow.encode(text, allowed_special="all") == fast.encode(text, allowed_special="all"), text
        assert slow.encode_with_offsets(text, allowed_special="all").offsets == fast.encode_with_offsets(text, allowed_special="all").offsets


def test_other_vocabularies_are_named(gguf_files):
    with pytest.raises(FormatError) as e:
        load_tokenizer(gguf_files["t5"].path)
    assert "Unigram" in str(e.value) and e.value.key == "tokenizer.ggml.model"


def test_a_truncated_gguf_is_refused_through_load(gguf_files, tmp_path):
    data = gguf_files["llama"].path.read_bytes()
    out = tmp_path / "model.gguf"
    out.write_bytes(data[: len(data) // 3])
    with pytest.raises(FormatError) as e:
        load_tokenizer(out)
    assert "model.gguf" in str(e.value)


def test_a_vocabulary_without_byte_tokens_is_refused(tmp_path):
    gguf = pytest.importorskip("gguf")
    w = gguf.GGUFWriter(str(tmp_path / "nobytes.gguf"), "llama")
    w.add_tokenizer_model("llama")
    w.add_token_list(["<unk>", "▁a", "b"])
    w.add_token_scores([0.0, -1.0, -2.0])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    with pytest.raises(FormatError) as e:
        load_tokenizer(tmp_path / "nobytes.gguf")
    assert "byte 0x00" in str(e.value) and e.value.key == "tokenizer.ggml.tokens"
