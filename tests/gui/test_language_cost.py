"""The per-language cost dialog: opened from the Analysis menu, measured on the job
runner, its table, chart and CSV checked against tiktoken encodings of the same texts."""
from __future__ import annotations

import csv
import math
from collections import Counter

import pytest
from PySide6.QtCore import Qt

from bpe_gui.engine.formats import export_tokenizer
from bpe_gui.gui.dialogs.cost_parts import COLUMNS, METRICS
from bpe_gui.gui.dialogs.language_cost import (MAX_TOKENIZERS, LanguageCostDialog,
                                               Source, show_language_cost)

tiktoken = pytest.importorskip("tiktoken")

EOT = "<|endoftext|>"
TEXTS = {"en": "The quick brown fox jumps over the lazy dog. It's late.\n" * 30,
         "zh": "满纸荒唐言，一把辛酸泪！都云作者痴，谁解其中味？\n" * 30,
         "ru": "Съешь же ещё этих мягких французских булок.\n" * 30}
CORPUS = "".join(TEXTS.values()) * 3 + EOT


pytestmark = pytest.mark.controller(CORPUS, vocab_size=420, special_tokens=(EOT,))


@pytest.fixture
def held(tmp_path):
    d = tmp_path / "held"
    d.mkdir()
    for lang, text in TEXTS.items():
        (d / f"{lang}.txt").write_text(text, "utf-8")
    return d


@pytest.fixture
def dialog(qtbot, controller):
    dlg = LanguageCostDialog(controller)
    qtbot.addWidget(dlg)
    dlg.show()
    return dlg


def step_40(controller):
    """The tokenizer of step 40 (asked for at step 0, it was step 0's: now refused)."""
    t = controller.trainer
    t.goto(40)
    tok = t.tokenizer()
    t.goto(0)
    return tok


def encoder(tok):
    ranks = {t: i for i, t in tok.vocab.items() if i not in tok.special_ids.values()}
    enc = tiktoken.Encoding("t", pat_str=tok.pattern, mergeable_ranks=ranks,
                            special_tokens=dict(tok.special_ids))
    return lambda text: enc.encode(text, allowed_special="all")


def measure(qtbot, dlg) -> None:
    with qtbot.waitSignal(dlg.controller.jobs.finished, timeout=20_000):
        assert dlg.run()
    qtbot.waitUntil(lambda: dlg.table is not None)


def cell(dlg, row: int, header: str) -> str:
    col = [c[0] for c in COLUMNS].index(header)
    model = dlg.view.model()
    return model.data(model.index(row, col))


def test_measures_the_current_step_and_a_file(qtbot, dialog, controller, held, tmp_path):
    other = step_40(controller)
    export_tokenizer(other, tmp_path / "early", "tiktoken")
    dialog.set_folder(str(held))
    assert dialog.languages == ["en", "ru", "zh"]
    assert dialog.reference.currentText() == "en"
    dialog.reference.setCurrentText("ru")
    assert not dialog.measure.isEnabled()            # no tokenizer yet
    dialog.add_step.click()
    dialog.add_source(Source("file", str(tmp_path / "early" / "tokenizer.tiktoken")))
    assert dialog.measure.isEnabled() and not dialog.add_step.isEnabled()
    measure(qtbot, dialog)
    now = controller.trainer.tokenizer()
    encs = {f"step {controller.trainer.n_steps:,}": encoder(now),
            "tokenizer.tiktoken": encoder(other)}
    sizes = {f"step {controller.trainer.n_steps:,}": len(now.vocab),
             "tokenizer.tiktoken": len(other.vocab)}
    t = dialog.table
    assert t.tokenizers == tuple(encs) and t.reference == "ru"
    model = dialog.view.model()
    assert model.rowCount() == 6
    assert model.headerData(6, Qt.Horizontal) == "Parity (ru)"
    for r in range(6):
        lang, name = cell(dialog, r, "Language"), cell(dialog, r, "Tokenizer")
        ids = encs[name](TEXTS[lang])
        ref = len(encs[name](TEXTS["ru"]))
        assert cell(dialog, r, "Tokens") == f"{len(ids):,}"
        assert cell(dialog, r, "Parity") == f"{len(ids) / ref:.2f}"
        assert cell(dialog, r, "Bytes/token") == f"{len(TEXTS[lang].encode()) / len(ids):.2f}"
        c, n = Counter(ids), len(ids)
        h = math.log(sum((v / n) ** 2.5 for v in c.values())) / -1.5
        assert cell(dialog, r, "Rényi eff.") == f"{h / math.log(sizes[name]):.3f}"
    # the chart: one bar series per tokenizer, one bar per language, the parity values
    for metric, (axis, get) in METRICS.items():
        dialog.metric_box.setCurrentText(metric)
        assert dialog.chart.ylabel == axis
        assert list(dialog.chart.series) == list(encs)
        for name, s in dialog.chart.series.items():
            assert s.style == "bars" and len(s.ys) == 3
            want = [get(t.row(lang, name)) for lang in t.languages]
            assert s.ys == pytest.approx(want)
    dialog.metric_box.setCurrentIndex(0)
    name = next(iter(encs))
    zh = dialog.chart.series[name]
    assert dialog.chart.readout(zh, 2) == \
        f"zh · {name}: {len(encs[name](TEXTS['zh'])) / len(encs[name](TEXTS['ru'])):.4g}"
    ticks, _ = dialog.chart._x_ticks(-1, 100, 500)
    assert [label for _, label in ticks] == ["en", "ru", "zh"]


def test_sorting_the_table_by_a_number(qtbot, dialog, held):
    dialog.set_folder(str(held))
    dialog.add_step.click()
    measure(qtbot, dialog)
    dialog.view.sortByColumn([c[0] for c in COLUMNS].index("Tokens"), Qt.AscendingOrder)
    tokens = [int(cell(dialog, r, "Tokens").replace(",", "")) for r in range(3)]
    assert tokens == sorted(tokens)


def test_export_csv(qtbot, dialog, held, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog
    dialog.set_folder(str(held))
    dialog.add_step.click()
    measure(qtbot, dialog)
    target = tmp_path / "out" / "cost.csv"
    target.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    dialog.export.click()
    rows = list(csv.DictReader(target.open(encoding="utf-8")))
    assert [(r["language"], int(r["tokens"])) for r in rows] == \
        [(r.language, r.tokens) for r in dialog.table.rows]
    assert "Wrote" in dialog.status.text()


def test_bad_folder_and_bad_file_are_reported(qtbot, dialog, controller, held, tmp_path):
    dialog.set_folder(str(tmp_path / "nowhere"))
    assert "not a folder" in dialog.folder_info.text() and not dialog.measure.isEnabled()
    dialog.set_folder(str(held))
    dialog.add_step.click()
    (held / "de.txt").write_bytes(b"gr\xfc\xdf")
    dialog.set_folder(str(held))
    errors = []
    controller.errorOccurred.connect(lambda title, msg: errors.append(msg))
    with qtbot.waitSignal(controller.jobs.failed, timeout=20_000):
        assert dialog.run()
    qtbot.waitUntil(lambda: bool(errors))
    assert "de.txt" in errors[0] and "not valid UTF-8 at byte offset 2" in errors[0]
    assert dialog.table is None and "Not measured" in dialog.status.text()
    assert dialog.measure.isEnabled()


def test_a_good_folder_after_a_bad_one_is_not_shown_as_an_error(dialog, held, tmp_path):
    """The folder line is red only while it reports a problem: the list of texts found
    once the folder is right is not an error."""
    from bpe_gui.gui.theme import colors
    empty = tmp_path / "empty"
    empty.mkdir()
    red = colors(dialog)["error"]
    dialog.set_folder(str(empty))
    assert "holds no" in dialog.folder_info.text() and red in dialog.folder_info.styleSheet()
    dialog.set_folder(str(held))
    assert dialog.folder_info.text() == "3 text(s): en, ru, zh"
    assert red not in dialog.folder_info.styleSheet()


def test_at_most_four_tokenizers(dialog, controller, tmp_path):
    for k in range(MAX_TOKENIZERS + 2):
        dialog.add_source(Source("file", str(tmp_path / f"t{k}.json")))
    assert len(dialog.sources) == MAX_TOKENIZERS
    assert not dialog.add_file.isEnabled() and not dialog.add_step.isEnabled()
    dialog.source_list.setCurrentRow(0)
    dialog.remove.click()
    assert len(dialog.sources) == MAX_TOKENIZERS - 1 and dialog.add_file.isEnabled()


def test_opened_from_the_analysis_menu(qtbot, window):
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Analysis")
    act = next(a for a in menu.actions() if "cost" in a.text())
    act.trigger()
    dlg = window.findChild(LanguageCostDialog)
    assert dlg is not None and dlg.isVisible()
    assert show_language_cost(window.controller, window) is dlg        # one dialog per window
    dlg.close()


def test_a_new_folder_or_tokenizer_resets_a_failed_status(qtbot, dialog, controller, held):
    """After a failed measurement, choosing the corrected folder (or changing the
    tokenizers) says "Not measured yet", in the neutral colour, not the old failure."""
    from bpe_gui.gui.theme import colors
    muted = colors(dialog)["muted"]
    assert dialog.status.text().startswith("Not measured yet")    # before any run
    (held / "de.txt").write_bytes(b"gr\xfc\xdf")
    dialog.set_folder(str(held))
    dialog.add_step.click()
    with qtbot.waitSignal(controller.jobs.failed, timeout=20_000):
        assert dialog.run()
    qtbot.waitUntil(lambda: "cancelled or failed" in dialog.status.text())
    (held / "de.txt").unlink()
    fixed = held.parent / "fixed"
    held.rename(fixed)
    dialog.set_folder(str(fixed))
    assert dialog.status.text().startswith("Not measured yet")
    assert muted in dialog.status.styleSheet()
    def cancel_at_once(busy: bool) -> None:             # cancelled, then tokenizers change
        if busy:
            controller.busyChanged.disconnect(cancel_at_once)
            controller.cancel()
    controller.busyChanged.connect(cancel_at_once)
    assert dialog.run()
    qtbot.waitUntil(lambda: not controller.busy, timeout=20_000)
    assert "cancelled or failed" in dialog.status.text()
    dialog.source_list.setCurrentRow(0)
    dialog.remove.click()
    assert dialog.status.text().startswith("Not measured yet")
    dialog.add_step.click()
    measure(qtbot, dialog)                              # measured: then a change says so
    assert "parity against en" in dialog.status.text()
    dialog.add_source(Source("file", str(held.parent / "other.json")))
    assert dialog.status.text().startswith("Not measured yet")
    assert "last measurement" in dialog.status.text()


def test_parity_says_it_needs_parallel_texts(dialog):
    """Parity compares token counts of texts that say the same thing: the column's
    tooltip and the dialog's explanation say so."""
    model = dialog.view.model()
    col = [c[0] for c in COLUMNS].index("Parity")
    tip = model.headerData(col, Qt.Horizontal, Qt.ToolTipRole)
    assert "same" in tip and "translations" in tip
    assert "translations" in dialog.intro.text() and "parity" in dialog.intro.text().lower()
    assert dialog.intro.isVisible()


def test_the_analysis_action_has_a_free_shortcut_listed_in_help(window, monkeypatch):
    from PySide6.QtGui import QKeySequence
    from PySide6.QtWidgets import QMessageBox
    act = window.actions_menus.acts["language_cost"]
    assert act.shortcut() == QKeySequence("Ctrl+Shift+L")
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Analysis")
    assert act in menu.actions()
    seen: dict[str, str] = {}                           # every shortcut of the window, once
    for a in window.findChildren(type(act)):
        for k in a.shortcuts():
            key = k.toString()
            assert key not in seen, f"{key}: {a.text()} and {seen[key]}"
            seen[key] = a.text()
    shown = []
    monkeypatch.setattr(QMessageBox, "information", lambda *a: shown.append(a[2]))
    window.actions_menus.acts["keys"].trigger()
    key = QKeySequence("Ctrl+Shift+L").toString(QKeySequence.NativeText)
    assert f"<td>Per-language cost…</td><td><b>{key}</b></td>" in shown[0]


@pytest.mark.regression
@pytest.mark.parametrize("button", ["browse", "add_file"])
def test_enter_after_a_file_button_measures(qtbot, dialog, controller, held, tmp_path,
                                            monkeypatch, button):
    """Enter after Browse… or Add file… opened that file dialog again instead of measuring:
    the clicked button, not Measure, was the dialog's default."""
    from PySide6.QtWidgets import QFileDialog, QPushButton
    export_tokenizer(step_40(controller), tmp_path / "early", "tiktoken")
    picked = []
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        lambda *a, **k: picked.append("folder") or str(held))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: picked.append("file")
                        or (str(tmp_path / "early" / "tokenizer.tiktoken"), ""))
    qtbot.waitExposed(dialog)
    dialog.set_folder(str(held))
    dialog.add_step.click()
    target = dialog.add_file if button == "add_file" else next(
        b for b in dialog.findChildren(QPushButton) if b.text() == "Browse…")
    qtbot.mouseClick(target, Qt.MouseButton.LeftButton)
    assert len(picked) == 1 and dialog.measure.isEnabled()
    with qtbot.waitSignal(controller.jobs.finished, timeout=20_000):
        assert dialog.focusWidget() is target
        qtbot.keyClick(target, Qt.Key.Key_Return)
    assert len(picked) == 1
    qtbot.waitUntil(lambda: dialog.table is not None)
