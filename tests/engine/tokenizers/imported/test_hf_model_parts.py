"""tokenizer.json parts real models use (issue 28): Digits (StarCoder, Command-R),
Punctuation (Falcon), Split/Digits after ByteLevel in a Sequence (Falcon), and
model.end_of_word_suffix (CLIP, classic Sennrich BPE). Each file is built and trained
by ``tokenizers``; ids and offsets must be its own."""
from __future__ import annotations

import pytest

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Regex, decoders, models, pre_tokenizers as P, trainers  # noqa: E402

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402

from hf_files import CORPUS  # noqa: E402

TEXTS = [
    "Hello, World! It's 3:45pm; we'll see... DON'T I'M x2 12345 3.14",
    "你好世界，这是一个测试。我们在学习字节对编码的分词方法。¿¡«»",
    "日本語のテキストとカタカナ、ひらがな。",
    "Привет, мир! Съешь же ещё этих мягких булок.",
    "مرحبا بالعالم، هذا اختبار ١٢٣ للمقسم؟",
    "emoji 🙂👍🏽 👨\u200d👩\u200d👧 🇨🇳 done",
    "def f(x):\n    return x**2  # comment\n\tif y:  pass\r\n",
    "  lead\t\ttrail  \n\n\n a\u00a0b \u3000x   \n",
    "1 12 123 1234 12345 123456 ١٢٣٤ ½ ² ³",
    "".join(chr(c) for c in (0x1F600, 0x0915, 0x094D, 0x0937, 0x10400, 0xFF21, 0x2167,
                             0x0301, 0x00B5, 0x0130, 0x017F, 0x212A, 0xA7, 0xB6)),
    "a" * 5000 + "!" * 3000 + "9" * 3000,
]


def _byte_level(pre) -> "tokenizers.Tokenizer":
    tk = tokenizers.Tokenizer(models.BPE())
    tk.pre_tokenizer = pre
    tk.decoder = decoders.ByteLevel()
    tk.train_from_iterator(CORPUS * 3, trainers.BpeTrainer(
        vocab_size=700, initial_alphabet=P.ByteLevel.alphabet(), show_progress=False))
    return tk


BL = P.ByteLevel(add_prefix_space=False)
CASES = {
    "digits-single": lambda: _byte_level(P.Sequence([P.Digits(individual_digits=True), BL])),
    "digits-runs": lambda: _byte_level(P.Sequence([P.Digits(individual_digits=False), BL])),
    **{f"punct-{b}": (lambda b=b: _byte_level(P.Sequence([P.Punctuation(b), BL])))
       for b in ("removed", "isolated", "merged_with_previous", "merged_with_next",
                 "contiguous")},
    "falcon": lambda: _byte_level(P.Sequence([
        P.Punctuation("contiguous"), P.ByteLevel(add_prefix_space=False, use_regex=True),
        P.Digits(individual_digits=False), P.Split(Regex("[0-9][0-9][0-9]"), "isolated")])),
    "punct-after-bytelevel": lambda: _byte_level(P.Sequence([
        P.ByteLevel(add_prefix_space=False, use_regex=False), P.Punctuation()])),
    "digits-after-bytelevel": lambda: _byte_level(P.Sequence([
        BL, P.Digits(individual_digits=True)])),
}


def _suffix_char_level():
    tk = tokenizers.Tokenizer(models.BPE(end_of_word_suffix="</w>", unk_token="<unk>"))
    tk.pre_tokenizer = P.Whitespace()
    tk.decoder = decoders.BPEDecoder(suffix="</w>")
    tk.train_from_iterator(CORPUS * 3, trainers.BpeTrainer(
        vocab_size=600, end_of_word_suffix="</w>", special_tokens=["<unk>"],
        show_progress=False))
    return tk


def _suffix_byte_level():
    tk = tokenizers.Tokenizer(models.BPE(end_of_word_suffix="</w>"))
    tk.pre_tokenizer = BL
    tk.train_from_iterator(CORPUS * 3, trainers.BpeTrainer(
        vocab_size=700, end_of_word_suffix="</w>", initial_alphabet=P.ByteLevel.alphabet(),
        show_progress=False))
    return tk


CASES["suffix-chars"] = _suffix_char_level
CASES["suffix-bytes"] = _suffix_byte_level


@pytest.mark.parametrize("name", list(CASES))
def test_ids_and_offsets_equal_tokenizers(tmp_path, name):
    hf = CASES[name]()
    p = tmp_path / "tokenizer.json"
    hf.save(str(p))
    tok = load_tokenizer(p)
    for text in TEXTS:
        want = hf.encode(text, add_special_tokens=False)
        assert tok.encode(text) == want.ids, (name, text[:40])
        got = tok.encode_with_offsets(text)
        assert got.ids == want.ids
        assert got.offsets == [tuple(o) for o in want.offsets], (name, text[:40])
        if hf.decoder is not None:
            assert tok.decode(want.ids, skip_special_tokens=False) == \
                hf.decode(want.ids, skip_special_tokens=False), \
                (name, text[:40])
    ex = tok.explain(TEXTS[1])
    assert ex.ids == tok.encode(TEXTS[1])
    for w in ex.words:
        if w.playback is not None:
            assert w.playback.final_ids == w.ids
