"""Imported tokenizer.json files encode exactly as Hugging Face ``tokenizers`` does.

Each case builds a tokenizer with the ``tokenizers`` library itself (training a small
BPE on mixed-script text), saves it, loads the file here, and compares ids, character
offsets and decoded text with ``tokenizers`` (the oracle) on English, Russian, Arabic,
Chinese, emoji, code and random text.
"""
from __future__ import annotations

import pytest

tokenizers = pytest.importorskip("tokenizers")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, processors  # noqa: E402
from tokenizers import trainers  # noqa: E402

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.pipeline.bridge import PipelineTokenizer  # noqa: E402

SAMPLES = [
    "Hello, World! It's 3:45pm; we'll see... don't I'M x2 12345 3.14",
    "Привет, мир! Как дела? Это проверка токенизатора.",
    "مرحبا بالعالم، هذا اختبار للمقسم.",
    "你好世界，这是一个测试。中文分词很有趣！",
    "emoji 🙂👍🏽 👨\u200d👩\u200d👧 🇨🇳 done",
    "def f(x):\n    return x**2  # comment\n\tif y:  pass\n",
    "  two  spaces\tand\ttabs \r\n\n\n trailing   \u00a0nbsp\u3000ideographic",
    "ﬁne ﬂow ①②③ ＡＢＣ１２３ ½ é e\u0301 İstanbul ΣΑΣ",
    "▁already▁marked ▁ <0x41> text",
    "",
    " ",
    "x",
]
LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
                  r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
CORPUS = [s for s in SAMPLES if s] * 8 + [
    "the quick brown fox jumps over the lazy dog " * 3,
    "Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "نص عربي قصير للتدريب على الترميز",
    "我们在学习字节对编码的分词方法，这个方法很常见。",
    "import os\nfor i in range(10):\n    print(i)\n",
]
BYTES = [f"<0x{b:02X}>" for b in range(256)]


def train(tk, vocab_size=500, specials=(), alphabet=()):
    tr = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(specials),
                             initial_alphabet=list(alphabet), show_progress=False)
    tk.train_from_iterator(CORPUS, tr)
    return tk


def byte_level_llama3(ignore_merges=True, pattern=LLAMA3_PATTERN):
    tk = tokenizers.Tokenizer(models.BPE(ignore_merges=ignore_merges))
    tk.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tk.decoder = decoders.ByteLevel()
    tk.post_processor = processors.ByteLevel(trim_offsets=False)
    return train(tk, 700, ["<|begin_of_text|>", "<|eot_id|>"],
                 pre_tokenizers.ByteLevel.alphabet())


def gpt2_style(add_prefix_space=False, trim_offsets=True):
    tk = tokenizers.Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    tk.decoder = decoders.ByteLevel()
    tk.post_processor = processors.ByteLevel(trim_offsets=trim_offsets)
    return train(tk, 600, ["<|endoftext|>"], pre_tokenizers.ByteLevel.alphabet())


def metaspace_fallback(scheme="first", split=False, normalizer=None):
    tk = tokenizers.Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>", fuse_unk=True))
    if normalizer is not None:
        tk.normalizer = normalizer
    tk.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme=scheme,
                                                split=split)
    tk.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(),
                                    decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    return train(tk, 700, ["<unk>", "<s>", "</s>", *BYTES])


def llama2_legacy():
    """Llama 2 as transformers writes it: Prepend + Replace normalizers, no pre-tokenizer."""
    tk = tokenizers.Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>", fuse_unk=True))
    tk.normalizer = normalizers.Sequence([normalizers.Prepend("▁"),
                                          normalizers.Replace(" ", "▁")])
    tk.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(),
                                    decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    return train(tk, 500, ["<unk>", "<s>", "</s>", *BYTES])


def normalized(norm):
    tk = tokenizers.Tokenizer(models.BPE())
    tk.normalizer = norm
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    return train(tk, 500, [], pre_tokenizers.ByteLevel.alphabet())


def splits(*steps):
    tk = tokenizers.Tokenizer(models.BPE(ignore_merges=True))
    tk.pre_tokenizer = pre_tokenizers.Sequence(
        [*steps, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tk.decoder = decoders.ByteLevel()
    return train(tk, 500, [], pre_tokenizers.ByteLevel.alphabet())


def with_added(tk, tokens):
    tk.add_tokens(tokens)
    return tk


AT = tokenizers.AddedToken
CASES = {
    "llama3-ignore-merges": byte_level_llama3,
    "llama3-without-ignore-merges": lambda: byte_level_llama3(False),
    # Qwen2's Split: single digits (run by the native scanner, as Llama 3's)
    "qwen2-split": lambda: byte_level_llama3(False, LLAMA3_PATTERN.replace(r"\p{N}{1,3}", r"\p{N}")),
    "gpt2-bytelevel-regex": gpt2_style,
    "bytelevel-prefix-space-trim": lambda: gpt2_style(True, True),
    "bytelevel-prefix-space-no-trim": lambda: gpt2_style(True, False),
    "metaspace-first-fallback": metaspace_fallback,
    "metaspace-always-split": lambda: metaspace_fallback("always", True),
    "metaspace-never": lambda: metaspace_fallback("never", True),
    "metaspace-nfkc": lambda: metaspace_fallback("first", True, normalizers.NFKC()),
    "llama2-prepend-replace": llama2_legacy,
    "nfc": lambda: normalized(normalizers.NFC()),
    "nfkc-lowercase": lambda: normalized(normalizers.Sequence([normalizers.NFKC(),
                                                                normalizers.Lowercase()])),
    "replace-regex": lambda: normalized(normalizers.Replace(Regex(r"\d+"), "<num>")),
    "prepend": lambda: normalized(normalizers.Prepend("§")),
    "split-isolated-invert": lambda: splits(
        pre_tokenizers.Split(Regex(r"\p{L}+"), behavior="isolated", invert=True)),
    "split-removed": lambda: splits(pre_tokenizers.Split(Regex(r"\s+"), behavior="removed")),
    "split-merged-previous": lambda: splits(
        pre_tokenizers.Split(Regex(r"[.,!?;:]"), behavior="merged_with_previous")),
    "split-merged-next": lambda: splits(
        pre_tokenizers.Split(" ", behavior="merged_with_next")),
    "split-contiguous": lambda: splits(
        pre_tokenizers.Split(Regex(r"\p{P}"), behavior="contiguous")),
    "split-sequence": lambda: splits(
        pre_tokenizers.Split(Regex(r"\n"), behavior="removed", invert=False),
        pre_tokenizers.Split(Regex(r"\p{N}"), behavior="isolated"),
        pre_tokenizers.Split(Regex(r" ?\p{L}+"), behavior="merged_with_next", invert=True)),
    "added-tokens-flags": lambda: with_added(byte_level_llama3(), [
        AT("hello", single_word=True), AT("<mask>", lstrip=True, rstrip=True, special=True),
        AT("мир", normalized=True), AT("ABC", normalized=False), AT("tab\t", rstrip=True)]),
    "added-tokens-normalized-lowercase": lambda: with_added(
        normalized(normalizers.Lowercase()), [AT("World", normalized=True),
                                              AT("Fox", normalized=False)]),
    "added-tokens-metaspace": lambda: with_added(metaspace_fallback(), [
        AT("<tool>", special=True, normalized=False), AT("дела", single_word=True)]),
}
EXTRA = ["say hello, hellothere hello", "a <mask>  b<mask>c", "tab\t\t x ABC abc",
         "Hello World fox FOX Fox", "x<s>y </s> z <tool>дела дела!", "<|eot_id|>Hi<|begin_of_text|>",
         "1234 56", "a.b,c!!d", "мир миру"]


@pytest.fixture(scope="module", params=sorted(CASES))
def pair(request, tmp_path_factory):
    tk = CASES[request.param]()
    path = tmp_path_factory.mktemp(request.param) / "tokenizer.json"
    tk.save(str(path))
    ours = load_tokenizer(path)
    assert isinstance(ours, PipelineTokenizer)
    return tk, ours


def same(tk, ours, text: str) -> None:
    theirs = tk.encode(text, add_special_tokens=False)
    enc = ours.encode_with_offsets(text)
    assert enc.ids == theirs.ids, text
    assert ours.encode(text) == theirs.ids, text
    assert enc.offsets == [tuple(o) for o in theirs.offsets], text
    assert ours.decode(theirs.ids) == tk.decode(theirs.ids, skip_special_tokens=False), text


@pytest.mark.parametrize("text", SAMPLES + EXTRA)
def test_ids_offsets_and_decode_match_tokenizers(pair, text):
    tk, ours = pair
    same(tk, ours, text)


ALPHABET = st.sampled_from(list("ab xyz.,!?\n\t") + ["  ", "ﬁ", "é", "e\u0301", "Ж", "ж",
                                                      "م", "你", "🙂", "👍🏽", "▁", "1", "23",
                                                      "<0x41>", "hello", "<mask>", "ABC", "\u00a0"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(ALPHABET, max_size=25))
def test_random_text_matches_tokenizers(pair, parts):
    tk, ours = pair
    same(tk, ours, "".join(parts))


def test_streaming_equals_whole_text(pair):
    tk, ours = pair
    text = "\n".join(SAMPLES + EXTRA) * 3
    chunks = [text[i:i + 37] for i in range(0, len(text), 37)]
    assert list(ours.encode_iterable(chunks, chunk_chars=200)) == tk.encode(
        text, add_special_tokens=False).ids


# ----- refusals: every part that cannot be run exactly is named with its JSON path ------
def _base_json(tmp_path_factory=None) -> dict:
    import json
    tk = byte_level_llama3()
    tk.normalizer = normalizers.Sequence([normalizers.NFC()])
    return json.loads(tk.to_str())


@pytest.fixture(scope="module")
def base_json():
    return _base_json()


def _set(doc: dict, dotted: str, value) -> dict:
    import copy
    import re
    doc = copy.deepcopy(doc)
    node, parts = doc, re.findall(r"[^.\[\]]+|\[\d+\]", dotted)
    for p in parts[:-1]:
        node = node[int(p[1:-1])] if p.startswith("[") else node[p]
    last = parts[-1]
    if last.startswith("["):
        node[int(last[1:-1])] = value
    else:
        node[last] = value
    return doc


SPLIT = {"type": "Split", "pattern": {"Regex": r"\s+"}, "behavior": "Isolated", "invert": False}
REFUSALS = [
    ("pre_tokenizer.pretokenizers", [SPLIT, SPLIT, {"type": "Digits", "individual_digits": True},
                                     {"type": "ByteLevel", "add_prefix_space": False,
                                      "trim_offsets": True, "use_regex": False}],
     "pre_tokenizer.pretokenizers[2].type", 'pre_tokenizer.pretokenizers[2].type = "Digits" is '
                                            "not supported"),
    ("pre_tokenizer", {"type": "Whitespace"}, "pre_tokenizer.type",
     'pre_tokenizer.type = "Whitespace" is not supported'),
    ("pre_tokenizer.pretokenizers", [{"type": "ByteLevel"}, SPLIT],
     "pre_tokenizer.pretokenizers[1].type", "after a ByteLevel"),
    ("pre_tokenizer.pretokenizers[0].behavior", "Sideways",
     "pre_tokenizer.pretokenizers[0].behavior", '"Sideways" is not one of'),
    ("pre_tokenizer.pretokenizers[0].pattern", {"Regex": "(unclosed"},
     "pre_tokenizer.pretokenizers[0].pattern.Regex", "does not compile"),
    ("normalizer.normalizers", [{"type": "NFC"}, {"type": "BertNormalizer"}],
     "normalizer.normalizers[1].type", 'normalizer.normalizers[1].type = "BertNormalizer"'),
    ("normalizer", {"type": "StripAccents"}, "normalizer.type", '"StripAccents" is not supported'),
    ("model.type", "WordPiece", "model.type", "is a WordPiece model; only BPE tokenizers"),
    ("model.dropout", 0.1, "model.dropout", "model.dropout = 0.1 is not supported"),
    ("model.end_of_word_suffix", "</w>", "model.end_of_word_suffix", "end_of_word_suffix"),
    ("model.merges[3]", "Ġ zzzq", "model.merges[3]", "not in the vocabulary"),
    ("model.merges[1]", "one", "model.merges[1]", "should be"),
    ("post_processor", {"type": "Mystery"}, "post_processor.type",
     'post_processor.type = "Mystery" is not supported'),
    ("decoder", {"type": "Sequence", "decoders": [{"type": "ByteLevel"}, {"type": "CTC"}]},
     "decoder.decoders[1].type", 'decoder.decoders[1].type = "CTC" is not supported'),
    ("added_tokens", {"a": 1}, "added_tokens", "added_tokens should be a list"),
    ("added_tokens[0].id", -4, "added_tokens[0].id", "negative"),
]


@pytest.mark.parametrize("where,value,key,text", REFUSALS, ids=[r[2] for r in REFUSALS])
def test_refusals_name_the_component_and_path(tmp_path, base_json, where, value, key, text):
    import json

    from bpe_gui.engine.errors import FormatError
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(_set(base_json, where, value)), "utf-8")
    with pytest.raises(FormatError) as e:
        load_tokenizer(path)
    assert e.value.key == key
    assert text in str(e.value)


def test_pure_python_model_matches(pair, tmp_path, monkeypatch):
    """Without the C extension the same files encode the same (pipeline/pymodel.py)."""
    import sys
    tk, _ = pair
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))
    monkeypatch.setitem(sys.modules, "bpe_gui.engine._pipeline", None)
    slow = load_tokenizer(path)
    assert type(slow.pipeline.model.native).__module__.endswith("pymodel")
    for text in SAMPLES + EXTRA:
        same(tk, slow, text)


def _tables(model):
    vocab, t2i = model.tables(None, False)
    return vocab, t2i, [model.merge(k) for k in range(model.n_merges)]


@pytest.mark.parametrize("ascii_only", [False, True])
def test_text_reader_equals_json(pair, tmp_path, ascii_only):
    """The C reader of model.vocab/merges (escapes, both merge spellings) builds the same
    tables as json + from_hf."""
    import json

    from bpe_gui.engine import _pipeline
    from bpe_gui.engine.pipeline.hf_json import read_fast
    tk, ours = pair
    doc = json.loads(tk.to_str())
    doc["model"]["vocab"]["we\"ird\\key\u00e9\U0001F642\t"] = len(doc["model"]["vocab"]) + 900
    if ascii_only:   # "a b" strings instead of pairs, everything \u-escaped
        doc["model"]["merges"] = [" ".join(m) for m in doc["model"]["merges"]]
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc, ensure_ascii=ascii_only), "utf-8")
    data, raw, spans = read_fast(path)
    byte_level = ours.pipeline.model.native.n_ids and ours.pipeline.pre.byte_level
    fast, problem = _pipeline.Model.from_hf_text(raw, *spans, byte_level)
    slow, _ = _pipeline.Model.from_hf(doc["model"]["vocab"], doc["model"]["merges"], byte_level)
    assert problem is None
    assert _tables(fast) == _tables(slow)
    key = "we\"ird\\key\u00e9\U0001F642\t"
    assert fast.text_id(key) == slow.text_id(key) == doc["model"]["vocab"][key]


def test_byte_fallback_tokens_stand_for_their_byte(tmp_path):
    """<0xNN> tokens are that byte (shown as partial characters), even when the file
    also lists them as added tokens; ▁ stands for a space."""
    tk = metaspace_fallback()
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))
    ours = load_tokenizer(path)
    enc = ours.encode_with_offsets("a 你")
    assert b"".join(enc.tokens) == " a 你".encode()     # Metaspace's prepended ▁ too
    assert ours.vocab[tk.token_to_id("<0xE4>")] == b"\xe4"
    assert ours.vocab[tk.token_to_id("▁")] == b" "
