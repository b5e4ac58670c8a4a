"""A corpus too big to hold is streamed from its files: a read-only preview of its start,
training from the files in blocks (never reading them whole), progress in bytes, the
detail of the step shown, and the panels that need the text say what they cannot do.

The threshold is lowered so the files stay small; the oracle is the engine trained
directly on the same files (``Trainer.from_files``, detail on every step).
"""
from __future__ import annotations

import gzip
import random

import pytest

from bpe_gui.engine.corpus import counting as engine_corpus
from bpe_gui.engine.corpus import files as engine_files
from bpe_gui.engine.train.trainer import Trainer, TrainSettings
from bpe_gui.gui.controller import corpus_source

pytestmark = pytest.mark.slow   # big files, memory bounds: CI runs it

EDIT = 20_000   # bytes of text read whole (the app's is 4 MiB)


def corpus_file(path, n_words: int = 40_000, seed: int = 3, gz: bool = False):
    rng = random.Random(seed)
    syll = ["lo", "w", "er", "ne", "st", "wi", "de", "分", "词", "ka", "ri", "to", "é"]
    lines = []
    for i in range(n_words // 10):
        lines.append(" ".join("".join(rng.choice(syll) for _ in range(rng.randint(1, 4)))
                              for _ in range(10)))
    raw = ("\n".join(lines) + "\n").encode("utf-8")
    path.write_bytes(gzip.compress(raw) if gz else raw)
    return path, raw.decode("utf-8")


@pytest.fixture
def small_threshold(monkeypatch):
    monkeypatch.setattr(corpus_source, "EDIT_BYTES", EDIT)


@pytest.fixture
def never_whole(monkeypatch):
    """Reading a whole corpus file is an error from here on (read_head and the block
    reader remain)."""
    def refuse(*a, **kw):
        raise AssertionError("a streamed corpus file was read whole")
    monkeypatch.setattr(engine_files, "read_bytes", refuse)
    monkeypatch.setattr(corpus_source, "read_documents", refuse)


def open_streamed(window, path, qtbot, ready):
    c = window.controller
    assert window.dock_layout.editor.open_files([str(path)])
    qtbot.waitUntil(lambda: c.streamed, timeout=10_000)
    ready(c, 60_000)
    return c


@pytest.mark.parametrize("gz", [False, True])
def test_a_big_file_is_streamed_with_a_preview_and_trains_like_the_engine(
        window, tmp_path, qtbot, ready, small_threshold, never_whole, gz):
    path, text = corpus_file(tmp_path / ("big.txt.gz" if gz else "big.txt"), gz=gz)
    progress = []
    window.controller.progress.connect(lambda label, d, t: progress.append((label, d, t)))
    c = open_streamed(window, path, qtbot, ready)
    # the preview: the start of the text, read-only, with a banner saying what it is
    assert text.startswith(c.corpus_text) and 0 < len(c.corpus_text) < len(text)
    editor = window.dock_layout.editor
    assert editor.is_preview and editor.edit.isReadOnly()
    assert "Streamed corpus" in editor.banner.text() and "read-only" in editor.banner.text()
    assert not editor.save_button.isEnabled()
    # progress in bytes read on disk, labelled with the file
    reading = [p for p in progress if p[0].startswith("Reading and pre-tokenizing")]
    assert reading and reading[-1][1] == reading[-1][2] == path.stat().st_size
    # trained from the files: the same table and merges as the engine on the file
    oracle = Trainer.from_files([str(path)], c.settings)
    assert (c.trainer.table.total, len(c.trainer.table)) == (oracle.table.total,
                                                             len(oracle.table))
    c.set_settings(TrainSettings(vocab_size=600))
    window.actions_menus.acts["run"].trigger()
    qtbot.waitUntil(lambda: not c.busy and c.trainer.is_done, timeout=30_000)
    oracle = Trainer.from_files([str(path)], c.settings)
    oracle.run()                           # with detail on every step
    assert c.trainer.merges == oracle.merges
    # the step shown has its detail (the run itself stepped without)
    assert c.trainer.steps[-1] == oracle.steps[-1]
    assert window.dock_layout.merge_panel.last_reason.text() == oracle.steps[-1].reason
    counts = editor.counts()
    assert counts["chars"] == len(text) and counts["pretokens"] == oracle.table.total


def test_small_files_are_read_whole_and_stay_editable(window, tmp_path, qtbot, ready,
                                                      small_threshold):
    path, text = corpus_file(tmp_path / "small.txt", n_words=500)
    assert len(text.encode()) < EDIT
    c = window.controller
    assert window.dock_layout.editor.open_files([str(path)])
    qtbot.waitUntil(lambda: c.corpus_text == text.rstrip("\n") or c.corpus_text == text,
                    timeout=10_000)
    assert not c.streamed and not window.dock_layout.editor.edit.isReadOnly()


def test_stepping_back_after_a_fast_run_shows_each_steps_detail(window, tmp_path, qtbot,
                                                                ready, small_threshold):
    path, _ = corpus_file(tmp_path / "big.txt")
    c = open_streamed(window, path, qtbot, ready)
    c.set_settings(TrainSettings(vocab_size=400))
    assert c.training.train()
    qtbot.waitUntil(lambda: not c.busy and c.trainer.is_done, timeout=30_000)
    oracle = Trainer.from_files([str(path)], c.settings)
    oracle.run()
    for k in (c.step_index - 1, 70, 3):
        assert c.goto(k)
        assert c.trainer.steps[-1] == oracle.steps[k - 1]       # tie, reason, words
        timeline = window.dock_layout.merge_panel.timeline
        assert timeline.record(k).reason == oracle.steps[k - 1].reason


def test_cancel_while_reading_frees_the_window_at_once(window, tmp_path, qtbot, ready,
                                                       small_threshold, monkeypatch):
    import threading
    path, _ = corpus_file(tmp_path / "big.txt")
    c = window.controller
    before = c.trainer
    entered, release = threading.Event(), threading.Event()
    real = engine_corpus.count_corpus

    def slow(*a, **kw):           # a reading phase that does not look at cancel for long
        entered.set()
        release.wait(10)
        return real(*a, **kw)
    monkeypatch.setattr(engine_corpus, "count_corpus", slow)
    assert window.dock_layout.editor.open_files([str(path)])
    qtbot.waitUntil(entered.is_set, timeout=10_000)
    window.actions_menus.acts["cancel"].trigger()
    assert not c.busy              # dropped at once, the job ends by itself later
    assert "Reading" in window.statusBar().currentMessage()
    assert c.trainer is before
    release.set()


def test_a_streamed_corpus_reopens_from_its_session_streamed(window, tmp_path, qtbot, ready,
                                                             small_threshold, never_whole):
    path, _ = corpus_file(tmp_path / "big.txt")
    c = open_streamed(window, path, qtbot, ready)
    c.set_settings(TrainSettings(vocab_size=300))
    assert c.training.train()
    qtbot.waitUntil(lambda: not c.busy and c.trainer.is_done, timeout=30_000)
    session = tmp_path / "s.bpesession"
    assert c.opening.save_session(str(session))
    assert str(path) in session.read_text(encoding="utf-8")
    c.set_corpus_text("something else entirely", dirty=False)
    assert c.opening.open_session(str(session)) is not None
    qtbot.waitUntil(lambda: c.streamed and not c.busy and c.step_index == 300 - 256,
                    timeout=30_000)
    assert c.corpus_paths == [str(path)]


def test_saving_a_streamed_corpus_is_refused_with_the_reason(window, tmp_path, qtbot, ready,
                                                             small_threshold):
    path, _ = corpus_file(tmp_path / "big.txt")
    c = open_streamed(window, path, qtbot, ready)
    out = tmp_path / "copy.txt"
    assert not c.opening.save_corpus(str(out))
    assert not out.exists()
    why = window.status.last_error[1]
    assert "streamed" in why and "Copy the files" in why


def test_compare_trains_its_other_configuration_from_the_files(window, tmp_path, qtbot, ready,
                                                               small_threshold, never_whole):
    path, _ = corpus_file(tmp_path / "big.txt")
    open_streamed(window, path, qtbot, ready)
    pane = window.dock_layout.compare_view.pane_b
    pane.set_kind("trained")
    pane.t_vocab.setValue(300)
    assert pane.train()
    qtbot.waitUntil(lambda: not pane.training, timeout=30_000)
    oracle = Trainer.from_files([str(path)], pane.form_settings())
    oracle.run()
    assert pane.trained_tokenizer.merges == oracle.merges
    assert f"Trained {len(oracle.merges)} merges" in pane.train_status.text()


def test_the_corpus_dock_shows_banner_preview_and_counts_without_scrolling(
        window, tmp_path, qtbot, ready, small_threshold):
    """The dock's scroll area sizes the editor by its preferred heights (its wrapped
    labels make it height-for-width): the text box's 192 preferred pixels plus a
    five-line banner made the corpus dock scroll at the default 1920x1080 layout."""
    window.resize(1760, 480)   # the corpus dock about as high as at 1920x1080 (370 px)
    qtbot.waitUntil(lambda: window.height() == 480)
    window.dock_layout.corpus_dock.raise_()
    path, _ = corpus_file(tmp_path / "four-classic-novels-of-chinese-literature.txt.gz",
                          gz=True)   # a long name: a five-line banner
    open_streamed(window, path, qtbot, ready)
    area = window.dock_layout.corpus_dock.widget()
    qtbot.waitUntil(lambda: window.dock_layout.corpus_dock.height() < 400)
    qtbot.wait(100)
    assert not area.verticalScrollBar().isVisible()
    editor = window.dock_layout.editor
    assert editor.stats_label.isVisible() and editor.banner.isVisible()
