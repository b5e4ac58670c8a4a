"""The `regex` oracle and adversarial text strategies for the native scanner's tests."""
from __future__ import annotations

import random

import lzma
from pathlib import Path

import pytest
import regex
from hypothesis import strategies as st

from bpe_gui.engine.text.presets import KIND_PATTERNS, KINDS

# the scanner's kinds by number (csrc/scan.h); each oracle is the kind's published pattern
PATTERNS = {i: KIND_PATTERNS[kind] for i, kind in enumerate(KINDS)}
COMPILED = {k: regex.compile(p) for k, p in PATTERNS.items()}
PRESETS = [pytest.param(i, id=kind) for i, kind in enumerate(KINDS)]


def oracle_words(preset: int, text: str) -> list[str]:
    return COMPILED[preset].findall(text)


def oracle_ends(preset: int, text: str) -> list[int]:
    return [m.end() for m in COMPILED[preset].finditer(text)]


def oracle_words_utf8(preset: int, data: bytes) -> list[bytes]:
    """Words of raw bytes where each invalid byte is one "other" character.

    surrogateescape turns every byte of an invalid sequence into its own lone surrogate
    (class Cs: not a letter, number or space, i.e. "other"), exactly the C scanner's rule.
    """
    text = data.decode("utf-8", "surrogateescape")
    return [w.encode("utf-8", "surrogateescape") for w in oracle_words(preset, text)]


# Every general category but Cs (a lone surrogate is no UTF-8 text).
CATEGORIES = ("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd",
              "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc",
              "Cf", "Co", "Cn")
SPACES = [" ", "  ", "   ", "\t", "\n", "\r", "\r\n", "\n\n", "\r\r\n", "\x0b", "\x0c", "\x1c",
          "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u1680", "\u2000", "\u2028", "\u2029",
          "\u202f", "\u3000", "\u180e", "\u200b", "\ufeff", " \n ", "\t\n"]
# contraction letters in every case, and their case-fold partners (U+017F LONG S folds
# to s; U+212A KELVIN SIGN to k, which is no contraction letter)
APOSTROPHES = ["'", "''", "'s", "'S", "'\u017f", "'t", "'T", "'m", "'M", "'d", "'D", "'ll",
               "'LL", "'lL", "'Ll", "'ve", "'VE", "'vE", "'re", "'RE", "'rE", "'k", "'\u212a",
               "'x", "'l", "'r", "'v", "'e"]
LETTERS = ["a", "s", "S", "\u017f", "k", "K", "\u212a", "l", "L", "e", "E", "r", "v", "d", "m",
           "t", "T", "Z", "\u01c5", "\u02b0", "\u00aa", "\u4e2d", "\u6587", "\u00df", "\u1e9e",
           "\ufb00", "\u0130", "\u0131", "\u03a3", "\u03c2", "\u1efb", "\u1fbc", "Camel",
           "HTTPServer", "don", "DON", "\u3042", "\u30ab", "\ud55c", "\u0627\u0644"]
MARKS = ["\u0301", "\u0300\u0301", "\u0903", "\u20dd", "\u0f71", "\U0001d167"]
NUMBERS = ["0", "12", "1234", "\u0663", "\u09e9", "\u07c3", "\uff11", "\u00b2", "\u00bd",
           "\u216b", "\U0001d7d9", "\U000104a0", "\u3007"]
OTHERS = ["/", "//", "!", "?", ".", ",", "(", ")", '"', "-", "_", "#", "\x00", "\x7f", "\ufffd",
          "\ufffe", "\U000e0001", "\U0001f600", "\U0001f1fa\U0001f1f8", "\U0001f44d\U0001f3fd",
          "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\u200d", "\ufe0f", "\U00100000"]
PIECES = SPACES + APOSTROPHES + LETTERS + MARKS + NUMBERS + OTHERS

piece = st.one_of(
    st.sampled_from(SPACES), st.sampled_from(APOSTROPHES), st.sampled_from(LETTERS),
    st.sampled_from(MARKS), st.sampled_from(NUMBERS), st.sampled_from(OTHERS),
    st.sampled_from(CATEGORIES).flatmap(lambda c: st.characters(categories=(c,))),
    st.text(alphabet="abcXYZ sltdmvre'\n\r!1/", min_size=1, max_size=6),
)


def texts(max_pieces: int = 24) -> st.SearchStrategy[str]:
    """Adversarial texts: pieces from every general category and the patterns' edges."""
    return st.lists(piece, max_size=max_pieces).map("".join)


def corpus_prefix(path: Path, chars: int) -> str:
    """The first `chars` characters of a corpus file (.xz or plain UTF-8)."""
    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.read(chars)


def corpus_files(corpora_dir: Path) -> list[Path]:
    files = sorted(p for p in corpora_dir.iterdir() if p.suffix in (".xz", ".txt"))
    if not files:
        pytest.skip(f"no corpora in {corpora_dir}")
    return files


def ideograph_texts(n: int, seed: int) -> list[str]:
    """Runs of CJK ideographs from the whole of U+4E00..U+9FA5 (the scanner reads two at a
    time there), its neighbours outside it (U+4DFF, U+9FA6.. and extension A: not letters
    in every version), other 3-byte letters and non-letters, ASCII, digits, spaces, at
    every offset and near a text's end (the 8-byte reads stop short of it)."""
    rng = random.Random(seed)
    cjk = [chr(c) for c in (0x4E00, 0x4E01, 0x9FA5, 0x9FA4, 0x6587, 0x4E2D)] + [
        chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(40)]
    near = ["\u4dff", "\u9fa6", "\u9fbb", "\u9fcc", "\u9fff", "\u3400", "\u4db5", "\u3002",
            "\uff0c", "\u3042", "\u30ab", "\uac00", "\u0915", "\u2028", "\u3000"]
    other = ["a", "Z", " ", "\n", "7", "42", "!", "'s", "\u00e9", "\u0416", "\U0001f600"]
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 8)):
            pool = rng.choice([cjk, cjk, near, other])
            parts.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 12))))
        out.append("".join(parts))
    return out
