"""SentencePiece BPE ``.model`` files encode exactly as sentencepiece does.

Models are trained by sentencepiece's own trainer (conftest.py: Llama-style identity with
byte fallback, split digits and a user-defined symbol; nmt_nfkc; whitespace as suffix
with nfkc_cf; plus one with several user-defined symbols here); the oracle is
``SentencePieceProcessor`` on the same file: ids, offsets (its byte offsets as
characters) and decode, on every script and shape of text.
"""
from __future__ import annotations

import random
import struct
import sys

import pytest

spm = pytest.importorskip("sentencepiece")

from bpe_gui.engine.errors import FormatError  # noqa: E402
from bpe_gui.engine.formats import detect_format, load_tokenizer  # noqa: E402

BPE_KINDS = ["bpe_llama", "bpe_nfkc", "bpe_suffix", "bpe_ud", "bpe_suffix_dp", "bpe_id_suffix"]


def _random_unicode(seed: int, n: int) -> str:
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        cp = rnd.choice([rnd.randint(0x20, 0x7E), rnd.randint(0xA0, 0x2FFF),
                         rnd.randint(0x3000, 0xD7FF), rnd.randint(0xE000, 0xFFFD),
                         rnd.randint(0x10000, 0x10FFFF)])
        out.append(chr(cp))
    return "".join(out)


TEXTS = {
    "english": "Hello, World! It's 3:45pm; we'll see... don't I'M the lowest newest widest",
    "chinese": "你好世界，这是一个测试。我们在学习字节对编码的分词方法。",
    "japanese": "日本語のテキストです。カタカナとひらがな、漢字を含みます。",
    "russian": "Привет, мир! Съешь же ещё этих мягких французских булок.",
    "arabic": "مرحبا بالعالم، هذه تجربة للنص العربي.",
    "emoji_zwj": "family 👨\u200d👩\u200d👧\u200d👦 and 🏳️\u200d🌈 🇨🇳 👍🏽!",
    "code": "def f(x):\n    return x**2  # comment\n\tif y:  pass\n",
    "whitespace": "   lead\t\ttrail  \n\n  a\u00a0b\u3000c    \r\n ",
    "digits": "12345 3.14159 2024-11-23 0x1F 1,000,000 ①②③ ４２",
    "compat": "ﬁx ｆｕｌｌ Ⅷ ㎏ e\u0301 ｅ\u0301 Å",
    "user_defined": "<tool>call</tool> foo bar <tool><tool>",
    "control": "<s>text</s> [INST] hi [/INST]",
    "random": _random_unicode(7, 400),
    "empty": "",
    "spaces_only": "     ",
}


def byte_to_char(text: str, offsets: list[int]) -> list[int]:
    b = text.encode("utf-8")
    return [len(b[:o].decode("utf-8", "replace")) for o in offsets]


def _varint(b: bytes, i: int) -> tuple[int, int]:
    r = sh = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 127) << sh
        sh += 7
        if c < 128:
            return r, i


def _fields(b: bytes):
    i = 0
    while i < len(b):
        tag, i = _varint(b, i)
        if tag & 7 == 0:
            v, i = _varint(b, i)
        else:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        yield tag >> 3, v


def spm_offsets(sp, text: str) -> list[tuple[int, int]]:
    """sentencepiece's offsets (SentencePieceText pieces' begin/end) as characters."""
    spans = []
    for f, v in _fields(sp.encode(text, out_type="serialized_proto")):
        if f == 2:
            d = dict(_fields(v))
            spans.append((d.get(4, 0), d.get(5, 0)))
    b = byte_to_char(text, [x for s, e in spans for x in (s, e)])
    return list(zip(b[::2], b[1::2]))


@pytest.fixture(scope="module")
def models(spm_models, train_lines, tmp_path_factory, train_spm):
    out = {k: v.path for k, v in spm_models.items()}
    ud = train_spm(train_lines, tmp_path_factory.mktemp("ud"), "ud.model", model_type="bpe",
                   vocab_size=1400, byte_fallback=True, character_coverage=0.995,
                   split_digits=True,
                   user_defined_symbols=["<tool>", "</tool>", "foo bar", "▁▁", "ab"],
                   remove_extra_whitespaces=True)
    out["bpe_ud"] = ud.path
    # whitespace as a suffix with the dummy prefix (a '▁' at the end) and extra-space removal
    dp = train_spm(train_lines, tmp_path_factory.mktemp("dp"), "dp.model", model_type="bpe",
                   vocab_size=1200, byte_fallback=True, character_coverage=0.98,
                   treat_whitespace_as_suffix=True, normalization_rule_name="nmt_nfkc_cf")
    out["bpe_suffix_dp"] = dp.path
    # identity, spaces kept, whitespace as a suffix: the C normalizer's run-at-a-time path
    # (no charsmap, no user-defined symbol, nothing removed) with the '▁' after the text
    ids = train_spm(train_lines, tmp_path_factory.mktemp("ids"), "ids.model", model_type="bpe",
                    vocab_size=1200, byte_fallback=True, character_coverage=0.99,
                    treat_whitespace_as_suffix=True, normalization_rule_name="identity",
                    remove_extra_whitespaces=False)
    out["bpe_id_suffix"] = ids.path
    return out


@pytest.mark.parametrize("kind", BPE_KINDS)
@pytest.mark.parametrize("name", list(TEXTS))
def test_ids_offsets_and_decode_equal_sentencepieces(models, kind, name):
    path = models[kind]
    sp = spm.SentencePieceProcessor(model_file=str(path))
    tok = load_tokenizer(path)
    text = TEXTS[name]
    want = sp.encode(text)
    assert tok.encode(text, allowed_special="all") == want
    enc = tok.encode_with_offsets(text, allowed_special="all")
    assert enc.ids == want
    assert list(enc.offsets) == spm_offsets(sp, text)
    assert tok.decode(want) == sp.decode(want)


@pytest.mark.parametrize("kind", BPE_KINDS)
def test_random_texts(models, kind):
    sp = spm.SentencePieceProcessor(model_file=str(models[kind]))
    tok = load_tokenizer(models[kind])
    rnd = random.Random(kind)
    for k in range(60):
        text = _random_unicode(rnd.randint(0, 10**6), rnd.randint(0, 60))
        text = text[:10] + "  " + text[10:20] + " 12 " + text[20:]
        assert tok.encode(text, allowed_special="all") == sp.encode(text), text


@pytest.mark.parametrize("kind", BPE_KINDS)
def test_decode_of_any_ids_equals_sentencepieces(models, kind):
    """Any id sequence, not only an encoding: leading '▁' pieces (dropped while nothing
    is written, every one when extra spaces are removed), a trailing '▁' (kept), byte
    pieces that make no character (a U+FFFD each), control and unknown pieces."""
    sp = spm.SentencePieceProcessor(model_file=str(models[kind]))
    tok = load_tokenizer(models[kind])
    n = sp.get_piece_size()
    spaced = [i for i in range(n) if sp.id_to_piece(i).startswith("\u2581")]
    rnd = random.Random(kind)
    for _ in range(2000):
        ids = [rnd.choice(spaced) if rnd.random() < 0.3 else rnd.randrange(n)
               for _ in range(rnd.randint(0, 8))]
        assert tok.decode(ids) == sp.decode(ids), [sp.id_to_piece(i) for i in ids]


@pytest.mark.parametrize("kind", ["bpe_llama", "bpe_nfkc"])
@pytest.mark.parametrize("unit", ["x", "ab", "你", " ", "1"])
def test_a_100k_character_word(models, kind, unit):
    """One word of 100,000 characters: the merge heap keeps it O(n log n)."""
    sp = spm.SentencePieceProcessor(model_file=str(models[kind]))
    tok = load_tokenizer(models[kind])
    text = unit * (100_000 // len(unit))
    assert tok.encode(text, allowed_special="all") == sp.encode(text)


def cjk_heavy(seed: int, n: int = 6000) -> str:
    """A long text (well over 8 KB of UTF-8, where the C encoder keeps its table of short
    segments) of Chinese the models know, runs of rare CJK characters no piece holds
    (<unk>s that fuse, or byte pieces), emoji (4 bytes: 4 byte pieces) and the usual
    texts."""
    rnd = random.Random(seed)
    known = TEXTS["chinese"] + TEXTS["japanese"]
    out = []
    while len(out) < n:
        r = rnd.random()
        if r < 0.6:
            out.append(rnd.choice(known))
        elif r < 0.8:
            out += [chr(rnd.randint(0x9000, 0x9FA5)) for _ in range(rnd.randint(1, 3))]
        elif r < 0.85:
            out.append(chr(rnd.randint(0x1F600, 0x1F64F)))
        else:
            out.append(rnd.choice(list(TEXTS.values())))
    return "".join(out)


def test_segments_that_never_come_back_skip_the_cache_and_the_ids_stay(train_spm, tmp_path):
    """SentencePiece's segments go through the word caches' one admission policy
    (merge/wordcache.h): on a model trained on random letters, random words cut into
    segments of 8 bytes and more that do not come back, and their length classes go cold
    (4096 lookups, fewer hits than 1 in 64: then only one segment in 32 is looked up);
    then words that repeat come back to the cache. The ids are sentencepiece's
    throughout: segments merged past the cache, sampled into it and found there."""
    rng = random.Random(11)
    letters = "abcdefghijklmnopqrst"

    def words(n):
        return " ".join("".join(rng.choice(letters) for _ in range(rng.randint(8, 40)))
                        for _ in range(n))

    model = train_spm([words(50) for _ in range(200)], tmp_path, "letters.model",
                      model_type="bpe", vocab_size=420, character_coverage=1.0)
    sp = spm.SentencePieceProcessor(model_file=str(model.path))
    tok = load_tokenizer(model.path)
    again = words(300)
    text = " ".join([words(6000), again, again, words(6000), again, again, again])
    assert tok.encode(text, allowed_special="all") == sp.encode(text)


@pytest.mark.parametrize("kind", BPE_KINDS)
def test_long_cjk_texts(models, kind):
    sp = spm.SentencePieceProcessor(model_file=str(models[kind]))
    tok = load_tokenizer(models[kind])
    for seed in range(3):
        text = cjk_heavy(seed)
        assert len(text.encode("utf-8")) > 16384
        assert tok.encode(text, allowed_special="all") == sp.encode(text)


def test_real_text_in_several_scripts(models, train_lines):
    text = "\n".join(train_lines)
    for kind in BPE_KINDS:
        sp = spm.SentencePieceProcessor(model_file=str(models[kind]))
        tok = load_tokenizer(models[kind])
        assert tok.encode(text, allowed_special="all") == sp.encode(text)


def test_playback_ends_at_encode_and_shows_score_order(models):
    tok = load_tokenizer(models["bpe_llama"])
    for word in ["▁lowest", "▁unbelievable", "你好世界", "▁x\u0800y"]:
        pb = tok.model.playback(word)
        assert pb.final_ids == tuple(tok.model.merge(word))
        ranks = [s.rank for s in pb.steps if s.rank is not None]
        assert all(r >= 0 for r in ranks)
    pb = tok.playback("Hello world 你好")
    assert list(pb.final_ids) == tok.encode("Hello world 你好", allowed_special="all")


def test_pieces_are_segments_no_merge_crosses(models):
    tok = load_tokenizer(models["bpe_llama"])
    text = "Hello world, hello again"
    pieces = tok.split(text)
    assert "".join(p.text for p in pieces) == "▁Hello▁world,▁hello▁again"
    assert [i for p in pieces for i in tok.model.merge(p.text)] == tok.encode(text, allowed_special="all")
    assert pieces[0].start == 0 and pieces[-1].end == len(text)


def _set_type(data: bytes, piece: str, new_type: int) -> bytes:
    """The model with a NORMAL piece made another type: its message (0A len 0A n piece 15
    score, the default type left out) gains the field 18 type."""
    body = b"\x0a" + bytes([len(piece.encode())]) + piece.encode() + b"\x15"
    at = data.index(bytes([0x0A, len(body) + 4]) + body)
    old = data[at:at + 2 + len(body) + 4]
    new = bytes([0x0A, len(body) + 6]) + old[2:] + bytes([0x18, new_type])
    return data[:at] + new + data[at + len(old):]


def test_unused_pieces_are_split_back(models, tmp_path):
    """An UNUSED piece is merged, then re-split into the pair that made it (sentencepiece's
    resegment), recursively."""
    path = models["bpe_llama"]
    sp0 = spm.SentencePieceProcessor(model_file=str(path))
    pieces = [sp0.id_to_piece(i) for i in range(sp0.get_piece_size())]
    multi = [p for i, p in enumerate(pieces) if len(p) > 2 and p.startswith("▁")
             and not sp0.is_control(i) and not sp0.is_unknown(i)][:40]
    data = path.read_bytes()
    for p in multi[::4]:
        data = _set_type(data, p, 5)
    out = tmp_path / "unused.model"
    out.write_bytes(data)
    sp = spm.SentencePieceProcessor(model_file=str(out))
    assert any(sp.is_unused(i) for i in range(sp.get_piece_size()))
    tok = load_tokenizer(out)
    for text in list(TEXTS.values()) + [" ".join(multi)]:
        assert tok.encode(text, allowed_special="all") == sp.encode(text)
        assert tok.encode_with_offsets(text, allowed_special="all").ids == sp.encode(text)


@pytest.mark.slow
def test_the_pure_python_model_gives_the_same(models, monkeypatch):
    monkeypatch.setitem(sys.modules, "bpe_gui.engine.tokenizers.imported._pipeline", None)
    for kind in ("bpe_llama", "bpe_nfkc", "bpe_ud"):
        sp = spm.SentencePieceProcessor(model_file=str(models[kind]))
        slow = load_tokenizer(models[kind])
        assert type(slow.pipeline.model.native).__module__.endswith("_pyspm")
        for name, text in TEXTS.items():
            assert slow.encode(text, allowed_special="all") == sp.encode(text), name
            assert list(slow.encode_with_offsets(text, allowed_special="all").offsets) == spm_offsets(sp, text), name


def test_mistral_commons_files_when_installed():
    """The published Mistral 7B tokenizer.model.v1/.v3 (inside mistral-common's wheel)."""
    mc = pytest.importorskip("mistral_common")
    from pathlib import Path
    data = Path(mc.__file__).parent / "data"
    files = sorted(data.glob("*.model.v*")) if data.is_dir() else []
    if not files:
        pytest.skip("mistral-common ships no .model files here")
    for path in files[:2]:
        assert detect_format(path) == "sentencepiece"
        sp = spm.SentencePieceProcessor(model_file=str(path))
        tok = load_tokenizer(path)
        for text in TEXTS.values():
            assert tok.encode(text, allowed_special="all") == sp.encode(text)


# ----- what is refused ---------------------------------------------------------------------
def test_unigram_is_refused_naming_its_type(spm_models):
    with pytest.raises(FormatError) as e:
        load_tokenizer(spm_models["unigram"].path)
    assert "Unigram" in str(e.value) and e.value.key == "trainer_spec.model_type"


def test_a_truncated_model_is_refused_through_load(models, tmp_path):
    data = models["bpe_nfkc"].read_bytes()
    out = tmp_path / "tokenizer.model"
    out.write_bytes(data[: len(data) // 2])
    with pytest.raises(FormatError) as e:
        load_tokenizer(out)
    assert "tokenizer.model" in str(e.value) and "truncated" in str(e.value)


def _charsmap_at(data: bytes, sp_model) -> tuple[int, int]:
    from bpe_gui.engine.formats.sentencepiece_fmt import parse_model
    blob = parse_model(data).normalizer.precompiled_charsmap
    at = data.index(blob)
    return at, len(blob)


def test_a_charsmap_pointing_outside_itself_is_refused(models, tmp_path):
    data = bytearray(models["bpe_nfkc"].read_bytes())
    at, n = _charsmap_at(bytes(data), None)
    data[at + 4:at + 8] = struct.pack("<I", 0x7FFFFC00)   # the root's children far away
    out = tmp_path / "bad.model"
    out.write_bytes(bytes(data))
    with pytest.raises(FormatError) as e:
        load_tokenizer(out)
    assert "charsmap" in str(e.value) and "outside" in str(e.value)
    assert e.value.key == "normalizer_spec.precompiled_charsmap"


def test_a_charsmap_whose_rule_points_past_its_strings_is_refused(models, tmp_path):
    from bpe_gui.engine.tokenizers.imported._pipeline import Charsmap  # noqa: F401 (built)
    from bpe_gui.engine.tokenizers.imported import _pyspm
    data = bytearray(models["bpe_nfkc"].read_bytes())
    at, n = _charsmap_at(bytes(data), None)
    blob = bytes(data[at:at + n])
    cm = _pyspm.Charsmap(blob, hf=False)
    units = cm.units
    # the first leaf under the root: its value unit gets a value past the strings
    base = _pyspm._offset(units[0])
    for label in range(1, 256):
        child = base ^ label
        u = units[child]
        if _pyspm._label(u) == label and _pyspm._leaf(u):
            leaf = child ^ _pyspm._offset(u)
            break
    else:
        pytest.skip("no one-byte rule")
    data[at + 4 + 4 * leaf:at + 8 + 4 * leaf] = struct.pack("<I", 0x7FFFFFF0)
    out = tmp_path / "bad2.model"
    out.write_bytes(bytes(data))
    with pytest.raises(FormatError) as e:
        load_tokenizer(out)
    assert "outside the normalized strings" in str(e.value)


def test_a_charsmap_with_a_trie_longer_than_itself(models, tmp_path):
    data = bytearray(models["bpe_nfkc"].read_bytes())
    at, n = _charsmap_at(bytes(data), None)
    data[at:at + 4] = struct.pack("<I", n + 100)
    out = tmp_path / "bad3.model"
    out.write_bytes(bytes(data))
    with pytest.raises(FormatError) as e:
        load_tokenizer(out)
    assert "longer than the blob" in str(e.value)


def test_special_tokens_or_a_pattern_are_refused(models):
    with pytest.raises(FormatError) as e:
        load_tokenizer(models["bpe_llama"], special_tokens=["<x>"])
    assert "no special tokens" in str(e.value)


# ----- export ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def plain_model(train_lines, tmp_path_factory, train_spm):
    """Llama 2 style without user-defined symbols: exportable as tokenizer.json."""
    return train_spm(train_lines, tmp_path_factory.mktemp("plain"), "plain.model",
                      model_type="bpe", vocab_size=1500, byte_fallback=True,
                      normalization_rule_name="identity", remove_extra_whitespaces=False,
                      character_coverage=0.99).path


def test_export_as_tokenizer_json_gives_sentencepieces_ids(plain_model, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    from bpe_gui.engine.formats import export_tokenizer, supported_formats
    tok = load_tokenizer(plain_model)
    assert supported_formats(tok) == ["hf"]
    path = export_tokenizer(tok, tmp_path, "hf")[0]
    hf = tokenizers.Tokenizer.from_file(str(path))
    back = load_tokenizer(path)
    sp = spm.SentencePieceProcessor(model_file=str(plain_model))
    texts = [t for k, t in TEXTS.items() if k != "user_defined"] + [_random_unicode(3, 300)]
    for text in texts:
        want = sp.encode(text)
        assert hf.encode(text, add_special_tokens=False).ids == want, text
        assert back.encode(text, allowed_special="all") == want, text
        assert hf.decode(want) == sp.decode(want)


def test_export_is_refused_where_tokenizers_would_differ(models, tmp_path):
    from bpe_gui.engine.errors import ExportError
    from bpe_gui.engine.formats import export_tokenizer, supported_formats
    for kind, why in (("bpe_nfkc", "precompiled charsmap"), ("bpe_llama", "user-defined"),
                      ("bpe_suffix", "charsmap")):
        tok = load_tokenizer(models[kind])
        assert supported_formats(tok) == []
        with pytest.raises(ExportError) as e:
            export_tokenizer(tok, tmp_path, "hf")
        assert why in str(e.value)
        with pytest.raises(ExportError) as e:
            export_tokenizer(tok, tmp_path, "gpt2")
        assert "SentencePiece" in str(e.value) and "tokenizer.json" in str(e.value)
    assert not list(tmp_path.iterdir())   # nothing half-written


def test_a_gguf_llama_vocabulary_exports_to_the_same_ids(gguf_files, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    from bpe_gui.engine.formats import export_tokenizer
    tok = load_tokenizer(gguf_files["llama"].path)
    path = export_tokenizer(tok, tmp_path, "hf")[0]
    hf = tokenizers.Tokenizer.from_file(str(path))
    for text in ["Hello world", "  two  spaces\n", "你好世界", "x</s>y 👨\u200d👩", ""]:
        assert hf.encode(text, add_special_tokens=False).ids == tok.encode(text, allowed_special="all"), text
