"""Vocabulary browser: every token of the current vocabulary, searchable by text, id or
hex, and the merge lineage of the selected token (token -> its two parts -> ... -> bytes).

Shows the trained vocabulary as of the current step, or the imported tokenizer's when
the controller uses it. Stepping appends/removes rows; a hidden browser catches up when
shown.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QItemSelectionModel, Qt, QTimer
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QSplitter, QTreeWidget, QTreeWidgetItem,
                               QVBoxLayout, QWidget)

from ...engine.display import hex_bytes
from ..models.proxy import SourceSortProxy
from ..models.roles import TokenColors
from ..models.vocab_model import MERGE, SPECIAL, VocabEntry, VocabModel
from .fit_columns import FittedTableView
from .visibility import CatchesUp

SEARCH_DEBOUNCE_MS = 120
LINEAGE_NODE_LIMIT = 2000
THROTTLE_MS = 150


class VocabBrowser(CatchesUp, QWidget):
    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.colors = TokenColors.for_palette(self.palette())
        self._behind = True      # nothing shown yet
        self._new_source = True
        self._source_key: tuple | None = None
        self._build()
        controller.trainerChanged.connect(self._on_trainer_changed)
        controller.stepChanged.connect(self._on_step_changed)
        controller.tokenizerChanged.connect(self._on_tokenizer_changed)
        controller.busyChanged.connect(lambda busy: None if busy else self._refresh())
        self._refresh()

    def _build(self) -> None:
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search by text (the, ·the), id (300) or hex (e4 bd, "
                                       "<E4 BD>, 0xe4)")
        self.search.setClearButtonEnabled(True)
        self.gpt2 = QCheckBox("GPT-2 alphabet (Ġ)")
        self.gpt2.setToolTip("Show tokens as in GPT-2's vocab.json: each byte as a printable "
                             "character, a space as Ġ")
        self.summary = QLabel()
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.gpt2)
        top.addWidget(self.summary)

        self.model = VocabModel(self)
        self.proxy = SourceSortProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = FittedTableView()
        self.view.setModel(self.proxy)
        self.view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        vh = self.view.verticalHeader()
        vh.setSectionResizeMode(QHeaderView.Fixed)
        vh.setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        self.view.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)
        self.view.setSortingEnabled(True)
        self.view.setColumnHidden(VocabModel.STATUS, True)
        num = self.view.fontMetrics().horizontalAdvance("888,888,888") + 12
        self.view.fit_columns((0, 1, 0, 0, 0), (self.view.fontMetrics().horizontalAdvance(
            "200,000") + 12, 80, 0, num * 2 // 3, num))

        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.details.setTextFormat(Qt.RichText)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Token", "Id", "Made at", "Count"])
        self.tree.setUniformRowHeights(True)
        self.tree.setColumnWidth(0, 190)
        self.tree.setColumnWidth(1, 60)
        self.tree.setColumnWidth(2, 70)
        self.tree.itemActivated.connect(self._on_tree_activated)
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.setContentsMargins(0, 0, 0, 0)
        rv.addWidget(QLabel("<b>Merge lineage</b> of the selected token: its two parts, "
                            "down to the base symbols"))
        rv.addWidget(self.details)
        rv.addWidget(self.tree, 1)

        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.view)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        self.splitter = split
        outer = QVBoxLayout(self)
        outer.addLayout(top)
        outer.addWidget(split, 1)

        self._throttle = QTimer(self, singleShot=True, interval=THROTTLE_MS)
        self._throttle.timeout.connect(self._on_throttle)
        self._pending = False
        self._search_timer = QTimer(self, singleShot=True, interval=SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(self.apply_search)
        self.search.textChanged.connect(self._on_search_edited)
        self.gpt2.toggled.connect(self._on_gpt2)
        self.view.selectionModel().currentRowChanged.connect(self._on_current)

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
            else ("trained", id(c.trainer))
        if key != self._source_key:   # steps come through stepChanged
            self._new_source = True
            self._refresh()

    def catch_up_with(self) -> None:
        self._refresh()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.PaletteChange:
            self.colors = TokenColors.for_palette(self.palette())

    def _refresh(self) -> None:
        c = self.controller
        imported = c.use_imported and c.imported is not None
        if not imported and c.busy:
            return   # the trainer belongs to a job; catch up when it ends
        if self.skip_while_hidden():
            return
        key = ("imported", id(c.imported)) if imported else ("trained", id(c.trainer))
        if key != self._source_key:
            self._new_source = True
        if self._new_source:
            selected = self.selected_id()
            self._new_source = False
            self._source_key = key
            if imported:
                self.model.reset_imported(c.imported)
            else:
                self.model.reset_trained(c.trainer)
            if selected is None or not self.select_id(selected):
                self._show_lineage(None)
        elif not imported and c.trainer is not None:
            self.model.sync(c.trainer.steps)
        t = c.trainer
        prune = not imported and t is not None and t.settings.prune
        self.view.setColumnHidden(VocabModel.STATUS, not prune)
        self._update_summary()

    def _update_summary(self) -> None:
        c, m = self.controller, self.model
        n = len(m.entries)
        if m.source == "imported":
            name = (c.imported_path or "imported").replace("\\", "/").rsplit("/", 1)[-1]
            label = (c.imported.meta or {}).get("encoding_label") if c.imported else None
            what = f" — {label}" if label else ""
            self.summary.setText(f"Imported {name}{what}: {n:,} tokens")
        elif c.trainer is None:
            self.summary.setText("No vocabulary yet")
        else:
            self.summary.setText(f"Step {c.trainer.n_steps:,}: {n:,} tokens "
                                 f"({m.n_base:,} base/special + {n - m.n_base:,} merged)")
        shown = self.proxy.rowCount()
        if self.search.text() and shown != n:
            self.summary.setText(self.summary.text() + f" · {shown:,} match"
                                 f"{'' if shown == 1 else 'es'}")

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

    def select_id(self, tid: int) -> bool:
        row = self.model.row_of_id(tid)
        if row is None and self.model.search and self.model.entry_by_id(tid) is not None:
            self.search.clear()   # filtered out: clear the search to show it
            self.apply_search()
            row = self.model.row_of_id(tid)
        if row is None:
            return False
        ix = self.proxy.mapFromSource(self.model.index(row, 0))
        self.view.selectionModel().setCurrentIndex(
            ix, QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
        self.view.scrollTo(ix)
        return True

    def _on_current(self, current, _previous) -> None:
        self._show_lineage(self.selected_id())

    def _on_tree_activated(self, item: QTreeWidgetItem, _col: int) -> None:
        tid = item.data(1, Qt.UserRole)
        if tid is not None:
            self.select_id(int(tid))

    def _show_lineage(self, tid: int | None) -> None:
        self.tree.clear()
        e = self.model.entry_by_id(tid) if tid is not None else None
        if e is None:
            self.details.setText("Select a token to see how it was built.")
            return
        text = self.model.token_text(e)
        how = {SPECIAL: "a special token (never split or merged)",
               MERGE: f"made by merge {e.step}" if e.step else "a merged token"}.get(
                   e.kind, "a base symbol")
        if e.kind == MERGE and e.parts is not None:
            a, b = (self.model.entry_by_id(p) for p in e.parts)
            if a is not None and b is not None:
                how += (f": {_esc(self.model.token_text(a))} + {_esc(self.model.token_text(b))}")
            if e.count is not None:
                how += f" (count {e.count:,})"
        self.details.setText(f"<b>{_esc(text)}</b> · id {e.id} · {len(e.token)} byte(s) "
                             f"{_esc(hex_bytes(e.token))}<br>{how}")
        budget = [LINEAGE_NODE_LIMIT]
        root = self._node(e, budget)
        self.tree.addTopLevelItem(root)
        self.tree.expandAll()

    def _node(self, e: VocabEntry, budget: list[int]) -> QTreeWidgetItem:
        budget[0] -= 1
        made = {MERGE: f"step {e.step}" if e.step else "merge", SPECIAL: "special"}.get(
            e.kind, "base")
        item = QTreeWidgetItem([self.model.token_text(e), str(e.id), made,
                                f"{e.count:,}" if e.count is not None else ""])
        item.setData(1, Qt.UserRole, e.id)
        item.setToolTip(0, f"{hex_bytes(e.token)} · double-click to select this token")
        if self.model.cache(e.token)[1]:
            f = QFont(item.font(0))
            f.setItalic(True)
            item.setFont(0, f)
            item.setForeground(0, QBrush(self.colors.partial_border))
        if e.kind == MERGE and e.parts is not None and budget[0] > 0:
            for p in e.parts:
                child = self.model.entry_by_id(p)
                if child is not None:
                    item.addChild(self._node(child, budget))
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


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
