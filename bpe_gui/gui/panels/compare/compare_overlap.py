"""The compare view's Vocabulary overlap tab: how much side A's and side B's vocabularies
share, compared by the tokens' bytes (engine/analysis/overlap.py, special tokens left out).

Numbers: shared, only in A, only in B, the Jaccard index |A ∩ B| / |A ∪ B|, and how
many of each side's tokens the other side produces as one token (it has those bytes and
that token is ok for it: its text encodes to exactly it). Lists: the shared tokens and
those only one side has, in the order of their bytes.

The comparison comes from the controller (``side.compare_vocabularies``): at once for small
vocabularies, by a job of its (progress and Cancel in the status bar) for big ones,
and only while this tab is shown.
"""
from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt, QTimer, SignalInstance
from PySide6.QtWidgets import (QLabel, QListView, QScrollArea, QSplitter, QVBoxLayout,
                               QWidget)

from ....engine.tokenizers import BaseTokenizer as Tokenizer
from ...controller.jobs import Done, Ended, JobEnd, Outcome
from ...models.token_list import TokenListModel
from ...widgets.scrolled import scrolled

RETRY_MS = 300



class OverlapHost(Protocol):
    """What the vocabulary overlap reads of the controller."""

    busyChanged: SignalInstance

    @property
    def busy(self) -> bool: ...
    @property
    def side(self) -> Overlaps: ...


class Overlaps(Protocol):
    def compare_vocabularies(self, a: Tokenizer, b: Tokenizer, on_done: Done,
                             on_end: Ended) -> bool: ...


class OverlapPanel(QWidget):
    """Vocabulary overlap of the compare view's two sides (see the module docstring)."""

    def __init__(self, controller: OverlapHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.overlap = None              # engine.overlap.Overlap, when known
        self.names = ("A", "B")
        self._key = None                 # what ``overlap`` was computed for
        self._asked: tuple | None = None  # what is being computed
        self._want: tuple | None = None  # (a, b, key, names): what the view shows now
        self.numbers = QLabel()
        self.numbers.setTextFormat(Qt.TextFormat.RichText)
        self.numbers.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.numbers.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.numbers.setWordWrap(True)
        self.models = {k: TokenListModel(self) for k in ("shared", "only_a", "only_b")}
        self.titles: dict[str, QLabel] = {}
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self._numbers_area())
        for key in ("shared", "only_a", "only_b"):
            col = QWidget()
            lay = QVBoxLayout(col)
            lay.setContentsMargins(0, 0, 0, 0)
            title = self.titles[key] = QLabel()
            view = QListView()
            view.setModel(self.models[key])
            view.setUniformItemSizes(True)   # 100k rows: no size asked row by row
            view.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
            lay.addWidget(title)
            lay.addWidget(view, 1)
            split.addWidget(col)
        split.setChildrenCollapsible(False)
        split.setStretchFactor(0, 0)    # the lists take the width the numbers do not need
        for k in (1, 2, 3):
            split.setStretchFactor(k, 1)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(split)
        self._retry = QTimer(self, singleShot=True, interval=RETRY_MS)
        self._retry.timeout.connect(self._ask)
        controller.busyChanged.connect(lambda busy: None if busy else self._retry.start())
        self._show()

    def _numbers_area(self) -> QScrollArea:
        """The numbers in a scroll area as wide as their longest row: a bottom dock is
        short, so they scroll instead of being cut off, and a splitter share of the
        width would break each row name into a column of single words."""
        area = scrolled(self.numbers)
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        fm = self.numbers.fontMetrics()
        row = fm.horizontalAdvance("Jaccard index |A ∩ B| / |A ∪ B|") \
            + fm.horizontalAdvance(" 00,000 of 00,000 (00.0 %)")
        # the splitter gives the numbers their whole row width when there is room; the
        # minimum is lower (rows wrap), or the tab kept a 1024-wide window's dock
        # scrolling sideways (issue 21)
        area.setMinimumWidth(fm.horizontalAdvance("Jaccard index") + 40)
        self._numbers_width = row + area.verticalScrollBar().sizeHint().width() + 12
        return area

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        split = self.findChild(QSplitter)
        if split is None or getattr(self, "_user_sized", False):
            return   # the user's splitter position stays
        if not getattr(self, "_watching", False):
            self._watching = True
            split.splitterMoved.connect(lambda *_: setattr(self, "_user_sized", True))
        numbers = min(self._numbers_width, split.width() // 2)
        rest = max(0, split.width() - numbers)
        split.setSizes([numbers] + [rest // 3] * 3)

    def want(self, a, b, key, names: tuple[str, str]) -> None:
        """Compare these two tokenizers (``key`` says when they are the same as last
        time); None on a side: nothing to compare."""
        if a is None or b is None:
            self._want, self._key = None, None
            self.overlap = None
            self._show("Pick a tokenizer on both sides to compare their vocabularies.")
            return
        self._want = (a, b, key, names)
        if key != self._key:
            self._ask()

    def _ask(self) -> None:
        if self._want is None or self._asked is not None:
            return
        a, b, key, names = self._want
        if key == self._key:
            return
        if self.controller.busy:
            self._show("Waiting for the running job to compare the vocabularies…")
            return   # asked again when it ends
        self._asked = (key, names)
        self._show(f"Comparing {len(a.vocab):,} and {len(b.vocab):,} tokens…")
        if not self.controller.side.compare_vocabularies(a, b, self._done, self._ended):
            self._asked = None

    def _done(self, result) -> None:
        if self._asked is None:
            return
        self._key, self.names = self._asked
        self.overlap = result
        self._show()

    def _ended(self, end: JobEnd) -> None:
        self._asked = None
        if end.outcome is Outcome.CANCELLED:
            self._show("Comparing the vocabularies was cancelled: change a side, or switch "
                       "tabs, to compare them again.")
            self._key = self._want[2] if self._want is not None else None
        elif end.outcome is Outcome.FAILED:
            self._show(f"Could not compare the vocabularies: {end.message}")
            self._key = self._want[2] if self._want is not None else None

    # ----- showing ----------------------------------------------------------------------------
    def _show(self, note: str = "") -> None:
        ov = self.overlap
        if ov is None or note:
            self.numbers.setText(note or "The vocabularies are compared when this tab shows.")
            if ov is None:
                for key, m in self.models.items():
                    m.set_tokens(())
                    self.titles[key].setText(_TITLES[key].format(n="–", a="A", b="B"))
            return
        a, b = self.names
        rows = [("Shared tokens", f"{len(ov.shared):,}"),
                (f"Only in {a}", f"{len(ov.only_a):,}"),
                (f"Only in {b}", f"{len(ov.only_b):,}"),
                ("Jaccard index |A ∩ B| / |A ∪ B|", f"{ov.jaccard:.3f}"),
                (f"{a}'s tokens {b} produces as one token",
                 f"{ov.a_single_in_b:,} of {ov.n_a:,} ({_share(ov.a_single_in_b, ov.n_a)})"),
                (f"{b}'s tokens {a} produces as one token",
                 f"{ov.b_single_in_a:,} of {ov.n_b:,} ({_share(ov.b_single_in_a, ov.n_b)})")]
        self.numbers.setText(
            "<table cellspacing=3>" + "".join(
                # a value never breaks ("128 of 256 (50.0" over "%)"); the names wrap
                f"<tr><td>{_esc(k)}</td><td align=right><b>{v.replace(' ', '&nbsp;')}</b>"
                "</td></tr>" for k, v in rows)
            + "</table><p>Tokens are compared by their bytes (ids may differ), special "
            "tokens left out. “Produces as one token”: the other side has those bytes "
            "and its text encodes to exactly that token there.</p>")
        for key, tokens in (("shared", ov.shared), ("only_a", ov.only_a),
                            ("only_b", ov.only_b)):
            self.models[key].set_tokens(tokens)
            self.titles[key].setText(_TITLES[key].format(n=f"{len(tokens):,}", a=a, b=b))


_TITLES = {"shared": "<b>Shared</b> ({n}), by bytes",
           "only_a": "<b>Only in {a}</b> ({n})",
           "only_b": "<b>Only in {b}</b> ({n})"}


def _share(n: int, of: int) -> str:
    return f"{100 * n / of:.1f} %" if of else "–"


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
