"""Model files the tests build with each format's own library: a GGUF written by the gguf
package and a tekken.json, from tokenizers' training or from a tokenizer's ranks."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

# Qwen2's split, as llama.cpp's "qwen2" pre-tokenizer runs it
QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
               r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


def gguf_file(d: Path, corpus: str, eot: str, bos_eos: bool = False):
    """A byte-level BPE that tokenizers trains on ``corpus`` (Qwen2's split, ``eot`` a
    special token), written as ``d/model.gguf`` by the gguf package with ``eot`` a
    CONTROL token (``bos_eos``: also its BOS and EOS, llama.cpp told to add both around
    a prompt). Returns the path and tokenizers' Tokenizer (the oracle)."""
    gguf = pytest.importorskip("gguf")
    import tokenizers
    from tokenizers import Regex, decoders, models, pre_tokenizers, trainers
    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    hf.decoder = decoders.ByteLevel()
    hf.train_from_iterator([corpus], trainers.BpeTrainer(
        vocab_size=600, special_tokens=[eot], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    data = json.loads(hf.to_str())
    vocab = data["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.__getitem__)
    path = d / "model.gguf"
    w = gguf.GGUFWriter(str(path), "qwen2")
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens)
    w.add_token_types([gguf.TokenType.CONTROL if t == eot else gguf.TokenType.NORMAL
                       for t in tokens])
    w.add_token_merges([m if isinstance(m, str) else " ".join(m)
                        for m in data["model"]["merges"]])
    if bos_eos:
        w.add_bos_token_id(vocab[eot])
        w.add_eos_token_id(vocab[eot])
        w.add_add_bos_token(True)
        w.add_add_eos_token(True)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path, hf


def tekken_file(d: Path, base, eot: str) -> Path:
    """``d/tekken.json`` with the ranks of ``base`` (a trained tokenizer: the 256 bytes,
    then its longer tokens in id order), the published pattern and four control tokens."""
    from bpe_gui.engine.text.presets import TEKKEN_PATTERN
    ranks = [bytes([b]) for b in range(256)] + sorted(
        (t for i, t in base.vocab.items() if len(t) > 1 and i not in base.special_ids.values()),
        key=base.bytes_to_id.__getitem__)
    data = {"config": {"pattern": TEKKEN_PATTERN, "num_vocab_tokens": len(ranks),
                       "default_vocab_size": len(ranks) + 30,
                       "default_num_special_tokens": 30, "version": "v7"},
            "vocab": [{"rank": r, "token_bytes": base64.b64encode(b).decode(),
                       "token_str": None} for r, b in enumerate(ranks)],
            "special_tokens": [{"rank": i, "token_str": s, "is_control": True}
                               for i, s in enumerate(["<unk>", "<s>", "</s>", eot])]}
    path = d / "tekken.json"
    path.write_text(json.dumps(data))
    return path
