"""Model tokenizer files in the window (issue 28): the import dialog names a GGUF file,
a tekken.json and CLIP's merges by their content, and says why a Unigram model cannot
open; dropping such a file on the window imports it (by content, whatever its name);
the status bar and the vocabulary browser name the format."""
from __future__ import annotations

import base64
import gzip
import json

import pytest

gguf = pytest.importorskip("gguf")

from bpe_gui.engine.display import gpt2_text  # noqa: E402

WORDS = [b"he", b"ll", b"hell", b"hello", b" w", b"or", b" wor", b" world"]


def _tiny_gguf(path):
    tokens = [gpt2_text(bytes([b])) for b in range(256)] + [gpt2_text(w) for w in WORDS]
    merges = ["h e", "l l", "he ll", "hell o", "Ġ w", "o r", "Ġw or", "Ġwor ld"]
    tokens.insert(len(tokens), gpt2_text(b"ld"))
    merges.insert(7, "l d")
    w = gguf.GGUFWriter(str(path), "qwen2")
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens + ["<|im_end|>"])
    w.add_token_types([gguf.TokenType.NORMAL] * len(tokens) + [gguf.TokenType.CONTROL])
    w.add_token_merges(merges)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def _tiny_tekken(path):
    ranks = [bytes([b]) for b in range(256)] + WORDS
    data = {"config": {"pattern": r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+|\s+",
                       "num_vocab_tokens": len(ranks), "default_vocab_size": len(ranks) + 10,
                       "default_num_special_tokens": 10, "version": "v7"},
            "vocab": [{"rank": r, "token_bytes": base64.b64encode(b).decode(), "token_str": None}
                      for r, b in enumerate(ranks)],
            "special_tokens": [{"rank": i, "token_str": s, "is_control": True}
                               for i, s in enumerate(["<unk>", "<s>", "</s>"])]}
    path.write_text(json.dumps(data))
    return path


def test_import_dialog_names_model_files_by_content(window, tmp_path):
    from bpe_gui.gui.dialogs.import_dialog import ImportDialog
    g = _tiny_gguf(tmp_path / "model.bin")            # a GGUF under another name
    dlg = ImportDialog(window.controller, window, path=str(g))
    assert "GGUF model file" in dlg.format_label.text()
    assert "'qwen2'" in dlg.format_label.text()
    t = _tiny_tekken(tmp_path / "tekken_240911.json")
    dlg.path_edit.setText(str(t))
    assert "Mistral tekken.json" in dlg.format_label.text()
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + [f"w{i}" for i in range(40)]))
    dlg.path_edit.setText(str(vocab))
    assert "WordPiece" in dlg.format_label.text()
    dlg.reject()


def test_dropped_model_files_import_and_name_their_format(window, qtbot, tmp_path):
    c = window.controller
    messages = []
    c.message.connect(messages.append)
    g = _tiny_gguf(tmp_path / "tokenizer.model.v3")    # no known suffix: by content
    assert window.files.open_paths([str(g)])
    assert c.imported is not None and c.imported.meta["format"] == "gguf"
    assert any("GGUF (llama.cpp)" in m for m in messages)
    assert c.imported.encode("hello world", allowed_special="all") == [256 + WORDS.index(b"hello"),
                                                256 + WORDS.index(b" world")]
    gz = tmp_path / "bpe_simple_vocab_16e6.txt.gz"
    merges = ["h e", "l l", "he ll", "hell o</w>", "w o", "r l", "wo rl", "worl d</w>"]
    gz.write_bytes(gzip.compress(("\"bpe_simple_vocab_16e6.txt#version: 0.2\n"
                                  + "\n".join(merges) + "\n").encode()))
    assert window.files.open_paths([str(gz)])
    assert c.imported.meta["format"] == "clip"
    browser = window.dock_layout.vocab_browser
    window.dock_layout.vocab_dock.show()
    window.dock_layout.vocab_dock.raise_()
    qtbot.waitUntil(lambda: "CLIP merges" in browser.summary.text(), timeout=10_000)
