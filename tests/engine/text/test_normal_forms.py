"""text.normal_forms: the quick answer to "is this text already normalized?" is always
unicodedata's, with the bitmap path forced on short texts and taken on long ones."""
from __future__ import annotations

import random
import sys
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


def test_all_in_skips_ascii_runs_only_when_ascii_is_in_the_set():
    """Runs of ASCII are skipped 8 bytes at a time when every ASCII character is in the
    set: one character out of it is found wherever it stands (each string kind, each
    place in and after the 8-byte steps); with an ASCII character out of the set, that
    character is found too."""
    _scan = pytest.importorskip("bpe_gui.engine.text._scan")
    bits = bytearray(b"\xff" * 8192)
    for c in "\u00e9\u4e2d":   # out of the set
        bits[ord(c) >> 3] &= ~(1 << (ord(c) & 7)) & 0xFF
    for lead in ("", "\u00fc", "\u4e00", "\U0001f600"):   # kinds 1, 1, 2, 4
        ok = lead if lead != "\U0001f600" else ""   # (past the BMP bitmap: never in it)
        for n in range(0, 40):
            for at in range(n + 1):
                text = ok + "a" * at + "\u00e9" + "b" * (n - at)
                assert not _scan.all_in(text, bytes(bits)), (lead, n, at)
            assert _scan.all_in(ok + "a" * n, bytes(bits))
    no_q = bytearray(b"\xff" * 8192)
    no_q[ord("q") >> 3] &= ~(1 << (ord("q") & 7)) & 0xFF
    for n in range(0, 20):
        assert not _scan.all_in("a" * n + "q" + "\u4e00", bytes(no_q))
        assert _scan.all_in("a" * n + "\u4e00", bytes(no_q))


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


def _check_like_unicodedata(form, t: str, gap: int) -> None:
    """normalize and is_normalized give unicodedata's answers for t; normalize returns t
    itself when it is in the form."""
    want = unicodedata.normalize(form, t)
    got = normal_forms.normalize(form, t)
    assert got == want, (gap, ascii(t))
    assert (got is t) == (want == t), (gap, ascii(t))
    assert normal_forms.is_normalized(form, t) == unicodedata.is_normalized(form, t)


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
            _check_like_unicodedata(form, t, gap)


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
    assert max(seen, default=0) < 3   # (the stretches' form is made in C; the tables' characters)



@pytest.mark.skipif(normal_forms._scan is None, reason="the C scanner was not built")
@pytest.mark.parametrize("call", ["all_in", "unsafe_spans", "normal_form_of"])
def test_a_short_bitmap_is_refused_with_its_size(call):
    """Both bitmap readers refuse a bitmap of fewer than 65536 bits, naming themselves and
    the size they need (they would read past it)."""
    fn = getattr(normal_forms._scan, call)
    more = {"unsafe_spans": (4,),
            "normal_form_of": (4, normal_forms.compose_tables("NFC"), bytes(544))}.get(call, ())
    args = ("abc", b"\xff" * 8191) + more
    with pytest.raises(ValueError, match=f"{call} needs a bitmap of 8192 bytes"):
        fn(*args)
    assert fn("abc", b"\xff" * 8192, *args[2:]) in (True, [], ("abc", None))


# ---- above the BMP: the bitmaps a block of 256 at a time (normal_forms._bits_of) ----

ASTRAL_POOL = ["\U00011099\U000110ba", "\U00011099", "\U000110ba", "\U0001109a",   # Kaithi: composes
               "\U0001d15e", "\U0001d157\U0001d165", "\U0001d16d\U0001d165",       # musical: decompose, reorder
               "\U0001d165\U0001d16d", "\U00011133", "\U0002f800", "\U0002fa1d",   # virama; CJK compat
               "\U0001f600", "\U0001f3fb", "\U000e0100", "\U00020000", "\U00031350",
               "\U0001d400", "\U0001f130", "\U000f0000", "\U0001e000", "e", "\u0301", " ",
               "\U00011131\U00011127", "\U0001134b", "\U00011347\U0001133e"]


def _astral_text(rng, n):
    out = []
    for _ in range(n):
        if rng.random() < 0.5:
            out.append(rng.choice(ASTRAL_POOL))
        else:   # any character of planes 1-3, as the bench's random-Unicode corner
            out.append(chr(rng.randrange(0x10000, 0x32400)))
    return "".join(out)


@pytest.mark.skipif(normal_forms._scan is None, reason="the C scanner was not built")
def test_astral_blocks_lists_the_blocks_above_the_bmp():
    _scan = normal_forms._scan
    assert _scan.astral_blocks("abc\u4e2d") == bytes(544)   # 2-byte kind: no pass
    assert _scan.astral_blocks("") == bytes(544)
    got = _scan.astral_blocks("a\U0001f600\u4e2d\U00020001\U0010ffff\U0001f6ff")
    want = {0x1f6, 0x200, 0x10ff}
    assert {b for b in range(544 * 8) if got[b >> 3] >> (b & 7) & 1} == want


@pytest.mark.parametrize("form", ["NFC", "NFKC", "NFD", "NFKD"])
def test_block_bits_are_safe_bits(form):
    """Each block's bits, as safe_bits would have them for the same code points: blocks
    with combining marks, composition seconds, canonical and compatibility mappings."""
    seconds = normal_forms._composition_seconds() if form in ("NFC", "NFKC") else set()
    for block in (0x110, 0x111, 0x113, 0x1d1, 0x1d4, 0x1f1, 0x1f3, 0x1f6, 0x200, 0x2f8, 0x2fa,
                  0xe01, 0x313):
        bits = normal_forms._block_bits(form, block)
        for i in range(256):
            c = chr(block << 8 | i)
            safe = not unicodedata.combining(c) and ord(c) not in seconds and \
                unicodedata.normalize(form, c) == c
            assert bool(bits[i >> 3] >> (i & 7) & 1) == safe, (form, hex(ord(c)))


@pytest.mark.parametrize("form", FORMS)
def test_normalize_astral_texts_is_unicodedatas(form, monkeypatch):
    """Texts above the BMP through the blocks' bitmaps (LONG lowered, every gap): marks
    that reorder or compose, mappings, and random characters of planes 1-3."""
    monkeypatch.setattr(normal_forms, "LONG", 0)
    rng = random.Random(17)
    for gap in (1, 4, 32):
        monkeypatch.setattr(normal_forms, "GAP", gap)
        for _ in range(800):
            t = _astral_text(rng, rng.randint(0, 30))
            _check_like_unicodedata(form, t, gap)


def test_a_long_astral_text_is_normalized_by_stretches(monkeypatch):
    """A long text of characters of every plane: only short stretches reach unicodedata
    (characters above the BMP no longer make it one long unsafe stretch)."""
    rng = random.Random(23)
    text = "".join(chr(rng.randrange(0x20, 0x32400)) if rng.random() < 0.97 else rng.choice(ASTRAL_POOL)
                   for _ in range(normal_forms.LONG + 5000))
    text = "".join(c for c in text if not 0xD800 <= ord(c) < 0xE000)
    want = unicodedata.normalize("NFC", text)
    seen: list[int] = []
    real = unicodedata.normalize
    monkeypatch.setattr(unicodedata, "normalize", lambda f, t: seen.append(len(t)) or real(f, t))
    assert normal_forms.normalize("NFC", text) == want
    assert max(seen, default=0) < 3   # (the stretches' form is made in C; the tables' characters)


@pytest.mark.skipif(normal_forms._scan is None, reason="the C scanner was not built")
@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_normal_form_of_asks_for_the_blocks_it_does_not_know(form, monkeypatch):
    """normal_form_of finds the stretches and makes their form in one call; in a process
    that has not seen a text's blocks above the BMP it makes nothing and names them (as
    astral_blocks would), and once they are learnt it gives unicodedata's form."""
    monkeypatch.setattr(normal_forms, "_FULL", {})
    rng = random.Random(29)
    text = _astral_text(rng, 3000) + "e\u0301 \u212b"
    tables = normal_forms.compose_tables(form)
    full, known = normal_forms._learn_blocks(form, bytes(544))
    out, missing = normal_forms._scan.normal_form_of(text, full, 16, tables, known)
    assert out is None and missing == normal_forms._scan.astral_blocks(text)
    full, known = normal_forms._learn_blocks(form, missing)
    out, missing = normal_forms._scan.normal_form_of(text, full, 16, tables, known)
    assert missing is None and out == unicodedata.normalize(form, text)
    bmp = "caf\u00e9 e\u0301 \uac00\u11a8 \u4e2d"   # no block above the BMP: none asked
    assert normal_forms._scan.normal_form_of(bmp, full, 16, tables, bytes(544)) == \
        (unicodedata.normalize(form, bmp), None)
    assert normal_forms.normalize(form, text * 2) == unicodedata.normalize(form, text * 2)


@pytest.mark.skipif(normal_forms._scan is None, reason="the C scanner was not built")
def test_normal_form_of_refuses_bad_known_blocks_and_tables():
    tables = normal_forms.compose_tables("NFC")
    bits = normal_forms.safe_bits("NFC")
    with pytest.raises(ValueError, match="544 bytes of known blocks"):
        normal_forms._scan.normal_form_of("e\u0301", bits, 4, tables, bytes(543))
    with pytest.raises(ValueError, match="tables are malformed"):
        normal_forms._scan.normal_form_of("e\u0301", bits, 4, tables[:-1], bytes(544))


# ---- the written tables (normal_form_tables.json) ---------------------------------------
@pytest.mark.parametrize("form", normal_forms.FORMS)
def test_written_tables_are_unicodedatas(form):
    """This Python's Unicode version is written (a Python whose version is not made its
    tables at first use, as before): the bits read equal those made from unicodedata,
    and so do the composition seconds."""
    tables = normal_forms.written_tables()
    assert unicodedata.unidata_version in tables
    seconds = normal_forms.make_composition_seconds()
    assert normal_forms._composition_seconds() == seconds
    assert normal_forms.safe_bits(form) == normal_forms.make_safe_bits(form, seconds=seconds)


def test_written_tables_of_another_version_are_its_unicodedatas():
    """The tables of unicodedata2's version (another Python's) are its own data's."""
    ud2 = pytest.importorskip("unicodedata2")
    tables = normal_forms.written_tables()
    if ud2.unidata_version == unicodedata.unidata_version:
        pytest.skip("unicodedata2 has this Python's version")
    import zlib
    done = tables[ud2.unidata_version]
    seconds = normal_forms.make_composition_seconds(ud2)
    assert frozenset(done["seconds"]) == seconds
    for form in normal_forms.FORMS:
        assert zlib.decompress(done[form]) == normal_forms.make_safe_bits(form, ud2, seconds)


@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_written_compose_tables_are_unicodedatas(form):
    """The C normal form's tables are read from the written file (no 30 ms to make them
    at a process's first long text), equal to those made from unicodedata, and of
    unicodedata2's version from its data."""
    tables = normal_forms.written_tables()
    import zlib
    assert normal_forms.compose_tables(form) == normal_forms.make_compose_tables(form)
    assert zlib.decompress(tables[unicodedata.unidata_version][f"compose {form}"]) == \
        normal_forms.make_compose_tables(form)
    ud2 = pytest.importorskip("unicodedata2")
    if ud2.unidata_version != unicodedata.unidata_version:
        assert zlib.decompress(tables[ud2.unidata_version][f"compose {form}"]) == \
            normal_forms.make_compose_tables(form, ud2)


def test_written_tables_are_up_to_date(tmp_path):
    """`python -m bpe_gui.engine.text.normal_forms` writes the committed file again."""
    pytest.importorskip("unicodedata2")
    from pathlib import Path
    out = normal_forms.write_tables(tmp_path / "tables.json")
    committed = Path(normal_forms.__file__).with_name(normal_forms.TABLES_FILE)
    assert Path(out).read_text("utf-8") == committed.read_text("utf-8")


def test_a_version_not_written_makes_its_tables(monkeypatch):
    """Without written tables for the version the bits are made from unicodedata."""
    monkeypatch.setattr(normal_forms, "_committed", lambda: None)
    normal_forms.safe_bits.cache_clear()
    normal_forms._composition_seconds.cache_clear()
    try:
        assert normal_forms.safe_bits("NFC") == normal_forms.make_safe_bits("NFC")
        normal_forms.compose_tables.cache_clear()
        assert normal_forms.compose_tables("NFKC") == normal_forms.make_compose_tables("NFKC")
    finally:
        normal_forms.safe_bits.cache_clear()
        normal_forms._composition_seconds.cache_clear()
        normal_forms.compose_tables.cache_clear()


# ---- the C normal form (csrc/text/normal_form.c) -----------------------------------------
needs_c_form = pytest.mark.skipif(normal_forms._scan is None, reason="the C scanner was not built")


def _interesting() -> list[str]:
    """Characters with a combining class, a decomposition, or a part in a composition."""
    out = [chr(cp) for cp in range(normal_forms.DECOMPOSED_TOP)
           if not 0xD800 <= cp < 0xE000 and (unicodedata.combining(chr(cp)) or
                                             unicodedata.decomposition(chr(cp)))]
    parts = {int(x, 16) for c in out for x in unicodedata.decomposition(c).split()
             if not x.startswith("<")}
    return out + [chr(p) for p in sorted(parts)] + [chr(h) for h in HANGUL_EDGES] * 20


# Hangul: the jamo and syllables at each end of the ranges composed by rule, and past them
HANGUL_EDGES = [0x10FF, 0x1100, 0x1112, 0x1113, 0x1160, 0x1161, 0x1175, 0x1176, 0x11A7, 0x11A8,
                0x11C2, 0x11C3, 0xABFF, 0xAC00, 0xAC01, 0xAC1C, 0xD7A3, 0xD7A4]


@needs_c_form
@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_the_c_form_of_every_character_is_unicodedatas(form):
    """Every code point below DECOMPOSED_TOP, alone (as one stretch per character) and
    after a starter and before a mark: as unicodedata.normalize has them."""
    tables = normal_forms.compose_tables(form)
    chars = [chr(cp) for cp in range(normal_forms.DECOMPOSED_TOP) if not 0xD800 <= cp < 0xE000]
    text = "".join(chars)
    spans = [x for i in range(len(text)) for x in (i, i + 1)]
    assert normal_forms._scan.normal_form(text, spans, tables) == \
        "".join(unicodedata.normalize(form, c) for c in chars)
    framed = "".join("a" + c + "\u0301" for c in chars)
    assert normal_forms._scan.normal_form(framed, [0, len(framed)], tables) == \
        unicodedata.normalize(form, framed)


@needs_c_form
@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_the_c_form_of_hangul_is_unicodedatas(form):
    """Every sequence of three of the jamo and syllables at the ends of the ranges Hangul
    composes by rule (and just past them), as one stretch."""
    tables = normal_forms.compose_tables(form)
    edges = [chr(h) for h in HANGUL_EDGES]
    for a in edges:
        for b in edges:
            for c in edges:
                t = a + b + c
                assert normal_forms._scan.normal_form(t, [0, 3], tables) == \
                    unicodedata.normalize(form, t), ascii(t)


@needs_c_form
@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_the_c_form_of_random_mixtures_is_unicodedatas(form):
    """Random strings of the characters that decompose, reorder or compose (Hangul jamo
    and syllables among them), each one stretch: unicodedata's form, and the text itself
    (the same object) when it is already in the form."""
    tables = normal_forms.compose_tables(form)
    pool = _interesting() + list("ae ")
    rng = random.Random(29)
    for _ in range(4000):
        t = "".join(rng.choice(pool) for _ in range(rng.randint(0, 12)))
        got = normal_forms._scan.normal_form(t, [0, len(t)], tables)
        want = unicodedata.normalize(form, t)
        assert got == want, ascii(t)
        assert (got is t) == (want == t)
        n = unicodedata.normalize(form, t)   # in the form already: unchanged, itself
        assert normal_forms._scan.normal_form(n, [0, len(n)], tables) is n


def test_no_character_above_the_tables_decomposes_or_has_a_class():
    """make_compose_tables reads code points below DECOMPOSED_TOP only: none above has a
    combining class or a decomposition in this Python's Unicode."""
    above = map(chr, range(normal_forms.DECOMPOSED_TOP, 0x110000))
    assert not any(map(unicodedata.combining, above))
    assert not any(map(unicodedata.decomposition,
                       map(chr, range(normal_forms.DECOMPOSED_TOP, 0x110000))))


@needs_c_form
@pytest.mark.parametrize("text,form", [
    ("\uff46\uff55\uff4c\uff4c x", "NFKC"),          # 2-byte str -> ASCII
    ("caf\u00e9 \u00bd", "NFKC"),                       # Latin-1 -> 2 bytes (U+2044)
    ("\U0001d400\U0001d401 \u4e2d", "NFKC"),            # 4-byte str -> 2 bytes
    ("\U0001d400 ab", "NFKC"),                           # 4-byte str -> ASCII
    ("\U0001d400 \U0001f642", "NFKC"),                  # stays 4 bytes (the kept part)
    ("e\u0301 \u00e9", "NFC"),                          # 2-byte str -> Latin-1
    ("\u212b \U0002f800x", "NFC"),                      # 4-byte str -> 2 bytes
    ("\u00c5 a\u030a\u00ff", "NFC"),                   # Latin-1 kept, marks composed
])
def test_the_c_form_is_of_the_narrowest_kind(text, form):
    """The result's kind is the narrowest its characters need, as unicodedata's (CPython's
    str equality compares kinds first): forms that narrow a str (fullwidth or mathematical
    letters to ASCII, a composed accent out of a 2-byte str) and widen one (½ to 1⁄2)."""
    spans = normal_forms._scan.unsafe_spans(text, normal_forms._bits_of(form, text), 1)
    got = normal_forms._scan.normal_form(text, spans, normal_forms.compose_tables(form))
    want = unicodedata.normalize(form, text)
    assert got == want and sys.getsizeof(got) == sys.getsizeof(want)
    assert got.isascii() == want.isascii()


@needs_c_form
def test_the_c_form_refuses_bad_tables_and_spans():
    tables = normal_forms.compose_tables("NFC")
    n = normal_forms._scan.normal_form
    for bad in (tables[:-1], b"x" + tables[1:], tables[:20], b""):
        with pytest.raises(ValueError, match="tables are malformed"):
            n("e\u0301", [0, 2], bad)
    with pytest.raises(ValueError, match="in pairs"):
        n("e\u0301", [0], tables)
    for spans in ([1, 0], [0, 3], [1, 2, 0, 1], [-1, 1]):
        with pytest.raises(ValueError, match="out of order or range"):
            n("e\u0301", spans, tables)
    assert n("e\u0301", [], tables) == "e\u0301"
