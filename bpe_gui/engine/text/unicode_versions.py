"""Which Unicode tables each tokenizer library uses, and those tables, for every version
bpe-gui pins to.

A tokenizer's pre-tokenizer classes (``\\p{L}``, ``\\p{N}``, ``\\w``...) mean what the
library that runs the file makes of them, and libraries carry different Unicode
releases (measured on every code point, docs/FORMATS.md "Unicode versions"): a
``.tiktoken`` file is tiktoken's, a ``tokenizer.json`` is Hugging Face tokenizers', a
GGUF is llama.cpp's, and a tokenizer trained here is the installed ``regex``'s. A
:class:`Classes` names one such set of tables (``LIBRARIES``); ``None`` stands for the
installed ``regex`` everywhere (the tables trained tokenizers use).

The general category of every code point, for each version in :data:`VERSIONS`, is
data in ``unicode_data.json``, generated from the ``unicodedata2`` release of that
version (run this module: ``python -m bpe_gui.engine.text.unicode_versions --help``).
From it come the native scanner's tables of a version (:func:`scanner_blob`) and, for
patterns that run on ``regex``, what a class means in that version against what the
installed ``regex`` makes of it (:func:`class_delta`, used by :mod:`.dialects` to pin a
pattern to a version).

Example: ``category("\\u088f", "16.0.0") == "Cn"`` and ``category("\\u088f", "17.0.0") == "Lo"``.
"""
from __future__ import annotations

import argparse
import base64
import importlib.util
import json
import sys
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import regex

N_CODE_POINTS = 0x110000
#: general categories, in the order of the data's category numbers
CATEGORIES = ("Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc",
              "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp",
              "Cc", "Cf", "Cs", "Co")
DATA = Path(__file__).resolve().parent / "unicode_data.json"   # generated: see data_text
_DATA = json.loads(DATA.read_text("utf-8"))
#: each version's categories as the data holds them (runs, zlib, base64)
_TABLES: dict[str, str] = {v: "".join(chunks) for v, chunks in _DATA["versions"].items()}
VERSIONS = tuple(_TABLES)
assert tuple(_DATA["categories"]) == CATEGORIES, "unicode_data.json: regenerate it"


@dataclass(frozen=True)
class Classes:
    """The Unicode tables of one library's pattern classes.

    ``version``: the Unicode version of its general categories (a key of VERSIONS);
    ``long_s``: whether U+017F LONG S is a case-insensitive ``s`` in its contractions
    (``(?i:'s)`` matches ``'ſ`` in regex, fancy-regex and Oniguruma; llama.cpp's
    hand-written ``'[sS]`` does not).
    """

    library: str
    version: str
    long_s: bool = True

    @property
    def label(self) -> str:
        """Example: 'tiktoken (Unicode 16.0)'."""
        return f"{self.library} (Unicode {self.version.removesuffix('.0')})"


#: measured on every code point with the releases named (docs/FORMATS.md); a file's
#: own library decides which a tokenizer uses
LIBRARIES: dict[str, Classes] = {
    "tiktoken": Classes("tiktoken", "16.0.0"),          # tiktoken 0.14.0 (fancy-regex)
    "tokenizers": Classes("tokenizers", "16.0.0"),      # tokenizers 0.23.3 (Oniguruma)
    "llama.cpp": Classes("llama.cpp", "15.1.0", long_s=False),   # unicode-data.cpp
}
TIKTOKEN = LIBRARIES["tiktoken"]
TOKENIZERS = LIBRARIES["tokenizers"]
LLAMA_CPP = LIBRARIES["llama.cpp"]


def describe(classes: Classes | None) -> str:
    """Example: None -> 'the installed regex (Unicode 17.0)'."""
    if classes is None:
        v = regex_version()
        return f"the installed regex {regex.__version__} (Unicode " + \
            (v.removesuffix(".0") if v else "of its release") + ")"
    return classes.label


# ----- the data --------------------------------------------------------------------------
@lru_cache(maxsize=None)
def categories(version: str) -> bytes:
    """One byte per code point: its general category's index in CATEGORIES."""
    if version not in _TABLES:
        raise ValueError(f"no Unicode {version} tables here (have: {', '.join(VERSIONS)})")
    runs = zlib.decompress(base64.b64decode(_TABLES[version]))
    out = bytearray(N_CODE_POINTS)
    pos = i = 0
    while i < len(runs):
        cat = runs[i]
        i += 1
        n = shift = 0
        while True:
            b = runs[i]
            i += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        out[pos:pos + n] = bytes([cat]) * n
        pos += n
    if pos != N_CODE_POINTS:
        raise RuntimeError(f"unicode_data.json: Unicode {version} covers {pos:#x} code points")
    return bytes(out)


def category(ch: str, version: str) -> str:
    """The general category of one character in a Unicode version."""
    return CATEGORIES[categories(version)[ord(ch)]]


@lru_cache(maxsize=None)
def mask(version: str, prefixes: tuple[str, ...]) -> bytes:
    """One byte per code point, 1 where its category in ``version`` starts with one of
    ``prefixes`` ('L', 'Lu', 'Cn'...); surrogates 0."""
    cats = categories(version)
    wanted = bytes(1 if c.startswith(prefixes) else 0 for c in CATEGORIES)
    out = bytearray(cats.translate(wanted + bytes(256 - len(wanted))))
    out[0xD800:0xE000] = bytes(0xE000 - 0xD800)
    return bytes(out)


def members(version: str, prefixes: tuple[str, ...]) -> frozenset[int]:
    """The code points of ``mask(version, prefixes)``."""
    return _ones(mask(version, prefixes))


def _ones(m: bytes) -> frozenset[int]:
    out: list[int] = []
    start = m.find(1)
    while start >= 0:
        end = m.find(0, start)
        end = N_CODE_POINTS if end < 0 else end
        out.extend(range(start, end))
        start = m.find(1, end)
    return frozenset(out)


@lru_cache(maxsize=1)
def regex_version() -> str | None:
    """The Unicode version of the installed ``regex``'s categories among VERSIONS (its
    unassigned code points are that version's), or None if it is none of them."""
    unassigned = regex_mask(r"\p{Cn}")
    for v in VERSIONS:
        if unassigned == mask(v, ("Cn",)):
            return v
    return None


@lru_cache(maxsize=256)
def regex_mask(expr: str) -> bytes:
    """One byte per code point, 1 where the installed ``regex`` matches it with one class
    expression (``\\p{L}``, ``\\w``, ``[[:alpha:]]``...; version-1 syntax allowed);
    surrogates 0."""
    from .unicode_classes import all_code_points
    out = bytearray(N_CODE_POINTS)
    for m in regex.finditer(f"(?V1)(?:{expr})+", all_code_points()):
        a, b = m.span()
        out[a:b] = b"\x01" * (b - a)
    out[0xD800:0xE000] = bytes(0xE000 - 0xD800)
    return bytes(out)


def _and_not(a: bytes, b: bytes) -> frozenset[int]:
    """Code points set in a and not in b (masks of 0/1 bytes)."""
    x = int.from_bytes(a, "little") & ~int.from_bytes(b, "little")
    return _ones(x.to_bytes(N_CODE_POINTS, "little")) if x else frozenset()


# ----- what a class means in a version ------------------------------------------------------
# General-category names as regex and Oniguruma spell them (case and `_`/space aside)
_LONG_NAMES = {
    "letter": "L", "casedletter": "LC", "uppercaseletter": "Lu", "lowercaseletter": "Ll",
    "titlecaseletter": "Lt", "modifierletter": "Lm", "otherletter": "Lo", "mark": "M",
    "combiningmark": "M", "nonspacingmark": "Mn", "spacingmark": "Mc", "enclosingmark": "Me",
    "number": "N", "decimalnumber": "Nd", "letternumber": "Nl", "othernumber": "No",
    "punctuation": "P", "punct": "P", "connectorpunctuation": "Pc", "dashpunctuation": "Pd",
    "openpunctuation": "Ps", "closepunctuation": "Pe", "initialpunctuation": "Pi",
    "finalpunctuation": "Pf", "otherpunctuation": "Po", "symbol": "S", "mathsymbol": "Sm",
    "currencysymbol": "Sc", "modifiersymbol": "Sk", "othersymbol": "So", "separator": "Z",
    "spaceseparator": "Zs", "lineseparator": "Zl", "paragraphseparator": "Zp", "other": "C",
    "control": "Cc", "cntrl": "Cc", "format": "Cf", "surrogate": "Cs", "privateuse": "Co",
    "unassigned": "Cn",
}
_SHORT = {c.lower(): c for c in CATEGORIES} | {c[0].lower(): c[0] for c in CATEGORIES} | \
    {"lc": "LC", "l&": "LC"}


def general_category(name: str) -> tuple[str, ...] | None:
    """The category prefixes a property name stands for, or None if it is no general
    category. Example: 'Letter' -> ('L',); 'gc=Lu' -> ('Lu',); 'LC' -> ('Lu', 'Ll', 'Lt')."""
    key = name.replace("_", "").replace(" ", "").replace("-", "").lower()
    for prefix in ("generalcategory=", "gc=", "category=", "is"):
        if key.startswith(prefix) and len(key) > len(prefix):
            rest = general_category(key[len(prefix):])
            if rest is not None or prefix != "is":
                return rest
    cat = _SHORT.get(key) or _LONG_NAMES.get(key)
    if cat is None:
        return None
    return ("Lu", "Ll", "Lt") if cat == "LC" else (cat,)


@lru_cache(maxsize=16)
def _flip(m: bytes) -> bytes:
    return m.translate(bytes([1, 0]) + bytes(254))


@lru_cache(maxsize=512)
def class_delta(expr: str, gc: tuple[str, ...] | None,
                version: str) -> tuple[frozenset[int], frozenset[int]]:
    """(code points to take out of, code points to add to) what the installed ``regex``
    matches with ``expr`` so that it means the class in Unicode ``version``.

    ``gc``: the general categories ``expr`` stands for (exact in every version), or
    None for a property the data here does not hold (``\\w``, ``\\p{Han}``,
    ``\\p{Alphabetic}``): then the class keeps the installed regex's members, less the
    code points ``version`` has not assigned (a character newer than the version is in
    no class there but the negated ones), so it is exact wherever a code point assigned
    in both versions kept that property.

    Example: (r'\\p{L}', ('L',), '16.0.0') -> ({U+088F, ...: 4,644 letters new in
    17.0}, {}) with regex 2026.5.9.
    """
    ours = regex_mask(expr)
    if gc is not None:
        theirs = mask(version, gc)
        return _and_not(ours, theirs), _and_not(theirs, ours)
    assigned = _flip(mask(version, ("Cn",)))
    return _and_not(ours, assigned), frozenset()


# ----- the native scanner's tables of a version ------------------------------------------------
@lru_cache(maxsize=None)
def scanner_blob(classes: Classes) -> bytes:
    """The scanner's character tables (unicode_classes.table_blob's format) of a library:
    kept in the user's cache folder (they take a pass of the installed ``regex`` over
    every code point), so each version is made once per ``regex`` release."""
    from . import unicode_classes as uc
    from ..io.cache import read_cached, write_cached
    source = f"unicode-{classes.version}" + ("" if classes.long_s else "-ascii-folds")
    # (named by the data too: a regenerated unicode_data.json never reads older tables)
    data = zlib.crc32(_TABLES.get(classes.version, "").encode())
    name = uc.cached_tables_name(f"{source}-{data:08x}")
    blob = read_cached(name)
    if blob is None or not uc.tables_blob_matches(blob, source):
        blob = _make_scanner_blob(classes, source)
        write_cached(name, blob)
    return blob


def _make_scanner_blob(classes: Classes, source: str) -> bytes:
    from . import unicode_classes as uc
    cats = categories(classes.version)

    def bit(*prefixes: str) -> int:
        return sum(1 << k for k, c in enumerate(CATEGORIES) if c.startswith(prefixes))

    by_cat = [0] * len(CATEGORIES)
    for flag, mask in ((uc.FLAG_L, bit("L")), (uc.FLAG_N, bit("N")), (uc.FLAG_M, bit("M")),
                       (uc.FLAG_U, bit("Lu", "Lt", "Lm", "Lo", "M")),
                       (uc.FLAG_W, bit("Ll", "Lm", "Lo", "M"))):
        for k in range(len(CATEGORIES)):
            if mask >> k & 1:
                by_cat[k] |= flag
    flags = bytearray(cats.translate(bytes(by_cat) + bytes(256 - len(by_cat))))
    # \s is White_Space, the same 25 code points in every library and version measured
    for cp in _ones(regex_mask(r"\s")):
        flags[cp] |= uc.FLAG_S
    for cp in (0x0A, 0x0D):
        flags[cp] |= uc.FLAG_CRLF
    # (ASCII folds only: from the 128 ASCII characters, not every code point)
    masks = uc.fold_masks() if classes.long_s else uc.fold_masks("".join(map(chr, range(128))))
    return uc.table_blob(uc.pack_tables(bytes(flags), masks, source))


# ----- generating unicode_data.json ------------------------------------------------------------


def encode_categories(cats: bytes) -> str:
    """Runs of one category (its index, then the run's length as a varint), zlib, base64."""
    out = bytearray()
    start = 0
    while start < len(cats):
        end = start
        while end < len(cats) and cats[end] == cats[start]:
            end += 1
        out.append(cats[start])
        n = end - start
        while n >= 0x80:
            out.append(0x80 | (n & 0x7F))
            n >>= 7
        out.append(n)
        start = end
    return base64.b64encode(zlib.compress(bytes(out), 9)).decode("ascii")


def load_unicodedata2(path: Path):
    """A ``unicodedata2`` extension module from a file or a folder holding one (several
    releases can be loaded side by side: ``pip install --target DIR unicodedata2==X``)."""
    if path.is_dir():
        found = sorted(path.glob("unicodedata2*.so")) + sorted(path.glob("unicodedata2*.pyd"))
        if not found:
            raise SystemExit(f"{path}: no unicodedata2 extension module in this folder")
        path = found[0]
    spec = importlib.util.spec_from_file_location("unicodedata2", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: not a Python extension module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def data_text(modules: list) -> str:
    versions = {}
    for m in sorted(modules, key=lambda m: tuple(map(int, m.unidata_version.split(".")))):
        cats = bytes(CATEGORIES.index(m.category(chr(c))) for c in range(N_CODE_POINTS))
        versions[m.unidata_version] = encode_categories(cats)
    lines = ['{"about": "General categories of every code point, for each Unicode version '
             'bpe-gui pins to (generated by python -m bpe_gui.engine.text.unicode_versions '
             'from the unicodedata2 releases of these versions; do not edit). Each: runs of '
             'one category (its index in categories, then the run\'s length as a '
             'little-endian base-128 varint), zlib-compressed, base64.",',
             f' "categories": {json.dumps(list(CATEGORIES))},', ' "versions": {']
    for n, (v, text) in enumerate(versions.items()):
        chunks = [text[i:i + 88] for i in range(0, len(text), 88)]
        lines.append(f'  "{v}": [')
        lines += [f'   "{c}",' for c in chunks]
        lines[-1] = lines[-1].rstrip(",")
        lines.append("  ]," if n < len(versions) - 1 else "  ]")
    lines.append("}}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Write unicode_data.json from unicodedata2 "
                                 "releases (each installed with pip install --target DIR "
                                 "unicodedata2==X.Y.Z).")
    ap.add_argument("unicodedata2", nargs="+", type=Path,
                    help="folders (or .so files) of unicodedata2 releases")
    ap.add_argument("--out", type=Path, default=DATA)
    ap.add_argument("--check", action="store_true", help="only say whether it is up to date")
    args = ap.parse_args(argv)
    text = data_text([load_unicodedata2(p) for p in args.unicodedata2])
    if args.check:
        ok = args.out.exists() and args.out.read_text() == text
        print(f"{args.out}: {'up to date' if ok else 'OUT OF DATE'}")
        return 0 if ok else 1
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
