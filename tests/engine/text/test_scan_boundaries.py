"""Safe cuts of the native scanner: wherever it says a text may be cut, `regex` agrees,
whatever comes after the character at the cut; and real text has cuts every few words."""
from __future__ import annotations

import json
import random
from itertools import product
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from scan_oracle import (PIECES, PRESETS, corpus_prefix, oracle_words, oracle_words_utf8, texts)

import bpe_gui.engine as engine_pkg
from bpe_gui.engine.text.presets import PRESET_IDS
from bpe_gui.engine.text.scanner import _scan, native_scanner

pytestmark = pytest.mark.skipif(_scan is None, reason="the _scan extension was not built")
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RESOURCES = Path(__file__).resolve().parents[3] / "resources" / "samples"


def assert_cut_is_safe(preset: int, text: str, p: int, suffixes) -> None:
    """words(x) == words(x[:p]) + words(x[p:]) for x = text, and for text up to and
    including the character at p followed by each suffix."""
    for x in [text] + [text[:p + 1] + s for s in suffixes]:
        assert oracle_words(preset, x) == oracle_words(preset, x[:p]) + oracle_words(preset, x[p:]), \
            (preset, x, p)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
@FAST
@given(data=st.data(), text=texts(16))
def test_safe_cuts_are_safe_whatever_follows(preset, data, text):
    lo = data.draw(st.integers(-1, max(len(text) - 1, 0)), label="lo")
    hi = data.draw(st.integers(lo, len(text) + 1), label="hi")
    p = _scan.safe_cut(preset, text, lo, hi)
    # the largest position that a one-character window (q - 1, q] accepts
    allowed = range(max(lo, 0) + 1, min(hi, len(text) - 1) + 1)
    singles = [q for q in allowed if _scan.safe_cut(preset, text, q - 1, q) == q]
    assert p == (max(singles) if singles else -1)
    if p != -1:
        suffixes = data.draw(st.lists(texts(4), max_size=4), label="suffixes")
        assert_cut_is_safe(preset, text, p, suffixes)


# one character of each class the rules tell apart, and a few that are special
REPRESENTATIVES = [" ", "\t", "\n", "\r", "\xa0", "\u2028", "\x1c", "a", "A", "s", "\u017f", "l",
                   "e", "\u02b0", "\u4e2d", "\u01c5", "\u0301", "1", "\u0663", "\u00b2", "!", "/",
                   "'", "\U0001f600"]
SUFFIXES = ["", " ", "a", "A", "'", "s", "ll", "\n", "\r\n", "1", "!", "/", "\u0301", "\u02b0",
            "  x", " \n"]


@pytest.mark.parametrize("preset", PRESETS)
def test_every_class_triple_around_a_cut(preset):
    """All (before-before, before, at) triples of representatives, with and without a
    character before them, and continuations of every kind after."""
    checked = 0
    for z, a, b in product([""] + REPRESENTATIVES, REPRESENTATIVES, REPRESENTATIVES):
        text = z + a + b
        p = len(text) - 1
        if _scan.safe_cut(preset, text, p - 1, p) == p:
            assert_cut_is_safe(preset, text, p, SUFFIXES)
            checked += 1
    assert checked > 1000  # not vacuous: most class pairs are cuts


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
@FAST
@given(data=st.data(), text=texts(10))
def test_safe_cuts_of_invalid_utf8(preset, data, text):
    raw = text.encode()
    at = data.draw(st.integers(0, len(raw)), label="at")
    raw = raw[:at] + data.draw(st.binary(max_size=4), label="junk") + raw[at:]
    lo = data.draw(st.integers(0, max(len(raw) - 1, 0)), label="lo")
    p = _scan._safe_cut_utf8(preset, raw, lo, len(raw) - 1)
    if p == -1:
        return
    assert lo < p < len(raw)
    width = next(k for k in range(1, 5) if _decodes(raw[p:p + k]))  # the character at p
    tail = data.draw(st.binary(max_size=5), label="tail")
    for x in (raw, raw[:p + width] + tail):
        assert oracle_words_utf8(preset, x) == oracle_words_utf8(preset, x[:p]) + \
            oracle_words_utf8(preset, x[p:])


def _decodes(b: bytes) -> bool:
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def test_safe_cut_with_lone_surrogates_uses_a_stand_in():
    text = "ab\ud800 cd \udfffef gh"
    for name in ("gpt2", "cl100k", "o200k"):
        sc = native_scanner(name)
        p = sc.safe_cut(text, 0, len(text) - 1)
        assert p != -1
        assert_cut_is_safe(["gpt2", "cl100k", "o200k"].index(name), text, p, PIECES[:40])


# ---------------------------------------------------------------- real text


def _minified_json(text: str) -> str:
    records = [{"id": i, "text": line, "tags": line.split()[:3], "score": i * 0.5}
               for i, line in enumerate(text.splitlines()) if line.strip()]
    return json.dumps(records, ensure_ascii=False, separators=(",", ":"))


def _real_texts(corpora_dir: Path) -> dict[str, str]:
    code = (Path(engine_pkg.__file__).parent / "text" / "pretokenize.py").read_text(encoding="utf-8")
    out = {"english": (RESOURCES / "en-paragraphs.txt").read_text(encoding="utf-8"),
           "chinese": (RESOURCES / "zh-en.txt").read_text(encoding="utf-8"),
           "code": code,
           "json": json.dumps(json.loads((RESOURCES / "index.json").read_text(encoding="utf-8")),
                              ensure_ascii=False, separators=(",", ":"))}
    for name, file in [("english", "en-gutenberg-20mb.txt.xz"),
                       ("chinese", "zh-four-classic-novels.txt.xz"),
                       ("code", "code-python-stdlib.py.txt.xz")]:
        out[name + " corpus"] = corpus_prefix(corpora_dir / file, 200_000)
    out["json corpus"] = _minified_json(corpus_prefix(corpora_dir / "zh-en-d2l-zh-markdown.txt.xz",
                                                      100_000))
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_real_text_has_a_cut_every_200_characters(corpora_dir, preset):
    """(SuperBPE's stage-2 pieces are whole lines of prose: there, a cut every 200
    characters or at the next line break.)"""
    rng = random.Random(preset)
    lines = preset == PRESET_IDS["superbpe2"]
    for name, text in _real_texts(corpora_dir).items():
        cuts, pos = [], 0
        while pos + 200 < len(text):
            hi = pos + 200
            if lines:
                hi = text.find("\n", hi) + 1 or len(text) - 1
            p = _scan.safe_cut(preset, text, pos, hi)
            assert p != -1, f"{name}: no safe cut in {text[pos:hi + 1]!r}"
            cuts.append(p)
            pos = p
        # scanning the pieces between cuts gives the words of the whole text
        pieces = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
        assert [w for piece in pieces for w in _scan.words(preset, piece)] == \
            oracle_words(preset, text), name
        for p in rng.sample(cuts, min(20, len(cuts))):
            window = text[max(0, p - 50):p + 1]
            assert_cut_is_safe(preset, window, min(p, 50), [rng.choice(PIECES) for _ in range(3)])
