"""The native scanner with another Unicode version's tables (a registered slot in the
scanner id, csrc/scan/scan.h "Tables"), against `regex` with the classes pinned to that
version, and against the libraries whose tables they are."""
from __future__ import annotations

import random

import pytest
import regex
from scan_oracle import ideograph_texts

from bpe_gui.engine.text import scanner, unicode_versions as uv
from bpe_gui.engine.text.dialects import pinned
from bpe_gui.engine.text.presets import KIND_PATTERNS, PRESET_IDS
from bpe_gui.engine.text.scanner import _scan, native_scanner, scan_id

pytestmark = pytest.mark.skipif(_scan is None, reason="the _scan extension was not built")
KINDS = ["gpt2", "cl100k", "o200k", "llama3", "qwen2", "tekken"]


def version_texts(version: str, n: int = 300, seed: int = 5) -> list[str]:
    ours = uv.regex_version() or "17.0.0"
    ca, cb = uv.categories(version), uv.categories(ours)
    diff = [c for c in range(0x110000) if ca[c] != cb[c] and not 0xD800 <= c < 0xE000]
    rng = random.Random(seed)
    chars = [chr(c) for c in rng.sample(diff, min(300, len(diff)))]
    common = ["a", "Ab", " ", "  ", "\n", "1", "123", "!", "'s", "'ſ", "é", "\u0301", "中"]
    return ["\u058c\ub071", "  \U00010ee6"] + [
        "".join(rng.choice(chars + common) for _ in range(rng.randint(1, 10)))
        for _ in range(n)]


@pytest.mark.parametrize("classes", list(uv.LIBRARIES.values()), ids=list(uv.LIBRARIES))
@pytest.mark.parametrize("kind", KINDS)
def test_words_equal_regex_pinned_to_the_version(kind, classes):
    sc = native_scanner(kind, classes)
    if not classes.long_s and kind != "gpt2":
        # llama.cpp's hand-written contractions are '[sS] ...: the scanner's folds say so,
        # the `regex` spelling (?i:'s) does not: compare away from U+017F
        texts = [t.replace("ſ", "s") for t in version_texts(classes.version)]
    else:
        texts = version_texts(classes.version)
    oracle = pinned(KIND_PATTERNS[kind], classes)
    for t in texts:
        assert sc.words(t) == oracle.findall(t), t
        ends = list(sc.word_ends(t))
        assert ends == [m.end() for m in oracle.finditer(t)]


@pytest.mark.parametrize("classes", list(uv.LIBRARIES.values()), ids=list(uv.LIBRARIES))
@pytest.mark.parametrize("kind", KINDS)
def test_ideograph_runs_with_every_versions_tables(kind, classes):
    """The scanner reads U+4E00..U+9FA5 two at a time with the flags of U+4E00 for all: in
    every version's tables they are one class (letters since Unicode 1.1), and the code
    points after U+9FA5, assigned later, still go one by one."""
    sc = native_scanner(kind, classes)
    oracle = pinned(KIND_PATTERNS[kind], classes)
    for t in ideograph_texts(200, seed=len(kind)):
        t = t if classes.long_s or kind == "gpt2" else t.replace("ſ", "s")
        assert sc.words(t) == oracle.findall(t), t


@pytest.mark.parametrize("kind", KINDS)
def test_tables_of_tokenizers_cut_as_tokenizers(kind):
    tokenizers = pytest.importorskip("tokenizers")
    from bpe_gui.engine.text.dialects import translate
    onig = translate(KIND_PATTERNS[kind], "regex", "oniguruma")
    split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(onig), "isolated")
    sc = native_scanner(kind, uv.TOKENIZERS)
    for t in version_texts(uv.TOKENIZERS.version, 150):
        assert sc.words(t) == [w for w, _ in split.pre_tokenize_str(t)], t


def test_llama_cpp_tables_fold_ascii_only():
    """llama.cpp's contractions are '[sS]...: 'ſ is no contraction there (the quote then
    leads the letters), as (?i:'s) makes it in regex, tiktoken and tokenizers."""
    sc = native_scanner("llama3", uv.LLAMA_CPP)
    assert sc.words("it's it'St it'ſt") == ["it", "'s", " it", "'S", "t", " it", "'ſt"]
    assert native_scanner("llama3").words("it'ſt") == ["it", "'ſ", "t"]
    assert native_scanner("llama3", uv.TOKENIZERS).words("it'ſt") == ["it", "'ſ", "t"]


def test_ids_carry_a_slot_and_every_extension_takes_them():
    sid = scan_id("cl100k", uv.TIKTOKEN)
    slot = sid >> 8
    assert sid & 0xFF == PRESET_IDS["cl100k"] and 0 < slot < _scan.MAX_TABLE_SLOTS
    assert _scan.slot_version(slot) == "unicode-16.0.0"
    assert _scan.slot_version(0) == _scan.tables_version()
    assert scan_id("cl100k", uv.TIKTOKEN) == sid   # registered once
    text = "\u088f\u0c5c words 123 \u088f"
    words = _scan.words(sid, text)
    assert _scan.count_words(sid, text.encode()) == len(words)
    assert _scan.count_words(sid, text) == len(words)
    assert [w.decode() for w in _scan._words_utf8(sid, text.encode())] == words
    assert _scan.safe_cut(sid, text, 0, len(text) - 1) > 0
    from bpe_gui.engine.corpus import _count
    c = _count.WordCounter(sid)
    c.count(text)
    assert c.total == len(words) and c.preset == sid
    assert _count.safe_cut(sid, text.encode(), 0, len(text.encode()) - 1) > 0


def test_unknown_ids_are_refused():
    for bad in (PRESET_IDS["gpt2"] | (_scan.MAX_TABLE_SLOTS - 1) << 8, 99, -1, 1 << 20):
        with pytest.raises(ValueError, match="unknown scanner preset"):
            _scan.words(bad, "a b")
    with pytest.raises(ValueError):
        _scan.register_tables(b"not tables")
    with pytest.raises(ValueError):
        _scan.slot_version(_scan.MAX_TABLE_SLOTS + 3)


def test_versions_side_by_side_and_the_current_tables_untouched():
    """A slot's tables do not change the current ones (ids without a slot)."""
    text = "a\u088fb \U00011de0\U00011de1"
    plain = _scan.words(PRESET_IDS["cl100k"], text)
    pinned16 = _scan.words(scan_id("cl100k", uv.TIKTOKEN), text)
    pinned15 = _scan.words(scan_id("cl100k", uv.LLAMA_CPP), text)
    assert plain == regex.findall(KIND_PATTERNS["cl100k"], text)
    if uv.regex_version() == "17.0.0":
        assert plain != pinned16
        assert pinned16 == pinned(KIND_PATTERNS["cl100k"], uv.TIKTOKEN).findall(text)
        assert pinned15 == pinned16
    assert _scan.words(PRESET_IDS["cl100k"], text) == plain


def test_safe_cuts_hold_with_version_tables():
    sc = native_scanner("o200k", uv.TOKENIZERS)
    for t in version_texts(uv.TOKENIZERS.version, 120):
        t = t + " tail words"
        p = sc.safe_cut(t, 0, len(t) - 1)
        if p > 0:
            assert sc.words(t) == sc.words(t[:p]) + sc.words(t[p:]), (t, p)


def test_registration_happens_once_per_library():
    before = dict(scanner._SLOTS)
    for classes in uv.LIBRARIES.values():
        scan_id("gpt2", classes)
        scan_id("o200k", classes)
    assert len(scanner._SLOTS) <= len(before) + len(uv.LIBRARIES)
    assert len(set(scanner._SLOTS.values())) == len(scanner._SLOTS)
