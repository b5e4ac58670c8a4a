"""The committed grapheme cluster classes (text/grapheme_ranges.json) are regex's."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import regex

from bpe_gui.engine.text import graphemes


def test_committed_ranges_are_regexs_classes():
    """Read from the committed file, the table equals the one computed from the installed
    ``regex`` when it is the release the file was made from; some classes by hand."""
    table = graphemes.grapheme_classes()
    assert len(table) == graphemes.N_CODE_POINTS
    cr, lf, extend, zwj = (graphemes.GCB_VALUES.index(v) for v in ("CR", "LF", "Extend", "ZWJ"))
    assert table[0x0D] == cr and table[0x0A] == lf and table[ord("a")] == 0
    assert table[0x0301] & 0x0F == extend and table[0x200D] & 0x0F == zwj
    assert table[0x1F389] & 0x10   # 🎉 is Extended_Pictographic
    made = json.loads(Path(graphemes.__file__).with_name(graphemes.RANGES_FILE).read_text())
    if made["regex"] != regex.__version__:
        pytest.skip(f"the file was made from regex {made['regex']}, {regex.__version__} here")
    assert table == graphemes.classes_from_regex()
