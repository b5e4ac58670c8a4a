"""The vocabulary browser's Class column: words and tooltips for a token's class
(engine/analysis.py: ok, unreachable, undecodable, special), from a ``Reachability``
snapshot the controller hands over (``controller.classes``).
"""
from __future__ import annotations

from typing import Callable

from ...engine.analysis import KINDS, Reachability

UNKNOWN = "…"      # not classified yet
KIND_TIPS = {
    "ok": "ok: its text, encoded again, gives exactly this token",
    "unreachable": "unreachable: its text encodes to other tokens, so no text produces "
                   "this one (e.g. a piece the pre-tokenizer never cuts out)",
    "undecodable": "undecodable: its bytes are not valid UTF-8 (part of a character): no "
                   "text is this token alone; it only appears inside longer sequences",
    "special": "special: a marker, never split or merged",
}
FILTER_LABELS = (("", "All classes"), ("ok", "ok"), ("unreachable", "unreachable"),
                 ("undecodable", "undecodable"), ("special", "special"))


def code_of(reach: Reachability | None, tid: int) -> int:
    """The class code of ``tid`` (an index into KINDS), or len(KINDS) when unknown: so
    sorting by class puts tokens not classified yet last."""
    if reach is not None and 0 <= tid < len(reach.codes) and reach.codes[tid] >= 0:
        return reach.codes[tid]
    return len(KINDS)


def class_text(reach: Reachability | None, tid: int) -> str:
    c = code_of(reach, tid)
    return KINDS[c] if c < len(KINDS) else UNKNOWN


def class_tip(reach: Reachability | None, tid: int, text_of: Callable[[int], str]) -> str:
    """What the class means for this token; for an unreachable one, what its text
    encodes to instead (``text_of(id)``: a token's readable text).

    Example: unreachable id 500 re-encoded to (262, 84) ->
    'unreachable: ... \\nIts text encodes to: ·the + T (ids 262, 84)'
    """
    kind = class_text(reach, tid)
    if kind == UNKNOWN:
        return "Not classified yet: the classes are being worked out."
    tip = KIND_TIPS[kind]
    if kind == "unreachable":
        got = reach.reencoded.get(tid, ())
        if got:
            tip += (f"\nIts text encodes to: {' + '.join(text_of(i) for i in got)} "
                    f"(ids {', '.join(map(str, got))})")
        else:
            tip += "\nIts text cannot be encoded on its own."
    if reach.method != "text":
        tip += f"\n(Re-encoded as: {reach.describe()}.)"
    return tip


def counts_text(reach: Reachability | None, ids) -> str:
    """'12 unreachable · 1,562 undecodable' for the given ids (the rows shown), or ''."""
    if reach is None:
        return ""
    n = [0] * (len(KINDS) + 1)
    for i in ids:
        n[code_of(reach, i)] += 1
    parts = [f"{n[k]:,} {KINDS[k]}" for k in (1, 2) if n[k]]
    return " · ".join(parts) if parts else "all reachable"
