"""The tekken.json reader against mistral-common's Tekkenizer reading the same files; files
mistral-common refuses (ranks that repeat ...) refused with the entry named."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpe_gui.engine.errors import FormatError
from bpe_gui.engine.formats.tekken_fmt import (DEPRECATED_SPECIAL_TOKENS, looks_like_tekken,
                                               parse_tekken, read_tekken)
from model_files import tekken_json

TEXTS = ["Hello, world! It's 2024.", "  spaces   and\ttabs\n\nnew lines", "中文和English混合",
         "Привет, мир", "naïve café 😀👩‍👩‍👧", "def f(x):\n    return x ** 2  # 12345",
         "<s>[INST] not special in text [/INST]</s>"]


def _tekkenizer(path: Path):
    tk = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
    return tk.Tekkenizer.from_file(path)


@pytest.mark.parametrize("which", ["v3", "v7"])
def test_ids_and_bytes_as_mistral_common_reads_them(tekken_files, which):
    base = pytest.importorskip("mistral_common.tokens.tokenizers.base")
    path = tekken_files[which]
    t = read_tekken(path)
    ref = _tekkenizer(path)
    assert t.num_special_tokens == ref.num_special_tokens
    assert t.num_special_tokens + t.vocab_size == ref.n_words
    keep = base.SpecialTokenPolicy.KEEP
    for i in range(ref.n_words):
        mine = t.special_tokens[i].token_str.encode() if i < t.num_special_tokens \
            else t.ranks[i - t.num_special_tokens]
        assert ref.id_to_byte_piece(i, keep) == mine, i
    assert {s.token_str for s in t.special_tokens} == \
        {ref.id_to_piece(i) for i in range(t.num_special_tokens)}


@pytest.mark.parametrize("which", ["v3", "v7"])
def test_encoding_with_the_resolved_ranks_gives_mistral_commons_ids(tekken_files, which):
    """tiktoken over the ranks this reader resolves, with ids shifted past the special
    tokens and no special tokens matched in the text, is mistral-common's encode."""
    tiktoken = pytest.importorskip("tiktoken")
    path = tekken_files[which]
    t = read_tekken(path)
    ref = _tekkenizer(path)
    enc = tiktoken.Encoding("t", pat_str=t.pattern, mergeable_ranks=t.mergeable_ranks(),
                            special_tokens={})
    for text in TEXTS:
        mine = [t.id_of_rank(r) for r in enc.encode(text, disallowed_special=())]
        assert mine == ref.encode(text, bos=False, eos=False), text


def test_v3_gets_the_historical_special_tokens(tekken_files):
    t = read_tekken(tekken_files["v3"])
    assert not t.special_tokens_listed
    names = [s.token_str for s in t.special_tokens]
    assert names[:20] == list(DEPRECATED_SPECIAL_TOKENS)
    assert names[20] == "<SPECIAL_20>" and len(names) == t.num_special_tokens == 100


def test_default_vocab_size_cuts_the_ranks(tekken_files):
    t = read_tekken(tekken_files["v7"])
    data = json.loads(tekken_files["v7"].read_text("utf-8"))
    assert t.file_entries == len(data["vocab"])
    assert t.vocab_size == data["config"]["default_vocab_size"] - 50 == t.file_entries - 40
    assert t.special_tokens[5].token_str == "[SYSTEM_PROMPT]" and t.special_tokens_listed


def test_recognised_from_its_first_bytes(tekken_files):
    for path in tekken_files.values():
        assert looks_like_tekken(path.read_bytes()[:2048])
    assert not looks_like_tekken(b'{"version": "1.0", "model": {"type": "BPE"}}')
    assert not looks_like_tekken(b'{"a": 1, "b": 2}')
    assert not looks_like_tekken(b"IQ== 0\n")


# ----- refused --------------------------------------------------------------------------
def _refused(data: dict | bytes, tmp_path: Path, *words: str, key: str | None = None):
    p = tmp_path / "tekken.json"
    p.write_bytes(data if isinstance(data, bytes) else json.dumps(data).encode())
    with pytest.raises(FormatError) as e:
        read_tekken(p)
    for w in words:
        assert w in str(e.value), str(e.value)
    assert str(p) in str(e.value)
    if key is not None:
        assert e.value.key == key, e.value.key
    return e.value


@pytest.fixture
def small(tekken_ranks) -> dict:
    return tekken_json(tekken_ranks[:300], n_special=30)


def test_a_rank_that_repeats(small, tmp_path):
    small["vocab"][280]["rank"] = 279
    _refused(small, tmp_path, "rank 279 repeats", key="vocab[280].rank")


def test_a_rank_out_of_order(small, tmp_path):
    small["vocab"][280]["rank"] = 5000
    _refused(small, tmp_path, "entry 280 should have rank 280", key="vocab[280].rank")


def test_two_entries_with_the_same_bytes(small, tmp_path):
    small["vocab"][290]["token_bytes"] = small["vocab"][280]["token_bytes"]
    _refused(small, tmp_path, "same bytes as rank 280", key="vocab[290].token_bytes")


def test_bad_base64(small, tmp_path):
    small["vocab"][270]["token_bytes"] = "@@@"
    _refused(small, tmp_path, "not valid base64", key="vocab[270].token_bytes")


def test_the_first_256_ranks_are_the_bytes(small, tmp_path):
    small["vocab"][65]["token_bytes"] = "Qg=="   # 'B' at rank 65 ('A')
    _refused(small, tmp_path, "first 256 ranks", key="vocab[65].token_bytes")


def test_an_unknown_version(small, tmp_path):
    small["config"]["version"] = "v99"
    _refused(small, tmp_path, "'v99'", key="config.version")


def test_a_new_version_must_list_its_special_tokens(small, tmp_path):
    small["config"]["version"] = "v11"
    _refused(small, tmp_path, "no special_tokens", key="special_tokens")


def test_special_tokens_that_repeat(tekken_ranks, tmp_path):
    data = tekken_json(tekken_ranks[:300], version="v7", n_special=10,
                       specials=["<unk>", "<s>", "<s>"])
    _refused(data, tmp_path, "'<s>' is listed twice", key="special_tokens[2]")


def test_more_special_tokens_than_the_config_allows(tekken_ranks, tmp_path):
    data = tekken_json(tekken_ranks[:300], version="v7", n_special=2,
                       specials=["<unk>", "<s>", "</s>"])
    _refused(data, tmp_path, "3 special tokens", key="special_tokens")


def test_a_vocab_size_past_the_entries(small, tmp_path):
    small["config"]["default_vocab_size"] = 10**6
    _refused(small, tmp_path, "1,000,000", key="config.default_vocab_size")


def test_missing_config_keys(small, tmp_path):
    del small["config"]["pattern"]
    _refused(small, tmp_path, "no 'pattern'", key="config.pattern")


def test_a_tokenizer_json_is_not_a_tekken(tmp_path, byte_bpe):
    p = tmp_path / "tokenizer.json"
    p.write_text(byte_bpe.tokenizer_json, "utf-8")
    with pytest.raises(FormatError, match="not a tekken.json"):
        read_tekken(p)


def test_parse_names_no_file_when_given_none(small):
    t = parse_tekken(json.dumps(small).encode())
    assert t.path is None and t.vocab_size == 300
