"""GGUF files cut text with llama.cpp's Unicode tables (unicode-data.cpp: Unicode 15.1),
not the installed ``regex``'s (17.0) nor tokenizers' (16.0): a code point that is a
letter or a digit in 16 or 17 and unassigned in 15.1 is "other" in every class a GGUF's
pre-tokenizer reads (the native scanner's tables slot, the pinned regexes, the collapsed
text).

Oracles: llama.cpp itself (llama-cpp-python, when it is installed: a source build) on
llama.cpp's own vocabulary files, and, always, the pre-tokenizer's regex with its
classes written out from Unicode 15.1's categories (text.unicode_versions' data, from
unicodedata2), run by ``regex``.
"""
from __future__ import annotations

import regex
import pytest

from bpe_gui.engine.formats import load_tokenizer
from bpe_gui.engine.text.unicode_versions import CATEGORIES, categories
from bpe_gui.engine.tokenizers.imported import llama_cpp

from llama_cpp_files import LlamaCpp
from llama_cpp_sdist import sdist_files

TEMPLATES = ["a{c}b", "{c}.", " {c}{c}", "1{c}2", "{c}\n", "'{c}", "{c}'s", "x {c}",
             "{c}  y", "{c}"]


def _newer(kind: str, n: int) -> list[str]:
    """n code points whose class (L or N) differs between Unicode 15.1 and 17.0."""
    old, new = categories("15.1.0"), categories("17.0.0")
    found = [chr(cp) for cp in range(0x110000)
             if CATEGORIES[new[cp]][0] == kind and CATEGORIES[old[cp]][0] != kind]
    assert found, kind
    return found[::max(1, len(found) // n)][:n]


NEWER = _newer("L", 40) + _newer("N", 10)


def _class(kind: str) -> str:
    """Unicode 15.1's \\p{kind} as an explicit class of ranges."""
    cats = categories("15.1.0")
    out, cp = [], 0
    while cp < 0x110000:
        if CATEGORIES[cats[cp]][0] == kind and not 0xD800 <= cp < 0xE000:
            end = cp
            while end + 1 < 0x110000 and CATEGORIES[cats[end + 1]][0] == kind:
                end += 1
            out.append(f"\\U{cp:08X}-\\U{end:08X}" if end > cp else f"\\U{cp:08X}")
            cp = end + 1
        else:
            cp += 1
    return "".join(out)


@pytest.mark.parametrize("pre", ["qwen2", "llama-bpe", "gpt-2"])
def test_the_split_uses_unicode_15_1(pre):
    """The native scanner (tables slot) and the regex path agree with the C++ regex whose
    \\p{L} and \\p{N} are Unicode 15.1's, written out."""
    kind = llama_cpp.pre_type(pre).kind
    expr = llama_cpp.TYPES[kind][0]
    written = {r"\p{L}": _class("L"), r"\p{N}": _class("N")}
    out, inside, i = [], False, 0
    while i < len(expr):   # \p{L} inside a class: its ranges; outside: a class of them
        if expr[i:i + 5] in written:
            body = written[expr[i:i + 5]]
            out.append(body if inside else f"[{body}]")
            i += 5
            continue
        if expr[i] == "\\":
            out.append(expr[i:i + 2])
            i += 2
            continue
        inside = {"[": True, "]": False}.get(expr[i], inside)
        out.append(expr[i])
        i += 1
    oracle = regex.compile("".join(out))
    cut = llama_cpp.pre_tokenizer_of(pre)
    for c in NEWER:
        for t in TEMPLATES:
            text = t.format(c=c)
            assert cut.cut(text) == oracle.findall(text), (pre, text)
    # U+088F: a letter in Unicode 17.0 (the installed regex), unassigned in 15.1
    assert regex.match(r"\p{L}", "\u088f")
    assert cut.cut("a\u088fb") == ["a", "\u088fb"] if kind != "gpt2" else \
        cut.cut("a\u088fb") == ["a", "\u088f", "b"]


@pytest.fixture(scope="module")
def llama_models():
    if not LlamaCpp.available():
        pytest.skip("llama-cpp-python is not installed (pip install llama-cpp-python: a "
                    "source build)")
    d, why = sdist_files()
    if d is None:
        pytest.skip(why)
    return d


@pytest.mark.parametrize("name", ["qwen2", "command-r", "gemma-4", "deepseek-coder"])
def test_ids_equal_llama_cpps_on_code_points_newer_than_its_tables(llama_models, name):
    path = llama_models / f"ggml-vocab-{name}.gguf"
    ref = LlamaCpp(path)
    try:
        tok = load_tokenizer(path, parse_special=False)
        for c in NEWER:
            for t in TEMPLATES:
                text = t.format(c=c)
                assert tok.encode(text, allowed_special="all") == ref.tokenize(text), (name, text)
    finally:
        ref.close()
