"""What a new user met walking the window through its modes under Xvfb (issue 71's
walk), each a regression test: a parity run's corpus dock scrolled sideways, the charts
called the languages' files "the corpus", the overlap's numbers broke inside a value.

Geometry is measured offscreen in the default layout of each screen size; what the
charts count is recounted here from the languages' files.
"""
from __future__ import annotations

import unicodedata
from dataclasses import replace

import pytest
from PySide6.QtWidgets import QAbstractButton

from screens import SIZES, open_at
import test_chart_modes
from test_chart_modes import parity_controller, parity_recount, train
from test_parity_glance import quiet, raise_dock, train_parity
from test_small_screens import in_sight

from bpe_gui.engine.display import readable
from bpe_gui.engine.train import TrainSettings
from bpe_gui.gui.controller.controller import Controller
from bpe_gui.gui.models.glyphs import Glyphs, use_glyphs
from bpe_gui.gui.panels.chat.chat_view import ChatView

charts = test_chart_modes.charts   # the fixture: a charts view of a controller


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_parity_run_keeps_the_corpus_dock_from_scrolling_sideways(
        make_window, qtbot, monkeypatch, size):
    """With parity on, the counts line said "pre-tokens: not counted (parity training
    reads its languages)" as one unbreakable run wider than the dock: the whole dock
    scrolled sideways, cutting the Clear button and the text at every size."""
    win = open_at(make_window, qtbot, monkeypatch, size)
    c = win.controller   # a corpus too long to count at once (a tiny one is counted)
    c.set_corpus_text("the corpus the user typed " * 1_000, dirty=False)
    quiet(qtbot, win)
    train_parity(qtbot, win, merges=20)
    dl = win.dock_layout
    raise_dock(qtbot, win, dl.corpus_dock)
    ed = dl.editor
    assert "parity" in ed.stats_label.text() and "parity" in ed.source_label.text()
    area = dl.corpus_dock.widget()
    qtbot.waitUntil(lambda: area.horizontalScrollBar().maximum() == 0, timeout=3000)
    for w in [ed.stats_label, ed.source_label,
              *(b for b in ed.findChildren(QAbstractButton) if b.isVisible())]:
        assert in_sight(win, w), (size, w.objectName() or getattr(w, "text", str)())
    for label in (ed.stats_label, ed.source_label):   # every wrapped line drawn
        assert label.height() >= label.heightForWidth(label.width()), size


def test_parity_charts_name_the_languages_files_not_the_corpus(charts):
    """A parity run's charts count its languages' training files; the status line said
    "2.412 bytes/token … on the corpus" and the Zipf chart "on the corpus" beside a
    corpus the run never read. The figure is recounted from the files here."""
    c = parity_controller(20)
    c.set_corpus_text("a corpus in the window that parity does not read " * 40, dirty=False)
    v = charts(c)
    train(c)
    v.refresh()
    want = parity_recount(c)
    status = v.status.text()
    assert f"{want['bpt'][-1]:.3f} bytes/token" in status, status
    assert "on the languages' training files (en, de, ru, zh)" in status, status
    assert "corpus" not in status
    assert v.zipf.title == "Token frequency on the training files (Zipf)"
    # the compression chart's title says what it counts (it said "Compression" alone)
    assert v.compression.title == "Compression on the training files"
    assert "corpus" not in v.renyi.toolTip()
    # parity off: a plain run of the corpus is "the corpus" again
    c.set_parity(replace(c.parity, enabled=False))
    train(c)
    v.refresh()
    assert "on the corpus;" in v.status.text() and "corpus" in v.zipf.title
    assert v.compression.title == "Compression on the corpus"


CHAT_TEMPLATE = ("{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}"
                 "{% if add_generation_prompt %}[assistant] {% endif %}")


def han_escaped(text: str) -> str:
    """What a view should show where no font draws Han: each Han character as its
    Python escape."""
    return "".join(c.encode("unicode_escape").decode("ascii")
                   if unicodedata.name(c, "").startswith("CJK UNIFIED") else c for c in text)


def test_chat_chips_escape_characters_no_font_draws(qtbot, tmp_path):
    """The Chat view drew its chips with the plain readable text: 東京 in a message
    showed as two empty boxes on a machine without a CJK font, where every other view
    shows \\u6771\\u4eac and names the characters in the tooltip."""
    use_glyphs(Glyphs(has_glyph=lambda ch: not unicodedata.name(ch, "").startswith("CJK")))
    c = Controller()
    try:
        c.set_settings(TrainSettings(num_merges=30))
        c.set_corpus_text("东京 東京 weather in 東京 " * 20, dirty=False)
        assert c.training.train()
        qtbot.waitUntil(lambda: not c.busy and c.view() is not None, timeout=20_000)
        template = tmp_path / "chat.jinja"
        template.write_text(CHAT_TEMPLATE, encoding="utf-8")
        v = ChatView(c)
        qtbot.addWidget(v)
        v.set_template_file(str(template))
        qtbot.waitUntil(lambda: not v.rendering, timeout=10_000)
        enc = v.result
        assert enc is not None and "東京" in enc.text
        pieces = [t.piece for t in enc.tokens]
        shown = [v.flow.text_of(p) for p in pieces]
        assert shown == [han_escaped(readable(p)) for p in pieces]
        assert any("\\u6771" in s for s in shown)   # 東
        tokyo = next(i for i, p in enumerate(pieces) if "東".encode() in p)
        assert unicodedata.name("東") in v.main._tip(tokyo)
    finally:
        use_glyphs(None)
        c.shutdown()


@pytest.mark.regression
@pytest.mark.controller("low lower newest widest " * 30, vocab_size=280, step=20)
def test_overlap_values_never_break_inside(controller, qtbot):
    """Compare's Vocabulary overlap in Focus at 1024x700 (numbers about 270 pixels wide)
    showed "128 of 256 (50.0" with "%)" on the next line: a value wraps whole, only
    the row names break."""
    import re

    from bpe_gui.gui.panels.compare.compare_overlap import OverlapPanel
    panel = OverlapPanel(controller)
    qtbot.addWidget(panel)
    panel.resize(600, 300)
    panel.show()
    a = controller.view().tokenizer()
    b = controller.view().tokenizer(at_step=5)
    panel.want(a, b, ("a", "b"), ("A", "B"))
    qtbot.waitUntil(lambda: panel.overlap is not None, timeout=10_000)
    values = re.findall(r"<b>(.*?)</b>", panel.numbers.text())
    assert any("of" in v and "%" in v for v in values), values
    assert all(" " not in v for v in values), values   # spaces that may not break


@pytest.mark.regression
def test_train_on_after_clear_never_shows_the_old_corpus_as_trained(qtbot, tmp_path):
    """Found by the state machine: training on, Corpus > Clear, Step back twice. The
    first back tried to train on the empty corpus and failed, yet noted the empty
    corpus as the one the trainer's words came from; the second back built a trainer
    on the old corpus's words and called it up to date: "8 pre-tokens (5 unique)" for
    an empty corpus, no sign of staleness."""
    from bpe_gui.engine.formats import export_formats
    from bpe_gui.engine.text import Pretokenizer
    from bpe_gui.engine.train import Trainer
    src = Trainer.from_source("merry minstrels sing songs of old kings " * 30,
                              TrainSettings(num_merges=30))
    src.goto(30, detail=False)
    export_formats(src.tokenizer(), tmp_path / "tok", ["gpt2"])
    c = Controller()
    try:
        text = "low low lower newest newest widest widest widest"
        c.set_settings(TrainSettings(num_merges=20))
        c.set_corpus_text(text, dirty=False)
        c.tokenizer_files.import_tokenizer(str(tmp_path / "tok" / "vocab.json"))
        c.train_on.start(num_merges=8)
        qtbot.waitUntil(lambda: not c.busy and c.trainer is not None, timeout=20_000)
        words = Pretokenizer(c.settings.pattern).words(text)
        assert c.queries.corpus_pretokens() == (len(words), len(set(words)))
        c.set_corpus_text("", dirty=False)   # what Clear does once answered
        for _ in range(2):
            c.undo()
            qtbot.waitUntil(lambda: not c.busy, timeout=20_000)
            assert c.stale or c.trainer is None, "a training of the old corpus as current"
            assert c.queries.corpus_pretokens() in (None, (0, 0))
    finally:
        c.shutdown()
