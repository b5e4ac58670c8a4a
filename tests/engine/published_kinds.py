"""Tokenizers of every kind made from the files users have, each with its own library
as the oracle (test_every_door.py, and the window's encode view in
tests/gui/test_every_door_window.py): OpenAI's cl100k and o200k ranks (the npm package
tiktoken, tiktoken_files.py), Meta's Llama 3 ``tokenizer.model`` (llama-models), a Llama 3
``tokenizer.json`` made from it by transformers' converter with Meta's BOS template, GPT-2's
files as CS336's tests build them (OpenAI's r50k ranks, the merges recovered by a loop
written here), mistral-common's own tekken file, llama.cpp's vocab-only GGUFs with their
``.inp``/``.out`` expected ids."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

tiktoken = pytest.importorskip("tiktoken")
tiktoken_load = pytest.importorskip("tiktoken.load")
tokenizers = pytest.importorskip("tokenizers")

from bpe_gui.engine import Tokenizer  # noqa: E402
from bpe_gui.engine.formats import load_tokenizer  # noqa: E402

from llama_cpp_files import cases  # noqa: E402
from llama_cpp_sdist import sdist_files  # noqa: E402
from mixture_reference import merges_from_ranks  # noqa: E402
from tiktoken_files import npm_ranks  # noqa: E402

EOT = "<|endoftext|>"
TEXTS = [
    "Hello, World! It's 3:45pm; we'll see... don't I'M",
    "你好世界，这是一个测试。我们在学习字节对编码的分词方法。",
    "def f(x):\n    return x**2  # comment\n\tif y:  pass\n",
    "x" * 3000 + " tail",                                   # one long word
    " " * 300 + "\n\n\t  \r\n  end  ",                      # runs of whitespace
    "emoji 🙂👍🏽 👨\u200d👩\u200d👧 🇨🇳 and the newest: \U0001FAE8 \U0001FABF \u1C89",
    "हिन्दी ภาษาไทย Ελληνικά Привет e\u0301 ﬁ ①",
    "",
]
TYPED = f"before{EOT}after {EOT}"


@dataclass
class Door:
    """A kind under test: its tokenizer, the texts its oracle answers, the oracle (the
    library's default call: ids, or None where the library refuses the text), and the
    library reading no special token (None: it has no such call)."""

    name: str
    tok: object
    texts: list[str]
    oracle: Callable[[str], list[int] | None]
    ordinary: Callable[[str], list[int]] | None = None
    path: Path | None = None
    # the library reading every special token and adding nothing around the text (what
    # the window's encode view shows); None: the same as ``oracle``
    reading: Callable[[str], list[int]] | None = None


def refused(call: Callable[[str], list[int]]) -> Callable[[str], list[int] | None]:
    def run(text: str) -> list[int] | None:
        try:
            return call(text)
        except ValueError:   # tiktoken's refusal of a special token's text
            return None
    return run


def published(name: str, d: Path) -> Door:
    if name in ("cl100k", "o200k"):
        got = npm_ranks(f"{name}_base", d)
        if got is None:
            pytest.skip("the npm package tiktoken is not here (BPE_GUI_TIKTOKEN_TGZ)")
        path, meta = got
        enc = tiktoken.Encoding(name, pat_str=meta["pat_str"],
                                mergeable_ranks=tiktoken_load.load_tiktoken_bpe(str(path)),
                                special_tokens=meta["special_tokens"])
        return Door(name, load_tokenizer(path), TEXTS + [TYPED], refused(enc.encode),
                    enc.encode_ordinary, path, lambda s: enc.encode(s, allowed_special="all"))
    if name == "gpt2-cs336":
        got = npm_ranks("r50k_base", d)
        if got is None:
            pytest.skip("the npm package tiktoken is not here (BPE_GUI_TIKTOKEN_TGZ)")
        path, meta = got
        ranks = tiktoken_load.load_tiktoken_bpe(str(path))
        vocab = {i: t for t, i in ranks.items()}
        vocab[len(vocab)] = EOT.encode()
        enc = tiktoken.Encoding("gpt2", pat_str=meta["pat_str"], mergeable_ranks=ranks,
                                special_tokens={EOT: len(ranks)})
        tok = Tokenizer(vocab, merges_from_ranks(ranks, len(ranks)), special_tokens=[EOT])
        return Door(name, tok, TEXTS + [TYPED, EOT + EOT + "x"],
                    lambda s: enc.encode(s, allowed_special={EOT}), enc.encode_ordinary)
    if name in ("llama3-model", "llama3-json"):
        llama = pytest.importorskip("llama_models.llama3.tokenizer")
        meta_tok = llama.Tokenizer.get_instance()
        model = Path(llama.__file__).with_name("tokenizer.model")
        if name == "llama3-model":
            enc = meta_tok.model
            return Door(name, load_tokenizer(model), TEXTS + [TYPED], refused(enc.encode),
                        enc.encode_ordinary, model,
                        lambda s: enc.encode(s, allowed_special="all"))
        path = llama3_json(meta_tok, d)
        hf = tokenizers.Tokenizer.from_file(str(path))
        plain = tokenizers.Tokenizer.from_file(str(path))
        plain.encode_special_tokens = True
        return Door(name, load_tokenizer(path), TEXTS + [TYPED.replace(EOT, "<|eot_id|>")],
                    lambda s: hf.encode(s).ids,
                    lambda s: plain.encode(s, add_special_tokens=False).ids, path,
                    lambda s: hf.encode(s, add_special_tokens=False).ids)
    if name == "tekken":
        tekken = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
        import mistral_common
        path = Path(mistral_common.__file__).parent / "data" / "tekken_240911.json"
        mc = tekken.Tekkenizer.from_file(str(path))
        encode = lambda s: mc.encode(s, bos=False, eos=False)   # noqa: E731
        return Door(name, load_tokenizer(path), TEXTS + ["a</s>b[INST]c"], encode, encode, path)
    folder, why = sdist_files()
    if folder is None:
        pytest.skip(why)
    path = folder / f"ggml-vocab-{name.removeprefix('gguf-')}.gguf"
    expected = dict(cases(path))   # llama.cpp's own ids of its own texts
    return Door(name, load_tokenizer(path), list(expected), expected.__getitem__, path=path)


def llama3_json(meta_tok, d: Path) -> Path:
    """Llama 3's tokenizer.json as transformers converts Meta's tokenizer.model, with the
    BOS template Meta's repository has (TemplateProcessing: <|begin_of_text|> $A)."""
    conv = pytest.importorskip("transformers.integrations.tiktoken")
    conv.convert_tiktoken_to_fast(meta_tok.model, str(d))
    tk = tokenizers.Tokenizer.from_file(str(d / "tokenizer.json"))
    bos = meta_tok.special_tokens["<|begin_of_text|>"]
    tk.post_processor = tokenizers.processors.TemplateProcessing(
        single="<|begin_of_text|> $A", special_tokens=[("<|begin_of_text|>", bos)])
    tk.save(str(d / "tokenizer.json"))
    return d / "tokenizer.json"


PUBLISHED = ["cl100k", "o200k", "gpt2-cs336", "llama3-model", "llama3-json", "tekken",
             "gguf-llama-bpe", "gguf-mpt", "gguf-llama-spm", "gguf-phi-3"]
