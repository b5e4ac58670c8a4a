"""A layout that places widgets left to right and wraps to a new row when the width
runs out (the idea of Qt's Flow Layout example), so a row of controls never pushes
anything out of a narrow panel."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QWidget, QWidgetItem


class FlowLayout(QLayout):
    def __init__(self, parent=None, spacing: int = 6):
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def insertWidget(self, index: int, widget: QWidget) -> None:
        """Put a widget at ``index`` (as QBoxLayout.insertWidget does)."""
        self.addChildWidget(widget)
        self._items.insert(max(0, min(index, len(self._items))), QWidgetItem(widget))
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, i: int):
        return self._items[i] if 0 <= i < len(self._items) else None

    def takeAt(self, i: int):
        return self._items.pop(i) if 0 <= i < len(self._items) else None

    def expandingDirections(self):
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:
        """One row of everything (what it wants)."""
        w = sum(i.sizeHint().width() for i in self._items) + self._gap * max(0, self.count() - 1)
        h = max((i.sizeHint().height() for i in self._items), default=0)
        m = self.contentsMargins()
        return QSize(w + m.left() + m.right(), h + m.top() + m.bottom())

    def minimumSize(self) -> QSize:
        """As narrow as the widest single item (the rest wraps)."""
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _place(self, rect: QRect, move: bool) -> int:
        """Lay the items out in rows inside rect; returns the height used. An item
        wider than the row gets the row (never more); the last item of a row that
        expands sideways gets the rest of its row."""
        m = self.contentsMargins()
        r = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, row_h = r.x(), r.y(), 0
        placed: list[tuple] = []   # (item, x, y, hint) of the row being laid out
        for item in self._items:
            hint = item.sizeHint()
            if x > r.x() and x + hint.width() > r.right() + 1:
                self._set_row(placed, r, move)
                x, y, row_h, placed = r.x(), y + row_h + self._gap, 0, []
            placed.append((item, x, y, hint))
            x += hint.width() + self._gap
            row_h = max(row_h, hint.height())
        self._set_row(placed, r, move)
        return y + row_h - rect.y() + m.bottom()

    @staticmethod
    def _set_row(placed: list, r: QRect, move: bool) -> None:
        if not move:
            return
        for k, (item, x, y, hint) in enumerate(placed):
            room = r.right() + 1 - x
            last = k == len(placed) - 1
            grows = last and bool(item.expandingDirections() & Qt.Orientation.Horizontal)
            width = room if grows else min(hint.width(), room)
            width = max(item.minimumSize().width(), width)
            item.setGeometry(QRect(QPoint(x, y), QSize(width, hint.height())))


class FlowBar(QWidget):
    """A wrapping row of controls whose height follows its width.

    A FlowLayout placed straight into a panel's layout makes the whole panel
    height-for-width, and a QScrollArea then sizes such a panel by its *preferred*
    heights (every table at its size hint), so the panel scrolled vertically where its
    minimum size fitted. This widget hides that: it reports no height-for-width and
    sets its own fixed height to what its rows need at its current width.
    """

    def __init__(self, parent: QWidget | None = None, spacing: int = 6):
        super().__init__(parent)
        self.flow = FlowLayout(self, spacing)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def addWidget(self, widget: QWidget) -> None:
        self.flow.addWidget(widget)
        self._fit()

    def insertWidget(self, index: int, widget: QWidget) -> None:
        self.flow.insertWidget(index, widget)
        self._fit()

    def indexOf(self, widget: QWidget) -> int:
        return self.flow.indexOf(widget)

    def hasHeightForWidth(self) -> bool:
        return False

    def sizeHint(self) -> QSize:
        return QSize(self.flow.sizeHint().width(), self._rows_height())

    def minimumSizeHint(self) -> QSize:
        return QSize(self.flow.minimumSize().width(), self._rows_height())

    def _rows_height(self) -> int:
        width = self.width() if self.width() > 0 else self.flow.sizeHint().width()
        return max(self.flow.heightForWidth(width), self.flow.minimumSize().height())

    def _fit(self) -> None:
        h = self._rows_height()
        if self.height() != h or self.minimumHeight() != h:
            self.setFixedHeight(h)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def event(self, event) -> bool:
        # a control shown, hidden or resized (a label's new text) may change the rows
        if event.type() == QEvent.Type.LayoutRequest:
            self._fit()
        return super().event(event)
