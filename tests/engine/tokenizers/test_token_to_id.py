"""``tok.token_to_id(token: str) -> int | None`` as tokenizers' ``Tokenizer.token_to_id``
for every kind (issue 69): against tokenizers itself for tokenizer.json files and for
trained tokenizers (through the tokenizer.json they export), and against tiktoken's
``encode_single_token`` for .tiktoken files (whose tokens are spelt, as transformers
converts them, in GPT-2's byte alphabet). The bytes-keyed table is ``bytes_to_id``;
indexing ``token_to_id`` with bytes, as older code did, still reads it."""
from __future__ import annotations

import pytest

tiktoken = pytest.importorskip("tiktoken")
tiktoken_load = pytest.importorskip("tiktoken.load")
tokenizers = pytest.importorskip("tokenizers")

from bpe_gui.engine import BaseTokenizer  # noqa: E402
from bpe_gui.engine.errors import ArgumentError  # noqa: E402
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer  # noqa: E402

from test_conformance import EOT, trained  # noqa: E402
from hf_files import CASES  # noqa: E402
from engine_oracle import gpt2_chars  # noqa: E402

NOT_TOKENS = ["not-a-token-at-all", "", " hello", "Ġ", "\x00", "<|nope|>", "▁"]


def same_as_tokenizers(tok: BaseTokenizer, hf) -> None:
    keys = hf.get_vocab(with_added_tokens=True)
    assert keys
    for key in list(keys) + NOT_TOKENS:
        assert tok.token_to_id(key) == hf.token_to_id(key), key
    for i in range(0, tok.n_vocab, 7):   # HF's contract: the inverse of id_to_token
        assert tok.id_to_token(i) == hf.id_to_token(i), i


@pytest.mark.parametrize("case", ["llama3-ignore-merges", "gpt2-bytelevel-regex",
                                  "metaspace-first-fallback", "llama2-prepend-replace"])
def test_tokenizer_json_equals_tokenizers(tmp_path, case):
    hf = CASES[case]()
    hf.save(str(tmp_path / "tokenizer.json"))
    same_as_tokenizers(load_tokenizer(tmp_path / "tokenizer.json"), hf)


@pytest.mark.parametrize("step", [None, 40])
def test_trained_and_its_files_equal_tokenizers_on_its_export(tmp_path, step):
    tok = trained().tokenizer(at_step=step)
    export_tokenizer(tok, tmp_path, "hf")
    export_tokenizer(tok, tmp_path, "gpt2")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for ours in (tok, load_tokenizer(tmp_path / "vocab.json"),
                 load_tokenizer(tmp_path / "tokenizer.json")):
        same_as_tokenizers(ours, hf)


def test_tiktoken_file_equals_encode_single_token(tmp_path):
    export_tokenizer(trained("o200k").tokenizer(), tmp_path, "tiktoken")
    path = tmp_path / "tokenizer.tiktoken"
    tok = load_tokenizer(path)
    ranks = tiktoken_load.load_tiktoken_bpe(str(path))
    enc = tiktoken.Encoding("t", pat_str=tok.pattern, mergeable_ranks=ranks,
                            special_tokens=tok.special_ids)
    spell = dict(enumerate(gpt2_chars()))
    for b in ranks:
        assert tok.token_to_id("".join(spell[x] for x in b)) == enc.encode_single_token(b)
    for s in enc.special_tokens_set:
        assert tok.token_to_id(s) == enc.encode_single_token(s)
    back = {ch: b for b, ch in spell.items()}
    for text in NOT_TOKENS:   # tiktoken raises where token_to_id says None
        try:
            want = enc.encode_single_token(bytes(back[c] for c in text))
        except KeyError:
            want = None
        assert tok.token_to_id(text) == want, text


def test_bytes_keep_their_table_and_older_code_still_reads_it():
    tok = trained().tokenizer()
    assert tok.bytes_to_id[b" the"] == tok.encode(" the")[0]
    assert tok.token_to_id[b" the"] == tok.bytes_to_id[b" the"]   # the older spelling
    assert b" the" in tok.token_to_id and tok.token_to_id.get(b"\xff\xfe") is None
    assert len(tok.token_to_id) == len(tok.bytes_to_id)
    assert tok.token_to_id("Ġthe") == tok.bytes_to_id[b" the"]
    assert tok.token_to_id(EOT) == tok.special_ids[EOT]
    with pytest.raises(ArgumentError, match="bytes_to_id"):
        tok.token_to_id(b" the")   # type: ignore[arg-type]
