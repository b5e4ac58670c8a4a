"""Fake model stores in a temporary HOME, laid out as each tool lays them out: the
Hugging Face hub cache (blobs, snapshots of relative links, refs/main), Ollama
(manifests naming sha256 blobs), LM Studio (PUBLISHER/REPO folders), llama.cpp's flat
cache (manifest=USER=MODEL=TAG.json beside USER_MODEL_FILE.gguf).

The tokenizer files inside are made by the libraries themselves: ``tokenizers`` trains a
small byte-level BPE (``tokenizer_json``), the ``gguf`` package writes vocabulary-only
GGUF files (a tokenizer and no tensors: ``vocab_gguf``). Nothing is downloaded.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

TEXTS = ["Hello, World! It's 12345 o'clock.", "你好世界，这是一个测试。",
         "Привет, мир!", "def f(x):\n    return x ** 2  # 🙂", "  spaces\tand\ttabs  "]


@dataclass(frozen=True)
class Stores:
    home: Path

    @property
    def hf(self) -> Path:
        return self.home / ".cache" / "huggingface" / "hub"

    @property
    def ollama(self) -> Path:
        return self.home / ".ollama" / "models"

    @property
    def lmstudio(self) -> Path:
        return self.home / ".lmstudio" / "models"

    @property
    def llamacpp(self) -> Path:
        return self.home / ".cache" / "llama.cpp"

    def environ(self, **more: str) -> dict[str, str]:
        """An environment with this HOME and none of the tools' variables."""
        return {"HOME": str(self.home), **more}


# ----- tokenizer files, made by their own libraries -----------------------------------
@lru_cache(maxsize=None)
def _trained(vocab_size: int):
    tk = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers, trainers
    tok = tk.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(TEXTS * 20, trainer)
    return tok


def tokenizer_json(vocab_size: int = 400) -> bytes:
    """A byte-level BPE tokenizer.json trained by ``tokenizers``."""
    return _trained(vocab_size).to_str().encode("utf-8")


def wordpiece_json() -> bytes:
    """A WordPiece tokenizer.json (a BERT-like model: listed, not BPE)."""
    tk = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers
    tok = tk.Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(TEXTS * 5, trainers.WordPieceTrainer(
        vocab_size=200, special_tokens=["[UNK]", "[CLS]", "[SEP]"], show_progress=False))
    return tok.to_str().encode("utf-8")


@lru_cache(maxsize=None)
def vocab_gguf(model: str = "gpt2", pre: str = "llama-bpe", name: str = "test") -> bytes:
    """A vocabulary-only GGUF (tokenizer keys, no tensors) written by the gguf package,
    from the vocabulary ``tokenizers`` trained."""
    gguf = pytest.importorskip("gguf")
    import tempfile
    data = json.loads(_trained(400).to_str())
    vocab = data["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.__getitem__)
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "v.gguf"
        w = gguf.GGUFWriter(str(path), "llama")
        w.add_name(name)
        w.add_tokenizer_model(model)
        if pre:
            w.add_tokenizer_pre(pre)
        w.add_token_list(tokens)
        w.add_token_types([gguf.TokenType.CONTROL if t == "<|endoftext|>" else
                           gguf.TokenType.NORMAL for t in tokens])
        if model == "gpt2":
            w.add_token_merges(merges)
        else:
            w.add_token_scores([0.0] * len(tokens))
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        return path.read_bytes()


# ----- the stores ---------------------------------------------------------------------
def _blob_name(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def hf_repo(hub: Path, repo_id: str, files: dict[str, bytes], commit: str | None = None,
            ref: bool = True, incomplete: int = 0, copies: bool = False) -> Path:
    """A model in the hub cache as huggingface_hub writes it; returns its snapshot.
    ``incomplete``: that many ``.incomplete`` blobs (a download going on); ``copies``:
    files copied into the snapshot, no blobs (a disk without symlinks)."""
    repo = hub / ("models--" + repo_id.replace("/", "--"))
    commit = commit or hashlib.sha1(repo_id.encode()).hexdigest()
    snap = repo / "snapshots" / commit
    snap.mkdir(parents=True, exist_ok=True)
    (repo / "blobs").mkdir(exist_ok=True)
    for name, data in files.items():
        target = snap / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if copies:
            target.write_bytes(data)
            continue
        blob = repo / "blobs" / _blob_name(data)
        blob.write_bytes(data)
        target.symlink_to(os.path.relpath(blob, target.parent))
    for i in range(incomplete):
        (repo / "blobs" / f"{i:064x}.incomplete").write_bytes(b"\0" * 1000)
    if ref:
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(commit)
    return snap


def ollama_model(models: Path, name: str, gguf_bytes: bytes,
                 extra: dict[str, bytes] | None = None) -> Path:
    """A pulled Ollama model: its blobs and its manifest; returns the model blob."""
    host, ns, rest = "registry.ollama.ai", "library", name
    if rest.count("/") == 1:
        ns, rest = rest.split("/")
    elif rest.count("/") >= 2:
        host, ns, rest = rest.split("/", 2)
    model, tag = rest.split(":") if ":" in rest else (rest, "latest")
    blobs = models / "blobs"
    blobs.mkdir(parents=True, exist_ok=True)
    layers = []
    items = {"application/vnd.ollama.image.model": gguf_bytes,
             "application/vnd.ollama.image.template": b"{{ .Prompt }}",
             **(extra or {})}
    for media, data in items.items():
        digest = _blob_name(data)
        (blobs / f"sha256-{digest}").write_bytes(data)
        layers.append({"mediaType": media, "digest": f"sha256:{digest}", "size": len(data)})
    config = b'{"model_format":"gguf"}'
    (blobs / f"sha256-{_blob_name(config)}").write_bytes(config)
    manifest = {"schemaVersion": 2,
                "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
                "config": {"mediaType": "application/vnd.docker.container.image.v1+json",
                           "digest": f"sha256:{_blob_name(config)}", "size": len(config)},
                "layers": layers}
    path = models / "manifests" / host / ns / model / tag
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest))
    return blobs / f"sha256-{_blob_name(gguf_bytes)}"


def lmstudio_model(models: Path, repo: str, files: dict[str, bytes]) -> Path:
    folder = models / repo
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def llamacpp_model(cache: Path, repo: str, tag: str, rfilename: str,
                   gguf_bytes: bytes | None) -> Path:
    """A model llama.cpp's -hf downloaded before March 2026: manifest and flat file."""
    cache.mkdir(parents=True, exist_ok=True)
    user, model = repo.split("/")
    (cache / f"manifest={user}={model}={tag}.json").write_text(json.dumps(
        {"ggufFile": {"rfilename": rfilename, "blobId": "x", "size": 1}}))
    path = cache / f"{repo}_{rfilename}".replace("/", "_")
    if gguf_bytes is not None:
        path.write_bytes(gguf_bytes)
    return path


def standard(home: Path) -> Stores:
    """One of each: two HF models (a tokenizer.json, a GGUF repo), two Ollama models (the
    library's and another host's), an LM Studio folder of quantizations with a vision
    projector, an LM Studio MLX folder, a llama.cpp download."""
    s = Stores(home)
    weights = b"\0" * 5000
    hf_repo(s.hf, "meta-llama/Llama-3.2-1B",
            {"tokenizer.json": tokenizer_json(), "config.json": b"{}",
             "model.safetensors": weights})
    hf_repo(s.hf, "bartowski/Qwen2.5-0.5B-GGUF",
            {"Qwen2.5-0.5B-Q8_0.gguf": vocab_gguf("gpt2", "qwen2") + b"\0" * 3000,
             "Qwen2.5-0.5B-Q4_K_M.gguf": vocab_gguf("gpt2", "qwen2") + b"\0" * 1000})
    ollama_model(s.ollama, "llama3.2:1b", vocab_gguf("gpt2", "llama-bpe"))
    ollama_model(s.ollama, "hf.co/unsloth/gemma-3-GGUF:Q4_K_M", vocab_gguf("llama", "default"))
    lmstudio_model(s.lmstudio, "lmstudio-community/Qwen2.5-7B-Instruct-GGUF",
                   {"Qwen2.5-7B-Instruct-Q4_K_M.gguf": vocab_gguf("gpt2", "qwen2"),
                    "Qwen2.5-7B-Instruct-Q8_0.gguf": vocab_gguf("gpt2", "qwen2") + weights,
                    "mmproj-model-f16.gguf": b"GGUF" + b"\0" * 100})
    lmstudio_model(s.lmstudio, "mlx-community/SmolLM-135M-4bit",
                   {"tokenizer.json": tokenizer_json(300), "model.safetensors": weights})
    llamacpp_model(s.llamacpp, "ggml-org/gemma-3-1b-it-GGUF", "Q4_K_M",
                   "gemma-3-1b-it-Q4_K_M.gguf", vocab_gguf("gpt2", "gpt-2"))
    return s


STANDARD = {  # name -> (source, format) of standard()'s models
    "meta-llama/Llama-3.2-1B": ("Hugging Face", "hf"),
    "bartowski/Qwen2.5-0.5B-GGUF": ("Hugging Face", "gguf"),
    "llama3.2:1b": ("Ollama", "gguf"),
    "hf.co/unsloth/gemma-3-GGUF:Q4_K_M": ("Ollama", "gguf"),
    "lmstudio-community/Qwen2.5-7B-Instruct-GGUF": ("LM Studio", "gguf"),
    "mlx-community/SmolLM-135M-4bit": ("LM Studio", "hf"),
    "ggml-org/gemma-3-1b-it-GGUF:Q4_K_M": ("llama.cpp", "gguf"),
}
