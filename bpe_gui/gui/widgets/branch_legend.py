"""The colours of the pattern's branches, and the legend that names and explains them.

Each top-level alternative of the pre-tokenizer pattern (a "rule") gets a hue; two
neighbouring words taken by the same rule get two shades of it, so the cut between
them stays visible. The legend shows one chip per rule (hover it for its plain-words
explanation) and, unfolded, a table: rule, name, what it takes, its regex.
"""
from __future__ import annotations

from html import escape
from typing import Sequence

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QCursor, QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QToolTip, QVBoxLayout, QWidget

from ...engine.text import Branch
from ...engine.text import PRESET_LABELS
from ..models.roles import is_dark
from .scrolled import scrolled

_LIGHT = ("#cfe3ff", "#ffd9a8", "#c9efc4", "#e6d4ff", "#ffcad8", "#bdeeee", "#fff0a0",
          "#e4d8ca")
_DARK = ("#26466f", "#6b4a1a", "#2b5b30", "#4c3771", "#6f2b40", "#1f5b5b", "#5f5519",
         "#4e4339")


class BranchColors:
    """Background colours per rule, two shades each, for a light or dark palette.

    Example: ``BranchColors(palette).of(1, 0)`` is rule 2's colour; ``of(1, 1)`` its
    second shade (a word right after another rule-2 word).
    """

    def __init__(self, palette: QPalette | None = None):
        dark = is_dark(palette)
        self.base = [QColor(c) for c in (_DARK if dark else _LIGHT)]
        self.shade = [c.lighter(140) if dark else c.darker(118) for c in self.base]
        self.text = (palette or QPalette()).color(QPalette.ColorRole.Text)

    def of(self, branch: int, shade: int = 0) -> QColor:
        k = branch % len(self.base)
        return self.shade[k] if shade else self.base[k]


def pattern_title(preset: str | None, n: int) -> str:
    """Example: ('gpt2', 6) -> 'GPT-2 pattern: 6 rules, tried in order at each position'."""
    name = PRESET_LABELS.get(preset or "", "").split(" (one")[0]
    rules = f"{n} rule{'s' if n != 1 else ''}, tried in order at each position"
    return f"{name} pattern: {rules}" if name else f"Custom pattern: {rules}"


class BranchLegend(QWidget):
    """Chips naming the pattern's rules in their colours; "Explain" unfolds a table."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.branches: list[Branch] = []
        self.colors = BranchColors(self.palette())
        self.preset: str | None = None
        self._title: str | None = None   # set_branches' title, if any
        self.title = QLabel()
        self.title.setWordWrap(True)
        # (ignore[call-arg]: PySide6 takes Qt properties as keywords; its stubs omit them)
        self.explain = QToolButton(text="Explain rules", checkable=True)  # type: ignore[call-arg]
        self.explain.setToolTip("Show what each rule of the pattern takes, in plain words")
        self.chips = QLabel()
        self.chips.setWordWrap(True)
        self.chips.setTextFormat(Qt.TextFormat.RichText)
        self.chips.linkHovered.connect(self._on_link_hovered)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # scrolls on its own, so the text below stays in view in a small dock
        self.details_area = scrolled(self.details)
        self.details_area.setMaximumHeight(11 * self.fontMetrics().lineSpacing())
        self.details_area.setVisible(False)
        self.explain.toggled.connect(self.details_area.setVisible)
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.title, 1)
        head.addWidget(self.explain)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(head)
        lay.addWidget(self.chips)
        lay.addWidget(self.details_area)

    def hasHeightForWidth(self) -> bool:
        """No: a height for each width, from its wrapped lines, went up to the encode
        view's layout, and the dock's scroll area then gave the view its preferred
        height, not the dock's (the text took it, the ids strip went below the fold)."""
        return False

    def minimumSizeHint(self) -> QSize:
        """As tall as its wrapped lines at its width: shorter, the layout squeezed the
        title's two lines into one and a half ("Whitespace split pattern: … at each
        position" cut at 800x600). Only the minimum follows the width (see above)."""
        hint = super().minimumSizeHint()
        lay = self.layout()
        if self.width() <= 0 or lay is None or not lay.hasHeightForWidth():
            return hint
        return QSize(hint.width(), max(hint.height(), lay.heightForWidth(self.width())))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()   # the minimum height follows the width

    def set_branches(self, branches: Sequence[Branch], preset: str | None,
                     title: str | None = None) -> None:
        """``title``: what finds the words when no pattern alone does (an imported
        pre-tokenizer's pieces), instead of the pattern's title."""
        self.branches, self.preset, self._title = list(branches), preset, title
        self._render()

    def chip_texts(self) -> list[str]:
        """What each chip says (for tests). Example: ['1 contraction', '2 letters', ...]."""
        return [f"{b.index + 1} {b.name}" for b in self.branches]

    def _render(self) -> None:
        c = self.colors
        fg = c.text.name()
        self.title.setText(self._title or pattern_title(self.preset, len(self.branches)))
        chips = []
        for b in self.branches:
            chips.append(f"<a href='{b.index}' style='text-decoration:none; color:{fg}'>"
                         f"<span style='background:{c.of(b.index).name()}'>"
                         f"&nbsp;{b.index + 1}&nbsp;{escape(b.name).replace(' ', '&nbsp;')}&nbsp;"
                         "</span></a>")
        self.chips.setText(" ".join(chips))
        rows = []
        for b in self.branches:
            rows.append(f"<tr><td style='background:{c.of(b.index).name()}; color:{fg}'>"
                        f"&nbsp;{b.index + 1}&nbsp;</td><td><b>{escape(b.name)}</b>: "
                        f"{escape(b.about)}<br><code>{escape(b.source)}</code></td></tr>")
        self.details.setText("<table cellspacing=3>" + "".join(rows) + "</table>"
                             "<p>At each position the rules are tried from the first; the "
                             "first that matches takes the word.</p>")

    def tooltip_of(self, index: int) -> str:
        b = self.branches[index]
        return f"<b>{b.label}</b><br>{escape(b.about)}<br><code>{escape(b.source)}</code>"

    def _on_link_hovered(self, link: str) -> None:
        if link.isdigit() and int(link) < len(self.branches):
            QToolTip.showText(QCursor.pos(), self.tooltip_of(int(link)), self.chips)
        else:
            QToolTip.hideText()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange:
            self.colors = BranchColors(self.palette())
            self._render()
