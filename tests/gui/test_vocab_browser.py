"""Vocabulary browser, driven as a user would, on a real Controller and corpus."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from bpe_gui.engine.tokenizers.trained import Tokenizer
from bpe_gui.gui.models.vocab_model import VocabModel, parse_hex, search_pattern
from bpe_gui.gui.panels.vocab.vocab_browser import VocabBrowser
from panel_helpers import WORKED, make_controller

ZH = "你好 你们 你好世界 世界 你好 " * 4


pytestmark = pytest.mark.controller()


@pytest.fixture
def browser(qtbot, controller):
    b = VocabBrowser(controller)
    qtbot.addWidget(b)
    b.resize(1000, 600)
    b.show()
    return b


def search(qtbot, browser: VocabBrowser, text: str) -> list[int]:
    browser.search.clear()
    if text.isascii():
        qtbot.keyClicks(browser.search, text)
    else:                       # QTest cannot type characters outside Latin-1
        browser.search.setText(text)
    browser.apply_search()      # the debounce only applies to big vocabularies
    return browser.visible_ids()


def cell(browser: VocabBrowser, tid: int, col: int) -> str:
    if browser.model.row_of_id(tid) is None:   # the model shows only the search's rows
        browser.search.clear()
        browser.apply_search()
    row = browser.model.row_of_id(tid)
    return browser.model.index(row, col).data()


def test_rows_follow_steps(qtbot, browser, controller):
    assert browser.proxy.rowCount() == 256
    for _ in range(4):
        controller.step()
    qtbot.waitUntil(lambda: browser.proxy.rowCount() == 260, timeout=2000)
    assert cell(browser, 256, VocabModel.TOKEN) == "st"
    assert cell(browser, 256, VocabModel.STEP) == "1"
    assert cell(browser, 256, VocabModel.COUNT) == "5"
    assert cell(browser, 259, VocabModel.TOKEN) == "wid"
    assert cell(browser, 259, VocabModel.LENGTH) == "3"
    assert cell(browser, 32, VocabModel.TOKEN) == "·"
    assert cell(browser, 32, VocabModel.STEP) == "base"
    controller.undo()
    qtbot.waitUntil(lambda: browser.proxy.rowCount() == 259, timeout=2000)
    assert browser.model.entry_by_id(259) is None
    assert "Step 3: 259 tokens" in browser.summary.text()


def test_search_by_text_id_and_hex(qtbot, browser, controller):
    controller.goto(4)
    qtbot.waitUntil(lambda: browser.proxy.rowCount() == 260, timeout=2000)
    assert search(qtbot, browser, "est") == [257]
    assert search(qtbot, browser, "wi") == [258, 259]
    assert 258 in search(qtbot, browser, "258")
    assert search(qtbot, browser, "·") == [32]
    assert search(qtbot, browser, " ") == [32]
    assert search(qtbot, browser, "<77 69>") == [258, 259]     # hex of "wi"
    assert search(qtbot, browser, "77 69 64") == [259]
    assert search(qtbot, browser, "0x20") == [32]
    assert search(qtbot, browser, "no such token") == []
    assert "0 match" in browser.summary.text()
    browser.search.clear()
    browser.apply_search()
    assert browser.proxy.rowCount() == 260


def test_hex_search_for_partial_characters(qtbot):
    c = make_controller(ZH)
    c.goto(6)
    b = VocabBrowser(c)
    qtbot.addWidget(b)
    b.show()
    made = {e.id: e.token for e in b.model.entries if e.kind == "merge"}
    want = sorted(i for i, t in made.items() if b"\xe4\xbd" in t)
    assert want                                   # 你 = E4 BD A0
    assert search(qtbot, b, "e4 bd") == want
    assert search(qtbot, b, "<E4 BD>") == want
    partial = next(i for i, t in made.items() if t == b"\xbd\xa0")   # merge 2: BD + A0
    assert cell(b, partial, VocabModel.TOKEN) == "<BD A0>"
    assert partial in search(qtbot, b, "<BD A0>")
    assert b.model.index(b.model.row_of_id(partial), VocabModel.TOKEN).data(Qt.FontRole).italic()
    assert search(qtbot, b, "你") == sorted(i for i, t in made.items() if "你".encode() in t)
    c.shutdown()


def test_lineage_tree(qtbot, browser, controller):
    controller.goto(4)
    qtbot.waitUntil(lambda: browser.proxy.rowCount() == 260, timeout=2000)
    assert browser.select_id(259)
    assert browser.lineage() == [
        ("wid", 259, [("wi", 258, [("w", 119, []), ("i", 105, [])]), ("d", 100, [])])]
    assert "made by merge 4: wi + d" in browser.details.text()
    # Clicking a row selects it and shows its lineage.
    view = browser.view
    row = browser.proxy.mapFromSource(browser.model.index(browser.model.row_of_id(257), 0))
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=view.visualRect(row).center())
    assert browser.selected_id() == 257
    assert browser.lineage() == [
        ("est", 257, [("e", 101, []), ("st", 256, [("s", 115, []), ("t", 116, [])])])]
    # Double-click (activate) a part in the tree: it becomes the selection.
    item = browser.tree.topLevelItem(0).child(1)
    browser.tree.itemActivated.emit(item, 0)
    assert browser.selected_id() == 256


def test_gpt2_alphabet_toggle(qtbot, browser, controller):
    controller.goto(8)
    qtbot.waitUntil(lambda: browser.proxy.rowCount() == 264, timeout=2000)
    space_w = next(e.id for e in browser.model.entries if e.token == b" widest")
    assert cell(browser, space_w, VocabModel.TOKEN) == "·widest"
    browser.gpt2.setChecked(True)
    assert cell(browser, space_w, VocabModel.TOKEN) == "Ġwidest"
    assert cell(browser, 32, VocabModel.TOKEN) == "Ġ"
    assert search(qtbot, browser, "Ġwid") == [space_w]
    assert browser.select_id(space_w)
    assert browser.lineage()[0][0] == "Ġwidest"


def test_sort_by_column(qtbot, browser, controller):
    controller.goto(6)
    qtbot.waitUntil(lambda: browser.proxy.rowCount() == 262, timeout=2000)
    browser.view.sortByColumn(VocabModel.LENGTH, Qt.DescendingOrder)
    ids = browser.visible_ids()
    lengths = [len(browser.model.entry_by_id(i).token) for i in ids]
    assert lengths == sorted(lengths, reverse=True)
    controller.step()                 # a new row lands in its sorted place
    qtbot.waitUntil(lambda: browser.proxy.rowCount() == 263, timeout=2000)
    lengths = [len(browser.model.entry_by_id(i).token) for i in browser.visible_ids()]
    assert lengths == sorted(lengths, reverse=True)
    controller.undo()
    qtbot.waitUntil(lambda: browser.proxy.rowCount() == 262, timeout=2000)
    browser.view.sortByColumn(VocabModel.ID, Qt.AscendingOrder)
    assert browser.visible_ids() == list(range(262))


def test_pruning_status(qtbot):
    c = make_controller(WORKED, prune=True, vocab_size=200)
    b = VocabBrowser(c)
    qtbot.addWidget(b)
    b.show()
    assert not b.view.isColumnHidden(VocabModel.STATUS)
    c.goto(2)       # s t, then e st: "st" (256) no longer occurs on its own
    qtbot.waitUntil(lambda: b.proxy.rowCount() == 258, timeout=2000)
    assert cell(b, 256, VocabModel.STATUS) == "pruned at step 2"
    assert cell(b, 257, VocabModel.STATUS) == "live"
    assert cell(b, ord("s"), VocabModel.STATUS) == "pruned at step 1"
    assert cell(b, 0, VocabModel.STATUS) == "not in corpus"
    c.undo()
    qtbot.waitUntil(lambda: b.proxy.rowCount() == 257, timeout=2000)
    assert cell(b, 256, VocabModel.STATUS) == "live"
    c.shutdown()


def test_imported_vocabulary(qtbot, browser, controller):
    controller.goto(4)
    t = controller.trainer
    tok = Tokenizer(t.vocab, t.merges, ["<|endoftext|>"], pattern="gpt2")
    controller.imported, controller.imported_path = tok, "/x/vocab.json"
    controller.tokenizer_files.set_use_imported(True)
    assert browser.model.source == "imported"
    assert browser.proxy.rowCount() == 261
    assert cell(browser, 260, VocabModel.STEP) == "special"
    assert cell(browser, 259, VocabModel.STEP) == "4"
    assert browser.select_id(259)
    assert browser.lineage()[0][2][0][:2] == ("wi", 258)
    assert "Showing the imported vocab.json: 261 tokens" in browser.summary.text()
    controller.tokenizer_files.set_use_imported(False)
    assert browser.model.source == "trained"
    assert browser.proxy.rowCount() == 260


@pytest.mark.regression
def test_an_imported_vocabulary_says_plainly_how_to_see_the_trained_one(
        qtbot, browser, controller):
    """The line "Imported gpt2_vocab.json: 50,257 tokens (the trained one: the encode
    view's Tokenizer box)" read as a puzzle (issue 30 item 11)."""
    t = controller.trainer
    tok = Tokenizer(t.vocab, t.merges, pattern="gpt2")
    controller.imported, controller.imported_path = tok, "/x/gpt2_vocab.json"
    controller.tokenizer_files.set_use_imported(True)
    text = browser.summary.text()
    assert text.startswith("Showing the imported gpt2_vocab.json: 256 tokens")
    assert "the trained one:" not in text and "Tokenizer box" not in text
    button = browser.show_trained
    assert button.isVisibleTo(browser) and "trained" in button.text()
    qtbot.mouseClick(button, Qt.LeftButton)
    assert not controller.use_imported and browser.model.source == "trained"
    assert not button.isVisibleTo(browser)
    assert browser.summary.text().startswith("Step 0:")


def test_search_pattern_helpers():
    assert parse_hex("<E4 BD>") == b"\xe4\xbd"
    assert parse_hex("e4 bd") == b"\xe4\xbd"
    assert parse_hex("0xe4bd") == b"\xe4\xbd"
    assert parse_hex("be") is None and parse_hex("hello") is None
    assert search_pattern("") == ""
