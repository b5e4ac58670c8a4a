"""Scripts the font cannot draw (issue 67): where no font has a glyph for a character,
the encode view, the merge table and the vocabulary show its escape, not an empty box,
with the character's Unicode name in the tooltip, and the status bar says once per
script which package has a font.

The oracle for "has a glyph" is fontconfig itself: ``fc-query`` lists the characters a
font file covers, ``fc-list :charset=XXXX`` the installed fonts that cover one. The
views are pointed at one real font that lacks Devanagari and Thai (DejaVu Sans, or
whatever ``fc-match sans`` gives) with Qt's font merging off, so the test needs no
machine without those fonts.
"""
from __future__ import annotations

import shutil
import subprocess
import unicodedata

import pytest
from PySide6.QtGui import QFont, QFontDatabase

from bpe_gui.engine.display import readable
from bpe_gui.engine.train import TrainSettings
from bpe_gui.gui.models.glyphs import Glyphs, use_glyphs
from bpe_gui.gui.models.roles import TOKENS_ROLE
from bpe_gui.gui.models.vocab_model import VocabModel

pytestmark = pytest.mark.skipif(shutil.which("fc-query") is None or
                                shutil.which("fc-match") is None,
                                reason="needs fontconfig's fc-query and fc-match")

# Hindi and Thai beside Latin, Cyrillic and Chinese (written for this test)
TEXT = ("नमस्ते दुनिया। यह एक परीक्षण है। नमस्ते नमस्ते दुनिया।\n"
        "สวัสดีครับ ภาษาไทย สวัสดี สวัสดีครับ\n"
        "hello hello world привет привет 你好 你好\n") * 3
SAMPLE = "aéяΩह्कกข你😀ب"


def charset(path: str) -> set[int]:
    """The code points a font file covers, as fontconfig reads them."""
    out = subprocess.run(["fc-query", "--format", "%{charset}", path], capture_output=True,
                         text=True, check=True).stdout
    cps: set[int] = set()
    for part in out.split():
        lo, _, hi = part.partition("-")
        cps.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    return cps


@pytest.fixture
def lone_font(qtbot):
    """(a QFont of one font file, merging off; the code points the file covers), a font
    without Devanagari and Thai."""
    path = subprocess.run(["fc-match", "-f", "%{file}", "sans"], capture_output=True,
                          text=True).stdout.strip()
    if not path:
        pytest.skip("fc-match found no sans font")
    cps = charset(path)
    if ord("ह") in cps or ord("ก") in cps:
        pytest.skip(f"{path} draws Devanagari or Thai")
    fid = QFontDatabase.addApplicationFont(path)
    assert fid >= 0, path
    font = QFont(QFontDatabase.applicationFontFamilies(fid)[0])
    font.setStyleStrategy(QFont.StyleStrategy.NoFontMerging)
    yield font, cps
    use_glyphs(None)


def escaped(text: str, cps: set[int]) -> str:
    """What a view should show: each character outside the font (and not whitespace or
    a control or format character, which are never boxes) as its Python escape."""
    def one(c: str) -> str:
        if ord(c) in cps or unicodedata.category(c) in ("Cc", "Cf", "Zs", "Zl", "Zp"):
            return c
        return c.encode("unicode_escape").decode("ascii")
    return "".join(map(one, text))


def test_one_font_without_merging_is_its_own_cmap(lone_font):
    font, cps = lone_font
    g = Glyphs(font)
    got = {c: g.drawable(c) for c in SAMPLE}
    assert got == {c: ord(c) in cps for c in SAMPLE}
    assert not got["ह"] and got["a"]


def test_with_merging_any_installed_font_counts(qtbot):
    """The application's font, merging on: a character is drawable exactly when some
    installed font covers it (fontconfig's answer)."""
    g = Glyphs()
    for c in "aяह्กข你ب":
        fonts = subprocess.run(["fc-list", f":charset={ord(c):x}", "family"],
                               capture_output=True, text=True).stdout.strip()
        assert g.drawable(c) == bool(fonts), (c, fonts)


def test_names_and_escapes_in_one_helper(lone_font):
    font, cps = lone_font
    g = Glyphs(font)
    assert g.shown("नमस्ते ok") == escaped("नमस्ते ok", cps)
    note = g.names_note("हि")
    for c in "हि":
        assert f"U+{ord(c):04X} {unicodedata.name(c)}" in note


def test_three_views_show_escapes_and_the_status_bar_says_which_package(
        qtbot, lone_font, make_window):
    font, cps = lone_font
    g = Glyphs(font)
    said: list[str] = []
    g.missing.connect(lambda script, _: said.append(script))
    use_glyphs(g)
    window = make_window()
    messages: list[str] = []
    window.statusBar().messageChanged.connect(messages.append)
    c = window.controller
    assert c.set_settings(TrainSettings(num_merges=150))   # byte level, GPT-2's pattern
    c.set_corpus_text(TEXT)
    qtbot.waitUntil(lambda: not c.busy, timeout=30_000)
    assert c.training.train()   # to the end: every pair this text has
    qtbot.waitUntil(lambda: not c.busy and c.view() is not None and c.view().is_done,
                    timeout=30_000)
    n = c.step_index
    assert n > 20, (c.settings, c.done_reason())
    assert c.goto(n - 10)   # the pair table has candidates again
    qtbot.waitUntil(lambda: not c.busy and c.step_index == n - 10, timeout=30_000)
    d = window.dock_layout

    # the encode view: every chip's text
    ev = d.encode_view
    ev.set_text(TEXT)
    ev.encode_now()
    tokens = list(ev.encoding.tokens)
    assert any("\\u09" in t for t in ev.token_texts())   # Devanagari escaped
    assert ev.token_texts() == [escaped(readable(t), cps) for t in tokens]
    hindi = next(i for i, t in enumerate(tokens) if "न".encode() in t)
    assert unicodedata.name("न") in ev.token_tip(hindi)

    # the merge panel: the timeline's merges, the pair table's chips and merged tokens
    panel = d.merge_panel
    panel._refresh()
    tl = panel.timeline
    for k in range(1, n + 1):
        rec = tl.record(k)
        chips = tl.data(tl.index(k, tl.MERGE), TOKENS_ROLE)
        assert [t for t, *_ in chips] == [escaped(readable(rec.left), cps),
                                          escaped(readable(rec.right), cps)]
    pm = panel.pair_model
    vocab = pm.snapshot.vocab
    assert pm.rowCount() > 0
    for r in range(pm.rowCount()):
        row = pm.rows[r]
        assert pm.cell(r, pm.MERGED).content == escaped(readable(vocab[row.a] + vocab[row.b]),
                                                         cps)

    # the vocabulary: the Token column and its tooltip
    d.vocab_dock.show()
    d.vocab_dock.raise_()
    d.vocab_browser._refresh()
    m = d.vocab_browser.model
    thai = 0
    for row in range(m.rowCount()):
        e = m.entries[m.entry_index(row)]
        shown = m.data(m.index(row, VocabModel.TOKEN))
        assert shown == escaped(readable(e.token), cps)
        if "ส".encode() in e.token:
            thai += 1
            tip = m.data(m.index(row, VocabModel.TOKEN), 3)   # ToolTipRole
            assert unicodedata.name("ส") in tip
    assert thai > 0

    # said once per script, with the package; named in the bar for as long as it is open
    assert {"Devanagari", "Thai"} <= set(said) and len(said) == len(set(said)), said
    note = window.status.font_note
    assert note.isVisible() and "Devanagari" in note.text() and "Thai" in note.text()
    assert "fonts-noto-core" in note.toolTip()
    # (a step clears the bar's message: the messages as they came)
    assert any("Devanagari, Thai (Debian/Ubuntu package fonts-noto-core)" in m
               for m in messages), messages
