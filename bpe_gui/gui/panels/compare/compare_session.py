"""A compare side as a session keeps it (engine ``Session.compare_b``): what
:class:`~.compare_pane.ComparePane` writes (``side_state``) and how it comes back
(``apply_side``).

By kind: the current step; another step (its number); an imported tokenizer (the app's,
or a file of the side's own, by path); another training configuration (its settings, and
whether it was trained: then it is trained again, so the comparison is the one left).

Example: a side on step 17 -> {"kind": "step", "step": 17}; restored, it is on step 17
(or the furthest step trained, if the run is shorter now).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from ....engine.train import TrainSettings


def side_state(pane) -> dict:
    """The side's kind and what that kind uses, as ``Session.compare_b`` holds it."""
    kind = pane.kind_key()
    if kind == "step":
        return {"kind": kind, "step": pane.step_spin.value()}
    if kind == "imported":
        if pane.file_path is not None:
            return {"kind": kind, "path": pane.file_path}
        return {"kind": kind, "app": True} if pane.tokenizer() is not None else {"kind": kind}
    if kind == "trained":
        settings = pane.form_settings()
        return {"kind": kind, "settings": settings,
                "trained": pane.trained_tokenizer is not None
                and pane.trained_settings == settings}
    return {"kind": kind}


def apply_side(pane, side: dict, note: Callable[[str], None]) -> None:
    """Put ``pane`` back as ``side`` says (the controller is idle: its run is back)."""
    kind = side["kind"]
    if kind == "step":
        pane.set_kind("step")
        pane.set_step_within(side.get("step", 0))
    elif kind == "imported":
        _imported(pane, side, note)
    elif kind == "trained" and side.get("settings") is not None:
        pane.set_kind("trained")
        fill_form(pane, side["settings"])
        if side.get("trained"):
            pane.train()
    else:
        pane.set_kind(kind)


def _imported(pane, side: dict, note: Callable[[str], None]) -> None:
    path = side.get("path")
    if side.get("app") or not path:
        pane.set_kind("imported")   # the app's imported tokenizer, if it came back
        return
    if not Path(path).exists():
        where = Path(path)
        pane.show_missing(where.name)
        note(f"Not back: Compare's side {pane.name}'s {where.name} was not found in "
             f"{where.parent} (moved or deleted); open it again with side {pane.name}'s "
             "Open file….")
        return
    pane.set_kind("imported")
    pane.open_file(path)


def fill_form(pane, settings: TrainSettings) -> None:
    """The other configuration's form set to ``settings`` (mode, pattern, size, tie)."""
    for combo, key in ((pane.t_mode, settings.mode), (pane.t_tie, settings.tie_rule)):
        i = combo.findData(key)
        if i >= 0:
            combo.setCurrentIndex(i)
    if pane.t_pattern.findData(settings.pattern) < 0:
        pane.t_pattern.addItem(f"Custom: {settings.pattern[:40]}", settings.pattern)
    pane.t_pattern.setCurrentIndex(pane.t_pattern.findData(settings.pattern))
    pane.t_vocab.setValue(settings.vocab_size or pane.t_vocab.value())
