"""What the views show after a switch the user did not make: training (parity-aware
too) puts the trained tokenizer in the encode view in place of an imported one, and
says so beside the Tokenizer box until the user chooses again; Compare's other
configuration says what it was trained on in parity mode; importing keeps the
vocabulary browser's search and never leaves its selection on another token.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from bpe_gui.engine.formats import export_formats
from bpe_gui.engine.train import Trainer, TrainSettings

from panel_helpers import trained_side_b
from screens import SIZES, open_at
from settle import settle
from test_parity_glance import FIXTURES, train_parity

LANGS = ("en", "de")


def _import(c, tmp_path: Path, text: str = "merry minstrels sing songs of old kings ") -> None:
    """A GPT-2 vocab.json/merges.txt pair trained here on ``text``, imported."""
    src = Trainer.from_source(text * 30, TrainSettings(num_merges=30))
    src.goto(30, detail=False)
    export_formats(src.tokenizer(), tmp_path / "tok", ["gpt2"])
    assert c.tokenizer_files.import_tokenizer(str(tmp_path / "tok" / "vocab.json"))


def test_parity_training_says_beside_the_tokenizer_box_that_it_switched(qtbot, window,
                                                                       tmp_path):
    c = window.controller
    _import(c, tmp_path)
    view = window.dock_layout.encode_view
    dock = window.dock_layout.encode_dock
    dock.show()
    dock.raise_()
    assert c.use_imported and view.source.currentIndex() == 1
    assert not view.switch_note.isVisible()
    train_parity(qtbot, window, 20, langs=LANGS, settled=False)   # (the status as left)
    # the training's own messages took the status bar: the note stays in the view
    assert "imported" not in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: view.source.currentIndex() == 0)
    assert not c.use_imported
    assert view.switch_note.isVisible()
    assert "switched" in view.switch_note.text() and "imported" in view.switch_note.text()
    view.source.setCurrentIndex(1)   # the user's own choice: the note has said its piece
    view.source.activated.emit(1)
    qtbot.waitUntil(lambda: not view.switch_note.isVisible())
    assert c.use_imported


def test_a_refused_training_leaves_the_imported_tokenizer_on_show(qtbot, window, tmp_path):
    """Train on an empty corpus is refused: the user's choice of the imported tokenizer
    stays, with no note of a switch that did not happen."""
    c = window.controller
    _import(c, tmp_path)
    view = window.dock_layout.encode_view
    window.dock_layout.encode_dock.raise_()
    c.set_corpus_text("", dirty=False)
    assert not window.actions_menus.flow.train()
    assert window.status.last_error and window.status.last_error[0] == "Empty corpus"
    assert c.use_imported and view.source.currentIndex() == 1
    assert not view.switch_note.isVisible()


def test_another_configuration_names_its_corpus_in_parity_mode(controller, qtbot):
    """Compare's "another training configuration" trains plain BPE on the window's
    corpus, which a parity run does not read: in parity mode the side names that corpus
    (its status line and its caption), so its counts are not read as the parity data's."""
    from bpe_gui.gui.controller.parity_setup import Language, ParitySetup
    pane = trained_side_b(controller, qtbot)
    assert "parity" not in pane.train_status.text()   # plain mode: nothing to tell apart
    setup = ParitySetup(True, tuple(Language(n, str(FIXTURES / f"{n}.train.txt"),
                                             str(FIXTURES / f"{n}.dev.txt"))
                                    for n in LANGS))
    with qtbot.waitSignal(pane.changed, timeout=5000):
        assert controller.set_parity(setup)
    where = "the text typed in the window"   # (the fixture's corpus is typed text)
    assert controller.corpus.paths == () and controller.corpus.sample is None
    assert where in pane.train_status.text()
    assert "not the parity languages' files" in pane.train_status.text()
    assert f"on {where}" in pane.description()
    with qtbot.waitSignal(pane.trained, timeout=20_000):   # trained again in parity mode
        assert pane.train()
        assert where in pane.train_status.text()
    assert where in pane.train_status.text()


def _gpt2_vocab(folder: Path) -> dict[str, int]:
    """vocab.json read back as text -> id (GPT-2's byte spelling undone by hand:
    printable Latin-1 stands for itself, the rest sits at U+0100 onwards)."""
    import json
    keep = [*range(33, 127), *range(161, 173), *range(174, 256)]
    moved = [b for b in range(256) if b not in keep]
    decode = {chr(b): b for b in keep} | {chr(256 + i): b for i, b in enumerate(moved)}
    raw = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    return {bytes(decode[ch] for ch in k).decode("utf-8", "replace"): v
            for k, v in raw.items()}


def _select_text(browser, text: str) -> int:
    """Select the visible row whose token reads ``text``; its id."""
    from bpe_gui.gui.models.vocab_model import VocabModel
    for tid in browser.visible_ids():
        row = browser.model.row_of_id(tid)
        if browser.model.index(row, VocabModel.TOKEN).data() == text:
            assert browser.select_id(tid)
            return tid
    raise AssertionError(f"{text!r} not among the rows the search shows")


def _browser(qtbot, controller):
    from bpe_gui.gui.panels.vocab.vocab_browser import VocabBrowser
    controller.goto(12)
    qtbot.waitUntil(lambda: not controller.busy and controller.step_index == 12)
    b = VocabBrowser(controller)
    qtbot.addWidget(b)
    b.resize(1000, 600)
    b.show()
    return b


# zebra first: its merges take the ids that "st" and "est" have in the training
IMPORTED_TEXT = "zebra zebra zebra zebra quartz jumps; lowest newest widest "


def test_an_import_keeps_the_search_and_selects_the_same_token_text(qtbot, controller,
                                                                    tmp_path):
    b = _browser(qtbot, controller)
    b.search.setText("est")
    b.apply_search()
    old = _select_text(b, "est")
    _import(controller, tmp_path, IMPORTED_TEXT)
    vocab = _gpt2_vocab(tmp_path / "tok")
    qtbot.waitUntil(lambda: b.model.source == "imported")
    assert vocab["est"] != old   # (else the id alone would have been right)
    assert b.search.text() == "est"
    assert sorted(b.visible_ids()) == sorted(v for k, v in vocab.items() if "est" in k)
    assert b.selected_id() == vocab["est"]
    assert "est" in b.details.text()


def test_an_import_clears_a_selection_whose_token_it_lacks(qtbot, controller, tmp_path):
    b = _browser(qtbot, controller)
    b.search.setText("ow")
    b.apply_search()
    _select_text(b, "ow")
    _import(controller, tmp_path, IMPORTED_TEXT)
    vocab = _gpt2_vocab(tmp_path / "tok")
    qtbot.waitUntil(lambda: b.model.source == "imported")
    assert "ow" not in vocab   # (the imported vocabulary has "owest", not "ow")
    assert b.search.text() == "ow"
    shown = sorted(v for k, v in vocab.items() if "ow" in k)
    assert shown and sorted(b.visible_ids()) == shown
    assert b.selected_id() is None
    assert b.details.text().startswith("Select a token")


def table_rows_cut(view) -> list[int]:
    """The rows of table ``view`` drawn in part: its viewport's bottom edge runs
    through them (Qt's own row positions)."""
    height = view.viewport().height()
    return [r for r in range(view.model().rowCount())
            if view.rowViewportPosition(r) < height
            < view.rowViewportPosition(r) + view.rowHeight(r)]


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_the_pair_table_draws_no_row_cut(make_window, qtbot, monkeypatch, size):
    """At 800x600 the merge panel's pair table showed three rows and a sliver of a
    fourth. Whole rows only, scrolled anywhere, and in a window a little shorter."""
    win = open_at(make_window, qtbot, monkeypatch, size)
    c = win.controller
    view = win.dock_layout.merge_panel.pair_view
    qtbot.waitUntil(view.isVisible)
    rows = view.verticalHeader().defaultSectionSize()
    assert view.model().rowCount() * rows > view.viewport().height(), "rows to cut"
    assert table_rows_cut(view) == [], (size, view.viewport().height(), rows)
    bar = view.verticalScrollBar()
    for value in (bar.maximum() // 2, bar.maximum()):
        bar.setValue(value)
        QApplication.processEvents()
        assert table_rows_cut(view) == [], (size, value)
    win.resize(win.width(), win.height() - 17)
    settle(qtbot, win, c)
    assert table_rows_cut(view) == [], size
