"""Vocabulary browser: every token of the current vocabulary, searchable by text, id or
hex, with its class (ok / unreachable / undecodable / special, filterable), and the
merge lineage of the selected token (token -> its two parts -> ... -> bytes).

Dead weight (the "Dead weight" button): each token's IoS on a corpus -- the share of its
occurrences in which it is merged further (engine/analysis/dead_weight.py) -- measured by
a job of the controller's on the window's corpus (or files picked with "Other corpus…"),
shown in the IoS column, and the table filtered to the merged tokens at or above the
threshold.

Shows the trained vocabulary as of the current step, or the imported tokenizer's when
the controller uses it. Stepping appends/removes rows; a hidden browser catches up when
shown. The classes come from the controller (``controller.classes``, token_classes.py):
at once for a step's new token, from a job of the controller's for a whole vocabulary.
"""
from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QEvent, QItemSelectionModel, QTimer, Qt, SignalInstance
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QHeaderView, QLabel, QLineEdit, QPushButton,
                               QSplitter, QTreeWidgetItem, QVBoxLayout, QWidget)

from ....engine.analysis import Reachability
from ....engine.formats import describe_source
from ....engine.tokenizers import BaseTokenizer
from ...models.parity_text import turn_name
from ...models.proxy import SourceSortProxy
from ...models.roles import TokenColors
from ...models.vocab_classes import FILTER_LABELS, class_counts, counts_text, filter_label
from ...models.vocab_model import VocabModel
from ...models.vocab_text import Node, Shown, lineage, lineage_details, summary
from .dead_weight import DeadWeight, DeadWeightHost
from ...widgets.fit_columns import FittedTableView
from ...widgets.flow_layout import FlowBar
from ...widgets.text_pane import TextPane
from ...widgets.visibility import CatchUp
from ...widgets.whole_rows import WholeRowsTree
from ...widgets.elided_combo import ElidedComboBox
from ...models.imported_name import imported_name

SEARCH_DEBOUNCE_MS = 120
THROTTLE_MS = 150
LINEAGE_MIN_WIDTH = 240   # the lineage beside the table: its tree's Token and Id columns


class VocabHost(DeadWeightHost, Protocol):
    """What the vocabulary browser reads of the controller: the run, the imported
    tokenizer, dead weight's, and these."""

    use_imported: bool

    @property
    def step_index(self) -> int: ...
    @property
    def classes(self) -> _Classes: ...
    @property
    def tokenizer_files(self) -> _UsesImported: ...


class _Classes(Protocol):
    """The token classes the browser shows, classified in the background."""

    changed: SignalInstance

    def of_trained(self, force: bool = False) -> Reachability | None: ...
    def of_imported(self, tok: BaseTokenizer, force: bool = False) -> Reachability | None: ...
    def cancelled(self, which: str) -> bool: ...
    def context_note(self, which: str, tid: int) -> str: ...


class _UsesImported(Protocol):
    def set_use_imported(self, on: bool, note: str = "") -> None: ...


class VocabBrowser(QWidget):
    def __init__(self, controller: VocabHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.catchup = CatchUp(self, self._refresh, behind=True)   # nothing shown yet
        self.catch_up = self.catchup.catch_up   # the main window's call when its tab is raised
        self.controller = controller
        self.colors = TokenColors.for_palette(self.palette())
        self._new_source = True
        self._source_key: tuple | None = None
        self._build()
        controller.trainerChanged.connect(self._on_trainer_changed)
        controller.stepChanged.connect(self._on_step_changed)
        controller.tokenizerChanged.connect(self._on_tokenizer_changed)
        controller.busyChanged.connect(lambda busy: None if busy else self._refresh())
        controller.classes.changed.connect(self._refresh_classes)
        self._refresh()

    def _build(self) -> None:
        self.model = VocabModel(self)
        self.model.class_note = lambda tid: self.controller.classes.context_note(
            self.model.source, tid)
        self.proxy = SourceSortProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = self._table()
        self.dead = DeadWeight(self.controller, self.model, self.view, self._dead_changed, self)
        self.dead_button, self.threshold, self.dead_files = \
            self.dead.button, self.dead.threshold, self.dead.files
        top = self._top_bar()
        # on a row of its own, two lines: an imported file's name and format read whole
        # (one line cut them with … even at 1920 pixels); the tooltip says it all
        self.summary = TextPane(lines=2)
        # the lineage beside the table, or below it where both would not fit side by
        # side with every column whole (_arrange)
        split = self.splitter = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.view)
        split.addWidget(self._lineage_side())
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        self._split_dragged = False
        split.splitterMoved.connect(lambda *_: setattr(self, "_split_dragged", True))
        outer = QVBoxLayout(self)
        outer.addWidget(top)
        outer.addWidget(self.summary)
        outer.addWidget(split, 1)
        self._throttle = QTimer(self, singleShot=True, interval=THROTTLE_MS)
        self._throttle.timeout.connect(self._on_throttle)
        self._pending = False
        self._search_timer = QTimer(self, singleShot=True, interval=SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(self.apply_search)
        self.search.textChanged.connect(self._on_search_edited)
        self.gpt2.toggled.connect(self._on_gpt2)
        self.view.selectionModel().currentRowChanged.connect(self._on_current)

    def _top_bar(self) -> FlowBar:
        """Search, the class filter, the GPT-2 alphabet, dead weight, and the way back to
        the trained vocabulary: wrapped onto a second row when narrow."""
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search by text (the, ·the), id (300) or hex (e4 bd, "
                                       "<E4 BD>, 0xe4)")
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(self.search.fontMetrics().horizontalAdvance("x" * 30))
        self.gpt2 = QCheckBox("GPT-2 alphabet (Ġ)")
        self.gpt2.setToolTip("Show tokens as in GPT-2's vocab.json: each byte as a printable "
                             "character, a space as Ġ")
        self.class_filter = ElidedComboBox(items=FILTER_LABELS)
        self.class_filter.setToolTip(
            "Show only the tokens of one class. Each token is decoded and its text "
            "encoded again: ok (it comes back as this token), unreachable (as other "
            "tokens), undecodable (not valid UTF-8: part of a character), special.")
        self.class_filter.currentIndexChanged.connect(self._on_class_filter)
        # room for the counts from the start: the box does not grow as they come
        self.class_filter.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.class_filter.setMinimumContentsLength(len("undecodable (888,888)"))
        self._counted: tuple | None = None   # (classes, rows) the counts shown are of
        # showing an imported vocabulary: one click back to the trained one (the line
        # "(the trained one: the encode view's Tokenizer box)" read as a puzzle, issue 30)
        self.show_trained = QPushButton("Show the trained vocabulary")
        self.show_trained.setToolTip("The encode view and this browser show the tokenizer "
                                     "being trained again (the encode view's Tokenizer box "
                                     "switches between the two)")
        self.show_trained.clicked.connect(
            lambda: self.controller.tokenizer_files.set_use_imported(False))
        self.show_trained.hide()
        top = FlowBar(spacing=6)
        for w in (self.search, self.class_filter, self.gpt2, self.dead.button,
                  self.dead.threshold, self.dead.files, self.show_trained):
            top.addWidget(w)
        return top

    def _table(self) -> FittedTableView:
        """The vocabulary, one token a row, sorted and filtered by the model."""
        view = FittedTableView()
        view.setModel(self.proxy)
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.setWordWrap(False)
        vh = view.verticalHeader()
        vh.hide()
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(view.fontMetrics().height() + 8)
        view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        view.setSortingEnabled(True)
        view.setColumnHidden(VocabModel.STATUS, True)
        for col in VocabModel.DEAD_COLUMNS:
            view.setColumnHidden(col, True)
        view.setColumnHidden(VocabModel.TURN, True)   # parity-aware training only
        fm = view.fontMetrics()
        num = fm.horizontalAdvance("888,888,888") + 12
        self._fit_minimums = (
            fm.horizontalAdvance("200,000") + 12, 80, 0, num * 2 // 3, num,
            fm.horizontalAdvance("pruned at step 88,888") + 12,
            fm.horizontalAdvance("undecodable") + 16, fm.horizontalAdvance("0.99") + 16,
            num, num, fm.horizontalAdvance("global") + 16)
        self.view = view
        self._fit(dead=False)
        return view

    def _lineage_side(self) -> QWidget:
        """The selected token's merge lineage: its title, details and tree."""
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.tree = WholeRowsTree()   # no row cut at its bottom edge
        self.tree.setHeaderLabels(["Token", "Id", "Made at", "Count"])
        # the numbers as wide as they are (_fit_tree), the token gets the rest, cut with
        # "…" and whole in its tooltip: fixed widths made the tree scroll sideways
        head = self.tree.header()
        head.setStretchLastSection(False)
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self._fit_tree()
        self.tree.itemActivated.connect(self._on_tree_activated)
        # its header and three rows (a token and its two parts) however short the dock
        self.tree.setMinimumHeight(self.tree.header().sizeHint().height()
                                   + 3 * (self.tree.fontMetrics().height() + 2)
                                   + 2 * self.tree.frameWidth())
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.setContentsMargins(0, 0, 0, 0)
        self.lineage_title = QLabel("<b>Merge lineage</b> of the selected token, down to "
                                    "its base symbols")
        self.lineage_title.setWordWrap(True)   # one line of it kept the dock 570 pixels wide
        rv.addWidget(self.lineage_title)
        rv.addWidget(self.details)
        rv.addWidget(self.tree, 1)
        return right

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange()

    def _arrange(self) -> None:
        """The lineage beside the table when the table keeps the least width of its
        columns (fit_columns) and the lineage LINEAGE_MIN_WIDTH; below it otherwise."""
        split = self.splitter
        room = split.width() - split.handleWidth()
        beside = room >= self.view.least_width() + LINEAGE_MIN_WIDTH
        want = Qt.Orientation.Horizontal if beside else Qt.Orientation.Vertical
        if split.orientation() != want:
            split.setOrientation(want)
            self._split_dragged = False
        if not beside and not self._split_dragged:
            # the table two thirds (the lineage is a few lines and rows), until the user
            # drags the handle
            total = split.height() - split.handleWidth()
            lineage = max(total // 3, self._lineage_least_height())
            split.setSizes([total - lineage, lineage])
        if beside:   # (the splitter's share may be less than the table's least width)
            self.view.setMinimumWidth(self.view.least_width())
        else:
            self.view.setMinimumWidth(0)

    def _lineage_least_height(self) -> int:
        """The lineage's title and details, wrapped at its width, above its tree's least
        height (its layout's minimum counts a wrapped label as one line)."""
        right = self.splitter.widget(1)
        lay = right.layout() if right is not None else None
        if right is None or lay is None:
            return 0
        w = right.width()
        labels = (self.lineage_title, self.details)
        return sum(x.heightForWidth(w) for x in labels) + self.tree.minimumHeight() \
            + 2 * lay.spacing()

    # ----- controller ---------------------------------------------------------------------
    def _on_trainer_changed(self) -> None:
        self._new_source = True
        self._refresh()

    def _on_step_changed(self, _k: int = 0) -> None:
        # At most one refresh per THROTTLE_MS while playing: a table that scrolls at 60
        # rows a second cannot be read, and inserting a row repaints the whole view.
        if self._throttle.isActive():
            self._pending = True
            return
        self._refresh()
        self._throttle.start()

    def _on_throttle(self) -> None:
        if self._pending:
            self._pending = False
            self._refresh()

    def _on_tokenizer_changed(self) -> None:
        c = self.controller
        key = ("imported", id(c.imported)) if c.use_imported and c.imported is not None \
            else ("trained", id(c.view()))
        if key != self._source_key:   # steps come through stepChanged
            self._new_source = True
            self._refresh()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.colors = TokenColors.for_palette(self.palette())

    def _refresh(self) -> None:
        c = self.controller
        imported = c.use_imported and c.imported is not None
        t = c.view()
        if not imported and (c.peeking or (t is None and c.has_trainer)):
            return   # the trainer belongs to a job; catch up when it ends
        if self.catchup.skip():
            return
        key = ("imported", id(c.imported)) if imported else ("trained", id(t))
        if key != self._source_key:
            self._new_source = True
        if self._new_source:
            self._new_source = False
            self._source_key = key
            self._reset_keeping_selection(c.imported if imported else None, t)
        elif not imported and t is not None:
            self.model.sync(t.steps)
        prune = not imported and t is not None and t.settings.prune
        info = t.parity if not imported and t is not None else None
        self.model.turn_of = (lambda k, info=info: turn_name(info, k)) if info else None
        self._show_columns({VocabModel.STATUS: prune, VocabModel.TURN: info is not None})
        self._refresh_classes()
        self.dead.refresh()

    def _show_columns(self, shown: dict[int, bool]) -> None:
        """Show or hide columns a training has or lacks (pruning's Status, parity's
        Turn), fitting the columns to the width again when one comes or goes: a column
        shown without a new fit made the table scroll sideways."""
        changed = False
        for col, on in shown.items():
            if self.view.isColumnHidden(col) == on:
                self.view.setColumnHidden(col, not on)
                changed = True
        if changed:
            self.view.refit()

    # ----- classes ------------------------------------------------------------------------
    def _refresh_classes(self) -> None:
        """Take the classes the controller knows for what is shown (it works out the
        missing ones: at once for a few, by a job for many)."""
        c = self.controller
        if self.catchup.skip():
            return
        force = bool(self.class_filter.currentData())   # a class asked for: even after Cancel
        if self.model.source == "imported":
            reach = c.classes.of_imported(c.imported, force) if c.imported is not None \
                else None
        elif c.view() is not None and not c.peeking:
            reach = c.classes.of_trained(force)
        else:
            reach = self.model.classes
        self.model.set_classes(reach)
        self._update_filter_counts()
        self._update_summary()

    def _update_filter_counts(self) -> None:
        """Each class's count in the Class box (the whole vocabulary shown, whatever
        the search), once every token's class is known."""
        m = self.model
        key = (m.classes, m.source, len(m.entries))   # the object: its id may be reused
        if self._counted is not None and key[0] is self._counted[0] \
                and key[1:] == self._counted[1:]:
            return
        self._counted = key
        e = m.entries
        contiguous = not e or (e[0].id == 0 and e[-1].id == len(e) - 1)   # ids sorted
        counts = class_counts(m.classes, range(len(e)) if contiguous else [x.id for x in e])
        box = self.class_filter
        for k, (kind, label) in enumerate(FILTER_LABELS):
            box.setItemText(k, filter_label(kind, label, counts))

    def _on_class_filter(self, _i: int = 0) -> None:
        self.model.set_class_filter(self.class_filter.currentData() or "")
        self._refresh_classes()
        self._update_summary()

    def set_class_filter(self, kind: str) -> None:
        """Show only the tokens of one class ("ok", "unreachable", "undecodable",
        "special"; "" for all), as the Class box does."""
        self.class_filter.setCurrentIndex(max(0, self.class_filter.findData(kind)))

    def classes_text(self) -> str:
        """The summary's words on the classes of the tokens shown (for tests)."""
        m = self.model
        reach = m.classes
        if reach is None:
            if self.controller.classes.cancelled(m.source):
                return "classes: cancelled (pick a class to work them out)"
            return "classes: working them out…"
        ids = (e.id for e in m.entries)
        done = all(m.class_of(e.id) != "…" for e in m.entries[-1:])
        return "classes: " + counts_text(reach, ids) + ("" if done else " (more coming…)")

    def _update_summary(self) -> None:
        c, m = self.controller, self.model
        n = len(m.entries)
        imported = m.source == "imported"
        shown = Shown(m.source, c.step_index, n, m.n_base, bool(m.inherited), c.has_trainer,
                      imported_name(c.imported_path) if imported else "",
                      (describe_source(c.imported) or "") if imported and c.imported else "")
        rows = self.proxy.rowCount()
        filtered = bool(self.search.text() or self.class_filter.currentData()
                        or self.dead.on) and rows != n
        text = summary(shown, self.classes_text(), self.dead.text(),
                       rows if filtered else None)
        # the trained vocabulary is one click away: the button beside (issue 30)
        self.show_trained.setVisible(imported and c.has_trainer)
        self.summary.setText(text)
        self.summary.setToolTip(text)

    def _fit(self, dead: bool) -> None:
        """Fit the columns to the width. Narrow: Bytes, then Count give way (the lineage
        and the tooltip say them), so the Class column (and a parity run's Turn) stays in
        view without scrolling sideways (issues 30, 67: Bytes first, as the token shows
        its length and the counts are what a learner compares); with dead weight shown,
        Step, Output, Merged and Class go too, so the IoS stays in view."""
        self.view.fit_columns((0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0),
                              drop=(2, 4, 3, 9, 8, 6) if dead else (2, 4),
                              minimums=self._fit_minimums)

    # ----- dead weight (dead_weight.py) --------------------------------------------------
    def _dead_changed(self, columns: bool) -> None:
        if columns:
            self._fit(dead=self.dead.on)
        self._update_summary()

    def set_dead_paths(self, paths: list[str]) -> None:
        """Measure dead weight on these files ([]: the corpus in the window)."""
        self.dead.set_paths(paths)

    # ----- search -------------------------------------------------------------------------
    def _on_search_edited(self, _text: str) -> None:
        big = len(self.model.entries) > 5000
        if big:
            self._search_timer.start()
        else:
            self.apply_search()

    def apply_search(self) -> None:
        self._search_timer.stop()
        # the model filters (a few str.find scans over all tokens' texts), not the proxy
        # (a Python data() call per row: seconds on a 200k-token vocabulary)
        self.model.set_search(self.search.text(), self.model.gpt2)
        self._update_summary()
        if self.proxy.rowCount() == 1:
            self.view.selectRow(0)

    def _on_gpt2(self, on: bool) -> None:
        self.model.set_gpt2(on)
        if self.search.text():
            self.apply_search()   # the search matches the text as shown
        self._show_lineage(self.selected_id())

    # ----- selection and lineage ----------------------------------------------------------
    def selected_id(self) -> int | None:
        ix = self.view.selectionModel().currentIndex()
        if not ix.isValid():
            return None
        src = self.proxy.mapToSource(ix)
        return self.model.entry(src.row()).id if src.isValid() else None

    def _reset_keeping_selection(self, imported, run) -> None:
        """Another vocabulary: the user's search stays applied (the model keeps it), and
        the selection follows the token's text, never its id (id 373 of one vocabulary
        is another token in the next); gone or filtered out, nothing is selected."""
        tid = self.selected_id()
        e = self.model.entry_by_id(tid) if tid is not None else None
        if imported is not None:
            self.model.reset_imported(imported)
        else:
            self.model.reset_trained(run)
        self._update_summary()
        same = self.model.id_of_token(e.token) if e is not None else None
        if same is None or not self.select_id(same, keep_search=True):
            self.view.selectionModel().clear()
            self._show_lineage(None)

    def select_id(self, tid: int, keep_search: bool = False) -> bool:
        """Select token ``tid``; one the search filters out clears the search first,
        unless ``keep_search`` (then False)."""
        row = self.model.row_of_id(tid)
        if row is None and self.model.search and not keep_search and \
                self.model.entry_by_id(tid) is not None:
            self.search.clear()   # filtered out: clear the search to show it
            self.apply_search()
            row = self.model.row_of_id(tid)
        if row is None:
            return False
        ix = self.proxy.mapFromSource(self.model.index(row, 0))
        self.view.selectionModel().setCurrentIndex(
            ix, QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
        self.view.scrollTo(ix)
        return True

    def _on_current(self, current, _previous) -> None:
        self._show_lineage(self.selected_id())

    def _on_tree_activated(self, item: QTreeWidgetItem, _col: int) -> None:
        tid = item.data(1, Qt.ItemDataRole.UserRole)
        if tid is not None:
            self.select_id(int(tid))

    def _show_lineage(self, tid: int | None) -> None:
        self.tree.clear()
        QTimer.singleShot(0, self, self._arrange)   # (its details' lines change its height)
        e = self.model.entry_by_id(tid) if tid is not None else None
        if e is None:
            self.details.setText("Select a token to see how it was built.")
            self._fit_tree()
            return
        self.details.setText(lineage_details(self.model, e))
        self.tree.addTopLevelItem(self._item(lineage(self.model, e)))
        self.tree.expandAll()
        self._fit_tree()

    def _fit_tree(self) -> None:
        """The lineage's Id, Made at and Count columns as wide as their header and
        values (the Token column stretches over the rest)."""
        for col in (1, 2, 3):
            self.tree.resizeColumnToContents(col)

    def _item(self, node: Node) -> QTreeWidgetItem:
        item = QTreeWidgetItem([node.text, str(node.id), node.made, node.count])
        item.setData(1, Qt.ItemDataRole.UserRole, node.id)
        item.setToolTip(0, node.tip)
        if node.partial:
            f = QFont(item.font(0))
            f.setItalic(True)
            item.setFont(0, f)
            item.setForeground(0, QBrush(self.colors.partial_border))
        for child in node.children:
            item.addChild(self._item(child))
        return item

    def lineage(self) -> list:
        """The lineage tree as nested (token text, id, [children]) (for tests)."""
        def walk(item):
            return (item.text(0), int(item.text(1)),
                    [walk(item.child(i)) for i in range(item.childCount())])
        return [walk(self.tree.topLevelItem(i)) for i in range(self.tree.topLevelItemCount())]

    def visible_ids(self) -> list[int]:
        """Ids of the rows the table shows, in view order (for tests)."""
        p = self.proxy
        return [int(p.index(r, VocabModel.ID).data()) for r in range(p.rowCount())]

