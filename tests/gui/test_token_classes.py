"""The vocabulary browser's Class column and filter (issue #14): every token's class
(ok / unreachable / undecodable / special) checked against tiktoken built from the same
vocabulary and pattern; classes that follow the steps; a big imported vocabulary
classified by a job of the controller's that the window stays responsive through."""
from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QToolTip

from bpe_gui.engine.formats import load_tokenizer
from bpe_gui.engine.train.trainer import TrainSettings
from bpe_gui.gui.models.vocab_model import VocabModel
from bpe_gui.gui.panels.vocab.vocab_browser import VocabBrowser
from bpe_gui.gui.controller.token_classes import SYNC_MAX
from oracles import CORPUS, GPT2, crossing_tiktoken, oracle
from settle import settle

tiktoken = pytest.importorskip("tiktoken")

EOT = "<|endoftext|>"
pytestmark = pytest.mark.controller(CORPUS + EOT + CORPUS, vocab_size=700,
                                    special_tokens=(EOT,))


def shown_classes(browser) -> dict[int, str]:
    m = browser.model
    return {m.entry(r).id: m.index(r, VocabModel.CLASS).data() for r in range(m.rowCount())}


PLAIN_LABELS = ["All classes", "ok", "unreachable", "undecodable", "special"]


def filter_labels(browser) -> list[str]:
    box = browser.class_filter
    return [box.itemText(k) for k in range(box.count())]


def labels_with_counts(classes: dict[int, str]) -> list[str]:
    n = Counter(classes.values())
    return ["All classes"] + [f"{k} ({n[k]:,})" for k in PLAIN_LABELS[1:]]


def tip_text(tip: str) -> str:
    """A tooltip's words as read (rich text rendered to plain, line breaks as spaces)."""
    doc = QTextDocument()
    doc.setHtml(tip)
    return " ".join(doc.toPlainText().split())


@pytest.fixture
def browser(qtbot, controller):
    b = VocabBrowser(controller)
    qtbot.addWidget(b)
    b.resize(1000, 600)
    b.show()
    qtbot.waitExposed(b)
    return b


def test_trained_classes_match_tiktoken_and_follow_the_steps(browser, controller, qtbot):
    for k in (0, 1, 30, 120, 60):
        controller.goto(k)
        settle(qtbot, browser)               # its throttled refresh has run
        tok = controller.trainer.tokenizer()
        want = oracle(tok)
        assert shown_classes(browser) == want, k
        assert "undecodable" in set(want.values()) and "special" in set(want.values())
    assert "classes:" in browser.summary.text()
    for _ in range(5):                    # a step classifies its new token at once
        assert controller.step()
        settle(qtbot, browser)
        assert shown_classes(browser) == oracle(controller.trainer.tokenizer())


def test_the_filter_shows_one_class(browser, controller, qtbot):
    controller.goto(80)
    settle(qtbot, browser)
    want = oracle(controller.trainer.tokenizer())
    for kind in ("undecodable", "special", "ok"):
        browser.set_class_filter(kind)
        assert sorted(browser.visible_ids()) == sorted(i for i, k in want.items() if k == kind)
    browser.search.setText("e")                  # with a search too: both must hold
    browser.apply_search()
    tok = controller.trainer.tokenizer()
    ok_with_e = sorted(i for i, k in want.items() if k == "ok"
                       and "e" in browser.model.token_text(browser.model.entry_by_id(i)).lower())
    assert sorted(browser.visible_ids()) == ok_with_e and tok.vocab
    browser.search.clear()
    browser.apply_search()
    browser.set_class_filter("")
    assert len(browser.visible_ids()) == len(want)


def test_an_imported_vocabulary_is_classified_by_a_job(browser, controller, qtbot, tmp_path):
    path = crossing_tiktoken(tmp_path, SYNC_MAX + 700)
    tok = load_tokenizer(str(path))
    assert len(tok.vocab) > SYNC_MAX
    labels = []
    controller.progress.connect(lambda label, *_: labels.append(label))
    assert controller.tokenizer_files.import_tokenizer(str(path)) is not None
    qtbot.waitUntil(lambda: browser.model.classes is not None, timeout=30_000)
    assert any(label.startswith("Classifying") for label in labels)  # in the status bar
    want = oracle(tok, GPT2)
    assert shown_classes(browser) == want
    unreachable = [i for i, k in want.items() if k == "unreachable"]
    assert len(unreachable) > 100
    # the tooltip says what an unreachable token's text encodes to (tiktoken's ids)
    ranks = {b: i for i, b in sorted(tok.vocab.items(), reverse=True)}
    enc = tiktoken.Encoding("o", pat_str=GPT2, mergeable_ranks=ranks, special_tokens={})
    i = unreachable[0]
    m = browser.model
    row = next(r for r in range(m.rowCount()) if m.entry(r).id == i)
    tip = m.index(row, VocabModel.CLASS).data(0x03)   # Qt.ToolTipRole
    again = enc.encode(tok.vocab[i].decode())
    assert f"(ids {', '.join(map(str, again))})" in tip_text(tip)
    assert filter_labels(browser) == labels_with_counts(want)   # this tokenizer's counts
    browser.set_class_filter("unreachable")
    assert sorted(browser.visible_ids()) == unreachable


def test_cancel_stops_classifying_and_a_class_asks_again(browser, controller, qtbot,
                                                        tmp_path, monkeypatch):
    path = str(crossing_tiktoken(tmp_path, SYNC_MAX + 300))
    seen = []   # the labels of the jobs that delivered a result
    start = controller.start

    def start_and_watch(job):
        done = job.on_done
        job.on_done = lambda result: (seen.append(job.label), done(result))
        return start(job)
    monkeypatch.setattr(controller, "start", start_and_watch)

    def cancel_at_once(busy: bool) -> None:   # the user presses Cancel (Esc)
        if busy:
            controller.busyChanged.disconnect(cancel_at_once)
            controller.cancel()
    controller.busyChanged.connect(cancel_at_once)
    tok = controller.tokenizer_files.import_tokenizer(path)
    qtbot.waitUntil(lambda: not controller.busy, timeout=30_000)
    assert browser.model.classes is None and seen == []   # no classes delivered
    assert "cancelled" in browser.classes_text()
    assert filter_labels(browser) == PLAIN_LABELS     # no classes known: no counts
    browser.set_class_filter("ok")                # asking for a class starts it again
    qtbot.waitUntil(lambda: browser.model.classes is not None, timeout=30_000)
    assert sorted(browser.visible_ids()) == sorted(
        i for i, k in oracle(tok, GPT2).items() if k == "ok")


def test_a_step_drops_a_classification_that_is_running(qtbot, tmp_path):
    """Classifying a trained vocabulary yields: the user's step is never refused as
    busy; the classes are worked out again once the window is idle, and are right."""
    from bpe_gui.gui.controller.controller import Controller
    text = CORPUS * 6 + " ".join(f"w{i} x{i * 7}" for i in range(4000))
    c = Controller()
    c.set_settings(TrainSettings(vocab_size=SYNC_MAX + 1500))
    c.set_corpus_text(text)
    assert c.training.retrain()
    qtbot.waitUntil(lambda: not c.busy and c.trainer is not None, timeout=30_000)
    b = VocabBrowser(c)
    qtbot.addWidget(b)
    b.resize(900, 500)
    b.show()
    assert c.training.to_target()
    qtbot.waitUntil(lambda: c.busy and c.job_label.startswith("Classifying"),
                    timeout=30_000)
    assert c.undo()                               # not refused: the job makes room
    qtbot.waitUntil(lambda: b.model.classes is not None
                    and len(b.model.classes.codes) >= len(c.trainer.vocab_bytes),
                    timeout=30_000)
    assert shown_classes(b) == oracle(c.trainer.tokenizer())
    c.shutdown()


def test_the_filter_counts_each_class_as_the_steps_go(browser, controller, qtbot):
    for k in (0, 30, 120, 60):
        controller.goto(k)
        settle(qtbot, browser)
        want = oracle(controller.trainer.tokenizer())
        assert filter_labels(browser) == labels_with_counts(want), k
    browser.set_class_filter("undecodable")        # the current class keeps its place
    assert controller.step()
    settle(qtbot, browser)
    assert filter_labels(browser) == labels_with_counts(oracle(controller.trainer.tokenizer()))
    assert browser.class_filter.currentData() == "undecodable"


def test_the_class_tooltip_wraps_into_readable_lines(browser, controller, qtbot, tmp_path):
    """A class tooltip is shown in lines of a readable width (not one line across the
    screen, nor a narrow column), with every word and id of the plain sentence."""
    tok = controller.tokenizer_files.import_tokenizer(str(crossing_tiktoken(tmp_path, 900)))
    qtbot.waitUntil(lambda: browser.model.classes is not None, timeout=30_000)
    want = oracle(tok, GPT2)
    m = browser.model
    reach = m.classes
    i = max((i for i, k in want.items() if k == "unreachable"),
            key=lambda i: len(reach.reencoded.get(i, ())))
    tip = m.index(m.row_of_id(i), VocabModel.CLASS).data(0x03)   # Qt.ToolTipRole
    words = tip_text(tip)
    again = reach.reencoded[i]
    assert words.startswith("unreachable: its text encodes to other tokens")
    assert f"Its text encodes to: {' + '.join(m._text_of_id(t) for t in again)}" in words
    assert f"(ids {', '.join(map(str, again))})" in words
    QToolTip.showText(browser.mapToGlobal(QPoint(20, 20)), tip, browser)
    label = next(w for w in QApplication.topLevelWidgets()
                 if w.objectName() == "qtooltip_label" and w.isVisible())
    fm = label.fontMetrics()
    try:
        assert label.width() < fm.horizontalAdvance(words[:100])      # wrapped
        assert label.width() > fm.horizontalAdvance("x" * 45)          # not a narrow column
    finally:
        QToolTip.hideText()


@pytest.mark.regression
def test_clip_tokens_are_ok_in_the_browser(browser, controller, qtbot, tmp_path):
    """The browser classed every CLIP token "unreachable" (photo</w> too), none "ok",
    although encoding gives them: each word-final token is checked by encoding its word."""
    import gzip
    merges = ["p h", "o t", "ph ot", "phot o</w>", "c a", "ca t</w>", "d o", "do g</w>",
              "o f</w>"]
    gz = tmp_path / "bpe_simple_vocab_16e6.txt.gz"
    gz.write_bytes(gzip.compress(("\"bpe_simple_vocab_16e6.txt#version: 0.2\n"
                                  + "\n".join(merges) + "\n").encode()))
    tok = controller.tokenizer_files.import_tokenizer(str(gz))
    assert tok is not None
    qtbot.waitUntil(lambda: browser.model.classes is not None, timeout=30_000)
    shown = shown_classes(browser)
    for word in ("photo", "cat", "dog", "of"):
        (i,) = tok.encode(word, allowed_special="all")
        assert tok.vocab[i] == word.encode() + b"</w>"
        assert shown[i] == "ok", word
    assert "ok (0)" not in filter_labels(browser)
