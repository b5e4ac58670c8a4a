"""Parity-aware training from the window (issue 55, item 3): the languages' files added
in the training settings (names from the file names, dev files found beside them),
trained by a job with progress; the merges equal Hugging Face tokenizers'
ParityBpeTrainer on the same lines; whose turn each step was, said in the merge panel
and the vocabulary browser, is the language whose dev text Hugging Face's own tokenizer
(the first k merges) cuts into the most tokens; the chart's lines are those counts;
stepping back, playing, going to a step, Esc and sessions work as for every training.

The oracle is tokenizers itself (ParityBpeTrainer, and a BPE tokenizer made of the
first k merges encoding the dev files), never our engine.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

from bpe_gui.engine.display import bytes_to_unicode  # noqa: E402
from bpe_gui.engine.train.parity import ParityTrainer  # noqa: E402
from bpe_gui.gui.controller.parity_setup import ParitySetup  # noqa: E402
from bpe_gui.gui.models.vocab_model import VocabModel  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "parallel"
LANGS = ("en", "de", "ru", "zh")
MERGES = 120


def lines(path: Path) -> list[str]:
    """A file as Hugging Face reads it line by line (each line keeps its newline)."""
    text = path.read_text(encoding="utf-8")
    out = text.split("\n")
    last = out.pop()
    return [ln + "\n" for ln in out] + ([last] if last else [])


def hf_parity(merges: int, **kw) -> list[tuple[str, str]]:
    """ParityBpeTrainer's merges (GPT-2 spellings) on the fixture's lines."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    dev = kw.pop("dev", True)
    tr = trainers.ParityBpeTrainer(num_merges=merges, show_progress=False, **kw)
    tr.train_from_iterator(
        tok, train_iterators=[iter(lines(FIXTURES / f"{n}.train.txt")) for n in LANGS],
        dev_iterators=[iter(lines(FIXTURES / f"{n}.dev.txt")) for n in LANGS]
        if dev else None)
    out = []
    for m in json.loads(tok.to_str())["model"]["merges"]:
        a, b = m.split(" ") if isinstance(m, str) else m
        out.append((a, b))
    return out


def spelled(merges) -> list[tuple[str, str]]:
    t = bytes_to_unicode()
    return [("".join(t[x] for x in a), "".join(t[x] for x in b)) for a, b in merges]


def hf_dev_tokens(merges: list[tuple[str, str]], k: int) -> dict[str, int]:
    """Each language's dev tokens under a byte-level BPE of the first k merges, encoded
    by tokenizers (the oracle of the chart and of whose turn it was)."""
    t = bytes_to_unicode()
    vocab = {t[i]: i for i in range(256)}
    for a, b in merges[:k]:
        vocab.setdefault(a + b, len(vocab))
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges[:k]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    return {n: sum(len(e.ids) for e in tok.encode_batch(lines(FIXTURES / f"{n}.dev.txt")))
            for n in LANGS}


def _train(qtbot, window, merges: int = MERGES, setup=None):
    """Through the window: the languages added, the target typed, Train."""
    c = window.controller
    panel = window.dock_layout.settings_panel
    panel.parity.add_languages([str(FIXTURES / f"{n}.train.txt") for n in LANGS])
    if setup is not None:
        setup(panel.parity)
    panel.merges_radio.setChecked(True)
    panel.merges_spin.setValue(merges)
    assert panel.check(), panel.errors
    labels: list[str] = []
    c.progress.connect(lambda label, *_: labels.append(label))
    assert window.actions_menus.flow.train()
    qtbot.waitUntil(lambda: not c.busy and c.view() is not None and c.view().is_done,
                    timeout=180_000)
    return c, labels


def _raise(qtbot, window, dock: str) -> None:
    d = getattr(window.dock_layout, dock)
    d.show()
    d.raise_()   # a dock tab behind another catches up when raised
    qtbot.wait(1)


def test_languages_from_file_names_with_dev_files_beside_them(window):
    box = window.dock_layout.settings_panel.parity
    box.add_languages([str(FIXTURES / f"{n}.train.txt") for n in LANGS])
    setup = box.value()
    assert setup.enabled
    assert [lang.name for lang in setup.languages] == list(LANGS)
    assert [Path(lang.dev).name for lang in setup.languages] == [f"{n}.dev.txt" for n in LANGS]
    box.set_name(3, "中文")   # names are editable, any script
    assert box.value().languages[3].name == "中文"


def test_window_trains_hf_parity_merges_with_a_job(qtbot, window):
    c, labels = _train(qtbot, window)
    # a job with progress (its first label, "Reading 4 languages", can be gone before a
    # progress signal carries it: the phases after it are always reported)
    assert "Plain BPE on the same data, for the chart" in labels, labels
    v = c.view()
    assert v.parity is not None and v.parity.names == LANGS
    assert v.n_steps == MERGES
    assert spelled(c.trainer.merges) == hf_parity(MERGES)


def test_turns_and_chart_are_the_dev_tokens_hf_counts(qtbot, window):
    c, _ = _train(qtbot, window)
    hf = hf_parity(MERGES)
    _raise(qtbot, window, "charts_dock")
    charts = window.dock_layout.charts_view
    charts.refresh()
    assert charts.parity.isVisible()
    panel = window.dock_layout.merge_panel
    model = window.dock_layout.vocab_browser.model
    for k in (1, 2, 37, MERGES):
        before = hf_dev_tokens(hf, k - 1)
        worst = max(LANGS, key=lambda n: (before[n], -LANGS.index(n)))  # ties: first
        assert c.goto(k)
        qtbot.waitUntil(lambda: not c.busy and c.step_index == k)
        panel._refresh()
        assert panel.last_reason.text().startswith(f"Step {k} served {worst}:"), \
            panel.last_reason.text()
        assert f"{worst}'s turn" in panel.last_title.text()
        tl = panel.timeline   # every row's tooltip says whose turn it was
        assert f"Step {k} served {worst}:" in tl.data(tl.index(k, 0),
                                                       Qt.ItemDataRole.ToolTipRole)
        # the vocabulary browser: the token step k made, and whose turn made it
        _raise(qtbot, window, "vocab_dock")
        window.dock_layout.vocab_browser._refresh()
        e = model.entry_by_id(c.trainer.steps[-1].new_id)
        assert model.turn_text(e) == worst
        row = model.row_of_id(e.id)
        assert model.data(model.index(row, VocabModel.TURN)) == worst
        # the chart: each language's dev tokens at steps 0..k are HF's counts
        _raise(qtbot, window, "charts_dock")
        charts.refresh()
        after = hf_dev_tokens(hf, k)
        for n in LANGS:
            xs, ys = charts.parity.data(n)
            assert xs[-1] == k
            assert ys[-1] == after[n] and ys[-2] == before[n]


def test_plain_bpe_is_charted_and_parity_narrows_the_gap(qtbot, window):
    c, _ = _train(qtbot, window)
    _raise(qtbot, window, "charts_dock")
    charts = window.dock_layout.charts_view
    charts.refresh()
    parity = {n: charts.parity.data(n)[1] for n in LANGS}
    plain = {n: charts.parity.data(f"{n} plain BPE")[1] for n in LANGS}
    assert all(len(plain[n]) == MERGES + 1 for n in LANGS)
    assert all(plain[n][0] == parity[n][0] for n in LANGS)   # the same dev text at step 0
    spread = lambda d: max(v[-1] for v in d.values()) - min(v[-1] for v in d.values())  # noqa: E731
    assert spread(parity) < spread(plain)


def test_step_back_play_goto_and_esc_as_for_any_training(qtbot, window, monkeypatch):
    c, _ = _train(qtbot, window, merges=60)
    panel = window.dock_layout.merge_panel
    merges = list(c.trainer.merges)
    qtbot.mouseClick(panel.back_btn, Qt.MouseButton.LeftButton)
    assert c.step_index == 59 and c.trainer.merges == merges[:59]
    qtbot.mouseClick(panel.reset_btn, Qt.MouseButton.LeftButton)
    assert c.step_index == 0
    c.set_playing(True, 10)
    qtbot.waitUntil(lambda: c.step_index >= 3, timeout=20_000)
    c.set_playing(False)
    assert c.trainer.merges == merges[:c.step_index]
    panel.goto_spin.setValue(45)
    qtbot.mouseClick(panel.goto_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not c.busy and c.step_index == 45)
    assert c.trainer.merges == merges[:45]
    # a long run, cancelled with Esc: the merges made so far stay, and are HF's
    # (the run waits at step 10 until Esc was pressed: 3,000 merges of this small
    # corpus could otherwise end before the key on a fast machine)
    gate = threading.Event()
    step = ParityTrainer.step

    def gated(self, detail: bool = True):
        if self.target == 3000 and self.n_steps >= 10:   # (not plain BPE's run)
            gate.wait(60)
        return step(self, detail)
    monkeypatch.setattr(ParityTrainer, "step", gated)
    s = window.dock_layout.settings_panel
    s.merges_spin.setValue(3000)
    assert s.apply()
    c.training.retrain(to_target=True)
    qtbot.waitUntil(lambda: c.busy)
    qtbot.waitUntil(lambda: c.training.running_trainer() is not None
                    and c.training.running_trainer().n_steps >= 10, timeout=60_000)
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    gate.set()
    qtbot.waitUntil(lambda: not c.busy, timeout=60_000)
    n = c.step_index
    assert 0 < n < 3000
    assert spelled(c.trainer.merges) == hf_parity(3000)[:n]


def test_window_variant_on_ratios_equals_hf(qtbot, window):
    def setup(box):
        box.ratio_radio.setChecked(True)
        box.variant.setCurrentIndex(box.variant.findData("window"))
        box.window_spin.setValue(10)
        box.alpha_spin.setValue(1.5)
        box.global_spin.setValue(5)
        for r, ratio in enumerate(("1", "1.2", "2", "0.8")):
            box.table.item(r, 3).setText(ratio)
    c, _ = _train(qtbot, window, merges=80, setup=setup)
    assert spelled(c.trainer.merges) == hf_parity(
        80, dev=False, variant="window", window_size=10, alpha=1.5, global_merges=5,
        ratio=[1.0, 1.2, 2.0, 0.8])
    panel = window.dock_layout.merge_panel
    c.goto(3)
    panel._refresh()
    assert "global merge" in panel.last_reason.text()
    _raise(qtbot, window, "charts_dock")
    window.dock_layout.charts_view.refresh()
    assert window.dock_layout.charts_view.parity.title == "Training tokens"


def test_minimum_pair_frequency_applies_to_parity(qtbot, window):
    """The settings' minimum pair frequency is HF's min_frequency for parity: HF's
    merges, fewer than asked, and the stop says why."""
    window.dock_layout.settings_panel.minfreq_spin.setValue(60)
    c, _ = _train(qtbot, window, merges=600)
    expected = hf_parity(600, min_frequency=60)
    assert len(expected) < 600
    assert spelled(c.trainer.merges) == expected
    assert "at least 60 times" in c.done_reason()


def test_bad_setups_are_said_inline_and_nothing_is_lost(qtbot, window):
    panel = window.dock_layout.settings_panel
    box = panel.parity
    box.add_languages([str(FIXTURES / "en.train.txt")])
    assert not panel.check()
    assert "at least two" in panel.parity.error.text()
    assert not panel.apply_button.isEnabled()
    box.add_languages([str(FIXTURES / "de.train.txt")])
    box.set_dev(1, "")
    assert not panel.check()
    assert "“de” has no dev file" in box.error.text()
    box.set_dev(1, str(FIXTURES / "de.dev.txt"))
    box.set_name(1, "en")
    assert not panel.check() and "given twice" in box.error.text()
    box.set_name(1, "de")
    box.ratio_radio.setChecked(True)
    box.table.item(0, 3).setText("-1")
    assert not panel.check() and "positive number" in box.error.text()
    box.table.item(0, 3).setText("1")
    assert panel.check(), panel.errors
    # what was typed stayed through every error
    assert [lang.name for lang in box.value().languages] == ["en", "de"]


def test_dev_files_of_different_lengths_are_flagged_where_the_run_is_read(qtbot, window,
                                                                           tmp_path):
    """ru's dev file cut to 30 lines: the run trains (a translation may wrap its lines
    differently), and the window says the dev texts are not parallel -- in the status
    bar's turns (a sign, the whole sentence in its tooltip, naming the file and its
    lines), in the merge panel's status line and in the status message after the run --
    and the turn explanation no longer claims "the same sentences"."""
    short = tmp_path / "ru.dev.txt"
    short.write_text("".join(lines(FIXTURES / "ru.dev.txt")[:30]), "utf-8")
    said: list[str] = []
    window.controller.message.connect(said.append)
    c, _ = _train(qtbot, window, merges=20, setup=lambda box: box.set_dev(2, str(short)))
    assert c.view().parity.warning is not None
    turns = window.status.turns_label
    assert turns.isVisible() and turns.text().startswith("⚠")
    assert f"({short}): 30" in turns.toolTip()
    merge = window.dock_layout.merge_panel
    assert "⚠ dev texts not parallel" in merge.status.text()
    assert f"({short}): 30" in merge.status.toolTip()
    assert any(m.startswith("Warning: the dev texts have different numbers of lines")
               and f"({short}): 30" in m for m in said), said
    assert "for the same sentences" not in merge.last_reason.text()
    assert "not the same sentences" in merge.last_reason.text()


def test_parallel_dev_files_get_no_warning(qtbot, window):
    c, _ = _train(qtbot, window, merges=20)
    assert c.view().parity.warning is None
    assert not window.status.turns_label.text().startswith("⚠")
    merge = window.dock_layout.merge_panel
    assert "not parallel" not in merge.status.text() and merge.status.toolTip() == ""
    assert "for the same sentences" in merge.last_reason.text()


def test_session_keeps_the_languages_and_the_step(qtbot, window, make_window, tmp_path):
    c, _ = _train(qtbot, window, merges=50)
    c.goto(30)
    path = tmp_path / "parity.bpesession"
    c.opening.session().save(path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert [lang["name"] for lang in saved["parity"]["languages"]] == list(LANGS)
    other = make_window(load=False)
    other.sessions.load_initial([str(path)])
    o = other.controller
    qtbot.waitUntil(lambda: not o.busy and o.view() is not None and o.step_index == 30,
                    timeout=120_000)
    assert o.parity == c.parity
    assert o.trainer.merges == c.trainer.merges[:30]
    box = other.dock_layout.settings_panel.parity
    assert box.table.rowCount() == 4 and box.check.isChecked()


def test_a_bad_parity_field_in_a_session_is_named_and_the_rest_kept(tmp_path):
    setup = ParitySetup.from_dict({"enabled": True, "window_size": 0, "alpha": "x",
                                   "languages": [{"name": "en", "train": "a.txt"}, 3]})
    assert [lang.name for lang in setup.languages] == ["en"]
    assert setup.window_size == 100 and setup.alpha == 2.0
    text = " ".join(setup.problems)
    assert "parity.window_size" in text and "parity.alpha" in text
    assert "parity.languages[2]" in text


def test_fields_parity_does_not_read_are_greyed_and_kept(qtbot, window):
    """Byte level, GPT-2's pattern, HF's tie rule: while parity is on, the mode, tie rule,
    pre-tokenizer, special tokens, pruning and SuperBPE fields are greyed (saying why),
    and come back with their values and tooltips when it is off."""
    panel = window.dock_layout.settings_panel
    panel.tie_combo.setCurrentIndex(panel.tie_combo.findData("first-seen"))
    own = panel.tie_box.toolTip()
    fields = (panel.mode_box, panel.tie_box, panel.preset_combo, panel.pattern_edit,
              panel.lines_check, panel.specials_box, panel.prune_check, panel.superbpe)
    panel.parity.check.setChecked(True)
    assert not any(w.isEnabled() for w in fields)
    # the engine's reason (engine.train.unused), as the command line refuses --tie-rule
    assert "Not used: parity training breaks ties as HF's ParityBpeTrainer" in \
        panel.tie_box.toolTip()
    assert panel.minfreq_spin.isEnabled() and panel.merges_spin.isEnabled()
    panel.parity.check.setChecked(False)
    assert all(w.isEnabled() for w in fields)
    assert panel.tie_box.toolTip() == own
    assert panel.tie_combo.currentData() == "first-seen"


def test_the_window_share_is_named_as_the_command_line_names_it(qtbot):
    """The parity box's field for the window variant's share has the name `train` gives
    it (--window-share), not alpha, which `cost` uses for the Rényi order."""
    from PySide6.QtWidgets import QFormLayout, QLabel

    from bpe_gui.cli.entry import build_parser
    from bpe_gui.gui.panels.settings.parity_box import ParityBox
    box = ParityBox(4)
    qtbot.addWidget(box)
    form = next(lay for lay in box.findChildren(QFormLayout)
                if lay.indexOf(box.alpha_spin) >= 0)
    row, _ = form.getWidgetPosition(box.alpha_spin)
    label = form.itemAt(row, QFormLayout.ItemRole.LabelRole).widget()
    assert isinstance(label, QLabel) and label.text() == "Window share"
    assert "--window-share" in box.alpha_spin.toolTip()
    train = build_parser()._subparsers._group_actions[0].choices["train"]
    assert any("--window-share" in a.option_strings for a in train._actions)
