"""The command line on model files (issue 28): a GGUF and a tekken.json encode to their
own library's ids, ``inspect`` names the format, hostile files get one line naming the
file and the field, and a .tiktoken whose pattern is guessed says so on stderr."""
from __future__ import annotations

import base64
import json
import struct

import pytest

from bpe_gui.engine.display import gpt2_text
from bpe_gui.engine.formats import load_tokenizer

from test_cli import assert_user_error, err, out, run

gguf = pytest.importorskip("gguf")
WORDS = [b"he", b"ll", b"hell", b"hello", b" w", b"or", b" wor", b"ld", b" world"]


@pytest.fixture(scope="module")
def model_gguf(tmp_path_factory):
    path = tmp_path_factory.mktemp("gguf") / "model.gguf"
    w = gguf.GGUFWriter(str(path), "qwen2")
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    tokens = [gpt2_text(bytes([b])) for b in range(256)] + [gpt2_text(x) for x in WORDS]
    w.add_token_list(tokens + ["<|im_end|>"])
    w.add_token_types([gguf.TokenType.NORMAL] * len(tokens) + [gguf.TokenType.CONTROL])
    w.add_token_merges(["h e", "l l", "he ll", "hell o", "Ġ w", "o r", "Ġw or", "l d",
                        "Ġwor ld"])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def test_encode_and_inspect_a_gguf(model_gguf, tmp_path):
    p = run("encode", "--tokenizer", str(model_gguf), "--ids-only", "hello world<|im_end|>",
            cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert out(p).split() == [str(256 + WORDS.index(b"hello")),
                              str(256 + WORDS.index(b" world")), str(256 + len(WORDS))]
    p = run("inspect", "--tokenizer", str(model_gguf), "--limit", "1", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert "format:       GGUF (llama.cpp): gpt2 BPE, pre-tokenizer 'qwen2'" in out(p)
    p = run("encode", "--tokenizer", str(model_gguf), "--preset", "gpt2", "x", cwd=tmp_path)
    assert_user_error(p, "cannot be replaced")


def test_hostile_model_files_get_one_line(model_gguf, tmp_path):
    data = model_gguf.read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(data[:len(data) // 2])
    assert_user_error(run("encode", "--tokenizer", str(cut), "hi", cwd=tmp_path), str(cut))
    arr = tmp_path / "arr.gguf"
    key = b"tokenizer.ggml.tokens"
    arr.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key
                    + struct.pack("<IIQ", 9, 8, 10**12) + b"\0" * 64)
    assert_user_error(run("inspect", "--tokenizer", str(arr), cwd=tmp_path),
                      "tokenizer.ggml.tokens", "past the end")
    tek = tmp_path / "tekken.json"
    ranks = [bytes([b]) for b in range(256)] + [b"ab", b"ab"]
    tek.write_text(json.dumps({"config": {"pattern": r"\S+|\s+", "num_vocab_tokens": 258,
                                          "default_vocab_size": 288,
                                          "default_num_special_tokens": 30, "version": "v3"},
                               "vocab": [{"rank": r, "token_bytes": base64.b64encode(b).decode()}
                                         for r, b in enumerate(ranks)]}))
    assert_user_error(run("encode", "--tokenizer", str(tek), "hi", cwd=tmp_path),
                      "vocab[257].token_bytes", "same bytes")
    garbage = tmp_path / "tokenizer.json"
    garbage.write_bytes(bytes(range(1, 256)) * 40)
    assert_user_error(run("encode", "--tokenizer", str(garbage), "hi", cwd=tmp_path),
                      str(garbage))


def test_a_guessed_tiktoken_pattern_is_said_on_stderr(tmp_path):
    p = tmp_path / "mine.tiktoken"
    p.write_text("".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256)))
    r = run("encode", "--tokenizer", str(p), "--ids-only", "it's 12345", cwd=tmp_path)
    assert r.returncode == 0
    assert "pattern was assumed to be the cl100k preset" in err(r)
    assert "--preset" in err(r) and str(p) in err(r)
    assert err(r).count("cl100k") == 1 and "Warning" not in err(r)   # one note, no traceback
    assert out(r).split() == [str(i) for i in load_tokenizer(p, pattern="cl100k").encode(
        "it's 12345", allowed_special="all")]
    r = run("encode", "--tokenizer", str(p), "--ids-only", "--preset", "gpt2", "x", cwd=tmp_path)
    assert r.returncode == 0 and err(r) == ""
