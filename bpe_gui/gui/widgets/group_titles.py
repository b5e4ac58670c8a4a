"""Group box titles that fit: the long title while the box is wide enough, else a short
one.

A QGroupBox is never narrower than its title, so "Last merge and the words it changed"
and "Timeline (click a step to jump there)" kept the merge panel wider than the room
left at 800x600, and it scrolled sideways (issue 21). :func:`fit_titles` gives each box
a minimum width from its contents and its *short* title, and picks the title on every
resize (the splitter between boxes moves without resizing the panel, so each box is
watched, not the panel).
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QGroupBox

TITLE_MARGIN = 30   # the frame's indent and padding around the title


class TitleFitter(QObject):
    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._titles: dict[QGroupBox, tuple[str, str]] = {}
        self._hidden: set[QGroupBox] = set()

    def add(self, box: QGroupBox, long: str, short: str) -> None:
        self._titles[box] = (long, short)
        box.setTitle(short)
        layout = box.layout()
        contents = layout.minimumSize().width() if layout is not None else 0
        box.setMinimumWidth(max(contents, box.fontMetrics().horizontalAdvance(short)
                                + TITLE_MARGIN))
        box.installEventFilter(self)
        self.fit(box)

    def set_hidden(self, box: QGroupBox, hidden: bool) -> None:
        """No title at all while ``hidden`` (e.g. under a tab that names the box)."""
        if hidden:
            self._hidden.add(box)
        else:
            self._hidden.discard(box)
        self.fit(box)

    def set_long(self, box: QGroupBox, long: str) -> None:
        """A new long title (e.g. with a count in it); the short one stays."""
        self._titles[box] = (long, self._titles[box][1])
        self.fit(box)

    def fit(self, box: QGroupBox) -> str:
        long, short = self._titles[box]
        bold = box.font()
        bold.setBold(True)   # some styles draw titles bold: measure the wider one
        box_fm = box.fontMetrics()
        need = max(box_fm.horizontalAdvance(long), type(box_fm)(bold).horizontalAdvance(long))
        title = "" if box in self._hidden else \
            long if box.width() >= need + TITLE_MARGIN else short
        if box.title() != title:
            box.setTitle(title)
        return title

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and obj in self._titles:
            self.fit(obj)
        return False


def fit_titles(parent: QObject, boxes) -> TitleFitter:
    """``boxes``: (box, long title, short title); the boxes' layouts must be set."""
    fitter = TitleFitter(parent)
    for box, long, short in boxes:
        fitter.add(box, long, short)
    return fitter
