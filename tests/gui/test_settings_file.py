"""The window's own settings file (QSettings) as data (issue 23): a damaged one gets a
word and a kept copy; 20,000 recent files from elsewhere do not make a 20,000-item menu."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings


def test_a_damaged_settings_file_is_reported_and_kept(make_window, settings_file):
    from pathlib import Path
    damaged = b"[General]\ntheme=dark\n\xff\xfe [[[ garbage\n[x\n=\n"
    Path(settings_file).write_bytes(damaged)
    win = make_window()
    title, message = win.status.last_error
    assert title == "Settings reset" and "damaged" in message
    copy = Path(str(settings_file) + ".corrupt")
    assert copy.read_bytes() == damaged and str(copy) in message


def test_a_sound_settings_file_gets_no_word(make_window):
    win = make_window()
    assert win.status.last_error is None


def test_twenty_thousand_recent_files_are_cut_to_the_menu(make_window, settings_file):
    from bpe_gui.gui.panels.corpus.corpus_editor import RECENT_MAX
    s = QSettings(settings_file, QSettings.IniFormat)
    s.setValue("recentFiles", [f"/data/corpus-{i:05d}.txt" for i in range(20_000)])
    s.sync()
    del s
    win = make_window()
    win.actions_menus.recent_menu.aboutToShow.emit()
    files = [a for a in win.actions_menus.recent_menu.actions() if a.toolTip().startswith("/data/")]
    assert len(files) == RECENT_MAX and files[0].toolTip() == "/data/corpus-00000.txt"
    assert len(win.recent.paths()) == RECENT_MAX
    win.settings.sync()
    assert len(QSettings(settings_file, QSettings.IniFormat).value("recentFiles")) == RECENT_MAX


def test_the_window_size_comes_back_on_the_same_screen(make_window, settings_file):
    win = make_window(load=False)
    win.showNormal()
    win.resize(640, 480)
    win.dock_layout.save_layout()
    again = make_window(load=False)
    assert (again.width(), again.height()) == (640, 480)


def test_a_size_saved_on_another_screen_gives_this_screens_default(make_window, settings_file):
    """A laptop taken off its big monitor: the size saved there is not restored."""
    win = make_window(load=False)
    win.showNormal()
    win.resize(640, 480)
    win.dock_layout.save_layout()
    s = QSettings(settings_file, QSettings.IniFormat)
    here = f"layouts/{win.dock_layout._screen_size()}"
    for key in ("geometry", "windowState"):   # as if saved on a 4K monitor
        s.setValue(f"layouts/3840x2160/{key}", s.value(f"{here}/{key}"))
    s.remove(here)
    s.sync()
    again = make_window(load=False)
    assert (again.width(), again.height()) != (640, 480)
    assert again.dock_layout.fill_screen == again.dock_layout._short_screen()


@pytest.mark.regression
def test_each_window_size_class_keeps_its_own_layout(make_window, settings_file, monkeypatch):
    """A layout arranged in a small window (a dock made tall for reading) replaced the
    one of a big window, and back (issue 30 item 7); kept per screen, a window made
    800x600 on a 1920x1080 screen and quit brought its docks back maximized (issue 89):
    each window size class keeps its own. (Offscreen the screen is small: the classes'
    bounds are moved below it.)"""
    from bpe_gui.gui.window import docks
    monkeypatch.setattr(docks, "size_class", lambda w, h: "small" if w < 650 else "large")
    small = make_window(load=False)
    small.showNormal()
    small.resize(600, 450)
    small.dock_layout.fit_to_size()
    small.dock_layout.encode_dock.setFloating(True)   # this size's own arrangement
    small.dock_layout.save_layout()
    big = make_window(load=False)
    big.showNormal()
    big.resize(700, 500)
    big.dock_layout.fit_to_size()
    assert not big.dock_layout.encode_dock.isFloating()
    big.dock_layout.save_layout()
    again = make_window(load=False)   # its last size: the big one's, and its docks
    assert (again.width(), again.height()) == (700, 500)
    assert not again.dock_layout.encode_dock.isFloating()
    again.showNormal()
    again.resize(600, 450)            # small again: the small class's docks
    again.dock_layout.fit_to_size()
    assert again.dock_layout.encode_dock.isFloating()
