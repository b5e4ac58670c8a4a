"""Whether a text is already in a Unicode normal form, quickly.

``unicodedata.is_normalized`` looks each character up in its record tables (about a
quarter of Qwen2's encoding time on English, whose NFC normalizer asks it of the whole
text). :func:`is_normalized` answers from a bit per character instead when the text is
long: a character is *safe* for a form when it has canonical combining class 0, the form
leaves it unchanged, and (NFC, NFKC) it can never be the second half of a canonical
composition (Hangul vowel and trailing jamo included). A text of safe characters is in
the form (the standard's quick check says YES: no character is NO or MAYBE and no mark
is out of order); any other text, and any character beyond the BMP, goes to
``unicodedata`` as before, so the answer is always unicodedata's.

The bitmaps come from ``unicodedata`` itself when first needed (about 0.05 s, once a
process), so they follow the Python's Unicode version like the normalizer does.
"""
from __future__ import annotations

import functools
import unicodedata
from typing import Literal

try:
    from . import _scan
except ImportError:  # no C compiler at install time: unicodedata alone
    _scan = None  # type: ignore[assignment]  # optional C extension: None where it was not built

Form = Literal["NFC", "NFD", "NFKC", "NFKD"]
LONG = 1 << 18   # characters: shorter texts go straight to unicodedata (no bitmap to build)


@functools.cache
def _composition_seconds() -> frozenset[int]:
    """Code points that may be the second half of a canonical composition."""
    seconds = {*range(0x1161, 0x1176), *range(0x11A8, 0x11C3)}   # Hangul V and T jamo
    # every canonical pair lies below plane 3 (map: a third of a loop's time)
    for d in map(unicodedata.decomposition, map(chr, range(0x30000))):
        if d and d[0] != "<" and " " in d:
            seconds.add(int(d.split()[1], 16))
    return frozenset(seconds)


@functools.cache
def safe_bits(form: Form) -> bytes:
    """65536 bits: bit c set when U+c is safe for ``form`` (see the module's docstring)."""
    bits = bytearray(8192)
    seconds = _composition_seconds() if form in ("NFC", "NFKC") else frozenset()
    chars = [chr(cp) for cp in range(0x10000)]
    comb = list(map(unicodedata.combining, chars))
    same = list(map(functools.partial(unicodedata.normalize, form), chars))
    for cp, c in enumerate(chars):
        if not comb[cp] and same[cp] == c and cp not in seconds and not 0xD800 <= cp < 0xE000:
            bits[cp >> 3] |= 1 << (cp & 7)
    return bytes(bits)


def is_normalized(form: Form, text: str) -> bool:
    """``unicodedata.is_normalized(form, text)``, sooner for long texts of safe characters."""
    if text.isascii():
        return True
    if _scan is not None and len(text) >= LONG and _scan.all_in(text, safe_bits(form)):
        return True
    return unicodedata.is_normalized(form, text)
