"""The vocabulary browser's dead weight (IoS column, the Dead weight button), driven as a
user would on a real Controller: the rows and cells it shows are PickyBPE's counts for the
tokenizer shown, trained or imported, on the window's corpus or on other files, counted
by a slow reference that does not use the engine (ios_reference.py): each piece merged
one pair at a time from the tokenizer's merges, or from the .tiktoken file's ranks."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

import ios_reference as R
from bpe_gui.engine.analysis import ios_text
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
from bpe_gui.gui.models.vocab_model import VocabModel
from bpe_gui.gui.panels.vocab.vocab_browser import VocabBrowser

TEXT = ("the theory of thermodynamics: there the other thermos were then theirs. "
        "lowest newest widest lower newer wider. ") * 30
OTHER = "nothing other than the northern thermal thermostat, thereafter. " * 40

pytestmark = pytest.mark.controller(TEXT, step=120)


@pytest.fixture
def browser(qtbot, controller):
    b = VocabBrowser(controller)
    qtbot.addWidget(b)
    b.resize(1000, 600)
    b.show()
    return b


class Want:
    """The reference's counts by id, for a trained tokenizer (its merges) or a .tiktoken
    file (its ranks, pieces found whole taken whole)."""

    def __init__(self, tok, text: str, tiktoken_file=None):
        if tiktoken_file is None:
            output, merged = R.counts(text, tok.pattern, merges=tok.merges,
                                      specials=tok.special_tokens)
            made = {a + b for a, b in tok.merges}
        else:
            ranks = R.read_tiktoken(tiktoken_file)
            output, merged = R.counts(text, tok.pattern, ranks=ranks,
                                      specials=tok.special_tokens)
            made = {t for t in ranks if len(t) > 1}
        self.output, self.merged = R.by_id(output, tok.vocab), R.by_id(merged, tok.vocab)
        self.removable = {i for i, t in tok.vocab.items() if t in made}

    def dead(self, threshold: float) -> list[int]:
        return R.dead_ids(self.output, self.merged, self.removable, threshold)

    def ios(self, i: int) -> float:
        m, o = self.merged.get(i, 0), self.output.get(i, 0)
        return m / (m + o)

    def same_counts(self, dead) -> bool:
        return (dict(dead.output) == self.output
                and {i: n for i, n in dead.merged.items() if n} == self.merged)


def press(qtbot, browser: VocabBrowser) -> None:
    qtbot.mouseClick(browser.dead_button, Qt.MouseButton.LeftButton)


def measured(qtbot, browser: VocabBrowser, controller) -> None:
    qtbot.waitUntil(lambda: browser.model.dead is not None and not controller.busy,
                    timeout=20_000)


def test_the_button_lists_the_dead_weight_of_the_trained_vocabulary(qtbot, browser,
                                                                      controller):
    assert all(browser.view.isColumnHidden(c) for c in VocabModel.DEAD_COLUMNS)
    press(qtbot, browser)
    assert browser.dead_button.isChecked() and browser.threshold.isVisible()
    measured(qtbot, browser, controller)
    assert not browser.view.isColumnHidden(VocabModel.IOS)
    want = Want(controller.tokenizer(), TEXT)
    dead = want.dead(0.9)
    assert dead and sorted(browser.visible_ids()) == sorted(dead)
    # sorted by IoS, highest first, at once
    shown = [want.ios(i) for i in browser.visible_ids()]
    assert shown == sorted(shown, reverse=True)
    for top in (dead[0], dead[-1]):
        row = browser.model.row_of_id(top)
        merged, output = want.merged.get(top, 0), want.output.get(top, 0)
        assert browser.model.index(row, VocabModel.IOS).data() == ios_text(want.ios(top))
        tip = browser.model.index(row, VocabModel.IOS).data(Qt.ItemDataRole.ToolTipRole)
        assert f"merged further {merged:,} times" in tip and "the corpus in the window" in tip
        assert browser.model.index(row, VocabModel.MERGED).data() == f"{merged:,}"
        assert browser.model.index(row, VocabModel.OUTPUT).data() == f"{output:,}"
    assert f"{len(dead):,} of" in browser.summary.text()
    # a lower threshold keeps more tokens
    browser.threshold.setValue(0.5)
    assert sorted(browser.visible_ids()) == sorted(want.dead(0.5))
    assert len(browser.visible_ids()) > len(dead)
    # released: every token again, the column hidden
    press(qtbot, browser)
    assert browser.proxy.rowCount() == len(controller.tokenizer().vocab)
    assert all(browser.view.isColumnHidden(c) for c in VocabModel.DEAD_COLUMNS)


def test_a_step_measures_the_new_vocabulary_again(qtbot, browser, controller):
    press(qtbot, browser)
    measured(qtbot, browser, controller)
    first = browser.model.dead
    controller.goto(20)
    assert controller.step_index == 20
    qtbot.waitUntil(lambda: browser.model.dead is not None and browser.model.dead is not first
                    and not controller.busy, timeout=20_000)
    want = Want(controller.tokenizer(), TEXT)
    assert want.same_counts(browser.model.dead)
    assert sorted(browser.visible_ids()) == sorted(want.dead(0.9))


def test_an_imported_tokenizer_on_other_files(qtbot, browser, controller, tmp_path):
    export_tokenizer(controller.tokenizer(), tmp_path, "tiktoken")
    tok = load_tokenizer(tmp_path / "tokenizer.tiktoken")
    controller.imported, controller.imported_path = tok, str(tmp_path / "tokenizer.tiktoken")
    controller.tokenizer_files.set_use_imported(True)
    press(qtbot, browser)
    measured(qtbot, browser, controller)
    # every word of the corpus it was trained on is one of its tokens: taken whole
    want = Want(tok, TEXT, tmp_path / "tokenizer.tiktoken")
    assert want.same_counts(browser.model.dead) and want.output
    (tmp_path / "other.txt").write_text(OTHER, "utf-8")
    browser.set_dead_paths([str(tmp_path / "other.txt")])
    assert browser.dead_files.text() == "Corpus: other.txt"
    qtbot.waitUntil(lambda: browser.model.dead is not None
                    and browser.model.dead_corpus == "other.txt", timeout=20_000)
    want = Want(tok, OTHER, tmp_path / "tokenizer.tiktoken")
    assert want.merged and want.same_counts(browser.model.dead)
    assert sorted(browser.visible_ids()) == sorted(want.dead(0.9))
    assert "dead weight on other.txt" in browser.summary.text()


def test_cancel_says_so_and_pressing_again_measures(qtbot, browser, controller):
    press(qtbot, browser)
    controller.cancel()
    qtbot.waitUntil(lambda: not controller.busy, timeout=20_000)
    if browser.model.dead is None:   # (a fast job may end before Cancel reaches it)
        assert "cancelled" in browser.summary.text()
        press(qtbot, browser)
        press(qtbot, browser)
    measured(qtbot, browser, controller)
    assert "cancelled" not in browser.summary.text()


def test_an_empty_corpus_is_refused_with_a_fix(qtbot, browser, controller):
    controller.set_corpus_text("")
    qtbot.waitUntil(lambda: not controller.busy, timeout=20_000)
    browser.dead_button.setChecked(True)
    qtbot.waitUntil(lambda: "corpus is empty" in browser.summary.text(), timeout=5_000)
    assert "Other corpus" in browser.summary.text()


def test_a_word_count_table_measures_the_trained_tokenizer_and_refuses_an_imported(
        qtbot, window, tmp_path, ready):
    """A word-count table holds the trained pattern's words: the trained tokenizer is
    measured on them (special tokens are not in a table); an imported one is refused,
    saying how to measure it."""
    from dataclasses import replace
    from bpe_gui.engine.corpus.counting import count_corpus
    from bpe_gui.engine.text.pretokenize import Pretokenizer
    (tmp_path / "corpus.txt").write_text(TEXT, "utf-8")
    table = tmp_path / "corpus.counts.tsv"
    count_corpus(tmp_path / "corpus.txt", Pretokenizer("cl100k"), out=table)
    c = window.controller
    assert window.files.open_paths([str(table)])
    ready(c)
    c.set_settings(replace(c.settings, mode="byte", vocab_size=300, num_merges=None))
    ready(c)
    c.training.to_target()
    qtbot.waitUntil(lambda: not c.busy and c.step_index > 0, timeout=20_000)
    b = window.dock_layout.vocab_browser
    window.dock_layout.vocab_dock.show()
    window.dock_layout.vocab_dock.raise_()   # a dock tab behind another catches up when raised
    qtbot.mouseClick(b.dead_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: b.model.dead is not None and not c.busy, timeout=20_000)
    assert Want(c.tokenizer(), TEXT).same_counts(b.model.dead)
    export_tokenizer(c.tokenizer(), tmp_path, "tiktoken")
    c.imported = load_tokenizer(tmp_path / "tokenizer.tiktoken")
    c.imported_path = str(tmp_path / "tokenizer.tiktoken")
    c.tokenizer_files.set_use_imported(True)
    qtbot.waitUntil(lambda: "word-count table" in b.summary.text(), timeout=10_000)
    assert "Other corpus" in b.summary.text() and b.model.dead is None


def test_a_streamed_corpus_is_read_from_its_files(qtbot, window, tmp_path, ready):
    """A corpus too big to edit is streamed from its file: dead weight reads the file in
    chunks (progress in bytes), and counts what its whole text gives."""
    from dataclasses import replace
    from bpe_gui.gui.controller.corpus_source import EDIT_BYTES
    # in lines that end where every pattern ends a word (no space before the break): a
    # stretch of 4 * PART_CHARS characters with no such break is cut where it ends, in the
    # file's chunks as in the text's parts, and the two cuts need not agree
    line = TEXT.rstrip() + "\n"
    text = line * (EDIT_BYTES // len(line.encode("utf-8")) + 2)
    (tmp_path / "big.txt").write_text(text, "utf-8")
    c = window.controller
    assert window.files.open_paths([str(tmp_path / "big.txt")])
    ready(c)
    assert c.corpus.streamed
    c.set_settings(replace(c.settings, mode="byte", vocab_size=300, num_merges=None))
    ready(c)
    c.training.to_target()
    qtbot.waitUntil(lambda: not c.busy and c.step_index > 0, timeout=20_000)
    b = window.dock_layout.vocab_browser
    window.dock_layout.vocab_dock.show()
    window.dock_layout.vocab_dock.raise_()
    seen = []
    c.jobs.progress.connect(lambda label, done, total: seen.append((label, done, total)))
    qtbot.mouseClick(b.dead_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: b.model.dead is not None and not c.busy, timeout=30_000)
    assert Want(c.tokenizer(), text).same_counts(b.model.dead)
    assert "dead weight on big.txt" in b.summary.text()
    assert any("Dead weight" in label for label, _, _ in seen)
