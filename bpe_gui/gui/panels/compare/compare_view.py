"""Compare two tokenizers side by side on the same text.

Each side is one of: the current training step, another step of the same run, another
training configuration (a copy of the settings, trained on the corpus by a job of the
controller's), or an imported tokenizer. Both sides colour the text token by token with the
encode view's highlighter (alternating blocks from ``Encoding.offsets``), mark the cuts
only that side makes, and a table compares tokens, bytes per token, tokens per word and
the share of partial-character tokens, in all and per script (``engine.stats``). A
second tab compares the two vocabularies (shared and own tokens, Jaccard index, what
each side produces of the other's tokens: compare_overlap.py).

The parts: :class:`ComparePane` (compare_pane.py) is one side, :class:`TokenTextView`
(token_text.py) its coloured text, :class:`CompareTableModel` (models/compare_table.py)
the table's model and :class:`FittedCompareTable` (fitted_table.py) its view, and :class:`CompareFit` (compare_fit.py) shares out the
height; this module lays them out and runs the comparison.
"""
from __future__ import annotations

from typing import Protocol


from PySide6.QtCore import QTimer, Qt, Signal, SignalInstance
from PySide6.QtWidgets import (QCheckBox, QLabel,
                               QPushButton, QSplitter, QTableView, QTabWidget, QToolButton,
                               QVBoxLayout, QWidget)

from ....engine import analysis
from ....engine.errors import BPEError
from ....engine.tokenizers import BaseTokenizer as Tokenizer, Encoding
from ...controller.jobs import Done, Ended
from ...controller.table_corpus import NO_TEXT
from ...models.compare_table import METRICS, CompareTableModel, fmt_cell
from ..encode.pages import PageBar, PagedEdit, PagedText
from .compare_fit import CompareFit
from .compare_overlap import OverlapPanel
from .compare_pane import DEBOUNCE_MS, ComparePane, PaneHost, TrainsAndReads
from .fitted_table import FittedCompareTable
from ...widgets.exact_text import LOST_SEPARATORS
from ...widgets.flow_layout import FlowBar
from ...widgets.token_text import TokenTextView, cut_color
from ...widgets.whole_lines import WholeLines
from ...widgets.glyph_watch import watch_glyphs

# names this module held before it was split, still importable from here
__all__ = ["SAMPLE_TEXT", "CompareView", "ComparePane", "TokenTextView", "CompareTableModel",
           "METRICS", "cut_color", "fmt_cell"]

SAMPLE_TEXT = (
    "The quick brown fox jumps over the lazy dog; tokenizers cut text into pieces.\n"
    "我们今天学习字节对编码：它把最常见的相邻符号对合并成新的词元。\n"
    "Byte-level BPE splits 汉字 into bytes until merges join them again. "
    "Привет, мир! ひらがなとカタカナ。"
)


# compact, the sides' coloured texts give way to the table: the line over it says so in
# two words (a longer line would wrap and take a row of the table), its tooltip in full
HIDDEN_TEXTS = "texts: Focus"
HIDDEN_TEXTS_TIP = ("The sides' coloured texts are hidden to give the table room: Focus, or "
                    "a taller window, shows them.")


# ----- the view -----------------------------------------------------------------------------
class CompareHost(PaneHost, Protocol):
    """What Compare reads of the controller: its sides' (its overlap's among them) and
    a message."""

    message: SignalInstance

    @property
    def side(self) -> _CompareJobs: ...


class _CompareJobs(TrainsAndReads, Protocol):
    """The side jobs of both sides, and the overlap's (compare_overlap.Overlaps)."""

    def compare_vocabularies(self, a: Tokenizer, b: Tokenizer, on_done: Done,
                             on_end: Ended) -> bool: ...


class CompareView(QWidget):
    """Two tokenizers on one text: coloured side by side, differing cuts marked, a table."""

    compared = Signal()      # after each re-encode of both sides (tests wait on it)
    focusRequested = Signal()   # the Focus button: the window gives the view all its room

    def __init__(self, controller: CompareHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        # a long text is compared a page at a time, as the encode view shows it (a
        # text box holding megabytes lays it all out on the GUI thread; pages.py)
        self.edit = PagedEdit()
        watch_glyphs(self.edit)   # a character no font draws is a box here
        self.page_bar = PageBar()
        self.paging = PagedText(self.edit, self.page_bar, self.compare_now)
        self.edit.separators_lost = lambda: controller.message.emit(LOST_SEPARATORS)
        self.pages = self.paging.pages
        self.edit.setPlaceholderText("Text to compare: type or paste it here.")
        line = self.edit.fontMetrics().lineSpacing()
        self.edit.setMinimumHeight(2 * line + 14)   # 2 lines, up to 6 (see the layout)
        self.edit.setMaximumHeight(6 * line + 14)
        self.whole_lines = WholeLines(self.edit)   # no line cut at its bottom edge
        sample = QPushButton("Sample text")
        sample.setToolTip("English, Chinese, Russian and Japanese in a few lines")
        sample.clicked.connect(lambda: self.set_text(SAMPLE_TEXT))
        from_corpus = QPushButton("From corpus")
        from_corpus.setToolTip("The first 2,000 characters of the corpus")
        from_corpus.clicked.connect(self.from_corpus)
        self.fold = QCheckBox("Ignore where spaces go")
        self.fold.setChecked(True)
        self.fold.setToolTip("A cut before a run of whitespace counts as a cut after it, so "
                             "' cat' (space kept with the word) and 'cat</w>' (space dropped) "
                             "do not count as different cuts.")
        self.show_ws = QCheckBox("Show whitespace")
        self.show_ws.setChecked(True)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # (in the tooltip: on a short screen the table's rows need the line's height)
        self.summary.setToolTip("Hover a token of either side for its id and bytes.")

        self.pane_a = ComparePane(controller, "A", "current")
        self.pane_b = ComparePane(controller, "B", "step")
        self.pane_b.step_spin.setValue(max(0, controller.step_index // 2))
        sides = QSplitter(Qt.Orientation.Horizontal)
        sides.addWidget(self.pane_a)
        sides.addWidget(self.pane_b)
        sides.setChildrenCollapsible(False)

        self.model = CompareTableModel(self)
        self.table = FittedCompareTable()
        self.table.setModel(self.model)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionMode(QTableView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # its header and two rows (side A's and B's) however short the dock: at 800x600
        # the splitter left it the header alone
        self.table.setMinimumHeight(self.table.horizontalHeader().sizeHint().height()
                                    + 2 * self.table.verticalHeader().defaultSectionSize()
                                    + 2 * self.table.frameWidth() + 2)
        per_script = QWidget()
        lv = QVBoxLayout(per_script)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.summary)
        lv.addWidget(self.table, 1)
        self.overlap = OverlapPanel(controller)
        self.lower_tabs = QTabWidget()
        self.lower_tabs.setDocumentMode(True)
        self.lower_tabs.addTab(per_script, "Cuts and counts per script")
        self.lower_tabs.addTab(self.overlap, "Vocabulary overlap")
        self.lower_tabs.currentChanged.connect(lambda _i: self._want_overlap())
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(sides)
        split.addWidget(self.lower_tabs)
        split.setStretchFactor(0, 2)   # the sides get two thirds over the results
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)

        # focus mode (View > Focus, Ctrl+Shift+F): the whole window for the comparison
        self.focus_button = QToolButton()
        self.focus_button.setText("Focus")
        self.focus_button.setCheckable(True)
        self.focus_button.setToolTip("Give the comparison the whole window (Ctrl+Shift+F); "
                                     "again to put it back")
        self.focus_button.clicked.connect(lambda _c: self.focusRequested.emit())
        top = FlowBar(spacing=6)   # wraps in a narrow dock instead of widening it
        for w in (QLabel("Text:"), sample, from_corpus, self.fold, self.show_ws,
                  self.focus_button):
            top.addWidget(w)
        # the text typed shares the height with the two sides (a fifth of it, two to six
        # lines): under a fixed 110-pixel box the sides' coloured texts showed about two
        # lines at 1920x1080 (issue 30)
        lay = QVBoxLayout(self)
        lay.addWidget(top)
        lay.addWidget(self.page_bar)
        lay.addWidget(self.edit, 1)
        lay.addWidget(split, 4)
        self.split = split

        self.encodings: list[Encoding | None] = [None, None]
        self.tokenizers: list = [None, None]   # each side's tokenizer at the last compare
        self.stats: list[dict | None] = [None, None]
        self.diff: tuple[set, set] = (set(), set())
        self._timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._timer.timeout.connect(self.compare_now)
        self.edit.textChanged.connect(self._timer.start)
        self.fold.toggled.connect(self._timer.start)
        self.show_ws.toggled.connect(self._show_ws)
        for pane in (self.pane_a, self.pane_b):
            pane.changed.connect(self._timer.start)
        self.fit = CompareFit(self, self.table)   # the heights: sides, results, compact (compare_fit.py)
        self._sync_scroll()
        self.edit.setPlainText(SAMPLE_TEXT)
        self.compare_now()

    def catch_up(self) -> None:
        """The dock's tab came to the front: let each side catch up (see visibility.py)."""
        for pane in (self.pane_a, self.pane_b):
            pane.catch_up()

    def _sync_scroll(self) -> None:
        a = self.pane_a.view.verticalScrollBar()
        b = self.pane_b.view.verticalScrollBar()
        a.valueChanged.connect(lambda v: b.setValue(v) if b.value() != v else None)
        b.valueChanged.connect(lambda v: a.setValue(v) if a.value() != v else None)

    @property
    def compact(self) -> bool:
        """The sides' coloured texts hidden for the table's rows (compare_fit.py)."""
        return self.fit.compact

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit.resized(event)

    def _show_ws(self, on: bool) -> None:
        for pane in (self.pane_a, self.pane_b):
            pane.view.set_show_whitespace(on)

    # ----- public API -----------------------------------------------------------------------------
    def text(self) -> str:
        """The whole text (a long one: every page, as edited)."""
        return self.paging.text()

    def shown_text(self) -> str:
        """What is compared: the text, or of a long one the page on show."""
        return self.edit.toPlainText()

    def from_corpus(self) -> None:
        """The button From corpus: the first 2,000 characters of the corpus as the text."""
        if self.controller.corpus_table is not None:   # no text to take from
            self.summary.setText(NO_TEXT + " Type or paste a text to compare instead.")
            return
        self.set_text(self.controller.corpus_text[:2000])

    def set_text(self, text: str) -> None:
        """Compare ``text``: a long one a page at a time (pages.py)."""
        self.paging.set_text(text)

    def show_page(self, index: int) -> None:
        """Page ``index`` of a long text (its edits on the page shown are kept)."""
        self.paging.show_page(index)

    def compare_now(self) -> None:
        """Encode the text on both sides, mark differing cuts, fill the table."""
        self._timer.stop()
        text = self.shown_text()
        self.paging.page_edited(text)   # the bar says what the page holds now
        panes = (self.pane_a, self.pane_b)
        for i, pane in enumerate(panes):
            tok = self.tokenizers[i] = pane.tokenizer()
            enc, st = None, None
            if tok is not None:
                try:
                    enc = tok.encode_with_offsets(text, allowed_special="all", add_special_tokens=False)
                    st = analysis.encoding_stats(text, enc, tok.mode)
                except BPEError as e:   # e.g. a character a char-level vocabulary lacks
                    pane.error = str(e)
                    enc = None
            self.encodings[i], self.stats[i] = enc, st
        ea, eb = self.encodings
        if ea is not None and eb is not None:
            self.diff = analysis.boundary_diff(ea, eb, text, self.fold.isChecked())
        else:
            self.diff = (set(), set())
        for i, pane in enumerate(panes):
            pane.view.set_encoding(text, self.encodings[i], self.diff[i])
            enc = self.encodings[i]
            if enc is None:
                caption = f"{pane.name}: {pane.description()}. {pane.error}"
                pane.caption.setText(caption)
                pane.caption.setToolTip(caption)
            else:
                nb = len(text.encode("utf-8", "surrogatepass"))
                ratio = f"{nb / len(enc):.2f}" if len(enc) else "–"
                # the numbers whole in a narrow side: the description (the side's own
                # line above says it) gives way ("A: step 0 (current): 200 tokens, 1.47
                # bytes/tok…" at 1024x700)
                pane.caption.set_variants([
                    f"{pane.name}: {pane.description()}: {len(enc):,} tokens, "
                    f"{ratio} bytes/token",
                    f"{pane.name}: {len(enc):,} tokens, {ratio} bytes/token",
                    f"{pane.name}: {len(enc):,} tokens, {ratio} B/token"])
        names = [f"{p.name}: {p.description()}" for p in panes]
        self.model.set_stats(self.stats[0], self.stats[1], names)
        self.summarize()
        QTimer.singleShot(0, self, self.fit.fit_heights)   # (the table's rows may be new)
        self._want_overlap()
        self.compared.emit()

    def show_overlap(self) -> None:
        """Bring the Vocabulary overlap tab to the front (it compares the sides)."""
        self.lower_tabs.setCurrentWidget(self.overlap)

    def _want_overlap(self) -> None:
        """The overlap tab compares the sides' vocabularies only while it is shown."""
        if self.lower_tabs.currentWidget() is not self.overlap:
            return
        a, b = self.tokenizers
        key = tuple(self._side_key(p, t) for p, t in zip((self.pane_a, self.pane_b), (a, b)))
        self.overlap.want(a, b, key, (self.pane_a.name, self.pane_b.name))

    def _side_key(self, pane, tok) -> tuple | None:
        """What identifies a side's vocabulary: the step of this run, or the tokenizer
        object itself (imported, another configuration)."""
        if tok is None:
            return None
        if pane.kind_key() in ("current", "step"):
            return (pane.kind_key(), pane.description(), id(self.controller.view()),
                    len(tok.vocab))
        return (pane.kind_key(), id(tok), len(tok.vocab))

    def summarize(self) -> None:
        """The line over the table: how many cuts only one side makes (shorter when
        compact)."""
        a, b = self.diff
        if self.encodings[0] is None or self.encodings[1] is None:
            self.summary.setText("Pick a tokenizer on both sides to compare them.")
            return
        color = cut_color(self.palette()).name()
        ws = " (whitespace runs ignored)" if self.fold.isChecked() else ""
        bar = f"<span style='color:{color}'>┃</span>"
        if self.compact:   # one line in a narrow dock; the texts are hidden: say where
            self.summary.setText(f"{bar} cuts only A makes: <b>{len(a):,}</b>, only B: "
                                 f"<b>{len(b):,}</b>{ws} · {HIDDEN_TEXTS}")
            self.summary.setToolTip(HIDDEN_TEXTS_TIP)
        else:
            self.summary.setText(f"{bar} cuts only one side makes{ws}: "
                                 f"<b>{len(a):,}</b> only in A, <b>{len(b):,}</b> only in B.")
            self.summary.setToolTip("")
        self.fit.fit_summary()
