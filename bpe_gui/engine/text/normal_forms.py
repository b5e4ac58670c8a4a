"""Whether a text is already in a Unicode normal form, and the form of a text, quickly.

``unicodedata.is_normalized`` looks each character up in its record tables (about a
quarter of Qwen2's encoding time on English, whose NFC normalizer asks it of the whole
text). :func:`is_normalized` answers from a bit per character instead when the text is
long: a character is *safe* for a form when it has canonical combining class 0, the form
leaves it unchanged, and (NFC, NFKC) it can never be the second half of a canonical
composition (Hangul vowel and trailing jamo included). A text of safe characters is in
the form (the standard's quick check says YES: no character is NO or MAYBE and no mark
is out of order).

A safe character is also a boundary the form never crosses (nothing before it reorders
past it or composes with it), so the form of a long text is the text with each stretch
around its unsafe characters (from the safe character before to the safe one after)
replaced by that stretch's form: :func:`normalize` puts only those stretches
(``_scan.normal_form_of`` finds them and makes their form in one call) in the form, and :func:`is_normalized` asks whether
they are unchanged. ``unicodedata.is_normalized`` says MAYBE at a combining mark and then
normalizes the whole text to compare; Qwen2's NFC on decomposed text did that and then
normalized it again. Short texts go to ``unicodedata``; the stretches of NFC and NFKC to
``_scan.normal_form_of`` (found and put in the form in one call, csrc/text/normal_form.c;
``_scan.normal_form`` puts stretches given to it in the form: the tests' way into the
same C, every character as a stretch of its own), whose tables :func:`make_compose_tables`
makes from ``unicodedata`` (each character's combining class and full decomposition, the
primary composites), so the answers are still unicodedata's. Handing each stretch to
``unicodedata.normalize`` from Python cost 9.3 ms on 2 MB of random text of every plane
(6,061 stretches), the C 4.2 ms.

The bitmaps come from ``unicodedata`` itself, so they follow the Python's Unicode version
like the normalizer does: the BMP's when first needed, and above it a block of 256 code
points at a time, for the blocks a long text uses (``_scan.astral_blocks`` lists them;
about 0.05 ms a block), so that a text of emoji or CJK extension characters is not one
long unsafe stretch (random text of every plane: Qwen2's NFC check went from unicodedata
on the whole text to a few thousand stretches). Making the BMP's bitmap and the
composition seconds took 0.06-0.1 s, and the C normal form's tables 0.03 s more, charged
to the first long text of a process (a third of Qwen2's encode of 8.9 MB of Chinese):
for the Unicode versions of the Pythons at hand they are read from
``normal_form_tables.json`` instead (a few ms, once a process), which
``python -m bpe_gui.engine.text.normal_forms`` writes and the tests check against
``unicodedata``; another version's are made as before.
"""
from __future__ import annotations

import functools
import itertools
import operator
import sys
import threading
import unicodedata
from typing import Literal

try:
    from . import _scan
except ImportError:  # no C compiler at install time: unicodedata alone
    _scan = None  # type: ignore[assignment]  # optional C extension: None where it was not built

Form = Literal["NFC", "NFD", "NFKC", "NFKD"]
LONG = 2048      # characters: shorter texts go straight to unicodedata. With the bitmaps and
#                  the composition tables read from normal_form_tables.json the C path cost
#                  ~15-60 us a call on 64 characters (unicodedata: under 6), was level at ~1,000
#                  and 2-25x quicker from 4,096 (NFC of 32,768 characters of random Unicode:
#                  0.14 ms against 2.6; Qwen2 encoded 200,000 of them at a third of its speed
#                  on 2 MB of them while this was 2**18)
TOP = 0x10000    # the bitmaps' code points (characters above them are unsafe): the BMP
# (0x30000 took 0.13 s to make, charged to the first long text a process normalizes: Qwen2's
# 20 MB English 0.25 -> 0.29 s in a fresh process; supplementary characters are rare)
GAP = 16         # unsafe stretches fewer characters apart are normalized as one (set when
#                  each stretch was a call to unicodedata: at 32 the 2 MB random-Unicode
#                  corner took 16 ms, 12.6 at 16, as the offsets' stretches still are; the
#                  C form takes 1.9-2.3 ms at any gap of 1-16)
ALL = 0x110000   # every code point: the bitmaps with the blocks above TOP


FORMS: tuple[Form, ...] = ("NFC", "NFD", "NFKC", "NFKD")


def make_composition_seconds(ud=unicodedata) -> frozenset[int]:
    """Code points that may be the second half of a canonical composition, from the
    Unicode data module ``ud`` (``unicodedata``, or ``unicodedata2`` of another version)."""
    seconds = {*range(0x1161, 0x1176), *range(0x11A8, 0x11C3)}   # Hangul V and T jamo
    # every canonical pair lies below plane 3 (map: a third of a loop's time)
    for d in map(ud.decomposition, map(chr, range(0x30000))):
        if d and d[0] != "<" and " " in d:
            seconds.add(int(d.split()[1], 16))
    return frozenset(seconds)


def make_safe_bits(form: Form, ud=unicodedata, seconds: frozenset[int] | None = None) -> bytes:
    """TOP bits: bit c set when U+c is safe for ``form`` (see the module's docstring),
    from the Unicode data module ``ud``."""
    bits = bytearray(TOP // 8)
    if form not in ("NFC", "NFKC"):
        seconds = frozenset()
    elif seconds is None:
        seconds = make_composition_seconds(ud)
    chars = [chr(cp) for cp in range(TOP)]
    comb = list(map(ud.combining, chars))
    # a character without a decomposition is its own form (Hangul syllables decompose
    # by rule, not by the table)
    dec = list(map(ud.decomposition, chars))
    normalize = ud.normalize
    for cp, c in enumerate(chars):
        if comb[cp] or cp in seconds or 0xD800 <= cp < 0xE000:
            continue
        if (dec[cp] or 0xAC00 <= cp <= 0xD7A3) and normalize(form, c) != c:
            continue
        bits[cp >> 3] |= 1 << (cp & 7)
    return bytes(bits)


TABLES_FILE = "normal_form_tables.json"   # written by write_tables, beside this module


@functools.cache
def written_tables() -> dict[str, dict]:
    """The written tables (``normal_form_tables.json``) by Unicode version: each form's
    safe bits and the C normal form's tables of NFC and NFKC as zlib bytes, and the
    composition seconds; {} when the file is missing."""
    import base64
    import json
    import pathlib
    try:
        raw = json.loads(pathlib.Path(__file__).with_name(TABLES_FILE).read_text("utf-8"))
    except FileNotFoundError:
        return {}
    return {version: {key: tuple(value) if key == "seconds"
                      else base64.b64decode("".join(value)) for key, value in blobs.items()}
            for version, blobs in raw.items()}


def _committed() -> dict | None:
    """The written tables of this Python's Unicode version, or None."""
    return written_tables().get(unicodedata.unidata_version)


@functools.cache
def _composition_seconds() -> frozenset[int]:
    """Code points that may be the second half of a canonical composition."""
    done = _committed()
    return frozenset(done["seconds"]) if done else make_composition_seconds()


@functools.cache
def safe_bits(form: Form) -> bytes:
    """TOP bits: bit c set when U+c is safe for ``form`` (see the module's docstring)."""
    done = _committed()
    if done:
        import zlib
        return zlib.decompress(done[form])
    return make_safe_bits(form, seconds=_composition_seconds())


@functools.cache
def _seconds_by_block() -> dict[int, list[int]]:
    """The composition seconds above TOP, by block of 256."""
    out: dict[int, list[int]] = {}
    for cp in _composition_seconds():
        if cp >= TOP:
            out.setdefault(cp >> 8, []).append(cp)
    return out


_NO_BLOCKS = bytes(ALL >> 11)   # astral_blocks' answer for a text with none
_LOCK = threading.Lock()
_FULL: dict[str, tuple[bytearray, bytearray]] = {}   # form -> (ALL bits, known blocks)


def _block_bits(form: Form, block: int) -> bytes:
    """The 32 bytes of safe bits of the 256 code points of a block above the BMP (as
    safe_bits: combining class 0, its own form, never a composition's second half)."""
    base = block << 8
    chars = [chr(cp) for cp in range(base, base + 256)]
    unsafe = set(itertools.compress(range(256), map(unicodedata.combining, chars)))
    for i in itertools.compress(range(256), map(unicodedata.decomposition, chars)):
        if unicodedata.normalize(form, chars[i]) != chars[i]:
            unsafe.add(i)
    if form in ("NFC", "NFKC"):
        unsafe.update(cp - base for cp in _seconds_by_block().get(block, ()))
    bits = bytearray(b"\xff" * 32)
    for i in unsafe:
        bits[i >> 3] &= ~(1 << (i & 7)) & 0xFF
    return bytes(bits)


def _bits_of(form: Form, text: str) -> bytes | bytearray:
    """The bitmap to read ``text`` with: the BMP's, and when text holds characters above
    it, every code point's, with the blocks it uses worked out (once a process)."""
    assert _scan is not None
    blocks = _scan.astral_blocks(text)
    if not any(blocks):
        return safe_bits(form)
    return _learn_blocks(form, blocks)[0]


def _learn_blocks(form: Form, blocks: bytes) -> tuple[bytearray, bytearray]:
    """Every code point's bitmap and the blocks above the BMP it holds (544 bytes, a bit
    a block), with ``blocks`` (as ``_scan.astral_blocks`` gives them) worked out."""
    with _LOCK:
        full, known = _FULL.get(form) or (bytearray(ALL // 8), bytearray(len(blocks)))
        if form not in _FULL:
            full[:TOP // 8] = safe_bits(form)
            _FULL[form] = (full, known)
        for i, byte in enumerate(blocks) if any(blocks) else ():   # (normalize's every
            new = byte & ~known[i]                                  # call: none to learn)
            for j in range(8) if new else ():
                if new >> j & 1:
                    b = i << 3 | j
                    full[b << 5:(b + 1) << 5] = _block_bits(form, b)
            known[i] |= byte
    return full, known


# ----- the tables of the C normal form (csrc/text/normal_form.h) ---------------------------
NF_MAGIC = 0x4E46424D
NF_STAGE1 = 0x1100
DECOMPOSED_TOP = 0x30000   # every character with a combining class or a decomposition lies
#                            below (the tests check the tables over every code point)


def make_compose_tables(form: Form, ud=unicodedata) -> bytes:
    """The tables of csrc/text/normal_form.h for NFC or NFKC, from the Unicode data module
    ``ud``: each character's combining class and full decomposition (canonical for NFC,
    compatibility too for NFKC), and the primary composites by their two parts."""
    import struct
    from array import array
    full_form = "NFD" if form == "NFC" else "NFKD"
    # every code point below DECOMPOSED_TOP as a str of one character (surrogates as
    # U+FFFF, which has neither class nor decomposition), from one decode: ~2 ms, where
    # chr() for each took 18
    codes = array("I", range(DECOMPOSED_TOP))
    codes[0xD800:0xE000] = array("I", [0xFFFF]) * 0x800
    chars = list(codes.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be"))
    comb = list(map(ud.combining, chars))
    dec = list(map(ud.decomposition, chars))
    recs: dict[int, int] = {}
    decomp = array("I")
    keys: list[tuple[int, int]] = []
    for cp in itertools.compress(range(DECOMPOSED_TOP), map(operator.or_, comb, map(len, dec))):
        if 0xAC00 <= cp <= 0xD7A3:   # Hangul syllables: by rule
            continue
        c, d = chars[cp], dec[cp]
        full = ud.normalize(full_form, c) if d else c
        if full == c and not comb[cp]:
            continue
        length = len(full) if full != c else 0
        if length >= 32:
            raise ValueError(f"U+{cp:04X} decomposes to {length} characters (31 at most)")
        recs[cp] = comb[cp] | length << 8 | len(decomp) << 13
        decomp.extend(map(ord, full) if length else ())
        if d and d[0] != "<":
            parts = [int(x, 16) for x in d.split()]
            if len(parts) == 2 and ud.normalize("NFC", chr(parts[0]) + chr(parts[1])) == c:
                keys.append((parts[0] << 21 | parts[1], cp))
    stage1 = array("H", [0]) * NF_STAGE1
    stage2 = array("H", [0]) * 256   # block 0: the empty one
    index = {cp: i + 1 for i, cp in enumerate(sorted(recs))}
    for block in sorted({cp >> 8 for cp in recs}):
        stage1[block] = len(stage2) // 256
        stage2.extend(index.get(cp, 0) for cp in range(block << 8, (block + 1) << 8))
    keys.sort()
    rec_list = array("I", (recs[cp] for cp in sorted(recs)))
    out = bytearray(struct.pack("<5I", NF_MAGIC, len(stage2) // 256, len(rec_list),
                                len(decomp), len(keys)))
    out += stage1.tobytes() + stage2.tobytes()
    out += bytes(-len(out) % 4)
    out += rec_list.tobytes() + decomp.tobytes()
    out += bytes(-len(out) % 8)
    out += array("Q", (k for k, _ in keys)).tobytes() + array("I", (c for _, c in keys)).tobytes()
    return bytes(out)


@functools.cache
def compose_tables(form: Form) -> bytes:
    """make_compose_tables of this Python's unicodedata (NFC, NFKC): read from
    ``normal_form_tables.json`` for the versions written there (~0.3 ms), else made once a
    process, when a long text first has a character the form may change (~30 ms)."""
    done = _committed()
    if done and f"compose {form}" in done:
        import zlib
        return zlib.decompress(done[f"compose {form}"])
    return make_compose_tables(form)


def is_normalized(form: Form, text: str) -> bool:
    """``unicodedata.is_normalized(form, text)``, sooner for long texts."""
    if text.isascii():
        return True
    if _scan is None or len(text) < LONG:
        return unicodedata.is_normalized(form, text)
    if _scan.all_in(text, safe_bits(form)):
        return True
    if form in ("NFD", "NFKD"):   # their quick check never says MAYBE: it is the answer
        return unicodedata.is_normalized(form, text)
    return normalize(form, text) is text


def unsafe_stretches(form: Form, text: str) -> list[int] | None:
    """The stretches of ``text`` the form may change, as [start, end, start, end, ...]
    (characters; stretches fewer than GAP characters apart joined): outside them every
    character is its own normal form and a boundary the form does not cross. None
    without the C scanner."""
    if _scan is None:
        return None
    return _scan.unsafe_spans(text, _bits_of(form, text), GAP)


def normalize(form: Form, text: str) -> str:
    """``unicodedata.normalize(form, text)``; ``text`` itself when it is in the form.
    Long texts in NFC or NFKC: the stretches around unsafe characters are put in the form
    in C (csrc/text/normal_form.c), the rest is kept as it is."""
    if text.isascii():
        return text
    if _scan is None or len(text) < LONG or form in ("NFD", "NFKD"):
        return text if unicodedata.is_normalized(form, text) else unicodedata.normalize(form, text)
    if _scan.all_in(text, safe_bits(form)):   # (the usual answer: quicker than listing no stretch)
        return text
    # the stretches found and put in the form in one call, which also says which blocks
    # above the BMP the bitmap must learn first (a process's first texts of those blocks:
    # then it is asked again); on 2 MB of random text of every plane 1.85 -> 1.0 ms, where
    # astral_blocks, unsafe_spans (a list of 12,000 offsets) and normal_form were three
    full, known = _learn_blocks(form, _NO_BLOCKS)
    out, missing = _scan.normal_form_of(text, full, GAP, compose_tables(form), known)
    if out is None:
        assert missing is not None
        full, known = _learn_blocks(form, missing)
        out, missing = _scan.normal_form_of(text, full, GAP, compose_tables(form), known)
        assert out is not None   # (every block the text uses is known now)
    return out


# ----- the written tables (python -m bpe_gui.engine.text.normal_forms) --------------------
def write_tables(path=None) -> str:
    """Write ``normal_form_tables.json``: the BMP's safe bits of each form, the
    composition seconds and the C normal form's tables of NFC and NFKC, for this Python's Unicode version and, when ``unicodedata2`` is
    installed, for its version too (another Python's); the bytes zlib, base64, in lines
    of 80 characters. Returns the path."""
    import base64
    import json
    import pathlib
    import zlib
    mods = [unicodedata]
    try:
        import unicodedata2
        if unicodedata2.unidata_version != unicodedata.unidata_version:
            mods.append(unicodedata2)
    except ImportError:
        pass
    lines = ["{"]
    for n, ud in enumerate(sorted(mods, key=lambda m: m.unidata_version)):
        seconds = make_composition_seconds(ud)
        lines.append(f"  {json.dumps(ud.unidata_version)}: {{")
        blobs: list[tuple[str, bytes]] = [(form, make_safe_bits(form, ud, seconds))
                                          for form in FORMS]
        blobs += [(f"compose {form}", make_compose_tables(form, ud)) for form in ("NFC", "NFKC")]
        for key, blob in blobs:
            data = base64.b64encode(zlib.compress(blob, 9)).decode()
            chunks = [data[i:i + 80] for i in range(0, len(data), 80)]
            lines.append(f"    {json.dumps(key)}: [")
            lines += [f"      {json.dumps(c)}," for c in chunks]
            lines[-1] = lines[-1].rstrip(",")
            lines.append("    ],")
        nums = sorted(seconds)
        lines.append('    "seconds": [')
        for i in range(0, len(nums), 10):
            lines.append("      " + ", ".join(str(c) for c in nums[i:i + 10]) + ",")
        lines[-1] = lines[-1].rstrip(",")
        lines.append("    ]")
        lines.append("  }," if n < len(mods) - 1 else "  }")
    lines.append("}")
    out = pathlib.Path(path) if path else pathlib.Path(__file__).with_name(TABLES_FILE)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(out)


if __name__ == "__main__":
    print(write_tables())
