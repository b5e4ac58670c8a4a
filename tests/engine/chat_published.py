"""Published files for the chat tests' oracles (imported by name as ``chat_published`` by
the engine's, the command line's and the window's chat tests): Meta's Llama 3
``tokenizer.model`` (in the llama-models package) and the ``tokenizer.json`` transformers
converts it to, as Meta's Hugging Face repository was made (``TikTokenConverter`` with
the special tokens of Meta's ``tokenizer.py``); llama.cpp's templates and vocabulary
GGUFs (llama_cpp_sdist.py); OpenAI's ``o200k_base.tiktoken`` (tiktoken_files.py). Each
helper skips the test, saying why, when its file cannot be had."""
from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from gguf_py import gguf_reader
from llama_cpp_sdist import sdist_files
from tiktoken_files import o200k_base_file

# Meta's tokenizer_config.json of Llama 3.1 Instruct names these (its chat template
# writes {{- bos_token }} first, and stops at <|eot_id|>)
LLAMA31_CONFIG = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}


def llama3_model() -> Path:
    """Meta's Llama 3 tokenizer.model, as llama-models ships it."""
    lm = pytest.importorskip("llama_models")
    path = Path(lm.__file__).parent / "llama3" / "tokenizer.model"
    if not path.is_file():
        pytest.skip(f"llama-models has no {path}")
    return path


def llama3_specials() -> dict[str, int]:
    """The special tokens of Meta's llama3/tokenizer.py and their ids."""
    from llama_models.llama3.tokenizer import Tokenizer
    return dict(Tokenizer(llama3_model()).special_tokens)


def llama3_json(folder: Path) -> Path:
    """``folder/tokenizer.json``: Meta's tokenizer.model converted by transformers'
    TikTokenConverter with Meta's special tokens (no config beside it)."""
    text = _llama3_converted()
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "tokenizer.json"
    out.write_text(text, encoding="utf-8")
    return out


@functools.lru_cache(maxsize=1)
def _llama3_converted() -> str:
    """The conversion's tokenizer.json text, made once per process (about 10 s)."""
    pytest.importorskip("transformers")
    from transformers.convert_slow_tokenizer import TikTokenConverter
    specials = llama3_specials()
    names = [s for s, _ in sorted(specials.items(), key=lambda kv: kv[1])]
    tok = TikTokenConverter(vocab_file=str(llama3_model()), extra_special_tokens=names).converted()
    assert all(tok.token_to_id(s) == i for s, i in specials.items())
    return tok.to_str(pretty=True)


def write_json(path: Path, data) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def sdist_file(name: str) -> Path:
    """A file llama-cpp-python's sdist vendors of llama.cpp (a template, a vocab GGUF)."""
    folder, why = sdist_files()
    if folder is None:
        pytest.skip(why)
    path = folder / name
    if not path.is_file():
        pytest.skip(f"the llama-cpp-python sdist has no {name}")
    return path


@functools.lru_cache(maxsize=4)
def _gguf_fields(path: Path) -> dict:
    """gguf-py's fields of a GGUF, read once per file (a vocab GGUF takes it seconds: a
    numpy view for each part of each of its 100,000 tokens; gguf_py.py)."""
    return gguf_reader(path).fields


def gguf_special(path: Path, key: str) -> tuple[int, str]:
    """(id, text) of a GGUF's ``tokenizer.ggml.KEY_token_id``, read by llama.cpp's own
    gguf-py."""
    fields = _gguf_fields(path)
    field = fields[f"tokenizer.ggml.{key}_token_id"]
    tid = int(field.parts[field.data[0]][0])
    tokens = fields["tokenizer.ggml.tokens"]
    return tid, bytes(tokens.parts[tokens.data[tid]]).decode("utf-8")


def o200k_base(folder: Path) -> Path:
    """OpenAI's o200k_base.tiktoken, byte for byte, in ``folder``."""
    got = o200k_base_file(folder)
    if isinstance(got, str):
        pytest.skip(got)
    return got
