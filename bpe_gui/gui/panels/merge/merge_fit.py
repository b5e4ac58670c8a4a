"""How the merge panel fits the window: two columns, the last merge and the timeline as
tabs on a short screen (``compact``), one column of three tabs when too narrow for every
column of both tables; the columns' room for the numbers and the pairs' chips.

:class:`MergeFit` is a part of the merge panel, given the panel (its boxes, tables,
splitter and tab widget are built before it).
"""
from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QGroupBox, QLayout, QSplitter, QStyle, QTabWidget

from ...controller.trainer_view import TrainerView
from ...models.merge_text import column_numbers
from ...models.pair_table import PairTableModel
from ...widgets.flow_layout import FlowBar
from ...widgets.group_titles import TitleFitter
from ...widgets.table_cells import TEXT_MARGIN, CellTableView
from ...widgets.text_pane import TextPane


class FitPanel(Protocol):
    """What the fit reads of the merge panel: its boxes, tables and containers."""

    @property
    def controls_bar(self) -> FlowBar: ...
    @property
    def pairs_footer(self) -> TextPane: ...
    @property
    def pairs_box(self) -> QGroupBox: ...
    @property
    def last_box(self) -> QGroupBox: ...
    @property
    def timeline_box(self) -> QGroupBox: ...
    @property
    def pair_view(self) -> CellTableView: ...
    @property
    def pair_model(self) -> PairTableModel: ...
    @property
    def affected_view(self) -> CellTableView: ...
    @property
    def timeline_view(self) -> CellTableView: ...
    @property
    def right(self) -> QSplitter: ...
    @property
    def right_tabs(self) -> QTabWidget: ...
    @property
    def splitter(self) -> QSplitter: ...
    @property
    def titles(self) -> TitleFitter: ...
    def layout(self) -> QLayout | None: ...
    def style(self) -> QStyle: ...
    def width(self) -> int: ...
    def isVisible(self) -> bool: ...


class MergeFit(QObject):
    """The panel's arrangement for its size (see the module docstring); ``parent``: the
    panel itself, whose life it shares."""

    def __init__(self, panel: FitPanel, parent: QObject):
        super().__init__(parent)
        self.p = panel
        self.compact = False
        self.one_column = False   # too narrow for two columns: every box a tab
        self._tabbed: tuple = ()
        self._halve = False

    def set_compact(self, on: bool) -> bool:
        """Compact: the last merge and the timeline share the right column as tabs
        ("Last merge", "Timeline"), so the panel is about 80 pixels shorter; at 800x600
        and 1024x700 the docks below had a few rows left (issue 30). The window turns it
        on for a short screen (docks.py). False if it was so already."""
        if on == self.compact:
            return False
        self.compact = on
        # no footer line under the pairs (the "Show more" button and its tooltip say it):
        # at 800x600 the encode view below had a sliver for its tokens
        self.p.pairs_footer.setVisible(not on)
        self.arrange()
        return True

    def controls_height(self) -> int:
        """The height of the panel's row of controls (Reset … Go), from the panel's top
        to where the next row starts: what it keeps in sight while a panel below has the
        window's height (docks.py), so that nothing of the rows below shows."""
        bar = self.p.controls_bar
        lay = self.p.layout()
        top, gap = (lay.contentsMargins().top(), lay.spacing()) if lay is not None else (0, 0)
        height = bar.heightForWidth(max(bar.width(), 1)) if bar.hasHeightForWidth() \
            else bar.sizeHint().height()
        return top + height + gap

    def two_columns_width(self) -> int:
        """The panel width at which the pairs and the timeline, side by side, show every
        column at its minimum width (below it: one column of tabs)."""
        p = self.p
        extra = 2 * (12 + 2 * p.pair_view.frameWidth()
                     + p.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)) + 24
        pairs = p.pair_view.header_minimums()
        pairs[1] = 72   # (the pair's own floor: the widest chips' width follows the view's)
        return sum(pairs) + sum(p.timeline_view.header_minimums()) + extra

    def arrange(self) -> None:
        """The boxes as the panel's width and height ask: two columns (the last merge
        above the timeline, or as two tabs when ``compact``), or, too narrow for every
        column of both tables side by side (at 800x600 the pair table lost "Merges into"
        and "Tie", the timeline "New token"), one column of three tabs."""
        p, one = self.p, self.one_column
        tabbed = [(p.pairs_box, "Next merge")] if one else []
        if self.compact or one:
            tabbed += [(p.last_box, "Last merge"), (p.timeline_box, "Timeline")]
        want = tuple(box for box, _t in tabbed)
        if want == self._tabbed:
            return
        tabs = p.right_tabs
        current = tabs.currentWidget()
        was_one = p.pairs_box in self._tabbed
        self._tabbed = want
        tabs.blockSignals(True)
        while tabs.count():
            tabs.removeTab(0)
        for box in (p.pairs_box, p.last_box, p.timeline_box):
            p.titles.set_hidden(box, box in want)   # the tab names it
        for box, title in tabbed:
            tabs.addTab(box, title)
        tabs.blockSignals(False)
        if not one:
            p.splitter.insertWidget(0, p.pairs_box)
            p.pairs_box.show()
        if not tabbed:
            for box in (p.last_box, p.timeline_box):
                p.right.addWidget(box)
                box.show()
            p.splitter.insertWidget(1, p.right)
            p.right.show()
            tabs.hide()
        else:
            p.splitter.insertWidget(0 if one else 1, tabs)
            tabs.show()
            p.right.hide()
            if current in want and was_one == one:
                tabs.setCurrentWidget(current)
            else:   # the next merge alone, or the timeline: where the steps are
                tabs.setCurrentWidget(p.pairs_box if one else p.timeline_box)
        self._halve = not one   # shared as the two tables' columns need, once laid out

    def resized(self) -> None:
        need = self.two_columns_width()
        # (a margin either way, so a width near the line does not flip back and forth)
        one = self.p.width() < need - (0 if self.one_column else 12)
        if one != self.one_column:
            self.one_column = one
            self.arrange()
        if self._halve:   # once the splitter has the new width
            QTimer.singleShot(0, self, self._halve_columns)

    def _halve_columns(self) -> None:
        p = self.p
        w = p.splitter.width()
        if self._halve and w > 200 and p.isVisible():
            self._halve = False
            # each side by the width its table's columns need at least
            a = sum(p.pair_view.header_minimums()[:1]) + 72 + \
                sum(p.pair_view.header_minimums()[2:])
            b = sum(p.timeline_view.header_minimums())
            left = w * a // max(1, a + b)
            p.splitter.setSizes([left, w - left])

    def numbers(self, t: TrainerView | None) -> None:
        """Room for the largest count and step this trainer can show."""
        p = self.p
        top, last = column_numbers(t)
        bold = p.pair_view.font()
        bold.setBold(True)   # the chosen pair's and the current step's rows are bold
        fm = QFontMetrics(bold)
        count_w = fm.horizontalAdvance(f"{top:,}") + 2 * TEXT_MARGIN + 2
        step_w = fm.horizontalAdvance(f"{last:,}") + 2 * TEXT_MARGIN + 2
        p.pair_view.set_column_minimum(3, count_w)
        p.affected_view.set_column_minimum(0, count_w)
        p.timeline_view.set_column_minimum(3, count_w)
        p.timeline_view.set_column_minimum(0, step_w)
        # ties: as many as the pairs of one count, a thousand and more on a big corpus
        p.timeline_view.set_column_minimum(4, fm.horizontalAdvance("8,888") + 2 * TEXT_MARGIN
                                           + 2)

    def pair_width(self) -> int:
        """Room for both chips of the pairs: the widest of the first rows, at least 72
        pixels, at most half the table and what the other columns leave (a longer chip
        is cut with …; the table does not scroll sideways for it)."""
        view, model = self.p.pair_view, self.p.pair_model
        cells = view.cells
        n = min(model.n_rows(), 12)
        if cells is None or n == 0:
            return 72
        fonts = cells.fonts_for(view.font())
        widest = max(cells.cell_width(model.cell(r, 1), fonts) for r in range(n))
        # every other column stays in sight: what they leave, at most (the widest chips
        # took half the table and "Merges into" gave way)
        mins = view.header_minimums()
        room = view.viewport().width() - sum(m for c, m in enumerate(mins) if c != 1) - 2
        return max(72, min(widest + 2, max(72, view.viewport().width() // 2), room))
