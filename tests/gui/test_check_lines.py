"""Check my BPE in the window reads the corpus one text per line when asked, as
training's check box and `bpe-gui check --lines` do: a result of Hugging Face's own
BpeTrainer (which reads files line by line) agrees with the reference then, and parts
from it when the reference reads whole files. The window's check had no such choice."""
from __future__ import annotations

import pytest

from bpe_gui.gui.dialogs.check_dialog import CheckDialog
from bpe_gui.gui.panels.settings.settings_panel import SettingsPanel

tokenizers = pytest.importorskip("tokenizers")

# indented lines: a word "\n" + spaces forms only where a text spans a line break
CORPUS = ("The quick brown fox jumps over the lazy dog.  \n   It's a lovely day.  \n"
          "def square(x):\n    return x * x\n") * 30
pytestmark = pytest.mark.controller("low lower newest widest " * 10, vocab_size=270)


def hf_tokenizer_json(tmp_path, corpus) -> str:
    """tokenizer.json written by tokenizers' own BpeTrainer on ``corpus``."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train([str(corpus)], trainers.BpeTrainer(
        vocab_size=400, min_frequency=0, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    return str(path)


def run_check(qtbot, panel):
    panel.check = None
    with qtbot.waitSignal(panel.controller.jobs.finished, timeout=60_000):
        assert panel.run_check()
    qtbot.waitUntil(lambda: panel.check is not None and not panel.controller.busy)
    return panel.check.report


def open_check(qtbot, controller, tokenizer: str, corpus):
    """The check window shown with this tokenizer file and corpus: its panel."""
    dlg = CheckDialog(controller)
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.panel.set_result(tokenizer, str(corpus))
    return dlg.panel


def test_one_text_per_line_checks_hugging_faces_merges(qtbot, controller, tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    panel = open_check(qtbot, controller, hf_tokenizer_json(tmp_path, corpus), corpus)
    panel.tie_box.setCurrentIndex(panel.tie_box.findData("lowest-ids-hf"))
    # the choice is worded as training's check box words it
    training = SettingsPanel(controller)
    qtbot.addWidget(training)
    box = panel.lines_box
    labels = [box.itemText(i) for i in range(box.count())]
    assert training.lines_check.accessibleName() in labels
    box.setCurrentIndex(labels.index(training.lines_check.accessibleName()))
    report = run_check(qtbot, panel)
    assert report.agree, report.difference
    assert any("one text per line" in s for s in report.settings_from)
    assert "merges agree" in panel.merges.headline.text()
    # the reference's settings name the tie rule as the training controls do
    rule = training.tie_combo.itemText(training.tie_combo.findData("lowest-ids-hf"))
    assert f"tie rule: {rule}" in panel.merges.notes.text()
    assert "lowest-ids-hf" not in panel.merges.notes.text()
    box.setCurrentIndex(box.findData(False))   # whole files: a word spans a line break
    report = run_check(qtbot, panel)
    assert not report.agree
    assert "differs" in panel.merges.headline.text()


def test_the_settings_a_result_records_are_used_unless_given(qtbot, controller, tmp_path):
    """The check window sent its Ties and Mode boxes' values always ("Greatest pair",
    "byte-level" unless changed), so a bpe-gui export trained with another tie rule or
    in character mode was checked against the wrong reference; `bpe-gui check` takes
    them from the file. The boxes start at "From your files"."""
    from bpe_gui.engine import TrainSettings
    from bpe_gui.engine.formats import export_tokenizer
    from bpe_gui.engine.train import Trainer
    text = "low low lower newest newest widest widest widest " * 4
    settings = TrainSettings(num_merges=12, mode="char", pattern="whitespace",
                             tie_rule="first-seen")
    trainer = Trainer.from_text(text, settings)
    trainer.run(detail=False)
    [native] = [p for p in export_tokenizer(trainer.tokenizer(), tmp_path, "native")
                if p.name.endswith(".bpe-gui.json")]
    corpus = tmp_path / "c.txt"
    corpus.write_text(text, encoding="utf-8")
    panel = open_check(qtbot, controller, str(native), corpus)
    report = run_check(qtbot, panel)
    assert report.agree, report.difference
    assert panel.tie_box.currentData() is None and panel.mode_box.currentData() is None
    said = " | ".join(report.settings_from)
    assert f"tie rule: first-seen (from {native.name})" in said, said
    assert "character-level" in said and f"(from {native.name})" in said, said
    # given in the window, a rule wins over the file's (and here parts from it)
    panel.tie_box.setCurrentIndex(panel.tie_box.findData("greatest"))
    report = run_check(qtbot, panel)
    assert "tie rule: greatest" in " | ".join(report.settings_from) and not report.agree
