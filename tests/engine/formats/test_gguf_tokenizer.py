"""GGUF files open as llama.cpp runs them: llama.cpp's own expected ids (the .inp/.out
pairs of the llama-cpp-python sdist), llama.cpp itself where llama-cpp-python is
installed, files the tests build with the ``gguf`` writer
checked against ``tokenizers`` running the same vocabulary and split rules, and hostile
files through the whole import path (detect, load), in bounded time and memory."""
from __future__ import annotations

import os
import struct
import tracemalloc
import unicodedata
from pathlib import Path

import pytest

from bpe_gui.engine.errors import FormatError
from bpe_gui.engine.formats import detect_format, describe_source, load_tokenizer
from bpe_gui.engine.tokenizers.imported import llama_cpp

from llama_cpp_files import LlamaCpp, cases
from llama_cpp_sdist import sdist_files
from model_files import TEXTS as MODEL_TEXTS

gguf = pytest.importorskip("gguf")
tokenizers = pytest.importorskip("tokenizers")

BPE_FILES = ["command-r", "deepseek-coder", "deepseek-llm", "falcon", "gpt-2", "llama-bpe",
             "mpt", "qwen2", "qwen35", "refact", "starcoder"]


@pytest.fixture(scope="session")
def llama_models() -> Path:
    d, why = sdist_files()
    if d is None:
        pytest.skip(why)
    return d


# ----- llama.cpp's own expected ids --------------------------------------------------------
@pytest.mark.parametrize("name", ["gpt-2", "deepseek-coder", "gemma-4"])
def test_llama_cpp_expected_ids(llama_models, name):
    _check_expected(llama_models / f"ggml-vocab-{name}.gguf")


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in BPE_FILES if n not in ("gpt-2", "deepseek-coder")])
def test_llama_cpp_expected_ids_of_every_bpe_vocabulary(llama_models, name):
    _check_expected(llama_models / f"ggml-vocab-{name}.gguf")


@pytest.mark.regression
@pytest.mark.parametrize("name", ["mpt", "gpt-2", "llama-spm", "phi-3"])
def test_llama_cpp_expected_ids_with_every_default(llama_models, name):
    """load_tokenizer(path).encode(text), nothing set, gives llama.cpp's expected ids on
    its own texts (MPT's 178 USER_DEFINED runs of spaces were treated as special: the
    default call refused '    ' with DisallowedSpecialError)."""
    path = llama_models / f"ggml-vocab-{name}.gguf"
    tok = load_tokenizer(path)
    for text, want in cases(path):   # (no text holds a CONTROL token's text)
        assert tok.encode(text) == want, (path.name, text)


def _check_expected(path: Path):
    tok = load_tokenizer(path, parse_special=False)   # test-tokenizer-0's setting
    assert detect_format(path) == "gguf"
    assert "GGUF (llama.cpp)" in describe_source(tok)
    for text, want in cases(path):
        assert tok.encode(text, allowed_special="all") == want, (path.name, text)
        enc = tok.encode_with_offsets(text, allowed_special="all")
        assert enc.ids == want
        assert tok.decode(want) == text or not unicodedata.is_normalized("NFC", text) \
            or "\ufffd" in tok.decode(want) or text != text.strip("\x00")


SPECIAL_TEXTS = ["<|im_start|>user\nhi<|im_end|>", "<turn|> x <|tool_response> <eos>",
                 "<|endoftext|>a<|endoftext|>", "<s> </s> <unk> [INST]", "<start_of_turn>x"]


def _same_as_llama_cpp(path: Path) -> None:
    ref = LlamaCpp(path)
    try:
        for parse_special in (False, True):
            tok = load_tokenizer(path, parse_special=parse_special)
            # (not the 100,000-character word: llama.cpp's std::regex overflows the stack
            # on it with deepseek's pre-tokenizers, a crash; 10,000 characters instead)
            texts = [(k, v) for k, v in MODEL_TEXTS.items() if k != "long"] + \
                [("long", "x" * 10_000)] + [(t, t) for t in SPECIAL_TEXTS]
            for name, text in texts:
                assert tok.encode(text, allowed_special="all") == ref.tokenize(text, parse_special), \
                    (path.name, parse_special, name)
    finally:
        ref.close()


@pytest.fixture(scope="session")
def llama_cpp_itself(llama_models) -> Path:
    if not LlamaCpp.available():
        pytest.skip("llama-cpp-python is not installed (pip install llama-cpp-python: a "
                    "source build)")
    return llama_models


@pytest.mark.parametrize("name", ["qwen2", "gemma-4"])
def test_llama_cpp_itself(llama_cpp_itself, name):
    """ids of the model-file texts (and special tokens, parsed or not) equal llama.cpp's
    own ``llama_tokenize`` on the same file."""
    _same_as_llama_cpp(llama_cpp_itself / f"ggml-vocab-{name}.gguf")


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in BPE_FILES if n != "qwen2"] +
                         ["llama-spm", "phi-3"])
def test_llama_cpp_itself_on_every_vocabulary(llama_cpp_itself, name):
    _same_as_llama_cpp(llama_cpp_itself / f"ggml-vocab-{name}.gguf")


@pytest.mark.parametrize("name, words", [
    ("bert-bge", ["WordPiece", "tokenizer.ggml.model"]),
    ("nomic-bert-moe", ["Unigram", "tokenizer.ggml.model"]),
])
def test_other_vocabularies_are_named_and_refused(llama_models, name, words):
    p = llama_models / f"ggml-vocab-{name}.gguf"
    with pytest.raises(FormatError) as e:
        load_tokenizer(p)
    for w in words:
        assert w in str(e.value)
    assert str(p) in str(e.value)


# ----- files built with the gguf writer ----------------------------------------------------------
TEXTS = MODEL_TEXTS
# the HF regex that each .pre type's hand-written C++ code runs
HF_REGEX = {
    "gpt-2": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
    "llama-bpe": (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
                  r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"),
    "qwen2": (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
              r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"),
}


def _write_gguf(path: Path, byte_bpe, pre: str | None, types=None, name="test",
                extra=()) -> Path:
    w = gguf.GGUFWriter(str(path), "qwen2")
    w.add_name(name)
    w.add_tokenizer_model("gpt2")
    if pre is not None:
        w.add_tokenizer_pre(pre)
    tokens = list(byte_bpe.tokens) + [t for t, _ in extra]
    w.add_token_list(tokens)
    if types is None:
        types = [gguf.TokenType.CONTROL if t == "<|endoftext|>" else gguf.TokenType.NORMAL
                 for t in byte_bpe.tokens] + [k for _, k in extra]
    w.add_token_types(types)
    w.add_token_merges([f"{a} {b}" for a, b in byte_bpe.merges])
    w.add_eos_token_id(byte_bpe.tokens.index("<|endoftext|>"))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def _hf_of(byte_bpe, regex: str, ignore_merges: bool):
    import json
    from tokenizers import Regex, pre_tokenizers
    data = json.loads(byte_bpe.tokenizer_json)
    data["model"]["ignore_merges"] = ignore_merges
    hf = tokenizers.Tokenizer.from_str(json.dumps(data))
    hf.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(regex), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    return hf


@pytest.mark.parametrize("pre", ["gpt-2", "llama-bpe", "qwen2"])
def test_built_files_equal_tokenizers_on_the_same_rules(tmp_path, byte_bpe, pre):
    """For the .pre types whose split llama.cpp hand-writes (the native scanner's presets),
    tokenizers running the same vocabulary, merges and regex is an oracle: ids and
    offsets agree on every script, digits, whitespace and a 100k-character word."""
    tok = load_tokenizer(_write_gguf(tmp_path / "t.gguf", byte_bpe, pre))
    hf = _hf_of(byte_bpe, HF_REGEX[pre], ignore_merges=pre == "llama-bpe")
    for name, text in TEXTS.items():
        want = hf.encode(text, add_special_tokens=False)
        assert tok.encode(text, allowed_special="all") == want.ids, name
        if name != "long":
            enc = tok.encode_with_offsets(text, allowed_special="all")
            assert enc.offsets == [tuple(o) for o in want.offsets], name


def test_a_contraction_with_long_s_is_no_contraction_in_llama_cpp(tmp_path, byte_bpe):
    """llama.cpp's Llama 3 split spells the contractions '[sS] (no case folding), so "'ſx"
    is one word, where regex's (?i:'s) makes "'ſ" a contraction."""
    tok = load_tokenizer(_write_gguf(tmp_path / "t.gguf", byte_bpe, "llama-bpe"))
    assert [p.text for p in tok.split("it'ſx")] == ["it", "'ſx"]
    assert tok.encode("it'ſx", allowed_special="all") == tok.encode("it", allowed_special="all") + tok.encode("'ſx", allowed_special="all")


def test_a_missing_pre_is_llama_cpps_default_with_a_note(tmp_path, byte_bpe):
    tok = load_tokenizer(_write_gguf(tmp_path / "t.gguf", byte_bpe, None))
    assert tok.meta["pre_type"] == "default"
    assert any("tokenizer.ggml.pre is missing" in n for n in tok.meta["notes"])
    assert [p.text for p in tok.split("a+b 1234")] == ["a", "+", "b", " ", "123", "4"]


@pytest.mark.parametrize("pre", ["kimi-k2", "superbpe", "no-such-pre"])
def test_pre_tokenizers_not_run_are_refused_by_name(tmp_path, byte_bpe, pre):
    p = _write_gguf(tmp_path / "t.gguf", byte_bpe, pre)
    with pytest.raises(FormatError) as e:
        load_tokenizer(p)
    assert e.value.key == "tokenizer.ggml.pre" and repr(pre) in str(e.value)


def test_special_tokens_as_llama_cpp_cuts_them(tmp_path, byte_bpe):
    """CONTROL tokens are cut out with parse_special (llama-tokenize's default) and are
    text without it; USER_DEFINED ones always; '<|im_end|>' is CONTROL by its name even
    when the file says NORMAL; the longest token is cut first."""
    T = gguf.TokenType
    extra = [("<|im_start|>", T.CONTROL), ("<|im_end|>", T.NORMAL), ("<tool>", T.USER_DEFINED),
             ("<tool>x", T.USER_DEFINED)]
    p = _write_gguf(tmp_path / "t.gguf", byte_bpe, "qwen2", extra=extra)
    on, off = load_tokenizer(p), load_tokenizer(p, parse_special=False)
    n = len(byte_bpe.tokens)
    text = "<|im_start|>hi<|im_end|> <tool>x <tool>"
    ids = on.encode(text, allowed_special="all")
    assert ids[0] == n and n + 1 in ids and n + 3 in ids and n + 2 in ids
    assert off.encode(text, allowed_special="all")[:2] != [n] and n + 3 in off.encode(text, allowed_special="all")
    assert on.encode(text, allowed_special="all") == on.encode_with_offsets(text, allowed_special="all").ids
    # (USER_DEFINED tokens are text to llama.cpp: cut out, not special)
    assert set(on.special_ids.values()) >= {n, n + 1}
    assert not {n + 2, n + 3} & set(on.special_ids.values())
    plain = "hi <tool>x <tool>"   # (no CONTROL token: the policy does not touch it)
    assert on.encode(plain, disallowed_special="all") == on.encode(plain, disallowed_special=())
    assert n + 3 in on.encode(plain, disallowed_special=())


def test_phi3_special_tokens_swallow_the_whitespace_after_them(tmp_path, byte_bpe):
    T = gguf.TokenType
    p = _write_gguf(tmp_path / "t.gguf", byte_bpe, "gpt-2", name="Phi-3 mini",
                    extra=[("<|user|>", T.CONTROL)])
    tok = load_tokenizer(p)
    assert tok.encode("<|user|>  \n hi", allowed_special="all") == tok.encode("<|user|>hi", allowed_special="all")


def test_collapsed_classes_follow_the_categories():
    """llama.cpp's collapsed text: every non-ASCII character stands for its class, in
    llama.cpp's Unicode version (15.1: unicode-data.cpp), not the installed regex's."""
    from bpe_gui.engine.text.unicode_versions import LLAMA_CPP, category
    chars = [chr(c) for c in range(0x80, 0x30000) if not 0xD800 <= c < 0xE000]
    got = llama_cpp.collapse("".join(chars))
    assert len(got) == len(chars)
    import regex
    for c, g in zip(chars, got):
        if regex.match(r"\s", c):
            want = "\x0b"
        else:
            want = {"L": llama_cpp.P_LETTER, "N": llama_cpp.P_NUMBER, "P": llama_cpp.P_PUNCT,
                    "M": llama_cpp.P_MARK, "S": llama_cpp.P_SYMBOL}.get(
                        category(c, LLAMA_CPP.version)[0], llama_cpp.P_OTHER)
        assert g == want, hex(ord(c))
    # a letter of Unicode 16 / 17 that 15.1 does not assign is "other"
    assert regex.match(r"\p{L}", "\u088f") and category("\u088f", "15.1.0") == "Cn"
    assert llama_cpp.collapse("\u088f") == llama_cpp.P_OTHER


def test_a_texts_own_placeholder_characters_are_other():
    """The placeholders are characters of plane 16's private use area (U+10FFF0..): the
    text's own such characters, and the plane's noncharacters, are read as what they are
    (other), never as the class a placeholder stands for."""
    own = "".join(chr(c) for c in range(0x10FFF0, 0x110000))
    assert llama_cpp.collapse(own + "a1") == llama_cpp.P_OTHER * len(own) + "a1"
    step = llama_cpp.step_of(r"\p{L}+|\p{N}+|[^\p{L}\p{N}]+")
    text = "x" + llama_cpp.P_LETTER + llama_cpp.P_NUMBER + "y"
    ends = step.ends(text, llama_cpp.collapse(text))
    assert [text[a:b] for a, b in zip([0, *ends], ends)] == ["x", text[1:3], "y"]


@pytest.mark.parametrize("expr, text, pieces", [
    (r"\s?\p{L}+", "ab é 中x1", ["ab", " é", " 中x", "1"]),
    (r"[^a-z]+", "abCD中é", ["ab", "CD中é"]),             # a class with no \p{..}: wregex
    (r"\p{N}+|\s+$", "a 12  ", ["a ", "12", "  "]),
    (r"[\p{P}\$\+<=>\^~\|]+", "a+b,c$", ["a", "+", "b", ",", "c", "$"]),
])
def test_one_regex_as_llama_cpp_reads_it(expr, text, pieces):
    step = llama_cpp.step_of(expr)
    view = llama_cpp.collapse(text) if step.collapsed else llama_cpp.wide(text)
    ends = step.ends(text, view)
    assert [text[a:b] for a, b in zip([0, *ends], ends)] == pieces


# ----- hostile files through the import path --------------------------------------------------
def _refused(p: Path, *words: str) -> FormatError:
    """Refused by load_tokenizer (what the window and the CLI call), naming the file."""
    with pytest.raises(FormatError) as e:
        load_tokenizer(p)
    msg = str(e.value)
    assert str(p) in msg
    for w in words:
        assert w in msg, msg
    return e.value


def test_truncated_files_are_refused_through_load(tmp_path, byte_bpe):
    data = _write_gguf(tmp_path / "whole.gguf", byte_bpe, "qwen2").read_bytes()
    for cut in (8, 24, 40, 200, len(data) // 3, len(data) // 2):
        p = tmp_path / f"cut{cut}.gguf"
        p.write_bytes(data[:cut])
        _refused(p)


def test_an_array_past_the_end_names_the_key(tmp_path):
    p = tmp_path / "a.gguf"
    key = b"tokenizer.ggml.tokens"
    body = struct.pack("<Q", len(key)) + key + struct.pack("<I", 9) + struct.pack("<IQ", 8, 10**12)
    p.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + body + b"\0" * 64)
    err = _refused(p, "past the end of the file")
    assert err.key == "tokenizer.ggml.tokens"


def test_a_gigabyte_of_garbage_with_the_magic(tmp_path):
    p = tmp_path / "garbage.gguf"
    with open(p, "wb") as f:
        f.write(b"GGUF" + struct.pack("<I", 3) + os.urandom(1 << 20))
        f.truncate(1 << 30)
    tracemalloc.start()
    try:
        _refused(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20   # (time: bench/bench_refusals.py)


def test_a_merge_of_tokens_not_in_the_vocabulary(tmp_path, byte_bpe):
    from dataclasses import replace
    bad = replace(byte_bpe, merges=list(byte_bpe.merges) + [("zzz", "qqq")])
    p = _write_gguf(tmp_path / "m.gguf", bad, "qwen2")
    err = _refused(p, "'zzz'")
    assert err.key == "tokenizer.ggml.merges"
