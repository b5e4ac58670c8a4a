"""What a loaded .tiktoken / tokenizer.json keeps (issue 29: peak memory): the id -> bytes
and bytes -> id tables are made only when first read (imported/lazy.py), a published
pattern is pinned to its library's Unicode tables only when the regex runs (the native
scanner finds the words), and a long text's ids are handed to their list piecewise
(_encode's scratch_list). tiktoken and HF ``tokenizers`` are the oracles."""
from __future__ import annotations

import json
import lzma

import pytest
import regex

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")

import hf_files as hfp  # noqa: E402
import tiktoken_files as tti  # noqa: E402

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.formats import known_encodings as known  # noqa: E402
from bpe_gui.engine.text.scanner import NativeScanner  # noqa: E402
from bpe_gui.engine.text.unicode_versions import TIKTOKEN  # noqa: E402
from bpe_gui.engine.tokenizers.imported.lazy import Later  # noqa: E402

SPECIALS = {"<|endoftext|>": 1000, "<|end|>": 1001}


def _gpt2_bytes() -> dict[str, int]:
    """GPT-2's byte alphabet (char -> byte), written out from its definition."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]
    out, extra = {chr(b): b for b in keep}, 0
    for b in range(256):
        if b not in keep:
            out[chr(256 + extra)] = b
            extra += 1
    return out


@pytest.fixture(scope="module")
def tiktoken_pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("lazy")
    ranks = tti.trained_ranks()
    path = tti.ranks_file(d, ranks, "t.tiktoken")
    (d / "t.tiktoken.json").write_text(json.dumps({"pat_str": known.O200K_PATTERN,
                                                   "special_tokens": SPECIALS}))
    enc = tiktoken.Encoding("t", pat_str=known.O200K_PATTERN, mergeable_ranks=ranks,
                            special_tokens=SPECIALS)
    return load_tokenizer(path), enc, ranks


@pytest.fixture(scope="module")
def json_pair(tmp_path_factory):
    hf = hfp.byte_level_llama3(ignore_merges=False)
    d = tmp_path_factory.mktemp("lazyhf")
    hf.save(str(d / "tokenizer.json"))
    return load_tokenizer(d / "tokenizer.json"), hf


def _long_text(corpora_dir, chars: int) -> str:
    """Real English, Chinese and mixed-script text, cut to ``chars``."""
    parts = []
    for name in ("en-tinyshakespeare.txt.xz", "zh-four-classic-novels.txt.xz"):
        with lzma.open(corpora_dir / name, "rt", encoding="utf-8") as f:
            parts.append(f.read(chars // 3))
    parts.append((corpora_dir / "multi-utf8-demo.txt").read_text("utf-8"))
    text = "<|endoftext|>".join(parts)
    return (text * (chars // len(text) + 1))[:chars]


def test_tiktoken_tables_are_made_when_first_read(tiktoken_pair):
    ours, enc, ranks = tiktoken_pair
    for obj in (ours, ours.pipeline, ours.model):
        assert isinstance(obj.__dict__["_lazy_vocab"], Later), obj   # not made by loading
    assert ours.encode("hello world<|end|>", allowed_special="all") == enc.encode("hello world<|end|>",
                                                          allowed_special="all")
    assert isinstance(ours.__dict__["_lazy_bytes_to_id"], Later)     # nor by encoding
    want = {r: t for t, r in ranks.items()} | {i: s.encode() for s, i in SPECIALS.items()}
    assert ours.vocab == want
    assert ours.pipeline.vocab is ours.vocab and ours.model.vocab is ours.vocab
    assert ours.bytes_to_id == {t: i for i, t in want.items()}
    assert ours.decode(enc.encode("Привет <|end|>", allowed_special="all")) == "Привет <|end|>"


def test_tokenizer_json_tables_are_made_when_first_read(json_pair):
    ours, hf = json_pair
    assert isinstance(ours.__dict__["_lazy_vocab"], Later)
    text = "Hello there, Привет 你好 <|eot_id|> 42"
    assert ours.encode(text, allowed_special="all") == hf.encode(text, add_special_tokens=False).ids
    assert isinstance(ours.__dict__["_lazy_vocab"], Later)
    alphabet = _gpt2_bytes()
    added = {i: t.content for i, t in hf.get_added_tokens_decoder().items()}
    want = {i: (added[i].encode() if i in added else bytes(alphabet[c] for c in tok))
            for tok, i in hf.get_vocab(with_added_tokens=True).items()}
    assert ours.vocab == want
    assert ours.bytes_to_id == {t: i for i, t in sorted(want.items(), reverse=True)}
    enc = ours.encode_with_offsets(text, allowed_special="all")   # reads the tables
    assert enc.ids == hf.encode(text, add_special_tokens=False).ids
    assert b"".join(enc.tokens).decode("utf-8") == text


def test_published_pattern_is_pinned_when_it_first_runs(tiktoken_pair, json_pair):
    """The native scanner finds the words; the regex (the file library's Unicode tables)
    is compiled when it first runs (lone surrogates), and then gives the library's ids."""
    ours, enc, _ = tiktoken_pair
    assert "regex" not in ours.pre.__dict__
    fresh = NativeScanner("o200k", TIKTOKEN)   # (native_scanner's are shared by the process)
    assert "_regex" not in fresh.__dict__
    assert fresh.words("a\udc00b") == regex.findall(known.O200K_PATTERN, "a\udc00b")
    lone = "ab\ud800cd Ωmega \udfff it's"
    assert ours.encode(lone, allowed_special="all") == enc.encode(lone, allowed_special="all")
    text = "Hello world's 42,  x\n"
    assert ours.pre.regex.findall(text) == regex.findall(known.O200K_PATTERN, text)
    hf_ours, hf = json_pair
    split, _ = hf_ours.pipeline.pre._tiling
    assert "regex" not in split.__dict__
    assert hf_ours.encode(text, allowed_special="all") == hf.encode(text, add_special_tokens=False).ids
    assert "regex" not in split.__dict__
    assert [m.span() for m in split.finditer(text)] == \
        [span for _, span in hf.pre_tokenizer.pre_tokenize_str(text)]


@pytest.mark.parametrize("chars", [300_000, 1_200_000])
def test_long_text_ids_as_the_libraries(tiktoken_pair, json_pair, corpora_dir, chars):
    """More ids than the scratch keeps (1 MB of ids): the list is filled from the end while
    the ids' buffer shrinks; then a short text through the same scratch."""
    text = _long_text(corpora_dir, chars)
    ours, enc, _ = tiktoken_pair
    want = enc.encode(text, allowed_special="all")
    assert len(want) > (1 << 18) or chars < 1_000_000
    assert ours.encode(text, allowed_special="all") == want
    assert ours.encode_to_array(text, allowed_special="all").tolist() == want
    assert ours.encode("short <|end|> text", allowed_special="all") == enc.encode("short <|end|> text",
                                                          allowed_special="all")
    hf_ours, hf = json_pair
    assert hf_ours.encode(text, allowed_special="all") == hf.encode(text, add_special_tokens=False).ids
