"""The pre-tokenizer of 64-byte windows (csrc/scan/scan_mask.h) and the word-at-a-time
route it stands beside, both forced (``set_pretok_mode``, as ``BPE_GUI_PRETOK``): the
encoder's word ends against ``regex`` running each published pattern (cl100k, Llama 3,
Qwen2, o200k), and its ids against tiktoken and HF ``tokenizers``.

The windows decide a word start from its neighbours' classes; what they cannot decide
(a byte outside ASCII's fixed classes, a whitespace run that reaches the window's end)
goes to the scanner. So the texts put every class next to every other, at every offset
from a window's end: contractions in every case, digit runs of 1-5, whitespace runs
before letters, newlines, punctuation and the end, CR/LF mixes, and characters of every
Unicode category, emoji with ZWJ and combining marks between ASCII.
"""
from __future__ import annotations

import functools
import os
import random
import subprocess
import sys
import unicodedata
from itertools import accumulate
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

tiktoken = pytest.importorskip("tiktoken")
pytest.importorskip("tokenizers")
from tiktoken.load import load_tiktoken_bpe  # noqa: E402

import hf_files as hfp  # noqa: E402

from bpe_gui.engine.formats import known_encodings as known  # noqa: E402
from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.text.presets import KIND_PATTERNS, PRESET_IDS  # noqa: E402
from bpe_gui.engine.tokenizers import _encode  # noqa: E402

from test_encoder import _tiktoken_pair  # noqa: E402
from tiktoken_files import npm_ranks  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
FAMILY = ["cl100k", "llama3", "qwen2", "o200k"]
MODES = ["mask", "word"]

LETTERS = list("abzAQZelstmdrvSLVRE")
PUNCT = list(".,;:!?\"#$%&()*+-/<=>@[\\]^_`{|}~'")
CONTRACTIONS = [a + "".join(c) for a in "'" for c in
                ["s", "S", "d", "D", "m", "M", "t", "T", "ll", "lL", "Ll", "LL", "ve", "vE",
                 "Ve", "VE", "re", "rE", "Re", "RE", "l", "v", "r", "x"]]
SPACES = [" ", "  ", "   ", "\t", " \t", "\n", "\r", "\r\n", "\n\n", " \n", "\n ", "\r\r\n",
          " \r\n ", "\t\n\t"]
DIGITS = ["1", "12", "123", "1234", "12345"]
# one character of every general category (Cn: an unassigned code point), then emoji
# with ZWJ and modifiers, combining marks, \v \f and controls
CATEGORY_CHARS = ["A", "a", "ǅ", "ʰ", "中", "\u0301", "\u0903", "\u20dd", "٣", "Ⅻ", "½", "_",
                  "‐", "(", ")", "«", "»", "¡", "+", "$", "^", "©", "\u00a0", "\u2028",
                  "\u2029", "\x01", "\u200b", "\ue000", "\u0378", "\U0001f642",
                  "👨\u200d👩\u200d👧", "👍🏽", "e\u0301", "\v", "\f", "\x1c", "\x7f", "ſ",
                  "\u212a"]
ASCII_PARTS = LETTERS * 3 + PUNCT + CONTRACTIONS + SPACES * 2 + DIGITS
ALL_PARTS = ASCII_PARTS + CATEGORY_CHARS


@pytest.fixture(params=MODES)
def mode(request):
    before = _encode.set_pretok_mode(request.param)
    yield request.param
    _encode.set_pretok_mode(before)


def regex_ends(kind: str, text: str) -> list[int]:
    """The byte offsets where regex's words of the text end (the oracle)."""
    return list(_regex_ends(kind, text))


@functools.cache
def _pattern(kind: str) -> regex.Pattern:
    pattern = regex.compile(KIND_PATTERNS[kind])
    assert pattern.groups == 0   # (findall gives whole words)
    return pattern


@functools.cache
def _regex_ends(kind: str, text: str) -> tuple[int, ...]:
    # (each text is checked in both modes: regex reads it once; most of the time here)
    return tuple(accumulate(len(w.encode("utf-8")) for w in _pattern(kind).findall(text)))


@pytest.fixture(autouse=True, scope="module")
def _forget_regex_ends():
    yield
    _regex_ends.cache_clear()


def encoder_ends(kind: str, text: str) -> list[int]:
    return _encode._pretok_words(PRESET_IDS[kind], text.encode("utf-8"))


def _texts(parts: list[str], n: int, seed: int, length: tuple[int, int]) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(parts) for _ in range(rng.randint(*length))) for _ in range(n)]


@pytest.mark.parametrize("kind", FAMILY)
def test_words_of_random_ascii_texts_are_regex_words(kind, mode):
    """Texts of ASCII's classes (the windows decide most of their words) and of every
    class (the windows stop at the first character outside ASCII)."""
    for parts, seed in ((ASCII_PARTS, 1), (ALL_PARTS, 2)):
        for text in _texts(parts, 1500, seed, (20, 160)):
            assert encoder_ends(kind, text) == regex_ends(kind, text), (kind, mode, text)


@pytest.mark.parametrize("kind", FAMILY)
def test_every_pair_of_classes_at_every_offset_from_a_windows_end(kind, mode):
    """Each piece, then each other piece, after 56-70 bytes of letter words: the pair
    lands on and around the 64th byte of the window that starts at the text."""
    pieces = (LETTERS[:6] + PUNCT[::3] + CONTRACTIONS[::2] + SPACES + DIGITS +
              CATEGORY_CHARS[::2])
    for lead in range(56, 71):
        head = ("ab " * 30)[:lead]
        for a in pieces:
            for b in pieces[::2]:
                text = head + a + b + "xy z"
                assert encoder_ends(kind, text) == regex_ends(kind, text), (kind, mode, text)


@pytest.mark.parametrize("kind", FAMILY)
def test_whitespace_runs_before_letters_newlines_punctuation_and_the_end(kind, mode):
    """Every run of up to 70 whitespace bytes of a few shapes before what ends it, and at
    the end of the text (cl100k's \\s++$ keeps it whole there)."""
    shapes = [" ", "\t", "\n", " \n", "\r\n", " \t"]
    for shape in shapes:
        for k in range(1, 71, 3):
            run = (shape * k)[:k]
            for after in ["word", "\nx", ".", "'s", "7", "é", ""]:
                text = "a" * 3 + " b" * 4 + run + after
                assert encoder_ends(kind, text) == regex_ends(kind, text), (kind, mode, text)
                text = run + after + " tail" * 14
                assert encoder_ends(kind, text) == regex_ends(kind, text), (kind, mode, text)


@pytest.mark.parametrize("kind", FAMILY)
def test_every_unicode_category_next_to_each_ascii_class(kind):
    """A character of each general category (all of them, one each, as unicodedata
    names them) before and after letters, digits, spaces and punctuation, windows on."""
    by_cat: dict[str, str] = {}
    for cp in range(0x80, 0x30000):
        by_cat.setdefault(unicodedata.category(chr(cp)), chr(cp))
    by_cat.pop("Cs")   # lone surrogates: not UTF-8 (the str encoder's test below)
    for c in by_cat.values():
        for a, b in [("ab", "cd"), ("12", "345"), (" ", " x"), ("..", ".\n"), ("'", "s"),
                     ("x ", "\n\n "), ("\t", "\t")]:
            text = "word " * 14 + a + c + b + " end " * 14
            assert encoder_ends(kind, text) == regex_ends(kind, text), (kind, ascii(text))


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from(ALL_PARTS + ASCII_PARTS * 3), min_size=1, max_size=120),
       kind=st.sampled_from(FAMILY))
def test_hypothesis_words_are_regex_words(parts, kind):
    text = "".join(parts)
    for m in MODES:
        before = _encode.set_pretok_mode(m)
        try:
            assert encoder_ends(kind, text) == regex_ends(kind, text), (kind, m, text)
        finally:
            _encode.set_pretok_mode(before)


def test_corpus_slices_are_regex_words(mode):
    """The package's own C, Markdown and Python, and with CR LF line ends: every word as
    regex's."""
    engine = ROOT / "bpe_gui" / "engine"
    texts = [p.read_text("utf-8") for p in sorted((engine / "csrc" / "scan").iterdir())]
    texts += [(engine / "csrc" / "README.md").read_text("utf-8"),
              (engine / "text" / "presets.py").read_text("utf-8")]
    texts += [t.replace("\n", "\r\n") for t in texts[:2]]
    for kind in FAMILY:
        for text in texts:
            assert encoder_ends(kind, text) == regex_ends(kind, text), (kind, mode)


def _ids_texts() -> list[str]:
    texts = _texts(ASCII_PARTS, 300, 9, (40, 300)) + _texts(ALL_PARTS, 300, 10, (40, 300))
    texts += [t + "<|endoftext|>" + u for t, u in zip(texts[:50], texts[50:100])]
    texts.append("x" * 70 + "it's \ud800 here" + " y" * 40)
    return texts


def test_ids_as_tiktoken_and_tokenizers(tmp_path_factory, mode):
    """End to end, the ids of cl100k's and o200k's patterns as tiktoken's and of Llama 3's
    as HF tokenizers', for texts long enough that the windows run, a lone surrogate among
    them (cleaned as tiktoken cleans it)."""
    tk = hfp.byte_level_llama3(ignore_merges=False)
    d = tmp_path_factory.mktemp("hf")
    tk.save(str(d / "tokenizer.json"))
    llama = load_tokenizer(d / "tokenizer.json")
    texts = _ids_texts()
    for pattern in (known.CL100K_PATTERN, known.O200K_PATTERN):
        ours, enc = _tiktoken_pair(tmp_path_factory, pattern, {"<|endoftext|>": 1000})
        for t in texts:
            assert ours.encode(t, allowed_special="all") == enc.encode(t, allowed_special="all"), t
    for t in texts[:-1]:
        assert llama.encode(t, allowed_special="all") == tk.encode(t, add_special_tokens=False).ids, t


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """OpenAI's cl100k_base and o200k_base (the npm package tiktoken): ours and tiktoken's."""
    out = []
    for name in ("cl100k_base", "o200k_base"):
        got = npm_ranks(name, tmp_path_factory.mktemp(name))
        if got is None:
            pytest.skip("the npm package tiktoken is not here (BPE_GUI_TIKTOKEN_TGZ)")
        path, meta = got
        out.append((load_tokenizer(path), tiktoken.Encoding(
            name, pat_str=meta["pat_str"], mergeable_ranks=load_tiktoken_bpe(str(path)),
            special_tokens=meta["special_tokens"])))
    return out


def test_published_files_ids_as_tiktoken(published, mode):
    """The published cl100k and o200k files, each route forced, as tiktoken: the texts
    above, and this package's own C and Python (long runs of code the windows cut)."""
    engine = ROOT / "bpe_gui" / "engine"
    code = [(engine / "csrc" / "scan" / "scan_mask.h").read_text("utf-8"),
            (engine / "text" / "presets.py").read_text("utf-8")]
    texts = _ids_texts() + code + [c.replace("\n", "\r\n") for c in code]
    for ours, enc in published:
        for t in texts:
            assert ours.encode(t, allowed_special="all") == enc.encode(t, allowed_special="all"), t


def test_an_unknown_mode_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="no pre-tokenizer mode named 'simd'.*'mask', 'word'"):
        _encode.set_pretok_mode("simd")


def test_environment_variable_picks_the_mode_for_the_process():
    """BPE_GUI_PRETOK=word: the process starts with the word-at-a-time route; a name that
    is no mode stops the import with the known ones."""
    code = "from bpe_gui.engine.tokenizers import _encode; print(_encode.pretok_mode())"
    env = {**os.environ, "BPE_GUI_PRETOK": "word", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["word"]
    env["BPE_GUI_PRETOK"] = "bogus"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, cwd=ROOT)
    assert out.returncode != 0
    assert "BPE_GUI_PRETOK=bogus names no pre-tokenizer mode (known: mask, word)" in out.stderr
