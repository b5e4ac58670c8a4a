"""The settings panel's parity-aware training: several corpus files, each a language (its
name editable, by default from the file name), each with a dev file (the same text in
every language) or a target ratio; the variant (base or window) and its parameters.

The box edits a :class:`~bpe_gui.gui.controller.parity_setup.ParitySetup`; the panel
applies it with the other settings (``controller.set_parity``). Parity training is
Hugging Face's algorithm: byte level, GPT-2's pattern, HF's tie rule, no special tokens,
whatever the fields above say; the target (merges, or vocabulary size less 256) is the
panel's.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QButtonGroup, QCheckBox, QDoubleSpinBox,
                               QFileDialog, QFormLayout, QGroupBox, QHBoxLayout, QHeaderView,
                               QLabel, QPushButton, QRadioButton, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from ...controller.parity_setup import (DEV, RATIO, Language, ParitySetup, dev_beside,
                                        language_name)
from ...models.settings_changes import LINES_LABEL
from ...widgets.elided_combo import ElidedComboBox
from ...widgets.flow_layout import FlowBar
from ...widgets.last_folder import last_folder, remember
from ...widgets.number_box import NumberBox
from ...widgets.text_pane import TextPane
from ...widgets.wrapped_choice import WrappedChoice

NAME, TRAIN, DEVFILE, RATIO_COL = range(4)
VARIANT_LABELS = {
    "base": "base: the worst-compressed language picks each merge",
    "window": "window: the same, but no language takes more than share/n of the last "
              "window of turns",
}
FILES = "Text (*.txt *.md *.jsonl *.gz *.xz);;All files (*)"


class ParityBox(QGroupBox):
    """Languages table, balance, variant and parameters; ``changed`` on every edit."""

    changed = Signal()

    def __init__(self, max_number: int, parent=None):
        super().__init__("Parity-aware training: several languages", parent)
        self._syncing = False
        self.check = QCheckBox("Train one vocabulary for several languages, each merge for "
                               "the language compressed worst")
        self.check.setToolTip("Parity-aware BPE (Foroutan et al. 2025), as Hugging Face "
                              "tokenizers' ParityBpeTrainer: one training file per language; "
                              "a dev file per language (the same sentences in each) measures "
                              "how well each language is compressed.")
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Language", "Training file", "Dev file", "Ratio"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        head.setStretchLastSection(False)
        head.setSectionResizeMode(TRAIN, QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(DEVFILE, QHeaderView.ResizeMode.Stretch)
        head.setMinimumSectionSize(30)
        self.table.setColumnWidth(NAME, 70)
        self.table.setColumnWidth(RATIO_COL, 48)
        rows = self.fontMetrics().lineSpacing() + 8
        self.table.setMinimumHeight(rows * 3 + 8)
        self.table.setMaximumHeight(rows * 6 + 8)
        self.table.setToolTip("Double-click a name or a ratio to edit it; Dev file… picks "
                              "the selected language's dev file")
        self.add_btn = QPushButton("Add languages…")
        self.add_btn.setToolTip("Pick training files, one per language (a dev file beside "
                                "each, such as en.dev.txt for en.train.txt, is taken too)")
        self.dev_btn = QPushButton("Dev file…")
        self.dev_btn.setToolTip("The selected language's dev file: the same text as the "
                                "other languages' dev files")
        self.remove_btn = QPushButton("Remove")
        self.remove_btn.setToolTip("Remove the selected language")
        self.dev_radio = QRadioButton("Balance on dev files")
        self.dev_radio.setToolTip("Each step serves the language with the most tokens on "
                                  "its dev file (parallel text: the one compressed worst)")
        self.ratio_radio = QRadioButton("on target ratios")
        self.ratio_radio.setToolTip("Each step serves the language whose compression "
                                    "(bytes at the start / tokens now) over its ratio is "
                                    "lowest; no dev files needed")
        self.balance = QButtonGroup(self)
        self.balance.addButton(self.dev_radio)
        self.balance.addButton(self.ratio_radio)
        self.dev_radio.setChecked(True)
        self.variant = ElidedComboBox(items=VARIANT_LABELS.items())
        self.variant.setMinimumContentsLength(8)
        self.global_spin = NumberBox(maximum=max_number, value=0)
        self.global_spin.setToolTip("Plain BPE merges on all languages together before "
                                    "parity's turns begin")
        self.window_spin = NumberBox(minimum=1, maximum=max_number, value=100)
        self.window_spin.setToolTip("Window variant: the last this many turns are counted")
        self.alpha_spin = QDoubleSpinBox(decimals=2, minimum=0.01, maximum=1000.0,
                                         singleStep=0.5, value=2.0)
        self.alpha_spin.setToolTip("Window variant: a language may take at most share / "
                                   "(number of languages) of the window's turns "
                                   "(train --window-share; alpha in the paper)")
        for w in (self.global_spin, self.window_spin, self.alpha_spin):
            w.setMinimumWidth(60)
        self.lines_check = QCheckBox(LINES_LABEL)
        self.lines_check.setChecked(True)
        self.hint = TextPane(lines=3)
        self.error = QLabel(wordWrap=True)
        self.error.setObjectName("inlineError")
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setVisible(False)

        outer = QVBoxLayout(self)
        outer.addWidget(WrappedChoice(self.check))
        self.body = QWidget()   # shown while the box is on: off, the box is one line
        lay = QVBoxLayout(self.body)
        lay.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.body)
        lay.addWidget(self.table)
        buttons = FlowBar(spacing=6)   # wraps in a narrow dock
        for b in (self.add_btn, self.dev_btn, self.remove_btn):
            b.setMinimumWidth(b.fontMetrics().horizontalAdvance(b.text()) + 16)
            buttons.addWidget(b)
        lay.addWidget(buttons)
        bal = QHBoxLayout()
        bal.addWidget(WrappedChoice(self.dev_radio))
        bal.addWidget(WrappedChoice(self.ratio_radio))
        lay.addLayout(bal)
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow(QLabel("Variant"), self.variant)
        form.addRow(QLabel("Global merges", wordWrap=True), self.global_spin)
        form.addRow(QLabel("Window size", wordWrap=True), self.window_spin)
        form.addRow(QLabel("Window share"), self.alpha_spin)
        lay.addLayout(form)
        lay.addWidget(WrappedChoice(self.lines_check))
        lay.addWidget(self.hint)
        outer.addWidget(self.error)

        self.add_btn.clicked.connect(self._ask_languages)
        self.dev_btn.clicked.connect(self._ask_dev)
        self.remove_btn.clicked.connect(self.remove_selected)
        self.table.itemChanged.connect(self._emit)
        self.table.itemSelectionChanged.connect(self._enable)
        for sig in (self.check.toggled, self.balance.buttonToggled,
                    self.variant.currentIndexChanged, self.global_spin.numberChanged,
                    self.window_spin.numberChanged, self.alpha_spin.valueChanged,
                    self.lines_check.toggled):
            sig.connect(self._emit)
        self._enable()

    # ----- state ---------------------------------------------------------------------------
    def _emit(self, *_) -> None:
        self._enable()
        if not self._syncing:
            self.changed.emit()

    def _enable(self) -> None:
        on = self.check.isChecked()
        self.body.setVisible(on)
        for w in (self.table, self.add_btn, self.dev_radio, self.ratio_radio, self.variant,
                  self.global_spin, self.lines_check):
            w.setEnabled(on)
        window = on and self.variant.currentData() == "window"
        self.window_spin.setEnabled(window)
        self.alpha_spin.setEnabled(window)
        row = self.table.currentRow() if self.table.selectionModel().hasSelection() else -1
        self.dev_btn.setEnabled(on and row >= 0 and self.dev_radio.isChecked())
        self.remove_btn.setEnabled(on and row >= 0)
        self.table.setColumnHidden(RATIO_COL, not self.ratio_radio.isChecked())
        self.table.setColumnHidden(DEVFILE, self.ratio_radio.isChecked())
        self.hint.setText("Hugging Face's ParityBpeTrainer: byte level, GPT-2's pattern, its "
                          "tie rule (the fields it does not read are greyed). The corpus "
                          "panel is not used while this is on."
                          if on else "Off: the corpus trains as one.")

    def value(self) -> ParitySetup:
        """The setup the fields hold."""
        langs = []
        for r in range(self.table.rowCount()):
            name = self._item(r, NAME).text()
            train = self._item(r, TRAIN).data(Qt.ItemDataRole.UserRole) or ""
            dev = self._item(r, DEVFILE).data(Qt.ItemDataRole.UserRole) or ""
            try:
                ratio = float(self._item(r, RATIO_COL).text().replace(",", "."))
            except ValueError:
                ratio = float("nan")
            langs.append(Language(name, train, dev, ratio))
        return ParitySetup(
            enabled=self.check.isChecked(), languages=tuple(langs),
            balance=RATIO if self.ratio_radio.isChecked() else DEV,
            variant=self.variant.currentData(),
            global_merges=self.global_spin.number() or 0,
            window_size=self.window_spin.number() or 1,
            alpha=float(self.alpha_spin.value()), lines=self.lines_check.isChecked())

    def set_value(self, setup: ParitySetup) -> None:
        """Show a setup (from the controller: a session, Revert)."""
        self._syncing = True
        try:
            self.check.setChecked(setup.enabled)
            self.table.setRowCount(0)
            for lang in setup.languages:
                self._add_row(lang)
            (self.ratio_radio if setup.balance == RATIO else self.dev_radio).setChecked(True)
            self.variant.setCurrentIndex(max(0, self.variant.findData(setup.variant)))
            self.global_spin.setValue(setup.global_merges)
            self.window_spin.setValue(setup.window_size)
            self.alpha_spin.setValue(setup.alpha)
            self.lines_check.setChecked(setup.lines)
        finally:
            self._syncing = False
        self._enable()

    def _item(self, r: int, c: int) -> QTableWidgetItem:
        item = self.table.item(r, c)
        if item is None:
            item = QTableWidgetItem("")
            self.table.setItem(r, c, item)
        return item

    def _file_item(self, path: str) -> QTableWidgetItem:
        item = QTableWidgetItem(Path(path).name if path else "(none)")
        item.setData(Qt.ItemDataRole.UserRole, path)
        item.setToolTip(path or "No file yet")
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
        return item

    def _add_row(self, lang: Language) -> None:
        r = self.table.rowCount()
        self.table.insertRow(r)
        name = QTableWidgetItem(lang.name)
        name.setToolTip("The language's name: double-click to edit")
        self.table.setItem(r, NAME, name)
        self.table.setItem(r, TRAIN, self._file_item(lang.train))
        self.table.setItem(r, DEVFILE, self._file_item(lang.dev))
        self.table.setItem(r, RATIO_COL, QTableWidgetItem(f"{lang.ratio:g}"))

    # ----- editing -------------------------------------------------------------------------
    def add_languages(self, paths: list[str]) -> None:
        """One language per training file, named from the file, with a dev file beside
        it when one is found (en.train.txt -> en.dev.txt)."""
        self._syncing = True
        try:
            for p in paths:
                self._add_row(Language(language_name(p), p, dev_beside(p) or ""))
        finally:
            self._syncing = False
        if paths:
            self.check.setChecked(True)
        self._emit()

    def set_dev(self, row: int, path: str) -> None:
        self.table.setItem(row, DEVFILE, self._file_item(path))

    def set_name(self, row: int, name: str) -> None:
        self._item(row, NAME).setText(name)

    def remove_selected(self) -> None:
        r = self.table.currentRow()
        if r >= 0:
            self.table.removeRow(r)
            self._emit()

    def _ask_languages(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Training files, one per language",
                                                last_folder(), FILES)
        if paths:
            remember(paths[0])
            self.add_languages(paths)

    def _ask_dev(self) -> None:
        r = self.table.currentRow()
        if r < 0:
            return
        name = self._item(r, NAME).text()
        path, _ = QFileDialog.getOpenFileName(self, f"Dev file of {name}", last_folder(), FILES)
        if path:
            remember(path)
            self.set_dev(r, path)

    def same(self, a: ParitySetup, b: ParitySetup) -> bool:
        return replace(a, problems=()) == replace(b, problems=())
