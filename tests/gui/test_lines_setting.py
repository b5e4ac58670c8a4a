"""The window's "One text per line, as Hugging Face reads files" check box: clicked, it
trains as tokenizers' BpeTrainer does (with its tie rule), and a session keeps it."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QPoint, Qt

from bpe_gui.engine import TrainSettings
from bpe_gui.engine.train.session import Session

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

# code: indented lines, so words such as "\n" + spaces form only across line breaks
TEXT = "".join(f"def f{i % 7}(x):\n    return x + {i % 5}  \n\n    # done\n"
               for i in range(60))


def hf_merges(text: str, vocab_size: int) -> list[tuple[str, str]]:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tr = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=0, show_progress=False,
                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    lines = text.splitlines(keepends=True)   # (this text has only \n breaks)
    tok.train_from_iterator(lines, tr)
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" "))
            for m in json.loads(tok.to_str())["model"]["merges"]]


def gpt2_text(b: bytes) -> str:
    pre = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    return "".join(p for p, _ in pre.pre_tokenize_str(b.decode("utf-8")))


def click(qtbot, box) -> None:
    """A real click on the check box's indicator."""
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton,
                     pos=QPoint(box.style().pixelMetric(box.style().PixelMetric.PM_IndicatorWidth)
                                // 2 + 2, box.height() // 2))


def test_the_check_box_trains_hugging_faces_merges_and_a_session_keeps_it(
        make_window, ready, qtbot, tmp_path):
    window = make_window()
    c = window.controller
    c.set_settings(TrainSettings(vocab_size=330))
    c.set_corpus_text(TEXT)
    c.training.retrain()
    ready(c)
    panel = window.dock_layout.settings_panel
    window.dock_layout.settings_dock.raise_()
    assert not panel.lines_check.isChecked()
    click(qtbot, panel.lines_check)
    assert panel.lines_check.isChecked()
    panel.tie_combo.setCurrentIndex(panel.tie_combo.findData("lowest-ids-hf"))
    flow = window.actions_menus.flow
    qtbot.waitUntil(lambda: "one text per line" in flow.badge.toolTip())
    window.actions_menus.acts["run"].trigger()   # apply and train to the target
    qtbot.waitUntil(lambda: not c.busy and c.trainer is not None and c.trainer.is_done
                    and c.trainer.settings.lines, timeout=20_000)
    want = hf_merges(TEXT, 330)
    assert [(gpt2_text(a), gpt2_text(b)) for a, b in c.trainer.merges] == want
    off = TrainSettings(vocab_size=330, tie_rule="lowest-ids-hf")   # whole text: they part
    from bpe_gui.engine import Trainer
    whole = Trainer.from_text(TEXT, off)
    whole.run()
    assert [(gpt2_text(a), gpt2_text(b)) for a, b in whole.merges] != want

    path = tmp_path / "s.bpesession"
    assert c.opening.save_session(str(path), "", False, c.trainer.n_steps)
    assert Session.load(path).settings.lines is True
    other = make_window()                                 # a new window opens it checked
    assert other.sessions.open_session(str(path))
    ready(other.controller)
    assert other.controller.settings.lines
    assert other.dock_layout.settings_panel.lines_check.isChecked()
    assert other.controller.trainer.merges == c.trainer.merges
