"""Slow pure-Python SentencePiece BPE: the stand-in for ``_pipeline``'s kind "spm" and
``Charsmap`` (csrc/imported/pipe_spm.c and charsmap.c tell the rules), and the merge trace
that word playback shows for every build.

Same results as the C code, on characters of a ``str`` instead of UTF-8 bytes (the
normalized text is valid UTF-8, so both are the same symbols); no segment cache.
"""
from __future__ import annotations

import heapq
import struct
from typing import Callable

N_CP = 0x110000
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
SPACE = "\u2581"
_NORMAL_GROUP = (NORMAL, USER_DEFINED, UNUSED)

# grapheme classes (charsmap.h)
GCB_OTHER, GCB_CR, GCB_LF, GCB_CONTROL, GCB_EXTEND, GCB_ZWJ, GCB_RI, GCB_PREPEND, \
    GCB_SPACINGMARK, GCB_L, GCB_V, GCB_T, GCB_LV, GCB_LVT = range(14)
GCB_PICT, INCB_LINKER, INCB_CONSONANT, INCB_EXTEND, INCB_MASK = 0x10, 0x20, 0x40, 0x60, 0x60
_classes: bytes | None = None


def set_grapheme_classes(table: bytes) -> None:
    global _classes
    if len(table) != N_CP:
        raise ValueError("set_grapheme_classes: one byte per code point")
    _classes = bytes(table)


def has_grapheme_classes() -> bool:
    return _classes is not None


# ----- the charsmap --------------------------------------------------------------------
def _leaf(u: int) -> bool:
    return (u >> 8) & 1 == 1


def _label(u: int) -> int:
    return u & 0x800000FF


def _offset(u: int) -> int:
    return (u >> 10) << ((u & (1 << 9)) >> 6)


class Charsmap:
    """A checked precompiled charsmap (charsmap.c): longest and first source strings."""

    def __init__(self, blob: bytes, hf: bool = True):
        blob = bytes(blob)
        if len(blob) <= 4:
            raise ValueError("it is shorter than its 4-byte header")
        size = int.from_bytes(blob[:4], "little")
        if size >= len(blob) - 4 + (1 if hf else 0) or size >= len(blob):
            raise ValueError("its trie is said to be longer than the blob (truncated?)")
        if size % 4 or size == 0:
            raise ValueError("its trie size is not a positive multiple of 4 bytes")
        self.units = struct.unpack(f"<{size // 4}I", blob[4:4 + size])
        self.strs = blob[4 + size:]
        if hf:
            try:
                self.strs.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError("its normalized strings are not UTF-8") from None
        self.root = [False] * 256
        self._check()

    def _string(self, v: int) -> bytes:
        e = self.strs.find(b"\0", v)
        return self.strs[v:e if e >= 0 else len(self.strs)]

    def _check(self) -> None:
        units, n = self.units, len(self.units)
        seen = bytearray(n)
        stack = [_offset(units[0])]
        at_root = True
        while stack:
            base = stack.pop()
            for label in range(1, 256):
                child = base ^ label
                if child >= n:
                    raise ValueError("its trie points outside itself (a child past the last unit)")
                u = units[child]
                if _label(u) != label:
                    continue
                if at_root:
                    self.root[label] = True
                nxt = child ^ _offset(u)
                if nxt >= n:
                    raise ValueError("its trie points outside itself (an offset past the last "
                                     "unit)")
                if _leaf(u):
                    v = units[nxt] & 0x7FFFFFFF
                    if v >= len(self.strs):
                        raise ValueError("a rule points outside the normalized strings")
                    try:
                        self._string(v).decode("utf-8")
                    except UnicodeDecodeError:
                        raise ValueError("a normalized string is not UTF-8") from None
                if not seen[child]:
                    seen[child] = 1
                    stack.append(nxt)
            at_root = False

    def _search(self, key: bytes, first: bool) -> tuple[int, bytes] | None:
        units, n = self.units, len(self.units)
        if not key or not self.root[key[0]]:
            return None
        pos = _offset(units[0])
        best = None
        found = 0
        for i, c in enumerate(key):
            if first and c == 0:
                return None
            pos ^= c
            if pos >= n or _label(units[pos]) != c:
                break
            u = units[pos]
            pos ^= _offset(u)
            if pos >= n:
                break
            if _leaf(u):
                hit = (i + 1, self._string(units[pos] & 0x7FFFFFFF))
                if first:
                    return hit
                if found < 32:
                    best = hit
                found += 1
        return None if first else best

    def longest(self, key: bytes) -> tuple[int, bytes] | None:
        return self._search(key, False)

    def first(self, key: bytes) -> bytes | None:
        hit = self._search(key, True)
        return None if hit is None else hit[1]

    def normalize_hf(self, text: str, changes: bool = False):
        """tokenizers' Precompiled normalizer (charsmap_hf)."""
        if _classes is None:
            raise RuntimeError("set_grapheme_classes() was not called")
        out: list[str] = []
        ch: list[int] = []

        def replace(old: str, new: str) -> None:
            out.append(new)
            ch.extend([0] * len(new))
            diff = len(new) - len(old)
            if diff > 0:
                for i in range(1, min(diff, len(ch)) + 1):
                    ch[-i] = 1
            elif diff < 0 and ch:
                ch[-1] += diff

        i, n = 0, len(text)
        while i < n:
            j = grapheme_end(text, i)
            g = text[i:j]
            gb = g.encode("utf-8", "surrogatepass")
            norm = self.first(gb) if len(gb) < 6 else None
            if norm is not None:
                replace(g, norm.decode("utf-8"))
            else:
                for c in g:
                    nc = self.first(c.encode("utf-8", "surrogatepass"))
                    if nc is not None:
                        replace(c, nc.decode("utf-8"))
                    else:
                        out.append(c)
                        ch.append(0)
            i = j
        s = "".join(out)
        return (s, ch) if changes else s


def grapheme_end(text: str, i: int) -> int:
    """The end of the extended grapheme cluster at text[i] (charsmap.c grapheme_end)."""
    cls = _classes
    assert cls is not None

    def at(k: int) -> int:
        cp = ord(text[k])
        return cls[cp] if cp < N_CP else GCB_OTHER

    n = len(text)
    prev = at(i)
    pg = prev & 15
    pict = 1 if prev & GCB_PICT else 0
    ri = 1 if pg == GCB_RI else 0
    incb = 1 if prev & INCB_MASK == INCB_CONSONANT else 0
    j = i + 1
    while j < n:
        cur = at(j)
        cg = cur & 15
        if pg == GCB_CR and cg == GCB_LF:
            join = True
        elif pg in (GCB_CR, GCB_LF, GCB_CONTROL) or cg in (GCB_CR, GCB_LF, GCB_CONTROL):
            join = False
        elif pg == GCB_L and cg in (GCB_L, GCB_V, GCB_LV, GCB_LVT):
            join = True
        elif pg in (GCB_LV, GCB_V) and cg in (GCB_V, GCB_T):
            join = True
        elif pg in (GCB_LVT, GCB_T) and cg == GCB_T:
            join = True
        elif cg in (GCB_EXTEND, GCB_ZWJ, GCB_SPACINGMARK) or pg == GCB_PREPEND:
            join = True
        elif incb == 2 and cur & INCB_MASK == INCB_CONSONANT:
            join = True
        elif pict == 2 and cur & GCB_PICT:
            join = True
        else:
            join = pg == GCB_RI and cg == GCB_RI and ri % 2 == 1
        if not join:
            return j
        ic = cur & INCB_MASK
        if ic == INCB_CONSONANT:
            incb = 1
        elif incb and ic == INCB_LINKER:
            incb = 2
        elif not (incb and ic == INCB_EXTEND):
            incb = 0
        if cur & GCB_PICT:
            pict = 1
        elif pict and cg == GCB_EXTEND:
            pass
        elif pict == 1 and cg == GCB_ZWJ:
            pict = 2
        else:
            pict = 0
        ri = ri + 1 if cg == GCB_RI else 0
        pg = cg
        j += 1
    return n


# ----- the model ------------------------------------------------------------------------
Trace = Callable[[int, int, int], None]   # (position among the symbols, new id, rank)


class SpmNative:
    """The stand-in for a ``_pipeline.Model`` of kind "spm" (same methods)."""

    n_merges = 0

    def __init__(self, pieces: list, scores: list[float], types: bytes, llama: bool,
                 byte_fallback: bool):
        n = len(pieces)
        if not 0 < n < 1 << 26:
            raise ValueError(f"{'too many' if n else 'no'} pieces")
        texts = [p if isinstance(p, str) else bytes(p).decode("utf-8", "surrogateescape")
                 for p in pieces]
        self.pieces, self.types, self.llama = texts, bytes(types), llama
        self.byte_fallback = byte_fallback
        self.n_ids = n
        self.table: dict[str, int] = {}
        self.alt: dict[int, int] = {}
        order = range(n - 1, -1, -1) if llama else \
            [i for i in range(n) if types[i] not in _NORMAL_GROUP] + \
            [i for i in range(n) if types[i] in _NORMAL_GROUP]
        for i in order:
            t = texts[i]
            if not t:
                continue
            if t in self.table:
                if not llama:
                    self.alt[self.table[t]] = i
                continue
            self.table[t] = i
        for i, s in enumerate(scores):
            if s != s:
                raise ValueError(f"piece {i} has the score NaN")
        distinct = sorted(set(scores), reverse=True)
        rank = {s: r for r, s in enumerate(distinct)}
        self.srank = [rank[s] for s in scores]
        self.ud = {texts[i] for i in range(n) if not llama and types[i] == USER_DEFINED and texts[i]}
        self.ud_lens = sorted({len(u) for u in self.ud}, reverse=True)
        self.has_unused = not llama and any(types[i] == UNUSED and len(texts[i]) > 1
                                            for i in range(n))
        self.max_len = max(len(t) for t in texts)
        self.fb = []
        for b in range(256):
            f = self.table.get(f"<0x{b:02X}>", -1) if (byte_fallback or llama) else -1
            if llama and f < 0:
                f = self.table.get(bytes([b]).decode("latin-1"), -1) if b < 0x80 else -1
            self.fb.append(f)
        self.unk_id = -1 if llama else next((i for i in range(n) if types[i] == UNKNOWN), -1)
        self.joins: dict[str, int] = {}
        self.pairs: set[tuple[str, str]] = set()
        for i, t in enumerate(texts):
            if len(t) > 1 and (llama or types[i] in _NORMAL_GROUP):
                for c, d in zip(t, t[1:]):
                    self.joins[c] = self.joins.get(c, 0) | 1
                    self.joins[d] = self.joins.get(d, 0) | 2
                    self.pairs.add((c, d))
        self.cm: Charsmap | None = None
        self.add_dummy_prefix = self.escape_ws = True
        self.remove_extra_ws = self.ws_suffix = False

    @classmethod
    def from_spm(cls, pieces, scores: bytes, types: bytes, llama: bool, byte_fallback: bool):
        values = list(struct.unpack(f"<{len(scores) // 4}f", scores))
        if len(values) != len(pieces) or len(types) != len(pieces):
            raise ValueError("from_spm: one score (float32) and one type a piece")
        return cls(pieces, values, types, llama, byte_fallback)

    def spm_normalizer(self, charsmap, add_dummy_prefix, remove_extra_ws, escape_ws,
                       ws_suffix) -> None:
        try:
            self.cm = Charsmap(charsmap, hf=False) if charsmap else None
        except ValueError as e:
            raise ValueError(f"the precompiled charsmap is damaged: {e}") from None
        self.add_dummy_prefix, self.remove_extra_ws = bool(add_dummy_prefix), bool(remove_extra_ws)
        self.escape_ws, self.ws_suffix = bool(escape_ws), bool(ws_suffix)

    # ----- keys -------------------------------------------------------------------------
    def id_of(self, key: bytes) -> int:
        return self.table.get(bytes(key).decode("utf-8", "surrogateescape"), -1)

    def key(self, i: int) -> bytes | None:
        return self.pieces[i].encode("utf-8", "surrogateescape") if 0 <= i < self.n_ids else None

    def key_text(self, i: int) -> str | None:
        return self.pieces[i] if 0 <= i < self.n_ids else None

    def text_id(self, text: str) -> int:
        return self.table.get(text, -1)

    # ----- normalizing --------------------------------------------------------------------
    def _ud_match(self, s: str, i: int) -> int:
        for n in self.ud_lens:
            if i + n <= len(s) and s[i:i + n] in self.ud:
                return n
        return 0

    def _prefix(self, s: str, b: bytes, i: int, bi: int) -> tuple[str, int]:
        """(normalized text, characters taken) at s[i] (b: s as UTF-8, bi: i in it)."""
        if self.ud:
            k = self._ud_match(s, i)
            if k:
                return s[i:i + k], k
        if self.cm is not None:
            hit = self.cm.longest(b[bi:bi + 64])
            if hit is not None:
                used, norm = hit
                return norm.decode("utf-8"), len(b[bi:bi + used].decode("utf-8"))
        return s[i], 1

    def spm_normalize(self, text: str, prefix: bool = True) -> tuple[str, list[int]]:
        out: list[str] = []
        src: list[int] = []

        def put(t: str, at: int) -> None:
            for c in t:
                if self.escape_ws and c == " ":
                    c = SPACE
                out.append(c)
                src.append(at)

        n = len(text)
        if self.llama:
            if prefix and n:
                put(" ", 0)
            for i, c in enumerate(text):
                put(" " if c == " " else c, i)
            return "".join(out), src + [n]
        b = text.encode("utf-8")
        offs = [0]
        for c in text:
            offs.append(offs[-1] + len(c.encode("utf-8")))
        i = 0
        if self.remove_extra_ws:
            while i < n:
                t, k = self._prefix(text, b, i, offs[i])
                if t != " ":
                    break
                i += k
        if i == n:
            return "", [n]
        if not self.ws_suffix and self.add_dummy_prefix:
            put(" ", i)
        prev_space = self.remove_extra_ws
        while i < n:
            t, k = self._prefix(text, b, i, offs[i])
            if prev_space:
                t = t.lstrip(" ")
            if t:
                put(t, i)
                prev_space = t.endswith(" ")
            i += k
            if not self.remove_extra_ws:
                prev_space = False
        end = i
        if self.remove_extra_ws:
            sp = SPACE if self.escape_ws else " "
            while out and out[-1] == sp:
                out.pop()
                end = src.pop()
        if self.ws_suffix and self.add_dummy_prefix:
            put(" ", end)
        return "".join(out), src + [end]

    # ----- merging -----------------------------------------------------------------------
    def candidate(self, text: str) -> int:
        """The piece a merge making ``text`` gives (sentencepiece: NORMAL, USER_DEFINED
        or UNUSED only), or -1."""
        return self._candidate(text)

    def _candidate(self, text: str) -> int:
        t = self.table.get(text, -1)
        if t < 0 or self.llama:
            return t
        return t if self.types[t] in _NORMAL_GROUP else self.alt.get(t, -1)

    def symbols(self, word: str) -> list[tuple[int, int, bool]]:
        """(start, end, frozen) of the first symbols: characters, user-defined symbols."""
        out, i = [], 0
        while i < len(word):
            k = self._ud_match(word, i) if self.ud else 0
            out.append((i, i + (k or 1), k > 0))
            i += k or 1
        return out

    def merge_spans(self, word: str, trace: Trace | None = None) -> list[tuple[int, int]]:
        """The final symbols' (start, end) in ``word`` (UNUSED pieces re-split)."""
        syms = self.symbols(word)
        n = len(syms)
        st = [s for s, _, _ in syms]
        ln = [e - s for s, e, _ in syms]
        frozen = [f for _, _, f in syms]
        prv = list(range(-1, n - 1))
        nxt = list(range(1, n)) + [-1]
        heap: list[tuple[int, int, int, int]] = []
        rev: dict[int, tuple[int, int, int]] = {}

        def add(left: int, right: int) -> None:
            if left < 0 or right < 0 or (not self.llama and (frozen[left] or frozen[right])):
                return
            size = ln[left] + ln[right]
            if size > self.max_len:
                return
            p = self._candidate(word[st[left]:st[left] + size])
            if p < 0:
                return
            heapq.heappush(heap, (self.srank[p], left, right, size))
            if self.has_unused and self.types[p] == UNUSED:
                rev[p] = (st[left], ln[left], ln[right])

        for i in range(1, n):
            add(i - 1, i)
        while heap:
            r, left, right, size = heapq.heappop(heap)
            if not ln[left] or not ln[right] or ln[left] + ln[right] != size:
                continue
            if trace is not None:
                pos = 0
                k = left
                while prv[k] >= 0:
                    k = prv[k]
                    pos += 1
                trace(pos, self._candidate(word[st[left]:st[left] + size]), r)
            ln[left] += ln[right]
            ln[right] = 0
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prv[nxt[right]] = left
            add(prv[left], left)
            add(left, nxt[left])
        out: list[tuple[int, int]] = []

        def reseg(s: int, k: int) -> None:
            if self.has_unused:
                t = self.table.get(word[s:s + k], -1)
                if t >= 0 and self.types[t] == UNUSED and t in rev:
                    a, la, lb = rev[t]
                    reseg(a, la)
                    reseg(a + la, lb)
                    return
            out.append((s, s + k))

        i = 0 if n else -1
        while i != -1:
            reseg(st[i], ln[i])
            i = nxt[i]
        return out

    def ids_of(self, word: str, spans: list[tuple[int, int]], prev_unk: bool = False,
               offsets: list | None = None) -> tuple[list[int], bool]:
        """The ids of final symbols (byte fallback, one <unk> for several)."""
        ids: list[int] = []
        for s, e in spans:
            t = self.table.get(word[s:e], -1)
            if self.llama and t < 0:
                bs = word[s:e].encode("utf-8", "surrogatepass")
                for k, byte in enumerate(bs):
                    ids.append(self.fb[byte])
                    if offsets is not None:
                        offsets.append((s, e if k == len(bs) - 1 else s))
                continue
            if self.llama:
                ids.append(t)
                if offsets is not None:
                    offsets.append((s, e))
                continue
            if t < 0:
                t = self.unk_id
            unk = t == self.unk_id
            if unk and self.byte_fallback:
                bs = word[s:e].encode("utf-8", "surrogatepass")
                for k, byte in enumerate(bs):
                    ids.append(self.fb[byte])
                    if offsets is not None:
                        offsets.append((s, e if k == len(bs) - 1 else s))
            elif unk and prev_unk and ids:
                if offsets is not None:
                    offsets[-1] = (offsets[-1][0], e)
            else:
                ids.append(t)
                if offsets is not None:
                    offsets.append((s, e))
            prev_unk = unk
        return ids, prev_unk

    def spm_segments(self, norm: str) -> list[int]:
        ends = []
        unk2 = not self.llama and not self.byte_fallback
        for i in range(1, len(norm)):
            if unk2 and norm[i - 1] not in self.table and norm[i] not in self.table:
                continue   # two characters that are no piece: their <unk>s are one token
            if not self.has_unused and self._cut(norm[i - 1], norm[i]):
                ends.append(i)
        if norm:
            ends.append(len(norm))
        return ends

    def _cut(self, a: str, b: str) -> bool:
        if not (self.joins.get(a, 0) & 1) or not (self.joins.get(b, 0) & 2):
            return True
        return (a, b) not in self.pairs

    def _encode(self, text: str, prefix: bool, offsets: bool):
        norm, src = self.spm_normalize(text, prefix)
        ids: list[int] = []
        offs: list[tuple[int, int]] = []
        prev_unk = False
        start = 0
        for end in self.spm_segments(norm):
            seg = norm[start:end]
            got: list = []
            sid, prev_unk2 = self.ids_of(seg, self.merge_spans(seg), False, got)
            if sid and prev_unk and not self.llama and not self.byte_fallback and \
                    sid[0] == self.unk_id:
                offs[-1] = (offs[-1][0], got[0][1] + start)
                sid, got = sid[1:], got[1:]
            ids += sid
            offs += [(s + start, e + start) for s, e in got]
            prev_unk = prev_unk2
            start = end
        return ids, [(src[s], src[e]) for s, e in offs]

    def spm_encode(self, text: str, prefix: bool = True) -> list[int]:
        return self._encode(text, prefix, False)[0]

    def spm_encode_offsets(self, text: str, prefix: bool = True):
        ids, offs = self._encode(text, prefix, True)
        return ids, [s for s, _ in offs], [e for _, e in offs]

    def tokenize(self, word: str):
        offs: list = []
        ids, _ = self.ids_of(word, self.merge_spans(word), False, offs)
        b = [0]
        for c in word:
            b.append(b[-1] + len(c.encode("utf-8", "surrogatepass")))
        return tuple(ids), tuple(b[s] for s, _ in offs), tuple(b[e] for _, e in offs)

    def encode_words(self, words: list[str], cache: dict, cache_limit: int) -> list[int]:
        out: list[int] = []
        for w in words:
            ids = cache.get(w)
            if ids is None:
                ids = self.tokenize(w)[0]
                if len(cache) >= cache_limit:
                    cache.clear()
                cache[w] = ids
            out += ids
        return out
