"""What a new user still tripped on (issue 82: Xvfb + openbox, xdotool, at 800x600,
1024x700 and 1920x1080), each a regression test run offscreen: Ctrl+E from a text
field, the Import dialog's path, the files the status bar names after an export, the
tie rule a parity export states, the imported tokenizer's name in Per-language cost,
characters no font draws that only a text (not a chip) shows, the dialogs and banners
of a small screen, the charts' legend over their ticks, Check my BPE's intro.
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication, QWidget

from screens import SIZES, open_at
from settle import settle
from test_small_screens import in_sight


def quiet(qtbot, win, c) -> None:
    win.statusBar().clearMessage()   # its timer would keep the window from settling
    settle(qtbot, win, c)


class ClaimsKey(QObject):
    """Accepts the ShortcutOverride of one key, as X11's key scheme makes every
    QLineEdit do for Ctrl+E (end of line); the offscreen platform's scheme does not."""

    def __init__(self, key, mods):
        super().__init__()
        self.key, self.mods = key, mods

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and event.key() == self.key and \
                event.modifiers() == self.mods:
            event.accept()
        return False


@pytest.mark.regression
def test_ctrl_e_exports_while_a_text_field_has_focus(make_window, qtbot):
    """Ctrl+E did nothing right after typing the number of merges: the field took it
    (X11's end of line) before the window's Export."""
    from bpe_gui.gui.dialogs.export_dialog import ExportDialog
    win = make_window()
    ctrl = Qt.KeyboardModifier.ControlModifier
    panel = win.dock_layout.settings_panel
    win.dock_layout.settings_dock.show()
    win.dock_layout.settings_dock.raise_()
    qtbot.waitUntil(panel.isVisible)
    field = panel.merges_spin   # (its line edit's focus goes to it)
    claim = ClaimsKey(Qt.Key.Key_E, ctrl)
    field.installEventFilter(claim)
    win.activateWindow()
    field.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    qtbot.keyClicks(field, "3")
    qtbot.keyClick(field, Qt.Key.Key_E, ctrl)
    qtbot.waitUntil(lambda: any(d.isVisible() for d in win.findChildren(ExportDialog)))
    for d in win.findChildren(ExportDialog):
        d.reject()
    # a key with no Ctrl or Alt stays the field's, and a disabled action's key too
    keys = win.text_keys
    from PySide6.QtGui import QKeyEvent
    esc = QKeyEvent(QEvent.Type.ShortcutOverride, Qt.Key.Key_Escape,
                    Qt.KeyboardModifier.NoModifier)
    assert not keys.window_key(esc)
    win.actions_menus.acts["export"].setEnabled(False)
    e = QKeyEvent(QEvent.Type.ShortcutOverride, Qt.Key.Key_E, ctrl)
    assert not keys.window_key(e)
    field.removeEventFilter(claim)


@pytest.mark.regression
def test_the_import_dialog_offers_the_last_path_selected(make_window, qtbot, tmp_path):
    """The Import dialog pre-filled the previous path unselected, so a typed path was
    appended to it."""
    from PySide6.QtCore import QSettings
    last = tmp_path / "old" / "tokenizer.json"
    QSettings().setValue("import/last", str(last))
    win = make_window()
    dlg = win.actions_menus.import_dialog()
    qtbot.waitUntil(lambda: dlg.isVisible() and QApplication.focusWidget() is dlg.path_edit)
    assert dlg.path_edit.text() == str(last)
    assert dlg.path_edit.selectedText() == str(last)
    new = str(tmp_path / "new.tiktoken")
    qtbot.keyClicks(dlg.path_edit, new)
    assert dlg.path_edit.text() == new
    dlg.reject()


@pytest.mark.regression
def test_per_language_cost_names_the_imported_tokenizer(qtbot, controller, tmp_path):
    """Per-language cost listed "The imported tokenizer" without its name."""
    from bpe_gui.engine.formats import export_tokenizer
    from bpe_gui.gui.dialogs.language_cost import LanguageCostDialog, Source
    for name in ("first", "second"):
        export_tokenizer(controller.trainer.tokenizer(), tmp_path / name, "tiktoken",
                         name=name)
    files = controller.tokenizer_files
    assert files.import_tokenizer(str(tmp_path / "first" / "first.tiktoken"))
    dlg = LanguageCostDialog(controller)
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.add_imported.click()
    assert dlg.sources == [Source("imported")]
    assert dlg.source_list.item(0).text() == "The imported tokenizer: first.tiktoken"
    assert files.import_tokenizer(str(tmp_path / "second" / "second.tiktoken"))
    assert dlg.source_list.item(0).text() == "The imported tokenizer: second.tiktoken"
    assert list(dlg._resolve()) == ["imported: second.tiktoken"]


def native_settings(files) -> dict:
    import json
    native = next(p for p in files if p.name.endswith(".bpe-gui.json"))
    return json.loads(native.read_text("utf-8"))


@pytest.mark.regression
def test_the_status_bar_names_every_file_an_export_wrote(make_window, qtbot, tmp_path):
    """After an export of five files the status bar named only the last format's
    files. And the dialog says where the tie rule is kept: the bpe-gui JSON."""
    from bpe_gui.engine.train import TrainSettings
    from bpe_gui.gui.dialogs.export_dialog import ExportDialog
    from conftest import wait_idle
    win = make_window()
    c = win.controller
    assert c.set_settings(TrainSettings(num_merges=30, tie_rule="first-seen"))
    c.set_corpus_text("the cat sat on the mat, the dog sat on the log\n" * 20)
    wait_idle(qtbot, c)
    assert c.goto(30)
    wait_idle(qtbot, c)
    dlg = ExportDialog(c, win)
    qtbot.addWidget(dlg)
    for box in dlg.checks.values():
        box.setChecked(box.isEnabled())
    dlg.folder_edit.setText(str(tmp_path / "out"))
    written = dlg.export()
    assert len(written) >= 5 and not dlg.failed, (written, dlg.failed)
    said = win.statusBar().currentMessage()
    assert all(p.name in said for p in written), (said, written)
    assert "“First seen in corpus” (kept in the bpe-gui JSON)" in dlg.summary.text()
    assert native_settings(written)["settings"]["tie_rule"] == "first-seen"


@pytest.mark.regression
def test_a_parity_export_states_the_rule_parity_used(qtbot, tmp_path):
    """A parity run's Export dialog said "tie rule 'greatest' (recorded in the files)":
    parity breaks ties as ParityBpeTrainer does, and its files keep no tie rule."""
    from bpe_gui.gui.dialogs.export_dialog import ExportDialog
    from test_chart_modes import parity_controller
    c = parity_controller(12)
    try:
        assert c.training.train()
        qtbot.waitUntil(lambda: not c.busy and c.step_index == 12, timeout=60_000)
        dlg = ExportDialog(c)
        qtbot.addWidget(dlg)
        text = dlg.summary.text()
        assert "ParityBpeTrainer" in text and "tie rule “" not in text, text
        for fmt, box in dlg.checks.items():
            box.setChecked(fmt == "native")
        dlg.folder_edit.setText(str(tmp_path))
        saved = native_settings(dlg.export())
        assert "tie_rule" not in saved["settings"] and "parity" in saved["meta"], saved["meta"]
    finally:
        c.shutdown()


NO_FONT = "नमस्ते दुनिया। สวัสดีครับ ok 🎉"


def without_indic_thai_and_party(ch: str) -> bool:
    """A machine's fonts: no Devanagari, no Thai, no U+1F389 PARTY POPPER."""
    return not ("\u0900" <= ch <= "\u097f" or "\u0e00" <= ch <= "\u0e7f" or ch == "🎉")


@pytest.mark.regression
@pytest.mark.parametrize("mode", ["char", "byte"])
def test_characters_drawn_as_boxes_are_said_whatever_the_tokens_show(make_window, qtbot,
                                                                     mode):
    """Pasted Hindi and Thai showed as empty boxes in the text with nothing said in the
    status bar: the tokens were partial bytes (or <unk>), whose chips never asked about
    the characters; emoji too. The text boxes ask about their own text."""
    from bpe_gui.engine.train import TrainSettings
    from bpe_gui.gui.models.glyphs import Glyphs, use_glyphs
    from conftest import wait_idle
    use_glyphs(Glyphs(has_glyph=without_indic_thai_and_party))
    try:
        win = make_window()
        c = win.controller
        assert c.set_settings(TrainSettings(num_merges=20, mode=mode))
        c.set_corpus_text("low lower newest widest\n" * 5)
        wait_idle(qtbot, c)
        ev = win.dock_layout.encode_view
        note = win.status.font_note
        assert not note.isVisible()
        ev.set_text(NO_FONT)
        ev.encode_now()
        shown = ev.token_texts()
        assert not any("\\u09" in t or "\\u0e" in t for t in shown), shown   # no chip asked
        qtbot.waitUntil(note.isVisible)
        assert all(s in note.text() for s in ("Devanagari", "Thai", "emoji")), note.text()
        assert "boxes" in win.statusBar().currentMessage()
    finally:
        use_glyphs(None)


@pytest.mark.regression
@pytest.mark.parametrize("where", ["corpus", "compare"])
def test_the_corpus_and_compare_texts_ask_about_their_characters(make_window, qtbot, where):
    """The corpus editor and the compare view draw their text as it is, too: said as
    soon as the text is there."""
    from bpe_gui.gui.models.glyphs import Glyphs, use_glyphs
    use_glyphs(Glyphs(has_glyph=without_indic_thai_and_party))
    try:
        win = make_window()
        dl = win.dock_layout
        if where == "corpus":
            dl.editor.edit.insertPlainText("x ส")
        else:
            dl.compare_view.set_text("x ส")
        # at once: before the corpus is trained on, or the sides are encoded
        assert win.status.font_note.isVisible()
        assert win.status.font_note.text().endswith("No font: Thai</span>")
    finally:
        use_glyphs(None)


def inside(outer, widget) -> bool:
    """All of ``widget`` lies inside ``outer`` (a window), shown."""
    from PySide6.QtCore import QPoint, QRect
    return widget.isVisible() and outer.rect().contains(
        QRect(widget.mapTo(outer, QPoint(0, 0)), widget.size()))


@pytest.mark.regression
def test_the_mixture_dialog_fits_an_800_pixel_screen(qtbot, controller, tmp_path):
    """At 800x600 the Mixture dialog was wider than the screen (its tokenizer box as
    wide as its longest item): the Size column, Infer and Close were cut off."""
    from bpe_gui.gui.dialogs.training_mixture import TrainingMixtureDialog
    from bpe_gui.engine.formats import export_tokenizer
    long_name = "a-tokenizer-with-a-rather-long-file-name-as-models-have-them"
    export_tokenizer(controller.trainer.tokenizer(), tmp_path, "tiktoken", name=long_name)
    assert controller.tokenizer_files.import_tokenizer(str(tmp_path / f"{long_name}.tiktoken"))
    dlg = TrainingMixtureDialog(controller)
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    frame = dlg.frameGeometry().width() - dlg.geometry().width()
    assert dlg.minimumSizeHint().width() + frame <= 800, dlg.minimumSizeHint()
    dlg.resize(800 - frame, 560)
    qtbot.waitUntil(lambda: dlg.width() == 800 - frame)
    QApplication.processEvents()
    close = next(b for b in dlg.findChildren(type(dlg.infer)) if b.text() == "Close")
    assert inside(dlg, dlg.infer) and inside(dlg, close) and inside(dlg, dlg.tokenizer_box)
    table = dlg.sample_table
    header = table.horizontalHeader()
    assert header.sectionViewportPosition(2) + header.sectionSize(2) <= \
        table.viewport().width(), "the Size column cut off"
    assert inside(dlg, table)
    # the proportions page: the shares (with their warnings: several lines) above a
    # chart of its least height, nothing drawn over them (the note was, under the chart)
    dlg.shares_label.setText("<b>Proportions:</b> en 76.8%, de 23.2%" +
                             "<br>⚠ a warning that runs over a line or two. " * 3)
    QApplication.processEvents()
    page = dlg.shares_label.parentWidget()
    shown = [w for w in page.findChildren(QWidget) if w.parentWidget() is page
             and w.isVisibleTo(page)]
    for i, a in enumerate(shown):
        for b in shown[i + 1:]:
            assert not a.geometry().intersects(b.geometry()), (a, b)
    chart = dlg.share_chart
    assert chart.height() >= chart.minimumHeight() and inside(dlg, chart)


@pytest.mark.regression
@pytest.mark.parametrize("size", SIZES)
def test_the_train_on_note_leaves_the_ids_in_sight(make_window, qtbot, monkeypatch, size,
                                                  tmp_path):
    """At 1024x700 and 800x600 the note that Train on switched the Tokenizer box from
    the imported tokenizer (two lines) pushed the encode view's ids out of sight."""
    from bpe_gui.engine.formats import export_tokenizer
    win = open_at(make_window, qtbot, monkeypatch, size)
    c, dl = win.controller, win.dock_layout
    export_tokenizer(c.view().tokenizer(), tmp_path, "native", name="old")
    assert c.tokenizer_files.import_tokenizer(str(tmp_path / "old.bpe-gui.json"))
    ev = dl.encode_view
    dl.encode_dock.raise_()
    ev.set_text("low lower newest widest " * 6)
    quiet(qtbot, win, c)
    assert c.use_imported and not ev.switch_band.isVisible()
    c.tokenizer_files.give_way_to_trained("Train on switched this from the imported "
                                          "tokenizer")
    quiet(qtbot, win, c)
    assert ev.switch_band.isVisible() and "switched" in ev.switch_note.full_text()
    area = dl.encode_dock.widget()
    qtbot.waitUntil(lambda: in_sight(win, ev.flow), timeout=3000)
    assert ev.flow.height() >= ev.flow.height_for_rows(1) - 2, size
    assert in_sight(win, ev.switch_note) and in_sight(win, ev.edit), size
    assert ev.switch_note.height() < 2 * ev.fontMetrics().lineSpacing(), "one line"
    shown = ev.switch_note.shown()
    assert shown in ev.switch_note.variants() or shown.endswith("…"), shown
    # chosen again: the note goes, and the merge panel has its room back
    ev.source.setCurrentIndex(1)
    ev.source.activated.emit(1)
    qtbot.waitUntil(lambda: not ev.switch_band.isVisible())
    assert area.verticalScrollBar().maximum() == 0 or in_sight(win, ev.flow)


def overlaps(texts) -> list[tuple[str, str]]:
    """The pairs of drawn texts whose glyph boxes intersect."""
    out = []
    for i, (a, ra) in enumerate(texts):
        for b, rb in texts[i + 1:]:
            if ra.intersects(rb):
                out.append((a, b))
    return out


@pytest.mark.regression
@pytest.mark.parametrize("size", [(300, 150), (440, 150), (450, 170), (560, 240),
                                  (900, 300), (240, 260)])
def test_a_chart_draws_no_text_over_another(qtbot, size):
    """At 800x600 the Dev-set tokens chart's top tick ("40k") ran into its legend's
    first entry ("en"): the legend strip ended where the plot began, and a tick's label
    stands half a line above its line."""
    from bpe_gui.gui.widgets.chart_widget import ChartWidget
    chart = ChartWidget("Dev-set tokens", "step", "tokens")
    chart.dashed_label = "plain BPE"
    qtbot.addWidget(chart)
    xs = list(range(0, 301, 10))
    for k, lang in enumerate(("en", "de", "zh", "ru")):
        top = 40_000 - 6_000 * k
        chart.set_series(lang, xs, [top - 60 * x for x in xs], "line", k)
        chart.set_series(f"{lang} plain", xs, [top + 900 - 50 * x for x in xs], "dashed", k)
    chart.resize(*size)
    chart.grab()   # paints
    assert chart.drawn_texts and "en" in chart.drawn_legend, chart.drawn_legend
    assert overlaps(chart.drawn_texts) == [], (size, chart.legend_mode, chart.ylabel_level,
                                               chart.drawn_texts)


@pytest.mark.regression
@pytest.mark.parametrize("size", [None, (762, 560), (1004, 640), (1300, 900)])
def test_check_my_bpe_shows_its_intro_whole(make_window, qtbot, monkeypatch, size):
    """At 800x600 Check my BPE's intro was cut under its first line: the explanation's
    area kept its two-line minimum until a check had run (``None``: the dialog's own
    size on an 800x600 screen)."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QScreen
    from bpe_gui.gui.dialogs.check_dialog import show_check_dialog
    win = make_window()
    if size is None:
        monkeypatch.setattr(QScreen, "availableGeometry", lambda _s: QRect(0, 0, 800, 600))
    dlg = show_check_dialog(win.controller, win)
    if size is not None:
        dlg.resize(*size)
    qtbot.waitExposed(dlg)
    view = dlg.panel.merges
    area = view.info_scroll
    qtbot.waitUntil(lambda: area.verticalScrollBar().maximum() == 0, timeout=3000)
    for label in (view.headline, view.sentence):
        assert label.text() and label.visibleRegion().boundingRect() == label.rect(), \
            (size, label.text())
    dlg.close()
