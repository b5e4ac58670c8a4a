"""The model of a tokenizer trained here or read from GPT-2 files: learned merges in rank order.

Merges apply in the order they were learned (lowest rank first) inside each word; the
lowest-rank pair is merged at every place it occurs, left to right, which is exactly
what training did. Ids come from the vocabulary, ranks from the merge list (any id
layout works). The merge table lives in the C extension ``_encode`` (this module is the
only one that calls it); a Python loop is the fallback without a compiler.

A model grows one merge at a time (:meth:`MergeModel.add`: the trainer's tokenizer) and
:meth:`MergeModel.at` gives the same tables limited to the first n merges (a tokenizer
as of a training step).
"""
from __future__ import annotations

import copy
import sys
from collections.abc import Iterable, Sequence
from itertools import accumulate, repeat

from ..errors import BPEError, EncodeError
from .model import Word, WordModel, char_spans, word_text
from .symbols import EOW as _EOW, UNK as _UNK

try:  # the hot loop of byte-level encoding, in C; the Python loop below is the fallback
    from . import _encode
    from ._encode import Merger as _Merger, WordCache
    from ..text.scanner import install_tables
    install_tables(_encode)  # its copy of the scanner: the classes of the installed regex
except ImportError:  # pragma: no cover - only without a C compiler at install time
    _Merger = WordCache = None  # type: ignore[misc, assignment]  # optional C extension: None where it was not built

EOW, UNK = _EOW, _UNK   # (named here too: the trained tokenizer's symbols)
_NO_MERGE = (sys.maxsize, -1)  # (rank, new id) of a pair that has no merge
_IDENTITY = list(range(256))


class MergeModel(WordModel):
    """``vocab`` (id -> bytes) and ``token_to_id`` are shared with the tokenizer and grow
    with :meth:`add`; ``merges`` are (left, right) byte pairs in learned order."""

    def __init__(self, vocab: dict[int, bytes], token_to_id: dict[bytes, int],
                 merges, *, mode: str = "byte", end_of_word: str = "suffix"):
        self.vocab = vocab
        self.token_to_id = token_to_id
        self.mode = mode
        self.end_of_word = end_of_word
        self.merges: list[tuple[bytes, bytes]] = []
        self.ranks: dict[tuple[int, int], tuple[int, int]] = {}
        self.merge_ids: list[int] = []   # the id each merge makes, by rank
        self.limit = 0                   # merges in use (at_step: fewer than all)
        self.merger = None
        self.byte_ids: list[int] = _IDENTITY
        if mode == "byte":
            missing = [b for b in range(256) if bytes([b]) not in token_to_id]
            if missing:
                raise BPEError(f"The vocabulary lacks {len(missing)} single bytes (first: "
                               f"0x{missing[0]:02X}); a byte-level tokenizer needs all 256.")
            ids = [token_to_id[bytes([b])] for b in range(256)]
            self.byte_ids = _IDENTITY if ids == _IDENTITY else ids
            if _Merger is not None:
                self.merger = _Merger(self.byte_ids)
        self.unk = token_to_id.get(UNK)
        self.eow = token_to_id.get(EOW)
        for a, b in merges:
            self.add(a, b)

    @property
    def native(self) -> bool:
        """Whether words merge in C (byte level with the extension built)."""
        return self.merger is not None

    # ----- growing and limiting ------------------------------------------------------
    def add(self, a: bytes, b: bytes, new_id: int | None = None) -> None:
        """Append one merge; ``new_id``: the id of a token not yet in the vocabulary."""
        self.extend([(a, b, new_id)])

    def extend(self, merges: Iterable[tuple[bytes, bytes, int | None]]) -> None:
        """Append merges ``(a, b, new_id)`` in order, each as :meth:`add` appends one."""
        t2i, vocab, ranks, merger = self.token_to_id, self.vocab, self.ranks, self.merger
        append, append_id = self.merges.append, self.merge_ids.append
        rank = len(self.merges)
        try:
            for a, b, new_id in merges:
                ab = a + b
                if new_id is not None and ab not in t2i:
                    vocab[new_id] = ab
                    t2i[ab] = new_id
                try:
                    key = (t2i[a], t2i[b])
                    new = t2i[ab]
                except KeyError as e:
                    raise BPEError(f"Merge #{rank + 1} ({a!r} {b!r}) uses a token that is not "
                                   f"in the vocabulary ({e.args[0]!r}). The vocabulary and "
                                   "merges do not belong together.") from None
                append((a, b))
                append_id(new)
                if ranks.setdefault(key, (rank, new))[0] == rank and merger is not None:
                    merger.add(key[0], key[1], rank, new)
                rank += 1
        finally:
            self.limit = len(self.merges)

    def at(self, n: int) -> "MergeModel":
        """The same tables with only the first ``n`` merges in use (shared, not copied)."""
        clone = copy.copy(self)
        clone.limit = max(0, min(n, len(self.merges)))
        return clone

    @property
    def n_merges(self) -> int:
        return self.limit

    # ----- one word ----------------------------------------------------------------------
    def token(self, i: int) -> bytes:
        return self.vocab[i]

    def rank(self, left: int, right: int) -> tuple[int, int] | None:
        got = self.ranks.get((left, right))
        return got if got is not None and got[0] < self.limit else None

    def start(self, piece: Word) -> list[int]:
        if self.mode == "byte":
            raw = piece if isinstance(piece, bytes) else piece.encode("utf-8")
            bid = self.byte_ids
            if bid is _IDENTITY:  # the usual layout: byte b has id b
                return list(raw)
            return [bid[b] for b in raw]
        piece = word_text(piece)
        core = piece.strip()
        ids = []
        for ch in core:
            i = self.token_to_id.get(ch.encode("utf-8"), self.unk)
            if i is None:
                raise EncodeError(f"The character {ch!r} is not in this character-level "
                                  "vocabulary and it has no <unk> token.")
            ids.append(i)
        if self.eow is not None and core:
            if self.end_of_word == "suffix":
                ids.append(self.eow)
            elif piece[:1].isspace():
                ids.insert(0, self.eow)
        return ids

    def merge(self, piece: Word) -> tuple[int, ...]:
        return self.merge_symbols(self.start(piece))

    def merge_symbols(self, ids: Sequence[int]) -> tuple[int, ...]:
        """Apply merges lowest rank first; each pair everywhere, left to right.

        Example (merges 'a b' then 'ab c'): [a, b, c, a, b] -> [abc, ab]
        """
        if self.merger is not None:
            return self.merger.merge(ids, self.limit)
        ids = list(ids)   # merged in place below: never the caller's list
        get, limit = self.ranks.get, self.limit
        if len(ids) < 2:
            return tuple(ids)
        # found[i] = (rank, new id) of the pair at i; only neighbours change after a merge
        found = list(map(get, zip(ids, ids[1:]), repeat(_NO_MERGE)))
        while True:
            best = min(found)
            if best[0] >= limit:
                break
            i, new = found.index(best), best[1]
            if found.count(best) > 1:  # rare: every occurrence, left to right, no overlaps
                out, j = ids[:i], i
                while True:
                    out.append(new)
                    j += 2
                    try:
                        k = found.index(best, j)
                    except ValueError:
                        break
                    out += ids[j:k]
                    j = k
                ids = out + ids[j:]
                if len(ids) < 2:
                    break
                found = list(map(get, zip(ids, ids[1:]), repeat(_NO_MERGE)))
                continue
            ids[i:i + 2] = (new,)
            if i + 1 < len(ids):
                right = get((new, ids[i + 1]), _NO_MERGE)
                if i:
                    found[i - 1:i + 2] = (get((ids[i - 1], new), _NO_MERGE), right)
                else:
                    found[0:2] = (right,)
            elif i:
                found[i - 1:i + 1] = (get((ids[i - 1], new), _NO_MERGE),)
            else:
                break
        return tuple(ids)

    # ----- many words (the pipeline's model interface) -----------------------------------
    def encode_words(self, words: list[str], cache: dict, cache_limit: int) -> list[int]:
        """The ids of each word, through ``cache`` (word -> ids): the C loop at byte level,
        else each word merged here."""
        if self.merger is not None:
            return self.merger.encode_words(words, cache, self.limit, cache_limit)
        out: list[int] = []
        get = cache.get
        for w in words:
            ids = get(w)
            if ids is None:
                ids = self.merge(w)
                if len(cache) >= cache_limit:
                    cache.clear()
                cache[w] = ids
            out += ids
        return out

    def whole_text(self) -> tuple | None:
        """(merger, merges in use, words the encoder caches) for the C encoder of whole
        texts, or None (character level, or no C)."""
        if self.merger is None:
            return None
        return self.merger, self.limit, 1 << 16

    def token_spans(self, word: str) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
        """(ids, each token's character span in the word): at byte level from the tokens'
        byte lengths; at character level from their characters, ``</w>`` covering the
        space before a word (prefix) or nothing (suffix)."""
        ids = self.merge(word)
        vocab = self.vocab
        if self.mode == "byte":
            ends = list(accumulate(len(vocab[i]) for i in ids))
            return ids, char_spans(word, [0] + ends[:-1], ends)
        pos = len(word) - len(word.lstrip())
        spans = []
        for i in ids:
            t = vocab[i]
            eow = t.endswith(EOW) if self.end_of_word == "suffix" else t.startswith(EOW)
            body = t.replace(EOW, b"") if eow else t
            n = len(body.decode("utf-8", "replace")) if i != self.unk else 1
            if eow and self.end_of_word == "prefix":
                spans.append((pos - 1 if pos else 0, pos + n))
            else:
                spans.append((pos, pos + n))
            pos += n
        return ids, tuple(spans)

    def joins(self) -> bytes:
        """65536 flags, ``[x << 8 | y]`` set when a merge in use joins a token ending in
        byte x to one starting with byte y: between any other two bytes no merge can
        ever cross, since the token it makes would hold them side by side."""
        out = bytearray(65536)
        for a, b in self.merges[:self.limit]:
            out[a[-1] << 8 | b[0]] = 1
        return bytes(out)

    def encode_pieces(self, blob: bytes, starts, joins: bytes, cache) -> tuple[bytes, bytes]:
        """Byte level: many words at once (``blob`` cut at int64 ``starts``), each cut
        between every two bytes x, y with ``joins[x << 8 | y] == 0`` (no merge joins
        them: :meth:`joins`) and the segments merged through ``cache``. Returns
        the ids (int32) and each word's start among them (int64), as bytes."""
        assert self.merger is not None   # called only when .native
        return self.merger.encode_pieces(blob, starts, joins, self.limit, cache)


def word_cache(limit: int):
    """The C word cache for :meth:`MergeModel.encode_text`."""
    return WordCache(limit)
