"""The vocabulary browser's line about what it shows is read whole: "Showing the
imported NAME — FORMAT (…): N tokens" was cut with "…" even at 1920x1080 (found driving
the window after the model-file readers landed). It wraps onto a second line, and its
tooltip holds the whole text."""
from __future__ import annotations

import io

import pytest

from bpe_gui.gui.panels.vocab.vocab_browser import VocabBrowser

spm = pytest.importorskip("sentencepiece")
CORPUS = "low lower newest widest lowest slowest 你好世界 it's\n" * 30


def model_file(tmp_path):
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(CORPUS.splitlines()), model_writer=out,
                                   model_type="bpe", vocab_size=300, byte_fallback=True,
                                   hard_vocab_limit=False, normalization_rule_name="identity",
                                   minloglevel=2, num_threads=1)
    path = tmp_path / "tokenizer.model"
    path.write_bytes(out.getvalue())
    return path


@pytest.mark.controller(CORPUS, step=5)
@pytest.mark.parametrize("width", [470, 620, 900])
def test_imported_summary_is_shown_whole(qtbot, tmp_path, controller, width):
    b = VocabBrowser(controller)
    qtbot.addWidget(b)
    b.resize(width, 500)
    b.show()
    qtbot.waitExposed(b)
    path = model_file(tmp_path)
    assert controller.tokenizer_files.import_tokenizer(str(path)) is not None
    controller.tokenizer_files.set_use_imported(True)
    pane = b.summary
    qtbot.waitUntil(lambda: "SentencePiece BPE" in pane.text() and "classes:" in pane.text()
                    and "working" not in pane.text(), timeout=10_000)
    full = pane.text()
    assert full.startswith("Showing the imported tokenizer.model — SentencePiece BPE (")
    assert pane.toolTip() == full
    drawn = pane._shown_doc().toPlainText()
    if width >= 600:   # (an 800x600 window's dock is narrower: "…", the tooltip says it)
        assert "…" not in drawn and drawn == full
    # nothing is pushed out of the browser, which never asks for more width than it has
    # (an 800x600 window's dock scrolled sideways to reach the button)
    assert b.minimumSizeHint().width() <= width
    qtbot.waitUntil(lambda: b.show_trained.isVisible())
    for w in (pane, b.show_trained, b.search, b.class_filter):
        assert w.mapTo(b, w.rect().topRight()).x() <= b.width(), w
