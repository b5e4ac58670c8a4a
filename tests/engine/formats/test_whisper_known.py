"""Whisper's multilingual.tiktoken, recognised by its content: whisper's get_encoding
runs it with GPT-2's pattern (not cl100k's, which the bare file fell back to) and
appends its special tokens after the ranks.

The file ships in the openai-whisper package (whisper/assets/); it is found in an
installed ``whisper`` package or in the folder BPE_GUI_WHISPER_ASSETS names (e.g. the
sdist unpacked: ``pip download --no-deps openai-whisper``). The oracle is
whisper's own ``get_encoding`` (its tokenizer.py imports only tiktoken) where the
tokenizer.py is beside the assets, else tiktoken over the file's ranks with whisper's
pat_str, written here as whisper writes it."""
from __future__ import annotations

import base64
import importlib.util
import os
from pathlib import Path

import pytest

from bpe_gui.engine.formats import known_encodings as known, load_tokenizer

tiktoken = pytest.importorskip("tiktoken")

WHISPER_PAT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
TEXTS = {
    "english": "Hello, World! It's 3:45pm; we'll see... DON'T I'M x2",
    "chinese": "你好世界，这是一个测试。我们在学习字节对编码的分词方法。",
    "arabic": "مرحبا بالعالم، هذا اختبار ١٢٣ للمقسم.",
    "emoji": "emoji 🙂👍🏽 👨\u200d👩\u200d👧 🇨🇳 done",
    "digits": "1 12 123 1234 12345 123456 3.14159 ０１２３４５６ １２３",
    "specials": "<|startoftranscript|><|en|><|transcribe|> hi<|endoftext|>",
}


def whisper_assets() -> Path | None:
    folder = os.environ.get("BPE_GUI_WHISPER_ASSETS")
    if folder:
        return Path(folder)
    spec = importlib.util.find_spec("whisper")   # (finds it without importing torch)
    if spec is not None and spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0]) / "assets"
    return None


@pytest.fixture(scope="module")
def multilingual() -> Path:
    assets = whisper_assets()
    if assets is None or not (assets / "multilingual.tiktoken").is_file():
        pytest.skip("Whisper's multilingual.tiktoken is not here (pip download --no-deps "
                    "openai-whisper, unpack it, set BPE_GUI_WHISPER_ASSETS=.../whisper/assets)")
    return assets / "multilingual.tiktoken"


def test_whispers_special_tokens_make_its_published_vocabulary_size():
    """Whisper's multilingual models have 51,865 ids: 50,257 ranks and the specials."""
    entry = next(k for k in known.KNOWN if k.name == "whisper_multilingual")
    assert 50257 + len(entry.special_tokens) == 51865
    assert entry.pat_str == known.GPT2_PATTERN
    assert entry.special_tokens["<|endoftext|>"] == 50257
    assert entry.special_tokens["<|0.00|>"] == 50364


def whispers_own(assets: Path):
    """whisper's get_encoding("multilingual"), from its tokenizer.py beside the assets
    (it imports only tiktoken), or None."""
    source = assets.parent / "tokenizer.py"
    if not source.is_file():
        return None
    spec = importlib.util.spec_from_file_location("whisper_tokenizer_alone", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.get_encoding("multilingual")


@pytest.mark.regression
def test_whisper_multilingual_gives_whispers_ids(multilingual):
    """The bare file ran with cl100k's pattern: ids differed on numbers and fullwidth
    digits."""
    enc = whispers_own(multilingual.parent)
    if enc is None:   # tiktoken as whisper sets it up
        ranks = {base64.b64decode(t): int(r) for t, r in
                 (line.split() for line in multilingual.read_text().splitlines() if line)}
        entry = next(k for k in known.KNOWN if k.name == "whisper_multilingual")
        enc = tiktoken.Encoding("multilingual.tiktoken", pat_str=WHISPER_PAT,
                                mergeable_ranks=ranks, special_tokens=entry.special_tokens)
    tok = load_tokenizer(multilingual)
    assert tok.meta.get("encoding") == "whisper_multilingual"
    for name, text in TEXTS.items():
        assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all"), name
