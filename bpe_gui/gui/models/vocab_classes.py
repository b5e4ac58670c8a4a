"""The vocabulary browser's Class column: words and tooltips for a token's class
(engine/analysis/reachability.py: ok, unreachable, undecodable, special), from a ``Reachability``
snapshot the controller hands over (``controller.classes``).
"""
from __future__ import annotations

import html
import textwrap
from typing import Callable

from ...engine.analysis import KINDS, Reachability

UNKNOWN = "…"      # not classified yet
TIP_WIDTH = 70     # characters per line of a class tooltip
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


def class_tip(reach: Reachability | None, tid: int, text_of: Callable[[int], str],
              note: str = "") -> str:
    """What the class means for this token; for an unreachable one, what its text
    encodes to instead (``text_of(id)``: a token's readable text) and ``note`` (why, when
    the controller can say: TokenClasses.context_note). Rich text, in lines of about
    TIP_WIDTH characters (see :func:`tip_html`).

    Example: unreachable id 500 re-encoded to (262, 84) -> the lines
    'unreachable: ...', 'Its text encodes to: ·the + T (ids 262, 84)'
    """
    kind = class_text(reach, tid)
    if kind == UNKNOWN or reach is None:   # (no classes: unknown)
        return tip_html(["Not classified yet: the classes are being worked out."])
    tip = [KIND_TIPS[kind]]
    if kind == "unreachable":
        got = reach.reencoded.get(tid, ())
        if got:
            tip.append(f"Its text encodes to: {' + '.join(text_of(i) for i in got)} "
                       f"(ids {', '.join(map(str, got))})")
        else:
            tip.append("Its text cannot be encoded on its own.")
        if note:   # made in context: "no text produces this one" would be untrue
            tip[0] = "unreachable: its text, encoded alone, gives other tokens"
            tip.append(note)
    if reach.method != "text":
        tip.append(f"(Re-encoded as: {reach.describe()}.)")
    return tip_html(tip)


def tip_html(paragraphs: list[str], width: int = TIP_WIDTH) -> str:
    """Paragraphs as a rich-text tooltip in lines of at most ``width`` characters.

    A plain-text tooltip is one line as wide as the screen, and Qt's own wrapping of
    rich text makes a column a third as wide; lines broken here at spaces (the ' + '
    between the tokens of a re-encoding) and kept as they are ('white-space: pre')
    read well. Escaped: '<E4 BD>' is a token, not a tag.

    Example: ['ab cd', 'e'] with width 2 -> "<p style='white-space:pre'>ab<br>cd<br>e</p>"
    """
    lines = [line for p in paragraphs
             for line in textwrap.wrap(p, width, break_on_hyphens=False) or [""]]
    return ("<p style='white-space:pre'>"
            + "<br>".join(html.escape(line, quote=False) for line in lines) + "</p>")


def counts_text(reach: Reachability | None, ids) -> str:
    """'12 unreachable · 1,562 undecodable' for the given ids (the rows shown), or ''."""
    if reach is None:
        return ""
    n = [0] * (len(KINDS) + 1)
    for i in ids:
        n[code_of(reach, i)] += 1
    parts = [f"{n[k]:,} {KINDS[k]}" for k in (1, 2) if n[k]]
    return " · ".join(parts) if parts else "all reachable"


def class_counts(reach: Reachability | None, ids) -> dict[str, int] | None:
    """How many of ``ids`` are of each class, or None while any is not classified yet.
    ``ids``: a ``range(n)`` (the ids 0..n-1: counted in C, a 200k vocabulary in a
    millisecond) or any iterable of ids.

    Example: codes [0, 2, 2, 3], range(4) -> {'ok': 1, 'unreachable': 0,
    'undecodable': 2, 'special': 1}; range(5) -> None (id 4 not classified)
    """
    if reach is None:
        return None
    codes = reach.codes
    if isinstance(ids, range) and ids.start == 0 and ids.step == 1:
        if len(codes) < ids.stop:
            return None
        part = codes[:ids.stop]
        n = [part.count(k) for k in range(len(KINDS))]
        if sum(n) != len(ids):
            return None
    else:
        n = [0] * (len(KINDS) + 1)
        for i in ids:
            n[code_of(reach, i)] += 1
        if n[-1]:
            return None
    return dict(zip(KINDS, n))


def filter_label(key: str, label: str, counts: dict[str, int] | None) -> str:
    """The Class box's text for one entry: 'undecodable (223)' once the classes are
    known, the bare label meanwhile (and always for 'All classes')."""
    if not key or counts is None:
        return label
    return f"{label} ({counts.get(key, 0):,})"
