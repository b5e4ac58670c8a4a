"""Character classes of the preset patterns, taken from the ``regex`` module itself.

The native scanner (``csrc/scan.c``) must split text exactly as ``regex`` does, so it
does not carry its own idea of Unicode: this module asks ``regex`` which code points
match each class the GPT-2, cl100k and o200k patterns use, and packs the answers into a
two-level table. ``csrc/unicode_tables.h`` is that table, generated here and committed
together with the ``regex`` version it came from. When the installed ``regex`` is another
release (perhaps another Unicode version), :mod:`bpe_gui.engine.text.scanner` computes the
table again at run time with :func:`table_blob` and installs it into the C module.

Regenerate the committed header after upgrading ``regex``::

    python -m bpe_gui.engine.text.unicode_classes            # writes csrc/unicode_tables.h
    python -m bpe_gui.engine.text.unicode_classes --check    # exit 1 if it is out of date

Example: ``code_point_flags()[ord("A")] == FLAG_L | FLAG_U``.
"""
from __future__ import annotations

import argparse
import struct
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

from .regex_release import regex_version

# One byte of flags per code point; the patterns only ever combine these classes.
FLAG_S = 0x01     # \s
FLAG_L = 0x02     # \p{L}
FLAG_N = 0x04     # \p{N}
FLAG_M = 0x08     # \p{M}
FLAG_U = 0x10     # [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]  (o200k: upper-case part of a word)
FLAG_W = 0x20     # [\p{Ll}\p{Lm}\p{Lo}\p{M}]        (o200k: lower-case part of a word)
FLAG_CRLF = 0x40  # [\r\n]
CLASS_PATTERNS: dict[int, str] = {
    FLAG_S: r"\s",
    FLAG_L: r"\p{L}",
    FLAG_N: r"\p{N}",
    FLAG_M: r"\p{M}",
    FLAG_U: r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",
    FLAG_W: r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]",
    FLAG_CRLF: r"[\r\n]",
}
# Letters of the contractions ('s 't 'm 'd 'll 've 're); bit i of a fold mask is
# CONTRACTION_LETTERS[i]. cl100k and o200k match them case-insensitively, as `regex`
# folds case (e.g. U+017F LONG S matches (?i:s)).
CONTRACTION_LETTERS = "sdmtlver"

N_CODE_POINTS = 0x110000
BLOCK_SHIFT = 8
BLOCK = 1 << BLOCK_SHIFT
MAGIC = b"BPESCAN\0"
FORMAT_VERSION = 1
HEADER = Path(__file__).resolve().parents[1] / "csrc" / "unicode_tables.h"


@dataclass(frozen=True)
class Tables:
    """The scanner's tables. ``flags[cp] = blocks[stage1[cp >> 8]][cp & 255]``."""

    regex_version: str
    stage1: tuple[int, ...]          # N_CODE_POINTS >> BLOCK_SHIFT block numbers
    blocks: tuple[bytes, ...]        # unique 256-byte blocks of flags
    ascii_fold: bytes                # 128 fold masks for code points < 128
    folds: tuple[tuple[int, int], ...]  # (code point >= 128, fold mask), sorted


def all_code_points() -> str:
    """Every code point in order, so that index == code point (surrogates included: they
    never occur in UTF-8 text, and the tables clear them). Made anew at each call (~4 ms):
    the 4.4 MB string is needed only while tables are computed."""
    # its UTF-32-LE bytes a byte lane at a time (3 ms; array('I', range(...)) takes 30)
    out = bytearray(4 * N_CODE_POINTS)
    out[0::4] = bytes(range(256)) * (N_CODE_POINTS >> 8)
    out[1::4] = b"".join(bytes([h]) * 256 for h in range(256)) * 17
    out[2::4] = b"".join(bytes([h]) * 65536 for h in range(17))
    return out.decode("utf-32-le", "surrogatepass")


_all_code_points = all_code_points


def code_point_flags(text: str | None = None) -> bytes:
    """Flags of every code point (N_CODE_POINTS bytes), one ``finditer`` per class."""
    import regex
    text = _all_code_points() if text is None else text
    total = 0
    for bit, pattern in CLASS_PATTERNS.items():
        mask = bytearray(N_CODE_POINTS)
        fill = bytes([bit])
        for m in regex.finditer(pattern + "+", text):
            a, b = m.span()
            mask[a:b] = fill * (b - a)
        total |= int.from_bytes(mask, "little")
    flags = bytearray(total.to_bytes(N_CODE_POINTS, "little"))
    flags[0xD800:0xE000] = bytes(0xE000 - 0xD800)
    return bytes(flags)


# regex release -> the fold masks of every code point: from compute_tables, from the
# built-in tables when they are that release's (note_fold_masks), else made at first use
_FOLDS: dict[str, tuple[tuple[int, int], ...]] = {}


def _fold_masks_all() -> tuple[tuple[int, int], ...]:
    got = _FOLDS.get(regex_version())
    if got is None:   # the scanner's built-in tables hold them when they are this release's
        try:
            from . import _scan
        except ImportError:
            pass
        else:
            if _scan.TABLES_REGEX_VERSION == regex_version():
                note_fold_masks(_scan.builtin_tables_blob())
                got = _FOLDS.get(regex_version())
    if got is None:
        got = _FOLDS[regex_version()] = tuple(sorted(fold_masks(all_code_points()).items()))
    return got


def note_fold_masks(blob: bytes) -> None:
    """Keep the fold masks of tables in ``table_blob`` format (the scanner's built-in
    ones, made from the installed ``regex`` release) as that release's, so that
    ``fold_masks()`` need not ask ``regex`` about every code point again (~35 ms)."""
    n_blocks, n_folds = struct.unpack_from("<II", blob, len(MAGIC) + 4)
    version = blob[len(MAGIC) + 12:len(MAGIC) + 44].rstrip(b"\0").decode()
    if version != regex_version():
        return
    at = len(MAGIC) + 44 + 2 * (N_CODE_POINTS >> BLOCK_SHIFT) + n_blocks * BLOCK
    masks = {cp: m for cp, m in enumerate(blob[at:at + 128]) if m}
    at += 128
    cps = struct.unpack_from(f"<{n_folds}I", blob, at)
    masks.update(zip(cps, blob[at + 4 * n_folds:at + 5 * n_folds]))
    _FOLDS.setdefault(version, tuple(sorted(masks.items())))


def fold_masks(text: str | None = None) -> dict[int, int]:
    """Code point -> mask of the contraction letters it matches case-insensitively.

    Example: ``fold_masks()[ord("S")] == 1`` (bit 0 is "s").
    """
    if text is None:
        return dict(_fold_masks_all())
    import regex
    masks: dict[int, int] = {}
    for i, letter in enumerate(CONTRACTION_LETTERS):
        # The patterns use the letters both in a class ([sdmt]) and as literals (ll).
        as_class = {m.start() for m in regex.finditer(f"(?i:[{letter}])", text)}
        as_literal = {m.start() for m in regex.finditer(f"(?i:{letter})", text)}
        if as_class != as_literal:
            raise RuntimeError(f"regex folds {letter!r} differently in a class and as a "
                               "literal; the scanner cannot represent that")
        for cp in as_class:
            masks[cp] = masks.get(cp, 0) | (1 << i)
    return masks


def compute_tables() -> Tables:
    """Ask the installed ``regex`` for every class; about half a second."""
    text = _all_code_points()
    masks = fold_masks(text)
    if len(text) == N_CODE_POINTS:   # (fold_masks() answers from them from now on)
        _FOLDS.setdefault(regex_version(), tuple(sorted(masks.items())))
    return pack_tables(code_point_flags(text), masks, regex_version())


def pack_tables(flags: bytes, masks: dict[int, int], version: str) -> Tables:
    """The two-level tables of per-code-point ``flags`` and fold ``masks``, checked for
    what the scanner assumes; ``version`` names where they came from (at most 31 bytes:
    a `regex` release, or e.g. 'unicode-16.0.0' for unicode_versions' tables)."""
    for cp in masks:
        if not flags[cp] & FLAG_L:
            raise RuntimeError(f"U+{cp:04X} matches a contraction letter but is not \\p{{L}}; "
                               "the scanner's safe boundaries assume it is")
    bad = bytes(1 if f & FLAG_L and not f & (FLAG_U | FLAG_W) else 0 for f in range(256))
    cp = flags.translate(bad).find(1)
    if cp >= 0:
        raise RuntimeError(f"U+{cp:04X} is \\p{{L}} but in neither o200k case class")
    index: dict[bytes, int] = {}
    stage1 = []
    for start in range(0, N_CODE_POINTS, BLOCK):
        stage1.append(index.setdefault(flags[start:start + BLOCK], len(index)))
    return Tables(
        regex_version=version,
        stage1=tuple(stage1),
        blocks=tuple(index),
        ascii_fold=bytes(masks.get(cp, 0) for cp in range(128)),
        folds=tuple(sorted((cp, m) for cp, m in masks.items() if cp >= 128)),
    )


def table_blob(tables: Tables | None = None) -> bytes:
    """The tables as bytes, the format ``_scan.set_tables`` (and scan.h) reads.

    Layout, little-endian: magic "BPESCAN\\0", u32 format version, u32 block count,
    u32 fold count, 32 bytes of regex version (NUL-padded), u16 stage1[4352],
    u8 blocks[count * 256], u8 ascii_fold[128], then per fold u32 code point, u8 mask.
    """
    t = compute_tables() if tables is None else tables
    version = t.regex_version.encode()[:31].ljust(32, b"\0")
    parts = [MAGIC, struct.pack("<III", FORMAT_VERSION, len(t.blocks), len(t.folds)), version,
             struct.pack(f"<{len(t.stage1)}H", *t.stage1), b"".join(t.blocks), t.ascii_fold,
             b"".join(struct.pack("<I", cp) for cp, _ in t.folds),
             bytes(m for _, m in t.folds)]
    return b"".join(parts)


def cached_tables_name(source: str = "") -> str:
    """The cache file of tables made from the installed ``regex`` (and, for ``source``
    such as 'unicode-16.0.0', from that version's categories): its release, and a
    checksum of what the tables are made from here (the classes, the letters, the
    format), so a change to either never reads tables made before it."""
    recipe = repr((FORMAT_VERSION, BLOCK_SHIFT, sorted(CLASS_PATTERNS.items()),
                   CONTRACTION_LETTERS)).encode()
    return (f"scanner-tables-{source + '-' if source else ''}regex-{regex_version()}-"
            f"{zlib.crc32(recipe):08x}.bin")


def tables_blob_matches(blob: bytes, version: str | None = None) -> bool:
    """True if ``blob`` is whole tables in ``table_blob`` format made from ``version``
    (default: the installed ``regex``'s release): its header's format and version, and
    its size from its counts."""
    head = len(MAGIC) + 44
    if len(blob) < head or not blob.startswith(MAGIC):
        return False
    fmt, n_blocks, n_folds = struct.unpack_from("<III", blob, len(MAGIC))
    found = blob[len(MAGIC) + 12:head].rstrip(b"\0").decode("ascii", "replace")
    size = head + 2 * (N_CODE_POINTS >> BLOCK_SHIFT) + n_blocks * BLOCK + 128 + 5 * n_folds
    return fmt == FORMAT_VERSION and found == (version or regex_version())[:31] and \
        len(blob) == size


def _c_array(ctype: str, name: str, values, per_line: int) -> str:
    vals = [str(v) for v in values]
    lines = [", ".join(vals[i:i + per_line]) for i in range(0, len(vals), per_line)]
    return f"static const {ctype} {name}[{len(vals)}] = {{\n  " + ",\n  ".join(lines) + "\n};\n"


def header_text(tables: Tables | None = None) -> str:
    """The C header with the tables, as committed in csrc/unicode_tables.h."""
    t = compute_tables() if tables is None else tables
    return "".join([
        "/* Generated by `python -m bpe_gui.engine.text.unicode_classes`; do not edit.\n"
        " * Character classes of the GPT-2 / cl100k / o200k patterns, as the `regex`\n"
        " * module below matches them; see bpe_gui/engine/text/unicode_classes.py. */\n",
        "#ifndef BPE_UNICODE_TABLES_H\n#define BPE_UNICODE_TABLES_H\n#include <stdint.h>\n",
        f'#define BPE_SCAN_TABLES_REGEX_VERSION "{t.regex_version}"\n',
        f"#define BPE_SCAN_BUILTIN_NBLOCKS {len(t.blocks)}\n",
        f"#define BPE_SCAN_BUILTIN_NFOLDS {len(t.folds)}\n",
        # flags of the 128 ASCII bytes, then F_HI (0x80: decode me) for the others
        "#define BPE_BUILTIN_BYTE_FLAGS { \\\n  "
        + ", ".join(map(str, t.blocks[t.stage1[0]][:128])) + ", \\\n  "
        + ", ".join(["128"] * 128) + " }\n",
        _c_array("uint16_t", "bpe_builtin_stage1", t.stage1, 24),
        _c_array("uint8_t", "bpe_builtin_blocks", b"".join(t.blocks), 32),
        _c_array("uint8_t", "bpe_builtin_ascii_fold", t.ascii_fold, 32),
        # never-empty arrays: C99 forbids zero-length ones
        _c_array("uint32_t", "bpe_builtin_fold_cp", [cp for cp, _ in t.folds] or [0], 8),
        _c_array("uint8_t", "bpe_builtin_fold_mask", [m for _, m in t.folds] or [0], 8),
        "#endif\n",
    ])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate csrc/unicode_tables.h from `regex`.")
    ap.add_argument("--out", type=Path, default=HEADER, help="header to write")
    ap.add_argument("--check", action="store_true", help="only say whether it is up to date")
    args = ap.parse_args(argv)
    text = header_text()
    if args.check:
        current = args.out.read_text() if args.out.exists() else ""
        ok = current == text
        print(f"{args.out}: {'up to date' if ok else 'OUT OF DATE'} (regex {regex_version()})")
        return 0 if ok else 1
    args.out.write_text(text)
    print(f"wrote {args.out} (regex {regex_version()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
