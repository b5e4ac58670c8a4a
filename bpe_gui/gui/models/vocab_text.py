"""What the vocabulary browser says, without a widget: its summary line, and a token's
lineage (how it was made, down to base symbols) as text and as a tree of plain values the
browser turns into rows.

Example::

    summary(Shown("trained", step=10, n=22, n_base=12), classes="classes: 22 ok")
    -> 'Step 10: 22 tokens (12 base/special + 10 merged) · classes: 22 ok'
"""
from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from ...engine.display import hex_bytes
from .vocab_model import MERGE_ENTRY, SPECIAL_ENTRY, VocabEntry, VocabModel

LINEAGE_NODE_LIMIT = 2000   # rows of a lineage tree (a long token's is deep and wide)


@dataclass(frozen=True)
class Shown:
    """Which vocabulary the browser shows."""

    source: str                   # "trained" or "imported"
    step: int = 0
    n: int = 0                    # its tokens
    n_base: int = 0               # base symbols and specials (training on: inherited)
    inherited: bool = False       # trained on from another tokenizer
    has_trainer: bool = True
    imported_name: str = ""
    imported_label: str = ""      # its format ("tiktoken ranks (.tiktoken) — cl100k_base")


def summary(shown: Shown, classes: str = "", dead: str = "", matches: int | None = None) -> str:
    """The line above the table: what is shown, its classes, its dead weight, and how
    many rows match a search or filter (None: no search or filter hides any)."""
    if shown.source == "imported":
        what = f" — {shown.imported_label}" if shown.imported_label else ""
        text = f"Showing the imported {shown.imported_name}{what}: {shown.n:,} tokens"
    elif not shown.has_trainer:
        text = "No vocabulary yet"
    else:
        kept = "inherited" if shown.inherited else "base/special"   # (training on)
        text = (f"Step {shown.step:,}: {shown.n:,} tokens ({shown.n_base:,} {kept} + "
                f"{shown.n - shown.n_base:,} merged)")
    for part in (classes, dead):
        if part:
            text += f" · {part}"
    if matches is not None:
        text += f" · {matches:,} match{'' if matches == 1 else 'es'}"
    return text


def lineage_details(model: VocabModel, e: VocabEntry) -> str:
    """The token, its id and bytes, and how it was made (rich text)."""
    how = {SPECIAL_ENTRY: "a special token (never split or merged)",
           MERGE_ENTRY: f"made by merge {e.step}" if e.step else "a merged token"}.get(
               e.kind, "inherited from the tokenizer trained on from"
               if model.kind_text(e) == "inherited" else "a base symbol")
    if e.kind == MERGE_ENTRY and e.parts is not None:
        a, b = (model.entry_by_id(p) for p in e.parts)
        if a is not None and b is not None:
            how += f": {escape(model.token_text(a))} + {escape(model.token_text(b))}"
        if e.count is not None:
            how += f" (count {e.count:,})"
        turn = model.turn_text(e)
        if turn == "global":
            how += ", a global merge (all languages together)"
        elif turn:
            how += f", on <b>{escape(turn)}</b>'s turn"
    return (f"<b>{escape(model.token_text(e))}</b> · id {e.id} · {len(e.token)} byte(s) "
            f"{escape(hex_bytes(e.token))}<br>{how}")


@dataclass
class Node:
    """One row of a lineage tree: the token as shown, its id, where it was made, the
    count of its merge, whether it holds part of a character, its two parts."""

    text: str
    id: int
    made: str
    count: str
    tip: str
    partial: bool
    children: list[Node] = field(default_factory=list)


def lineage(model: VocabModel, e: VocabEntry, budget: list[int] | None = None) -> Node:
    """The tree of ``e``'s merges, at most LINEAGE_NODE_LIMIT rows (``budget``)."""
    if budget is None:
        budget = [LINEAGE_NODE_LIMIT]
    budget[0] -= 1
    made = {MERGE_ENTRY: f"step {e.step}" if e.step else "merge", SPECIAL_ENTRY: "special"}.get(
        e.kind, model.kind_text(e))
    text = model.token_text(e)
    node = Node(text, e.id, made, f"{e.count:,}" if e.count is not None else "",
                f"{text} · {hex_bytes(e.token)} · double-click to select this token",
                bool(model.cache(e.token)[1]))
    if e.kind == MERGE_ENTRY and e.parts is not None and budget[0] > 0:
        for p in e.parts:
            child = model.entry_by_id(p)
            if child is not None:
                node.children.append(lineage(model, child, budget))
    return node
