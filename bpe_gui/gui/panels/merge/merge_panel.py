"""Merge step panel: candidate pairs, the next merge and why it wins, the last merge's
affected words, the controls, and a timeline of every merge so far.

The panel reads the trainer only when the controller says something changed and no job
is running; what it shows are snapshots (see models/), so a repaint never touches the
engine. Hidden panels defer their refresh until shown.
"""
from __future__ import annotations

from typing import Protocol, TypeVar

from PySide6.QtCore import QEvent, QItemSelectionModel, Qt, Signal, SignalInstance
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (QAbstractItemView, QGroupBox, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QPushButton, QSizePolicy, QSlider, QSpinBox, QSplitter,
                               QStyle, QTabWidget, QToolButton, QVBoxLayout, QWidget)

from ....engine.train import MergeStep
from ...models.affected import AffectedModel, affected_rows
from ...controller.origin import Origin
from ...controller.trainer_view import PairSnapshot, TrainerView
from ...models.pair_table import PairTableModel
from ...models.merge_text import (NO_MERGE_TITLE, controls, last_merge,
                                  next_text, pairs_footer, status_line, step_range)
from ...models.parity_text import turn_name
from ...models.roles import ReadableCache, TokenColors
from ...models.timeline import TimelineModel
from ...widgets.table_cells import TEXT_MARGIN, CellTableView
from ...widgets.flow_layout import FlowBar
from ...widgets.group_titles import fit_titles
from ...widgets.text_pane import TextPane
from .merge_fit import MergeFit
from .stage_marks import StageMarks
from .timeline_tools import TimelineTools
from ...widgets.visibility import CatchUp
from ...widgets.whole_rows import WholeRowsTable

V = TypeVar("V", bound=CellTableView)
PAGE = 200            # candidate pairs fetched per "Show more" (taken again at every step)
SPEEDS = (1, 2, 3, 5, 8, 12, 20, 30, 60)   # steps per second for Play


def _group(widgets) -> QWidget:
    """Controls that belong together and wrap as one piece."""
    box = QWidget()
    lay = QHBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    for w in widgets:
        lay.addWidget(w)
    return box


class TimelineView(CellTableView):
    """The timeline table; keyMoved after a key moved the current row (Page Down ...)."""

    keyMoved = Signal()
    marks: StageMarks | None = None   # SuperBPE's transition line (stage_marks.py)

    def __init__(self, parent=None):
        super().__init__(parent)
        # the current row is kept in sight while the table's height changes, until the
        # user scrolls it elsewhere: it was scrolled to before the panels around it
        # settled, and a table made shorter hid it half
        self.following = False
        self.verticalScrollBar().actionTriggered.connect(self._user_scrolled)

    def show_current(self) -> None:
        """Scroll the current row into sight, and keep it there (``following``)."""
        self.following = True
        self.scrollTo(self.currentIndex())

    def _user_scrolled(self, _action: int) -> None:
        self.following = False

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.following and event.size().height() != event.oldSize().height():
            self.scrollTo(self.currentIndex())

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if self.marks is not None:
            self.marks.paint(self)

    def keyPressEvent(self, event) -> None:
        before = self.currentIndex()
        super().keyPressEvent(event)
        if self.currentIndex() != before:
            self.keyMoved.emit()


def _table(view: V) -> V:
    """``view`` set up as the panel's tables are."""
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setWordWrap(False)
    view.setAlternatingRowColors(False)
    view.verticalHeader().hide()
    vh = view.verticalHeader()
    vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    vh.setDefaultSectionSize(view.fontMetrics().height() + 12)
    # never shorter than its header and two rows (the layout gives the rest to others)
    # (the header's own hint is not known before it has a model: measure its font)
    view.setMinimumHeight(view.fontMetrics().height() + 14 + 2 * vh.defaultSectionSize()
                          + 2 * view.frameWidth() + 4)
    view.horizontalHeader().setHighlightSections(False)
    view.horizontalHeader().setStretchLastSection(True)
    return view


def _label(text: str = "", lines: int = 1) -> TextPane:
    """Text that changes every step: a TextPane, whose size never changes, so a new
    text repaints it without laying the whole panel out again."""
    return TextPane(text, lines)


def _fixed_label(text: str = "", lines: int = 1) -> QLabel:
    """A label of a fixed height (for text that changes rarely and needs a colour)."""
    lab = QLabel(text)
    lab.setWordWrap(lines > 1)
    lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    lab.setFixedHeight(lines * lab.fontMetrics().lineSpacing() + 4)
    lab.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
    lab.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    return lab


class MergeHost(Protocol):
    """What the merge panel reads of the controller (and does through it)."""

    trainerChanged: SignalInstance
    stepChanged: SignalInstance
    busyChanged: SignalInstance
    playingChanged: SignalInstance
    trainerStale: SignalInstance
    targetChanged: SignalInstance
    livePeek: SignalInstance
    message: SignalInstance

    @property
    def busy(self) -> bool: ...
    @property
    def has_trainer(self) -> bool: ...
    @property
    def readable(self) -> bool: ...
    @property
    def stale(self) -> bool: ...
    @property
    def playing(self) -> bool: ...
    @property
    def step_index(self) -> int: ...
    @property
    def corpus_text(self) -> str: ...
    @property
    def training(self) -> _Trains: ...
    @property
    def train_on(self) -> _TrainedOn: ...
    def view(self) -> TrainerView | None: ...
    def done_reason(self) -> str: ...
    def step(self) -> bool: ...
    def undo(self) -> bool: ...
    def reset(self) -> bool: ...
    def goto(self, k: int) -> bool: ...
    def cancel(self) -> None: ...
    def set_playing(self, on: bool, interval_ms: int | None = None) -> None: ...


class _Trains(Protocol):
    def train(self) -> bool: ...


class _TrainedOn(Protocol):
    def origin(self) -> Origin | None: ...


class MergePanel(QWidget):
    trainRequested = Signal()   # the Train button; the window applies pending settings first

    def __init__(self, controller: MergeHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.catchup = CatchUp(self, self._refresh, behind=True)   # nothing shown yet
        self.catch_up = self.catchup.catch_up   # the main window's call when its tab is raised
        self.controller = controller
        self.cache = ReadableCache()
        self.colors = TokenColors.for_palette(self.palette())
        self.limit = PAGE
        self._new_trainer = True
        self._last_rec: MergeStep | None = None
        self._words_of: TrainerView | None = None   # whose words the pair model has
        self._pairs_at: tuple | None = None   # (trainer, step) the pair table was shown at
        self.next_rec: MergeStep | None = None
        self._build()
        c = controller
        c.trainerChanged.connect(self._on_trainer_changed)
        c.stepChanged.connect(self._on_step_changed)
        c.busyChanged.connect(self._update_controls)
        c.playingChanged.connect(self._on_playing)
        c.trainerStale.connect(self._on_stale)
        c.targetChanged.connect(self._on_target_changed)
        c.livePeek.connect(self._on_step_changed)
        self._refresh()

    # ----- layout ---------------------------------------------------------------------
    def _build(self) -> None:
        bar = self._controls()
        self.status = _label()
        # in the status line's place, one line high: as a second, two-line row it pushed
        # the timeline out of view at 1024x700 (issue 21); the status bar keeps the step
        self.stale_label = _fixed_label("Corpus or settings changed: the next Step retrains "
                                        "from step 0.")
        self.stale_label.setToolTip("The corpus or the training settings changed since this "
                                    "training: Step, Train (F5) or Retrain (Ctrl+R) trains "
                                    "again from step 0.")
        self.stale_label.setStyleSheet("color: #c0392b;")
        self.stale_label.hide()
        right = self.right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self._last_box())
        right.addWidget(self._timeline_box())
        right.setStretchFactor(0, 1)
        right.setStretchFactor(1, 1)
        # compact (a short window): the last merge and the timeline as two tabs, so the
        # panel needs less height and the docks below get it (set_compact)
        self.right_tabs = QTabWidget()
        self.right_tabs.setDocumentMode(True)
        self.right_tabs.hide()
        split = self.splitter = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self._pairs_box())
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        outer = QVBoxLayout(self)
        # every pixel of height counts at 1024x700 and 800x600: the docks below need it
        outer.setContentsMargins(4, 4, 4, 4)
        outer.setSpacing(4)
        outer.addWidget(bar)
        self.controls_bar = bar
        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.stale_label, 1)
        outer.addLayout(status_row)
        outer.addWidget(split, 1)
        self.titles = fit_titles(self, (
            (self.pairs_box, "Candidate pairs for the next merge", "Next merge"),
            (self.last_box, NO_MERGE_TITLE, "Last merge"),
            (self.timeline_box, "Timeline (click a step to jump there)", "Timeline")))
        self.fit = MergeFit(self, self)
        self._connect()

    def _controls(self) -> FlowBar:
        """Reset, Step back, Step; Play and its speed; Step N and Go; Train and Cancel."""
        sp = self.style().standardIcon
        P = QStyle.StandardPixmap

        def button(icon: QStyle.StandardPixmap | None, text: str, tip: str) -> QPushButton:
            b = QPushButton(sp(icon), text) if icon is not None else QPushButton(text)
            b.setToolTip(tip)
            return b
        self.reset_btn = button(P.SP_MediaSkipBackward, "Reset", "Back to step 0 (no merges)")
        self.back_btn = button(P.SP_MediaSeekBackward, "Step back", "Undo the last merge exactly")
        self.step_btn = button(P.SP_MediaSeekForward, "Step",
                               "Merge the pair ranked 1 (highlighted in the table)")
        self.play_btn = button(P.SP_MediaPlay, "Play", "Step repeatedly at the speed of the slider")
        self.play_btn.setCheckable(True)
        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.speed.setRange(0, len(SPEEDS) - 1)
        self.speed.setValue(3)
        self.speed.setFixedWidth(80)   # with the rest, one row at 800x600 (issue 21)
        self.speed.setToolTip("Play speed")
        self.speed_label = QLabel()
        self.goto_spin = QSpinBox()
        self.goto_spin.setRange(0, 10_000_000)
        self.goto_spin.setToolTip("Step to run to (or back to)")
        self.goto_spin.setKeyboardTracking(False)
        self.goto_btn = button(None, "Go", "Run forward (or undo back) to this step")
        self.target_btn = button(P.SP_MediaSkipForward, "Train",
                                 "Apply the settings and train until the target vocabulary "
                                 "size or merge count (F5; progress in the status bar)")
        self.cancel_btn = button(P.SP_BrowserStop, "Cancel",
                                 "Stop the running job; the merges made so far stay")
        # A flow layout: at a narrow width the controls wrap onto a second row instead
        # of being pushed out of the panel.
        bar = FlowBar(spacing=6)
        for group in ((self.reset_btn, self.back_btn, self.step_btn),
                      (self.play_btn, self.speed, self.speed_label),
                      (QLabel("Step"), self.goto_spin, self.goto_btn),
                      (self.target_btn, self.cancel_btn)):
            bar.addWidget(_group(group))
        return bar

    def _pairs_box(self) -> QGroupBox:
        """Left: the candidate pairs for the next step."""
        self.pairs_box = QGroupBox("Candidate pairs for the next merge")
        # the whole sentence, wrapped: why the pair wins is what the panel teaches (cut
        # with "…" at 1024x700, the rest in a tooltip, it was not read)
        self.next_label = TextPane(lines=2, grow=True)
        self.next_label.setTextFormat(Qt.TextFormat.RichText)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter pairs: e.g. e s, st, ·t (· is a space)")
        self.filter_edit.setClearButtonEnabled(True)
        self.more_btn = QToolButton()
        self.more_btn.setText(f"Show {PAGE} more")
        self.pair_model = PairTableModel(self)
        self.pair_model.cache = self.cache
        self.pair_view = _table(WholeRowsTable())   # no row cut at its bottom edge
        self.pair_view.setObjectName("pairView")
        self.pair_view.setModel(self.pair_model)
        self.pair_view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.pair_view.setSortingEnabled(True)
        bold = self.pair_view.font()
        bold.setBold(True)
        tie_w = QFontMetrics(bold).horizontalAdvance("next") + 2 * TEXT_MARGIN + 2
        # narrow: "Merges into" (the chips spell it) gives way first, then "Tie" (tied
        # rows are tinted): the pair's two chips keep their room
        self.pair_view.fit_columns((0, 3, 2, 0, 1), (0, 72, 60, 0, tie_w), drop=(2, 4))
        self.pairs_footer = _label()
        left = QVBoxLayout(self.pairs_box)
        left.setContentsMargins(6, 4, 6, 4)   # height for the docks below
        left.addWidget(self.next_label)
        row = QHBoxLayout()
        row.addWidget(self.filter_edit, 1)
        row.addWidget(self.more_btn)
        left.addLayout(row)
        left.addWidget(self.pair_view, 1)
        left.addWidget(self.pairs_footer)
        return self.pairs_box

    def _last_box(self) -> QGroupBox:
        """Right top: the last merge and the words it changed."""
        self.last_box = QGroupBox(NO_MERGE_TITLE)
        self.last_title = _label(lines=1)
        self.last_title.setTextFormat(Qt.TextFormat.RichText)
        self.last_reason = TextPane(lines=1, grow=True)   # whole, wrapped
        self.affected_model = AffectedModel(self)
        self.affected_view = _table(CellTableView())
        self.affected_view.setObjectName("affectedView")
        self.affected_view.setModel(self.affected_model)
        self.affected_view.fit_columns((0, 1, 1), (0, 60, 60))
        rt = QVBoxLayout(self.last_box)
        rt.setContentsMargins(6, 4, 6, 4)   # height for the docks below
        rt.setSpacing(2)
        rt.addWidget(self.last_title)
        rt.addWidget(self.last_reason)
        # how many words changed is in the box's title and the table's tooltip: a line
        # of its own cost the height the docks below need (issue 21)
        rt.addWidget(self.affected_view, 1)
        return self.last_box

    def _timeline_box(self) -> QGroupBox:
        """Right bottom: the timeline, its scrubber and search."""
        self.timeline_box = QGroupBox("Timeline (click a step to jump there)")
        self.timeline = TimelineModel(self)
        self.timeline_view = _table(TimelineView())
        self.timeline_view.setObjectName("timelineView")
        self.timeline_view.marks = StageMarks()
        self.timeline_view.setModel(self.timeline)
        # narrow: "New token" (the chips of Merge spell it) gives way, then Count (the
        # last merge says it, and each row's tooltip): Ties stays in view
        self.timeline_view.fit_columns((0, 3, 3, 0, 0), (0, 72, 72, 0, 0), drop=(2, 3))
        rb = QVBoxLayout(self.timeline_box)
        rb.setContentsMargins(6, 4, 6, 4)   # height for the docks below
        self.timeline_tools = TimelineTools(self)
        rb.addWidget(self.timeline_tools)
        rb.addWidget(self.timeline_view)
        return self.timeline_box

    def _connect(self) -> None:
        c = self.controller
        self.step_btn.clicked.connect(c.step)
        self.back_btn.clicked.connect(c.undo)
        self.reset_btn.clicked.connect(c.reset)
        self.play_btn.toggled.connect(self._on_play_toggled)
        self.speed.valueChanged.connect(self._on_speed)
        self.goto_btn.clicked.connect(self._on_goto)
        self.goto_spin.lineEdit().returnPressed.connect(self._on_goto)
        self.target_btn.clicked.connect(self._on_train)
        self.cancel_btn.clicked.connect(c.cancel)
        self.filter_edit.textChanged.connect(self.pair_model.set_filter)
        self.more_btn.clicked.connect(self.show_more)
        # pressed, not clicked: a click needs press and release on one row, which the
        # first click after a scroll-bar drag did not always get.
        self.timeline_view.pressed.connect(self._on_timeline_clicked)
        self.timeline_view.activated.connect(self._on_timeline_clicked)
        self.timeline_view.keyMoved.connect(self._on_timeline_key)
        self._on_speed(self.speed.value())
        self._update_controls()

    # ----- controller signals --------------------------------------------------------------
    def _on_trainer_changed(self) -> None:
        self._new_trainer = True
        self.limit = PAGE
        self._refresh()

    def _on_step_changed(self, _k: int = 0) -> None:
        self._refresh()

    def _on_stale(self, stale: bool) -> None:
        self._show_stale(bool(stale) and self.controller.has_trainer)

    def _show_stale(self, on: bool) -> None:
        self.stale_label.setVisible(on)
        # compact: the status bar says the step (the line's height went to the whole
        # sentence of why the next pair wins)
        self.status.setVisible(not on and not self.compact)

    def _on_playing(self, on: bool) -> None:
        self.play_btn.blockSignals(True)
        self.play_btn.setChecked(on)
        self.play_btn.setText("Pause" if on else "Play")
        self.play_btn.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPause if on
                                                        else QStyle.StandardPixmap.SP_MediaPlay))
        self.play_btn.blockSignals(False)

    def _on_play_toggled(self, on: bool) -> None:
        self.controller.set_playing(on, self.interval_ms())

    def interval_ms(self) -> int:
        return max(1, round(1000 / SPEEDS[self.speed.value()]))

    def _on_speed(self, v: int) -> None:
        self.speed_label.setText(f"{SPEEDS[v]}/s")
        self.speed_label.setToolTip(f"Play speed: {SPEEDS[v]} steps a second")
        if self.controller.playing:
            self.controller.set_playing(True, self.interval_ms())

    def _on_goto(self) -> None:
        self.goto_spin.interpretText()
        self.controller.goto(self.goto_spin.value())

    def use_window_toolbar(self) -> None:
        """In the main window the toolbar has Step back, Step, Train and Cancel: leave
        them out here, so the panel's own row fits a narrow window."""
        for w in (self.back_btn, self.step_btn, self.target_btn, self.cancel_btn):
            w.hide()
        self.play_btn.setToolTip("Step repeatedly at the speed of the slider (Ctrl+P)")

    def _on_train(self) -> None:
        if self.isSignalConnected(self.metaObject().method(
                self.metaObject().indexOfSignal("trainRequested()"))):
            self.trainRequested.emit()
        else:
            self.controller.training.train()

    def _on_target_changed(self) -> None:
        t = self.controller.view()
        if t is not None:
            self.goto_spin.setMaximum(max(t.target_steps or 10_000_000, t.n_steps))
        self.fit.numbers(t)
        self._refresh_status()
        self._refresh_pairs()

    def _on_timeline_key(self) -> None:
        idx = self.timeline_view.currentIndex()
        if idx.isValid() and self.timeline.step_of_row(idx.row()) != self.controller.step_index:
            self._on_timeline_clicked(idx)

    def _on_timeline_clicked(self, index) -> None:
        if index.isValid():
            self.controller.goto(self.timeline.step_of_row(index.row()))

    def show_more(self) -> None:
        self.limit += PAGE
        self._refresh_pairs()

    # ----- refresh ------------------------------------------------------------------------
    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.colors = TokenColors.for_palette(self.palette())
            for view in (self.pair_view, self.affected_view, self.timeline_view):
                view.set_colors(self.colors)
            self.pair_model.set_colors(self.colors)
            self.timeline.set_colors(self.colors)

    def _update_controls(self, *_) -> None:
        c = self.controller
        on = controls(c.busy, c.has_trainer, c.corpus_text, c.step_index,
                      self.pair_model.snapshot.maybe_more)
        for w in (self.step_btn, self.play_btn, self.goto_btn, self.goto_spin,
                  self.target_btn):
            w.setEnabled(on.forward)
        self.more_btn.setEnabled(on.more)
        self.back_btn.setEnabled(on.back)
        self.reset_btn.setEnabled(on.back)
        self.cancel_btn.setEnabled(on.cancel)
        self.timeline_view.setEnabled(on.timeline)

    def _refresh(self) -> None:
        """Re-read the trainer (if it may be read) into the snapshots the views show."""
        self._update_controls()
        if not self.controller.readable:   # a job runs it: the next look or its end
            return
        if self.catchup.skip():
            return
        t = self.controller.view()
        if self._new_trainer:
            self._new_trainer = False
            self.fit.numbers(t)
            self.cache = ReadableCache()
            self.pair_model.cache = self.cache
            self.timeline.set_origin(self.controller.train_on.origin())   # train on: row 0
            self.timeline.reset(t.steps if t else ())
            self._last_rec = None
            self._show_stale(self.controller.stale and t is not None)
            self.goto_spin.setMaximum(step_range(t))
        elif t is not None:
            self.timeline.sync(t.steps)
        info = t.parity if t is not None else None   # whose turn, in each row's tooltip
        self.timeline.turn_of = (lambda k, info=info: turn_name(info, k)) if info else None
        marks = self.timeline_view.marks   # SuperBPE's stage line
        if marks is not None:
            marks.sync(self.timeline_view, t.transition if t is not None else None)
        self._sync_timeline_selection()
        self._refresh_pairs()
        self._refresh_last()
        self._refresh_status()

    # ----- fitting the window (merge_fit.py) ---------------------------------------------
    @property
    def compact(self) -> bool:
        return self.fit.compact

    @property
    def one_column(self) -> bool:
        return self.fit.one_column

    def set_compact(self, on: bool) -> None:
        """Compact: the last merge and the timeline as two tabs (merge_fit.py)."""
        if self.fit.set_compact(on):
            self._show_stale(self.stale_label.isVisibleTo(self))

    def controls_height(self) -> int:
        return self.fit.controls_height()

    def two_columns_width(self) -> int:
        return self.fit.two_columns_width()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit.resized()

    def _refresh_pairs(self) -> None:
        if not self.controller.readable:
            return
        t = self.controller.view()
        snap = t.pair_snapshot(self.limit) if t is not None else PairSnapshot()
        if self._words_of is not t:   # "part of 中" hints look in the first words
            self._words_of = t
            self.pair_model.words = t.first_words() if t is not None else []
        self.pair_model.set_snapshot(snap)
        self.pair_view.set_column_minimum(1, self.fit.pair_width())
        if self.pair_view.selectionModel().hasSelection():   # rows now hold other pairs
            self.pair_view.clearSelection()
        at = (t, t.n_steps) if t is not None else None
        if at != self._pairs_at:   # a new step: the pair merged next in sight (the table
            self._pairs_at = at    # kept its scroll offset and rank 1 could be out of it)
            self._scroll_to_next()
        self.next_rec = t.next_choice() if t is not None else None
        c = self.controller
        self.next_label.setText(next_text(c.has_trainer, self.next_rec,
                                          c.done_reason() if self.next_rec is None else "",
                                          self.cache.text))
        self.pairs_footer.setText(pairs_footer(snap))
        # compact, the footer is hidden: the table says it where it is read
        self.pair_view.setToolTip(self.pairs_footer.text())
        self.more_btn.setEnabled(snap.maybe_more and not self.controller.busy)

    def _scroll_to_next(self) -> None:
        rows = self.pair_model.rows
        r = next((i for i, row in enumerate(rows) if row.rank == 1), None)
        if r is not None:
            self.pair_view.scrollTo(self.pair_model.index(r, 0),
                                    QAbstractItemView.ScrollHint.EnsureVisible)

    def _refresh_last(self) -> None:
        t = self.controller.view()
        rec = t.steps[-1] if t is not None and t.steps else None
        if rec is self._last_rec and rec is not None:
            return
        self._last_rec = rec
        last = last_merge(rec, t.parity if t is not None else None, self.cache.text)
        self.last_title.setText(last.title)
        self.last_reason.setText(last.reason)
        self.last_reason.setToolTip(last.reason if last.detail else "")
        self.affected_view.setToolTip(last.affected)
        self.titles.set_long(self.last_box, last.box_title)
        self.affected_model.set_rows(affected_rows(rec, t.vocab_bytes, self.cache)
                                     if last.detail and rec is not None and t is not None
                                     else ())

    def _refresh_status(self) -> None:
        t = self.controller.view()
        text, tip = status_line(t)
        self.status.setText(text)
        self.status.setToolTip(tip)
        if t is not None:
            self.goto_spin.blockSignals(True)
            self.goto_spin.setValue(t.n_steps)
            self.goto_spin.blockSignals(False)

    def _sync_timeline_selection(self) -> None:
        self.timeline_tools.sync()
        k = self.timeline.current
        idx = self.timeline.index(k, 0)
        sel = self.timeline_view.selectionModel()
        sel.setCurrentIndex(idx, QItemSelectionModel.SelectionFlag.ClearAndSelect
                            | QItemSelectionModel.SelectionFlag.Rows)
        self.timeline_view.show_current()

    # ----- for tests and the status bar ------------------------------------------------------
    def pair_rows(self) -> list[tuple]:
        """What the pair table shows, in view order: (rank, pair, merged, count, tie)."""
        m = self.pair_model
        return [tuple(m.index(r, c).data() for c in range(m.columnCount()))
                for r in range(m.rowCount())]

