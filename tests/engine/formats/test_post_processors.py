"""The tokens a format adds around a text (issue 69): a tokenizer.json's post-processor
(TemplateProcessing, Bert, Roberta, a Sequence) added by default as ``tokenizers`` adds
them, ids and offsets, and left out of the default decode as its ``decode`` leaves
them; a GGUF's BOS / EOS when asked."""
from __future__ import annotations

import pytest

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import decoders, models, pre_tokenizers, processors, trainers  # noqa: E402

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402

import built_models  # noqa: E402

BOS, EOS = "<|begin_of_text|>", "<|end_of_text|>"
CORPUS = "hello world, hi there. It's the lowest newest widest 你好 " * 40
TEXTS = ["hi there", "", f"hi{EOS}there", "你好 world"]


def trained_hf() -> "tokenizers.Tokenizer":
    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    hf.train_from_iterator([CORPUS], trainers.BpeTrainer(
        vocab_size=320, special_tokens=[BOS, EOS], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return hf


PROCESSORS = {
    "template-bos": lambda: processors.TemplateProcessing(
        single=f"{BOS} $A", special_tokens=[(BOS, 0)]),
    "template-both": lambda: processors.TemplateProcessing(
        single=f"{BOS} $A {EOS}", special_tokens=[(BOS, 0), (EOS, 1)]),
    "bert": lambda: processors.BertProcessing((EOS, 1), (BOS, 0)),
    "roberta": lambda: processors.RobertaProcessing((EOS, 1), (BOS, 0), trim_offsets=False),
    "sequence": lambda: processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(single=f"{BOS} $A", special_tokens=[(BOS, 0)])]),
    "bytelevel": lambda: processors.ByteLevel(trim_offsets=False),
}


@pytest.fixture(scope="module", params=list(PROCESSORS))
def pair(request, tmp_path_factory):
    hf = trained_hf()
    hf.post_processor = PROCESSORS[request.param]()
    path = tmp_path_factory.mktemp(request.param) / "tokenizer.json"
    hf.save(str(path))
    return hf, load_tokenizer(path)


@pytest.mark.parametrize("text", TEXTS)
def test_encode_adds_what_tokenizers_adds(pair, text):
    hf, tok = pair
    want = hf.encode(text)
    assert tok.encode(text, allowed_special="all") == want.ids
    enc = tok.encode_with_offsets(text, allowed_special="all")
    assert (enc.ids, enc.offsets) == (want.ids, want.offsets)
    assert tok.encode_batch([text, text], allowed_special="all") == [want.ids] * 2
    assert list(tok.encode_to_array(text, allowed_special="all")) == want.ids
    bare = hf.encode(text, add_special_tokens=False).ids
    assert tok.encode(text, allowed_special="all", add_special_tokens=False) == bare
    assert tok.encode_ordinary(text) == [i for i in bare if i != hf.token_to_id(EOS)] or \
        EOS in text


@pytest.mark.parametrize("text", TEXTS)
def test_decode_defaults_to_tokenizers_decode(pair, text):
    hf, tok = pair
    ids = hf.encode(text).ids
    assert tok.decode(ids) == hf.decode(ids)
    assert tok.decode(ids, skip_special_tokens=False) == hf.decode(ids, skip_special_tokens=False)
    assert tok.decode_batch([ids]) == hf.decode_batch([ids])


def test_id_to_token_spells_tokens_as_tokenizers(pair):
    hf, tok = pair
    for i in list(range(0, 320, 7)):
        assert tok.id_to_token(i) == hf.id_to_token(i)


def test_gguf_adds_bos_and_eos_when_asked(tmp_path):
    """llama.cpp adds the BOS and EOS its file names (tokenizer.ggml.add_bos_token ...)
    when the caller asks; the file's writer says which ids they are."""
    path, hf = built_models.gguf_file(tmp_path, CORPUS, EOS, bos_eos=True)
    tok = load_tokenizer(path)
    eos = hf.token_to_id(EOS)
    bare = hf.encode("hi there", add_special_tokens=False).ids
    assert tok.encode("hi there", allowed_special="all") == bare
    assert tok.encode("hi there", add_special_tokens=True, allowed_special="all") == [eos] + bare + [eos]
