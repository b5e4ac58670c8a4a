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
from PySide6.QtWidgets import QApplication





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
        export_tokenizer(controller.trainer.tokenizer(at_step=3), tmp_path / name, "tiktoken",
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
