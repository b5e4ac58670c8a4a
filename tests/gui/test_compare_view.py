"""CompareView driven with real tokenizers; the table is checked against counting done
here (whole-text encodes, a regex for words), not against engine.stats."""
from __future__ import annotations

import regex
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from bpe_gui.engine.train.trainer import Trainer, TrainSettings
from bpe_gui.gui.panels.compare.compare_view import METRICS, CompareView

GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
CORPUS = ("the lower newest widest, 我们学习字节对编码。字节对编码很常见。 "
          "Lower newer 编码器 解码器 lowest 你好世界。\n") * 12
TEXT = "The newest lowest tokens: 字节对编码和解码器，你好！ widest"
ROWS = {key: i for i, (key, _, _) in enumerate(METRICS)}


pytestmark = pytest.mark.controller(CORPUS, vocab_size=600, step=60)


@pytest.fixture
def view(qtbot, controller):
    v = CompareView(controller)
    qtbot.addWidget(v)
    v.resize(1200, 800)
    v.show()
    v.fold.setChecked(False)
    v.pane_a.set_kind("current")
    v.pane_b.set_kind("step")
    v.pane_b.set_step(15)
    v.set_text(TEXT)
    return v


def script_of(s: str) -> str:
    han = any("\u4e00" <= c <= "\u9fff" for c in s)
    latin = any(c.isascii() and c.isalpha() for c in s)
    return "Other" if han == latin else "Han" if han else "Latin"


def independent(tok, text: str) -> dict:
    ids = tok.encode(text, allowed_special="all")
    enc = tok.encode_with_offsets(text, allowed_special="all")
    assert enc.ids == ids
    words = [w for w in regex.findall(GPT2, text) if w.strip()]
    partial = 0
    for i in ids:
        try:
            tok.vocab[i].decode("utf-8")
        except UnicodeDecodeError:
            partial += 1
    per = {}
    for name in ("Latin", "Han"):
        mine = [i for i, (s, e) in enumerate(enc.offsets) if script_of(text[s:e]) == name]
        nbytes = sum(len(tok.vocab[enc.ids[i]]) for i in mine)
        nwords = sum(1 for w in words if script_of(w) == name)
        per[name] = {"tokens": len(mine), "bpt": nbytes / len(mine),
                     "tpw": len(mine) / nwords}
    return {"tokens": len(ids), "bpt": len(text.encode()) / len(ids),
            "tpw": len(ids) / len(words), "partial": partial / len(ids), **per}


def cell(view, key: str, side: int, column: str, role=Qt.UserRole):
    m = view.model
    return m.data(m.index(2 * ROWS[key] + side, 2 + m.columns.index(column)), role)


def test_two_steps_side_by_side(view, controller):
    t = controller.trainer
    for side, k in ((0, 60), (1, 15)):
        want = independent(t.tokenizer(at_step=k), TEXT)
        assert cell(view, "tokens", side, "All") == want["tokens"]
        assert cell(view, "tokens", side, "All", Qt.DisplayRole) == f"{want['tokens']:,}"
        assert cell(view, "bpt", side, "All") == pytest.approx(want["bpt"])
        assert cell(view, "bpt", side, "All", Qt.DisplayRole) == f"{want['bpt']:.2f}"
        assert cell(view, "tpw", side, "All") == pytest.approx(want["tpw"])
        assert cell(view, "partial", side, "All") == pytest.approx(want["partial"])
        for script in ("Latin", "Han"):
            assert cell(view, "tokens", side, script) == want[script]["tokens"]
            assert cell(view, "bpt", side, script) == pytest.approx(want[script]["bpt"])
            assert cell(view, "tpw", side, script) == pytest.approx(want[script]["tpw"])
    assert view.model.columns[:3] == ["All", "Latin", "Han"]
    assert "step 15" in view.pane_b.caption.full_text()


def byte_cuts(tok, text: str) -> set:
    """(char, byte-in-char) after every token but the last, from cumulative bytes."""
    where, pos = {}, 0
    for ci, ch in enumerate(text):
        for k in range(len(ch.encode())):
            where[pos + k] = (ci, k)
        pos += len(ch.encode())
    cuts, pos = set(), 0
    for i in tok.encode(text, allowed_special="all")[:-1]:
        pos += len(tok.vocab[i])
        cuts.add(where[pos])
    return cuts


def test_differing_cuts_are_marked(view, controller):
    t = controller.trainer
    a, b = byte_cuts(t.tokenizer(at_step=60), TEXT), byte_cuts(t.tokenizer(at_step=15), TEXT)
    assert set(view.pane_a.view.marks) == a - b
    assert set(view.pane_b.view.marks) == b - a
    assert b - a and f"{len(b - a):,}</b> only in B" in view.summary.text()
    # every mark is drawn somewhere inside the text area
    for c, k in list(view.pane_b.view.marks)[:5]:
        x, top, bottom = view.pane_b.view.mark_x(c, k)
        assert 0 <= x <= view.pane_b.view.viewport().width() and bottom > top


def test_step_beyond_the_current_one(view, controller, qtbot):
    controller.goto(20)            # back: steps 21..60 stay available for comparing
    view.pane_b.set_step(60)
    view.compare_now()
    assert view.pane_b.step_spin.maximum() == 60
    want = controller.trainer.tokenizer(at_step=60, redo=True).encode(TEXT, allowed_special="all")
    assert cell(view, "tokens", 1, "All") == len(want)
    assert cell(view, "tokens", 0, "All") == len(controller.trainer.tokenizer().encode(TEXT, allowed_special="all"))


def test_another_configuration_trains_in_the_background(view, controller, qtbot):
    pane = view.pane_b
    pane.set_kind("trained")
    pane.t_mode.setCurrentIndex(pane.t_mode.findData("char"))
    pane.t_pattern.setCurrentIndex(pane.t_pattern.findData("cjk"))
    pane.t_vocab.setValue(300)
    with qtbot.waitSignal(pane.trained, timeout=20_000):
        qtbot.mouseClick(pane.train_btn, Qt.LeftButton)
        assert pane.training and not pane.train_btn.isEnabled()
    qtbot.waitUntil(lambda: not view._timer.isActive(), timeout=5000)
    view.compare_now()
    ref = Trainer.from_text(CORPUS, TrainSettings(vocab_size=300, mode="char", pattern="cjk"))
    ref.run(detail=False)
    tok = ref.tokenizer()
    ids = tok.encode(TEXT, allowed_special="all")
    assert cell(view, "tokens", 1, "All") == len(ids)
    assert cell(view, "bpt", 1, "All") == pytest.approx(len(TEXT.encode()) / len(ids))
    assert cell(view, "partial", 1, "All") == 0
    assert "char-level" in pane.caption.full_text() and "CJK-aware" in pane.caption.full_text()
    assert "Trained" in pane.train_status.text()


def test_bad_settings_and_empty_corpus_are_reported(view, controller, qtbot):
    pane = view.pane_b
    pane.set_kind("trained")
    pane.t_vocab.setValue(10)          # below the 256 bytes: said at once
    assert not pane.train()
    assert "below the base alphabet" in pane.train_status.text()
    pane.t_mode.setCurrentIndex(pane.t_mode.findData("char"))   # known after reading
    with qtbot.waitSignal(pane.trained, timeout=20_000):
        assert pane.train()
    assert "below the base alphabet" in pane.train_status.text()
    assert pane.tokenizer() is None and pane.train_btn.isEnabled()
    controller.set_corpus_text("")
    assert not pane.train()
    assert "empty" in pane.train_status.text()


def test_imported_tokenizer_from_files(view, controller, tmp_path):
    from bpe_gui.engine.formats import export_tokenizer
    tok = controller.trainer.tokenizer(at_step=40)
    files = export_tokenizer(tok, tmp_path, "gpt2")
    pane = view.pane_b
    assert pane.open_file(str(next(p for p in files if p.name.endswith("vocab.json"))))
    assert pane.kind_key() == "imported"
    view.compare_now()
    assert cell(view, "tokens", 1, "All") == len(tok.encode(TEXT, allowed_special="all"))
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    assert not pane.open_file(str(bad))
    assert "broken.json" in pane.imp_label.text()
    # the app's own imported tokenizer
    controller.imported, controller.imported_path = tok, "gpt2/vocab.json"
    view.pane_a.set_kind("imported")
    view.compare_now()
    assert cell(view, "tokens", 0, "All") == len(tok.encode(TEXT, allowed_special="all"))


def test_screenshot_shows_both_sides(view, tmp_path):
    path = tmp_path / "compare.png"
    assert view.grab().save(str(path))
    img = QImage(str(path))
    assert img.width() == view.width() and img.height() == view.height()


# ----- the Vocabulary overlap tab (issue #14) ---------------------------------------------------
def overlap_oracle(a, b, classes_b, classes_a=None):
    """Counted here: token byte sets without special tokens, and how many of one side's
    tokens the other has with class ok (tiktoken's classes, oracles.py)."""
    def tokens(t):
        sp = set(t.special_ids.values())
        return {v for i, v in t.vocab.items() if i not in sp}
    sa, sb = tokens(a), tokens(b)
    ok_b = {b.vocab[i] for i, k in classes_b.items() if k == "ok"}
    out = {"shared": sorted(sa & sb), "only_a": sorted(sa - sb), "only_b": sorted(sb - sa),
           "jaccard": len(sa & sb) / len(sa | sb), "a_single_in_b": len(sa & ok_b)}
    if classes_a is not None:
        ok_a = {a.vocab[i] for i, k in classes_a.items() if k == "ok"}
        out["b_single_in_a"] = len(sb & ok_a)
    return out


def test_overlap_of_two_steps(view, controller, qtbot):
    from oracles import oracle
    view.show_overlap()
    ov = view.overlap
    qtbot.waitUntil(lambda: ov.overlap is not None, timeout=10_000)
    a = controller.trainer.tokenizer()                   # side A: step 60
    b = controller.trainer.tokenizer(at_step=15)         # side B: step 15
    want = overlap_oracle(a, b, oracle(b), oracle(a))
    got = ov.overlap
    assert list(got.shared) == want["shared"] and list(got.only_a) == want["only_a"]
    assert list(got.only_b) == want["only_b"] == []      # B's merges are A's first 15
    assert got.jaccard == pytest.approx(want["jaccard"])
    assert (got.a_single_in_b, got.b_single_in_a) == (want["a_single_in_b"],
                                                      want["b_single_in_a"])
    shown = ov.models["only_a"].texts()
    assert len(shown) == len(want["only_a"]) == 45     # the 45 merges of steps 16..60
    assert f"{len(want['shared']):,}" in ov.numbers.text()
    assert f"{want['jaccard']:.3f}" in ov.numbers.text()
    view.pane_b.set_step(60)                             # the same vocabulary: all shared
    view.compare_now()
    qtbot.waitUntil(lambda: ov.overlap is not None and not ov.overlap.only_a, timeout=5000)
    assert ov.overlap.jaccard == 1.0


def test_overlap_numbers_are_readable_in_a_short_wide_tab(controller, qtbot):
    """In a bottom dock the tab is short and wide: the numbers keep their rows on one
    line each (not a column of single words) and can all be scrolled to, not cut off."""
    from PySide6.QtWidgets import QScrollArea

    from bpe_gui.gui.panels.compare.compare_overlap import OverlapPanel
    panel = OverlapPanel(controller)
    qtbot.addWidget(panel)
    panel.resize(1100, 130)
    panel.show()
    view = controller.view()
    a, b = view.tokenizer(), view.tokenizer(at_step=15)
    panel.want(a, b, ("a", "b"), ("A", "B"))
    qtbot.waitUntil(lambda: panel.overlap is not None, timeout=10_000)
    numbers = panel.numbers
    qtbot.waitUntil(lambda: numbers.width() > 0)
    fm = numbers.fontMetrics()
    assert numbers.width() >= fm.horizontalAdvance("Jaccard index |A ∩ B| / |A ∪ B|") \
        + fm.horizontalAdvance(" 0.000")
    scroll = numbers.parentWidget()
    while scroll is not None and not isinstance(scroll, QScrollArea):
        scroll = scroll.parentWidget()
    assert scroll is not None and scroll.height() < numbers.heightForWidth(numbers.width())
    qtbot.waitUntil(lambda: numbers.height() >= numbers.heightForWidth(numbers.width()),
                    timeout=2000)                    # all of it, in the scroll area


def test_overlap_of_two_big_imported_vocabularies_runs_as_a_job(view, controller, qtbot,
                                                                 tmp_path):
    """Over SYNC_OVERLAP tokens in all: the controller's job runner compares them (the
    status bar's progress), and every number equals the oracle's."""
    from oracles import GPT2, crossing_tiktoken, oracle

    from bpe_gui.engine.formats import load_tokenizer
    from bpe_gui.gui.controller.side_jobs import SYNC_OVERLAP
    pa = crossing_tiktoken(tmp_path, 3200, pattern=GPT2, name="plain")
    pb = crossing_tiktoken(tmp_path, 3000, name="crossing")
    a, b = load_tokenizer(str(pa)), load_tokenizer(str(pb))
    assert len(a.vocab) + len(b.vocab) > SYNC_OVERLAP
    labels = []
    controller.progress.connect(lambda label, *_: labels.append(label))
    view.show_overlap()
    view.pane_a.set_tokenizer(a, "plain.tiktoken")
    view.pane_b.set_tokenizer(b, "crossing.tiktoken")
    view.compare_now()
    ov = view.overlap
    qtbot.waitUntil(lambda: ov.overlap is not None and len(ov.overlap.only_b) > 0
                    and not controller.busy, timeout=60_000)
    assert any(label.startswith("Comparing the two vocabularies") for label in labels)
    want = overlap_oracle(a, b, oracle(b, GPT2), oracle(a, GPT2))
    got = ov.overlap
    assert (list(got.shared), list(got.only_a), list(got.only_b)) == \
        (want["shared"], want["only_a"], want["only_b"])
    assert got.jaccard == pytest.approx(want["jaccard"])
    assert got.a_single_in_b == want["a_single_in_b"] < len(want["shared"])
    assert got.b_single_in_a == want["b_single_in_a"]


def test_another_configuration_trains_as_a_job_of_the_controller(view, controller, qtbot):
    """The compare side has no job runner of its own: its training is the controller's
    job (busy, its label in the status bar, Cancel stops it), so stepping waits."""
    pane = view.pane_b
    pane.set_kind("trained")
    pane.t_vocab.setValue(500)
    assert pane.train()
    assert controller.busy and controller.job_label == "Training side B"
    assert not controller.step()                 # one job at a time
    controller.cancel()                          # the status bar's Cancel (Esc)
    assert not controller.busy and not pane.training
    assert "cancelled" in pane.train_status.text()
    with qtbot.waitSignal(pane.trained, timeout=20_000):
        assert pane.train()
    assert pane.trained_tokenizer is not None and controller.step()
