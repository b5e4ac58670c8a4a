"""The encoding tab of Check my BPE: paste a text and the ids your encoder produced for it
(or load them from a file); both tokenizations shown as chips, the tokens of the words
where they part outlined, and the first such word played back merge by merge on both
sides -- the rule's steps and, when a usual mistake reproduces yours, your encoder's.
"""
from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QLabel, QListWidget, QPlainTextEdit,
                               QPushButton, QSplitter, QVBoxLayout, QWidget)

from ....engine.check import EncodeReport
from ....engine.display import readable
from ...models.glyphs import shown
from ...theme import colors, follow_palette
from ...widgets.last_folder import last_folder, remember
from ...models.encoding import PLAIN, SPECIAL
from ...widgets.token_flow import TokenFlow


def _text(t: bytes) -> str:
    return shown(readable(t))   # a character no font here draws: its escape


class EncodeCheckView(QWidget):
    checkRequested = Signal(str, str)    # text, ids

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.report: EncodeReport | None = None
        self._build()
        self.show_report(None)

    def _build(self) -> None:
        self.text_edit = QPlainTextEdit()
        self.text_edit.setPlaceholderText("The text your encoder encoded")
        self.ids_edit = QPlainTextEdit()
        self.ids_edit.setPlaceholderText("The ids it produced: 464, 1110, 318 … or a JSON list")
        for edit in (self.text_edit, self.ids_edit):
            edit.setMinimumHeight(edit.fontMetrics().lineSpacing() * 3)
        load = QPushButton("Load ids…", autoDefault=False)
        load.clicked.connect(self._load_ids)
        self.check_btn = QPushButton("Check ids")
        self.check_btn.setDefault(False)
        self.check_btn.clicked.connect(
            lambda: self.checkRequested.emit(self.text_edit.toPlainText(),
                                             self.ids_edit.toPlainText()))
        inputs = QHBoxLayout()
        left, right = QVBoxLayout(), QVBoxLayout()
        left.addWidget(QLabel("Text:"))
        left.addWidget(self.text_edit)
        right.addWidget(QLabel("Your encoder's ids:"))
        right.addWidget(self.ids_edit)
        row = QHBoxLayout()
        row.addWidget(load)
        row.addStretch(1)
        row.addWidget(self.check_btn)
        right.addLayout(row)
        inputs.addLayout(left, 3)
        inputs.addLayout(right, 2)
        top = QWidget()
        top.setLayout(inputs)

        self.sentence = QLabel()
        self.sentence.setWordWrap(True)
        self.sentence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.theirs_flow, self.ours_flow = TokenFlow(), TokenFlow()
        for flow in (self.theirs_flow, self.ours_flow):
            flow.setMinimumHeight(56)
            flow.setMaximumHeight(120)
        self.playback_rule, self.playback_theirs = QListWidget(), QListWidget()
        self.rule_title, self.theirs_title = QLabel(), QLabel()
        for lab in (self.rule_title, self.theirs_title):
            lab.setWordWrap(True)
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addWidget(self.sentence)
        bl.addWidget(QLabel("Your tokens (words that differ outlined):"))
        bl.addWidget(self.theirs_flow)
        bl.addWidget(QLabel("The tokenizer's tokens (your merges, applied by the rule):"))
        bl.addWidget(self.ours_flow)
        plays = QHBoxLayout()
        for title, lst in ((self.rule_title, self.playback_rule),
                           (self.theirs_title, self.playback_theirs)):
            box = QVBoxLayout()
            box.addWidget(title)
            box.addWidget(lst, 1)
            plays.addLayout(box, 1)
        bl.addLayout(plays, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setStretchFactor(1, 3)
        split.setSizes([140, 560])   # the inputs short, the findings tall (drag to change)
        split.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(split)
        follow_palette(self, self._restyle)

    def _restyle(self) -> None:
        c = QColor(colors(self)["error"])
        for flow in (self.theirs_flow, self.ours_flow):
            flow.set_mark_color(c)

    def _load_ids(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Your encoder's ids", last_folder(),
                                              "Ids (*.txt *.json);;All files (*)")
        if not path:
            return
        remember(path)
        try:
            self.ids_edit.setPlainText(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as e:
            self.sentence.setText(f"Cannot read {Path(path).name}: {e}")

    def set_busy(self, busy: bool) -> None:
        self.check_btn.setEnabled(not busy)

    def show_failure(self, message: str) -> None:
        self.sentence.setText(f"<span style='color:{colors(self)['error']}'>"
                              f"{escape(message)}</span>")

    def show_report(self, report: EncodeReport | None) -> None:
        self.report = report
        self.playback_rule.clear()
        self.playback_theirs.clear()
        self.rule_title.setText("")
        self.theirs_title.setText("")
        if report is None:
            self.sentence.setText("Paste a text and the ids your encoder gave it, then press "
                                  "Check ids (your result's merges are the tokenizer).")
            for flow in (self.theirs_flow, self.ours_flow):
                flow.set_tokens([], [], [])
            return
        c = colors(self)
        head = (f"<b style='color:{c['ok']}'>{escape(report.sentence)}</b>" if report.agree
                else f"<b style='color:{c['error']}'>{escape(report.cause_name.capitalize())}"
                f"</b>: {escape(report.sentence)}")
        self.sentence.setText(head)
        self._show_tokens(report)
        w = report.word
        if w is None:
            return
        shown = escape(readable(w.text.encode("utf-8", "surrogatepass")))
        if w.playback is not None:
            self.rule_title.setText(f"The rule on “{shown}”, lowest rank first:")
            self.playback_rule.addItem("start      " + " ".join(map(_text, w.playback.symbols)))
            for s in w.playback.steps:
                pair = " + ".join(map(_text, s.pair)) if s.pair else "rule"
                self.playback_rule.addItem(f"rank {s.rank}: {pair}  →  "
                                           + " ".join(map(_text, s.symbols)))
        if w.their_steps:
            self.theirs_title.setText(f"Your encoder on “{shown}” ({escape(w.their_rule)}):")
            start = w.playback.symbols if w.playback is not None else ()
            self.playback_theirs.addItem("start      " + " ".join(map(_text, start)))
            for st in w.their_steps:
                head = f"rank {st.rank}: " + " + ".join(map(_text, st.pair)) if st.pair \
                    else "longest match"
                self.playback_theirs.addItem(f"{head}  →  " + " ".join(map(_text, st.symbols)))
        else:
            self.theirs_title.setText(f"Your tokens for “{shown}”:")
            self.playback_theirs.addItem(" ".join(map(_text, w.theirs)))
        k = next((i for i in range(min(self.playback_rule.count(),
                                       self.playback_theirs.count()))
                  if self.playback_rule.item(i).text().split("→")[-1] !=
                  self.playback_theirs.item(i).text().split("→")[-1]), None)
        if k is not None:
            for lst in (self.playback_rule, self.playback_theirs):
                lst.item(k).setForeground(QColor(c["error"]))
                lst.setCurrentRow(k)

    def _show_tokens(self, r: EncodeReport) -> None:
        def inside(start: int, end: int) -> bool:
            return any(s < end and start < e for s, e in r.marks)
        for flow, toks in ((self.theirs_flow, r.theirs), (self.ours_flow, r.ours)):
            marks = [inside(t.start, t.end) for t in toks]
            flow.set_tokens([t.token for t in toks], [t.id for t in toks],
                            [SPECIAL if t.special else PLAIN for t in toks], text_of=_text,
                            text_key="check", marks=marks)
            first = next((k for k, m in enumerate(marks) if m), None)
            if first is not None:
                flow.ensure_visible(first)
