"""``tok.as_hf()`` against Hugging Face ``tokenizers`` itself (issue 87).

tokenizers' sdist (0.23.3) ships bindings/python/tests, but they build tokenizers from
tokenizers' own parts (``Tokenizer(BPE())``, ``ByteLevelBPETokenizer``) or download files
from the Hub (roberta, ``tokenizer-wiki.json``), so none runs against an adapter over a
loaded tokenizer. Each documented behaviour they check is checked here instead, with
tokenizers as the oracle on the same inputs: the same ``tokenizer.json`` loaded by both
(tokenizers wrote it: tests/engine/hf_files.py), every ``Encoding`` field compared over
many texts, special tokens typed in them, batches, padding and truncation (with stride,
both directions, the overflowing parts). The quicktour's part that uses a loaded
tokenizer runs word for word through both. Every kind of tokenizer (test_conformance.py's
kinds) answers through the adapter what its own calls answer.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import models, pre_tokenizers, processors, trainers  # noqa: E402

from bpe_gui.engine.errors import ArgumentError  # noqa: E402
from bpe_gui.engine.formats import load_tokenizer  # noqa: E402

import hf_files  # noqa: E402
from hf_files import CASES, EXTRA, SAMPLES  # noqa: E402

EOT = "<|endoftext|>"
TEXTS = SAMPLES + EXTRA + [f"hello world{EOT} héllo {EOT}", "the quick brown fox jumps over",
                           "x<s>y </s> z <mask> hello <|eot_id|>Hi", "a"]
# padding and truncation as a user sets them, applied to both tokenizers alike
SETTINGS = {
    "none": lambda t: None,
    "pad-longest": lambda t: t.enable_padding(pad_id=3, pad_token="<pad>", pad_type_id=2),
    "truncate-pad-left-multiple": lambda t: (t.enable_truncation(4), t.enable_padding(
        direction="left", pad_to_multiple_of=3)),
    "truncate-left-stride": lambda t: t.enable_truncation(5, stride=2, direction="left"),
    "truncate-stride-pad-length": lambda t: (t.enable_truncation(7, stride=3),
                                             t.enable_padding(length=9)),
    "truncate-to-one": lambda t: t.enable_truncation(1),
}


def fields(e) -> tuple:
    """Everything an Encoding answers that as_hf covers, overflowing parts included."""
    return (e.ids, e.tokens, e.offsets, e.attention_mask, e.special_tokens_mask, e.type_ids,
            len(e), e.n_sequences, [fields(o) for o in e.overflowing])


def with_template(tk):
    """A template adding a token before and after each text (as BERT's, Llama 3's BOS)."""
    tk.post_processor = processors.TemplateProcessing(
        single=f"{EOT} $A {EOT}", special_tokens=[(EOT, tk.token_to_id(EOT))])
    return tk


ALL_CASES = {**CASES, "template-around": lambda: with_template(hf_files.gpt2_style())}


@pytest.fixture(scope="module", params=sorted(ALL_CASES))
def pair(request, tmp_path_factory):
    """(tokenizers' Tokenizer, ours through as_hf()) of one tokenizer.json."""
    tk = ALL_CASES[request.param]()
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    tk.save(str(path))
    return tk, load_tokenizer(path).as_hf()


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_encode_batch_equals_tokenizers(pair, setting):
    tk, ours = pair
    for t in (tk, ours):
        t.no_padding()
        t.no_truncation()
        SETTINGS[setting](t)
    assert ours.padding == tk.padding and ours.truncation == tk.truncation
    for add in (True, False):
        want = [fields(e) for e in tk.encode_batch(TEXTS, add_special_tokens=add)]
        assert [fields(e) for e in ours.encode_batch(TEXTS, add_special_tokens=add)] == want
        assert fields(ours.encode(TEXTS[0], add_special_tokens=add)) == \
            fields(tk.encode(TEXTS[0], add_special_tokens=add))
    tk.no_padding(), tk.no_truncation(), ours.no_padding(), ours.no_truncation()


def test_decode_and_vocabulary_equal_tokenizers(pair):
    tk, ours = pair
    batch = [e.ids for e in tk.encode_batch(TEXTS)] + [[10 ** 6, 0, 1]]  # an unknown id
    for skip in (True, False):
        assert ours.decode_batch(batch, skip_special_tokens=skip) == \
            tk.decode_batch(batch, skip_special_tokens=skip)
    assert ours.decode(batch[0]) == tk.decode(batch[0])
    for added in (True, False):
        assert ours.get_vocab(added) == tk.get_vocab(added)
        assert ours.get_vocab_size(added) == tk.get_vocab_size(added)
    vocab = tk.get_vocab()
    for token, i in list(vocab.items())[::7]:
        assert ours.id_to_token(i) == tk.id_to_token(i)
        assert ours.token_to_id(token) == tk.token_to_id(token)
    assert ours.token_to_id("no such token here") is None
    assert ours.id_to_token(10 ** 6) is None


def quicktour(Tokenizer, path, path_with_template) -> list:
    """tokenizers' quicktour (docs, tests/documentation/test_quicktour.py) from
    ``reload_tokenizer`` on, word for word; ``print`` collects what it prints. The one
    line that sets ``tokenizer.post_processor = TemplateProcessing(...)`` loads a file
    holding that template instead (as_hf takes no tokenizers parts), and the pair parts
    are left to test_what_as_hf_refuses_says_so."""
    printed = []
    print = printed.append   # noqa: A001 - the quicktour's own prints, collected
    tokenizer = Tokenizer.from_file(path)
    output = tokenizer.encode("Hello, y'all! How are you 😁 ?")
    print(output.tokens)
    print(output.ids)
    print(output.offsets[9])
    sentence = "Hello, y'all! How are you 😁 ?"
    print(sentence[26:27])
    print(tokenizer.token_to_id("[SEP]"))
    tokenizer = Tokenizer.from_file(path_with_template)
    output = tokenizer.encode("Hello, y'all! How are you 😁 ?")
    print(output.tokens)
    print(output.type_ids)
    output = tokenizer.encode_batch(["Hello, y'all!", "How are you 😁 ?"])
    print([o.tokens for o in output])
    tokenizer.enable_padding(pad_id=3, pad_token="[PAD]")
    output = tokenizer.encode_batch(["Hello, y'all!", "How are you 😁 ?"])
    print(output[1].tokens)
    print(output[1].attention_mask)
    print(output[0].tokens)           # (added: here the first text is the padded one)
    print(output[0].attention_mask)
    return printed


def test_the_quicktour_prints_what_tokenizers_prints(tmp_path):
    # the quicktour's tokenizer: BPE with [UNK], Whitespace, its five special tokens
    tk = tokenizers.Tokenizer(models.BPE(unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tk.train_from_iterator(hf_files.CORPUS * 3, trainers.BpeTrainer(
        special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"], vocab_size=400,
        show_progress=False))
    tk.save(str(tmp_path / "tokenizer-wiki.json"))
    tk.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", tk.token_to_id("[CLS]")), ("[SEP]", tk.token_to_id("[SEP]"))])
    tk.save(str(tmp_path / "with-template.json"))

    class Ours:   # the import changed: `from bpe_gui... import` instead of tokenizers'
        @staticmethod
        def from_file(path):
            return load_tokenizer(path).as_hf()

    paths = str(tmp_path / "tokenizer-wiki.json"), str(tmp_path / "with-template.json")
    want = quicktour(tokenizers.Tokenizer, *paths)
    assert "[UNK]" in want[0] and want[-2][-1] == "[PAD]"   # (the quicktour's points)
    assert quicktour(Ours, *paths) == want


def test_what_as_hf_refuses_says_so(pair):
    _, ours = pair
    with pytest.raises(ArgumentError, match="pairs of sequences"):
        ours.encode("Hello, y'all!", "How are you?")
    with pytest.raises(ArgumentError, match="pairs of sequences"):
        ours.encode_batch([("Hello, y'all!", "How are you?")])
    with pytest.raises(ArgumentError, match="pre-tokenized"):
        ours.encode_batch(["a"], is_pretokenized=True)
    with pytest.raises(TypeError, match="list of texts"):
        ours.encode_batch("a text")
    with pytest.raises(ArgumentError, match="extra_special_tokens"):
        ours.add_special_tokens(["<|new|>"])
    with pytest.raises(ArgumentError, match="direction"):
        ours.enable_padding(direction="up")
    with pytest.raises(ArgumentError, match="stride"):
        ours.enable_truncation(4, stride=4)
    with pytest.raises(AttributeError, match="not covered by as_hf"):
        ours.post_process(ours.encode("a"))
    with pytest.raises(AttributeError, match="not covered by as_hf"):
        getattr(ours.encode("a"), "word_ids")


# ----- every kind of tokenizer through the adapter ---------------------------------------
sys.path.insert(0, str(Path(__file__).parents[1] / "tokenizers"))   # (its kinds, built there)
from test_conformance import KINDS, build  # noqa: E402

KIND_TEXTS = ["Hello, World! It's 3:45pm", "你好世界 emoji 🙂👍🏽", f"a{EOT}b {EOT}", "",
              "  lead\t\ttrail  \n\n a\u00a0b 12345"]


@pytest.fixture(scope="module", params=KINDS)
def kind(request, tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        return build(request.param, tmp_path_factory.mktemp(request.param), mp)


def test_every_kind_answers_through_as_hf_what_it_answers_itself(kind):
    tok = kind.tok
    hf = tok.as_hf()
    got = hf.encode_batch(KIND_TEXTS, add_special_tokens=False)
    for text, e in zip(KIND_TEXTS, got):
        own = tok.encode_with_offsets(text, allowed_special="all", add_special_tokens=False)
        assert e.ids == own.ids == tok.encode(text, allowed_special="all",
                                              add_special_tokens=False), kind.name
        assert e.offsets == own.offsets and e.attention_mask == [1] * len(own.ids)
        assert e.tokens == own.token_strings == [tok.id_to_token(i) for i in own.ids]
        assert hf.decode(e.ids) == tok.decode(e.ids, skip_special_tokens=True)
        if kind.name.startswith("spm-"):   # sentencepiece's own pieces ('▁the'), regression
            assert e.tokens == [kind.oracle.__self__.id_to_piece(i) for i in e.ids]
    with_adds = hf.encode_batch(KIND_TEXTS)
    assert [e.ids for e in with_adds] == [
        tok.encode(t, allowed_special="all", add_special_tokens=(tok.post is not None))
        for t in KIND_TEXTS]
    hf.enable_padding(pad_id=0, pad_token="<pad>")
    hf.enable_truncation(6)
    for text, e in zip(KIND_TEXTS, hf.encode_batch(KIND_TEXTS, add_special_tokens=False)):
        ids = tok.encode(text, allowed_special="all", add_special_tokens=False)
        assert e.ids == ids[:6] + [0] * (6 - len(ids[:6])), kind.name
        assert sum(e.attention_mask) == len(ids[:6])
        assert [i for o in e.overflowing for i in o.ids[:sum(o.attention_mask)]] == ids[6:]
    vocab = hf.get_vocab()
    assert all(hf.token_to_id(t) == i for t, i in list(vocab.items())[::11]), kind.name
    assert hf.get_vocab_size() == len(vocab)


def test_a_batch_reads_as_tokenizers_list_does(pair):
    """encode_batch gives a sequence made when read: indexes, slices and errors as a list's."""
    tk, ours = pair
    want, got = tk.encode_batch(TEXTS[:5]), ours.encode_batch(TEXTS[:5])
    assert len(got) == len(want) == 5
    for k in (0, 4, -1, -5, slice(1, 4), slice(None, None, -2)):
        w, g = want[k], got[k]
        assert ([e.ids for e in g] == [e.ids for e in w]) if isinstance(k, slice) else \
            (g.ids == w.ids and g.offsets == w.offsets), k
    for k in (5, -6):
        with pytest.raises(IndexError):
            got[k]
