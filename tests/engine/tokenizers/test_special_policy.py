"""Special tokens safe by default, the same for every tokenizer kind (issue 69): tiktoken's
``allowed_special`` / ``disallowed_special`` / ``encode_ordinary``, and
``decode(skip_special_tokens=)``, each against the kind's own library (the kinds and
their oracles are test_conformance.py's)."""
from __future__ import annotations

import pytest

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")

from bpe_gui.engine.errors import (ArgumentError, ArgumentTypeError,  # noqa: E402
                                   DisallowedSpecialError, UnknownIdError)
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402

from test_conformance import EOT, KINDS, TEXTS, build  # noqa: E402


@pytest.fixture(scope="module", params=KINDS)
def kind(request, tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        return build(request.param, tmp_path_factory.mktemp(request.param), mp)


def typed(kind) -> list[str]:
    """Texts that hold each special token the library reads from text (its own list)."""
    names = sorted(kind.tok.special_ids)[:3] + [EOT]
    return [f"a{t}b {t}" for t in dict.fromkeys(names)]


def library_default(kind, text: str) -> list[int] | None:
    """The ids the kind's own library gives ``text`` with no option, None where it
    refuses it (tiktoken's ValueError on a special token's text)."""
    call = kind.default or kind.oracle
    try:
        return call(text)
    except ValueError:
        return None


@pytest.mark.regression
def test_typed_special_text_by_default_as_the_library_reads_it(kind):
    """A call naming no policy reads typed special text as the kind's own library does:
    a .tiktoken file refuses it (tiktoken), naming the token and the ways out; a
    tokenizer.json, GPT-2 files and a tokenizer trained here read it (tokenizers, CS336's
    contract: its tests failed with DisallowedSpecialError when tiktoken's default was
    applied to every kind); tekken and sentencepiece read it as text."""
    for text in typed(kind):
        want = library_default(kind, text)
        if want is not None:
            assert kind.tok.encode(text) == want, text
            assert kind.tok.encode_with_offsets(text).ids == want
            assert list(kind.tok.encode_to_array(text)) == want
            assert kind.tok.encode_batch([text, text], num_threads=2) == [want, want]
            assert list(kind.tok.encode_iterable([text[:2], text[2:]], chunk_chars=1)) == want
            continue
        with pytest.raises(DisallowedSpecialError, match="allowed_special") as got:
            kind.tok.encode(text)
        assert got.value.token in text and isinstance(got.value, ValueError)
        for call in (kind.tok.encode_with_offsets, kind.tok.encode_to_array,
                     lambda s: kind.tok.encode_batch([s]),
                     lambda s: list(kind.tok.encode_iterable([s[:2], s[2:]], chunk_chars=1))):
            with pytest.raises(DisallowedSpecialError):
                call(text)


@pytest.mark.parametrize("name", ["english", "chinese", "code", "empty"])
def test_text_without_special_tokens_encodes_by_default(kind, name):
    assert kind.tok.encode(TEXTS[name], add_special_tokens=False) == kind.oracle(TEXTS[name])


@pytest.mark.parametrize("name", ["english", "chinese", "empty"])
def test_every_default_equals_the_librarys(kind, name):
    """encode and decode with no option given: what the library gives with none (a
    tokenizer.json's post-processor adds its tokens; tiktoken adds none)."""
    if kind.default is None:
        pytest.skip(f"{kind.name}: its library's defaults are tested with its format")
    want = kind.default(TEXTS[name])
    assert kind.tok.encode(TEXTS[name]) == want
    assert kind.tok.encode_with_offsets(TEXTS[name]).ids == want
    assert kind.tok.encode_batch([TEXTS[name]]) == [want]
    assert kind.tok.decode(want) == (kind.decode_skip or kind.decode)(want)


def test_ordinary_equals_the_library_reading_no_special_token(kind):
    """encode_ordinary and disallowed_special=() read special tokens' text as text, as
    tiktoken's encode_ordinary and tokenizers' encode_special_tokens=True do."""
    if kind.ordinary is None:
        pytest.skip(f"{kind.name}'s library has no such mode")
    for text in typed(kind) + [TEXTS["special"], TEXTS["english"]]:
        want = kind.ordinary(text)
        assert kind.tok.encode_ordinary(text) == want, text
        assert kind.tok.encode(text, disallowed_special=(), add_special_tokens=False) == want
        enc = kind.tok.encode_with_offsets(text, disallowed_special=(),
                                           add_special_tokens=False)
        assert enc.ids == want and not any(enc.special)
        assert list(kind.tok.encode_to_array(text, disallowed_special=(),
                                             add_special_tokens=False)) == want
        assert kind.tok.encode_batch([text, text], num_threads=2, disallowed_special=(),
                                     add_special_tokens=False) == [want, want]
        assert list(kind.tok.encode_iterable([text[:3], text[3:]], chunk_chars=2,
                                             disallowed_special=(),
                                             add_special_tokens=False)) == want


def test_all_allowed_equals_the_library_default(kind):
    for text in typed(kind):
        assert kind.tok.encode(text, allowed_special="all",
                               add_special_tokens=False) == kind.oracle(text)


def test_decode_skips_special_tokens_as_the_library_does(kind):
    if kind.decode_skip is None:
        pytest.skip(f"{kind.name}'s library has no such mode")
    for text in typed(kind):
        ids = kind.tok.encode(text, allowed_special="all", add_special_tokens=False)
        assert kind.tok.decode(ids, skip_special_tokens=True) == kind.decode_skip(ids)
        assert kind.tok.decode(ids, skip_special_tokens=False) == kind.decode(ids)
        assert kind.tok.decode_batch([ids, ids], skip_special_tokens=False) == \
            [kind.decode(ids)] * 2


def test_unknown_ids_raise_a_decode_error(kind):
    top = kind.tok.n_vocab
    with pytest.raises(UnknownIdError, match=f"token id {top} is not in the vocabulary"):
        kind.tok.decode([0, top])
    with pytest.raises(UnknownIdError):
        kind.tok.decode_single_token_bytes(top)


# ----- some special tokens allowed, others text or refused, against tiktoken -----------------
FIM = "<|fim_prefix|>"


@pytest.fixture(scope="module")
def two_specials():
    t = Trainer.from_text(("hello world, it's the lowest newest " * 40),
                          TrainSettings(vocab_size=300, pattern="cl100k",
                                        special_tokens=[EOT, FIM]))
    t.run()
    tok = t.tokenizer()
    ranks = {b: i for i, b in tok.vocab.items() if i not in tok.special_ids.values()}
    enc = tiktoken.Encoding("two", pat_str=tok.pattern, mergeable_ranks=ranks,
                            special_tokens=dict(tok.special_ids))
    return tok, enc


@pytest.mark.parametrize("allowed, disallowed", [
    ({EOT}, ()), ({FIM}, ()), (set(), ()), ("all", "all"), ({EOT}, {"<|fim_prefix|>"}),
    (set(), {EOT}), ({EOT}, "all")])
def test_subsets_follow_tiktoken(two_specials, allowed, disallowed):
    tok, enc = two_specials
    for text in (f"a{EOT}b{FIM}c", f"{FIM}{FIM}x", "plain", f"x{EOT}"):
        try:
            want: list[int] | type = enc.encode(text, allowed_special=allowed,
                                                disallowed_special=disallowed)
        except ValueError:
            want = ValueError
        if want is ValueError:
            with pytest.raises(DisallowedSpecialError):
                tok.encode(text, allowed_special=allowed, disallowed_special=disallowed)
        else:
            assert tok.encode(text, allowed_special=allowed,
                              disallowed_special=disallowed) == want, text


def test_bad_policies_say_what_to_pass(two_specials):
    tok, _ = two_specials
    with pytest.raises(ArgumentTypeError, match='"all" or a set'):
        tok.encode("x", allowed_special=EOT)
    with pytest.raises(ArgumentError, match="'<s>', which is not a special token"):
        tok.encode("x", allowed_special={"<s>"})


def test_library_names(two_specials):
    tok, enc = two_specials
    assert tok.n_vocab == enc.n_vocab and tok.max_token_value == enc.max_token_value
    assert tok.eot_token == enc.eot_token
    assert tok.special_tokens_set == enc.special_tokens_set
    ids = enc.encode("hello world", allowed_special="all")
    assert tok.decode_tokens_bytes(ids) == enc.decode_tokens_bytes(ids)
    assert tok.decode_single_token_bytes(ids[0]) == enc.decode_single_token_bytes(ids[0])
    assert tok.encode_single_token(b"hello") == enc.encode_single_token(b"hello")
    assert tok.decode_batch([ids, ids[:1]]) == enc.decode_batch([ids, ids[:1]])
    assert tok.encode_batch(["a", "hello"], num_threads=2) == \
        enc.encode_batch(["a", "hello"], num_threads=2)
