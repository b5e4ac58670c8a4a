"""Every token of the current vocabulary: id, readable text, length, step, count, status,
class (ok / unreachable / undecodable / special: models/vocab_classes.py), and its IoS
when dead weight was measured on a corpus (engine/analysis/dead_weight.py).

Rows are :class:`VocabEntry` snapshots: the base symbols and special tokens, then one
entry per merge record up to the current step (or the entries of an imported
tokenizer). Stepping appends/removes rows; sorting is done here in Python (see
proxy.py), and so is searching: a few ``str.find`` scans over texts that hold every
token's readable, plain, GPT-2 and hex forms (:func:`search_index`), so a search over
200k tokens costs tens of milliseconds instead of a Python ``data()`` call per row.
:func:`search_pattern` says the same as a regex over one token's :func:`search_key`
(the tests' reference).
"""
from __future__ import annotations

import re
import weakref
from bisect import bisect_right
from typing import Callable, NamedTuple, Sequence

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QFont

from ...engine.analysis import KINDS, DeadWeight, ios_text
from ...engine.display import gpt2_text, readable
from ...engine.tokenizers import Tokenizer
from ...engine.train import MergeStep
from .glyphs import token_note
from .roles import (ALIGN, ALIGN_RIGHT, DISPLAY, FONT, ID_ROLE, PARTIAL_ROLE, SEARCH_ROLE,
                    SPECIAL_ROLE, TOOLTIP, HeaderedTableModel, ReadableCache, plain_text)
from .vocab_classes import class_text, class_tip, code_of

BASE_ENTRY, SPECIAL_ENTRY, MERGE_ENTRY = "base", "special", "merge"

_ROLES = frozenset({DISPLAY, SEARCH_ROLE, ID_ROLE, PARTIAL_ROLE, SPECIAL_ROLE, FONT, ALIGN,
                    TOOLTIP})


class VocabEntry(NamedTuple):
    """One row (a named tuple: an imported vocabulary makes 200k of them, and a frozen
    dataclass took a third of a second more to build)."""

    id: int
    token: bytes
    kind: str                          # base / special / merge
    step: int = 0                      # the merge that created it (1-based), 0 otherwise
    # the pair's count when merged, if known (a field named like tuple.count(), which it hides)
    count: int | None = None  # type: ignore[assignment]
    parts: tuple[int, int] | None = None
    removed: tuple[int, ...] = ()      # ids that stopped occurring on their own at this step


def entry_of_step(rec: MergeStep) -> VocabEntry:
    return VocabEntry(rec.new_id, rec.token, MERGE_ENTRY, rec.index, rec.count, rec.pair,
                      tuple(rec.removed))


def base_entries(trainer) -> list[VocabEntry]:
    """The base symbols and special tokens of a trainer (its TrainerView)."""
    special = set(trainer.special_ids)
    return [VocabEntry(i, trainer.vocab_bytes[i], SPECIAL_ENTRY if i in special else BASE_ENTRY)
            for i in range(trainer.n_initial)]


def imported_entries(tok: Tokenizer) -> list[VocabEntry]:
    """Entries of an imported tokenizer: merges give step (rank + 1), parts and, if the
    file recorded them, counts."""
    prepared = _PREPARED.get(tok)
    if prepared is not None:
        return prepared[0]
    special = set(tok.special_ids.values())
    ids_of = getattr(tok.merges, "ids", None)
    if ids_of is not None:   # a published file: merges by id (tokens may share bytes)
        by_id: dict[int, tuple[int, tuple[int, int]]] = {}
        for r in range(len(tok.merges)):
            a, b, new = ids_of(r)
            by_id.setdefault(new, (r + 1, (a, b)))
        vocab = tok.vocab
        return [VocabEntry(i, vocab[i], SPECIAL_ENTRY) if i in special else
                VocabEntry(i, vocab[i], MERGE_ENTRY, by_id[i][0], None, by_id[i][1]) if i in by_id
                else VocabEntry(i, vocab[i], BASE_ENTRY) for i in sorted(vocab)]
    t2i = tok.bytes_to_id
    counts = (tok.meta or {}).get("merge_counts") or []
    made: dict[bytes, tuple[int, tuple[int, int], int | None]] = {}
    for r, (a, b) in enumerate(tok.merges):
        if a + b not in made and a in t2i and b in t2i:
            made[a + b] = (r + 1, (t2i[a], t2i[b]), counts[r] if r < len(counts) else None)
    out = []
    for i in sorted(tok.vocab):
        t = tok.vocab[i]
        if i in special:
            out.append(VocabEntry(i, t, SPECIAL_ENTRY))
        elif t in made and len(t) > 1:
            step, parts, count = made[t]
            out.append(VocabEntry(i, t, MERGE_ENTRY, step, count, parts))
        else:
            out.append(VocabEntry(i, t, BASE_ENTRY))
    return out


# imported tokenizer -> (entries, search index, text ranks), made once (on the worker
# thread for big files, see prepare_imported) and dropped with the tokenizer
_PREPARED: "weakref.WeakKeyDictionary[Tokenizer, tuple]" = weakref.WeakKeyDictionary()
Progress = Callable[[float], None]   # the share of the work done, 0..1


def prepare_imported(tok: Tokenizer, progress: Progress | None = None) -> None:
    """Work out the browser's rows, search texts and sort order by token text for
    ``tok`` ahead of showing it (no Qt: safe on a worker thread). ``progress`` hears the
    share done as it goes (rows are about a third of the work)."""
    if tok in _PREPARED:
        return
    report = progress or (lambda share: None)
    entries = imported_entries(tok)
    report(0.35)
    index, texts = search_index(entries, lambda share: report(0.35 + 0.45 * share))
    ranks = {gpt2: text_ranks(texts[gpt2]) for gpt2 in (False, True)}
    report(1.0)
    _PREPARED[tok] = (entries, index, ranks)


def text_ranks(texts: Sequence[str]) -> tuple[list[int], list[int]]:
    """(rank, order): rank[i] is where entry i comes when sorted by its text (ties by
    position), order the entries in that order.

    Example: ['b', 'a', 'c'] -> ([1, 0, 2], [1, 0, 2]); ['c', 'a', 'b'] -> ([2, 0, 1],
    [1, 2, 0])
    """
    order = sorted(range(len(texts)), key=texts.__getitem__)
    rank = [0] * len(texts)
    for r, i in enumerate(order):
        rank[i] = r
    return rank, order


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
    """What the search matches, one line each: id, readable text, plain text, GPT-2
    alphabet text, hex (so a search finds the same rows whichever way tokens are shown).

    Example: id 300, b" the" -> '#300#\nr:·the\np: the\ng:Ġthe\nx:20 74 68 65 '
    """
    plain = plain_text(e.token).replace("\n", "↵").replace("\r", "\\r")
    return (f"#{e.id}#\nr:{cache.text(e.token)}\np:{plain}\ng:{gpt2_text(e.token)}"
            f"\nx:{e.token.hex(' ')} ")


SearchIndex = dict  # field -> (lower-cased texts joined by line breaks, start of each)


def search_index(entries: Sequence[VocabEntry], progress: Progress | None = None
                 ) -> tuple[SearchIndex, dict[bool, list[str]]]:
    """Every entry's searchable texts, one text per field, so a search is a few
    ``str.find`` scans instead of a Python call per row: 'r' readable, 'p' plain, 'g'
    GPT-2 alphabet (all lower-cased), 'x' hex with a space after each byte. A hit at
    position k of a field is entry ``bisect_right(starts, k) - 1``. Also returns the
    texts as shown ({gpt2: texts}, for sorting).
    """
    shown: dict[bool, list[str]] = {False: [], True: []}
    cols: dict[str, list[str]] = {"r": [], "p": [], "g": [], "x": []}
    step = max(1, len(entries) // 20)
    for k, e in enumerate(entries):
        t = e.token
        r, g = readable(t), gpt2_text(t)
        shown[False].append(r)
        shown[True].append(g)
        cols["r"].append(r.lower())
        cols["p"].append(plain_text(t).replace("\n", "↵").replace("\r", "\\r").lower())
        cols["g"].append(g.lower())
        cols["x"].append(t.hex(" ") + " ")
        if progress is not None and k % step == 0:
            progress(k / len(entries))
    out = {}
    for field, items in cols.items():
        starts, pos = [], 0
        for item in items:
            starts.append(pos)
            pos += len(item) + 1
        out[field] = ("\n".join(items) + "\n", starts)
    return out, shown


def find_rows(index: SearchIndex, needle: str, field: str) -> set[int]:
    """Entries whose ``field`` text contains ``needle`` (already lower-cased)."""
    text, starts = index[field]
    found: set[int] = set()
    pos = text.find(needle)
    while pos >= 0:
        k = bisect_right(starts, pos) - 1
        found.add(k)
        pos = text.find(needle, starts[k + 1] if k + 1 < len(starts) else len(text))
    return found


def search_rows(index: SearchIndex, row_of_id, query: str, gpt2: bool) -> list[int]:
    """Entry indices a query finds, in entry order: text as shown (readable, or GPT-2's
    alphabet) or as typed, an id (``row_of_id``: id -> entry index or None), or hex
    bytes -- what :func:`search_pattern` matches."""
    q = query.strip()
    raw = parse_hex(query)
    found: set[int] = set()
    if not (raw is not None and q.startswith("<")):   # '<E4 BD>' means bytes only
        needle = query.lower()
        found |= find_rows(index, needle, "g" if gpt2 else "r")
        found |= find_rows(index, needle, "p")
    if q.isdigit() and row_of_id(int(q)) is not None:
        found.add(row_of_id(int(q)))
    if raw is not None:
        found |= find_rows(index, raw.hex(" ") + " ", "x")
    return sorted(found)


def search_pattern(query: str, gpt2: bool = False) -> str:
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
        lines = "gp" if gpt2 else "rp"   # the text as shown, or as typed
        alts.append(rf"^[{lines}]:[^\n]*{re.escape(query)}")
    if q.isdigit():
        alts.append(rf"^#{int(q)}#")
    if raw is not None:
        alts.append(rf"^x:(?:[0-9a-f]{{2}} )*{re.escape(raw.hex(' ') + ' ')}")
    return "|".join(alts)


class VocabModel(HeaderedTableModel):
    ID, TOKEN, LENGTH, STEP, COUNT, STATUS, CLASS, IOS, MERGED, OUTPUT, TURN = range(11)
    HEADERS = ("Id", "Token", "Bytes", "Step", "Count", "Status", "Class", "IoS", "Merged",
               "Output", "Turn")
    DEAD_COLUMNS = (IOS, MERGED, OUTPUT)   # shown while dead weight is
    TIPS = ("Token id",
            "The token (· is a space, ↵ a newline, <E4 BD> bytes of a partial character)",
            "Length in bytes",
            "The merge step that created it (base: a starting symbol)",
            "How often its pair occurred when it was merged",
            "live: still occurs on its own; pruned: every occurrence was merged away",
            "ok: its text encodes to this token again; unreachable: to other tokens; "
            "undecodable: not valid UTF-8 (part of a character); special (hover a token "
            "for more)",
            "Dead weight on a corpus (PickyBPE's intersection over self): the share of the "
            "token's occurrences in which it is merged further into a larger token. Near 1: "
            "the model almost never sees it on its own (hover for the counts)",
            "Dead weight: how often the token was formed on the corpus and then merged "
            "further into a larger token",
            "Dead weight: how often the token is a token of the corpus's encoding (what the "
            "model sees)",
            "Parity-aware training: the language whose turn made the token (global: a "
            "plain-BPE merge before the turns)")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.entries: list[VocabEntry] = []
        self.order: list[int] | None = None    # sorted view: row -> index into entries
        self.sort_column, self.sort_order = -1, Qt.SortOrder.AscendingOrder
        self.n_base = 0
        self._by_id: dict[int, int] | None = None   # only when ids are not 0..n-1
        self.unused: frozenset[int] = frozenset()
        self.pruned: dict[int, int] = {}             # id -> step it stopped occurring
        self.cache = ReadableCache()
        self.gpt2 = False
        self.inherited = False
        self.source = "trained"
        self._keys: dict[int, str] = {}
        self.search = ""                             # regex over search keys; "" = all rows
        self._index: SearchIndex | None = None
        # {gpt2: (rank, order)} by token text, when prepared with the rows
        self._ranks: dict[bool, tuple[list[int], list[int]]] = {}
        self._gpt2_search = False
        self.classes = None                          # analysis.Reachability, if known
        # why an unreachable token is so, in a sentence ('' if nothing to add): set by
        # the browser (the controller's TokenClasses.context_note)
        self.class_note: Callable[[int], str] | None = None
        self.class_filter = ""                       # show only this class ("": all)
        self.dead: DeadWeight | None = None          # dead weight on a corpus, if measured
        self.dead_corpus = ""                        # what it was measured on, in words
        self.dead_threshold: float | None = None     # show only IoS >= this (None: all)
        # parity-aware training: whose turn made the token of step k ("" if none)
        self.turn_of: Callable[[int], str] | None = None
        self._italic = QFont()
        self._italic.setItalic(True)

    # ----- filling ------------------------------------------------------------------------
    def reset_trained(self, trainer) -> None:
        """Rows of a training run (a TrainerView, or None) as of its step now."""
        self.beginResetModel()
        self.source = "trained"
        # trained on from a tokenizer: its tokens are "inherited", not base symbols
        self.inherited = getattr(trainer, "n_inherited", 0) > 0
        self.entries = base_entries(trainer) if trainer is not None else []
        self._ranks = {}
        self.n_base = len(self.entries)
        self._by_id = None
        self.pruned = {}
        steps = trainer.steps if trainer is not None else []
        for rec in steps:
            self.entries.append(entry_of_step(rec))
            for t in rec.removed:
                self.pruned.setdefault(t, rec.index)
        if trainer is not None:
            self.unused = trainer.unused_base(self.pruned)
        else:
            self.unused = frozenset()
        self._keys = {}
        self._index = None
        self.order = self._sorted_order()
        self.endResetModel()

    def reset_imported(self, tok: Tokenizer) -> None:
        self.beginResetModel()
        self.source = "imported"
        self.inherited = False
        self.entries = imported_entries(tok)
        prepared = _PREPARED.get(tok)
        self._index = prepared[1] if prepared is not None else None
        self._ranks = prepared[2] if prepared is not None else {}
        self.n_base = sum(1 for e in self.entries if e.kind != MERGE_ENTRY)
        self._by_id = {e.id: i for i, e in enumerate(self.entries)}
        self.pruned, self.unused = {}, frozenset()
        self._keys = {}
        self.order = self._sorted_order()
        self.endResetModel()

    def set_search(self, query: str, gpt2: bool = False) -> None:
        """Show only the rows a query finds (text, id or hex; see search_rows)."""
        self.beginResetModel()
        self.search, self._gpt2_search = query, gpt2
        self.order = self._sorted_order()
        self.endResetModel()

    def set_classes(self, reach) -> None:
        """The classes of the tokens (a Reachability snapshot, or None: not known)."""
        if reach is self.classes:
            return
        self.classes = reach
        if self.class_filter or self.sort_column == self.CLASS:
            self.beginResetModel()   # rows come and go through the filter
            self.order = self._sorted_order()
            self.endResetModel()
        elif self.entries:
            self.dataChanged.emit(self.index(0, self.CLASS),
                                  self.index(self.n_rows() - 1, self.CLASS))

    def set_class_filter(self, kind: str) -> None:
        """Show only the tokens of one class ("ok", "unreachable", ...; "" for all)."""
        self.beginResetModel()
        self.class_filter = kind
        self.order = self._sorted_order()
        self.endResetModel()

    def set_dead(self, dead: DeadWeight | None, corpus: str = "") -> None:
        """Dead weight measured on a corpus (None: not measured for what is shown)."""
        if dead is self.dead:
            return
        self.dead, self.dead_corpus = dead, corpus
        if self.dead_threshold is not None or self.sort_column in self.DEAD_COLUMNS:
            self.beginResetModel()
            self.order = self._sorted_order()
            self.endResetModel()
        elif self.entries:
            self.dataChanged.emit(self.index(0, self.IOS),
                                  self.index(self.n_rows() - 1, self.OUTPUT))

    def set_dead_filter(self, threshold: float | None) -> None:
        """Show only the merged tokens whose IoS is at least ``threshold`` (None: all)."""
        self.beginResetModel()
        self.dead_threshold = threshold
        self.order = self._sorted_order()
        self.endResetModel()

    def ios(self, tid: int) -> float | None:
        return self.dead.ios(tid) if self.dead is not None else None

    def class_of(self, tid: int) -> str:
        """'ok' / 'unreachable' / 'undecodable' / 'special', or '…' (not known yet)."""
        return class_text(self.classes, tid)

    def _filtered(self) -> bool:
        return bool(self.search or self.class_filter) or self.dead_threshold is not None

    def _matching(self) -> list[int]:
        """Indices of the entries the search and the class filter let through, in entry
        order."""
        rows: Sequence[int] = range(len(self.entries))
        if self.search:
            if self._index is None:
                self._index = search_index(self.entries)[0]

            def index_of(tid: int) -> int | None:
                if self._by_id is not None:
                    return self._by_id.get(tid)
                return tid if 0 <= tid < len(self.entries) else None
            rows = search_rows(self._index, index_of, self.search, self._gpt2_search)
        if self.class_filter:
            want = KINDS.index(self.class_filter)
            e, reach = self.entries, self.classes
            rows = [i for i in rows if code_of(reach, e[i].id) == want]
        if self.dead_threshold is not None:
            dead, at = self.dead, self.dead_threshold
            keep = set() if dead is None else {t.id for t in dead.dead(at)}
            e = self.entries
            rows = [i for i in rows if e[i].id in keep]
        return list(rows)

    def sync(self, steps: Sequence[MergeStep]) -> None:
        """Follow the trainer: rows = base + one per merge up to now (append/remove)."""
        if self._filtered():   # rows come and go through the filter: rebuild them at once
            n = self.n_base + len(steps)
            if len(self.entries) != n or any(
                    e.id != r.new_id for e, r in zip(self.entries[self.n_base:], steps)):
                self.beginResetModel()
                del self.entries[self.n_base:]
                self.entries += [entry_of_step(r) for r in steps]
                self.pruned = {}
                for e in self.entries:
                    for t in e.removed:
                        self.pruned.setdefault(t, e.step)
                self._keys, self._index = {}, None
                self.order = self._sorted_order()
                self.endResetModel()
            return
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
        self._index = None
        for e in gone:
            self._keys.pop(e.id, None)
            for t in e.removed:
                if self.pruned.get(t) == e.step:
                    del self.pruned[t]

    def _append(self, new: list[VocabEntry]) -> None:
        first = len(self.entries)
        self._index = None
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
            ranks = self._ranks.get(self.gpt2)
            if ranks is not None:   # worked out with the rows (prepare_imported)
                return ranks[0].__getitem__
            return lambda i: self.cache.text(e[i].token)
        if column == self.LENGTH:
            return lambda i: (len(e[i].token), e[i].id)
        if column == self.STEP:
            return lambda i: (e[i].kind != SPECIAL_ENTRY, e[i].step, e[i].id)
        if column == self.COUNT:
            return lambda i: (e[i].count or 0, e[i].id)
        if column == self.STATUS:
            return lambda i: (self.status(e[i]), e[i].id)
        if column == self.CLASS:
            reach = self.classes
            return lambda i: (code_of(reach, e[i].id), e[i].id)
        if column == self.IOS:
            dead = self.dead
            if dead is None:
                return lambda i: e[i].id

            measured: DeadWeight = dead

            def ios_key(i: int):
                v = measured.ios(e[i].id)
                return (-1.0 if v is None else v, measured.merged.get(e[i].id, 0), e[i].id)
            return ios_key
        if column == self.TURN:
            turn = self.turn_text
            return lambda i: (turn(e[i]), e[i].id)
        if column in (self.MERGED, self.OUTPUT):
            dead = self.dead
            if dead is None:
                return lambda i: e[i].id
            counts = dead.merged if column == self.MERGED else dead.output
            return lambda i: (counts.get(e[i].id, 0), e[i].id)
        return lambda i: e[i].id

    def _sorted_order(self) -> list[int] | None:
        col = self.sort_column
        filtered = self._filtered()
        rows = self._matching() if filtered else range(len(self.entries))
        if col < 0 or (col == self.ID and self.sort_order == Qt.SortOrder.AscendingOrder
                       and self._by_id is None):
            return list(rows) if filtered else None
        down = self.sort_order == Qt.SortOrder.DescendingOrder
        ranks = self._ranks.get(self.gpt2) if col == self.TOKEN else None
        if ranks is not None and not filtered:   # every row, in an order made already
            return ranks[1][::-1] if down else list(ranks[1])
        return sorted(rows, key=self._key(col), reverse=down)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
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

    def id_of_token(self, token: bytes) -> int | None:
        """The id of the token spelled ``token`` (the first, if a vocabulary has it
        twice), or None."""
        return next((e.id for e in self.entries if e.token == token), None)

    def row_of_id(self, tid: int) -> int | None:
        """The row showing token ``tid``, or None (not in the vocabulary, or filtered out)."""
        i = self._by_id.get(tid) if self._by_id is not None else \
            (tid if 0 <= tid < len(self.entries) else None)
        if i is None:
            return None
        if self.order is None:
            return i
        try:
            return self.order.index(i)
        except ValueError:
            return None

    def kind_text(self, e: VocabEntry) -> str:
        """'base', 'special', 'merge', or 'inherited' for a token of the tokenizer
        trained on from."""
        return "inherited" if self.inherited and e.kind == BASE_ENTRY else e.kind

    def status(self, e: VocabEntry) -> str:
        if e.kind == SPECIAL_ENTRY:
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

    def turn_text(self, e: VocabEntry) -> str:
        """Whose turn made this token (parity-aware training), or ""."""
        if self.turn_of is None or e.kind != MERGE_ENTRY or not e.step:
            return ""
        return self.turn_of(e.step)

    def token_text(self, e: VocabEntry) -> str:
        return self.cache.text(e.token)

    def _text_of_id(self, tid: int) -> str:
        e = self.entry_by_id(tid)
        return self.cache.text(e.token) if e is not None else f"#{tid}"

    # ----- Qt model ---------------------------------------------------------------------------
    def n_rows(self) -> int:
        return len(self.entries) if self.order is None else len(self.order)



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
                return str(e.step) if e.kind == MERGE_ENTRY else self.kind_text(e)
            if col == self.COUNT:
                return f"{e.count:,}" if e.count is not None else ""
            if col == self.CLASS:
                return class_text(self.classes, e.id)
            if col == self.TURN:
                return self.turn_text(e)
            if col == self.IOS:
                return ios_text(self.ios(e.id))
            if col in (self.MERGED, self.OUTPUT):
                if self.dead is None:
                    return ""
                counts = self.dead.merged if col == self.MERGED else self.dead.output
                return f"{counts.get(e.id, 0):,}"
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
            return e.kind == SPECIAL_ENTRY
        if role == FONT and col == self.TOKEN and self.cache(e.token)[1]:
            return self._italic
        if role == ALIGN and col in (self.ID, self.LENGTH, self.STEP, self.COUNT, self.IOS,
                                     self.MERGED, self.OUTPUT):
            return ALIGN_RIGHT
        if role == TOOLTIP:
            if col == self.CLASS:
                note = self.class_note(e.id) if self.class_note is not None else ""
                return class_tip(self.classes, e.id, self._text_of_id, note)
            if col in self.DEAD_COLUMNS:
                return self.ios_tip(e.id)
            return (f"id {e.id}: {self.cache.text(e.token)}\nbytes {e.token.hex(' ').upper()}"
                    f"{token_note(e.token)}")
        return None

    def ios_tip(self, tid: int) -> str:
        """What a token's IoS cell means, with its counts."""
        dead = self.dead
        if dead is None:
            return "Dead weight not measured: press Dead weight above the table"
        m, o = dead.merged.get(tid, 0), dead.output.get(tid, 0)
        where = f" on {self.dead_corpus}" if self.dead_corpus else ""
        if not m + o:
            return f"Never formed{where}"
        return (f"Formed {m + o:,} times{where}: merged further {m:,} times, a token of "
                f"the encoding {o:,} times (IoS {m / (m + o):.3f})")
