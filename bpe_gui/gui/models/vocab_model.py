"""Every token of the current vocabulary: id, readable text, length, step, count, status.

Rows are :class:`VocabEntry` snapshots: the base symbols and special tokens, then one
entry per merge record up to the current step (or the entries of an imported
tokenizer). Stepping appends/removes rows; sorting is done here in Python (see
proxy.py) and searching by a regular expression over SEARCH_ROLE (see
:func:`search_pattern`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QFont

from ...engine.tokenizer import Tokenizer
from ...engine.trainer import MergeStep, Trainer
from .roles import (ALIGN, ALIGN_RIGHT, DISPLAY, FONT, ID_ROLE, PARTIAL_ROLE, SEARCH_ROLE,
                    SPECIAL_ROLE, TOOLTIP, HeaderedTableModel, ReadableCache, plain_text)

BASE, SPECIAL, MERGE = "base", "special", "merge"

_ROLES = frozenset({DISPLAY, SEARCH_ROLE, ID_ROLE, PARTIAL_ROLE, SPECIAL_ROLE, FONT, ALIGN,
                    TOOLTIP})


@dataclass(frozen=True)
class VocabEntry:
    id: int
    token: bytes
    kind: str                          # base / special / merge
    step: int = 0                      # the merge that created it (1-based), 0 otherwise
    count: int | None = None           # the pair's count when merged (if known)
    parts: tuple[int, int] | None = None
    removed: tuple[int, ...] = ()      # ids that stopped occurring on their own at this step


def entry_of_step(rec: MergeStep) -> VocabEntry:
    return VocabEntry(rec.new_id, rec.token, MERGE, rec.index, rec.count, tuple(rec.pair),
                      tuple(rec.removed))


def base_entries(trainer: Trainer) -> list[VocabEntry]:
    special = set(trainer.special_ids)
    return [VocabEntry(i, trainer.vocab_bytes[i], SPECIAL if i in special else BASE)
            for i in range(trainer.n_initial)]


def imported_entries(tok: Tokenizer) -> list[VocabEntry]:
    """Entries of an imported tokenizer: merges give step (rank + 1), parts and, if the
    file recorded them, counts."""
    t2i = tok.token_to_id
    counts = (tok.meta or {}).get("merge_counts") or []
    made: dict[bytes, tuple[int, tuple[int, int], int | None]] = {}
    for r, (a, b) in enumerate(tok.merges):
        if a + b not in made and a in t2i and b in t2i:
            made[a + b] = (r + 1, (t2i[a], t2i[b]), counts[r] if r < len(counts) else None)
    special = set(tok.special_ids.values())
    out = []
    for i in sorted(tok.vocab):
        t = tok.vocab[i]
        if i in special:
            out.append(VocabEntry(i, t, SPECIAL))
        elif t in made and len(t) > 1:
            step, parts, count = made[t]
            out.append(VocabEntry(i, t, MERGE, step, count, parts))
        else:
            out.append(VocabEntry(i, t, BASE))
    return out


_HEX_GROUPS = re.compile(r"^(?:[0-9a-fA-F]{2})(?:\s+[0-9a-fA-F]{2})+$")


def parse_hex(query: str) -> bytes | None:
    """Bytes a query names in hex, or None: '<E4 BD>', 'e4 bd', '0xe4bd', '\\xe4'.

    A lone 'be' is text, not hex (it is a word); write '<BE>' or '0xbe' for the byte.
    """
    q = query.strip()
    if q.startswith("<") and q.endswith(">"):
        body = q[1:-1].strip()
    elif q.lower().startswith("0x"):
        body = q[2:]
    elif q.lower().startswith("\\x"):
        body = q.replace("\\x", "").replace("\\X", "")
    elif _HEX_GROUPS.match(q):
        body = q
    else:
        return None
    body = re.sub(r"\s+", "", body)
    if not body or len(body) % 2 or not re.fullmatch(r"[0-9a-fA-F]+", body):
        return None
    return bytes.fromhex(body)


def search_key(e: VocabEntry, cache: ReadableCache) -> str:
    """What the search matches, one line each: id, readable text, plain text, hex.

    Example: id 300, b" the" -> '#300#\nr:·the\np: the\nx:20 74 68 65 '
    """
    plain = plain_text(e.token).replace("\n", "↵").replace("\r", "\\r")
    return f"#{e.id}#\nr:{cache.text(e.token)}\np:{plain}\nx:{e.token.hex(' ')} "


def search_pattern(query: str) -> str:
    """A regular expression over :func:`search_key` for a user's query (matched
    case-insensitively): text (readable, e.g. '·the', or plain, ' the'), an id, or hex
    bytes ('e4 bd', '<E4 BD>', '0xe4bd'); a row matches if any of them does.

    Example: '42' matches id 42 and every token containing the text 42.
    """
    if not query:
        return ""
    q = query.strip()
    raw = parse_hex(query)
    alts = []
    if not (raw is not None and q.startswith("<")):   # '<E4 BD>' means bytes only
        alts.append(rf"[rp]:[^\n]*{re.escape(query)}")
    if q.isdigit():
        alts.append(rf"^#{int(q)}#")
    if raw is not None:
        alts.append(rf"x:(?:[0-9a-f]{{2}} )*{re.escape(raw.hex(' ') + ' ')}")
    return "|".join(alts)


class VocabModel(HeaderedTableModel):
    ID, TOKEN, LENGTH, STEP, COUNT, STATUS = range(6)
    HEADERS = ("Id", "Token", "Bytes", "Step", "Count", "Status")
    TIPS = ("Token id",
            "The token (· is a space, ↵ a newline, <E4 BD> bytes of a partial character)",
            "Length in bytes",
            "The merge step that created it (base: a starting symbol)",
            "How often its pair occurred when it was merged",
            "live: still occurs on its own; pruned: every occurrence was merged away")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.entries: list[VocabEntry] = []
        self.order: list[int] | None = None    # sorted view: row -> index into entries
        self.sort_column, self.sort_order = -1, Qt.AscendingOrder
        self.n_base = 0
        self._by_id: dict[int, int] | None = None   # only when ids are not 0..n-1
        self.unused: frozenset[int] = frozenset()
        self.pruned: dict[int, int] = {}             # id -> step it stopped occurring
        self.cache = ReadableCache()
        self.gpt2 = False
        self.source = "trained"
        self._keys: dict[int, str] = {}
        self._italic = QFont()
        self._italic.setItalic(True)

    # ----- filling ------------------------------------------------------------------------
    def reset_trained(self, trainer: Trainer | None) -> None:
        self.beginResetModel()
        self.source = "trained"
        self.entries = base_entries(trainer) if trainer is not None else []
        self.n_base = len(self.entries)
        self._by_id = None
        self.pruned = {}
        steps = trainer.steps if trainer is not None else []
        for rec in steps:
            self.entries.append(entry_of_step(rec))
            for t in rec.removed:
                self.pruned.setdefault(t, rec.index)
        if trainer is not None:
            self.unused = frozenset(i for i in range(trainer.n_base)
                                    if trainer.symbol_count(i) == 0 and i not in self.pruned)
        else:
            self.unused = frozenset()
        self._keys = {}
        self.order = self._sorted_order()
        self.endResetModel()

    def reset_imported(self, tok: Tokenizer) -> None:
        self.beginResetModel()
        self.source = "imported"
        self.entries = imported_entries(tok)
        self.n_base = sum(1 for e in self.entries if e.kind != MERGE)
        self._by_id = {e.id: i for i, e in enumerate(self.entries)}
        self.pruned, self.unused = {}, frozenset()
        self._keys = {}
        self.order = self._sorted_order()
        self.endResetModel()

    def sync(self, steps: Sequence[MergeStep]) -> None:
        """Follow the trainer: rows = base + one per merge up to now (append/remove)."""
        n = self.n_base + len(steps)
        first_diff = n
        for i in range(min(n, len(self.entries)) - 1, self.n_base - 1, -1):
            e, rec = self.entries[i], steps[i - self.n_base]
            if e.id == rec.new_id and e.token == rec.token:
                break
            first_diff = i
        if first_diff < len(self.entries):
            self._remove_from(first_diff)
        while len(self.entries) > n:
            self._remove_from(n)
        if len(self.entries) < n:
            new = [entry_of_step(r) for r in steps[len(self.entries) - self.n_base:]]
            self._append(new)

    def _remove_from(self, i: int) -> None:
        gone = self.entries[i:]
        if self.order is None:
            self.beginRemoveRows(QModelIndex(), i, len(self.entries) - 1)
            del self.entries[i:]
            self._forget(gone)
            self.endRemoveRows()
            return
        for idx in range(len(self.entries) - 1, i - 1, -1):
            row = self.order.index(idx)
            self.beginRemoveRows(QModelIndex(), row, row)
            del self.order[row]
            self.entries.pop()
            self._forget([gone[idx - i]])
            self.endRemoveRows()

    def _forget(self, gone: Sequence[VocabEntry]) -> None:
        for e in gone:
            self._keys.pop(e.id, None)
            for t in e.removed:
                if self.pruned.get(t) == e.step:
                    del self.pruned[t]

    def _append(self, new: list[VocabEntry]) -> None:
        first = len(self.entries)
        self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
        self.entries.extend(new)
        for e in new:
            for t in e.removed:
                self.pruned.setdefault(t, e.step)
        if self.order is not None:
            self.order.extend(range(first, first + len(new)))
        self.endInsertRows()
        if self.order is not None:
            self.sort(self.sort_column, self.sort_order)

    # ----- sorting --------------------------------------------------------------------------
    def _key(self, column: int):
        e = self.entries
        if column == self.TOKEN:
            return lambda i: self.cache.text(e[i].token)
        if column == self.LENGTH:
            return lambda i: (len(e[i].token), e[i].id)
        if column == self.STEP:
            return lambda i: (e[i].kind != SPECIAL, e[i].step, e[i].id)
        if column == self.COUNT:
            return lambda i: (e[i].count or 0, e[i].id)
        if column == self.STATUS:
            return lambda i: (self.status(e[i]), e[i].id)
        return lambda i: e[i].id

    def _sorted_order(self) -> list[int] | None:
        col = self.sort_column
        if col < 0 or (col == self.ID and self.sort_order == Qt.AscendingOrder
                       and self._by_id is None):
            return None
        return sorted(range(len(self.entries)), key=self._key(col),
                      reverse=self.sort_order == Qt.DescendingOrder)

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        self.sort_column, self.sort_order = column, order
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        keep = [(self.entry_index(ix.row()), ix.column()) for ix in old]
        self.order = self._sorted_order()
        if self.order is None:
            new = [self.index(i, c) for i, c in keep]
        else:
            pos = {idx: r for r, idx in enumerate(self.order)}
            new = [self.index(pos[i], c) for i, c in keep]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    # ----- lookups ----------------------------------------------------------------------------
    def entry_index(self, row: int) -> int:
        return row if self.order is None else self.order[row]

    def entry(self, row: int) -> VocabEntry:
        return self.entries[self.entry_index(row)]

    def entry_by_id(self, tid: int) -> VocabEntry | None:
        if self._by_id is not None:
            i = self._by_id.get(tid)
        else:
            i = tid if 0 <= tid < len(self.entries) else None
        return None if i is None else self.entries[i]

    def row_of_id(self, tid: int) -> int | None:
        i = self._by_id.get(tid) if self._by_id is not None else \
            (tid if 0 <= tid < len(self.entries) else None)
        if i is None:
            return None
        return i if self.order is None else self.order.index(i)

    def status(self, e: VocabEntry) -> str:
        if e.kind == SPECIAL:
            return "special"
        if e.id in self.pruned:
            return f"pruned at step {self.pruned[e.id]}"
        if e.id in self.unused:
            return "not in corpus"
        return "live"

    def set_gpt2(self, on: bool) -> None:
        if on != self.gpt2:
            self.gpt2 = on
            self.cache = ReadableCache(gpt2=on)
            self._keys = {}
            if self.order is not None and self.sort_column == self.TOKEN:
                self.sort(self.sort_column, self.sort_order)
            if self.entries:
                self.dataChanged.emit(self.index(0, self.TOKEN),
                                      self.index(len(self.entries) - 1, self.TOKEN))

    def token_text(self, e: VocabEntry) -> str:
        return self.cache.text(e.token)

    # ----- Qt model ---------------------------------------------------------------------------
    def n_rows(self) -> int:
        return len(self.entries)



    def data(self, index, role=DISPLAY):
        if role not in _ROLES:   # most roles a view asks for: answer fast
            return None
        e = self.entries[self.entry_index(index.row())]
        col = index.column()
        if role == DISPLAY:
            if col == self.ID:
                return str(e.id)
            if col == self.TOKEN:
                return self.cache.text(e.token)
            if col == self.LENGTH:
                return str(len(e.token))
            if col == self.STEP:
                return str(e.step) if e.kind == MERGE else e.kind
            if col == self.COUNT:
                return f"{e.count:,}" if e.count is not None else ""
            return self.status(e)
        if role == SEARCH_ROLE:
            key = self._keys.get(e.id)
            if key is None:
                key = self._keys[e.id] = search_key(e, self.cache)
            return key
        if role == ID_ROLE:
            return e.id
        if role == PARTIAL_ROLE:
            return self.cache(e.token)[1]
        if role == SPECIAL_ROLE:
            return e.kind == SPECIAL
        if role == FONT and col == self.TOKEN and self.cache(e.token)[1]:
            return self._italic
        if role == ALIGN and col in (self.ID, self.LENGTH, self.STEP, self.COUNT):
            return ALIGN_RIGHT
        if role == TOOLTIP:
            return f"id {e.id}: {self.cache.text(e.token)}\nbytes {e.token.hex(' ').upper()}"
        return None
