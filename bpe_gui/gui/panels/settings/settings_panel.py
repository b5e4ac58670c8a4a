"""Training settings: mode, target, min frequency, special tokens, pre-tokenizer (and one
text per line), tie rule.

Every field is checked as the user types; problems show inline, next to the field,
and Apply stays disabled until they are fixed. Nothing typed is ever reset by an
error. Apply hands a :class:`TrainSettings` to ``controller.set_settings``; the
panel follows ``settingsChanged`` (samples, sessions) back into its fields.
"""
from __future__ import annotations

from typing import Any, Callable, Protocol

from PySide6.QtCore import Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (QButtonGroup, QCheckBox, QComboBox, QFormLayout, QGridLayout,
                               QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit,
                               QPushButton, QRadioButton, QScrollArea, QVBoxLayout, QWidget)

from ....engine.errors import BPEError
from ....engine.text import PRESET_LABELS, PRESETS
from ....engine.text import (
    compile_pattern, lines_of, refuse_bare_name, resolve_pattern, special_splitter,
    unmatched_sentence, validate_special_tokens)
from ....engine.train import SPECIAL_TEXT_LABELS, TIE_RULE_LABELS, TrainSettings
from ...controller.parity_setup import ParitySetup
from ...controller.restoring import Restoring
from ...models.glyphs import shown
from ...models.settings_changes import LINES_HELP, LINES_LABEL, describe_changes, rule_label
from ...theme import colors, follow_palette
from ...widgets.number_box import INT_MAX, NumberBox
from ...widgets.elided_combo import ElidedComboBox
from ...widgets.group_titles import fit_titles
from ...widgets.wrapped_choice import WrappedChoice
from .inherited_fields import InheritedFields
from .mode_fields import FieldsHost, ModeFields
from .parity_box import ParityBox
from .superbpe_box import SuperBPEBox, transition_problem

CUSTOM = "custom"
PREVIEW_TIMEOUT_S = 0.25
PREVIEW_CHARS = 160
PREVIEW_FALLBACK = "Hello world's 42 tokens! 你好，世界。"
MAX_SPIN = INT_MAX   # what the arrows reach; typed numbers are checked by the rules

TIE_RULE_HELP = {
    "greatest": "When pairs share the top count, the pair whose bytes compare greatest wins "
                "(first token, then second): (s, t) beats (e, s). The default of reference "
                "byte-level trainers such as the CS336 assignment.",
    "first-seen": "When pairs share the top count, the pair that occurs first in the corpus "
                  "wins (words in order of first appearance), which is what "
                  "max(counts, key=counts.get) does in many tutorials.",
    "lowest-ids": "When pairs share the top count, the pair with the lowest token ids wins "
                  "(first id, then second), the bytes numbered by their value.",
    "lowest-ids-hf": "When pairs share the top count, the pair with the lowest ids wins, "
                     "numbered as Hugging Face tokenizers number them: the printable bytes "
                     "(! to ~, ¡ to ¬, ® to ÿ) first, then the others, then new tokens in the "
                     "order made. With “One text per line” (Pre-tokenizer), byte-level and "
                     "GPT-2's pattern, training gives exactly tokenizers' BpeTrainer merges.",
}


def visible(word: str) -> str:
    return word.replace(" ", "·").replace("\n", "↵").replace("\t", "→")


class SettingsHost(FieldsHost, Protocol):
    """What the panel reads of the controller and does through it (its fields' too)."""

    parityChanged: SignalInstance
    corpusChanged: SignalInstance
    busyChanged: SignalInstance
    message: SignalInstance
    parity: ParitySetup

    @property
    def corpus_text(self) -> str: ...
    @property
    def opening(self) -> _Restores: ...
    @property
    def queries(self) -> _Alphabet: ...
    @property
    def training(self) -> _Commands: ...
    def apply(self, settings: TrainSettings, parity: ParitySetup) -> bool: ...


class _Restores(Protocol):
    restoring: Restoring | None


class _Alphabet(Protocol):
    def char_alphabet_size(self) -> int | None: ...


class _Commands(Protocol):
    def command(self) -> tuple[str, str]: ...


class SettingsPanel(QWidget):
    """Fields for every TrainSettings option, with inline errors and Apply/Revert."""

    applied = Signal(object)   # TrainSettings, after the controller accepted them
    pendingChanged = Signal(bool, list)   # fields differ from the settings in use; what differs

    def __init__(self, controller: SettingsHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self._syncing = False
        self.errors: dict[str, str] = {}
        self._pending: tuple | None = None
        self._build()
        self.inherited = InheritedFields(self, controller)   # the notice while training on
        self.modes = ModeFields(self, controller)   # greyed: what the mode does not use
        self._check_timer = QTimer(self, singleShot=True, interval=120)
        self._check_timer.timeout.connect(self.check)
        controller.settingsChanged.connect(self.set_settings)
        controller.parityChanged.connect(self._parity_changed)
        controller.corpusChanged.connect(self._schedule_check)
        controller.busyChanged.connect(self._on_busy)
        self._showing_restore = False
        self.set_settings(controller.settings)

    def _on_busy(self, busy: bool) -> None:
        """While a session's corpus is read, its settings (applied once it is read) are
        shown, not to be edited: the fields showed the defaults meanwhile, then jumped."""
        r = getattr(self.controller.opening, "restoring", None)
        if busy and r is not None and r.session.settings != self.controller.settings:
            self._showing_restore = True
            self.set_settings(r.session.settings, check=False)
            self.setEnabled(False)
        elif not busy and self._showing_restore:
            self._showing_restore = False
            self.setEnabled(True)
            self.set_settings(self.controller.settings)

    # ----- layout ---------------------------------------------------------------------
    def _build(self) -> None:
        """The groups of fields, top to bottom, in a panel that scrolls; each built by a
        method of its own below."""
        lay = self._scrolling_body()
        self.superbpe = SuperBPEBox(MAX_SPIN)
        self.parity = ParityBox(MAX_SPIN)
        self.parity.check.toggled.connect(lambda _on: self.check())   # greyed at once
        # Tie rule first: it decides which pair wins, and tutorials disagree about it.
        for box in (self._tie_box(), self._mode_box(), self._target_box(), self.superbpe,
                    self.parity, self._pre_box(), self._specials_box()):
            lay.addWidget(box)
        self._state_and_buttons(lay)
        lay.addStretch(1)
        self._follow_fields()
        follow_palette(self, self._restyle)

    def _scrolling_body(self) -> QVBoxLayout:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea(widgetResizable=True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        # Fields shrink to the dock's width (labels wrap) instead of scrolling sideways; a
        # dock narrower than the narrowest fields scrolls (they were cut off, Apply with
        # them, at 800x600)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        # A scroll bar that comes and goes as an inline error shows or hides changes the
        # width, re-wraps every label, and moves the field under the pointer: keep it.
        scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        outer.addWidget(scroll)
        self.scroll_area = scroll
        body = QWidget()
        scroll.setWidget(body)
        lay = QVBoxLayout(body)
        lay.setContentsMargins(6, 6, 6, 6)
        return lay

    def _tie_box(self) -> QGroupBox:
        self.tie_box = QGroupBox("Tie rule (equal counts)")
        self.tie_box.setToolTip("Which pair wins when several pairs share the top count")
        self.tie_box.setObjectName("tieRuleBox")
        tl = QVBoxLayout(self.tie_box)
        self.tie_combo = ElidedComboBox(items=TIE_RULE_LABELS.items())
        self.tie_combo.setToolTip("Recorded in every export")
        self.tie_help = QLabel(wordWrap=True)
        tl.addWidget(self.tie_combo)
        tl.addWidget(self.tie_help)
        return self.tie_box

    def _mode_box(self) -> QGroupBox:
        self.mode_box = mode_box = QGroupBox("Base symbols")
        ml = QVBoxLayout(mode_box)
        self.byte_radio = QRadioButton("Byte-level (256 bytes, GPT-2)")
        self.byte_radio.setToolTip("Start from the 256 single bytes: any text can be encoded")
        self.char_radio = QRadioButton("Character-level (+ </w>)")
        self.char_radio.setToolTip("Start from the characters seen in the corpus plus the "
                                   "end-of-word marker </w> (classic Sennrich BPE)")
        self.mode_group = QButtonGroup(self)
        self.mode_group.addButton(self.byte_radio)
        self.mode_group.addButton(self.char_radio)
        ml.addWidget(WrappedChoice(self.byte_radio))   # (texts that wrap in a narrow dock)
        ml.addWidget(WrappedChoice(self.char_radio))
        row = QHBoxLayout()
        row.addSpacing(22)
        self.eow_label = QLabel("</w>:")
        self.eow_label.setToolTip("Where the end-of-word marker goes")
        self.eow_combo = ElidedComboBox()
        self.eow_combo.addItem("Suffix: low</w> (Sennrich)", "suffix")
        self.eow_combo.addItem("Prefix: </w>low (space before)", "prefix")
        row.addWidget(self.eow_label)
        row.addWidget(self.eow_combo, 1)
        ml.addLayout(row)
        return mode_box

    def _target_box(self) -> QGroupBox:
        target_box = QGroupBox("When to stop")
        form = QFormLayout(target_box)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.vocab_radio = QRadioButton("Vocabulary size")
        self.merges_radio = QRadioButton("Number of merges")
        self.target_group = QButtonGroup(self)
        self.target_group.addButton(self.vocab_radio)
        self.target_group.addButton(self.merges_radio)
        # number boxes keep what is typed (0, 10**12, nothing) so the rules below can say
        # what is wrong in red, instead of a spin box replacing it silently (issue 30)
        self.vocab_spin = NumberBox(maximum=MAX_SPIN, singleStep=100, value=1000)
        self.merges_spin = NumberBox(maximum=MAX_SPIN, singleStep=10, value=100)
        form.addRow(WrappedChoice(self.vocab_radio), self.vocab_spin)
        form.addRow(WrappedChoice(self.merges_radio), self.merges_spin)
        self.minfreq_spin = NumberBox(maximum=MAX_SPIN, value=1)
        self.minfreq_spin.setToolTip("Stop when the best pair occurs fewer times than this")
        form.addRow(QLabel("Minimum pair frequency", wordWrap=True), self.minfreq_spin)
        for box in (self.vocab_spin, self.merges_spin, self.minfreq_spin):
            box.setMinimumWidth(60)   # a narrow dock: the rows must not widen it
        self.prune_check = QCheckBox("Prune tokens no longer used alone")
        self.prune_check.setToolTip("Classic tutorial variant: after a merge, a token that "
                                    "never appears alone any more leaves the vocabulary, so "
                                    "the vocabulary size counts live symbols.")
        form.addRow(WrappedChoice(self.prune_check))
        self.target_error = self._error_label()
        form.addRow(self.target_error)
        return target_box

    def _pre_box(self) -> QGroupBox:
        self.pre_box = pre_box = QGroupBox("Pre-tokenizer")
        pl = QVBoxLayout(pre_box)
        self.preset_combo = ElidedComboBox(items=((k, PRESET_LABELS.get(k, k)) for k in PRESETS))
        self.preset_combo.addItem("Custom pattern…", CUSTOM)
        self.pattern_edit = QLineEdit()
        self.pattern_edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.pattern_edit.setPlaceholderText(r"a regex, e.g. \S+|\s+  (\p{L}, \p{N}, \p{Han} work)")
        self.pattern_error = self._error_label()
        self.preview_label = QLabel(wordWrap=True)
        self.preview_label.setTextFormat(Qt.TextFormat.PlainText)
        self.preview_label.setToolTip("How the pattern cuts the start of the corpus into words")
        # a custom pattern that leaves text out: said, but training may go on (on purpose,
        # e.g. letters only)
        self.pattern_warning = QLabel(wordWrap=True)
        self.pattern_warning.setObjectName("patternWarning")
        self.pattern_warning.setTextFormat(Qt.TextFormat.PlainText)
        self.pattern_warning.setVisible(False)
        self.lines_check = QCheckBox(LINES_LABEL)
        self.lines_check.setToolTip(
            f"{LINES_HELP} With the tie rule “{rule_label('lowest-ids-hf')}”: exactly "
            "Hugging Face's merges.")
        for w in (self.preset_combo, self.pattern_edit, self.pattern_error,
                  self.pattern_warning, self.preview_label, WrappedChoice(self.lines_check)):
            pl.addWidget(w)
        return pre_box

    def _specials_box(self) -> QGroupBox:
        """The tokens, four lines high, and beside them how their text in the corpus is
        read (below them, the settings needed a scroll bar at 1920x1080)."""
        self.specials_box = sp_box = QGroupBox("Special tokens (one per line)")
        sl = QGridLayout(sp_box)
        self.specials_edit = QPlainTextEdit()
        self.specials_edit.setPlaceholderText("<|endoftext|>")
        self.specials_edit.setTabChangesFocus(True)
        self.specials_edit.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 12)
        self.specials_edit.setToolTip("Never split or merged; they get ids after the base "
                                      "symbols. Spaces around each line are ignored.")
        self.specials_error = self._error_label()
        self.special_text_combo = ElidedComboBox(items=SPECIAL_TEXT_LABELS.items())
        self.special_text_combo.setToolTip(
            "How their text inside the corpus is read. Cut: the text is cut at each one and "
            "the token is not counted, so no merge reaches into or across it (CS336). Text: "
            "ordinary text, as tokenizers' BpeTrainer(special_tokens=...) reads it when the "
            "tokenizer was not given them before training (it learns < + |). Word: cut at "
            "each one, counted as a word whose pieces merge, as tokenizers reads tokens "
            "added to the tokenizer before training.")
        sl.addWidget(self.specials_edit, 0, 0, 3, 1)
        sl.addWidget(QLabel("In the corpus:", wordWrap=True), 0, 1)
        sl.addWidget(self.special_text_combo, 1, 1)
        sl.addWidget(self.specials_error, 3, 0, 1, 2)
        sl.setColumnStretch(0, 3)
        sl.setColumnStretch(1, 2)
        return sp_box

    def _state_and_buttons(self, lay: QVBoxLayout) -> None:
        # The state line wraps on a line of its own: beside the buttons its longest text
        # made the panel wider than a narrow dock, and Apply was cut off (issue 21).
        self.state_label = QLabel(wordWrap=True)
        lay.addWidget(self.state_label)
        buttons = QHBoxLayout()
        self.apply_button = QPushButton("Apply")
        self.apply_button.setToolTip("Use these settings. Train (F5) applies them too; a new "
                                     "target keeps the merges made so far")
        self.revert_button = QPushButton("Revert")
        self.revert_button.setToolTip("Back to the settings in use")
        self.apply_button.clicked.connect(self.apply)
        self.revert_button.clicked.connect(lambda: self.set_settings(self.controller.settings))
        # "Copy as command", a link in the state line (a button made the panel wider
        # than a narrow dock, or taller than a tall one)
        self.state_label.linkActivated.connect(lambda _href: self.copy_command())
        self.state_label.setToolTip("Copy as command: the exact `bpe-gui train` command that "
                                    "makes this training (the settings applied), to the "
                                    "clipboard")
        buttons.addStretch(1)
        for b in (self.revert_button, self.apply_button):
            # (the style's least width for a button, 80, made the row wider than the dock)
            b.setMinimumWidth(b.fontMetrics().horizontalAdvance(b.text()) + 20)
            buttons.addWidget(b)
        lay.addLayout(buttons)

    def _follow_fields(self) -> None:
        """Every field checked as it changes; combos elided in a narrow dock, box titles
        shortened there."""
        for sig in (self.tie_combo.currentIndexChanged, self.eow_combo.currentIndexChanged,
                    self.mode_group.buttonToggled, self.target_group.buttonToggled,
                    self.vocab_spin.numberChanged, self.merges_spin.numberChanged,
                    self.minfreq_spin.numberChanged, self.prune_check.toggled,
                    self.lines_check.toggled, self.special_text_combo.currentIndexChanged,
                    self.pattern_edit.textEdited, self.specials_edit.textChanged,
                    self.superbpe.changed, self.parity.changed):
            sig.connect(self._schedule_check)
        self.preset_combo.currentIndexChanged.connect(self._on_preset)
        for combo in (self.tie_combo, self.eow_combo, self.preset_combo,
                      self.special_text_combo):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(8)   # (elided, whole in the tooltip)
        for combo in (self.eow_combo, self.special_text_combo):
            combo.setMinimumContentsLength(2)   # (beside a label or the tokens)
        # a narrow dock (800x600): a box is not kept wider than it by its title
        self.titles = fit_titles(self, (
            (self.tie_box, "Tie rule (equal counts)", "Tie rule"),
            (self.superbpe, "SuperBPE: superwords", "SuperBPE"),
            (self.parity, "Parity-aware training: several languages", "Parity"),
            (self.specials_box, "Special tokens (one per line)", "Special tokens")))

    def _error_label(self) -> QLabel:
        lab = QLabel(wordWrap=True)
        lab.setObjectName("inlineError")
        lab.setTextFormat(Qt.TextFormat.PlainText)
        lab.setVisible(False)
        return lab

    def show_first_error(self) -> bool:
        """Scroll to the first field marked in red, in the panel's order, and give it the
        keyboard (the toolbar's "Settings have errors" does it); False when none is."""
        for lab in (self.target_error, self.pattern_error, self.specials_error,
                    self.superbpe.error, self.parity.error):
            if lab.text() and not lab.isHidden():
                self.scroll_area.ensureWidgetVisible(lab, 0, 40)
                field = lab.parentWidget()
                (field or lab).setFocus(Qt.FocusReason.OtherFocusReason)
                return True
        return False

    def _restyle(self) -> None:
        col = colors(self)
        for lab in (self.target_error, self.pattern_error, self.specials_error,
                    self.superbpe.error, self.parity.error):
            lab.setStyleSheet(f"color: {col['error']};")
        self.tie_box.setStyleSheet(
            f"QGroupBox#tieRuleBox {{ font-weight: bold; border: 2px solid {col['accent']}; "
            "border-radius: 4px; margin-top: 1.2em; padding-top: 4px; } "
            "QGroupBox#tieRuleBox::title { subcontrol-origin: margin; left: 8px; "
            f"padding: 0 4px; color: {col['accent']}; }}")
        self.tie_help.setStyleSheet("font-weight: normal;")
        self.tie_combo.setStyleSheet("font-weight: normal;")
        self.preview_label.setStyleSheet(f"color: {col['muted']};")
        self.pattern_warning.setStyleSheet(f"QLabel#patternWarning {{ color: {col['warn_fg']}; "
                                           f"background: {col['warn_bg']}; padding: 3px; }}")
        self.superbpe.hint.setStyleSheet(f"color: {col['muted']};")
        self.parity.hint.setStyleSheet(f"color: {col['muted']};")
        self._pattern_field(self.preset_combo.currentData() == CUSTOM)

    # ----- controller -> fields ---------------------------------------------------------
    def set_settings(self, s: TrainSettings, check: bool = True) -> None:
        """Show these settings in the fields (from the controller: sample, session)."""
        if check and self._showing_restore:   # the session's settings are applied now
            self._showing_restore = False
            self.setEnabled(True)
        self._syncing = True
        try:
            if s.num_merges is not None:
                self.merges_radio.setChecked(True)
                self.merges_spin.setValue(s.num_merges)
            else:
                self.vocab_radio.setChecked(True)
            if s.vocab_size is not None:
                self.vocab_spin.setValue(s.vocab_size)
            self.minfreq_spin.setValue(s.min_frequency)
            self.parity.set_value(self.controller.parity)
        finally:
            self._syncing = False
        self.modes.kept = {k: getattr(s, k) for k in self.modes.kept}   # (greyed: kept)
        self.show_fields({k: getattr(s, k) for k in self.modes.widgets
                          if k not in self.modes.greyed})
        if check:
            self.check()

    def show_fields(self, values: dict) -> None:
        """Show these values of the settings the modes may fix (tie rule, mode, end of
        word, pattern, special tokens, pruning, SuperBPE, lines), as they are, without
        counting them as typed."""
        setters: dict[str, Callable[[Any], object]] = {
            "tie_rule": lambda v: self.tie_combo.setCurrentIndex(
                max(0, self.tie_combo.findData(v))),
            "mode": lambda v: (self.char_radio if v == "char" else self.byte_radio
                               ).setChecked(True),
            "end_of_word": lambda v: self.eow_combo.setCurrentIndex(
                max(0, self.eow_combo.findData(v))),
            "prune": self.prune_check.setChecked, "lines": self.lines_check.setChecked,
            "special_tokens": lambda v: self.specials_edit.setPlainText("\n".join(v)),
            "superbpe_from": self.superbpe.set_value, "pattern": self._show_pattern,
            "special_text": lambda v: self.special_text_combo.setCurrentIndex(
                max(0, self.special_text_combo.findData(v)))}
        was, self._syncing = self._syncing, True
        try:
            for key, value in values.items():
                setters[key](value)
        finally:
            self._syncing = was

    def field_values(self) -> dict:
        """What the fields the modes may fix show now (show_fields' keys)."""
        return {"tie_rule": self.tie_combo.currentData(),
                "mode": "char" if self.char_radio.isChecked() else "byte",
                "end_of_word": self.eow_combo.currentData(), "pattern": self.pattern(),
                "special_tokens": tuple(self.special_tokens()),
                "prune": self.prune_check.isChecked(), "lines": self.lines_check.isChecked(),
                "superbpe_from": self.superbpe.value(),
                "special_text": self.special_text_combo.currentData()}

    def _show_pattern(self, text: str) -> None:
        pattern, preset = resolve_pattern(text)
        self.preset_combo.setCurrentIndex(self.preset_combo.findData(preset or CUSTOM))
        self.pattern_edit.setText(pattern)
        self.pattern_edit.setCursorPosition(0)

    def _parity_changed(self, setup) -> None:
        """The controller's parity setup changed (a session): show it."""
        if not self.parity.same(setup, self.parity.value()):
            self.parity.set_value(setup)
            self.check()

    # ----- fields -> settings -----------------------------------------------------------
    def _on_preset(self) -> None:
        key = self.preset_combo.currentData()
        self._pattern_field(key == CUSTOM)
        if key != CUSTOM and not self._syncing:
            self.pattern_edit.setText(PRESETS[key])
            self.pattern_edit.setCursorPosition(0)
        elif key == CUSTOM and not self._syncing:
            self.pattern_edit.setFocus()
        self._schedule_check()

    def _pattern_field(self, editable: bool) -> None:
        """A preset's pattern is shown, not edited: flat, muted, no clear button (it
        looked like a field to type in and cleared to nothing)."""
        edit = self.pattern_edit
        edit.setReadOnly(not editable)
        edit.setClearButtonEnabled(editable)
        sheet = "" if editable else (
            f"QLineEdit {{ background: palette(window); color: {colors(self)['muted']}; "
            "border: 1px dotted palette(mid); padding: 1px 2px; }")
        if edit.styleSheet() != sheet:
            edit.setStyleSheet(sheet)
        edit.setToolTip("Your pattern (the regex module: \\p{L}, \\p{N}, \\p{Han} work)"
                        if editable else "The preset's pattern, read-only: choose “Custom "
                        "pattern…” to write your own (it starts from this one)")

    def _schedule_check(self, *_) -> None:
        if not self._syncing:
            self._check_timer.start()

    def special_tokens(self) -> list[str]:
        lines = [ln.strip() for ln in self.specials_edit.toPlainText().split("\n")]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    def pattern(self) -> str:
        key = self.preset_combo.currentData()
        if key != CUSTOM:
            return key
        text = self.pattern_edit.text()
        resolved, preset = resolve_pattern(text)
        # a published pattern's name (qwen2) is the pattern itself, a preset's other
        # spelling (gpt4) or its own pattern the preset, as the fields show them once
        # applied (the name or the pattern kept read as a change not applied)
        return preset or resolved

    def collect(self) -> tuple[TrainSettings | None, dict[str, str]]:
        """The settings in the fields, or None with an error per field."""
        errors: dict[str, str] = {}
        mode = "char" if self.char_radio.isChecked() else "byte"
        use_merges = self.merges_radio.isChecked()
        specials: tuple[str, ...] = ()
        try:
            specials = validate_special_tokens(self.special_tokens())
        except BPEError as e:
            errors["specials"] = str(e)
        pattern = self.pattern()
        try:
            resolved = resolve_pattern(pattern)[0]   # (a name: llama3, qwen2 ... its pattern)
            refuse_bare_name(resolved)
            rx = compile_pattern(resolved)
            cut = specials if self.special_text_combo.currentData() == "cut" else ()
            if not self._preview(rx, cut):
                errors["pattern"] = ("This pattern finds no words in the start of the corpus, "
                                     "so there would be nothing to train on. Pick a preset or "
                                     "change the pattern.")
        except BPEError as e:
            errors["pattern"] = str(e)
            self.preview_label.clear()
            self.pattern_warning.setVisible(False)
        except TimeoutError:
            errors["pattern"] = (f"The pattern ran for more than {PREVIEW_TIMEOUT_S:g} s on "
                                 f"{PREVIEW_CHARS} characters: it backtracks catastrophically "
                                 "(nested quantifiers such as (a+)+). Simplify it or pick a preset.")
            self.preview_label.clear()
            self.pattern_warning.setVisible(False)
        vocab, merges = self.vocab_spin.number(), self.merges_spin.number()
        minfreq = self.minfreq_spin.number()
        if (merges if use_merges else vocab) is None:
            errors["target"] = ("Type a number of merges." if use_merges else
                                "Type a vocabulary size (the number of tokens to reach).")
        elif minfreq is None:
            errors["target"] = "Type a minimum pair frequency (1: every pair counts)."
        if self.superbpe.check.isChecked() and self.superbpe.spin.number() is None:
            errors["superbpe"] = "Type the step where stage 2 starts (its stage-1 merges)."
        parity_problem = self.parity.value().problem()
        if parity_problem is not None:
            errors["parity"] = parity_problem
        if errors or minfreq is None:   # (minfreq None is an error above; mypy narrows here)
            return None, errors
        if use_merges:   # the vocab size is not used then: do not count it as a change
            vocab = self.controller.settings.vocab_size
        try:   # a number past what ids hold is refused here, with its words
            s = TrainSettings(vocab_size=vocab, num_merges=merges if use_merges else None,
                              mode=mode, end_of_word=self.eow_combo.currentData(),
                              pattern=pattern, special_tokens=specials,
                              tie_rule=self.tie_combo.currentData(), min_frequency=minfreq,
                              prune=self.prune_check.isChecked(),
                              superbpe_from=self.superbpe.value(),
                              lines=self.lines_check.isChecked(),
                              special_text=self.special_text_combo.currentData())
        except BPEError as e:
            return None, {"superbpe" if "superbpe_from" in str(e) else "target": str(e)}
        s = self.modes.fixed(s)   # what the mode decides (greyed) stays the user's own
        self.superbpe.follow(s, mode == "byte")
        if mode != "byte" and s.superbpe_from is not None:   # said in the SuperBPE box
            return None, {"superbpe": transition_problem(s) or ""}   # (a str: not byte)
        try:   # the vocab size rule is TrainSettings'; char mode: this corpus's alphabet
            s = s.validated(n_base=self.controller.queries.char_alphabet_size()
                            if mode == "char" else None)
        except BPEError as e:   # (SuperBPE with one text per line: said in its box)
            return None, {"superbpe" if "SuperBPE" in str(e) else "target": str(e)}
        why = transition_problem(s)   # superbpe_box.py
        if why is not None:
            return None, {"superbpe": why}
        return s, {}

    def _preview(self, rx, specials: tuple[str, ...] = ()) -> bool:
        """Show how the pattern cuts the corpus start, special tokens kept whole (as
        training does; with one text per line, line by line). False when it finds no
        word at all."""
        text = self.controller.corpus_text[:PREVIEW_CHARS] or PREVIEW_FALLBACK
        splitter = special_splitter(specials)
        pieces = []
        for part in lines_of(text) if self.lines_check.isChecked() else [text]:
            pos = 0
            for m in (splitter.finditer(part) if splitter is not None else ()):
                pieces += [(part[pos:m.start()], False), (m.group(), True)]
                pos = m.end()
            pieces.append((part[pos:], False))
        words: list[str] = []
        left_out = 0   # characters no word covers (the text training leaves out)
        for piece, special in pieces:
            if special:
                words.append(piece)
            elif piece:
                found = [m.group() for m in rx.finditer(piece, timeout=PREVIEW_TIMEOUT_S)]
                left_out += len(piece) - sum(map(len, found))
                words += found
        words = [w for w in words if w]
        self.preview_label.setText("Words: " + " ".join(f"[{shown(visible(w))}]"
                                                        for w in words[:40]))
        said = unmatched_sentence(left_out, len(text), "the start of the corpus",
                                  "training leaves that text out") if left_out and words \
            else ""
        self.pattern_warning.setText("⚠ " + said[:1].upper() + said[1:] if said else "")
        self.pattern_warning.setVisible(bool(said))
        return bool(words) or not text.strip()

    def check(self) -> bool:
        """Validate the fields now; show errors inline; enable Apply if valid and changed."""
        self._check_timer.stop()
        char = self.char_radio.isChecked()
        self.eow_combo.setEnabled(char)
        self.eow_label.setEnabled(char)
        self.vocab_spin.setEnabled(self.vocab_radio.isChecked())
        self.merges_spin.setEnabled(self.merges_radio.isChecked())
        custom = self.preset_combo.currentData() == CUSTOM
        self._pattern_field(custom)
        self.tie_help.setText(TIE_RULE_HELP.get(self.tie_combo.currentData(), ""))
        settings, errors = self.collect()
        self.modes.update()   # (after collect: SuperBPE's box follows the mode radio there)
        self.errors = errors
        for key, lab in (("target", self.target_error), ("pattern", self.pattern_error),
                         ("specials", self.specials_error), ("superbpe", self.superbpe.error),
                         ("parity", self.parity.error)):
            lab.setText(errors.get(key, ""))
            lab.setVisible(key in errors)
        changed = settings != self.controller.settings if settings is not None else True
        changed = changed or not self.parity.same(self.parity.value(), self.controller.parity)
        changed = changed and not self._showing_restore
        self._emit_pending(settings, changed)
        self.apply_button.setEnabled(settings is not None and changed)
        self.revert_button.setEnabled(changed)
        col = colors(self)
        if errors:
            self.state_label.setText(f"<span style='color:{col['error']}'>Fix the marked "
                                     "field(s) to apply.</span>")
        elif changed:
            self.state_label.setText(f"<span style='color:{col['accent']}'>Not applied yet."
                                     "</span>")
        else:
            self.state_label.setText(f"<span style='color:{col['muted']}'>In use.</span> "
                                     "<a href='copy'>Copy as command</a>")
        return not errors

    def _emit_pending(self, settings: TrainSettings | None, changed: bool) -> None:
        what = describe_changes(self.controller.settings, settings) if settings else []
        if not self.parity.same(self.parity.value(), self.controller.parity):
            what = [*what, "parity-aware training"]
        state = (changed, tuple(what), bool(self.errors))
        if state != self._pending:
            self._pending = state
            self.pendingChanged.emit(changed, what)

    def is_pending(self) -> bool:
        """The fields hold settings that are not the ones in use."""
        if self._showing_restore:   # a session's, about to be applied
            return False
        settings, _ = self.collect()
        return settings is None or settings != self.controller.settings or \
            not self.parity.same(self.parity.value(), self.controller.parity)

    def copy_command(self) -> str | None:
        """The training in use as its ``bpe-gui train`` command, on the clipboard (and
        said in the status bar, with what it reads from standard input); None when the
        settings cannot train (said why)."""
        c = self.controller
        try:
            command, note = c.training.command()
        except BPEError as e:
            c.message.emit(f"No command to copy: {e}")
            return None
        QGuiApplication.clipboard().setText(command)
        pending = " (the settings applied: Apply yours first to include them)" \
            if self.is_pending() else ""
        c.message.emit(f"Copied{pending}: {command}" + (f" — {note}" if note else ""))
        return command

    def apply(self) -> bool:
        """Hand the settings to the controller; on error keep every field as typed."""
        if not self.check():
            return False
        settings, _ = self.collect()
        if settings is None:
            return False
        if not self.controller.apply(settings, self.parity.value()):
            return False
        self.check()
        self.applied.emit(settings)
        return True
