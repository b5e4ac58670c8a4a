"""The content sniffer: every format from its first bytes, whatever the file's name; other
kinds of model named, and anything else None."""
from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest

from bpe_gui.engine.formats.sniff import HEAD_BYTES, sniff, sniff_file


def _sniff(path: Path, head_bytes: int = HEAD_BYTES):
    data = path.read_bytes()
    return sniff(data[:head_bytes], len(data))


def _renamed(path: Path, tmp_path: Path, name: str = "renamed.bin") -> Path:
    p = tmp_path / name
    p.write_bytes(path.read_bytes())
    return p


@pytest.mark.parametrize("name, kind", [("gpt2", "BPE"), ("gpt2_be", "BPE"), ("llama", "BPE"),
                                        ("values", "BPE"), ("t5", "Unigram")])
def test_gguf(gguf_files, tmp_path, name, kind):
    found = _sniff(_renamed(gguf_files[name].path, tmp_path, "model.txt"))
    assert found.format == "gguf" and found.kind == kind
    assert (found.problem is None) == (kind == "BPE")
    if kind == "Unigram":
        assert "Unigram" in found.problem and "not BPE" in found.problem


@pytest.mark.parametrize("kind", ["bpe_llama", "bpe_nfkc", "bpe_suffix", "unigram"])
def test_sentencepiece(spm_models, tmp_path, kind):
    path = _renamed(spm_models[kind].path, tmp_path, "tokenizer.json")
    assert _sniff(path).format == "sentencepiece"
    found = sniff_file(path)
    if kind == "unigram":
        assert found.kind == "Unigram"
        assert found.problem.startswith("is a Unigram SentencePiece model") \
            and "not BPE" in found.problem
    else:
        assert found.kind == "BPE" and found.problem is None


def test_tekken(tekken_files, tmp_path):
    for path in tekken_files.values():
        assert _sniff(_renamed(path, tmp_path, "tokenizer.json"), 4096).format == "tekken"


def test_clip(clip_file, tmp_path):
    assert _sniff(_renamed(clip_file.gz, tmp_path), 4096).format == "clip"
    assert _sniff(_renamed(clip_file.plain, tmp_path, "merges.txt")).format == "clip"


def _hf(tmp_path: Path, model, name: str) -> Path:
    tk = pytest.importorskip("tokenizers")
    tok = tk.Tokenizer(model)
    p = tmp_path / name
    p.write_text(tok.to_str(), "utf-8")
    return p


def test_tokenizer_json_of_every_model_type(tmp_path, byte_bpe):
    tk = pytest.importorskip("tokenizers")
    bpe = tmp_path / "a.json"
    bpe.write_text(byte_bpe.tokenizer_json, "utf-8")
    found = _sniff(bpe)
    assert found.format == "hf" and found.kind == "BPE" and found.problem is None
    uni = _sniff(_hf(tmp_path, tk.models.Unigram([("<unk>", 0.0), ("a", -1.0)], 0, False), "u"))
    assert uni.kind == "Unigram" and "not BPE" in uni.problem
    wp = _sniff(_hf(tmp_path, tk.models.WordPiece({"[UNK]": 0, "a": 1}, unk_token="[UNK]"), "w"))
    assert wp.kind == "WordPiece" and "WordPiece" in wp.problem


def test_gpt2_files_as_tokenizers_saves_them(tmp_path, byte_bpe):
    tk = pytest.importorskip("tokenizers")
    tok = tk.Tokenizer.from_str(byte_bpe.tokenizer_json)
    vocab, merges = tok.model.save(str(tmp_path), "x")
    assert _sniff(_renamed(Path(vocab), tmp_path, "v")).format == "gpt2-vocab"
    assert _sniff(_renamed(Path(merges), tmp_path, "m")).format == "gpt2-merges"


def test_tiktoken_ranks_and_metadata(tmp_path, tekken_ranks):
    ranks = tmp_path / "r"
    ranks.write_bytes(b"".join(base64.b64encode(b) + b" %d\n" % i
                               for i, b in enumerate(tekken_ranks)))
    assert _sniff(ranks).format == "tiktoken"
    meta = tmp_path / "m"
    meta.write_text(json.dumps({"pat_str": "x", "special_tokens": {}}), "utf-8")
    assert _sniff(meta).format == "tiktoken-meta"


def test_bpe_gui_native(tmp_path):
    from bpe_gui.engine.formats import export_tokenizer
    from bpe_gui.engine import Trainer, TrainSettings
    t = Trainer.from_text("hello hello world " * 20, TrainSettings(vocab_size=270))
    t.run(detail=False)
    tok = t.tokenizer()
    (path,) = export_tokenizer(tok, tmp_path, "native")
    assert _sniff(_renamed(path, tmp_path)).format == "native"


def test_other_vocab_listings(tmp_path):
    bert = tmp_path / "vocab.txt"
    bert.write_text("[PAD]\n" + "".join(f"[unused{i}]\n" for i in range(20))
                    + "[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\n##s\n", "utf-8")
    found = _sniff(bert)
    assert found.format == "wordpiece-vocab" and "WordPiece" in found.problem
    spv = tmp_path / "m.vocab"
    spv.write_text("".join(f"▁w{i}\t{-i}.5\n" for i in range(30)), "utf-8")
    found = _sniff(spv)
    assert found.format == "sentencepiece-vocab" and ".model" in found.problem


_RNG = random.Random(28)   # the same bytes in every run (and every xdist worker)


@pytest.mark.parametrize("data", [b"", b"hello world, just text\n" * 10, _RNG.randbytes(4096),
                                  b"PK\x03\x04" + _RNG.randbytes(500), b"\x89PNG\r\n\x1a\n" + b"\0" * 99,
                                  b'{"a": [1, 2]}', b"GGUF\x09\0\0\0" + _RNG.randbytes(100),
                                  b"\x1f\x8b" + _RNG.randbytes(100)],
                         ids=["empty", "text", "random", "zip", "png", "json", "gguf-v9", "gzip"])
def test_anything_else_is_none(data):
    assert sniff(data, len(data)) is None


def test_a_safetensors_header_is_none():
    header = json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
    data = len(header).to_bytes(8, "little") + header + b"\0" * 8
    assert sniff(data, len(data)) is None
