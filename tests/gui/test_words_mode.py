"""Pre-tokenization view (issue 15): the words mode of the encode view and corpus editor,
and the settings panel's Words preview.

The oracle for which rule took each word is the engine's explanation, itself checked
against each alternative matched alone with `regex` (tests/engine/test_explain.py).
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QHelpEvent, QTextCursor
from PySide6.QtWidgets import QApplication, QToolTip

from bpe_gui.engine.text.branches import pattern_branches
from bpe_gui.engine.text.pretokenize import PRESETS
from bpe_gui.engine.train.trainer import TrainSettings
from bpe_gui.gui.panels.corpus.corpus_editor import CorpusEditor
from bpe_gui.gui.panels.encode.encode_view import EncodeView
from panel_helpers import make_controller

CORPUS = ("low lower newest widest 你好世界 it's THE CamelCase 12345!\n" * 20)
TEXT = "It's  HTTPServer's 1234567 words, 你好!\n\n  world's end<|endoftext|>x"


pytestmark = pytest.mark.controller(CORPUS, special_tokens=("<|endoftext|>",))


@pytest.fixture
def view(qtbot, controller):
    v = EncodeView(controller)
    qtbot.addWidget(v)
    v.resize(900, 600)
    v.show()
    qtbot.waitExposed(v)
    v.set_text(TEXT)
    return v


def backgrounds(edit) -> list:
    """The background colour (name, or None) of each document position, as laid out."""
    doc = edit.document()
    out = [None] * max(0, doc.characterCount() - 1)
    block = doc.begin()
    while block.isValid():
        for r in block.layout().formats():
            bg = r.format.background()
            name = bg.color().name() if bg.style() != Qt.NoBrush else None
            start = block.position() + r.start
            out[start:start + r.length] = [name] * r.length
        block = block.next()
    return out


def wait_coloured(qtbot, words) -> None:
    qtbot.waitUntil(lambda: words.found.text is not None and all(
        b.blockNumber() in words.found.fresh for b in words._visible_blocks()))


def check_branch_colours(words, text: str, tok) -> None:
    """Every character of a word has its rule's colour; touching words of one rule
    differ in shade; special tokens have their own colour."""
    bgs = backgrounds(words.edit)
    ex = tok.explain(text)
    assert "\U0001F600" not in text   # positions = code points below
    prev = None
    for w in ex.words:
        colours = {bgs[i] for i in range(w.start, w.end) if text[i] != "\n"}
        if not colours:
            continue
        assert len(colours) == 1, (w.text, colours)
        colour = colours.pop()
        if w.special:
            assert colour == words._special.name()
        else:
            assert colour in (words.colors.of(w.branch, 0).name(),
                              words.colors.of(w.branch, 1).name()), (w.text, colour)
            if prev is not None and prev.end == w.start and prev.branch == w.branch \
                    and text[w.start - 1] != "\n":
                assert bgs[w.start - 1] != colour, (prev.text, w.text)
        prev = w


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_words_mode_colours_each_word_by_its_rule(qtbot, controller, view, preset):
    controller.set_settings(TrainSettings(vocab_size=1000, pattern=preset,
                                          special_tokens=("<|endoftext|>",)))
    controller.training.retrain()
    qtbot.mouseClick(view.words.toggle, Qt.LeftButton)
    assert view.words.enabled and view.words.legend.isVisible()
    wait_coloured(qtbot, view.words)
    check_branch_colours(view.words, TEXT, view.tok)
    names = [b.name for b in pattern_branches(preset)]
    assert view.words.legend.chip_texts() == [f"{k + 1} {n}" for k, n in enumerate(names)]
    qtbot.mouseClick(view.words.toggle, Qt.LeftButton)       # back to tokens
    assert not view.words.enabled and not view.words.legend.isVisible()
    qtbot.waitUntil(lambda: all(k >= 0 for ch, k in enumerate(view.format_kinds())
                                if TEXT[ch] != "\n"))


def test_legend_explains_a_custom_patterns_rules(qtbot, controller, view):
    pattern = r"(?:a(?:b|c)|d)+|[|x]+|\p{L}+|\s+|."
    controller.set_settings(TrainSettings(vocab_size=1000, pattern=pattern))
    controller.training.retrain()
    view.words.set_enabled(True)
    legend = view.words.legend
    assert legend.chip_texts()[0].startswith("1 ") and len(legend.chip_texts()) == 5
    assert legend.title.text().startswith("Custom pattern: 5 rules")
    qtbot.mouseClick(legend.explain, Qt.LeftButton)
    assert legend.details.isVisible()
    for b in pattern_branches(pattern):
        assert b.name in legend.details.text()
    wait_coloured(qtbot, view.words)
    check_branch_colours(view.words, TEXT, view.tok)


def test_hover_says_which_rule_took_the_word_and_why_it_ended(qtbot, view):
    words = view.words
    words.set_enabled(True)
    wait_coloured(qtbot, words)
    ch = TEXT.index("world")
    pos = view.links.char_rect(ch + 1).center()
    tip = words.tooltip_at(pos)
    assert "rule 2 · letters" in tip and "apostrophe" in tip and "contraction" in tip
    vp = view.edit.viewport()
    event = QHelpEvent(QEvent.ToolTip, pos, vp.mapToGlobal(pos))
    assert words.eventFilter(vp, event)
    qtbot.waitUntil(lambda: "apostrophe" in QToolTip.text())
    assert words.tooltip_at(QPoint(vp.width() - 3, vp.height() - 3)) == ""   # no word there
    ch = TEXT.index("1234567")
    assert "three digits" not in words.tooltip_at(view.links.char_rect(ch).center())  # gpt2: all digits


def test_typing_recolours_the_words_of_the_new_text(qtbot, view):
    view.words.set_enabled(True)
    wait_coloured(qtbot, view.words)
    view.edit.moveCursor(QTextCursor.End)
    qtbot.keyClicks(view.edit, " and more's 42")
    text = view.text()
    wait_coloured(qtbot, view.words)
    check_branch_colours(view.words, text, view.tok)


def test_corpus_editor_words_mode_follows_the_training_pattern(qtbot, controller):
    editor = CorpusEditor(controller)
    qtbot.addWidget(editor)
    # every line in view (the check reads them all; only lines in view are coloured
    # again, and the legend's wrapped lines take their height above the text)
    editor.resize(500, 760)
    editor.show()
    qtbot.waitExposed(editor)
    editor.words.set_enabled(True)
    wait_coloured(qtbot, editor.words)
    assert {b.blockNumber() for b in editor.words._visible_blocks()} >= \
        set(range(CORPUS.count("\n")))
    tok = controller.tokenizer()
    check_branch_colours(editor.words, CORPUS, tok)
    controller.set_settings(TrainSettings(vocab_size=1000, pattern="cjk"))
    assert editor.words.legend.chip_texts()[1] == "2 one Han character"
    controller.training.retrain()
    # (the retrain is a job: until it lands, tokenizer() is the old pattern's)
    qtbot.waitUntil(lambda: not controller.busy and not controller.stale
                    and not controller.retrain_pending, timeout=20_000)
    wait_coloured(qtbot, editor.words)
    check_branch_colours(editor.words, CORPUS, controller.tokenizer())


@pytest.mark.slow
def test_a_big_corpus_is_coloured_where_it_is_shown(qtbot):
    text = "".join(f"line {i}: it's   {i * 7919} words, 你好!\n" for i in range(12_000))
    c = make_controller(text[:5000])
    editor = CorpusEditor(c)
    qtbot.addWidget(editor)
    editor.resize(500, 400)
    editor.show()
    c.set_corpus_text(text)
    qtbot.waitUntil(lambda: editor.edit.document().characterCount() == len(text) + 1,
                    timeout=30_000)
    words = editor.words
    words.set_enabled(True)
    wait_coloured(qtbot, words)
    assert words.found.hi - words.found.lo < len(text) // 4        # only around what is shown
    bar = editor.edit.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    wait_coloured(qtbot, words)
    assert words.found.lo > len(text) // 4
    shown = [(b.position(), b.position() + b.length() - 1) for b in words._visible_blocks()]
    bgs = backgrounds(editor.edit)
    checked = 0
    for w in c.tokenizer().explain(text).words:
        if any(a <= w.start and w.end <= z for a, z in shown):
            assert bgs[w.start] in (words.colors.of(w.branch, 0).name(),
                                    words.colors.of(w.branch, 1).name()), w
            checked += 1
    assert checked > 20
    c.shutdown()


def test_colouring_the_corpus_is_not_an_edit(qtbot, controller):
    editor = CorpusEditor(controller)
    qtbot.addWidget(editor)
    editor.resize(400, 200)
    editor.show()
    qtbot.waitExposed(editor)
    controller.mark_corpus_saved()
    spy = []
    editor.edit.textChanged.connect(lambda: spy.append(1))
    qtbot.mouseClick(editor.words.toggle, Qt.LeftButton)
    wait_coloured(qtbot, editor.words)
    editor.edit.verticalScrollBar().setValue(editor.edit.verticalScrollBar().maximum())
    wait_coloured(qtbot, editor.words)
    qtbot.mouseClick(editor.words.toggle, Qt.LeftButton)
    QApplication.processEvents()     # zero-time timers (a pending re-colouring) run
    assert spy == [] and not editor._edited and not controller.corpus_dirty
    assert editor.unsaved_label.text() == ""


@pytest.mark.regression
def test_the_settings_words_preview_keeps_an_applied_special_token_whole(window, qtbot, ready):
    """The settings' Words: preview split <|endoftext|> after it was applied as a special
    token (issue 10)."""
    c = window.controller
    window.dock_layout.editor.edit.setPlainText("hello world<|endoftext|>next doc")
    window.dock_layout.editor.flush()
    panel = window.dock_layout.settings_panel
    panel.specials_edit.setPlainText("<|endoftext|>")
    assert panel.apply()
    ready(c)
    panel.check()
    text = panel.preview_label.text()
    assert "[<|endoftext|>]" in text and "[<|]" not in text
