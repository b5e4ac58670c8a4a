"""Each GUI test has its own application Glyphs (tests/gui/conftest.py ``fresh_glyphs``):
the process-wide one kept the scripts an earlier test found no font for, and a later
test's window depended on it (a CI failure). The two tests run in this order."""
from __future__ import annotations

from bpe_gui.gui.models.glyphs import Glyphs, glyphs, use_glyphs

SEEN: list[Glyphs] = []


def test_a_test_that_leaves_a_script_without_a_font():
    use_glyphs(Glyphs(has_glyph=lambda ch: False))   # (and never puts the old one back)
    assert glyphs().shown("ह") == "\\u0939"
    assert list(glyphs().scripts_missing) == ["Devanagari"]
    SEEN.append(glyphs())


def test_the_next_test_starts_with_no_script_missing():
    g = glyphs()
    assert all(g is not s for s in SEEN)
    assert g.scripts_missing == {}
    assert g.shown("abc") == "abc"
