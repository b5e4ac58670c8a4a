"""The settings a training mode does not use, greyed in the settings panel with the
engine's reason as their tooltip (``engine.train.unused``: the same reasons the command
line refuses them with), and showing what the run uses instead: parity's GPT-2 byte
level, the pre-tokenizer and special tokens of the tokenizer trained on, no pruning in
SuperBPE. The panel's own values are kept meanwhile (the controller's settings are the
user's), so leaving the mode shows them again: nothing to put back by hand.

The mode is the one the fields show: the parity tick and the SuperBPE tick (applied or
not), training on while it is on.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from PySide6.QtCore import SignalInstance

from ....engine.errors import BPEError
from ....engine.train import (PARITY, PLAIN, SUPERBPE, TIE_RULE_LABELS, TRAIN_ON, TrainingSpec,
                              TrainSettings, resolve, unused)
from ....engine.tokenizers import BaseTokenizer

DEFAULT = TrainSettings()
# how parity breaks ties, as the Export dialog says it (tie_rule_said)
PARITY_TIE = "Greatest pair of GPT-2 spellings (Hugging Face's parity rule)"


class FieldsHost(Protocol):
    """What the mode rules and the inherited notice (inherited_fields.py) read of the
    controller."""

    settingsChanged: SignalInstance
    trainerChanged: SignalInstance
    settings: TrainSettings

    @property
    def train_on(self) -> _TrainOn: ...


class _TrainOn(Protocol):
    @property
    def active(self) -> bool: ...
    @property
    def base_name(self) -> str: ...
    source: BaseTokenizer | None
    label: str


class ModeFields:
    """Greys what the mode of the panel's fields does not use (see the module
    docstring); ``fixed(s)`` gives those settings back their own values."""

    def __init__(self, panel, controller: FieldsHost):
        self.panel, self.controller = panel, controller
        p = panel
        self.widgets = {"mode": (p.mode_box,), "end_of_word": (p.eow_combo, p.eow_label),
                        "pattern": (p.preset_combo, p.pattern_edit, p.preview_label),
                        "special_tokens": (p.specials_box,), "tie_rule": (p.tie_box,),
                        "prune": (p.prune_check,), "superbpe_from": (p.superbpe,),
                        "lines": (p.lines_check,), "special_text": (p.special_text_combo,)}
        self.greyed: dict[str, str] = {}
        self.kept: dict = {}   # each greyed setting's value in the fields before it was

    def spec(self) -> TrainingSpec:
        """The mode of the fields, as a spec (what ``unused`` asks)."""
        p, c = self.panel, self.controller
        mode = PARITY if p.parity.check.isChecked() else TRAIN_ON if c.train_on.active \
            else SUPERBPE if p.superbpe.check.isChecked() else PLAIN
        s = replace(c.settings, mode="char" if p.char_radio.isChecked() else "byte",
                    superbpe_from=None,   # (the user's special tokens, greyed or not)
                    special_tokens=self.kept.get("special_tokens", tuple(p.special_tokens())))
        return TrainingSpec(mode, settings=s, base=c.train_on.base_name or None
                            if mode == TRAIN_ON else None, text="")

    def update(self) -> None:
        """Grey what the mode does not use, with why; show the mode's own values there,
        and the values the fields held before when the mode lets go of them."""
        spec = self.spec()
        why = unused(spec)
        why.pop("end_of_word", None)   # (the panel follows the mode radio for it)
        if spec.mode in (PLAIN, SUPERBPE):   # (its tick is what chooses the mode)
            why.pop("superbpe_from", None)
        if spec.mode == PARITY:
            why["lines"] = ("parity-aware training reads its languages' files one text per "
                            "line or whole, as its own box below says")
        why = {k: v for k, v in why.items() if k in self.widgets}
        for key, widgets in self.widgets.items():
            for w in widgets:
                own = w.property("ownToolTip")
                if own is None:
                    own = w.toolTip()
                    w.setProperty("ownToolTip", own)
                if key in why:
                    w.setEnabled(False)
                    w.setToolTip(f"Not used: {in_window(why[key])}.")
                elif key in self.greyed:
                    w.setEnabled(True)
                    w.setToolTip(own)
        values = {k: self.kept.pop(k) for k in list(self.kept) if k not in why}
        now = self.panel.field_values()
        self.kept.update({k: now[k] for k in why if k not in self.kept})
        mode_s = self._mode_settings(spec)
        values.update({k: getattr(mode_s, k) for k in why})
        self.greyed = why
        self.panel.show_fields(values)
        # parity's greyed rule is its own (ParityBpeTrainer's), not the plain "greatest"
        tie = self.panel.tie_combo
        tie.setItemText(tie.findData("greatest"), PARITY_TIE if "tie_rule" in why and
                        spec.mode == PARITY else TIE_RULE_LABELS["greatest"])
        if self.spec().mode != spec.mode:   # a tick given back (SuperBPE's) is a mode too
            self.update()

    def _mode_settings(self, spec: TrainingSpec) -> TrainSettings:
        """What the mode uses for the settings it decides: the tokenizer's (training on)
        or the defaults it keeps them at (engine: TrainingSpec.validated)."""
        c = self.controller
        if spec.mode != TRAIN_ON:
            return DEFAULT
        try:
            return resolve(replace(spec, settings=c.settings), c.train_on.source).settings
        except BPEError:
            return DEFAULT

    def fixed(self, s: TrainSettings) -> TrainSettings:
        """``s`` (from the fields) with the value each greyed setting had before the mode
        greyed it: the fields show the mode's, which are the run's, not the user's."""
        return replace(s, **self.kept) if self.kept else s


def in_window(why: str) -> str:
    """The engine's reason without what the command line says to do with the option.

    Example: "parity training ... has no other rule: leave it out" -> "parity training
    ... has no other rule"
    """
    for cut in (": leave it out", ". Leave it out", "; leave it out", ": give "):
        if cut in why:
            return why[:why.index(cut)]
    return why
