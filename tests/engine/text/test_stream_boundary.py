"""encode_iterable over any chunking equals encode, for every kind of pattern: those the
native scanner runs (safe cuts), those `regex` runs (cjk, whitespace, custom), trained
tokenizers and imported .tiktoken files, with special tokens straddling chunks."""
from __future__ import annotations

import base64
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from scan_oracle import texts

from bpe_gui.engine import Tokenizer
from bpe_gui.engine.text import presets as pk
from bpe_gui.engine.tokenizers import pipeline as tokenizer_module
from bpe_gui.engine.formats import load_tokenizer
from bpe_gui.engine.text.pretokenize import Pretokenizer
from bpe_gui.engine.text.boundaries import CONTEXT, outside_specials, stream_boundary
from bpe_gui.engine.train.trainer import TrainSettings, Trainer

EOT = "<|endoftext|>"
# (the cases below as words often enough to become tokens, so a wrong cut changes ids)
CORPUS = ("Hello, World! It's 3:45pm; we'll see... don't I'M a!\n/x a\n\nb  c\n x "
          "你好世界，这是一个测试。 Привет  мир\r\n\t 12345 <|endoftext|> ") * 8 + \
    ("a  <|endoftext|>x \n\n  y!\n/z\n\nw\n ") * 30
NATIVE = {"gpt2": "gpt2", "cl100k": "cl100k", "o200k": "o200k",
          "llama3": pk.LLAMA3_PATTERN, "qwen2": pk.QWEN2_PATTERN, "tekken": pk.TEKKEN_PATTERN}
REGEX_RUN = {"cjk": "cjk", "whitespace": "whitespace",
             "custom": r"\w+|[^\w\s]+|\s+(?!\S)|\s+",
             "custom-groups": r"(\p{L})\p{L}*|\p{N}|\s+|[^\s\p{L}\p{N}]"}
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

pieces = st.one_of(texts(4), st.sampled_from([EOT, "<|endoftext", "|>", "  ", " \n", "\n\n",
                                              "a!\n/x", "/", "a  ", "\r\n"]))


def trained(pattern: str):
    t = Trainer.from_text(CORPUS, TrainSettings(vocab_size=300, pattern=pattern,
                                                special_tokens=(EOT,)))
    t.run()
    return t.tokenizer()


@pytest.fixture(scope="module")
def tokenizers():
    return {name: trained(p) for name, p in {**NATIVE, **REGEX_RUN}.items()}


def chunked(text: str, cuts: list[int]) -> list[str]:
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def test_special_token_straddling_a_chunk_after_whitespace(tokenizers):
    """The issue's case: cjk, whitespace before a special token cut in two."""
    tok = tokenizers["cjk"]
    assert list(tok.encode_iterable(["a  <|endoftext", "|>"], chunk_chars=1, allowed_special="all")) == \
        tok.encode("a  <|endoftext|>", allowed_special="all")


@pytest.mark.parametrize("name", sorted({**NATIVE, **REGEX_RUN}))
@SETTINGS
@given(parts=st.lists(pieces, max_size=12), cuts=st.lists(st.integers(0, 10_000), max_size=6),
       chunk_chars=st.integers(1, 12))
def test_encode_iterable_equals_encode(tokenizers, name, parts, cuts, chunk_chars):
    tok = tokenizers[name]
    text = "".join(parts)
    assert list(tok.encode_iterable(chunked(text, cuts), chunk_chars, allowed_special="all")) == tok.encode(text, allowed_special="all")


@pytest.mark.parametrize("name", sorted(REGEX_RUN))
@SETTINGS
@given(text=st.text(alphabet="ab 你\n!/<|endoftex>", max_size=40))
def test_regex_cut_words_equal_the_whole_texts(name, text):
    pre = Pretokenizer(REGEX_RUN[name], [EOT])
    cut = stream_boundary(pre, text, 8)
    if cut:
        for tail in ("", " ", "x", EOT, "|>", "\n"):
            assert pre.words(text[:cut]) + pre.words(text[cut:] + tail) == \
                pre.words(text + tail)


# ----- imported .tiktoken files (the pipeline's own encode_iterable) -------------------------
@pytest.fixture(scope="module")
def imported(tmp_path_factory, tokenizers):
    """Each native pattern's trained ranks as a .tiktoken file with its pattern beside it."""
    d = tmp_path_factory.mktemp("tiktoken")
    out = {}
    for name in ("gpt2", "cl100k", "o200k", "tekken"):
        tok = tokenizers[name]
        ranks = {tok.vocab[i]: i for i in sorted(tok.vocab) if i not in tok.special_ids.values()}
        path = d / f"{name}.tiktoken"
        path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n"
                                for t, r in sorted(ranks.items(), key=lambda kv: kv[1])))
        (d / f"{name}.tiktoken.json").write_text(json.dumps(
            {"pat_str": pk.KIND_PATTERNS[name], "special_tokens": {EOT: max(ranks.values()) + 1}}))
        out[name] = load_tokenizer(path)
    return out


@pytest.mark.parametrize("name,text,chunk_chars", [
    ("o200k", "a!\n/x", 4),      # o200k joins a line break and a following '/'
    ("gpt2", "a\n\nb", 3),       # GPT-2 cuts "\n\n" before a letter in two, at the end not
    ("cl100k", "a\n b", 2),
    ("tekken", "a!\n/x 12345 it's", 3),   # tekken: o200k's '/', single digits, no suffix
    # U+FFFF (a noncharacter: text like any other) as a word of its own after the first chunk
    ("cl100k", "\t'         \r\n\uffff", 1),
    ("o200k", "ab \uffff\uffffc", 2),
])
def test_imported_stream_cases(imported, name, text, chunk_chars):
    tok = imported[name]
    assert list(tok.encode_iterable([text], chunk_chars=chunk_chars, allowed_special="all")) == tok.encode(text, allowed_special="all")


@pytest.mark.parametrize("name", ["gpt2", "cl100k", "o200k", "tekken"])
@SETTINGS
@given(parts=st.lists(pieces, max_size=12), cuts=st.lists(st.integers(0, 10_000), max_size=6),
       chunk_chars=st.integers(1, 12))
def test_imported_encode_iterable_equals_encode(imported, name, parts, cuts, chunk_chars):
    tok = imported[name]
    text = "".join(parts)
    assert list(tok.encode_iterable(chunked(text, cuts), chunk_chars, allowed_special="all")) == tok.encode(text, allowed_special="all")


# ---------------------------------------------------------------- regressions


def _byte_vocab() -> dict[int, bytes]:
    return {i: bytes([i]) for i in range(256)}


@pytest.mark.regression
def test_encode_iterable_keeps_lookahead_context():
    """The buffer was cut at a word start and the part before re-encoded on its own, so
    '\\n\\n' before 'QUEEN' became one word (\\s+(?!\\S) sees the end, not the Q)."""
    tok = Tokenizer({**_byte_vocab(), 256: b"\n\n"}, [(b"\n", b"\n")])
    text = "sake.\n\nQUEEN MARGARET:\n"
    assert tok.encode(text, allowed_special="all").count(10) == 3 and 256 not in tok.encode(text, allowed_special="all")
    for pieces in (["sake.\n\nQUEEN M", "ARGARET:\n"], ["sake.\n", "\n", "QUEEN MARGARET:\n"]):
        assert list(tok.encode_iterable(pieces, chunk_chars=8, allowed_special="all")) == tok.encode(text, allowed_special="all")


@pytest.mark.regression
def test_encode_iterable_short_buffer_with_long_special():
    """Guards the rewrite of encode_iterable: a buffer shorter than the longest special
    token must not give a negative cut."""
    tok = Tokenizer(_byte_vocab(), [], special_tokens=["<|endoftext|>", "<|fim|>"])
    assert list(tok.encode_iterable(["<|fim|>"], chunk_chars=1, allowed_special="all")) == tok.encode("<|fim|>", allowed_special="all") == [257]


@pytest.mark.regression
@pytest.mark.parametrize("pattern", [None, r"\S+|\s+"])   # native scanner, regex
def test_encode_iterable_uncuttable_stream_stays_linear(monkeypatch, pattern):
    """A stream that cannot be cut (one long run of spaces, fed a character at a time)
    re-scanned the whole buffer for every new character: quadratic time. The text looked
    at for cuts, summed over the attempts, must stay within a few times the stream."""
    tok = Tokenizer(_byte_vocab(), [], **({"pattern": pattern} if pattern else {}))
    looked: list[int] = []
    real_cut = tokenizer_module.stream_boundary

    def spy(pre, buf, chunk_chars):
        looked.append(len(buf))
        return real_cut(pre, buf, chunk_chars)

    monkeypatch.setattr(tokenizer_module, "stream_boundary", spy)
    n = 200_000
    ids = list(tok.encode_iterable(iter(" " * n), chunk_chars=64, allowed_special="all"))
    assert ids == [32] * n
    assert looked and sum(looked) <= 4 * n   # quadratic: about n * n / 128 = 3e8


@settings(max_examples=300, deadline=None)
@given(st.text("ab\n", max_size=60), st.lists(st.sampled_from(["\n\n", "aba", "ab", "\n"]),
                                                min_size=1, max_size=3, unique=True),
       st.data())
def test_a_fixed_cut_is_inside_no_special_token(buf, specials, data):
    """Runs of overlapping tokens ("\n\n" in "\n" * 30) included: the cut leaves every
    token whole and none of them ends just before it, or there is none after lo.
    Oracle: every place each token occurs, by brute force."""
    lo = data.draw(st.integers(0, len(buf)))
    p = data.draw(st.integers(lo, len(buf)))
    got = outside_specials(buf, p, lo, specials)
    if got == -1:
        return
    assert lo < got <= len(buf)
    for s in specials:
        for i in range(len(buf) - len(s) + 1):
            if buf.startswith(s, i):
                assert not i < got < i + len(s), (buf, s, i, got)
                assert not got - CONTEXT < i + len(s) < got, (buf, s, i, got)
