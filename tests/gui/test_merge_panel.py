"""Merge step panel, driven as a user would, on a real Controller and corpus."""
from __future__ import annotations

import lzma

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from bpe_gui.engine.train.trainer import TrainSettings
from bpe_gui.gui.controller.controller import Controller
from bpe_gui.gui.models.pair_table import PairTableModel
from bpe_gui.gui.models.roles import TOKENS_ROLE
from bpe_gui.gui.models.timeline import TimelineModel
from bpe_gui.gui.panels.merge.merge_panel import PAGE, SPEEDS, MergePanel
from panel_helpers import make_controller



pytestmark = pytest.mark.controller()


@pytest.fixture
def panel(qtbot, controller):
    p = MergePanel(controller)
    qtbot.addWidget(p)
    p.resize(1100, 700)
    p.show()
    return p


def click(qtbot, button):
    qtbot.mouseClick(button, Qt.LeftButton)


def timeline_click(qtbot, panel: MergePanel, step: int) -> None:
    view = panel.timeline_view
    rect = view.visualRect(panel.timeline.index(step, TimelineModel.STEP))
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=rect.center())


def pairs(panel: MergePanel) -> list[tuple[str, int, str]]:
    """(pair, count, tie label) of each row as shown."""
    return [(r[PairTableModel.PAIR], int(r[PairTableModel.COUNT].replace(",", "")),
             r[PairTableModel.TIE]) for r in panel.pair_rows()]


def test_initial_table_is_step_one_candidates(panel):
    rows = pairs(panel)
    assert rows[0] == ("s t", 5, "next")
    assert rows[1] == ("e s", 5, "tied")
    assert all(tie == "" for _, count, tie in rows[2:] if count < 5)
    assert "2 pairs share the top count 5; s t wins" in panel.next_label.text()
    assert panel.timeline.rowCount() == 1          # only "start"
    assert not panel.back_btn.isEnabled()


def test_step_updates_table_highlight_and_timeline(qtbot, panel, controller):
    click(qtbot, panel.step_btn)
    assert controller.step_index == 1
    rows = pairs(panel)
    assert rows[0][:2] == ("e st", 5)
    assert rows[0][2] == "next" and rows[1][2] == ""   # no tie for step 2
    # The winner row is highlighted (background + bold), the others not.
    winner = panel.pair_model.index(0, PairTableModel.PAIR)
    assert winner.data(Qt.BackgroundRole) == panel.pair_model.colors.winner
    assert winner.data(Qt.FontRole).bold()
    assert panel.pair_model.index(1, 0).data(Qt.BackgroundRole) is None
    assert winner.data(TOKENS_ROLE) == [("e", False), ("st", False)]
    assert panel.timeline.rowCount() == 2
    assert panel.timeline.index(1, TimelineModel.MERGE).data() == "s t"
    assert panel.last_title.text().startswith("<b>Step 1:</b> s + t")
    assert "s t wins" in panel.last_reason.text()


def test_six_way_tie_at_step_three(qtbot, panel, controller):
    click(qtbot, panel.step_btn)
    click(qtbot, panel.step_btn)
    rows = pairs(panel)
    tied = [p for p, c, tie in rows if tie in ("tied", "next")]
    assert sorted(tied) == sorted(["w i", "o w", "l o", "i d", "d est", "· w"])
    assert rows[0] == ("w i", 3, "next")
    for r in range(6):
        assert panel.pair_model.index(r, 0).data(Qt.BackgroundRole) is not None
    assert panel.pair_model.index(6, 0).data(Qt.BackgroundRole) is None
    text = panel.next_label.text()
    assert "6 pairs share the top count 3; w i wins because it is the greatest pair" in text
    assert "6 tied at count 3" in panel.pairs_footer.text()

    click(qtbot, panel.step_btn)
    rec = controller.trainer.steps[-1]
    assert panel.last_reason.text() == rec.reason
    assert rec.reason.startswith("6 pairs share the top count 3; w i wins because")
    assert "beats o w" in rec.reason               # the runner-up, never the winner itself
    am = panel.affected_model
    assert am.rowCount() == 1
    assert am.index(0, 0).data() == "3"
    before = [t for t, *_ in am.index(0, 1).data(TOKENS_ROLE)]
    after = am.index(0, 2).data(TOKENS_ROLE)
    assert before == ["·", "w", "i", "d", "est"]
    assert [t for t, *_ in after] == ["·", "wi", "d", "est"]
    assert [t for t, _, new in after if new] == ["wi"]   # the new token is marked
    assert panel.timeline.index(3, TimelineModel.TIES).data() == "6"


def test_undo_restores_previous_table_exactly(qtbot, panel, controller):
    click(qtbot, panel.step_btn)
    click(qtbot, panel.step_btn)
    before = panel.pair_rows()
    next_before = panel.next_label.text()
    click(qtbot, panel.step_btn)
    assert panel.pair_rows() != before
    click(qtbot, panel.back_btn)
    assert controller.step_index == 2
    assert panel.pair_rows() == before
    assert panel.next_label.text() == next_before
    assert panel.last_title.text().startswith("<b>Step 2:</b>")


def test_undo_restores_sorted_and_filtered_table(qtbot, panel):
    panel.pair_view.sortByColumn(PairTableModel.MERGED, Qt.DescendingOrder)
    qtbot.keyClicks(panel.filter_edit, "e")
    before = panel.pair_rows()
    assert before and all("e" in r[1] or "e" in r[2] for r in before)
    assert [r[2] for r in before] == sorted((r[2] for r in before), reverse=True)
    click(qtbot, panel.step_btn)
    click(qtbot, panel.back_btn)
    assert panel.pair_rows() == before


def test_timeline_click_jumps_and_keeps_future_steps(qtbot, panel, controller):
    for _ in range(4):
        click(qtbot, panel.step_btn)
    assert panel.timeline.rowCount() == 5
    timeline_click(qtbot, panel, 1)
    assert controller.step_index == 1
    assert panel.timeline.rowCount() == 5             # steps 2-4 stay, greyed
    future = panel.timeline.index(3, TimelineModel.MERGE)
    assert future.data(Qt.ForegroundRole) == panel.timeline.colors.future
    assert panel.timeline.index(1, 0).data(Qt.ForegroundRole) is None
    assert pairs(panel)[0][:2] == ("e st", 5)
    timeline_click(qtbot, panel, 4)                   # forward again
    assert controller.step_index == 4
    assert panel.timeline.index(4, TimelineModel.MERGE).data() == "wi d"
    timeline_click(qtbot, panel, 0)                   # the start row
    assert controller.step_index == 0
    assert panel.timeline.rowCount() == 5


def test_goto_reset_and_new_trainer(qtbot, panel, controller):
    panel.goto_spin.setValue(5)
    click(qtbot, panel.goto_btn)
    assert controller.step_index == 5
    assert panel.timeline.rowCount() == 6
    assert panel.status.text().startswith("Step 5 of 744")
    click(qtbot, panel.reset_btn)
    assert controller.step_index == 0
    assert panel.timeline.rowCount() == 6
    # New settings: a new trainer, the timeline starts over.
    controller.set_settings(TrainSettings(vocab_size=1000, tie_rule="lowest-ids"))
    controller.training.retrain()
    assert panel.timeline.rowCount() == 1
    assert "Lowest token ids" in panel.status.text()


def test_filter_sort_and_show_more(qtbot):
    letters = "abcdefghijklmnopqrstuvwxyz"
    corpus = " ".join(x + y + "th" for x in letters for y in letters)   # > 676 pairs
    c = make_controller(corpus)
    p = MergePanel(c)
    qtbot.addWidget(p)
    p.show()
    assert p.pair_model.rowCount() == PAGE
    assert p.more_btn.isEnabled()
    click(qtbot, p.more_btn)
    assert p.pair_model.rowCount() > PAGE
    qtbot.keyClicks(p.filter_edit, "th")
    shown = pairs(p)
    assert shown and all("th" in pair.replace(" ", "").lower() or "th" in pair.lower()
                         for pair, _, _ in shown)
    p.filter_edit.clear()
    header = p.pair_view.horizontalHeader()
    qtbot.mouseClick(header.viewport(), Qt.LeftButton,
                     pos=header.rect().topLeft() + _section_center(header, PairTableModel.COUNT))
    counts = [count for _, count, _ in pairs(p)]
    assert counts in (sorted(counts), sorted(counts, reverse=True))
    c.shutdown()


def _section_center(header, section):
    from PySide6.QtCore import QPoint
    return QPoint(header.sectionViewportPosition(section) + header.sectionSize(section) // 2,
                  header.height() // 2)


def test_play_pause_and_speed(qtbot, panel, controller):
    panel.speed.setValue(len(SPEEDS) - 1)
    assert panel.interval_ms() <= 20
    click(qtbot, panel.play_btn)
    assert controller.playing
    assert panel.play_btn.text() == "Pause"
    qtbot.waitUntil(lambda: controller.step_index >= 3, timeout=3000)
    click(qtbot, panel.play_btn)
    assert not controller.playing
    assert panel.play_btn.text() == "Play"
    k = controller.step_index
    assert panel.timeline.current == k
    assert panel.timeline.rowCount() >= k + 1


def test_run_to_target_on_worker_then_cancel_state(qtbot):
    text = " ".join(f"tok{i % 97}en{i % 13} w{i % 31}x" for i in range(3000))
    c = make_controller(text, vocab_size=700)
    p = MergePanel(c)
    qtbot.addWidget(p)
    p.show()
    with qtbot.waitSignal(c.busyChanged, timeout=2000) as blocker:
        click(qtbot, p.target_btn)
    if blocker.args == [True]:                 # a job started: only Cancel is live
        assert p.cancel_btn.isEnabled()
        assert not p.step_btn.isEnabled()
        qtbot.waitUntil(lambda: not c.busy, timeout=20000)
    assert not p.cancel_btn.isEnabled()
    assert c.trainer.is_done
    assert p.timeline.rowCount() == c.step_index + 1
    assert "Training is done" in p.next_label.text()
    c.shutdown()


def test_hidden_panel_catches_up_when_shown(qtbot, controller):
    p = MergePanel(controller)
    qtbot.addWidget(p)
    controller.goto(3)              # while hidden: no work done
    assert p.timeline.rowCount() == 1
    p.show()
    assert p.timeline.rowCount() == 4
    assert pairs(p)[0][:2] == ("wi d", 3)


@pytest.mark.slow
def test_many_steps_with_every_panel_shown_stay_consistent(qtbot, corpora_dir):
    """200 steps with the merge panel, the encode view and the vocabulary browser shown:
    each follows step by step and ends where a fresh look at the trainer is. (Timings:
    bench/test_gui_latency.py.)"""
    from bpe_gui.engine.tokenizers.trained import Tokenizer
    from bpe_gui.gui.panels.encode.encode_view import EncodeView
    from bpe_gui.gui.panels.vocab.vocab_browser import VocabBrowser
    text = lzma.open(corpora_dir / "en-tinyshakespeare.txt.xz", "rt", encoding="utf-8").read()
    c = Controller()
    c.set_settings(TrainSettings(vocab_size=5000))
    c.set_corpus_text(text)
    c.training.retrain()
    qtbot.waitUntil(lambda: c.trainer is not None and not c.busy, timeout=60000)
    panel, view, browser = MergePanel(c), EncodeView(c), VocabBrowser(c)
    for w in (panel, view, browser):
        qtbot.addWidget(w)
        w.resize(1000, 650)
        w.show()
    view.set_text(text[:2000])
    app = QApplication.instance()
    app.processEvents()
    for _ in range(200):
        assert c.step()
        app.processEvents()
    t = c.trainer
    assert panel.timeline.rowCount() == t.n_steps + 1 == 201    # and "start"
    top = t.top_pairs(1)[0]
    assert pairs(panel)[0][1] == top.count
    s = t.settings
    tok = Tokenizer(t.vocab, t.merges, list(s.special_tokens), pattern=s.pattern, mode=s.mode)
    assert view.encoding.ids == tok.encode_with_offsets(view.text(), allowed_special="all").ids
    qtbot.waitUntil(lambda: browser.model.rowCount() == t.vocab_size, timeout=3000)
    c.shutdown()


@pytest.mark.regression
def test_enter_in_the_step_box_goes_to_that_step(window, qtbot):
    """Enter in the Step box did nothing (issue 10)."""
    panel = window.dock_layout.merge_panel
    box = panel.goto_spin
    box.setFocus()
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), "3")
    qtbot.keyClick(box.lineEdit(), Qt.Key_Return)
    assert window.controller.step_index == 3


@pytest.mark.regression
def test_timeline_page_down_and_the_first_click_after_a_scroll_drag_move_the_step(
        window, qtbot, ready):
    """Timeline: Page Down moved the highlight but not the current step, and the first
    click after dragging the scroll bar was ignored (issue 10)."""
    from PySide6.QtCore import QPoint
    c = window.controller
    assert window.dock_layout.editor.load_sample("english")
    ready(c)
    window.dock_layout.settings_panel.merges_spin.setValue(300)
    window.dock_layout.settings_panel.merges_radio.setChecked(True)
    assert window.actions_menus.flow.train()
    qtbot.waitUntil(lambda: not c.busy and c.step_index == 300, timeout=20_000)
    view = window.dock_layout.merge_panel.timeline_view
    window.resize(1366, 768)
    c.goto(0)
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    qtbot.keyClick(view, Qt.Key_PageDown)
    assert c.step_index > 0 and c.step_index == view.currentIndex().row()
    # drag the scroll bar, then click a row once: it jumps there
    bar = view.verticalScrollBar()
    handle = QPoint(bar.width() // 2, 12)
    qtbot.mousePress(bar, Qt.LeftButton, pos=handle)
    qtbot.mouseMove(bar, QPoint(handle.x(), handle.y() + 30))
    qtbot.mouseRelease(bar, Qt.LeftButton, pos=QPoint(handle.x(), handle.y() + 30))
    row_rect = view.visualRect(view.model().index(view.rowAt(40), 0))
    target = view.rowAt(row_rect.center().y())
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=row_rect.center())
    assert c.step_index == target


def test_timeline_scrubber_and_find_the_step_that_made_a_token(window, qtbot, ready):
    c = window.controller
    window.actions_menus.acts["run"].trigger()
    qtbot.waitUntil(lambda: not c.busy and c.trainer.is_done, timeout=10_000)
    steps = list(c.trainer.steps)
    tools = window.dock_layout.merge_panel.timeline_tools
    assert tools.scrubber.maximum() == len(steps) and tools.scrubber.value() == len(steps)
    tools.scrubber.setValue(3)                 # as a drag ends
    assert c.step_index == 3
    target = steps[6]                          # a token made at step 7
    tools.find_edit.setText(window.dock_layout.merge_panel.timeline.cache.text(target.token))
    assert tools.search()
    expected = next(r.index for r in steps if r.token == target.token)
    assert c.step_index == expected and tools.scrubber.value() == expected
    tools.find_edit.setText("no such token anywhere")
    assert not tools.search() and c.step_index == expected


@pytest.mark.regression
def test_dragging_the_scrubber_moves_the_panels_before_it_is_let_go(window, qtbot):
    """The scrubber jumped only when let go: a drag updated nothing on the way."""
    from PySide6.QtCore import QEvent, QPointF
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QStyle, QStyleOptionSlider
    from settle import settle
    c = window.controller
    panel = window.dock_layout.merge_panel
    assert c.goto(10) and c.goto(0)     # ten steps on the timeline, at step 0
    settle(qtbot, window, c)
    slider = panel.timeline_tools.scrubber
    panel.right_tabs.setCurrentWidget(panel.timeline_box)
    qtbot.waitUntil(slider.isVisible)
    assert slider.maximum() == 10 and slider.value() == 0

    def x_of(k: int) -> int:
        opt = QStyleOptionSlider()
        slider.initStyleOption(opt)
        groove = slider.style().subControlRect(QStyle.ComplexControl.CC_Slider, opt,
                                               QStyle.SubControl.SC_SliderGroove, slider)
        handle = slider.style().subControlRect(QStyle.ComplexControl.CC_Slider, opt,
                                               QStyle.SubControl.SC_SliderHandle, slider)
        span = groove.width() - handle.width()
        return groove.x() + handle.width() // 2 + QStyle.sliderPositionFromValue(0, 10, k,
                                                                                  span)

    def send(kind, x: int) -> None:
        pos = QPointF(x, slider.height() / 2)
        buttons = Qt.NoButton if kind == QEvent.Type.MouseButtonRelease else Qt.LeftButton
        ev = QMouseEvent(kind, pos, slider.mapToGlobal(pos), Qt.LeftButton, buttons,
                         Qt.NoModifier)
        QApplication.sendEvent(slider, ev)

    send(QEvent.Type.MouseButtonPress, x_of(0))
    assert slider.isSliderDown()
    for k in (2, 4, 6):
        send(QEvent.Type.MouseMove, x_of(k))
        qtbot.waitUntil(lambda: c.step_index == k, timeout=3000)   # still held down
        settle(qtbot, window, c)
        assert slider.isSliderDown()
        assert f"(step {k + 1})" in panel.next_label.text()       # the panels follow
        assert panel.timeline.current == k
    send(QEvent.Type.MouseMove, x_of(3))
    send(QEvent.Type.MouseButtonRelease, x_of(3))
    qtbot.waitUntil(lambda: c.step_index == 3 and not slider.isSliderDown(), timeout=3000)
    settle(qtbot, window, c)
    assert c.step_index == 3 and slider.value() == 3


def test_partial_character_pairs_say_which_character_they_belong_to(qtbot):
    from bpe_gui.gui.models.pair_table import part_of
    from bpe_gui.gui.panels.merge.merge_panel import MergePanel
    from bpe_gui.gui.models.roles import TOOLTIP
    text = "中文 中国 中间 hello"
    c = make_controller(text)
    panel = MergePanel(c)
    qtbot.addWidget(panel)
    panel.show()
    m = panel.pair_model
    tips = [m.data(m.index(r, 1), TOOLTIP) for r in range(m.rowCount())]
    vocab = m.snapshot.vocab
    for r, tip in enumerate(tips):
        row = m.rows[r]
        merged = vocab[row.a] + vocab[row.b]
        # oracle: the characters of the corpus whose UTF-8 contains the merged bytes
        owners = [ch for ch in text if ord(ch) > 0x7F and merged in ch.encode()]
        try:
            merged.decode("utf-8")
            whole = True
        except UnicodeDecodeError:
            whole = False
        if whole or not owners:   # whole characters, or bytes across two characters
            assert "part of" not in tip
        else:
            assert f"part of the character {owners[0]}" in tip
    assert any("part of the character 中" in t for t in tips)
    assert part_of(b"\xe4\xb8", ["ab", "中"]) == "中" and part_of(b"ab", ["ab"]) is None
    c.shutdown()


@pytest.mark.regression
def test_each_step_brings_the_next_merge_into_sight(qtbot):
    """The pair table kept its scroll offset between steps: rank 1, merged next, could
    be out of sight."""
    text = " ".join(a + b + c for a in "bcdfgklmnprst" for b in "aeiou" for c in "xyz")
    c = make_controller(text)
    p = MergePanel(c)
    qtbot.addWidget(p)
    p.resize(1100, 500)
    p.show()
    qtbot.waitExposed(p)
    view = p.pair_view

    def next_in_sight() -> bool:
        r = next(i for i, row in enumerate(p.pair_model.rows) if row.rank == 1)
        return view.viewport().rect().contains(view.visualRect(p.pair_model.index(r, 0)))
    for _ in range(3):
        bar = view.verticalScrollBar()
        qtbot.waitUntil(lambda: bar.maximum() > 0)
        bar.setValue(bar.maximum())   # the user scrolled down the candidates
        assert not next_in_sight()
        assert c.step()
        qtbot.waitUntil(next_in_sight, timeout=3000)
    c.shutdown()
