"""Analysis › What was it trained on?: samples per category, inferred on the job runner
(progress, Cancel), the proportions chart, each merge against its runner-up. The shares
shown are checked against the slow, independent program of tests/engine/
mixture_reference.py (they reach its optimum), for the trained tokenizer and imported
files; a round limit that stops it first is said beside the shares."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

import mixture_reference as ref
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
from bpe_gui.gui.dialogs.training_mixture import (NOTE, TrainingMixtureDialog, category_of,
                                                  show_training_mixture)
from bpe_gui.gui.models.mixture_steps import PairCountsModel, pair_text

pytest.importorskip("scipy")

SAMPLES = {
    "en": "The quick brown fox jumps over the lazy dog. It is a lovely day, isn't it? "
          "The weather is fine and the children play in the garden all afternoon.\n",
    "zh": "满纸荒唐言，一把辛酸泪！都云作者痴，谁解其中味？我们在学习字节对编码的分词方法。\n",
    "py": "def square(x):\n    return x * x\n\nfor i in range(10):\n    print(square(i))\n",
}
# the training text: 60% English, 10% Chinese, 30% code (by repeats of the samples' lines)
CORPUS = SAMPLES["en"] * 60 + SAMPLES["zh"] * 10 + SAMPLES["py"] * 30

pytestmark = pytest.mark.controller(CORPUS, vocab_size=400)


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "samples"
    d.mkdir()
    for k, text in SAMPLES.items():
        (d / f"{k}.txt").write_text(text * 20, "utf-8")
    return d


@pytest.fixture
def dialog(qtbot, controller):
    controller.training.to_target()   # every merge of the training run
    qtbot.waitUntil(lambda: not controller.busy, timeout=20_000)
    dlg = TrainingMixtureDialog(controller)
    qtbot.addWidget(dlg)
    dlg.resize(1200, 800)
    dlg.show()
    return dlg


def infer(qtbot, dlg) -> None:
    with qtbot.waitSignal(dlg.controller.jobs.finished, timeout=60_000):
        assert dlg.run()
    qtbot.waitUntil(lambda: dlg.mixture is not None and not dlg._running, timeout=10_000)


def samples_of(folder) -> dict[str, str]:
    return {k: (folder / f"{k}.txt").read_text("utf-8") for k in SAMPLES}


def test_the_trained_tokenizer_gives_the_engines_proportions(qtbot, dialog, controller,
                                                            folder):
    assert not dialog.infer.isEnabled() and "two categories" in dialog.status.text()
    assert dialog.add_sample_folder(str(folder))
    assert sorted(dialog.samples) == ["en", "py", "zh"]
    assert dialog.sample_table.rowCount() == 3 and dialog.infer.isEnabled()
    infer(qtbot, dialog)
    got = dialog.mixture
    merges = [(bytes(a), bytes(b)) for a, b in controller.tokenizer().merges]
    assert ref.optimal(samples_of(folder), ref.gpt2_pattern(), merges, got.proportions)
    assert sum(got.proportions.values()) == pytest.approx(1.0)
    assert "optimal after" in dialog.status.text()
    # the chart: one bar per category, its share
    bars = dialog.share_chart.series["share"]
    assert bars.ys == pytest.approx(list(got.proportions.values()))
    for k, v in got.proportions.items():
        assert f"{k} {v:.1%}" in dialog.shares_label.text()
    # every merge, step by step; the first selected, its counts against the runner-up
    assert dialog.steps_model.rowCount() == got.merges_used == controller.step_index
    step = got.steps[0]
    assert dialog.pair_model.step is step
    rows = {dialog.pair_model.names[r]: r for r in range(dialog.pair_model.rowCount())}
    best = step.best_category
    assert dialog.pair_model.index(rows[best], 0).data() == f"{best} ★"
    weights = {k: dialog.pair_model.values(k)[3] for k in rows}
    assert max(weights, key=weights.get) == best
    for k, r in rows.items():
        share, m, ru, w = dialog.pair_model.values(k)
        assert (m, ru) == (step.counts[k], step.runner_up_counts.get(k, 0.0))
        assert w == pytest.approx(got.proportions[k] * (m - ru))
        assert dialog.pair_model.index(r, 2).data() == f"{m:,.1f}"
    assert set(dialog.pair_chart.series) == {"merge " + pair_text(step.merge),
                                             "runner-up " + pair_text(step.runner_up)}
    assert f"Step {step.step:,}" in dialog.why.text()
    # another merge, by the keyboard
    dialog.steps_view.setFocus()
    qtbot.keyClick(dialog.steps_view, Qt.Key.Key_Down)
    assert dialog.pair_model.step is got.steps[1]
    # only the merges one category explains best
    dialog.evidence.setCurrentIndex(dialog.evidence.findData("zh"))
    assert [s.step for s in dialog.steps_model.rows] == got.evidence["zh"]
    assert "merges replayed on 3 samples" in dialog.status.text()


@pytest.mark.parametrize("fmt,name", [("tiktoken", "tokenizer.tiktoken"),
                                      ("hf", "tokenizer.json"), ("gpt2", "vocab.json")])
def test_an_imported_tokenizer(qtbot, dialog, controller, folder, tmp_path, fmt, name):
    trained = [(bytes(a), bytes(b)) for a, b in controller.tokenizer().merges]
    export_tokenizer(controller.tokenizer(), tmp_path, fmt)
    tok = load_tokenizer(tmp_path / name)
    controller.imported, controller.imported_path = tok, str(tmp_path / name)
    controller.tokenizer_files.set_use_imported(True)
    dialog._update()
    assert dialog.tokenizer_box.currentData() == "imported"
    assert name in dialog.tokenizer_box.currentText()
    dialog.add_sample_files([str(folder / "en.txt"), str(folder / "zh.txt")])
    dialog.merges.setValue(tok.n_merges - 1)
    infer(qtbot, dialog)
    texts = {k: samples_of(folder)[k] for k in ("en", "zh")}
    assert ref.optimal(texts, ref.gpt2_pattern(), trained[:tok.n_merges - 1],
                       dialog.mixture.proportions)
    assert dialog.mixture.merges_used == tok.n_merges - 1 == dialog.steps_model.rowCount()


def test_a_round_limit_says_the_shares_are_not_the_answer(qtbot, dialog, controller,
                                                          folder):
    """One round stops the program before its optimum here: the status and the shares
    say so, with the largest violation, and the shares are indeed not optimal."""
    dialog.add_sample_folder(str(folder))
    dialog.rounds.setValue(1)
    infer(qtbot, dialog)
    got = dialog.mixture
    assert not got.converged and got.rounds == 1
    assert "NOT converged: stopped after 1 rounds" in dialog.status.text()
    assert "Not converged" in dialog.shares_label.text()
    assert f"{got.violation:,.1f} per million bytes" in dialog.shares_label.text()
    merges = [(bytes(a), bytes(b)) for a, b in controller.tokenizer().merges]
    assert not ref.optimal(samples_of(folder), ref.gpt2_pattern(), merges, got.proportions)


@pytest.mark.parametrize("controller", [dict(mode="char")], indirect=True)
def test_a_character_level_tokenizer_is_refused_by_name(qtbot, dialog, folder):
    dialog.add_sample_folder(str(folder))
    assert not dialog.infer.isEnabled()
    assert "byte-level" in dialog.status.text()


def test_cancel_says_so(qtbot, dialog, controller, folder):
    dialog.add_sample_folder(str(folder))

    def cancel_at_once(busy: bool) -> None:
        if busy:
            controller.busyChanged.disconnect(cancel_at_once)
            controller.cancel()
    controller.busyChanged.connect(cancel_at_once)
    assert dialog.run()
    qtbot.waitUntil(lambda: not controller.busy and not dialog._running, timeout=20_000)
    assert "cancelled" in dialog.status.text() and dialog.mixture is None
    assert dialog.infer.isEnabled()


def test_a_file_in_another_encoding_fails_with_its_name(qtbot, dialog, controller, folder):
    (folder / "de.txt").write_bytes("Grüße aus Köln".encode("latin-1") * 50)
    dialog.add_sample_folder(str(folder))
    with qtbot.waitSignal(controller.jobs.failed, timeout=20_000):
        assert dialog.run()
    qtbot.waitUntil(lambda: "de.txt" in dialog.status.text(), timeout=10_000)


def test_samples_files_and_removal(dialog, folder):
    assert category_of("zh.novels.txt.xz") == "zh" and category_of("/a/code.py") == "code"
    dialog.add_sample_files([str(folder / "en.txt"), str(folder / "en.txt")])
    assert dialog.samples == {"en": [str(folder / "en.txt")]}
    dialog.sample_table.selectRow(0)
    dialog.remove.click()
    assert dialog.samples == {} and dialog.sample_table.rowCount() == 0
    assert not dialog.add_sample_folder(str(folder / "missing"))
    assert "folder" in dialog.status.text()


def test_the_note_says_what_the_method_assumes(dialog):
    if dialog.tabs is not None:   # a small screen: a tab of its own
        dialog.tabs.setCurrentIndex(2)
    assert dialog.note.isVisible() and dialog.note.text() == NOTE
    assert "resemble" in NOTE and "missing is absorbed by the nearest" in NOTE
    tips = [PairCountsModel.TIPS[k] for k in (2, 3)]
    assert all("per million bytes" in t for t in tips)


def test_opened_from_the_analysis_menu_with_its_shortcut(qtbot, window):
    from PySide6.QtGui import QKeySequence
    act = window.actions_menus.acts["training_mixture"]
    assert act.shortcut() == QKeySequence("Ctrl+Shift+M")
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Analysis")
    assert act in menu.actions()
    act.trigger()
    dlg = window.findChild(TrainingMixtureDialog)
    assert dlg is not None and dlg.isVisible()
    assert show_training_mixture(window.controller, window) is dlg
    dlg.close()
