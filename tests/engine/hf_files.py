"""Hugging Face tokenizer.json files built by ``tokenizers`` itself, for the tests that
import them (one small BPE trained on mixed-script text per case; ``CASES`` names them)."""
from __future__ import annotations

import pytest

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, processors  # noqa: E402
from tokenizers import trainers  # noqa: E402

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


def charsmap(name: str = "nmt_nfkc") -> bytes:
    """A SentencePiece precompiled charsmap as sentencepiece ships it (package_data/*.bin:
    byte for byte what a model trained with that rule holds)."""
    from pathlib import Path
    spm = pytest.importorskip("sentencepiece")
    return (Path(spm.__file__).parent / "package_data" / f"{name}.bin").read_bytes()


def precompiled(name: str = "nmt_nfkc", *extra):
    """A Precompiled normalizer (as transformers' converters write for nmt_nfkc models)."""
    norm = normalizers.Precompiled(charsmap(name))
    if extra:
        norm = normalizers.Sequence([norm, *extra])
    return metaspace_fallback("first", True, norm)


def normalized_split(norm, pattern=LLAMA3_PATTERN.replace(r"\p{N}{1,3}", r"\p{N}")):
    """Qwen2's shape: a normalizer, a Split run by the native scanner, ByteLevel."""
    tk = byte_level_llama3(False, pattern)
    tk.normalizer = norm
    return tk


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
    "precompiled-nmt-nfkc": precompiled,
    "precompiled-nfkc-cf-collapse": lambda: precompiled(
        "nmt_nfkc_cf", normalizers.Replace(Regex(" {2,}"), " ")),
    # a Replace that removes text at the start: Metaspace "first" reads where pieces start
    "replace-at-start-metaspace-first": lambda: metaspace_fallback(
        "first", True, normalizers.Replace(Regex(r"\A\s+|xx"), "")),
    "added-tokens-flags": lambda: with_added(byte_level_llama3(), [
        AT("hello", single_word=True), AT("<mask>", lstrip=True, rstrip=True, special=True),
        AT("мир", normalized=True), AT("ABC", normalized=False), AT("tab\t", rstrip=True)]),
    "added-tokens-normalized-lowercase": lambda: with_added(
        normalized(normalizers.Lowercase()), [AT("World", normalized=True),
                                              AT("Fox", normalized=False)]),
    # Qwen2's file: NFC, its Split and added tokens (the C encoder takes a text NFC leaves
    # as it is; others, and tokens matched after the normalizer, go the normalizer's way)
    "nfc-split-added": lambda: with_added(normalized_split(normalizers.NFC()), [
        AT("<|im_start|>", special=True, normalized=False), AT("<|im_end|>", special=True,
                                                               normalized=False)]),
    "nfkc-nfc-split-added-normalized": lambda: with_added(normalized_split(
        normalizers.Sequence([normalizers.NFKC(), normalizers.NFC()])), [
        AT("ﬁne", normalized=True), AT("café", normalized=True)]),
    "added-tokens-metaspace": lambda: with_added(metaspace_fallback(), [
        AT("<tool>", special=True, normalized=False), AT("дела", single_word=True)]),
}
EXTRA = ["  xxlead", "xxa xx b", "\x01\x7f ctrl\u200b zero\ufeff", "ｅ\u0301 ｶﾞ ㌔ ¼",
         "say hello, hellothere hello", "a <mask>  b<mask>c", "tab\t\t x ABC abc",
         "Hello World fox FOX Fox", "x<s>y </s> z <tool>дела дела!", "<|eot_id|>Hi<|begin_of_text|>",
         "1234 56", "a.b,c!!d", "мир миру", "<|im_start|>cafe\u0301<|im_end|> ﬁne fine",
         "café cafe\u0301 ﬁne<|im_end|>"]


