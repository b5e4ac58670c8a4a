"""text.normal_forms: the quick answer to "is this text already normalized?" is always
unicodedata's, with the bitmap path forced on short texts and taken on long ones."""
from __future__ import annotations

import random
import unicodedata

import pytest

from bpe_gui.engine.text import is_normalized, normal_forms

FORMS = ("NFC", "NFKC", "NFD", "NFKD")


def _safe(form):
    bits = normal_forms.safe_bits(form)
    return [chr(c) for c in range(0x10000) if bits[c >> 3] >> (c & 7) & 1]


@pytest.mark.parametrize("form", FORMS)
def test_every_text_of_safe_characters_is_normalized(form):
    """The bitmap's promise, checked by unicodedata: random texts of safe characters,
    and every safe character beside every other kind of character that composes."""
    safe = _safe(form)
    rng = random.Random(form)
    for _ in range(400):
        t = "".join(rng.choice(safe) for _ in range(rng.randint(1, 40)))
        assert unicodedata.is_normalized(form, t), ascii(t)
    # each safe character below U+3000 (Latin, Greek, Indic, jamo...) and a sample of
    # the rest, after a starter that composes with many (e, A, Hangul L)
    near = [c for c in safe if c < "\u3000"] + rng.sample(safe, 3000)
    for c in near:
        for d in "eA\u1100":
            assert unicodedata.is_normalized(form, d + c), ascii(d + c)


@pytest.mark.parametrize("form", FORMS)
def test_the_answer_is_unicodedatas(form, monkeypatch):
    """Short texts take the bitmap too (LONG lowered): mixtures of safe and unsafe
    characters, composing pairs, marks out of order, Hangul jamo, astral characters."""
    monkeypatch.setattr(normal_forms, "LONG", 0)
    rng = random.Random(7)
    pool = [*"abcé", "e\u0301", "\u0301", "\u0327\u0301", "\u0301\u0327", "\u1100\u1161",
            "\u1161", "\u11a8", "\uac00\u11a8", "\u212b", "\ufb01", "\u2460", "\u0958", "中",
            "\U0001f600", "\U0002f800", "\u00a0", "\u1e9b\u0323", "\u0cd5", "\u0b3e"]
    for _ in range(3000):
        t = "".join(rng.choice(pool) for _ in range(rng.randint(0, 8)))
        assert is_normalized(form, t) == unicodedata.is_normalized(form, t), ascii(t)


def test_a_long_text_takes_the_bitmap_and_agrees(monkeypatch):
    calls = []
    real = normal_forms.safe_bits
    monkeypatch.setattr(normal_forms, "safe_bits", lambda f: calls.append(f) or real(f))
    base = "Le café, naïve façade; 中文“引号” — ok.\n"
    text = base * (normal_forms.LONG // len(base) + 1)
    assert is_normalized("NFC", text) and unicodedata.is_normalized("NFC", text)
    assert calls == ["NFC"]
    bad = text + "e\u0301"
    assert is_normalized("NFC", bad) is False


def test_all_in_reads_every_string_kind_and_refuses_a_short_bitmap():
    _scan = pytest.importorskip("bpe_gui.engine.text._scan")
    bits = bytearray(8192)
    for c in "aé中":
        bits[ord(c) >> 3] |= 1 << (ord(c) & 7)
    assert _scan.all_in("aé", bytes(bits)) and _scan.all_in("a中", bytes(bits))
    assert not _scan.all_in("ab", bytes(bits))
    assert not _scan.all_in("a\U0001f600", bytes(bits))   # beyond the BMP: never
    assert _scan.all_in("", bytes(bits))
    with pytest.raises(ValueError, match="8192"):
        _scan.all_in("a", b"\xff" * 100)
    with pytest.raises(ValueError, match="8192"):
        _scan.unsafe_spans("a", b"\xff" * 100, 1)


def test_unsafe_spans_run_from_the_safe_character_before_to_the_next():
    _scan = pytest.importorskip("bpe_gui.engine.text._scan")
    bits = bytearray(8192)
    for c in "abc ":
        bits[ord(c) >> 3] |= 1 << (ord(c) & 7)
    assert _scan.unsafe_spans("abc", bytes(bits), 1) == []
    assert _scan.unsafe_spans("ab\u0301\u0301c a\u0301", bytes(bits), 1) == [1, 4, 6, 8]
    assert _scan.unsafe_spans("ab\u0301\u0301c a\u0301", bytes(bits), 4) == [1, 8]   # joined
    assert _scan.unsafe_spans("\u0301ab", bytes(bits), 1) == [0, 1]
    assert _scan.unsafe_spans("a\U0001f600", bytes(bits), 1) == [0, 2]   # past the bitmap


def _accented(rng, n: int) -> str:
    words = ["the", "café", "naïve", "Ωhm", "über", "ﬁne", "①", "한국어", "Å", "中文", "🙂"]
    out: list[str] = []
    size = 0
    while size < n:
        out.append(unicodedata.normalize(rng.choice(["NFC", "NFD"]), rng.choice(words))
                   + rng.choice([" ", "\n", ", "]))
        size += len(out[-1])
    return "".join(out)


@pytest.mark.parametrize("form", FORMS)
def test_normalize_is_unicodedatas(form, monkeypatch):
    """normal_forms.normalize with the stretch path forced on short texts (LONG 0) and
    every gap: mixtures of safe and unsafe characters, marks out of order, composing
    pairs split across stretches, astral characters (above the bitmaps too)."""
    monkeypatch.setattr(normal_forms, "LONG", 0)
    rng = random.Random(11)
    pool = [*"abcé", "e\u0301", "\u0301", "\u0327\u0301", "\u0301\u0327", "\u1100\u1161",
            "\u1161", "\u11a8", "\uac00\u11a8", "\u212b", "\ufb01", "\u2460", "\u0958", "中",
            "\U0001f600", "\U0002f800", "\u00a0", "\u1e9b\u0323", "\u0cd5", "\u0b3e",
            "\U0001d15e", "\U000e0100", "\U000f0000", "\u0344", "\u0f73", " "]
    for gap in (1, 4, 32):
        monkeypatch.setattr(normal_forms, "GAP", gap)
        for _ in range(1500):
            t = "".join(rng.choice(pool) for _ in range(rng.randint(0, 30)))
            want = unicodedata.normalize(form, t)
            got = normal_forms.normalize(form, t)
            assert got == want, (gap, ascii(t))
            assert (got is t) == (want == t), (gap, ascii(t))
            assert normal_forms.is_normalized(form, t) == unicodedata.is_normalized(form, t)


def test_a_long_text_is_normalized_by_stretches(monkeypatch):
    """Only short stretches reach unicodedata.normalize, and the result is the whole
    text's form."""
    rng = random.Random(5)
    text = _accented(rng, normal_forms.LONG + 5000)
    want = unicodedata.normalize("NFC", text)
    seen: list[int] = []
    real = unicodedata.normalize
    monkeypatch.setattr(unicodedata, "normalize", lambda f, t: seen.append(len(t)) or real(f, t))
    assert normal_forms.normalize("NFC", text) == want
    assert seen and max(seen) < len(text) // 20



@pytest.mark.skipif(normal_forms._scan is None, reason="the C scanner was not built")
@pytest.mark.parametrize("call", ["all_in", "unsafe_spans"])
def test_a_short_bitmap_is_refused_with_its_size(call):
    """Both bitmap readers refuse a bitmap of fewer than 65536 bits, naming themselves and
    the size they need (they would read past it)."""
    fn = getattr(normal_forms._scan, call)
    args = ("abc", b"\xff" * 8191) + ((4,) if call == "unsafe_spans" else ())
    with pytest.raises(ValueError, match=f"{call} needs a bitmap of 8192 bytes"):
        fn(*args)
    assert fn("abc", b"\xff" * 8192, *args[2:]) in (True, [])
