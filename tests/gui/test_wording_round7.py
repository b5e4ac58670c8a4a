"""Words the window showed that were wrong or stale (issue 89, item 4): the greyed tie
rule during parity, the greyed SuperBPE note, the "Train on switched this" note after
training on was left, the Export dialog of a SuperBPE run."""
from __future__ import annotations

from bpe_gui.engine.formats import export_formats
from bpe_gui.engine.train import Trainer, TrainSettings
from bpe_gui.engine.train.trainer import TIE_RULE_LABELS
from bpe_gui.gui.controller.parity_setup import Language, ParitySetup
from bpe_gui.gui.controller.train_on import SWITCHED
from bpe_gui.gui.dialogs.export_dialog import ExportDialog, tie_rule_said
from conftest import wait_idle

TEXT = "the lower widest newest low lowest of the town and the king " * 30


def test_parity_greyed_tie_rule_names_paritys_rule(window, qtbot):
    """Parity breaks ties by the greatest pair of GPT-2 spellings (the Export dialog of a
    parity run says so): the greyed box must not say "by bytes"."""
    panel = window.dock_layout.settings_panel
    panel.parity.check.setChecked(True)
    assert not panel.tie_box.isEnabled()
    shown = panel.tie_combo.currentText()
    assert "by bytes" not in shown and "GPT-2 spellings" in shown, shown
    parity_run = type("View", (), {"parity": object()})()
    assert "greatest pair of GPT-2 spellings" in tie_rule_said(parity_run)
    panel.parity.check.setChecked(False)
    assert panel.tie_box.isEnabled()
    labels = [panel.tie_combo.itemText(i) for i in range(panel.tie_combo.count())]
    assert labels == list(TIE_RULE_LABELS.values())


def test_superbpe_note_says_off_when_it_is_off(window):
    panel = window.dock_layout.settings_panel
    panel.byte_radio.setChecked(True)
    panel.merges_radio.setChecked(True)
    panel.merges_spin.setValue(500)
    panel.superbpe.check.setChecked(True)
    panel.superbpe.spin.setValue(450)
    panel.check()
    assert "stage 2" in panel.superbpe.hint.text()
    panel.parity.check.setChecked(True)   # greys SuperBPE, shown off
    panel.check()
    assert not panel.superbpe.isEnabled() and not panel.superbpe.check.isChecked()
    assert "stage" not in panel.superbpe.hint.text().lower(), panel.superbpe.hint.text()
    panel.parity.check.setChecked(False)   # the user's tick back, and its stages
    panel.check()
    assert panel.superbpe.check.isChecked() and "stage 2" in panel.superbpe.hint.text()
    panel.superbpe.check.setChecked(False)
    panel.check()
    assert "stage" not in panel.superbpe.hint.text().lower()


def test_train_on_note_goes_with_training_on(window, qtbot, tmp_path):
    """The note stayed through later parity and plain runs."""
    c = window.controller
    ev = window.dock_layout.encode_view
    tok = Trainer.from_source(TEXT, TrainSettings(num_merges=20))
    tok.goto(20, detail=False)
    export_formats(tok.tokenizer(), tmp_path / "tok", ["gpt2"])
    c.set_corpus_text(TEXT, dirty=False)
    assert c.tokenizer_files.import_tokenizer(str(tmp_path / "tok" / "vocab.json"))
    wait_idle(qtbot, c)
    assert c.use_imported
    assert c.train_on.start(num_merges=5)
    wait_idle(qtbot, c)
    assert c.tokenizer_files.switch_note == SWITCHED
    qtbot.waitUntil(lambda: ev.switch_band.isVisible(), timeout=5_000)
    (tmp_path / "en.txt").write_text("the cat sat\n" * 5, encoding="utf-8")
    c.set_parity(ParitySetup(enabled=True, languages=(
        Language("en", str(tmp_path / "en.txt")),)))   # parity leaves training on
    assert not c.train_on.active and c.tokenizer_files.switch_note == ""
    qtbot.waitUntil(lambda: not ev.switch_band.isVisible(), timeout=5_000)


def test_export_of_a_superbpe_run_says_superbpe(window, qtbot):
    c = window.controller
    assert c.set_settings(TrainSettings(num_merges=30, superbpe_from=12))
    c.set_corpus_text(TEXT, dirty=False)
    assert c.training.train()
    qtbot.waitUntil(lambda: not c.busy and c.view() is not None and c.view().is_done,
                    timeout=60_000)
    assert c.view().transition == 12
    dlg = ExportDialog(c, window)
    qtbot.addWidget(dlg)
    assert "SuperBPE (stage 2 after step 12)" in dlg.summary.text(), dlg.summary.text()
    assert c.set_settings(TrainSettings(num_merges=30))   # a plain run: no SuperBPE said
    assert c.training.train()
    qtbot.waitUntil(lambda: not c.busy and not c.stale and c.view().is_done, timeout=60_000)
    plain = ExportDialog(c, window)
    qtbot.addWidget(plain)
    assert "SuperBPE" not in plain.summary.text()
