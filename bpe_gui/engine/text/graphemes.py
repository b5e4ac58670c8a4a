"""Extended grapheme cluster classes (UAX #29) of every code point: what the native
Precompiled normalizer (tokenizers' SentencePiece charsmap, which works cluster by cluster)
needs to find cluster ends.

:func:`grapheme_classes` gives one byte per code point (0..0x10FFFF): the low 4 bits the
Grapheme_Cluster_Break value (the order of ``GCB_VALUES``), 0x10 Extended_Pictographic,
bits 5-6 the Indic_Conjunct_Break value (1 Linker, 2 Consonant, 3 Extend) -- the layout of
``csrc/imported/charsmap.h``. The committed ranges (``grapheme_ranges.json``) were made
from ``regex``'s tables by ``python -m bpe_gui.engine.text.graphemes`` (Unicode of that
``regex`` release, see the file's ``"regex"``).
"""
from __future__ import annotations

from functools import lru_cache

GCB_VALUES = ("Other", "CR", "LF", "Control", "Extend", "ZWJ", "Regional_Indicator",
              "Prepend", "SpacingMark", "L", "V", "T", "LV", "LVT")
N_CODE_POINTS = 0x110000
RANGES_FILE = "grapheme_ranges.json"   # (start, end, class byte), one range a line


@lru_cache(maxsize=1)
def grapheme_classes() -> bytes:
    """One class byte per code point (see the module docstring), from the committed
    ranges (about 10 ms)."""
    import json
    from pathlib import Path
    ranges = json.loads(Path(__file__).with_name(RANGES_FILE).read_text("utf-8"))["ranges"]
    table = bytearray(N_CODE_POINTS)
    for start, end, value in ranges:
        table[start:end] = bytes([value]) * (end - start)
    return bytes(table)


def classes_from_regex() -> bytes:
    """The same table computed from the installed ``regex`` (about 0.7 s)."""
    import regex
    every = "".join(map(chr, range(N_CODE_POINTS)))
    table = bytearray(N_CODE_POINTS)
    for k, v in enumerate(GCB_VALUES):
        if k:
            for m in regex.finditer(f"\\p{{gcb={v}}}+", every):
                table[m.start():m.end()] = bytes([k]) * (m.end() - m.start())
    for bits, prop in ((0x10, "Extended_Pictographic"), (0x20, "InCB=Linker"),
                       (0x40, "InCB=Consonant"), (0x60, "InCB=Extend")):
        for m in regex.finditer(f"\\p{{{prop}}}+", every):
            for cp in range(m.start(), m.end()):
                table[cp] |= bits
    return bytes(table)


def _write(path) -> None:
    import regex
    table = classes_from_regex()
    ranges, start = [], 0
    for cp in range(1, N_CODE_POINTS + 1):
        if cp == N_CODE_POINTS or table[cp] != table[start]:
            if table[start]:
                ranges.append((start, cp, table[start]))
            start = cp
    lines = ['{"made by": "python -m bpe_gui.engine.text.graphemes",',
             f' "regex": "{regex.__version__}",', ' "ranges": [']
    lines += [f"  [{s}, {e}, {v}]," for s, e, v in ranges]
    lines[-1] = lines[-1].rstrip(",")
    lines.append("]}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":   # pragma: no cover - regenerates the committed ranges
    from pathlib import Path
    _write(Path(__file__).with_name(RANGES_FILE))


__all__ = ["grapheme_classes", "classes_from_regex", "GCB_VALUES"]
