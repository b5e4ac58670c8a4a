"""Check my BPE: your own trainer's output held against the reference, in the window.

Pick your result (GPT-2 vocab.json + merges.txt, a tokenizer.json, a .tiktoken or the
CS336 pickle of (vocab, merges), read without running code) and the corpus it was
trained on (the one in the window, or a file); the settings your files do not record
can be given. **Check merges** runs on the controller's job runner (progress and Cancel
in the status bar) and the merges tab shows the first difference explained; the
encoding tab checks your encoder's ids on a text.
"""
from __future__ import annotations

from html import escape
from pathlib import Path

from typing import Protocol

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtWidgets import (QButtonGroup, QComboBox, QFileDialog, QFormLayout,
                               QHBoxLayout, QLabel, QLineEdit, QPushButton, QRadioButton,
                               QSpinBox, QSplitter, QToolButton, QTabWidget, QVBoxLayout,
                               QWidget)

from ....engine.check import EncodeReport
from ....engine.text import PRESET_LABELS, PRESETS
from ....engine.train import TIE_RULE_LABELS
from ...controller.checking import CheckOptions, MergeCheck
from ...controller.jobs import Done, Ended
from ...models.settings_changes import LINES_HELP, LINES_LABEL, rule_label
from ...theme import colors
from ...widgets.flow_layout import FlowBar
from ...widgets.last_folder import last_folder, remember
from ...widgets.scrolled import scrolled
from .encode_view import EncodeCheckView
from .merges_view import MergesView

RESULT_FILTER = ("Your trainer's output (*.pkl *.pickle *.json *.txt *.tiktoken *.bpe);;"
                 "CS336 pickle of (vocab, merges) (*.pkl *.pickle);;"
                 "GPT-2 vocab.json / merges.txt (*.json *.txt);;"
                 "Hugging Face tokenizer.json (*.json);;tiktoken ranks (*.tiktoken);;"
                 "All files (*)")
SHORT_DIALOG = 650   # a dialog shorter than this: findings fold the inputs away
CORPUS_FILTER = "Text (*.txt *.md *.jsonl *.xz *.gz);;All files (*)"


def parse_specials(text: str) -> tuple[str, ...] | None:
    """The special tokens typed (separated by commas or spaces); None when the box is
    empty (the files' own). Example: '<|endoftext|>, <pad>' -> ('<|endoftext|>', '<pad>')."""
    parts = [p for chunk in text.split(",") for p in chunk.split()]
    return tuple(dict.fromkeys(parts)) if parts else None


class CheckHost(Protocol):
    """What Check my BPE reads of the controller."""

    busyChanged: SignalInstance
    corpusChanged: SignalInstance

    @property
    def busy(self) -> bool: ...
    @property
    def checking(self) -> _Checks: ...


class _Checks(Protocol):
    def window_corpus(self) -> tuple[str | list[Path] | None, str]: ...
    def check_merges(self, result_path: str, corpus_path: str | None, options: CheckOptions,
                     on_done: Done, on_end: Ended) -> bool: ...
    def check_ids(self, result_path: str, text: str, ids_text: str, options: CheckOptions,
                  on_done: Done, on_end: Ended) -> bool: ...


class CheckPanel(QWidget):
    def __init__(self, controller: CheckHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.check: MergeCheck | None = None
        self._running = False
        self._build()
        controller.busyChanged.connect(lambda _: self._update())
        controller.corpusChanged.connect(self._update_corpus_label)
        self._update_corpus_label()
        self._update()

    # ----- layout -------------------------------------------------------------------------
    def _build(self) -> None:
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.result_edit = QLineEdit()
        self.result_edit.setPlaceholderText("vocab.json + merges.txt, tokenizer.json, a .tiktoken, "
                                            "or a pickle of (vocab, merges)")
        self.result_edit.textChanged.connect(lambda _: self._update())
        browse = QPushButton("Browse…", autoDefault=False)   # Enter: Check merges
        browse.clicked.connect(self._pick_result)
        folder = QPushButton("Folder…", autoDefault=False)
        folder.setToolTip("A folder holding vocab.json + merges.txt (or one tokenizer file)")
        folder.clicked.connect(self._pick_folder)
        row = QHBoxLayout()
        row.addWidget(self.result_edit, 1)
        row.addWidget(browse)
        row.addWidget(folder)
        form.addRow("Your result:", row)

        self.use_window = QRadioButton()
        self.use_file = QRadioButton("A file:")
        group = QButtonGroup(self)
        group.addButton(self.use_window)
        group.addButton(self.use_file)
        self.use_window.setChecked(True)
        self.corpus_edit = QLineEdit()
        self.corpus_edit.setPlaceholderText("the text your trainer was trained on")
        self.corpus_edit.textEdited.connect(lambda _: self.use_file.setChecked(True))
        pick_corpus = QPushButton("Browse…", autoDefault=False)
        pick_corpus.clicked.connect(self._pick_corpus)
        row = QHBoxLayout()
        row.addWidget(self.use_window)
        row.addSpacing(10)
        row.addWidget(self.use_file)
        row.addWidget(self.corpus_edit, 1)
        row.addWidget(pick_corpus)
        form.addRow("Corpus:", row)

        self.specials_edit = QLineEdit()
        self.specials_edit.setPlaceholderText("from your files")
        self.specials_edit.setToolTip("Special tokens, separated by commas or spaces (empty: "
                                      "those your files list)")
        self.pattern_box = QComboBox()
        self.pattern_box.addItem("From your files (else GPT-2)", None)
        for name in PRESETS:
            self.pattern_box.addItem(PRESET_LABELS.get(name, name), name)
        self.pattern_box.addItem("None (no pre-tokenization)", "none")
        self.pattern_box.setItemData(self.pattern_box.count() - 1,
                                     "The text between special tokens counted as one "
                                     "sequence: pairs across words count too",
                                     Qt.ItemDataRole.ToolTipRole)
        # each box first takes what the result's file records (a bpe-gui export records
        # its mode, tie rule and lines; the others record none): a value given here wins
        self.tie_box = QComboBox()
        self.tie_box.addItem(f"From your files (else {rule_label('greatest')})", None)
        for key, text in TIE_RULE_LABELS.items():
            self.tie_box.addItem(text, key)
        self.size_spin = QSpinBox(minimum=0, maximum=10_000_000)
        self.size_spin.setGroupSeparatorShown(True)
        self.size_spin.setSpecialValueText("as many merges as yours")
        self.size_spin.setToolTip("The vocabulary size you asked your trainer for (256 bytes + "
                                  "special tokens + merges); 0: as many merges as yours")
        self.mode_box = QComboBox()
        self.mode_box.addItem("From your files (else byte-level)", None)
        self.mode_box.addItem("byte-level", "byte")
        self.mode_box.addItem("character-level (</w>)", "char")
        # as training reads the corpus (its check box of the same words): the reference
        # must count words as the learner's trainer did, or a word spanning a line break
        # shows as a difference that is not one
        self.lines_box = QComboBox()
        self.lines_box.addItem("As your file records (else whole files)", None)
        self.lines_box.addItem("Whole files (a word may span lines)", False)
        self.lines_box.addItem(LINES_LABEL, True)
        self.lines_box.setToolTip(f"{LINES_LABEL}: {LINES_HELP} Pick it for a result of "
                                  "Hugging Face's trainer (with its tie rule, "
                                  f"“{rule_label('lowest-ids-hf')}”).")
        self.specials_edit.setMinimumWidth(self.fontMetrics().averageCharWidth() * 18)
        bar = FlowBar()
        for label, w in (("Special tokens", self.specials_edit), ("Pattern", self.pattern_box),
                         ("Ties", self.tie_box), ("Vocab size", self.size_spin),
                         ("Mode", self.mode_box), ("Lines", self.lines_box)):
            pair = QWidget()
            pl = QHBoxLayout(pair)
            pl.setContentsMargins(0, 0, 8, 0)
            pl.addWidget(QLabel(label))
            pl.addWidget(w)
            bar.addWidget(pair)
        form.addRow("Settings:", bar)

        self.check_btn = QPushButton("Check merges")   # the dialog's default (check_dialog)
        self.check_btn.clicked.connect(self.run_check)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        # a short dialog with findings: the inputs fold away whole behind this button
        # rather than shrink to a scroll area of one row
        self.inputs_btn = QToolButton()
        self.inputs_btn.setText("Inputs")
        self.inputs_btn.setCheckable(True)
        self.inputs_btn.setChecked(True)
        self.inputs_btn.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.inputs_btn.setToolTip("Show or hide your result, the corpus and the settings "
                                   "(hidden on a short screen while findings are shown)")
        self.inputs_btn.toggled.connect(self._show_inputs)
        self.inputs_btn.hide()
        row = QHBoxLayout()
        row.addWidget(self.inputs_btn)
        row.addWidget(self.check_btn)
        row.addWidget(self.status, 1)

        self.merges = MergesView()
        self.encode = EncodeCheckView()
        self.encode.checkRequested.connect(self.run_ids)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.merges, "Merges")
        # (its boxes need more height than a small screen has)
        self.tabs.addTab(scrolled(self.encode), "Encoding")

        # The settings scroll in their own area above a splitter: on a short screen a
        # check's findings take the height (the form keeps its first row, the handle or
        # the scroll bar brings the rest back).
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addLayout(form)
        tl.addStretch(1)
        self.form_scroll = scrolled(top)
        self.form_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.form_scroll.setMinimumHeight(self.result_edit.sizeHint().height() + 8)
        lower = QWidget()
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addLayout(row)
        ll.addWidget(self.tabs, 1)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.addWidget(self.form_scroll)
        self.split.addWidget(lower)
        self.split.setStretchFactor(0, 0)
        self.split.setStretchFactor(1, 1)
        self.split.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 8)
        lay.addWidget(self.split, 1)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._fit_form()

    def _fit_form(self, findings: bool = False) -> None:
        """The form at its full height where there is room. With findings on a short
        dialog (under 650 px) it folds away behind the Inputs button, and comes back
        whole when that is pressed."""
        if findings and self.height() < SHORT_DIALOG:
            self.inputs_btn.show()
            self.inputs_btn.setChecked(False)
            return
        self._show_inputs(True)

    def _show_inputs(self, on: bool) -> None:
        """The form whole (its full height from the splitter) or hidden."""
        if self.inputs_btn.isChecked() != on:
            self.inputs_btn.setChecked(on)   # (comes back here)
            return
        self.inputs_btn.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.form_scroll.setVisible(on)
        form, lower = self.form_scroll.widget(), self.split.widget(1)
        if not on or form is None or lower is None:
            return
        total = sum(self.split.sizes())
        full = form.sizeHint().height() + 2
        room = total - full
        want = self.form_scroll.minimumHeight() if room < lower.minimumSizeHint().height() \
            and not self.inputs_btn.isVisible() else full
        self.split.setSizes([want, max(0, total - want)])

    # ----- picking files ------------------------------------------------------------------
    def _pick_result(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Your trainer's output", last_folder(),
                                              RESULT_FILTER)
        if path:
            remember(path)
            self.result_edit.setText(path)

    def _pick_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Folder of your trainer's output",
                                                last_folder())
        if path:
            remember(path)
            self.result_edit.setText(path)

    def _pick_corpus(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "The corpus your trainer was trained on",
                                              last_folder(), CORPUS_FILTER)
        if path:
            remember(path)
            self.corpus_edit.setText(path)
            self.use_file.setChecked(True)

    def _update_corpus_label(self) -> None:
        source, name = self.controller.checking.window_corpus()
        if source is None:
            self.use_window.setText("The corpus in the window (not usable)")
            self.use_window.setToolTip(name)
        else:
            self.use_window.setText(f"The corpus in the window ({name})")
            self.use_window.setToolTip("The text in the corpus editor, or the files it streams")

    def _update(self) -> None:
        busy = self.controller.busy
        self.check_btn.setEnabled(not busy and bool(self.result_edit.text().strip()))
        self.encode.set_busy(busy or not self.result_edit.text().strip())

    # ----- running ------------------------------------------------------------------------
    def options(self) -> CheckOptions:
        size = self.size_spin.value()
        return CheckOptions(special_tokens=parse_specials(self.specials_edit.text()),
                            pattern=self.pattern_box.currentData(),
                            tie_rule=self.tie_box.currentData(),
                            vocab_size=size or None, mode=self.mode_box.currentData(),
                            lines=self.lines_box.currentData())

    def set_result(self, path: str, corpus: str | None = None) -> None:
        """Fill in a result (and a corpus file; None: the corpus in the window)."""
        self.result_edit.setText(path)
        if corpus is None:
            self.use_window.setChecked(True)
        else:
            self.corpus_edit.setText(corpus)
            self.use_file.setChecked(True)

    def run_check(self) -> bool:
        path = self.result_edit.text().strip()
        corpus = self.corpus_edit.text().strip() if self.use_file.isChecked() else None
        if self.use_file.isChecked() and not corpus:
            self._say("Pick the corpus file, or use the corpus in the window.", error=True)
            return False
        self._say("Checking… (the status bar shows the progress; Esc cancels)")
        self._running = True
        return self.controller.checking.check_merges(path, corpus, self.options(),
                                                     self._merges_done, self._ended)

    def _merges_done(self, check: object) -> None:
        assert isinstance(check, MergeCheck)   # (the job's typed result)
        self.check = check
        r = check.report
        self._fit_form(findings=True)
        self.merges.show_report(r)
        self.tabs.setCurrentWidget(self.merges)
        d = r.difference   # (None: they agree)
        what = "all merges agree" if d is None else f"merge {d.step:,} differs"
        self._say(f"{escape(Path(r.path).name)} ({r.format}, {len(r.theirs):,} merges) against "
                  f"{escape(check.corpus_name)}: {what}.")

    def _ended(self, end) -> None:
        self._running = False
        if end.outcome.value == "failed":
            self._say(end.message, error=True)
        elif end.outcome.value in ("cancelled", "dropped"):
            self._say("Check cancelled.")

    def run_ids(self, text: str, ids: str) -> bool:
        def ended(end) -> None:
            if end.outcome.value == "failed":
                self.encode.show_failure(end.message)
        def done(report: object) -> None:
            assert report is None or isinstance(report, EncodeReport)   # (the job's result)
            self.encode.show_report(report)
        return self.controller.checking.check_ids(self.result_edit.text().strip(), text, ids,
                                                  self.options(), done, ended)

    def _say(self, text: str, error: bool = False) -> None:
        if error:
            text = f"<span style='color:{colors(self)['error']}'>{escape(text)}</span>"
        self.status.setText(text)
