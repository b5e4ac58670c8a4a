"""The native scanner (bpe_gui.engine.text._scan) against `regex` as the oracle."""
from __future__ import annotations

import json
import random
from itertools import accumulate
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, given, settings, strategies as st
from scan_oracle import (PIECES, PRESETS, corpus_files, corpus_prefix, ideograph_texts,
                         oracle_ends, oracle_words, oracle_words_utf8, texts)

from bpe_gui.engine.text import scanner, unicode_classes
from bpe_gui.engine.text.presets import KINDS, TEKKEN_PATTERN
from bpe_gui.engine.text.pretokenize import PRESETS as PATTERNS, Pretokenizer
from bpe_gui.engine.text.scanner import _scan

pytestmark = pytest.mark.skipif(_scan is None, reason="the _scan extension was not built "
                                "(test_extensions.py says so unless BPE_GUI_ALLOW_PYCORE=1)")
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True)
def tables_in_use():
    """Every test starts and ends with the tables the app uses (some install others):
    the built-in ones, or those of the installed regex if it is another release."""
    _scan.set_tables(None)
    scanner.install_tables(_scan)
    yield
    _scan.set_tables(None)
    scanner.install_tables(_scan)


# ---------------------------------------------------------------- words


@pytest.mark.parametrize("preset", PRESETS)
@FAST
@given(text=texts())
def test_words_and_ends_equal_regex(preset, text):
    assert _scan.words(preset, text) == oracle_words(preset, text)
    assert list(_scan.word_ends(preset, text)) == oracle_ends(preset, text)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("text", [
    "", "Hello world's 42!", "\u017f'\u017f 'S 'K '\u212a", "I'LL DON'T we'Re it'\u017f",
    "HTTPServer CamelCase \u01c5ungla \u02b0A \u0301A !!\u0301a \u0301", "12345 \u0663\u0664\u0665\u0666",
    "a  b\n\n  c \t\n", "x\r\n\r\ny /\n//  ", "  ", " ", "\n", "'", "\x1c\x1d a\x85b",
    "\u4e2d\u6587\uff0c\u6d4b\u8bd5\u3002hello", "\U0001f1fa\U0001f1f8 \U0001f44d\U0001f3fd!",
])
def test_edge_cases_equal_regex(preset, text):
    assert _scan.words(preset, text) == oracle_words(preset, text)
    assert list(_scan.word_ends(preset, text)) == oracle_ends(preset, text)


@pytest.mark.parametrize("preset", PRESETS)
def test_long_whitespace_runs_equal_regex(preset):
    """Runs of 1-80 whitespace characters, where the scanner takes ASCII whitespace 16
    bytes at a time (util/ascii_ws.h) and looks for the run's last \\r or \\n from its
    end: \\r and \\n at every place, whitespace outside ASCII (U+0085, U+00A0, U+2028,
    U+3000) between the ASCII stretches, other characters and the text's end after."""
    rng = random.Random(17)
    spaces = [" "] * 8 + ["\t", "\n", "\r", "\v", "\f", "\x85", "\xa0", "\u2028", "\u3000"]
    runs = ["".join(rng.choice(spaces) for _ in range(rng.randint(1, 80))) for _ in range(400)]
    after = ["a", "Word", "7", "!", "\u4e2d", "\U0001f44d", "'s", ""]
    text = "".join(run + rng.choice(after) for run in runs)
    for t in (text, text + runs[0], "x" + runs[1]):
        assert _scan.words(preset, t) == oracle_words(preset, t)
        assert list(_scan.word_ends(preset, t)) == oracle_ends(preset, t)


@pytest.mark.parametrize("preset", PRESETS)
def test_ideograph_runs_equal_regex(preset):
    rng = random.Random(preset)
    for text in ideograph_texts(600, seed=preset + 11):
        for cut in (text, text[:-1], text[1:], text[:3], text[-4:]):
            assert _scan.words(preset, cut) == oracle_words(preset, cut), cut
            assert list(_scan.word_ends(preset, cut)) == oracle_ends(preset, cut), cut
        # as bytes with one sequence broken: a continuation byte dropped or replaced, a
        # lead cut off (each invalid byte is one "other" character)
        data = text.encode("utf-8")
        at = rng.randrange(len(data))
        for bad in (data[:at] + data[at + 1:], data[:at] + b"A" + data[at + 1:],
                    data[:at] + b"\xe5" + data[at:], data[:at] + b"\xe5\x80" + data[at:]):
            assert _scan._words_utf8(preset, bad) == oracle_words_utf8(preset, bad), bad


# Mistral's tekken (kind 6): what sets it apart from o200k, its nearest kind: single
# digits, no contraction after a letter word, o200k's `[\r\n/]*` after punctuation
TEKKEN_TEXTS = [
    "0123456789 \u0660\u0661\u0662\u0663 \uff11\uff12 \u00b2\u00bd\u216b 3.14159 1,000,000",
    "a//b !//\n//c ///\r\n/ x/ /y //  \n/ ", "x\r\n\r\ny\r\r\n \r\n\tz\r",
    "don't DON'T it's We'LL I'M o'clock '' 'S ''s a'\u017f", "HTTPServer CamelCase \u01c5ungla",
    "\u0295\u0294ab \u0301A \u0301a !\u0301b \u4e2d\u6587\u3002hello",
    "\U0001f1fa\U0001f1f8 \U0001f44d\U0001f3fd! \u200d\ufe0f x", " \n  \n\n   a  \u3000b",
]


@pytest.mark.parametrize("text", TEKKEN_TEXTS + ["a" * 100_000 + "B" * 100_000 + "7" * 1000,
                                                "\u00e9" * 50_000, "/" * 100_000 + "\n" * 10])
def test_tekken_words_equal_regex(text):
    """The tekken kind against `regex` with the pattern of mistral-common's tekken files:
    digit runs (one word per digit), `/` after punctuation and line breaks, CRLF,
    apostrophes (a new word, not a suffix), 100k-character words."""
    tekken = KINDS.index("tekken")
    assert _scan.words(tekken, text) == regex.findall(TEKKEN_PATTERN, text)
    assert list(_scan.word_ends(tekken, text)) == oracle_ends(tekken, text)


def test_tekken_kind_is_mistral_commons_pattern():
    """The oracle of kind 6 is the pattern of the tekken files mistral-common ships."""
    mc = pytest.importorskip("mistral_common")
    files = sorted((Path(mc.__file__).parent / "data").glob("tekken_*.json"))
    assert files
    for path in files:
        assert json.loads(path.read_bytes())["config"]["pattern"] == TEKKEN_PATTERN, path.name
    assert _scan.TEKKEN == KINDS.index("tekken")


@pytest.mark.parametrize("preset", PRESETS)
def test_long_text_crosses_chunks(preset):
    """More words than one chunk (65,536) and long enough to scan without the GIL."""
    rng = random.Random(preset)
    text = "".join(rng.choice(PIECES) for _ in range(150_000))
    words = _scan.words(preset, text)
    assert words == oracle_words(preset, text)
    assert list(_scan.word_ends(preset, text)) == list(accumulate(map(len, words)))
    assert _scan.count_words(preset, text) == len(words)
    assert _scan.count_words(preset, text.encode()) == len(words)


@pytest.mark.parametrize("preset", PRESETS)
def test_corpora_equal_regex(corpora_dir, preset):
    for path in corpus_files(corpora_dir):
        text = corpus_prefix(path, 3_000_000)
        words = _scan.words(preset, text)
        assert words == oracle_words(preset, text), path.name
        assert _scan.count_words(preset, text.encode()) == len(words)


def test_lone_surrogates_raise_value_error():
    with pytest.raises(ValueError):
        _scan.words(0, "a\ud800b")
    with pytest.raises(ValueError):
        _scan.word_ends(1, "a\udfffb")
    with pytest.raises(ValueError, match="preset"):
        _scan.words(7, "a")


# ---------------------------------------------------------------- invalid UTF-8

mangled_utf8 = st.tuples(texts(12), st.lists(st.tuples(st.integers(0, 200), st.binary(max_size=3)),
                                              max_size=4)).map(
    lambda tv: _splice(tv[0].encode(), tv[1]))


def _splice(data: bytes, edits) -> bytes:
    """Overwrite, cut or insert bytes: truncated sequences, stray continuation bytes..."""
    for at, junk in edits:
        at = at % (len(data) + 1)
        data = data[:at] + junk + data[at + (len(junk) % 2):]
    return data


@pytest.mark.parametrize("preset", PRESETS)
@FAST
@given(data=st.one_of(st.binary(max_size=40), mangled_utf8))
def test_invalid_utf8_is_one_other_character_per_byte(preset, data):
    words = _scan._words_utf8(preset, data)
    assert b"".join(words) == data and all(words)
    assert words == oracle_words_utf8(preset, data)
    assert _scan._word_ends_utf8(preset, data) == list(accumulate(map(len, words)))


def _edge_sequences() -> list[bytes]:
    """Every lead byte (and every other byte >= 0x80) with continuation bytes at the edges
    of each lead's range, cut short and with a stray byte after, for every length."""
    edges = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xF0, 0xFF]
    out = []
    for lead in range(0x80, 0x100):
        for b1 in edges:
            out.append(bytes([lead, b1]))
            for b2 in (0x80, 0xBF, 0x41, 0xC3):
                out.append(bytes([lead, b1, b2]))
                out += [bytes([lead, b1, b2, b3]) for b3 in (0x80, 0xBF, 0x20, 0xE4)]
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_every_lead_byte_decodes_as_regex_reads_it(preset):
    """Each lead byte with continuation bytes at the edges of its range (overlongs,
    surrogates, past U+10FFFF, cut short), with bytes after and at the very end of the
    text, reads as the oracle reads the same bytes (scan.c's decode)."""
    for seq in _edge_sequences():
        for data in (b"x" + seq + b"abcd", seq, b"\xe4\xb8\xad" + seq):
            assert _scan._words_utf8(preset, data) == oracle_words_utf8(preset, data), data


# ---------------------------------------------------------------- tables


def test_the_tables_in_use_are_what_the_installed_regex_says():
    """The built-in tables are a cache of one `regex` release. With any release installed
    (a clean install takes the newest), the tables the scanner uses are the ones
    computed from it: built in when the releases agree, installed at first use if not."""
    assert scanner.native_scanner("gpt2") is not None
    assert _scan.tables_blob() == unicode_classes.table_blob()
    assert _scan.tables_version() == regex.__version__


@pytest.mark.skipif(_scan.TABLES_REGEX_VERSION != regex.__version__,
                    reason="the committed tables come from another regex release; the test "
                    "above checks the run-time ones (regenerate: python -m "
                    "bpe_gui.engine.text.unicode_classes)")
def test_builtin_tables_are_the_header_generated_from_this_regex():
    assert _scan.builtin_tables_blob() == unicode_classes.table_blob()
    assert unicode_classes.HEADER.read_text() == unicode_classes.header_text()


def test_generator_agrees_with_regex_match_per_code_point():
    """The vectorised generator against regex.match, one code point at a time (all of
    U+0000..U+2FFF and a random sample above)."""
    flags = unicode_classes.code_point_flags()
    rng = random.Random(0)
    sample = list(range(0, 0x3000)) + rng.sample(range(0x3000, 0x110000), 20_000)
    for bit, pattern in unicode_classes.CLASS_PATTERNS.items():
        rx = regex.compile(pattern)
        for cp in sample:
            if 0xD800 <= cp < 0xE000:
                continue
            assert bool(flags[cp] & bit) == bool(rx.match(chr(cp))), (pattern, hex(cp))


@pytest.mark.parametrize("preset", PRESETS)
def test_installed_tables_are_used(preset):
    """Make 'x' whitespace (like a tab) in a copy of the tables: the scanner follows."""
    blob = bytearray(unicode_classes.table_blob())
    tables = unicode_classes.compute_tables()
    block = tables.blocks[tables.stage1[0]]
    new_block = bytearray(block)
    new_block[ord("x")] = block[ord("\t")]
    blob[blob.index(block):blob.index(block) + 256] = new_block
    text = "ax b xx\nx'sx"
    _scan.set_tables(bytes(blob))
    assert _scan.words(preset, text) == [w.replace("\t", "x") for w in
                                         oracle_words(preset, text.replace("x", "\t"))]
    _scan.set_tables(None)
    assert _scan.words(preset, text) == oracle_words(preset, text)
    assert _scan.tables_blob() == _scan.builtin_tables_blob()


def test_runtime_tables_installed_when_regex_differs(monkeypatch):
    monkeypatch.setattr(_scan, "TABLES_REGEX_VERSION", "0.0-another-release")
    assert scanner.install_tables(_scan) is True
    assert _scan.tables_blob() == scanner.runtime_table_blob()
    assert _scan.tables_version() == regex.__version__
    rng = random.Random(1)
    text = "".join(rng.choice(PIECES) for _ in range(5000))
    for preset in range(3):
        assert _scan.words(preset, text) == oracle_words(preset, text)


def test_extensions_share_the_one_scanner_of_scan():
    """_count and _encode call _scan's scanner (csrc/scan.h, scan_shared.c): there is one
    copy of the tables, so tables installed through any of them are every one's."""
    from bpe_gui.engine.corpus import _count
    from bpe_gui.engine.tokenizers import _encode
    blob = bytearray(_scan.builtin_tables_blob())
    blob[20:52] = b"9.9-shared".ljust(32, b"\0")   # the version field of the header
    _count.set_tables(bytes(blob))
    assert _scan.tables_version() == _encode.tables_version() == "9.9-shared"
    _encode.set_tables(None)
    assert _scan.tables_version() == _count.tables_version() == _scan.TABLES_REGEX_VERSION


def test_install_tables_does_nothing_when_versions_agree():
    class Module:
        TABLES_REGEX_VERSION = regex.__version__

        def set_tables(self, blob):
            raise AssertionError("set_tables must not be called")

    assert scanner.install_tables(Module()) is False


@pytest.mark.parametrize("bad", [b"", b"junk" * 20, lambda b: b[:-1], lambda b: b + b"\0",
                                 lambda b: b[:8] + b"\2" + b[9:]])
def test_malformed_tables_are_refused(bad):
    good = unicode_classes.table_blob()
    blob = bad(good) if callable(bad) else bad
    before = _scan.tables_blob()
    with pytest.raises(ValueError, match="scanner tables"):
        _scan.set_tables(blob)
    assert _scan.tables_blob() == before


# ---------------------------------------------------------------- Pretokenizer


specials = ["<|endoftext|>", "<s>"]


@pytest.mark.parametrize("name", ["gpt2", "cl100k", "o200k"])
@FAST
@given(parts=st.lists(st.one_of(texts(6), st.sampled_from(specials)), max_size=6))
def test_pretokenizer_uses_native_scanner_with_same_result(name, parts):
    pre = Pretokenizer(name, specials)
    assert pre.native is not None
    text = "".join(parts)
    expected, spans, pos = [], [], 0
    for piece in regex.split("(<\\|endoftext\\|>|<s>)", text):
        if piece in specials:
            spans.append((pos, pos + len(piece), True))
        else:
            for m in regex.finditer(PATTERNS[name], piece):
                expected.append(m.group())
                spans.append((pos + m.start(), pos + m.end(), False))
        pos += len(piece)
    assert pre.words(text) == expected
    assert list(pre.spans(text)) == spans


def test_pretokenizer_falls_back_to_regex_for_lone_surrogates():
    text = "it's a\ud800b \udfff 12"
    for name in ("gpt2", "cl100k", "o200k"):
        pre = Pretokenizer(name)
        assert pre.words(text) == regex.findall(PATTERNS[name], text)
        assert [text[s:e] for s, e, _ in pre.spans(text)] == regex.findall(PATTERNS[name], text)


def test_no_native_scanner_for_other_patterns(monkeypatch):
    for pattern in ("whitespace", "cjk", r"\w+|\W"):
        assert Pretokenizer(pattern).native is None
    monkeypatch.setenv("BPE_GUI_NATIVE_SCAN", "0")
    scanner._ready.cache_clear()
    try:
        assert Pretokenizer("gpt2").native is None
    finally:
        monkeypatch.delenv("BPE_GUI_NATIVE_SCAN")
        scanner._ready.cache_clear()
    assert Pretokenizer("gpt2").native is not None
