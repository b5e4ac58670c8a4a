"""Parity at a glance (issue 67), at 800x600, 1024x700 and 1920x1080 in the default
layout: each language's turns in the status bar, whole; the Dev-set tokens chart's
legend drawn (a strip under the title where a box would hide the plot); the
vocabulary's Turn column in view without sideways scrolling; the candidate pairs of a
finished run listed.

Turn counts are recounted here from the run's records (whose turns equal Hugging Face's
are checked in test_parity_window.py); the legend from the chart's series.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from screens import SIZES, open_at
from settle import settle
from test_small_screens import in_sight

from bpe_gui.gui.models.vocab_model import VocabModel

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "parallel"
LANGS = ("en", "de", "ru", "zh")


def train_parity(qtbot, window, merges: int = 60, langs=LANGS, settled: bool = True):
    """Parity training from the settings panel on ``langs``' fixture files, waited for;
    ``settled``: then the status bar cleared and the window left to settle."""
    c = window.controller
    panel = window.dock_layout.settings_panel
    panel.parity.add_languages([str(FIXTURES / f"{n}.train.txt") for n in langs])
    panel.merges_radio.setChecked(True)
    panel.merges_spin.setValue(merges)
    assert panel.check(), panel.errors
    assert window.actions_menus.flow.train()
    qtbot.waitUntil(lambda: not c.busy and c.view() is not None and c.view().is_done,
                    timeout=120_000)
    if settled:
        quiet(qtbot, window)
    return c


def quiet(qtbot, window) -> None:
    window.statusBar().clearMessage()   # its timer would keep the window from settling
    settle(qtbot, window, window.controller)


def raise_dock(qtbot, window, dock):
    dock.show()
    dock.raise_()
    quiet(qtbot, window)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_parity_at_a_glance(make_window, qtbot, monkeypatch, size):
    win = open_at(make_window, qtbot, monkeypatch, size)
    c = train_parity(qtbot, win)
    info = c.view().parity
    counts = Counter(info.names[r.language] if r.language is not None else "global"
                     for r in info.steps[:c.step_index])

    # the status bar: every language's turns, whole, in sight
    label = win.status.turns_label
    assert in_sight(win, label), size
    shown = label.text()
    assert "…" not in shown, shown
    parts = dict(p.rsplit(" ", 1) for p in shown.removeprefix("turns: ").split(" · "))
    assert sorted(int(n.replace(",", "")) for n in parts.values()) == \
        sorted(counts.values()), (shown, counts)
    assert all(any(name.startswith(short) for name in counts) for short in parts)

    dl = win.dock_layout
    # the chart: a legend of the four languages and plain BPE's dashed twins
    raise_dock(qtbot, win, dl.charts_dock)
    dl.charts_view.refresh()
    chart = dl.charts_view.parity
    assert chart.isVisible()
    chart.grab()   # painted
    assert chart.drawn_legend == [*LANGS, chart.dashed_label], (size, chart.legend_mode)

    # the vocabulary: the Turn column in view, nothing to scroll sideways
    raise_dock(qtbot, win, dl.vocab_dock)
    view = dl.vocab_browser.view
    assert not view.isColumnHidden(VocabModel.TURN)
    header = view.horizontalHeader()
    assert view.columnWidth(VocabModel.TURN) >= header.fontMetrics().horizontalAdvance(
        "Turn"), size
    if size[0] >= 1024:   # (800x600: the browser's own layout, issue 67's Layout part)
        qtbot.waitUntil(lambda: view.horizontalScrollBar().maximum() == 0)
        turn_right = view.columnViewportPosition(VocabModel.TURN) + \
            view.columnWidth(VocabModel.TURN)
        assert turn_right <= view.viewport().width(), size
    if size[0] >= 1920:   # Bytes gives way before Count (a relaunched run lost its counts)
        assert not view.isColumnHidden(VocabModel.COUNT), size

    # the merge panel: a finished run still lists the pairs it would take next
    pm = dl.merge_panel.pair_model
    dl.merge_panel._refresh()
    assert pm.rowCount() > 0


@pytest.mark.slow
def test_relaunched_parity_run_keeps_count_and_turn(make_window, qtbot, monkeypatch, tmp_path):
    """A parity session opened in a new window at 1920x1080: the vocabulary shows Count
    and Turn side by side, without sideways scrolling (Count had given way to Turn)."""
    first = open_at(make_window, qtbot, monkeypatch, (1920, 1080))
    c = train_parity(qtbot, first)
    path = tmp_path / "parity.bpesession"
    c.opening.session().save(path)
    win = open_at(make_window, qtbot, monkeypatch, (1920, 1080))
    win.sessions.load_initial([str(path)])
    o = win.controller
    qtbot.waitUntil(lambda: not o.busy and o.view() is not None and o.view().parity
                    is not None and o.step_index == c.step_index, timeout=120_000)
    dl = win.dock_layout
    raise_dock(qtbot, win, dl.vocab_dock)
    view = dl.vocab_browser.view
    assert not view.isColumnHidden(VocabModel.TURN)
    assert not view.isColumnHidden(VocabModel.COUNT)
    qtbot.waitUntil(lambda: view.horizontalScrollBar().maximum() == 0)
