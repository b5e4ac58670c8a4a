"""The merge panel's tables, painted from ``model.cell(row, col)`` (widgets/table_cells.py).

Two things are checked: that ``cell()`` tells the same story as the roles a plain
QTableView (and the tests, and accessibility) read through ``data()``; and what the
tables really look like, from pixels of the grabbed viewport: backgrounds, alignment,
token chips, and that nothing is drawn outside its own cell.
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPalette
from PySide6.QtWidgets import QApplication

from bpe_gui.engine.display import readable
from bpe_gui.gui.models.affected import AffectedModel, affected_rows
from bpe_gui.gui.models.pair_table import PairTableModel as P
from bpe_gui.gui.models.roles import ID_ROLE, TOKENS_ROLE
from bpe_gui.gui.models.timeline import TimelineModel as T
from bpe_gui.gui.panels.merge.merge_panel import MergePanel
from panel_helpers import WORKED, make_controller
from settle import settle

DISPLAY, BACKGROUND, FOREGROUND = Qt.DisplayRole, Qt.BackgroundRole, Qt.ForegroundRole
FONT, ALIGN = Qt.FontRole, Qt.TextAlignmentRole
RIGHT = int(Qt.AlignmentFlag.AlignRight.value)


pytestmark = pytest.mark.controller(WORKED)


def make_panel(qtbot, controller) -> MergePanel:
    p = MergePanel(controller)
    qtbot.addWidget(p)
    p.resize(1100, 700)
    p.show()
    qtbot.waitExposed(p)
    return p


@pytest.fixture
def panel(qtbot, controller):
    return make_panel(qtbot, controller)


def at_step_3_with_future(controller) -> None:
    """Step 3 after stepping to 5: ties in the pair table, a word list for the last
    merge, greyed future steps in the timeline."""
    controller.goto(5)
    controller.goto(3)
    QApplication.processEvents()


# ----- cell() against data() -----------------------------------------------------------

def _same_color(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return QColor(a).rgba() == QColor(b).rgba()


def check_cells_match_roles(model, joiner: str) -> int:
    """Every cell: its content is the display text (chips joined with ``joiner``), and
    the background, foreground, bold and alignment are those data() gives."""
    n_chips = 0
    for r in range(model.rowCount()):
        for c in range(model.columnCount()):
            ix = model.index(r, c)
            cell = model.cell(r, c)
            display = ix.data(DISPLAY)
            if isinstance(cell.content, str):
                assert cell.content == display, (r, c)
                assert ix.data(TOKENS_ROLE) is None, (r, c)
            else:
                n_chips += 1
                texts = [chip[0] for chip in cell.content]
                assert joiner.join(texts) == display, (r, c)
                assert [tuple(x) for x in ix.data(TOKENS_ROLE)] == \
                    [tuple(x) for x in cell.content], (r, c)
            assert _same_color(cell.bg, ix.data(BACKGROUND)), (r, c)
            assert _same_color(cell.fg, ix.data(FOREGROUND)), (r, c)
            font = ix.data(FONT)
            assert cell.bold == (font is not None and font.bold()), (r, c)
            align = ix.data(ALIGN)
            assert cell.right == (align is not None and bool(int(align) & RIGHT)), (r, c)
    return n_chips


def test_pair_cells_match_the_roles(panel, controller):
    at_step_3_with_future(controller)
    m = panel.pair_model
    assert m.rowCount() > 5
    n_chips = check_cells_match_roles(m, " ")
    assert n_chips == m.rowCount()                     # one chip cell per row: the pair
    vocab = controller.trainer.vocab_bytes
    for r in range(m.rowCount()):
        a, b = m.index(r, P.PAIR).data(ID_ROLE)
        # the chips are the two tokens, readable, from the trainer's own vocabulary
        assert [t for t, *_ in m.cell(r, P.PAIR).content] == [readable(vocab[a]),
                                                              readable(vocab[b])]
        assert m.cell(r, P.MERGED).content == readable(vocab[a] + vocab[b])
        assert m.cell(r, P.RANK).right and m.cell(r, P.COUNT).right
        assert not m.cell(r, P.PAIR).right and not m.cell(r, P.MERGED).right
    rank1 = [r for r in range(m.rowCount()) if m.cell(r, P.RANK).content == "1"]
    assert len(rank1) == 1
    assert all(m.cell(rank1[0], c).bold and _same_color(m.cell(rank1[0], c).bg,
                                                        m.colors.winner) for c in range(5))
    tied = [r for r in range(m.rowCount()) if _same_color(m.cell(r, 0).bg, m.colors.tied)]
    assert tied and all(m.cell(r, P.TIE).content == "tied" for r in tied)


def test_affected_cells_match_the_roles(panel, controller):
    at_step_3_with_future(controller)
    m = panel.affected_model
    assert m.rowCount() >= 1
    n_chips = check_cells_match_roles(m, " | ")
    assert n_chips == 2 * m.rowCount()                 # before and after
    rec = controller.trainer.steps[-1]
    vocab = controller.trainer.vocab_bytes
    for r, word in enumerate(rec.affected):
        assert m.cell(r, AffectedModel.FREQ).content == f"{word.freq:,}"
        assert m.cell(r, AffectedModel.FREQ).right
        after = m.cell(r, AffectedModel.AFTER).content
        assert [t for t, *_ in after] == [readable(vocab[i]) for i in word.after]
        assert [i == rec.new_id for i in word.after] == [bool(ch[2]) for ch in after]


def test_timeline_cells_match_the_roles(panel, controller):
    at_step_3_with_future(controller)
    m = panel.timeline
    assert m.rowCount() == 6 and m.current == 3
    n_chips = check_cells_match_roles(m, " ")
    assert n_chips == 5                                # steps 1..5 (the start row is text)
    for k in range(6):
        cell = m.cell(k, T.STEP)
        assert cell.content == str(k) and cell.right
        assert cell.bold == (k == 3)
        assert _same_color(cell.fg, m.colors.future if k > 3 else None), k
        assert _same_color(cell.bg, m.colors.tied if k == 3 else None), k
    steps = controller.trainer.steps
    vocab = controller.trainer.vocab_bytes
    for k in range(1, 4):
        left, right = steps[k - 1].pair
        assert [t for t, *_ in m.cell(k, T.MERGE).content] == [readable(vocab[left]),
                                                              readable(vocab[right])]


# ----- pixels -------------------------------------------------------------------------------

def grab(view):
    QApplication.processEvents()
    img = view.viewport().grab().toImage()
    assert img.devicePixelRatio() == 1.0
    return img


def pixels(img, rect: QRect) -> list[QColor]:
    return [img.pixelColor(x, y) for y in range(rect.top(), rect.bottom() + 1)
            for x in range(rect.left(), rect.right() + 1)]


def count(img, rect: QRect, color: QColor) -> int:
    rgb = QColor(color).rgb()
    return sum(1 for p in pixels(img, rect) if p.rgb() == rgb)


def dark(img, rect: QRect) -> int:
    """Pixels of text (the palette's text is dark on these light backgrounds)."""
    return sum(1 for p in pixels(img, rect) if p.lightness() < 100)


def inner(view, model, r: int, c: int) -> QRect:
    """The cell's rectangle without its grid lines, one pixel in from each side."""
    return view.visualRect(model.index(r, c)).adjusted(1, 1, -1, -1)


def halves(rect: QRect) -> tuple[QRect, QRect]:
    w = rect.width() // 2
    return (QRect(rect.left(), rect.top(), w, rect.height()),
            QRect(rect.left() + w, rect.top(), rect.width() - w, rect.height()))


def test_light_palette():
    base = QApplication.palette().color(QPalette.Base)
    text = QApplication.palette().color(QPalette.Text)
    assert base.lightness() > 200 and text.lightness() < 100, "these pixel tests need it"


@pytest.mark.slow
def test_pair_table_pixels(panel, controller):
    controller.goto(2)                     # 6 pairs tied for step 3
    view, m = panel.pair_view, panel.pair_model
    img = grab(view)
    colors = m.colors
    winner = next(r for r in range(m.rowCount()) if m.rows[r].rank == 1)
    plain = [r for r in range(m.rowCount()) if m.cell(r, 0).bg is None]
    tied = [r for r in range(m.rowCount())
            if _same_color(m.cell(r, 0).bg, colors.tied)]
    assert plain and len(tied) == 5
    for c in range(5):
        rect = inner(view, m, winner, c)
        assert count(img, rect, colors.winner) > rect.width() * rect.height() // 2, c
        for r in tied:
            assert count(img, inner(view, m, r, c), colors.winner) == 0
            assert count(img, inner(view, m, r, c), colors.tied) > 0
        for r in plain[:3]:
            assert count(img, inner(view, m, r, c), colors.winner) == 0
            assert count(img, inner(view, m, r, c), colors.tied) == 0
    for r in [winner] + tied + plain[:3]:
        # numbers right-aligned: text in the right half of Rank and Count only
        for c in (P.RANK, P.COUNT):
            left, right = halves(inner(view, m, r, c))
            assert dark(img, right) > 0 and dark(img, left) == 0, (r, c)
        # short merged tokens left-aligned
        left, right = halves(inner(view, m, r, P.MERGED))
        assert dark(img, left) > 0 and dark(img, right) == 0, r
        # the pair as two chips, in the two alternating colours, with their border
        pair = inner(view, m, r, P.PAIR)
        assert count(img, pair, colors.block_a) > 20 and count(img, pair, colors.block_b) > 20
        assert count(img, pair, colors.border) > 0
    # the other text cells hold no chips
    for r in plain[:3]:
        for c in (P.RANK, P.MERGED, P.COUNT, P.TIE):
            rect = inner(view, m, r, c)
            assert count(img, rect, colors.block_a) == count(img, rect, colors.block_b) == 0


def test_selected_row_is_highlighted(panel, controller):
    controller.goto(2)
    view, m = panel.pair_view, panel.pair_model
    r = next(r for r in range(m.rowCount()) if m.cell(r, 0).bg is None)
    view.selectRow(r)
    img = grab(view)
    hl = view.palette().color(QPalette.Highlight)
    for c in (P.RANK, P.MERGED, P.COUNT):
        rect = inner(view, m, r, c)
        assert count(img, rect, hl) > rect.width() * rect.height() // 2, c
    assert count(img, inner(view, m, r + 1, P.COUNT), hl) == 0


def test_affected_and_timeline_pixels(panel, controller):
    at_step_3_with_future(controller)
    colors = panel.colors
    view, m = panel.affected_view, panel.affected_model
    img = grab(view)
    for r in range(m.rowCount()):
        left, right = halves(inner(view, m, r, AffectedModel.FREQ))
        assert dark(img, right) > 0 and dark(img, left) == 0
        before = inner(view, m, r, AffectedModel.BEFORE)
        after = inner(view, m, r, AffectedModel.AFTER)
        assert count(img, before, colors.block_a) > 0 and count(img, after, colors.block_a) > 0
        # the new token is marked in "after" only
        assert count(img, after, colors.hover) > 0
        assert count(img, before, colors.hover) == 0

    view, m = panel.timeline_view, panel.timeline
    img = grab(view)
    hl = view.palette().color(QPalette.Highlight)
    for k in range(m.rowCount()):
        step = inner(view, m, k, T.STEP)
        if view.selectionModel().isRowSelected(k):
            assert k == m.current                     # the current step is selected
            assert count(img, step, hl) > step.width() * step.height() // 2
            continue
        assert (count(img, step, colors.tied) > 0) == (k == m.current), k
        left, right = halves(step)
        text = [p for p in pixels(img, right) if p.lightness() < 200]
        assert text and not [p for p in pixels(img, left) if p.lightness() < 200], k
        darkest = min(p.lightness() for p in text)
        if k > m.current:
            assert darkest > 100, k                   # greyed: undone steps
        else:
            assert darkest < 100, k


LONG_WORDS = " ".join(["internationalization", "nationalities", "rationalization"] * 3000)


def test_narrow_left_aligned_text_is_elided_inside_its_cell(qtbot):
    c = make_controller(LONG_WORDS)            # long merged tokens
    try:
        panel = make_panel(qtbot, c)
        c.goto(12)
        settle(qtbot, panel)   # the sentence panes' new height lays the tables out again
        view, m = panel.pair_view, panel.pair_model
        view.horizontalHeader().setMinimumSectionSize(8)
        view.setColumnWidth(P.MERGED, 24)
        view.setColumnWidth(P.COUNT, 140)          # its number sits far right
        img = grab(view)
        fm = QFontMetrics(view.font())
        n = min(m.rowCount(), 8)
        assert n >= 3
        rows = [r for r in range(n) if fm.horizontalAdvance(m.cell(r, P.MERGED).content) > 40]
        assert len(rows) >= 3                            # they would not fit
        for r in rows:
            merged = inner(view, m, r, P.MERGED)
            assert dark(img, merged) > 0, r              # something is drawn ("…")
            # it keeps the cell's right text margin free ...
            margin = QRect(merged.right() - 2, merged.top(), 3, merged.height())
            assert dark(img, margin) == 0, r
            # ... and nothing ran into Count (whose own number sits far right)
            after = halves(inner(view, m, r, P.COUNT))[0].adjusted(-1, 0, 0, 0)
            assert dark(img, after) == 0, r
    finally:
        c.shutdown()


def test_narrow_right_aligned_number_is_elided_inside_its_cell(qtbot):
    # two-letter words, thousands of times: short merged tokens, counts like 4,000
    words = [a + b for a in "abcdefgh" for b in "stuv"]
    c = make_controller(" ".join(words * 4000))
    try:
        qtbot.waitUntil(lambda: c.trainer is not None and not c.busy, timeout=20_000)
        panel = make_panel(qtbot, c)
        view, m = panel.pair_view, panel.pair_model
        view.horizontalHeader().setMinimumSectionSize(8)
        view.setColumnWidth(P.MERGED, 140)         # its text sits far left
        view.setColumnWidth(P.COUNT, 24)
        img = grab(view)
        fm = QFontMetrics(view.font())
        n = min(m.rowCount(), 8)
        assert n >= 3
        rows = [r for r in range(n) if fm.horizontalAdvance(m.cell(r, P.COUNT).content) > 24]
        assert len(rows) >= 3                            # they would not fit
        for r in rows:
            number = inner(view, m, r, P.COUNT)
            assert dark(img, number) > 0, r              # something is drawn ("…")
            # it keeps the cell's left text margin free ...
            margin = QRect(number.left(), number.top(), 3, number.height())
            assert dark(img, margin) == 0, r
            # ... and nothing ran back into Merged (whose own text sits far left)
            before = halves(inner(view, m, r, P.MERGED))[1].adjusted(0, 0, 1, 0)
            assert dark(img, before) == 0, r
    finally:
        c.shutdown()


# Failed on 28d7416: draw_chips stopped only at a chip that would START past the cell's
# right edge, so the last chip starting inside was drawn whole over the next column (at
# the default widths as soon as a pair's tokens are long). Fixed in 1a0a665.
@pytest.mark.slow
def test_chips_do_not_spill_into_the_next_column(qtbot):
    c = make_controller(LONG_WORDS)
    try:
        panel = make_panel(qtbot, c)              # the default column widths
        view, m = panel.pair_view, panel.pair_model
        colors = m.colors
        c.goto(24)
        top = c.step_index                        # training ends once the words are whole
        assert top >= 15
        spilled = []

        chip = {QColor(col).rgb() for col in (colors.block_a, colors.block_b, colors.border)}

        def check(tag):
            img = grab(view)
            for r in range(min(m.rowCount(), 10)):
                merged = inner(view, m, r, P.MERGED).adjusted(-1, 0, 0, 0)
                if any(p.rgb() in chip for p in pixels(img, merged)):   # (read once)
                    spilled.append((tag, r))

        for k in range(10, top + 1):              # long tokens: chips wider than the column
            c.goto(k)
            check(k)
        view.horizontalHeader().setMinimumSectionSize(8)
        view.setColumnWidth(P.PAIR, 40)           # a user narrows the column
        for k in range(10, top + 1):
            c.goto(k)
            check(("narrowed", k))
        assert spilled == []
    finally:
        c.shutdown()


def test_new_rows_replace_old_without_a_model_reset(qtbot, panel, controller):
    """A step swaps the rows in place: rows added or removed at the end and the rest
    changed, never a model reset (which would lay the header out again and drop the
    scroll position); the rows shown are then exactly those of a fresh model."""
    events = []
    for m in (panel.pair_model, panel.affected_model):
        m.modelReset.connect(lambda m=m: events.append((m, "reset")))
        m.rowsInserted.connect(lambda *_a, m=m: events.append((m, "inserted")))
        m.rowsRemoved.connect(lambda *_a, m=m: events.append((m, "removed")))
    counts = set()
    for k in range(1, 9):
        controller.goto(k)
        QApplication.processEvents()
        counts.add(panel.affected_model.rowCount())
        rec = controller.trainer.steps[-1]
        fresh = AffectedModel()
        fresh.set_rows(affected_rows(rec, controller.trainer.vocab_bytes, panel.cache))
        shown = [[panel.affected_model.index(r, c).data() for c in range(3)]
                 for r in range(panel.affected_model.rowCount())]
        assert shown == [[fresh.index(r, c).data() for c in range(3)]
                         for r in range(fresh.rowCount())]
    assert len(counts) > 1                       # the number of affected words varied
    assert not any(kind == "reset" for _m, kind in events)
    assert any(kind in ("inserted", "removed") for m, kind in events
               if m is panel.affected_model)


def test_a_step_clears_a_selected_candidate_row(qtbot, panel, controller):
    """Rows keep their places across a step but now hold other pairs: a selection the
    user made would point at the wrong pair, so it is cleared."""
    panel.pair_view.selectRow(2)
    assert panel.pair_view.selectionModel().hasSelection()
    controller.step()
    QApplication.processEvents()
    assert not panel.pair_view.selectionModel().hasSelection()


def test_fitting_a_column_to_its_contents_shows_every_chip_whole(qtbot, panel, controller):
    """Double-clicking a header divider (resizeColumnToContents) makes the chip column
    wide enough for the widest pair in view, and the text column for its longest text."""
    controller.goto(6)
    QApplication.processEvents()
    view, model = panel.pair_view, panel.pair_model
    view.setColumnWidth(P.PAIR, 20)
    view.resizeColumnToContents(P.PAIR)
    fm = QFontMetrics(view.font())
    rows = range(view.rowAt(0), view.rowAt(view.viewport().height() - 1) + 1
                 if view.rowAt(view.viewport().height() - 1) >= 0 else model.rowCount())
    widest = max(sum(fm.horizontalAdvance(t) + 8 for t, _p in model.cell(r, P.PAIR).content)
                 for r in rows)
    assert view.columnWidth(P.PAIR) >= widest
    view.setColumnWidth(P.MERGED, 10)
    view.resizeColumnToContents(P.MERGED)
    longest = max(QFontMetrics(view.font()).horizontalAdvance(model.cell(r, P.MERGED).content)
                  for r in rows)
    assert view.columnWidth(P.MERGED) >= longest + 8
