"""How the compare view shares its height: the sides, the results, a compact layout.

:class:`CompareFit` is a part of :class:`~.compare_view.CompareView` (composed, not
mixed in): it turns the splitter beside or under as the view is wide or narrow, gives
the results the height the table's rows need while the sides keep their share, and,
where that leaves the table under half its rows, hides the sides' coloured texts
(compact). It also keeps the two sides' controls one height, so their texts' lines
line up, and the summary over the table its wrapped lines whole.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QTextDocument

from ...widgets.flow_layout import FlowBar

WIDE_COMPARE = 900   # wider than this: the results go beside the sides
SHORT_COMPARE = 600   # shorter than this: the text box two lines (the sides show it too)
SIDES_SHARE = 0.4     # the sides keep this share of the height the results share
SIDES_SHARE_FOCUS = 0.3   # in Focus: the results are what the comparison is for


class CompareFit(QObject):
    """The compare view's heights (see the module's note)."""

    def __init__(self, view, table):
        super().__init__(view)
        self.view = view
        # the view's table of counts, passed in: no widget reads another's .table
        self.table = table
        self.split_dragged = False   # the user's sizes from then on
        self.compact = False   # the sides' texts hidden for the table (set_compact)
        self._full_need = 0   # the view's height the full layout needs (_want_compact)
        view.split.splitterMoved.connect(self._dragged)
        view.focus_button.toggled.connect(
            lambda _on: QTimer.singleShot(0, self, self.fit_heights))
        for pane in (view.pane_a, view.pane_b):
            pane.kind.currentIndexChanged.connect(self.align_tops)
        # a side's row of buttons wraps onto another row in a narrow side (in Focus at
        # 1024x700, B's "Open file…" went under the fixed top, cut): align again then
        for bar in (*view.pane_a.top.findChildren(FlowBar),
                    *view.pane_b.top.findChildren(FlowBar)):
            bar.installEventFilter(self)
        # the summary's wrapped lines whole (its minimum was one line: the table under it
        # was cut at 800x600)
        view.summary.installEventFilter(self)
        self.align_tops()

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Resize and isinstance(obj, FlowBar) and \
                event.size().height() != event.oldSize().height():
            QTimer.singleShot(0, self, self.align_tops)
        elif obj is self.view.summary and event.type() == QEvent.Type.Resize:
            self.fit_summary()
        return False

    def fit_summary(self) -> None:
        summary = self.view.summary
        need = self._summary_height(summary.width())
        if need > 0 and summary.minimumHeight() != need:
            summary.setMinimumHeight(need)

    def _summary_height(self, width: int) -> int:
        """The summary's height at ``width`` for the text it holds now (QLabel's own
        heightForWidth kept the answer for a text it held before: two lines for one)."""
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        doc.setDefaultFont(self.view.summary.font())
        doc.setHtml(self.view.summary.text())
        doc.setTextWidth(width)
        return math.ceil(doc.size().height())

    def align_tops(self, *_) -> None:
        """Give both sides' controls one height, so the two texts' lines line up."""
        tops = [self.view.pane_a.top, self.view.pane_b.top]
        layouts = [lay for t in tops if (lay := t.layout()) is not None]
        for t in tops:
            t.setMinimumHeight(0)
            t.setMaximumHeight(16777215)
        for lay in layouts:
            lay.invalidate()   # its shown page may have changed
        h = max(lay.sizeHint().height() for lay in layouts)
        for t in tops:   # fixed: the coloured texts below get the height to spare
            t.setFixedHeight(h)

    def resized(self, event) -> None:
        """Wide and short (a bottom dock of a big window): the results beside the two
        sides, not under them, where they were below the fold even at 1920x1080."""
        v = self.view
        want = Qt.Orientation.Horizontal if v.width() >= WIDE_COMPARE \
            else Qt.Orientation.Vertical
        if v.split.orientation() != want:
            v.split.setOrientation(want)
            if want == Qt.Orientation.Horizontal:   # the results (four columns of them) get more
                v.split.setSizes([v.width() * 2 // 5, v.width() * 3 // 5])
        if self.compact and event.oldSize().width() != v.width():
            # what the full layout needs was measured at another width (its summary
            # wrapped otherwise): measure it again, with the full layout shown
            self.set_compact(False)
        self.fit_heights()

    def fit_heights(self) -> None:
        """A short view: the text box two lines. The results under the sides as tall as
        the table's rows need, the sides keeping SIDES_SHARE of the height (less in
        Focus) and their minimum; until the user drags the handle. Where that leaves the
        table under half its rows, the layout turns compact (set_compact)."""
        v = self.view
        line = v.edit.fontMetrics().lineSpacing()
        lines = 2 if v.height() < SHORT_COMPARE else 6
        v.edit.setMaximumHeight(lines * line + 14)
        split = v.split
        total = sum(split.sizes())
        sides = split.widget(0)
        if split.orientation() != Qt.Orientation.Vertical or self.split_dragged \
                or total <= 0 or sides is None:
            self.set_compact(False)
            return
        share = SIDES_SHARE_FOCUS if v.focus_button.isChecked() else SIDES_SHARE
        self.set_compact(self._want_compact(total, share))
        floor = sides.minimumSizeHint().height()
        if not self.compact:
            floor = max(floor, int(total * share))
        lower = max(min(self._results_height(), total - floor),
                    v.lower_tabs.minimumSizeHint().height())
        if split.sizes()[1] != lower:
            split.setSizes([total - lower, lower])

    def _dragged(self, *_) -> None:
        """The user's sizes from now on, and the sides' texts in whatever they give."""
        self.split_dragged = True
        self.set_compact(False)

    def _want_compact(self, total: int, share: float) -> bool:
        """Outside Focus, would the sides with their texts leave the table less than half
        its rows? (At 800x600 they left it one row of eight, cut sideways.) What the full
        layout needs is measured while it is shown and kept, so that the answer does not
        flip once the compact one needs less."""
        v = self.view
        if v.focus_button.isChecked():
            return False
        if not self.compact:
            sides = v.split.widget(0)
            assert sides is not None   # (the splitter's first widget is the sides, always)
            floor = max(sides.minimumSizeHint().height(), int(total * share))
            rows = sum(self.table.rowHeight(r) for r in range(v.model.rowCount()))
            # (the view's height, not the splitter's: compact, the controls above it
            # take less)
            self._full_need = v.height() - total + floor + self._results_height() \
                - rows // 2
        return v.height() < self._full_need

    def set_compact(self, on: bool) -> None:
        """Compact: the sides' coloured texts give way to the table (their headers still
        say each side's tokens and bytes per token) and so does Show whitespace; the
        table's names, header, rows and the summary take less room."""
        if on == self.compact:
            return
        self.compact = on
        v = self.view
        v.show_ws.setVisible(not on)
        for pane in (v.pane_a, v.pane_b):
            pane.view.setVisible(not on)
            if (lay := pane.layout()) is not None:
                lay.activate()
        pad = 4 if on else 6
        self.table.verticalHeader().setDefaultSectionSize(v.fontMetrics().height() + pad)
        v.model.set_compact(on)
        v.summarize()

    def _results_height(self) -> int:
        """The height of the results tab with every row of the table in sight."""
        v = self.view
        t = self.table
        bar = t.horizontalScrollBar()
        table = t.horizontalHeader().sizeHint().height() + 2 * t.frameWidth() + sum(
            t.rowHeight(r) for r in range(v.model.rowCount())) + \
            (bar.sizeHint().height() if bar.isVisible() else 0)
        summary = self._summary_height(max(v.summary.width(), 1))
        parent = t.parentWidget()
        lay = parent.layout() if parent is not None else None
        gap = lay.spacing() if lay is not None else 0
        return v.lower_tabs.tabBar().sizeHint().height() + summary + gap + table + 2
