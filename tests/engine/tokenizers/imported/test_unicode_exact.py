"""Identical ids on every code point: a file encodes with its own library's Unicode
tables and regex dialect (.tiktoken: tiktoken's, tokenizer.json: tokenizers'), and our
exports encode in those libraries exactly as here. The texts hold the code points whose
class differs between the libraries' Unicode version and the installed regex's."""
from __future__ import annotations

import json
import random

import pytest
from hf_files import CORPUS, byte_level_llama3, gpt2_style, splits
from tiktoken_files import ranks_file, trained_ranks

from bpe_gui.engine.errors import ExportError
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
from bpe_gui.engine.text import unicode_versions as uv
from bpe_gui.engine.text.presets import (CL100K_PATTERN, GPT2_PATTERN, LLAMA3_PATTERN,
                                         O200K_PATTERN, PRESET_IDS, QWEN2_PATTERN,
                                         TEKKEN_PATTERN)
from bpe_gui.engine.train import TrainSettings, Trainer

tokenizers = pytest.importorskip("tokenizers")
tiktoken = pytest.importorskip("tiktoken")
from tokenizers import Regex, pre_tokenizers  # noqa: E402


def differing(a: str, b: str) -> list[int]:
    ca, cb = uv.categories(a), uv.categories(b)
    return [c for c in range(0x110000) if ca[c] != cb[c] and not 0xD800 <= c < 0xE000]


def version_texts(a: str = "16.0.0", b: str | None = None, n: int = 200) -> list[str]:
    """Texts of code points in another class in Unicode a than in b (the installed
    regex's version), mixed with ordinary text; the issue's two examples first."""
    b = b or uv.regex_version() or "17.0.0"
    rng = random.Random(11)
    diff = differing(a, b)
    chars = [chr(c) for c in rng.sample(diff, min(400, len(diff)))]
    common = ["a", "the", " ", "  ", "1", "42", "!", "\n", "'s", "é", "中文", "0000"]
    return ["\u058c\ub071", "  \U00010ee6", "x\U00011de0\U00011de1\U00011de2\U00011de3y",
            "\u088f\u0c5c\u0cdc", "".join(chars[:60])] + [
        "".join(rng.choice(chars + common) for _ in range(rng.randint(1, 12)))
        for _ in range(n)]


# ----- a .tiktoken file: tiktoken's tables ---------------------------------------------------
@pytest.fixture(scope="module")
def ranks():
    return trained_ranks()


@pytest.mark.parametrize("pattern", [GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN, TEKKEN_PATTERN,
                                     r"\s?\p{L}+|\s?\p{P}+|\p{N}|\s+|.",
                                     r"[^\s\p{L}]+|\p{L}+(?=\s)|\s+|."])
def test_tiktoken_files_encode_as_tiktoken_on_every_code_point(tmp_path, ranks, pattern):
    """Whisper's `"\\u058c\\ub071"` case: the file's pattern with tiktoken's classes."""
    path = ranks_file(tmp_path, ranks)
    (tmp_path / "x.tiktoken.json").write_text(json.dumps(
        {"pat_str": pattern, "special_tokens": {}}))
    ours = load_tokenizer(path)
    enc = tiktoken.Encoding("t", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    for text in version_texts(uv.TIKTOKEN.version):
        assert ours.encode(text) == enc.encode_ordinary(text), text


# ----- a tokenizer.json: tokenizers' tables and Oniguruma -------------------------------------
def deepseek_coder():
    """DeepSeek-Coder's Sequence of Splits (its tokenizer.json), then ByteLevel."""
    return splits(*[pre_tokenizers.Split(Regex(p), behavior="isolated") for p in (
        r"[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+",
        r"\p{N}")])


HF = {
    "llama3": byte_level_llama3,
    "qwen2": lambda: byte_level_llama3(False, QWEN2_PATTERN),
    "gpt2-bytelevel": gpt2_style,
    "cl100k-as-tiktoken-writes-it": lambda: byte_level_llama3(False, CL100K_PATTERN),
    "o200k": lambda: byte_level_llama3(False, O200K_PATTERN),
    # Mistral NeMo's tokenizer.json: tekken's pattern as a Split
    "tekken": lambda: byte_level_llama3(False, TEKKEN_PATTERN),
    "deepseek-coder": deepseek_coder,
    "possessive-interval": lambda: byte_level_llama3(False, r"\p{N}{1,3}+|\p{L}+|\s+|."),
    "line-anchors": lambda: byte_level_llama3(False, r"\s+$|\S+|\s+"),
    # Oniguruma's ^ (every line start, not after a final newline) and its iteration of
    # empty matches (the next search moves on a character; regex's finditer does not)
    "line-starts": lambda: byte_level_llama3(False, r"^\p{L}+|\p{L}|\s+|."),
    "empty-matches": lambda: byte_level_llama3(False, r"\A|\p{L}*|\s"),
}


@pytest.fixture(scope="module", params=sorted(HF))
def hf_pair(request, tmp_path_factory):
    tk = HF[request.param]()
    path = tmp_path_factory.mktemp(request.param) / "tokenizer.json"
    tk.save(str(path))
    return tk, load_tokenizer(path)


def test_tokenizer_json_encodes_as_tokenizers_on_every_code_point(hf_pair):
    """DeepSeek-Coder's `"  \\U00010ee6"` case, and Oniguruma's reading of the pattern
    (``\\p{N}{1,3}+`` repeats, ``$`` ends every line)."""
    tk, ours = hf_pair
    for text in version_texts(uv.TOKENIZERS.version) + [
            "0000", "x = 1000000", "a  \nb  \n", " ab\n cd\n\n", "ab\ncd\n", "ab  c"]:
        assert ours.encode(text) == tk.encode(text, add_special_tokens=False).ids, text


def test_tokenizer_json_uses_the_native_scanner_with_its_tables(hf_pair, request):
    tk, ours = hf_pair
    pipe = ours.pipeline
    if pipe._native is not None:   # the scanner id names tokenizers' tables (a slot)
        assert pipe._native >> 8 != 0
    if request.node.callspec.params["hf_pair"] == "tekken":   # Mistral NeMo's Split
        assert pipe._native is not None and pipe._native & 0xFF == PRESET_IDS["tekken"]


# ----- our exports, in their libraries ---------------------------------------------------------
@pytest.fixture(scope="module")
def code_corpus():
    import inspect
    import bpe_gui.engine.text.dialects as mod
    src = inspect.getsource(mod)
    digits = " ".join(str(random.Random(3).randrange(10 ** k)) for k in range(1, 12)) * 20
    return src + "\n" + digits + "\nx = 1000000\ny = 0000\n" * 50


@pytest.mark.parametrize("preset", ["gpt2", "cl100k", "o200k", "cjk", "whitespace"])
def test_exports_encode_as_here_in_their_libraries(tmp_path, code_corpus, preset):
    """Trained on Python code with each preset, exported as tokenizer.json and .tiktoken:
    tokenizers and tiktoken give our ids on digit runs, whitespace and every code point
    whose class differs between their Unicode version and the installed regex's."""
    t = Trainer.from_text(code_corpus, TrainSettings(vocab_size=700, pattern=preset))
    t.run()
    tok = t.tokenizer()
    (hf_path,) = export_tokenizer(tok, tmp_path / "hf", "hf")
    hf = tokenizers.Tokenizer.from_file(str(hf_path))
    export_tokenizer(tok, tmp_path / "tt", "tiktoken")
    meta = json.loads((tmp_path / "tt" / "tokenizer.tiktoken.json").read_text())
    from tiktoken.load import load_tiktoken_bpe
    tt_ranks = load_tiktoken_bpe(str(tmp_path / "tt" / "tokenizer.tiktoken"))
    enc = tiktoken.Encoding("x", pat_str=meta["pat_str"], mergeable_ranks=tt_ranks,
                            special_tokens=meta["special_tokens"])
    texts = ["0000", "x = 1000000", "12345678", "  \n\n \t x  ", "a  ", "\n\n"] + \
        version_texts(uv.TOKENIZERS.version, n=80) + CORPUS[:6]
    for text in texts:
        ids = tok.encode(text)
        assert hf.encode(text, add_special_tokens=False).ids == ids, text
        assert enc.encode_ordinary(text) == ids, text
    # read back: the same pattern, on the native scanner where the preset has one
    for path in (hf_path, tmp_path / "tt" / "tokenizer.tiktoken"):
        back = load_tokenizer(path)
        assert back.pattern == tok.pattern
        if preset in ("gpt2", "cl100k", "o200k"):   # the written-out classes read back
            assert back.pipeline._native is not None, path.name
        for text in texts[:40]:
            assert back.encode(text) == tok.encode(text), (path.name, text)


def test_cl100k_export_cuts_digits_three_at_a_time(tmp_path, code_corpus):
    """The issue's case: `--preset cl100k --format hf` used to write tiktoken's
    \\p{N}{1,3}+, which Oniguruma reads as "runs of \\p{N}{1,3}": "0000" was one word."""
    t = Trainer.from_text(code_corpus, TrainSettings(vocab_size=700, pattern="cl100k"))
    t.run()
    tok = t.tokenizer()
    (path,) = export_tokenizer(tok, tmp_path, "hf")
    written = json.loads(path.read_text())["pre_tokenizer"]["pretokenizers"][0]
    assert r"\p{N}{1,3}+" not in written["pattern"]["Regex"]
    hf = tokenizers.Tokenizer.from_file(str(path))
    pieces = hf.pre_tokenizer.pre_tokenize_str("0000 1000000")
    assert [w for w, _ in pieces] == ["000", "0", "Ġ", "100", "000", "0"]
    assert hf.encode("0000", add_special_tokens=False).ids == tok.encode("0000")
    assert [tok.decode([i]) for i in tok.encode("0000")][0] != "0000"


def test_llama3_tokenizer_json_runs_on_the_native_scanner(tmp_path):
    tk = byte_level_llama3()
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))
    ours = load_tokenizer(path)
    assert ours.pipeline._native is not None
    assert ours.pattern == LLAMA3_PATTERN


@pytest.mark.parametrize("fmt, library", [("hf", "Oniguruma"), ("tiktoken", "fancy-regex")])
def test_exports_refuse_a_pattern_that_matches_empty_text(tmp_path, fmt, library):
    """tokenizers goes on from an empty match otherwise than `regex` (and tiktoken cannot
    encode one): such a pattern is refused, naming the part and the fix, and no file is
    written."""
    t = Trainer.from_text("ab cd ab cd " * 20, TrainSettings(vocab_size=270,
                                                             pattern=r"\w*|\s"))
    t.run()
    with pytest.raises(ExportError, match=rf"{library}.*match empty text.*\\w\+"):
        export_tokenizer(t.tokenizer(), tmp_path / fmt, fmt)
    assert not any((tmp_path / fmt).glob("*")) if (tmp_path / fmt).exists() else True
