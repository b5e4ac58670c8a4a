"""A word-count table as the window's corpus: File > Open (or a drop) reads it, the corpus
panel says it is a table and shows its metadata and first rows, training steps through it
exactly as through the text it was counted from, settings that do not fit it are refused
with the reason, sessions keep it, and the views that need text say so."""
from __future__ import annotations

from dataclasses import replace

import pytest

from bpe_gui.engine.corpus.counting import count_corpus
from bpe_gui.engine.text.pretokenize import Pretokenizer
from bpe_gui.engine.train.trainer import Trainer, TrainSettings

TEXT = ("low low lower newest newest widest widest widest <|endoftext|> "
        "分词器 tokenizers: low lower newest widest 2024！\n") * 20


@pytest.fixture
def table_file(tmp_path):
    src = tmp_path / "corpus.txt"
    src.write_text(TEXT, encoding="utf-8")
    out = tmp_path / "corpus.counts.tsv"
    count_corpus(src, Pretokenizer("cl100k", ["<|endoftext|>"]), out=out)
    return out


def test_open_a_table_and_step_as_with_its_text(window, table_file, ready):
    c, ed = window.controller, window.dock_layout.editor
    assert window.files.open_paths([str(table_file)])
    ready(c)
    assert c.corpus_table is not None and c.corpus_text == ""
    # the settings took the table's pattern and special tokens
    assert c.settings.pattern == "cl100k" and c.settings.special_tokens == ("<|endoftext|>",)
    # the corpus panel says what it is, and shows rows instead of an editor
    assert "Word-count table" in ed.source_label.text()
    info = ed.table_view.info.text()
    assert "GPT-4 (cl100k)" in info and "&lt;|endoftext|&gt;" in info and "corpus.txt" in info
    assert ed.table_view.isVisible() and not ed.edit.isVisible()
    assert "low" in ed.table_view.rows.toPlainText()
    assert not ed.words.toggle.isEnabled()
    assert ed.counts()["unique_pretokens"] == len(c.corpus_table)
    # stepping gives the merges training on the text gives
    c.set_settings(replace(c.settings, mode="byte", vocab_size=1000, num_merges=None,
                           tie_rule="first-seen"))
    ready(c)
    for _ in range(12):
        assert c.step()
    expected = Trainer.from_text(TEXT, c.settings)
    expected.run(until=12)
    assert c.trainer.merges == expected.merges
    assert c.undo() and c.trainer.n_steps == 11


@pytest.mark.regression
def test_a_table_of_one_word_is_described_in_the_singular(window, tmp_path, ready):
    """A table of one word read "1 unique words, 1 words from 1 bytes of text" and
    "Sources: one.txt (1 bytes)"."""
    src = tmp_path / "one.txt"
    src.write_text("a", encoding="utf-8")
    out = tmp_path / "one.counts.tsv"
    count_corpus(src, Pretokenizer("gpt2"), out=out)
    c = window.controller
    assert window.files.open_paths([str(out)])
    ready(c)
    info = window.dock_layout.editor.table_view.info.text()
    assert "1 unique word, 1 word from 1 byte of text." in info
    assert "one.txt (1 byte)." in info and "words" not in info.split("<br>")[0]


def test_settings_that_do_not_fit_the_table_are_refused_with_the_reason(window, table_file,
                                                                         ready, qtbot):
    c = window.controller
    window.files.open_paths([str(table_file)])
    ready(c)
    errors = []
    c.errorOccurred.connect(lambda title, msg: errors.append(msg))
    c.set_settings(TrainSettings(pattern="gpt2", special_tokens=("<|endoftext|>",)))
    c.training.retrain()
    assert errors and "counted with the GPT-4 (cl100k) preset" in errors[-1]
    assert "GPT-2" in errors[-1]


def test_session_with_a_table_corpus_reopens_it(window, table_file, ready, tmp_path):
    c = window.controller
    window.files.open_paths([str(table_file)])
    ready(c)
    assert c.goto(7)
    path = tmp_path / "s.bpesession"
    assert c.opening.save_session(str(path))
    c.set_corpus_text("something else entirely", dirty=False)
    ready(c)
    assert c.corpus_table is None
    assert window.sessions.open_session(str(path))
    ready(c)
    assert c.corpus_table is not None and c.trainer.n_steps == 7
    assert c.corpus_paths == [str(table_file)]


def test_views_that_need_text_say_so(window, table_file, ready):
    from bpe_gui.gui.controller.table_corpus import NO_TEXT, table_paths
    c = window.controller
    window.files.open_paths([str(table_file)])
    ready(c)
    from bpe_gui.gui.panels.compare.compare_view import CompareView
    cv = CompareView(c)
    cv.from_corpus()
    assert NO_TEXT in cv.summary.text()
    cv.deleteLater()
    assert not window.dock_layout.editor.save_as_dialog()       # no text to save
    # opening tables and text files together is refused, naming the text file
    with pytest.raises(ValueError, match="corpus.txt: not word-count tables"):
        table_paths([str(table_file), str(table_file.with_name("corpus.txt"))])


def test_compare_view_trains_another_configuration_from_the_table(window, table_file, ready,
                                                                  qtbot):
    from bpe_gui.gui.panels.compare.compare_view import CompareView
    c = window.controller
    window.files.open_paths([str(table_file)])
    ready(c)
    cv = CompareView(c)
    pane = cv.pane_b
    pane.t_pattern.setCurrentIndex(pane.t_pattern.findData("cl100k"))
    pane.t_vocab.setValue(300)
    with qtbot.waitSignal(pane.trained, timeout=20_000):
        assert pane.train()
    assert pane.trained_tokenizer is not None
    assert f"({c.corpus_table.n_chars:,} characters)" in pane.train_status.text()
    cv.deleteLater()


def test_charts_of_a_table_leave_special_tokens_out_and_say_so(window, table_file, ready,
                                                               qtbot):
    """A table does not record how often the special tokens occur: the Rényi series is
    the efficiency of the words' tokens alone (a direct formula over encoding the text
    with the special tokens cut out), and the status line says so."""
    import math
    from collections import Counter
    c, charts = window.controller, window.dock_layout.charts_view
    assert window.files.open_paths([str(table_file)])
    ready(c)
    c.set_settings(replace(c.settings, mode="byte", vocab_size=1000, num_merges=None))
    ready(c)
    c.goto(25)
    assert c.trainer.n_steps == 25
    window.dock_layout.charts_dock.raise_()
    qtbot.waitUntil(lambda: "corpus" in charts.renyi.series
                    and charts.renyi.data("corpus")[0][-1:] == [25], timeout=5000)
    assert "word-count table" in charts.status.text() and "leave the special" in \
        charts.status.text()
    xs, ys = charts.renyi.data("corpus")
    for k in (0, 10, 25):
        tok = c.trainer.tokenizer(at_step=k)
        ids = [i for piece in TEXT.split("<|endoftext|>") for i in tok.encode(piece, allowed_special="all")]
        counts = Counter(ids).values()
        n = sum(counts)
        h = math.log(sum((x / n) ** 2.5 for x in counts)) / (1 - 2.5)
        assert ys[xs.index(k)] == pytest.approx(h / math.log(len(tok.vocab)), rel=1e-9)
