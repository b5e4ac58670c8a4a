"""Character-level tokenizer.json exports (issue #11): </w> keeps its own id, decoding
gives the text back, and the vocabulary is ours (plus only the whitespace characters
that can stand for </w>), checked with Hugging Face tokenizers as the oracle."""
from __future__ import annotations

import pytest

tokenizers = pytest.importorskip("tokenizers")

from bpe_gui.engine.formats import export_tokenizer  # noqa: E402
from bpe_gui.engine.formats.hf import eow_aliases  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402

CORPUS = "low low lower newest newest widest widest widest"
TEXTS = ["low lower widest", "newest\u3000low\u2006wide", "lower  newest\twidest",
         " low", "widest\n\nlow"]


def exported(tmp_path, pattern: str, end_of_word: str):
    t = Trainer.from_text(CORPUS, TrainSettings(mode="char", end_of_word=end_of_word,
                                                num_merges=10, pattern=pattern))
    t.run()
    tok = t.tokenizer()
    export_tokenizer(tok, tmp_path, "hf")
    return tok, tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))


@pytest.mark.parametrize("pattern,end_of_word", [("gpt2", "prefix"), ("cjk", "prefix"),
                                                 ("cl100k", "prefix"),
                                                 ("whitespace", "suffix")])
def test_eow_keeps_its_id_and_decode_is_right(tmp_path, pattern, end_of_word):
    tok, hf = exported(tmp_path, pattern, end_of_word)
    eow = tok.bytes_to_id[b"</w>"]
    aliases = eow_aliases(tok.pattern) if end_of_word == "prefix" else " "
    # the vocabulary is ours, plus the whitespace characters that can open a word
    assert hf.get_vocab_size() == len(tok.vocab) + len(aliases) - 1
    assert hf.token_to_id(" ") == eow and hf.id_to_token(eow) in aliases
    for other in range(len(tok.vocab)):
        if other != eow:
            assert hf.id_to_token(other) not in aliases
    for text in TEXTS:
        ids = tok.encode(text, allowed_special="all")
        assert hf.encode(text).ids == ids, text
        assert hf.decode(ids) == tok.decode(ids), text


def test_gpt2_pattern_needs_no_unicode_space_aliases(tmp_path):
    """The issue's example: 30 whitespace characters aliased </w> (vocab 50 for 22 tokens)."""
    tok, hf = exported(tmp_path, "gpt2", "prefix")
    assert len(tok.vocab) == 22
    assert not any(hf.token_to_id(c) is not None for c in "\u2006\u3000\u00a0\t\n")
    ids = tok.encode("low lower widest", allowed_special="all")
    assert hf.decode(ids) == "low lower widest"


# ----- U+001C..U+001F: whitespace to str.strip(), not to \s ---------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SEP_CORPUS = ("low low. lower .\x1f. newest newest a\x1f. widest widest widest x\x1e.x "
              "\x1fb 1\x1c2 Bx/y a\u0301, it's\r\n <unk>")
SEP_TEXT = st.lists(st.sampled_from(["\x1c", "\x1d", "\x1e", "\x1f", ".", ",", "a", "b", "low",
                                     "1", " ", "  ", "\t", "\n", "'s", "x", "B", "/", "\r\n",
                                     "\u0301", "Ab"]),
                    max_size=14).map("".join)


@pytest.fixture(scope="module", params=["gpt2", "cjk", "cl100k"])
def sep_pair(request, tmp_path_factory):
    t = Trainer.from_text(SEP_CORPUS, TrainSettings(mode="char", end_of_word="prefix",
                                                    num_merges=14, pattern=request.param))
    t.run()
    tok = t.tokenizer()
    d = tmp_path_factory.mktemp("sep")
    export_tokenizer(tok, d, "hf")
    return tok, tokenizers.Tokenizer.from_file(str(d / "tokenizer.json"))


@pytest.mark.parametrize("text", [".\x1f.", "low.\x1f.low", "a\x1f.", "\x1f\x1f.", " \x1f.",
                                  "a\x1fb", "'s\x1f.", "x\x1e.", "\x1c", "\x1c\x1ca", "\n\x1cb",
                                  " \x1cb", "\t\x1c.", "a\x1c\u0301", "a\x1cB"])
def test_separators_inside_a_word_are_characters(sep_pair, text):
    """HF read U+001C..U+001F inside a word as </w> (the issue: '.\\x1f.'), and refused the
    export once the corpus had one inside a word."""
    tok, hf = sep_pair
    assert hf.encode(text).ids == tok.encode(text, allowed_special="all")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=SEP_TEXT)
def test_separators_encode_as_tokenizers_does(sep_pair, text):
    tok, hf = sep_pair
    assert hf.encode(text).ids == tok.encode(text, allowed_special="all")
