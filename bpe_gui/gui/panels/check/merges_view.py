"""The merges tab of Check my BPE: the first difference explained (step, both pairs and
their counts, the reason, settings found), then both merge lists side by side -- a strip
that marks where they agree and part, steps to walk with the buttons or the keys, a
table of every step -- and below, the words where the two pairs occur at the step where
they part, the causes tried and the notes.
"""
from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QGridLayout, QHBoxLayout,
                               QHeaderView, QLabel, QPushButton, QSpinBox,
                               QSplitter, QStyle, QTableView,
                               QTableWidget, QTableWidgetItem, QTabWidget, QToolButton,
                               QVBoxLayout, QWidget)

from ....engine.check import CheckReport
from ....engine.display import readable
from ...models.check_steps import CheckStepsModel, PairWordsModel, pair_text
from ...models.settings_changes import rule_named
from ...theme import colors, follow_palette
from ...widgets.scrolled import scrolled


def _label(text: str = "", rich: bool = True) -> QLabel:
    lab = QLabel(text)
    lab.setWordWrap(True)
    lab.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return lab


def _table(model) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 6)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setWordWrap(False)
    return view


class MergesView(QWidget):
    stepChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.report: CheckReport | None = None
        self.step = 0
        self._shared = False   # the splitter's height shared out once it was shown
        self._build()
        self.show_report(None)

    # ----- layout -------------------------------------------------------------------------
    def _build(self) -> None:
        self.headline = _label()
        self.warning = _label(rich=False)   # "Is this the corpus you trained on? ..."
        self.sentence = _label(rich=False)
        self.found = _label()
        self.pairs = QGridLayout()
        self.pairs.setHorizontalSpacing(14)
        self.pair_labels: dict[str, tuple[QLabel, QLabel, QLabel]] = {}
        for row, side in enumerate(("yours", "reference")):
            cells = (QLabel(), QLabel(), QLabel())
            for col, c in enumerate(cells):
                c.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                self.pairs.addWidget(c, row, col)
            self.pair_labels[side] = cells
        self.pairs.setColumnStretch(3, 1)
        self.words_button = QPushButton("Words where both pairs occur")
        self.words_button.setToolTip("Go to the step where they part and list the words "
                                     "holding each pair there")
        self.words_button.clicked.connect(self.jump_to_words)
        self.pairs.addWidget(self.words_button, 0, 4, 2, 1,
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

        from .agreement_strip import AgreementStrip
        self.strip = AgreementStrip()
        self.strip.stepClicked.connect(self.go)
        sp = self.style().standardIcon
        px = QStyle.StandardPixmap
        self.first_btn = self._tool(sp(px.SP_MediaSkipBackward), "First step (Home)",
                                    lambda: self.go(1))
        self.prev_btn = self._tool(sp(px.SP_MediaSeekBackward), "Step back (←)",
                                   lambda: self.go(self.step - 1))
        self.next_btn = self._tool(sp(px.SP_MediaSeekForward), "Step forward (→)",
                                   lambda: self.go(self.step + 1))
        self.last_btn = self._tool(sp(px.SP_MediaSkipForward), "Last step (End)",
                                   lambda: self.go(self.n_steps))
        self.step_spin = QSpinBox(minimum=1, maximum=1)
        self.step_spin.setGroupSeparatorShown(True)
        self.step_spin.valueChanged.connect(self.go)
        self.of_label = QLabel()
        self.diff_btn = QPushButton("First difference")
        self.diff_btn.clicked.connect(self.go_first_difference)
        self.next_diff_btn = QPushButton("Next difference")
        self.next_diff_btn.setToolTip("The next step whose merge the other list never makes "
                                      "(else the next that differs) (F3)")
        self.next_diff_btn.clicked.connect(self.go_next_difference)
        self.at_step = _label()
        controls = QHBoxLayout()
        for w in (self.first_btn, self.prev_btn, QLabel("Step"), self.step_spin,
                  self.of_label, self.next_btn, self.last_btn):
            controls.addWidget(w)
        controls.addSpacing(12)
        controls.addWidget(self.diff_btn)
        controls.addWidget(self.next_diff_btn)
        controls.addStretch(1)

        self.steps_model = CheckStepsModel(self)
        self.steps_view = _table(self.steps_model)
        hh = self.steps_view.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setStretchLastSection(True)
        ch = self.fontMetrics().averageCharWidth()
        for col, chars in ((0, 7), (1, 22), (2, 22), (3, 9)):
            hh.resizeSection(col, chars * ch)
        self.steps_view.selectionModel().currentRowChanged.connect(
            lambda cur, _prev: self.go(cur.row() + 1) if cur.isValid() else None)

        self.bottom = QTabWidget()
        words = QWidget()
        wl = QHBoxLayout(words)
        wl.setContentsMargins(4, 4, 4, 4)
        self.words: dict[str, tuple[QLabel, PairWordsModel, QTableView]] = {}
        for side in ("yours", "reference"):
            box = QVBoxLayout()
            title = _label()
            model = PairWordsModel(self)
            view = _table(model)
            view.horizontalHeader().setStretchLastSection(True)
            view.horizontalHeader().setSectionResizeMode(
                0, QHeaderView.ResizeMode.ResizeToContents)
            title.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            box.addWidget(title)
            box.addWidget(view, 1)
            box.addStretch(0)
            wl.addLayout(box, 1)
            self.words[side] = (title, model, view)
        self.bottom.addTab(words, "Words where the pairs occur")
        self.causes = QTableWidget(0, 3)
        self.causes.setHorizontalHeaderLabels(("Cause", "What was tried", "Reproduces"))
        self.causes.verticalHeader().hide()
        self.causes.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.causes.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.bottom.addTab(self.causes, "Causes tried")
        self.notes = _label(rich=False)
        self.notes.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.bottom.addTab(self.notes, "Settings and notes")

        # The explanation scrolls in its own area and shares the height with the step
        # table and the word lists through a splitter, so the dialog fits a small screen
        # (800x600) and each part can be given room.
        info = QWidget()
        il = QVBoxLayout(info)
        il.setContentsMargins(0, 0, 0, 0)
        for w in (self.headline, self.warning, self.sentence, self.found):
            il.addWidget(w)
        il.addLayout(self.pairs)
        self.zero = _label(rich=False)   # why their pair occurs 0 times, when it does
        il.addWidget(self.zero)
        il.addStretch(1)
        self.info_scroll = scrolled(info)
        self.info_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.info_scroll.setMinimumHeight(self.fontMetrics().height() * 2)
        stepper = QWidget()
        sl = QVBoxLayout(stepper)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(self.strip)
        sl.addLayout(controls)
        sl.addWidget(self.at_step)
        sl.addWidget(self.steps_view, 1)
        for view in (self.steps_view, *(v for _, _, v in self.words.values()), self.causes):
            view.setMinimumHeight(view.verticalHeader().defaultSectionSize() * 2
                                  + view.horizontalHeader().sizeHint().height() + 4)

        self.split = split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.info_scroll)
        split.addWidget(stepper)
        split.addWidget(self.bottom)
        for i, stretch in enumerate((2, 3, 3)):
            split.setStretchFactor(i, stretch)
        split.setChildrenCollapsible(False)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(split, 1)
        for keys, slot in ((QKeySequence(Qt.Key.Key_Left), lambda: self.go(self.step - 1)),
                           (QKeySequence(Qt.Key.Key_Right), lambda: self.go(self.step + 1)),
                           (QKeySequence(Qt.Key.Key_Home), lambda: self.go(1)),
                           (QKeySequence(Qt.Key.Key_End), lambda: self.go(self.n_steps)),
                           (QKeySequence(Qt.Key.Key_F3), self.go_next_difference)):
            sc = QShortcut(keys, self)
            sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            sc.activated.connect(slot)
        follow_palette(self, self._restyle)

    def _tool(self, icon, tip: str, slot) -> QToolButton:
        b = QToolButton()
        b.setIcon(icon)
        b.setToolTip(tip)
        b.setAutoRaise(True)
        b.clicked.connect(slot)
        return b

    def _restyle(self) -> None:
        self.steps_model.set_palette(self.palette())
        if self.report is not None:
            self._show_headline(self.report)

    # ----- content ------------------------------------------------------------------------
    @property
    def n_steps(self) -> int:
        r = self.report
        return 0 if r is None else max(len(r.theirs), len(r.ours))

    def show_report(self, report: CheckReport | None) -> None:
        self.report = report
        self.steps_model.set_report(report)
        self.strip.set_statuses(report.statuses() if report is not None else [])
        n = self.n_steps
        for w in (self.first_btn, self.prev_btn, self.next_btn, self.last_btn, self.step_spin,
                  self.diff_btn, self.next_diff_btn, self.steps_view):
            w.setEnabled(n > 0)
        self.step_spin.blockSignals(True)
        self.step_spin.setMaximum(max(1, n))
        self.step_spin.blockSignals(False)
        self.of_label.setText(f"of {n:,}" if n else "")
        d = report.difference if report is not None else None
        self.words_button.setEnabled(d is not None and bool(d.their_words or d.our_words))
        if report is None:
            self.headline.setText("<b>Pick your result and press Check merges.</b>")
            self.sentence.setText("The reference is trained on the same corpus with the "
                                  "settings your files imply; the first merge where the two "
                                  "part is explained here.")
            self.found.setText("")
            self.warning.setText("")
            self.zero.setText("")
            for cells in self.pair_labels.values():
                for c in cells:
                    c.setText("")
            self.at_step.setText("")
            self._show_words()
            self.causes.setRowCount(0)
            self.notes.setText("")
            self.step = 0
            self._hide_empty()
            self._share_height()   # (the intro whole, not cut under its first line)
            return
        self._show_headline(report)
        self._hide_empty()
        self._show_words()
        self._show_causes(report)
        self.notes.setText("\n".join(["The reference's settings:"] +
                                     [f"  {rule_named(s)}" for s in report.settings_from] +
                                     ([""] + [f"Note: {n}" for n in report.notes]
                                      if report.notes else []) +
                                     ["", f"Checked in {report.seconds:.1f} s."]))
        self.step = 0
        self.go(d.step if d is not None else 1)
        self._share_height()

    def _hide_empty(self) -> None:
        """Lines with nothing to say take no room (empty, they pushed the intro's second
        line under the explanation's edge)."""
        cells = [c for row in self.pair_labels.values() for c in row]
        for label in (self.warning, self.found, self.zero, *cells):
            label.setVisible(bool(label.text()))
        d = self.report.difference if self.report is not None else None
        self.words_button.setVisible(d is not None)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._shared:   # the splitter has its height now: the intro gets its lines
            QTimer.singleShot(0, self._share_height)

    def _share_height(self) -> None:
        """The explanation gets the height it needs, up to 30% of the splitter (it
        scrolls beyond that); the step table and the word lists share the rest."""
        sizes = self.split.sizes()
        total = sum(sizes)
        if total <= 0 or not self.isVisible():
            return
        self._shared = True
        info = self.info_scroll.widget()
        if info is None:
            return
        need = info.heightForWidth(self.info_scroll.viewport().width()) \
            if info.hasHeightForWidth() else info.sizeHint().height()
        top = max(self.info_scroll.minimumHeight(), min(need + 4, int(total * 0.3)))
        rest = total - top
        steps = rest * 11 // 20   # (the word lists get more on "Words where both pairs occur")
        self.split.setSizes([top, steps, rest - steps])

    def _show_headline(self, r: CheckReport) -> None:
        c = colors(self)
        d = r.difference
        self.warning.setText(r.corpus_warning)
        self.warning.setStyleSheet(f"color: {c['error']}; font-weight: bold")
        self.warning.setVisible(bool(r.corpus_warning))
        if d is None:
            self.headline.setText(f"<span style='color:{c['ok']}; font-size:large'><b>All "
                                  f"{len(r.theirs):,} merges agree with the reference."
                                  "</b></span>")
            self.sentence.setText("Your trainer makes the reference's merges, in the same "
                                  "order, on this corpus.")
            self.found.setText("")
            self.zero.setVisible(False)
            for cells in self.pair_labels.values():
                for cell in cells:
                    cell.setText("")
            return
        then = "".join(f", then at merge {m.step:,} <b>{escape(m.cause_name)}</b>"
                       for m in r.more)
        self.headline.setText(f"<span style='color:{c['error']}; font-size:large'><b>Merge "
                              f"{d.step:,} differs</b></span> <span style='color:{c['muted']}'>"
                              f"({d.step - 1:,} agree before it)</span> — "
                              f"<b>{escape(d.cause_name)}</b>{then}")
        parts = [d.sentence] + [f"Merge {m.step:,}: {m.sentence}" for m in r.more] + \
            ([d.also] if d.also else [])
        self.sentence.setText("\n\n".join(parts))
        self.found.setText(f"<span style='color:{c['ok']}'><b>Settings found:</b> "
                           f"{escape(r.found.sentence)}</span>" if r.found else "")
        tie = f" (top count shared by {d.n_tied:,} pairs)" if d.n_tied > 1 else ""
        for side, pair, count, extra in (("yours", d.theirs, d.their_count, ""),
                                         ("reference", d.ours, d.our_count, tie)):
            name, shown, counted = self.pair_labels[side]
            name.setText(f"<b>{'Yours' if side == 'yours' else 'Reference'}</b> at step "
                         f"{d.step:,}:")
            shown.setText(f"<code>{escape(pair_text(pair)) or '(no merge)'}</code>")
            counted.setText(("not a pair of tokens there" if count is None and pair else
                             "" if count is None else f"count {count:,}") + extra)
        zero = d.zero_why if d.their_count == 0 else ""
        self.zero.setText(f"Why your pair's count is 0: {zero}" if zero else "")
        self.zero.setVisible(bool(zero))

    def _show_words(self) -> None:
        r = self.report
        d = r.difference if r is not None else None
        for side, (title, model, view) in self.words.items():
            pair = None if d is None else (d.theirs if side == "yours" else d.ours)
            words = () if d is None else (d.their_words if side == "yours" else d.our_words)
            model.set_words(words)
            # no word holds it: the reason takes the empty table's place
            view.setVisible(not (side == "yours" and d is not None and not words
                                 and d.zero_why))
            whose = "your" if side == "yours" else "the reference's"
            if d is None or pair is None:
                title.setText("")
                continue
            why = f" — {escape(d.zero_why)}" if side == "yours" and not words and d.zero_why \
                else ""
            title.setText(f"Words holding {whose} pair <code>{escape(pair_text(pair))}</code> "
                          f"at step {d.step:,} ({len(words):,}{'+' if len(words) >= 40 else ''})"
                          f"{':' if words else ''}{why}")

    def _show_causes(self, r: CheckReport) -> None:
        from ....engine.check import CAUSES
        self.causes.setRowCount(len(r.attempts))
        best = r.difference.explained_by if r.difference else ""
        for row, a in enumerate(r.attempts):
            got = f"{a.reach:,} of {len(r.theirs):,}" if a.reach is not None \
                else f"not tried: {a.why}"
            for col, text in enumerate((CAUSES.get(a.cause, a.cause), a.label, got)):
                item = QTableWidgetItem(text)
                if a.label == best:
                    f = item.font()
                    f.setBold(True)
                    item.setFont(f)
                self.causes.setItem(row, col, item)
        self.causes.resizeColumnToContents(0)
        self.causes.resizeColumnToContents(2)

    # ----- stepping -----------------------------------------------------------------------
    def go(self, step: int) -> None:
        n = self.n_steps
        if n == 0:
            return
        step = max(1, min(n, step))
        if step == self.step:
            return
        self.step = step
        self.strip.set_current(step)
        self.step_spin.blockSignals(True)
        self.step_spin.setValue(step)
        self.step_spin.blockSignals(False)
        row = self.steps_model.index(step - 1, 0)
        if self.steps_view.currentIndex().row() != step - 1:
            self.steps_view.setCurrentIndex(row)
        self.steps_view.scrollTo(row, QAbstractItemView.ScrollHint.PositionAtCenter)
        self._show_step(step)
        self.stepChanged.emit(step)

    def _show_step(self, step: int) -> None:
        r = self.report
        assert r is not None
        status = r.status(step)
        theirs = r.theirs[step - 1] if step <= len(r.theirs) else None
        ours = r.ours[step - 1] if step <= len(r.ours) else None
        c = colors(self)
        tint = c["ok"] if status == "same" else c["error"]

        def token(pair):
            return "—" if pair is None else f"<code>{escape(pair_text(pair))}</code> → " \
                f"<code>{escape(readable(pair[0] + pair[1]))}</code>"
        def elsewhere(step_of, whose: str) -> str:
            return f" ({whose} step {step_of:,})" if step_of else f" (never in {whose} list)"
        if status == "same":
            what = f"both merge {token(ours)}"
        else:
            what = (f"yours {token(theirs)}"
                    + (elsewhere(r.our_step_of(theirs), "the reference's") if theirs else "")
                    + f", the reference {token(ours)}"
                    + (elsewhere(r.their_step_of(ours), "your") if ours else ""))
        count = f"; count {r.our_counts[step - 1]:,}" if step <= len(r.our_counts) else ""
        self.at_step.setText(f"<span style='color:{tint}'>■</span> Step {step:,}: {what}{count}")

    def go_first_difference(self) -> None:
        r = self.report
        if r is not None and r.difference is not None:
            self.go(r.difference.step)

    def go_next_difference(self) -> None:
        r = self.report
        if r is None:
            return
        statuses = self.steps_model.statuses
        later = range(self.step + 1, len(statuses) + 1)
        nxt = next((k for k in later if statuses[k - 1] not in ("same", "moved")),
                   next((k for k in later if statuses[k - 1] != "same"), None))
        if nxt is not None:
            self.go(nxt)

    def jump_to_words(self) -> None:
        """To the step where they part, with the words holding each pair in front."""
        self.go_first_difference()
        self.bottom.setCurrentIndex(0)
        sizes = self.split.sizes()   # the word lists take the room the others can spare
        parts = [self.split.widget(i) for i in (0, 1)]
        keep = [max(w.minimumSizeHint().height(), w.minimumHeight()) if w is not None else 0
                for w in parts]
        keep[1] += self.steps_view.verticalHeader().defaultSectionSize()   # a row more
        keep = [min(k, s) for k, s in zip(keep, sizes)]
        self.split.setSizes([keep[0], keep[1], sum(sizes) - sum(keep)])
        view = self.words["yours"][2] if self.words["yours"][1].rowCount() else \
            self.words["reference"][2]
        view.setFocus()
        if view.model().rowCount():
            view.selectRow(0)
