"""Slow pure-Python stand-in for the C ``_pipeline.Model`` (no compiler at install time).

Same API and results (see csrc/pipeline.h and pipelinemodule.c); loading a 200k-token file takes
seconds instead of milliseconds. Tests run it against the C model on the same files.
"""
from __future__ import annotations

import base64
import binascii
import heapq
import sys

from ...display import gpt2_bytes
from ...display import gpt2_text
from ._pyspm import Charsmap, SpmNative, has_grapheme_classes, set_grapheme_classes

__all__ = ["Model", "Charsmap", "has_grapheme_classes", "set_grapheme_classes"]

_MAX = sys.maxsize


class Model:
    def __init__(self, by_bytes: bool = False):
        # tiktoken's rule (from_tiktoken): a pair's rank is its concatenated bytes', a
        # word that is a token is taken whole, pieces start from bytes, merges derived
        self.by_bytes = by_bytes
        self.byte_level = False
        self.keys: dict[bytes, int] = {}       # lookup keys
        self.first: dict[int, bytes] = {}      # id -> its first key (shown)
        self.pairs: dict[tuple[int, int], tuple[int, int]] = {}
        self.merges: list[tuple[int, int, int]] = []
        self.n_ids = 0
        self.ignore_merges = self.byte_fallback = self.fuse_unk = False
        self.unk_id = -1
        self.fb: list[int] = [-1] * 256
        self.text_only: set[int] = set()       # ByteLevel ids whose key is not in its alphabet
        self.eow = b""                          # end_of_word_suffix (key bytes)

    # ----- loading ----------------------------------------------------------------------
    @classmethod
    def from_hf(cls, vocab: dict, merges: list, byte_level: bool):
        m = cls()
        m.byte_level = bool(byte_level)
        for pos, (k, v) in enumerate(vocab.items()):
            if not isinstance(k, str) or isinstance(v, bool) or not isinstance(v, int) or v < 0:
                return m, ("vocab", pos, f"the id {v!r} of {k!r} is not a whole number")
        m.n_ids = max(vocab.values(), default=-1) + 1
        for k, v in vocab.items():
            key, lookup = k.encode("utf-8"), not byte_level
            if byte_level:
                try:
                    key, lookup = gpt2_bytes(k), True
                except KeyError:
                    pass
            if v not in m.first:
                m.first[v] = key
                if byte_level and not lookup:
                    m.text_only.add(v)
            if lookup:
                m.keys.setdefault(key, v)
        for i, item in enumerate(merges):
            parts = item.split(" ") if isinstance(item, str) else list(item) \
                if isinstance(item, (list, tuple)) else []
            if len(parts) != 2 or not all(isinstance(p, str) and p for p in parts):
                return m, ("merges", i, f"the merge {item!r} should be \"left right\" or "
                                        "[\"left\", \"right\"]")
            a, b = parts
            for j, p in enumerate((a, b, a + b)):
                if p not in vocab:
                    what = "merged token" if j == 2 else "token"
                    return m, ("merges", i, f"the {what} {p!r} of the merge {a!r} {b!r} is "
                                            "not in the vocabulary")
            m.pairs[(vocab[a], vocab[b])] = (i, vocab[a + b])
            m.merges.append((vocab[a], vocab[b], vocab[a + b]))
        return m, None

    @classmethod
    def from_spm(cls, pieces, scores: bytes, types: bytes, llama: bool, byte_fallback: bool):
        """A SentencePiece-style model (kind "spm": _pyspm.py)."""
        return SpmNative.from_spm(pieces, scores, types, llama, byte_fallback)

    @classmethod
    def from_tiktoken(cls, data: bytes):
        m = cls(by_bytes=True)
        ranks: dict[int, bytes] = {}
        for lineno, line in enumerate(bytes(data).split(b"\n"), 1):
            line = line.rstrip(b"\r")
            if not line:
                continue
            parts = line.split(b" ")
            if len(parts) != 2:
                return m, ("line", lineno, "each line must be 'BASE64 RANK' (token bytes in "
                                           "base64, one space, a whole number); this line has "
                                           f"{len(parts)} part(s)")
            # only padding: the empty token (Whisper's multilingual.tiktoken, rank 50256)
            empty = 0 < len(parts[0]) < 4 and set(parts[0]) == {ord("=")}
            try:
                token = b"" if empty else base64.b64decode(parts[0], validate=True)
            except (binascii.Error, ValueError):
                token = b""
            if not token and not empty:
                return m, ("line", lineno, f"{parts[0][:40]!r} is not valid base64 (or is empty)")
            if not parts[1].isdigit():
                return m, ("line", lineno, "the rank is not a whole number")
            r = int(parts[1])
            if r in ranks:
                return m, ("line", lineno, f"rank {r} was already given to another token")
            if empty:   # an id with no key to look up: shown (as nothing), never found
                ranks[r] = token
                continue
            if token in m.keys:
                return m, ("line", lineno, f"{token!r} was already given rank {m.keys[token]}")
            ranks[r] = token
            m.keys[token] = r
        m.first = ranks
        m.n_ids = max(ranks, default=-1) + 1
        return m, None

    def configure(self, ignore_merges, byte_fallback, unk_id, fuse_unk) -> None:
        self.ignore_merges, self.byte_fallback = bool(ignore_merges), bool(byte_fallback)
        self.fuse_unk = bool(fuse_unk)
        self.unk_id = unk_id if 0 <= unk_id < self.n_ids else -1
        self.fb = [self.keys.get(f"<0x{b:02X}>".encode(), -1) if byte_fallback else -1
                   for b in range(256)]

    def set_end_of_word_suffix(self, suffix: bytes) -> None:
        if len(suffix) > 60:
            raise ValueError("an end_of_word_suffix of more than 60 bytes")
        self.eow = bytes(suffix)

    # ----- tables -----------------------------------------------------------------------
    def tables(self, replacement: str | None, byte_fallback: bool):
        vocab: dict[int, bytes] = {}
        t2i: dict[bytes, int] = {}
        rep = replacement.encode("utf-8") if replacement else None
        for i in sorted(self.first):
            k = self.first[i]
            if not (self.by_bytes or self.byte_level):
                if byte_fallback and len(k) == 6 and k.startswith(b"<0x") and k.endswith(b">") \
                        and all(c in b"0123456789ABCDEF" for c in k[3:5]):
                    k = bytes([int(k[3:5], 16)])
                elif rep:
                    k = k.replace(rep, b" ")
            vocab[i] = k
            t2i.setdefault(k, i)
        return vocab, t2i

    def id_of(self, key: bytes) -> int:
        return self.keys.get(bytes(key), -1)

    @property
    def n_tokens(self) -> int:
        return len(self.first)

    def key(self, i: int) -> bytes | None:
        return self.first.get(i)

    @classmethod
    def from_hf_text(cls, data, vocab_span, merges_span, byte_level):
        return None   # the C reader only; json has read the file

    def key_text(self, i: int) -> str | None:
        k = self.first.get(i)
        if k is None:
            return None
        if self.byte_level and i not in self.text_only:
            return gpt2_text(k)
        return k.decode("utf-8", errors="replace")

    def text_id(self, text: str) -> int:
        key = text.encode("utf-8")
        if self.byte_level:
            try:
                key = gpt2_bytes(text)
            except KeyError:
                return next((i for i in self.text_only if self.first[i] == key), -1)
        return self.keys.get(key, -1)

    @property
    def n_merges(self) -> int:
        return len(self.merges)

    def merge(self, k: int) -> tuple[int, int, int]:
        return self.merges[k]

    # ----- encoding ---------------------------------------------------------------------
    def tokenize(self, word: str | bytes):
        """A str word by its UTF-8; bytes as they are (as the C model)."""
        w = word if isinstance(word, bytes) else word.encode("utf-8")
        syms = self._tokens(w)
        return (tuple(s[0] for s in syms), tuple(s[1] for s in syms), tuple(s[2] for s in syms))

    def encode_words(self, words: list, cache: dict, cache_limit: int) -> list[int]:
        out: list[int] = []
        for word in words:
            ids = cache.get(word)
            if ids is None:
                w = word if isinstance(word, bytes) else word.encode("utf-8")
                ids = tuple(s[0] for s in self._tokens(w))
                if len(cache) >= cache_limit:
                    cache.clear()
                cache[word] = ids
            out += ids
        return out

    def _tokens(self, w: bytes, limit: int = _MAX) -> list[list[int]]:
        if not w:
            return []
        if (self.by_bytes or self.ignore_merges) and w in self.keys and limit == _MAX:
            return [[self.keys[w], 0, len(w)]]
        syms = self._initial(w)
        return self._merge(syms, w, limit)

    def _initial(self, w: bytes) -> list[list[int]]:
        syms: list[list[int]] = []
        if self.by_bytes or self.byte_level:
            for i in range(len(w)):
                t = self.keys.get(w[i:i + 1] + (self.eow if i == len(w) - 1 else b""), -1)
                if t >= 0:
                    syms.append([t, i, i + 1])
                elif self.unk_id >= 0:
                    if self.fuse_unk and syms and syms[-1][0] == self.unk_id and syms[-1][2] == i:
                        syms[-1][2] = i + 1
                    else:
                        syms.append([self.unk_id, i, i + 1])
            return syms
        unk = None
        i = 0
        while i < len(w):   # characters by their first byte, as C (bytes words need not be UTF-8)
            b = w[i]
            j = min(len(w), i + (1 if b < 0x80 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4))
            c = w[i:j]
            if self.eow and j == len(w):   # the last character with the suffix
                c += self.eow
            t = self.keys.get(c, -1)
            if t >= 0:
                if unk:
                    syms.append(unk)
                    unk = None
                syms.append([t, i, j])
            elif self.byte_fallback and all(self.fb[b] >= 0 for b in c):
                syms += [[self.fb[b], min(i + k, j - 1), min(i + k, j - 1) + 1]
                         for k, b in enumerate(c)]
            elif self.unk_id >= 0:
                if unk and self.fuse_unk:
                    unk[2] = j
                else:
                    if unk:
                        syms.append(unk)
                    unk = [self.unk_id, i, j]
            i = j
        if unk:
            syms.append(unk)
        return syms

    def _rank(self, a: list[int], b: list[int], w: bytes) -> tuple[int, int]:
        if not self.by_bytes:
            return self.pairs.get((a[0], b[0]), (_MAX, -1))
        t = self.keys.get(w[a[1]:b[2]], -1)
        return (t, t) if t >= 0 else (_MAX, -1)

    def _merge(self, syms: list[list[int]], w: bytes, limit: int) -> list[list[int]]:
        """The lowest rank below ``limit`` first, the leftmost on ties, as the C engine's
        reference merge (csrc/merge/reference.c): symbols in a linked list, candidate
        merges in a heap of (rank, position)."""
        n = len(syms)
        nxt = list(range(1, n)) + [-1]
        prv = list(range(-1, n - 1))
        rk: list[tuple[int, int]] = []
        for i in range(n):
            got = self._rank(syms[i], syms[i + 1], w) if i + 1 < n else (_MAX, -1)
            rk.append(got if got[0] < limit else (_MAX, -1))
        heap = [(r[0], i) for i, r in enumerate(rk) if r[0] < _MAX]
        heapq.heapify(heap)
        while heap:
            r, i = heapq.heappop(heap)
            if syms[i] is None or rk[i][0] != r:
                continue   # stale: merged away, or its pair changed since
            j = nxt[i]
            syms[i] = [rk[i][1], syms[i][1], syms[j][2]]
            syms[j] = None  # type: ignore[call-overload]  # merged away (a tombstone)
            nxt[i] = nxt[j]
            if nxt[j] >= 0:
                prv[nxt[j]] = i
            for a in (i, prv[i]):
                if a < 0:
                    continue
                b = nxt[a]
                got = self._rank(syms[a], syms[b], w) if b >= 0 else (_MAX, -1)
                rk[a] = got if got[0] < limit else (_MAX, -1)
                if rk[a][0] < _MAX:
                    heapq.heappush(heap, (rk[a][0], a))
        return [s for s in syms if s is not None]

    def rebuild(self) -> list[int]:
        stray: list[int] = []
        if not self.by_bytes or self.merges:
            return stray
        for i in sorted(self.first):
            w = self.first[i]
            if len(w) < 2:
                continue
            syms = self._merge([[self.keys[w[k:k + 1]], k, k + 1] for k in range(len(w))], w, i)
            if len(syms) == 2:
                self.merges.append((syms[0][0], syms[1][0], i))
            else:
                stray.append(i)
        return stray
