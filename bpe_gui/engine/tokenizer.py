"""Tokenizer: encode text with learned merges, decode ids, stream big files.

Merges apply in the order they were learned (lowest rank first) inside each word;
the lowest-rank pair is merged at every place it occurs, left to right, which is
exactly what training did. Any id layout works: ids come from the vocabulary, ranks
from the merge list (so GPT-2's own files load as they are).

Example::

    >>> tok = Tokenizer(vocab, merges, special_tokens=["<|endoftext|>"])
    >>> tok.decode(tok.encode("héllo<|endoftext|>"))
    'héllo<|endoftext|>'
"""
from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence

from .errors import BPEError, EncodeError

try:  # the hot loop of byte-level encoding, in C; the Python loop below is the fallback
    from . import _encode
    from ._encode import Merger as _Merger, WordCache as _WordCache
    from .scanner import install_tables
    install_tables(_encode)  # its copy of the scanner: the classes of the installed regex
except ImportError:  # pragma: no cover - only without a C compiler at install time
    _Merger = _WordCache = None
from .blocks import NATIVE_PRESETS, outside_specials
from .pretokenize import Pretokenizer

if TYPE_CHECKING:
    from .explain import Explanation

EOW = b"</w>"
UNK = b"<unk>"
_CACHE_LIMIT = 1 << 18
_NO_MERGE = (sys.maxsize, -1)  # (rank, new id) of a pair that has no merge
_IDENTITY = list(range(256))

@dataclass(frozen=True)
class Encoding:
    """One encoding result: ids, token bytes and character spans, index-aligned.

    ``offsets[i] = (start, end)``: the characters of the text that token i covers. A
    token holding part of a UTF-8 character covers that whole character, so two
    neighbouring tokens may share one. ``special[i]`` marks special tokens.
    """

    ids: list[int]
    tokens: list[bytes]
    offsets: list[tuple[int, int]]
    special: list[bool] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ids)


class Tokenizer:
    """A byte-level (or character-level ``</w>``) BPE tokenizer.

    ``vocab`` maps id -> token bytes; ``merges`` lists (left, right) byte pairs in the
    order they were learned. Special tokens missing from ``vocab`` get new ids after
    the largest one. ``pattern`` is a preset name or regex; ``mode`` is "byte" or
    "char"; in char mode ``end_of_word`` is "suffix" (``low</w>``) or "prefix"
    (a space before a word becomes a leading ``</w>``).
    """

    def __init__(self, vocab: dict[int, bytes], merges: Sequence[tuple[bytes, bytes]],
                 special_tokens: Sequence[str] | None = None, *, pattern: str = "gpt2",
                 mode: str = "byte", end_of_word: str = "suffix",
                 meta: dict | None = None):
        if mode not in ("byte", "char"):
            raise BPEError(f"Unknown mode {mode!r}: use 'byte' or 'char'.")
        self.mode = mode
        self.end_of_word = end_of_word
        self.meta = dict(meta or {})
        self.vocab = dict(vocab)
        self.merges: list[tuple[bytes, bytes]] = [tuple(m) for m in merges]  # type: ignore
        self.special_tokens = list(special_tokens or [])
        self.pre = Pretokenizer(pattern, self.special_tokens)
        self.pattern = self.pre.pattern
        self.token_to_id: dict[bytes, int] = {}
        for i, t in self.vocab.items():
            self.token_to_id.setdefault(t, i)
        next_id = max(self.vocab, default=-1) + 1
        self.special_ids: dict[str, int] = {}
        for s in self.special_tokens:
            b = s.encode("utf-8")
            if b not in self.token_to_id:
                self.vocab[next_id] = b
                self.token_to_id[b] = next_id
                next_id += 1
            self.special_ids[s] = self.token_to_id[b]
        self._cache: dict[str, tuple[int, ...]] = {}
        # word -> (ids, token bytes, character spans inside the word), for offsets
        self._ocache: dict[str, tuple[tuple[int, ...], tuple[bytes, ...], tuple]] = {}
        self._merger = None
        self._native: int | None = None  # scanner preset: whole texts encode in C
        self._wcaches: list = []  # native word caches, one per thread encoding at once
        if mode == "byte":
            missing = [b for b in range(256) if bytes([b]) not in self.token_to_id]
            if missing:
                raise BPEError(f"The vocabulary lacks {len(missing)} single bytes (first: "
                               f"0x{missing[0]:02X}); a byte-level tokenizer needs all 256.")
            self._byte_ids = [self.token_to_id[bytes([b])] for b in range(256)]
            if self._byte_ids == _IDENTITY:
                self._byte_ids = _IDENTITY
            if _Merger is not None:
                self._merger = _Merger(self._byte_ids)
                if self.pre.native is not None:  # (None: BPE_GUI_NATIVE_SCAN=0)
                    self._native = NATIVE_PRESETS.get(self.pre.preset)
        self._build_ranks()
        self._unk = self.token_to_id.get(UNK)
        self._eow = self.token_to_id.get(EOW)

    def _build_ranks(self) -> dict[tuple[int, int], tuple[int, int]]:
        self._ranks: dict[tuple[int, int], tuple[int, int]] = {}
        self._merge_ids: list[int] = []
        self._max_rank = 0  # also right when there are no merges at all
        merges, self.merges = self.merges, []
        for a, b in merges:
            self._push_merge(a, b)
        return self._ranks

    def _push_merge(self, a: bytes, b: bytes, new_id: int | None = None) -> None:
        """Append one merge (the trainer grows its tokenizer this way, step by step)."""
        t2i = self.token_to_id
        rank = len(self.merges)
        if new_id is not None and a + b not in t2i:
            self.vocab[new_id] = a + b
            t2i[a + b] = new_id
        try:
            key = (t2i[a], t2i[b])
            new = t2i[a + b]
        except KeyError as e:
            raise BPEError(f"Merge #{rank + 1} ({a!r} {b!r}) uses a token that is not in "
                           f"the vocabulary ({e.args[0]!r}). The vocabulary and merges "
                           "do not belong together.") from None
        self.merges.append((a, b))
        self._merge_ids.append(new)
        if self._ranks.setdefault(key, (rank, new))[0] == rank and self._merger is not None:
            self._merger.add(key[0], key[1], rank, new)
        self._max_rank = len(self.merges)
        self._cache = {}
        self._ocache = {}
        self._wcaches = []   # (a cache made for another limit would empty itself anyway)

    # ----- as of a training step -------------------------------------------------
    def at_step(self, n_merges: int) -> "Tokenizer":
        """The same tokenizer with only the first ``n_merges`` merges (shares the tables)."""
        n = max(0, min(n_merges, len(self.merges)))
        clone = object.__new__(Tokenizer)
        clone.__dict__.update(self.__dict__)
        clone._max_rank = n
        clone._cache = {}
        clone._ocache = {}
        clone._wcaches = []
        if n < len(self.merges):
            clone.merges = self.merges[:n]
            clone._vocab = None   # the tokens of the first n merges, worked out when asked
            clone._vocab_of = (self.vocab, self._merge_ids, n)
        return clone

    @property
    def vocab(self) -> dict[int, bytes]:
        """id -> token bytes (only the tokens reachable with the merges in use)."""
        if self._vocab is None:
            full, merge_ids, n = self._vocab_of
            drop = set(merge_ids[n:]) - set(merge_ids[:n])
            self._vocab = {i: t for i, t in full.items() if i not in drop}
        return self._vocab

    @vocab.setter
    def vocab(self, value: dict[int, bytes]) -> None:
        self._vocab = value

    @property
    def meta(self) -> dict:
        """Settings and per-merge counts recorded in exports (may be computed late)."""
        if callable(self._meta):
            self._meta = self._meta()
        return self._meta

    @meta.setter
    def meta(self, value) -> None:
        self._meta = value   # a dict, or a function returning one when first read

    @property
    def n_merges(self) -> int:
        return self._max_rank

    # ----- encoding ---------------------------------------------------------------
    def _merge(self, ids: list[int]) -> tuple[int, ...]:
        """Apply merges lowest rank first; each pair everywhere, left to right.

        Example (merges 'a b' then 'ab c'): [a, b, c, a, b] -> [abc, ab]
        """
        if self._merger is not None:
            return self._merger.merge(ids, self._max_rank)
        get, limit = self._ranks.get, self._max_rank
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

    def _symbols(self, word: str) -> list[int]:
        if self.mode == "byte":
            bid = self._byte_ids
            if bid is _IDENTITY:  # the usual layout: byte b has id b
                return list(word.encode("utf-8"))
            return [bid[b] for b in word.encode("utf-8")]
        core = word.strip()
        ids = []
        for ch in core:
            i = self.token_to_id.get(ch.encode("utf-8"), self._unk)
            if i is None:
                raise EncodeError(f"The character {ch!r} is not in this character-level "
                                  "vocabulary and it has no <unk> token.")
            ids.append(i)
        if self._eow is not None and core:
            if self.end_of_word == "suffix":
                ids.append(self._eow)
            elif word[:1].isspace():
                ids.insert(0, self._eow)
        return ids

    def _word_ids(self, word: str) -> tuple[int, ...]:
        cached = self._cache.get(word)
        if cached is None:
            cached = self._merge(self._symbols(word))
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[word] = cached
        return cached

    def encode(self, text: str) -> list[int]:
        """Text -> token ids. Special tokens in the text become their ids."""
        if self._native is not None and self._merger is not None:
            plain = self._encode_native
        else:
            plain = self._encode_c if self._merger is not None else self._encode_words
        if not self.special_tokens:
            return plain(text)
        out: list[int] = []
        for piece in self.pre.pieces(text):
            if piece.special:
                out.append(self.special_ids[piece.text])
            else:
                out.extend(plain(piece.text))
        return out

    def _encode_words(self, text: str) -> list[int]:
        """Ids of a text without special tokens, word by word (any pattern)."""
        word_ids = self._word_ids
        return [i for w in self.pre.findall(text) for i in word_ids(w)]

    def _encode_c(self, text: str) -> list[int]:
        """Byte-level words through the C merge loop and the word cache."""
        return self._merger.encode_words(self.pre.findall(text),
                                         self._cache, self._max_rank, _CACHE_LIMIT)

    def _encode_native(self, text: str) -> list[int]:
        """A whole text scanned, merged and cached in C (the presets with a native scanner)."""
        caches = self._wcaches
        cache = caches.pop() if caches else _WordCache(_CACHE_LIMIT)  # pop: atomic
        try:
            return self._merger.encode_text(self._native, text, self._max_rank, cache)
        except UnicodeEncodeError:  # a lone surrogate: UTF-8 cannot hold it
            return self._encode_c(text)
        finally:
            caches.append(cache)

    def encode_batch(self, texts: Iterable[str], threads: int | None = None) -> list[list[int]]:
        """``[encode(t) for t in texts]`` on ``threads`` threads (default: one per core).

        Encoding is safe from any number of threads on one tokenizer; the native paths
        scan and merge without the GIL, so the threads use the cores (patterns run by
        ``regex`` and tokenizer.json pipelines hold the GIL while pre-tokenizing).
        """
        texts = list(texts)
        if threads is None:
            threads = os.cpu_count() or 1
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise BPEError(f"threads must be a whole number of at least 1, not {threads!r}.")
        if threads == 1 or len(texts) < 2:
            return [self.encode(t) for t in texts]
        with ThreadPoolExecutor(max_workers=min(threads, len(texts))) as pool:
            return list(pool.map(self.encode, texts))

    def encode_with_offsets(self, text: str) -> Encoding:
        """Ids, token bytes and character spans (for colouring text token by token)."""
        ids: list[int] = []
        toks: list[bytes] = []
        offs: list[tuple[int, int]] = []
        specials: list[int] = []
        cache, entry_of = self._ocache, self._offset_entry
        for piece in self.pre.pieces(text):
            if piece.special:
                i = self.special_ids[piece.text]
                specials.append(len(ids))
                ids.append(i), toks.append(self.vocab[i])
                offs.append((piece.start, piece.start + len(piece.text)))
                continue
            words = self.pre.findall(piece.text)
            if sum(map(len, words)) == len(piece.text):  # the presets cover every character
                placed = zip(words, accumulate(map(len, words), initial=piece.start))
            else:  # a custom pattern skipped some text: ask the regex where words are
                placed = ((piece.text[s:e], piece.start + s)
                          for s, e, _ in self.pre.spans(piece.text))
            for word, start in placed:
                entry = cache.get(word)
                if entry is None:
                    if not word:
                        continue
                    if len(cache) >= _CACHE_LIMIT:
                        cache.clear()
                    entry = cache[word] = entry_of(word)
                wids, wtoks, rel = entry
                ids += wids
                toks += wtoks
                offs += [(start + s, start + e) for s, e in rel]
        spec = [False] * len(ids)
        for k in specials:
            spec[k] = True
        return Encoding(ids, toks, offs, spec)

    def _offset_entry(self, word: str) -> tuple[tuple[int, ...], tuple[bytes, ...], tuple]:
        wids = self._word_ids(word)
        vocab = self.vocab
        if self.mode == "byte":
            spans = _byte_spans(word, [len(vocab[i]) for i in wids])
        else:
            spans = self._char_spans(word, wids)
        return wids, tuple(vocab[i] for i in wids), tuple(spans)

    def _char_spans(self, word: str, wids: tuple[int, ...]) -> list[tuple[int, int]]:
        lead = len(word) - len(word.lstrip())
        pos, spans = lead, []
        for i in wids:
            t = self.vocab[i]
            eow = t.endswith(EOW) if self.end_of_word == "suffix" else t.startswith(EOW)
            body = t.replace(EOW, b"") if eow else t
            n = len(body.decode("utf-8", "replace")) if i != self._unk else 1
            if eow and self.end_of_word == "prefix":
                spans.append((pos - 1 if pos else 0, pos + n))
            else:
                spans.append((pos, pos + n))
            pos += n
        return spans

    def encode_iterable(self, iterable: Iterable[str], chunk_chars: int = 1 << 16) -> Iterator[int]:
        """Encode a stream of text (e.g. an open file) lazily, in bounded memory.

        Text is buffered until ``chunk_chars``. With a native preset the buffer is cut at
        a safe cut (a place no word spans and nothing after can change the words before:
        see ``blocks.py``), never inside a special token, and the part before it is
        encoded: the ids equal ``encode`` of the whole text. Other patterns keep the last
        two words of the buffer back instead. A buffer that cannot be cut (one huge word)
        is tried again only once it has doubled, so the work stays linear.
        """
        scanner = self._native_scanner()
        hold = max(0, self.pre.max_special_len - 1)
        parts: list[str] = []
        size, limit = 0, chunk_chars
        for chunk in iterable:
            parts.append(chunk)
            size += len(chunk)
            if size < limit:
                continue
            buf = "".join(parts)
            if scanner is not None:
                cut = self._native_cut(scanner, buf, hold, chunk_chars)
                if cut > 0:
                    yield from self.encode(buf[:cut])
            else:
                cut = yield from self._regex_cut(buf, hold)
            parts, size = [buf[cut:]] if cut > 0 else [buf], len(buf) - max(cut, 0)
            limit = max(chunk_chars, 2 * size)
        buf = "".join(parts)
        if buf:
            yield from self.encode(buf)

    def _native_scanner(self):
        if self._native is None:
            return None
        from .scanner import native_scanner
        return native_scanner(self.pre.preset)

    def _native_cut(self, scanner, buf: str, hold: int, chunk_chars: int) -> int:
        hi = len(buf) - 1 - hold
        lo = max(0, hi - chunk_chars)
        try:
            cut = scanner.safe_cut(buf, lo, hi)
        except ValueError:  # lone surrogates: cut nowhere, the rest waits
            return -1
        if cut > 0 and self.special_tokens:
            cut = outside_specials(buf, cut, lo, [s for s in self.special_tokens])
        return cut

    def _regex_cut(self, buf: str, hold: int):
        """Encode the words of buf before its last two (a generator; returns the cut)."""
        spans = list(self.pre.spans(buf))
        cut = spans[-2][0] if len(spans) >= 2 else 0
        if hold:
            cut = max(0, min(cut, len(buf) - hold))
        # The words before the cut are those found in the whole buffer: encoding
        # buf[:cut] again could cut its end differently (\s+(?!\S) looks ahead).
        n = 0
        while n < len(spans) and spans[n][1] <= cut:
            n += 1
        if n < len(spans):
            cut = min(cut, spans[n][0])
        if n:
            yield from self._encode_spans(buf, spans[:n])
        return cut

    def _encode_spans(self, text: str, spans: list[tuple[int, int, bool]]) -> Iterator[int]:
        word_ids = self._word_ids
        for start, end, special in spans:
            if special:
                yield self.special_ids[text[start:end]]
            else:
                yield from word_ids(text[start:end])

    def explain(self, text: str) -> "Explanation":
        """Encoding step by step: each word with the pattern branch that took it, why
        it ended there, and the merges that built its tokens (see engine/explain.py).

        Example: ``tok.explain("it's").words[1].playback.steps`` -> the merges of "'s".
        """
        from .explain import explain
        return explain(self, text)

    # ----- decoding ---------------------------------------------------------------
    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        vocab = self.vocab
        try:
            return b"".join(vocab[i] for i in ids)
        except KeyError as e:
            raise EncodeError(f"Token id {e.args[0]} is not in the vocabulary "
                              f"(ids go up to {max(vocab)}).") from None

    def decode(self, ids: Iterable[int]) -> str:
        """Ids -> text; a partial UTF-8 character becomes U+FFFD, never an error."""
        data = self.decode_bytes(ids)
        if self.mode == "char":
            text = data.decode("utf-8", errors="replace").replace(EOW.decode(), " ")
            return text.strip() if self.end_of_word == "suffix" else text.lstrip()
        return data.decode("utf-8", errors="replace")

    # ----- another thread -----------------------------------------------------------
    def copy_for_thread(self) -> Callable[[], Tokenizer]:
        """For work on another thread while this tokenizer stays in use here. Encoding
        is safe from many threads on one tokenizer; what this adds is a snapshot: a
        trainer's tokenizer grows as training steps, the twin keeps this step's
        vocabulary and merges (C-level copies: about 1 ms for 20k merges) and shares the
        native merge table (merges added later have higher ranks, which it never uses).

        Example::

            build = trainer.tokenizer().copy_for_thread()   # on the GUI thread
            twin = build()                                  # on the worker thread
            assert twin.encode(text) == trainer.tokenizer().encode(text)
        """
        twin = self.at_step(self.n_merges)
        twin.merges = list(twin.merges)
        twin.vocab = dict(twin.vocab)
        twin.token_to_id = dict(self.token_to_id)
        twin._merge_ids = list(self._merge_ids[:self.n_merges])
        return lambda: twin

    # ----- loading ----------------------------------------------------------------
    @classmethod
    def from_files(cls, vocab_path, merges_path, special_tokens: Sequence[str] | None = None,
                   **kwargs) -> "Tokenizer":
        """GPT-2 style ``vocab.json`` + ``merges.txt`` (byte-to-unicode alphabet)."""
        from .formats import gpt2
        return gpt2.load(vocab_path, merges_path, special_tokens=special_tokens, **kwargs)

    def __repr__(self) -> str:
        return (f"Tokenizer({len(self.vocab)} tokens, {self._max_rank} merges, mode={self.mode}, "
                f"specials={self.special_tokens})")


def _byte_spans(word: str, lengths: list[int]) -> list[tuple[int, int]]:
    """Character span of each token, given token byte lengths within one word.

    Example: word 'a你', lengths [1, 2, 1] -> [(0, 1), (1, 2), (1, 2)]
    (the last two tokens each hold part of 你).
    """
    if word.isascii():
        spans, pos = [], 0
        for n in lengths:
            spans.append((pos, pos + n))
            pos += n
        return spans
    char_of_byte: list[int] = []
    for ci, ch in enumerate(word):
        char_of_byte.extend([ci] * len(ch.encode("utf-8")))
    spans, pos = [], 0
    for n in lengths:
        spans.append((char_of_byte[pos], char_of_byte[pos + n - 1] + 1))
        pos += n
    return spans
