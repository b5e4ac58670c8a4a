"""Merge playback of one word (issue 15): click a word, step through its merges.

The oracle for the steps is a slow reference written here: at each step the lowest-
rank pair present, found from the tokenizer's merge list, merged left to right.
"""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from bpe_gui.engine.display import gpt2_text, readable
from bpe_gui.gui.panels.encode.encode_view import EncodeView
from bpe_gui.gui.widgets.word_branches import ClickedWord
from bpe_gui.gui.panels.playback.word_playback import WordPlayback

CORPUS = ("low lower newest widest lowest slowest 你好世界 it's\n" * 30)
TEXT = "the slowest newest 你好 it's<|endoftext|>!"


def reference_steps(tok, word: str) -> list[list[bytes]]:
    """Symbols after each step: the lowest-rank pair from tok.merges, left to right."""
    rank = {}
    for r, m in enumerate(tok.merges[:tok.n_merges]):
        rank.setdefault(m, r)
    symbols = [bytes([b]) for b in word.encode("utf-8")]
    out = [symbols]
    while True:
        found = [(rank[p], p) for p in zip(symbols, symbols[1:]) if p in rank]
        if not found:
            return out
        pair = min(found)[1]
        new, i = [], 0
        while i < len(symbols):
            if tuple(symbols[i:i + 2]) == pair:
                new.append(pair[0] + pair[1])
                i += 2
            else:
                new.append(symbols[i])
                i += 1
        symbols = new
        out.append(symbols)


pytestmark = pytest.mark.controller(CORPUS, step=40, special_tokens=("<|endoftext|>",))


@pytest.fixture
def pair(qtbot, controller):
    """An encode view whose clicks go to a playback panel, as in the main window."""
    view, panel = EncodeView(controller), WordPlayback(controller)
    for w in (view, panel):
        qtbot.addWidget(w)
        w.resize(800, 500)
        w.show()
        qtbot.waitExposed(w)
    view.words.wordClicked.connect(panel.show_word)
    view.words.wordRecut.connect(panel.show_word)
    view.set_text(TEXT)
    return view, panel


def click_char(qtbot, view, ch: int) -> None:
    qtbot.mouseClick(view.edit.viewport(), Qt.LeftButton, pos=view.links.char_rect(ch).center())


@pytest.mark.parametrize("words_mode", [False, True])
def test_click_a_word_plays_back_its_merges(qtbot, pair, controller, words_mode):
    view, panel = pair
    view.words.set_enabled(words_mode)
    click_char(qtbot, view, TEXT.index("slowest") + 2)
    assert panel.word.text == " slowest" and panel.word.label == "rule 2 · letters"
    steps = reference_steps(controller.tokenizer(), " slowest")
    assert len(steps) > 2
    assert panel.slider.maximum() == len(steps) - 1 == panel.current_step()
    assert panel.shown_symbols() == steps[-1]
    assert [tok for tok in controller.tokenizer().encode_with_offsets(" slowest", allowed_special="all").tokens] \
        == steps[-1]
    assert panel.model.rowCount() == len(steps)
    after = panel.model.AFTER
    for k, symbols in enumerate(steps):
        assert panel.model.index(k, after).data() == " ".join(readable(t) for t in symbols)
        ranks = [panel.model.index(r, panel.model.RANK).data() for r in range(1, len(steps))]
    assert ranks == [f"#{s.rank + 1:,}" for s in panel.playback.steps]


def test_slider_buttons_and_keys_step_through_the_merges(qtbot, pair, controller):
    view, panel = pair
    click_char(qtbot, view, TEXT.index("newest"))
    steps = reference_steps(controller.tokenizer(), " newest")
    n = len(steps) - 1
    panel.setFocus()
    qtbot.keyClick(panel, Qt.Key_Home)
    assert panel.current_step() == 0 and panel.shown_symbols() == steps[0]
    for k in range(1, n + 1):
        qtbot.keyClick(panel, Qt.Key_Right)
        assert panel.current_step() == k and panel.shown_symbols() == steps[k]
        new = panel.playback.steps[k - 1].new_positions()
        assert panel.flow.highlight == frozenset(new)
        assert panel.table.currentIndex().row() == k
    qtbot.keyClick(panel, Qt.Key_Right)              # past the end: stays
    assert panel.current_step() == n
    qtbot.keyClick(panel, Qt.Key_Left)
    assert panel.shown_symbols() == steps[n - 1]
    qtbot.mouseClick(panel.first_button, Qt.LeftButton)
    assert panel.shown_symbols() == steps[0]
    qtbot.mouseClick(panel.step_button, Qt.LeftButton)
    assert panel.shown_symbols() == steps[1]
    panel.slider.setValue(n)
    assert panel.shown_symbols() == steps[n] and "no learned merge applies" in \
        panel.step_label.text()
    panel.table.selectRow(1)
    assert panel.current_step() == 1
    qtbot.mouseClick(panel.last_button, Qt.LeftButton)
    assert panel.current_step() == n
    qtbot.keyClick(panel.slider, Qt.Key_Home)
    assert panel.shown_symbols() == steps[0]


def test_playback_follows_the_training_step(qtbot, pair, controller):
    view, panel = pair
    click_char(qtbot, view, TEXT.index("slowest"))
    for k in (0, 1, 3, 6, 2):
        controller.goto(k)
        tok = controller.tokenizer()
        assert tok.n_merges == k
        steps = reference_steps(tok, " slowest")
        assert panel.slider.maximum() == len(steps) - 1
        assert panel.shown_symbols() == steps[-1]
        assert f"step {k:,}" in panel.title.text()


def test_partial_characters_and_special_tokens(qtbot, pair, controller):
    view, panel = pair
    controller.goto(0)
    click_char(qtbot, view, TEXT.index("你"))
    assert panel.word.text == " 你好"
    texts = panel.flow.text_of
    assert any(texts(t).startswith("<E") for t in panel.shown_symbols())
    click_char(qtbot, view, TEXT.index("<|endoftext|>") + 3)
    assert panel.word.branch == -1 and "special token" in panel.title.text()
    assert panel.model.rowCount() == 0 and not panel.slider.isEnabled()


def test_imported_gpt2_files_play_back_unbelievable(qtbot, tmp_path, pair, controller):
    chain = [(b"l", b"e"), (b" ", b"u"), (b"a", b"b"), (b"e", b"l"), (b"i", b"e"),
             (b"ab", b"le"), (b" u", b"n"), (b"b", b"el"), (b"ie", b"v"), (b" un", b"bel"),
             (b" unbel", b"iev"), (b" unbeliev", b"able")]
    alphabet = [gpt2_text(bytes([b])) for b in range(256)]
    vocab = {c: i for i, c in enumerate(sorted(alphabet, key=ord))}
    for a, b in chain:
        vocab[gpt2_text(a + b)] = len(vocab)
    (tmp_path / "vocab.json").write_text(json.dumps(vocab), "utf-8")
    (tmp_path / "merges.txt").write_text("#version: 0.2\n" + "".join(
        f"{gpt2_text(a)} {gpt2_text(b)}\n" for a, b in chain), "utf-8")
    assert controller.tokenizer_files.import_tokenizer(str(tmp_path / "vocab.json")) is not None
    controller.tokenizer_files.set_use_imported(True)
    view, panel = pair
    view.set_text("It is unbelievable.")
    click_char(qtbot, view, 9)
    assert panel.word.text == " unbelievable"
    assert [s.pair for s in panel.playback.steps] == chain
    assert panel.shown_symbols() == [b" unbelievable"]
    assert "imported tokenizer vocab.json" in panel.title.text()
    qtbot.keyClick(panel, Qt.Key_Home)
    assert panel.shown_symbols() == [bytes([b]) for b in b" unbelievable"]


@pytest.mark.regression
def test_a_new_tokenizer_plays_back_the_word_as_it_cuts_it(qtbot, tmp_path, pair, controller):
    """Switching to a tokenizer whose pattern cuts the clicked word otherwise plays back
    the word the view now shows, not the old word's text under the new tokenizer (seen:
    ' world' from the trained tokenizer stayed 'world' after importing Qwen2's GGUF)."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import Regex, models, pre_tokenizers, trainers
    hf = tokenizers.Tokenizer(models.BPE(unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.Split(     # words without their space
        Regex(r"\p{L}+|\p{N}+|[^\s\p{L}\p{N}]+|\s+"), "isolated")
    hf.train_from_iterator([CORPUS], trainers.BpeTrainer(
        vocab_size=120, special_tokens=["[UNK]"], show_progress=False))
    hf.save(str(tmp_path / "tokenizer.json"))
    view, panel = pair
    click_char(qtbot, view, TEXT.index("slowest") + 2)
    assert panel.word.text == " slowest"
    assert controller.tokenizer_files.import_tokenizer(str(tmp_path / "tokenizer.json")) \
        is not None
    controller.tokenizer_files.set_use_imported(True)
    qtbot.waitUntil(lambda: panel.word.text == "slowest")
    tok = controller.tokenizer()
    assert panel.shown_symbols() == [tok.vocab[i] for i in hf.encode("slowest").ids]
    assert "imported tokenizer tokenizer.json" in panel.title.text()


def test_main_window_click_brings_up_the_playback_dock(qtbot, window):
    view = window.dock_layout.encode_view
    window.dock_layout.playback_dock.close()
    view.set_text("lowest newest")
    qtbot.waitUntil(lambda: view.tok is not None)
    click_char(qtbot, view, 8)
    assert window.dock_layout.playback_dock.isVisible()
    assert window.dock_layout.playback_view.word == view.words.found.word_at(8)
    assert window.dock_layout.playback_view.word.text == "newest"   # (the tutorial splits on whitespace)
    assert not window.dock_layout.playback_dock.visibleRegion().isEmpty()
    assert not view.visibleRegion().isEmpty()     # the text stays in view
    assert isinstance(window.dock_layout.playback_view.word, ClickedWord)


@pytest.mark.regression
def test_the_clicked_word_is_let_go_when_the_text_changes_at_it(qtbot, window):
    """Replacing the encode view's text left the playback dock describing the word
    clicked in the old text; a change after the word leaves it be."""
    from PySide6.QtGui import QTextCursor
    view, panel = window.dock_layout.encode_view, window.dock_layout.playback_view
    view.set_text("lowest newest")
    qtbot.waitUntil(lambda: view.tok is not None)
    click_char(qtbot, view, 3)
    assert panel.word is not None and panel.word.text == "lowest"
    cursor = view.edit.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    cursor.insertText(" and more")                 # after the word: it is still there
    assert panel.word is not None and panel.flow.tokens
    view.set_text("something else entirely")       # the text replaced
    qtbot.waitUntil(lambda: panel.word is None)
    assert not panel.flow.tokens and panel.playback is None
    assert "lowest" in panel.title.text() and "changed" in panel.title.text()
    assert "Click a word" in panel.title.text()
    click_char(qtbot, view, 3)                     # a word of the new text plays back
    assert panel.word is not None and panel.word.text == "something"


@pytest.mark.regression
def test_playback_numbers_a_merge_as_the_timeline_and_the_vocabulary_do(
        qtbot, pair, controller):
    """Word playback said "rank 105: u + r -> ur" for the merge the timeline and the
    vocabulary browser call step 106 (issue 30 item 4)."""
    from bpe_gui.gui.models.vocab_model import VocabModel
    view, panel = pair
    click_char(qtbot, view, TEXT.index("slowest") + 2)
    t = controller.view()
    vocab = VocabModel()
    vocab.reset_trained(t)
    step_of = {vocab.index(r, vocab.ID).data(): vocab.index(r, vocab.STEP).data()
               for r in range(vocab.rowCount())}
    for row, st in enumerate(panel.playback.steps, 1):
        rec = next(r for r in t.steps if r.new_id == st.token_id)   # the timeline's record
        assert panel.model.index(row, panel.model.RANK).data() == f"#{rec.index:,}"
        assert step_of[str(st.token_id)] == str(rec.index)
        panel.set_step(row)
        said = panel.step_label.text()
        assert f"merge #{rec.index:,}" in said and f"learned at step {rec.index:,}" in said
        assert "rank" not in said


@pytest.mark.regression
def test_a_word_too_long_to_play_back_says_so(qtbot, tmp_path, pair, controller):
    """A pre-tokenizer that keeps the whole text as one piece (Metaspace without split,
    as Llama 2-style tokenizer.json files have it) makes a long paste one word; playing it
    back ran on the window's thread for minutes (seen: 100 KB pasted into the encode view
    with Mistral's SentencePiece-style file, one click, the window frozen). A word longer
    than PLAYBACK_MAX gets a message instead, and a short one still plays back."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers
    from bpe_gui.gui.panels.playback.word_playback import PLAYBACK_MAX
    hf = tokenizers.Tokenizer(models.BPE(unk_token="<unk>"))
    hf.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first",
                                                split=False)
    hf.train_from_iterator([CORPUS], trainers.BpeTrainer(
        vocab_size=150, special_tokens=["<unk>"], show_progress=False))
    hf.save(str(tmp_path / "tokenizer.json"))
    assert controller.tokenizer_files.import_tokenizer(str(tmp_path / "tokenizer.json")) \
        is not None
    controller.tokenizer_files.set_use_imported(True)
    view, panel = pair
    long_text = ("lowest newest widest " * (PLAYBACK_MAX // 10))[:3 * PLAYBACK_MAX]
    view.set_text(long_text)
    click_char(qtbot, view, 5)
    assert len(panel.word.text) > PLAYBACK_MAX   # (the whole text: one piece)
    assert panel.playback is None and not panel.slider.isEnabled()
    assert f"{len(panel.word.text):,} characters" in panel.title.text()
    assert list(panel.flow.ids) == hf.encode(long_text).ids   # its tokens, not played back
    view.set_text("lowest newest")
    click_char(qtbot, view, 3)
    assert panel.playback is not None and panel.playback.steps
    assert panel.shown_symbols() == [controller.tokenizer().vocab[i]
                                     for i in hf.encode("lowest newest").ids]


@pytest.mark.regression
def test_a_word_too_long_to_play_back_shows_its_ids(qtbot, pair, controller):
    """A word over PLAYBACK_MAX characters showed only the note, not its ids and tokens
    (explain() gives them for such a word; the dock showed no chip)."""
    from bpe_gui.gui.panels.playback.word_playback import PLAYBACK_MAX
    view, panel = pair
    word = "lowest" * (PLAYBACK_MAX // 3)    # one word of the pattern, 2,000 letters
    view.set_text(f"a {word} b")
    click_char(qtbot, view, 10)
    assert panel.word is not None and panel.word.text == " " + word
    tok = controller.tokenizer()
    ids = tok.encode(panel.word.text, allowed_special="all")      # the word alone is one word of the pattern
    assert panel.playback is None and not panel.slider.isEnabled()
    assert list(panel.flow.ids) == ids and len(ids) > 1
    assert panel.shown_symbols() == [tok.vocab[i] for i in ids]
    assert f"{len(panel.word.text):,} characters" in panel.title.text()
    assert f"{len(ids):,} tokens" in panel.title.text()
    assert "playback" in panel.title.text()


def test_a_word_at_a_pages_end_ends_with_the_page_not_the_text(qtbot, pair, controller):
    """A long text is shown a page at a time and each page is cut on its own: the last
    word of a page that is not the last was said to end "where the text ends"."""
    from bpe_gui.gui.panels.encode.pages import PAGE_CHARS
    from PySide6.QtGui import QTextCursor
    view, panel = pair
    view.set_text("lowest newest widest " * (2 * PAGE_CHARS // 21 + 500))
    pages = view.paging.pages
    assert pages.active and pages.count == 3 and pages.index == 0
    page = view.edit.toPlainText()
    view.edit.moveCursor(QTextCursor.MoveOperation.End)   # a click on the page's last word
    view.edit.ensureCursorVisible()
    click_char(qtbot, view, len(page) - 1)
    word = panel.word
    assert word is not None and word.end == len(page) and panel.reason.text() == word.reason
    assert "this page ends" in word.reason and "page 2" in word.reason
    assert "where the text ends" not in word.reason
    view.paging.show_page(1)                              # page 2 goes on to page 3
    page = view.edit.toPlainText()
    assert "page 3" in view.words.found.word_at(len(page) - 1).reason
    view.paging.show_page(2)                              # the last page ends the text
    page = view.edit.toPlainText()
    assert view.words.found.word_at(len(page) - 1).reason == "It ends where the text ends."


@pytest.mark.regression
@pytest.mark.parametrize("trained", [True, False])
def test_a_long_word_is_quoted_short_so_the_dock_keeps_its_width(qtbot, pair, controller,
                                                                  trained):
    """The title quoted 60 characters of the clicked word in bold: a word of letters has
    no place to wrap, so with no tokenizer ("no tokenizer yet") or in a playback the
    label grew past a narrow dock and its end was cut off. It quotes QUOTE now, as the
    note of a word too long to play back did."""
    from bpe_gui.engine.tokenizers import show
    from bpe_gui.gui.panels.playback.word_playback import QUOTE
    view, panel = pair
    if not trained:
        controller.tokenizer = lambda: None
    widths = {}
    for n in (QUOTE, 3 * QUOTE):
        word = ("lowest" * n)[:n]
        view.set_text(f"a {word} b")
        click_char(qtbot, view, 4)
        assert panel.word is not None and panel.word.text == " " + word
        assert ("no tokenizer yet" in panel.title.text()) == (not trained)
        quoted = show(panel.word.text, QUOTE)
        assert f"“{quoted}”" in panel.title.text() and len(quoted) <= QUOTE
        assert (word[:QUOTE] in panel.title.text()) == (n < QUOTE)
        widths[n] = panel.title.minimumSizeHint().width()
    assert widths[3 * QUOTE] <= widths[QUOTE] + panel.fontMetrics().horizontalAdvance("…") + 2
