"""A session file's fields checked one by one (type, range) before any reaches the trainer.

A session is user data that other tools, older versions or a truncated write produce.
Each field that is wrong is left out (its default is used) and named in a problem
line, so the rest of the session still opens: ``"vocab_size": "abc"`` costs the
vocabulary size, not the corpus and the step. Nothing here raises for a bad field;
only a file that is not a session at all (session.py) is refused whole.

The training settings are checked by the engine's own rules (``TrainSettings``: types
and sizes, ``validated()``: what each may be), one field at a time; their message is
the problem's.

Example: {"vocab_size": "abc", "mode": "char"}
-> ({"mode": "char"}, ["settings.vocab_size: vocab_size should be a whole number or
   None, not str ('abc'). Convert it first: int(value); the default (1000) is used."])
"""
from __future__ import annotations

import json
from dataclasses import fields
from typing import Any, Callable

from ..errors import BPEError
from .trainer import TrainSettings

# ids and steps are 32-bit in the C core: a step or size past this cannot be real
MAX_STEP = (1 << 31) - 1


def shown(value: Any, limit: int = 60) -> str:
    """A field's value as the file has it, cut short: 'abc' -> '"abc"'."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def whole(lo: int, hi: int, none_ok: bool = False) -> Callable[[Any], str | None]:
    """A check for a whole number in [lo, hi] (a JSON true/false is not one)."""
    def check(v: Any) -> str | None:
        if v is None and none_ok:
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            return f"{shown(v)} is not a whole number"
        if not lo <= v <= hi:
            return f"{v:,} is out of range ({lo:,} to {hi:,})"
        return None
    return check


def is_type(kind: type, name: str) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        return None if isinstance(v, kind) else f"{shown(v)} is not {name}"
    return check


# A field alone: on the default settings, with a number of merges as the target, so
# the rules between fields (a vocabulary size against the mode's alphabet, a target
# given at all) wait for the whole settings (check_settings' last step).
ALONE = {"num_merges": 0}


def setting(key: str) -> Callable[[Any], str | None]:
    """The engine's check of one training setting: None if ``value`` may be it, else
    the engine's message (e.g. an unknown mode, a pattern that does not compile)."""
    def check(value: Any) -> str | None:
        try:
            TrainSettings(**{**ALONE, key: value}).validated()
        except BPEError as e:
            return str(e).rstrip(".")
        return None
    return check


SETTING_CHECKS: dict[str, Callable[[Any], str | None]] = {
    f.name: setting(f.name) for f in fields(TrainSettings)}


def check_settings(raw: Any, problems: list[str]) -> TrainSettings:
    """TrainSettings from a session's "settings" object, each bad field left out."""
    default = TrainSettings()
    if raw is None:
        problems.append("settings: missing; the default settings are used.")
        return default
    if not isinstance(raw, dict):
        problems.append(f"settings: {shown(raw)} is not an object; the default settings "
                        "are used.")
        return default
    good: dict[str, Any] = {}
    for key, value in raw.items():
        check = SETTING_CHECKS.get(key)
        if check is None:
            problems.append(f"settings.{key}: not a setting of this version; left out.")
            continue
        why = check(value)
        if why is not None:
            fallback = getattr(default, key)
            problems.append(f"settings.{key}: {why}; the default "
                            f"({shown(fallback) if fallback not in ((), None) else 'none'}) "
                            "is used.")
            continue
        good[key] = value   # (special tokens: a tuple once TrainSettings has them)
    settings = TrainSettings(**good)
    try:   # fields that are each fine but do not go together (e.g. a size below 256)
        return settings.validated()
    except BPEError as e:
        problems.append(f"settings: {e} The default settings are used.")
        return default


def take(d: dict, key: str, check: Callable[[Any], str | None], default: Any,
         problems: list[str], where: str = "") -> Any:
    """``d[key]`` if present and it passes ``check``, else ``default`` (and a problem)."""
    if key not in d:
        return default
    value = d[key]
    why = check(value)
    if why is None:
        return value
    name = f"{where}.{key}" if where else key
    problems.append(f"{name}: {why}; left out." if default in (None, "", [], ())
                    else f"{name}: {why}; {shown(default)} is used.")
    return default


def obj(d: dict, key: str, problems: list[str], where: str = "") -> dict:
    """An object field (``corpus``, ``view``): a dict, or {} and a problem."""
    value = d.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(f"{where}{key}: {shown(value)} is not an object; left out.")
        return {}
    return value


def str_list(v: Any) -> str | None:
    if not isinstance(v, list) or not all(isinstance(p, str) and p for p in v):
        return f"{shown(v)} is not a list of file paths"
    return None


COMPARE_KINDS = ("current", "step", "trained", "imported")


def compare_side(raw: Any, problems: list[str], where: str = "view.compare_b") -> dict | None:
    """A compare side as a session keeps it, each field checked: ``kind`` (one of
    COMPARE_KINDS), and by kind ``step``, ``path`` with ``app`` (the app's imported
    tokenizer, not a file of the side's own) or ``settings`` (TrainSettings) with
    ``trained``. None (and a problem) for a side that cannot be used.

    Example: {"kind": "step", "step": 17} -> {"kind": "step", "step": 17}
    """
    if raw is None:
        return None
    if not isinstance(raw, dict):
        problems.append(f"{where}: {shown(raw)} is not an object; left out.")
        return None
    kind = take(raw, "kind", lambda v: None if v in COMPARE_KINDS else
                f"{shown(v)} is not one of {', '.join(COMPARE_KINDS)}", None, problems, where)
    if kind is None:
        if "kind" not in raw:
            problems.append(f"{where}.kind: missing; left out.")
        return None
    side: dict[str, Any] = {"kind": kind}
    if kind == "step":
        side["step"] = take(raw, "step", whole(0, MAX_STEP), 0, problems, where)
    elif kind == "imported":
        side["path"] = take(raw, "path", is_type(str, "a file path"), None, problems, where)
        side["app"] = take(raw, "app", is_type(bool, "true or false"), False, problems, where)
    elif kind == "trained":
        own: list[str] = []
        side["settings"] = check_settings(raw.get("settings"), own)
        problems.extend(f"{where}.{p}" for p in own)
        side["trained"] = take(raw, "trained", is_type(bool, "true or false"), False,
                               problems, where)
    return side
