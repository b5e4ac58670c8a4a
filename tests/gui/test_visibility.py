"""Dock tabs behind the front one skip their per-step work and catch up when raised.

Qt does not hide the docks behind the front tab of a tabbed dock area: it moves them
out of the window, and they stay "visible". ``widgets/visibility.py:on_screen`` tells
the two apart; the main window calls a panel's ``catch_up`` when its tab is raised.
These tests drive the real main window (sample corpus, real trainer) as a user would:
step while a tab is behind, then click its tab.
"""
from __future__ import annotations

import pytest

from bpe_gui.engine.tokenizers.trained import Tokenizer
from bpe_gui.gui.widgets.visibility import on_screen
from settle import settle

STEPS = 6


def fresh_ids(controller, text: str) -> list[int]:
    """The ids of ``text`` under the trainer as of now, from a Tokenizer built here."""
    t = controller.trainer
    s = t.settings
    tok = Tokenizer(t.vocab, t.merges, list(s.special_tokens), pattern=s.pattern, mode=s.mode,
                    end_of_word=s.end_of_word)
    return tok.encode_with_offsets(text, allowed_special="all").ids


@pytest.fixture
def win(make_window, qtbot):
    w = make_window()
    if w.dock_layout.encode_on_right:
        pytest.skip("the screen is wide enough for the encode view beside the merge panel; "
                    "these tests need the bottom tab layout (encode in front)")
    # the panels' debounced first updates (compare, charts) run before the test steps
    settle(qtbot, w, w.controller)
    return w


def quiet(qtbot, win) -> None:
    """Every debounce, throttle and redraw the steps started has run (see settle.py)."""
    settle(qtbot, win, win.controller)


def raise_tab(qtbot, dock, widget) -> None:
    dock.raise_()
    qtbot.waitUntil(lambda: on_screen(widget), timeout=3000)
    quiet(qtbot, dock.window())


def vb_rows(win) -> int:
    return win.dock_layout.vocab_browser.model.rowCount()


def test_only_the_front_tab_is_on_screen(win):
    assert win.dock_layout.encode_dock.isVisible() and win.dock_layout.vocab_dock.isVisible()
    d = win.dock_layout
    for behind in (d.vocab_browser, d.charts_view, d.compare_view, d.compare_view.pane_a,
                   d.compare_view.pane_b):
        assert behind.isVisible(), type(behind).__name__       # not hidden by Qt ...
        assert not on_screen(behind), type(behind).__name__    # ... but not on screen
    assert on_screen(win.dock_layout.encode_view)
    assert on_screen(win.dock_layout.merge_panel)


def test_vocab_browser_skips_steps_behind_and_catches_up_when_raised(qtbot, win):
    c, vb = win.controller, win.dock_layout.vocab_browser
    t = c.trainer
    # Look at the vocabulary once (step 0), then go back to the encode tab.
    raise_tab(qtbot, win.dock_layout.vocab_dock, vb)
    assert vb.model.rowCount() == t.n_initial > 0
    raise_tab(qtbot, win.dock_layout.encode_dock, win.dock_layout.encode_view)
    assert not on_screen(vb)
    rows_before = vb.model.rowCount()
    shown_before = vb.proxy.rowCount()
    summary_before = vb.summary.text()
    assert summary_before.startswith("Step 0:")
    for _ in range(STEPS):
        assert c.step()
    quiet(qtbot, win)
    assert c.step_index == STEPS
    # Behind the encode tab: the model was not touched, the browser knows it is behind.
    assert vb.model.rowCount() == rows_before
    assert vb.proxy.rowCount() == shown_before
    assert vb.summary.text() == summary_before
    assert vb.catchup.behind

    raise_tab(qtbot, win.dock_layout.vocab_dock, vb)
    assert not t.settings.prune               # every token is a row (none pruned away)
    n_tokens = len(t.base) + len(t.settings.special_tokens) + STEPS
    qtbot.waitUntil(lambda: vb.model.rowCount() == n_tokens, timeout=3000)
    assert t.vocab_size == n_tokens
    assert vb.proxy.rowCount() == n_tokens
    assert not vb.catchup.behind
    # The last rows are the tokens the steps made, in order.
    made = [vb.model.entry(r).token for r in range(n_tokens - STEPS, n_tokens)]
    assert made == [rec.token for rec in t.steps]
    assert f"Step {STEPS}:" in vb.summary.text()
    # The encode tab is behind now.
    assert not on_screen(win.dock_layout.encode_view)
    assert on_screen(vb)


def test_encode_view_skips_steps_behind_and_catches_up_when_raised(qtbot, win):
    c, ev = win.controller, win.dock_layout.encode_view
    text = ev.text()
    assert text                                   # the sample text is in the view
    raise_tab(qtbot, win.dock_layout.vocab_dock, win.dock_layout.vocab_browser)
    assert not on_screen(ev)
    ids_before = list(ev.encoding.ids)
    source_before = ev.source.currentText()
    for _ in range(STEPS):
        assert c.step()
    quiet(qtbot, win)
    assert ev.encoding.ids == ids_before          # no work while behind
    assert ev.source.currentText() == source_before
    assert ev.catchup.behind
    # While the vocabulary tab is in front it follows every step.
    assert vb_rows(win) == c.trainer.vocab_size

    raise_tab(qtbot, win.dock_layout.encode_dock, ev)
    qtbot.waitUntil(lambda: not ev.catchup.behind, timeout=3000)
    assert ev.source.currentText() == f"Trained, as of step {STEPS}"
    assert ev.encoding.ids == fresh_ids(c, text)
    assert ev.encoding.ids != ids_before
    assert not on_screen(win.dock_layout.vocab_browser)


def charted_steps(charts) -> int:
    """The last step the compression chart shows (-1: nothing charted yet)."""
    return charts.compression.data("corpus")[0][-1] if "corpus" in \
        charts.compression.series else -1


def test_charts_skip_steps_behind_and_catch_up_when_raised(qtbot, win):
    c, charts = win.controller, win.dock_layout.charts_view
    n_before = charted_steps(charts)
    for _ in range(STEPS):
        assert c.step()
    quiet(qtbot, win)
    assert charted_steps(charts) == n_before      # no work while behind
    assert charts.catchup.behind

    raise_tab(qtbot, win.dock_layout.charts_dock, charts)
    qtbot.waitUntil(lambda: charted_steps(charts) == STEPS, timeout=3000)
    assert not charts.catchup.behind
    assert charts.status.text().startswith(f"Step {STEPS}:")
    t = c.trainer
    assert f"{len(t.vocab_bytes):,} tokens in the vocabulary" in charts.status.text()
    # one compression point per step, from step 0
    assert charts.compression.data("corpus")[0] == list(range(STEPS + 1))
    assert charts.pair_count.data("chosen pair")[1] == [rec.count for rec in t.steps]


# The two compare-view tests below failed on 28d7416 (the commit that brought on_screen):
# CompareView had no catch_up(), so MainWindow._dock connected no visibilityChanged for
# the Compare dock, and its panes (behind the encode tab, so _behind) never got a
# showEvent when the tab was raised: side A kept showing the old step. And a side
# scrolled out of the dock's QScrollArea counted as off screen with nothing to call
# catch_up() when scrolled back. Fixed in 82f3152.
def test_compare_view_catches_up_when_raised(qtbot, win):
    c, cv = win.controller, win.dock_layout.compare_view
    a = cv.pane_a
    assert a.kind_key() == "current"
    assert a.caption.full_text().startswith("A: step 0 (current)")
    for _ in range(STEPS):
        assert c.step()
    quiet(qtbot, win)
    assert a.catchup.behind                              # no work while behind
    assert a.caption.full_text().startswith("A: step 0 (current)")

    raise_tab(qtbot, win.dock_layout.compare_dock, cv)
    assert on_screen(a)
    qtbot.waitUntil(lambda: a.caption.full_text().startswith(f"A: step {STEPS} (current)"),
                    timeout=1000)
    assert not a.catchup.behind
    assert cv.encodings[0].ids == fresh_ids(c, cv.text())
    assert a.step_spin.maximum() == STEPS         # the step range follows too


def test_compare_side_scrolled_into_view_is_up_to_date(qtbot, win):
    c, cv = win.controller, win.dock_layout.compare_view
    b = cv.pane_b
    raise_tab(qtbot, win.dock_layout.compare_dock, cv)
    area = win.dock_layout.compare_dock.widget()              # the dock's scroll area
    bar = area.horizontalScrollBar()
    bar.setValue(0)
    for _ in range(STEPS):                        # side B may be scrolled out of view
        assert c.step()
    quiet(qtbot, win)
    bar.setValue(bar.maximum())                   # the user scrolls to side B
    quiet(qtbot, win)
    assert b.visibleRegion().boundingRect().width() > 0
    assert b.step_spin.maximum() == STEPS
    assert b.step_max.text() == f"of {STEPS}"
