"""Train on from the imported tokenizer: how many new merges, with which tie rule; what
the tokenizer decides (base symbols, pre-tokenizer, special tokens, ids) shown as fixed.

Accepting it starts the controller's train-on job (controller/train_on.py); the
progress and Cancel are the status bar's, as for any training.
"""
from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFormLayout, QGroupBox, QLabel,
                               QSpinBox, QVBoxLayout, QWidget)

from ...engine.text import PRESET_LABELS
from ...engine.text import resolve_pattern
from ...engine.tokenizers import BaseTokenizer
from ...engine.train import TIE_RULE_LABELS, TrainSettings
from ..controller.train_on import DEFAULT_MERGES, source_label
from ..widgets.elided_combo import ElidedComboBox

MAX_MERGES = 10_000_000


def pattern_text(pattern: str) -> str:
    """'GPT-2' for a preset's pattern, else 'custom pattern'."""
    try:
        key = resolve_pattern(pattern)[1]
    except Exception:   # noqa: BLE001  (shown only; the engine checks it when training)
        key = None
    return PRESET_LABELS.get(key, key) if key else "custom pattern"


def _fixed(text: str, tip: str = "") -> QLabel:
    lab = QLabel(text)
    lab.setTextFormat(Qt.TextFormat.PlainText)
    lab.setWordWrap(True)
    lab.setToolTip(tip or "Decided by the tokenizer: training on keeps it")
    lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return lab


class TrainOnHost(Protocol):
    """What the Train on dialog reads of the controller."""

    imported: BaseTokenizer | None
    imported_path: str | None
    settings: TrainSettings

    @property
    def corpus_paths(self) -> list[str]: ...
    @property
    def corpus_sample(self) -> str | None: ...
    @property
    def train_on(self) -> _StartsTrainOn: ...


class _StartsTrainOn(Protocol):
    def start(self, num_merges: int | None = None, tie_rule: str | None = None) -> bool: ...


class TrainOnDialog(QDialog):
    def __init__(self, controller: TrainOnHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = c = controller
        tok = c.imported
        assert tok is not None   # (opened only when a tokenizer is imported: why_not)
        self.setWindowTitle("Train on from the imported tokenizer")
        label = source_label(tok, c.imported_path)
        n_ids = max(tok.vocab) + 1 if tok.vocab else 0
        head = QLabel(f"<b>From {_esc(label)}</b>: {len(tok.vocab):,} tokens, "
                      f"{tok.n_merges:,} merges. Its merges and ids stay as they are; the "
                      "corpus is cut by its pre-tokenizer, each word starts as its merges "
                      "leave it, and new merges are learned on top.")
        head.setWordWrap(True)

        fixed = QGroupBox("Decided by the tokenizer (fixed)")
        ff = QFormLayout(fixed)
        ff.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        mode = "Byte-level (256 bytes)" if tok.mode == "byte" else \
            f"Character-level ({tok.end_of_word} </w>)"
        ff.addRow("Base symbols:", _fixed(mode))
        ff.addRow("Pre-tokenizer:", _fixed(pattern_text(tok.pattern), tok.pattern))
        ff.addRow("Special tokens:", _fixed(", ".join(tok.special_tokens) or "none"))
        ff.addRow("Ids:", _fixed(f"0–{n_ids - 1:,} kept; new ids from {n_ids:,}"))

        chosen = QGroupBox("Training on")
        cf = QFormLayout(chosen)
        self.merges_spin = QSpinBox(minimum=1, maximum=MAX_MERGES, singleStep=100)
        self.merges_spin.setGroupSeparatorShown(True)
        self.merges_spin.setValue(c.settings.num_merges or DEFAULT_MERGES)
        self.merges_spin.setToolTip("How many new merges to learn on the corpus (the "
                                    "timeline shows them after the inherited block)")
        self.tie_combo = ElidedComboBox(items=TIE_RULE_LABELS.items())
        self.tie_combo.setCurrentIndex(max(0, self.tie_combo.findData(c.settings.tie_rule)))
        cf.addRow("New merges:", self.merges_spin)
        cf.addRow("Tie rule:", self.tie_combo)
        corpus = c.corpus_paths[0].replace("\\", "/").rsplit("/", 1)[-1] \
            if c.corpus_paths else (c.corpus_sample or "the text in the corpus editor")
        cf.addRow("Corpus:", _fixed(corpus, "The corpus in use (File › Open corpus… "
                                            "changes it)"))

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Train on")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(head)
        lay.addWidget(fixed)
        lay.addWidget(chosen)
        lay.addWidget(buttons)
        self.setMinimumWidth(min(520, max(360, self.fontMetrics().averageCharWidth() * 60)))

    def accept(self) -> None:
        super().accept()
        self.controller.train_on.start(self.merges_spin.value(), self.tie_combo.currentData())


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
