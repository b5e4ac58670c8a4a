"""The one runtime every tokenizer encodes through: text -> pieces -> model -> ids.

A :class:`Pipeline` is made of parts, each asked one thing: the splitter of special
(added) tokens, the normalizer, the pre-tokenizer, the model, the post-processor's
offsets, the decoder. A ``tokenizer.json`` gives them (:mod:`.imported.hf_parts`,
:mod:`.imported.added_tokens`, :mod:`.imported.decoders`), and the readers build the same
parts for GGUF, SentencePiece and CLIP files. A pattern's words with its special tokens
(:class:`PatternParts`: a tokenizer trained here or read from GPT-2 files, a
``.tiktoken`` file or a known encoding, a tekken file) are one part that is both the
splitter and the pre-tokenizer.

Which route a text takes is decided here alone (:meth:`Pipeline.route`): the one-pass C
encoder of whole texts (``_encode.Encoder``: special tokens found, words cut by the native
scanner, merged through a word cache every thread shares) where the model's table runs in
C and the pattern is one the scanner runs; else the pieces, in Python, each merged by the
model. Every door (encode, batches, arrays, offsets, streams) asks it.

Offsets are character spans of the input text, as ``tokenizers``' Python ``Encoding``
gives them; ids match ``tokenizers.Tokenizer.encode(text, add_special_tokens=False)``
(the tokens a post-processor adds are the caller's: ``BaseTokenizer``) and
``tiktoken.Encoding.encode(text, allowed_special="all")``.
"""
from __future__ import annotations

import copy
from array import array
from typing import Callable, Iterable, Iterator, Literal, Protocol, Sequence

from .encoding import Encoding, token_tables
from ..text.pattern_kinds import scanner_kind
from ..text.presets import line_break_ends_words
from ..text.scanner import native_scanner
from ..text.boundaries import stream_boundary
from ..text.pretokenize import Pretokenizer
from .imported.added_tokens import AddedToken
from .imported.lazy import Later, Lazy
from .imported.normalized import NStr
from .model import Word, char_spans
from .imported.hf_parts import PreTokenizer, model_word

try:  # whole texts of a native-preset pattern: scanned and merged in C, without the GIL
    from . import _encode
    from ..text.scanner import install_tables
    install_tables(_encode)
except ImportError:  # pragma: no cover - only without a C compiler at install time
    _encode = None  # type: ignore[assignment]  # optional C extension: None where it was not built

class Splitter(Protocol):
    """What cuts special (added) tokens out of a text before the pre-tokenizer:
    tokenizer.json's AddedTokens, llama.cpp's special tokens (llama_cpp.LlamaSpecials),
    CLIP's cleaning and split (clip.ClipSplit)."""

    def split(self, text: NStr) -> Iterator[tuple[NStr, int | None]]: ...

    @property
    def longest(self) -> int: ...

    def special_texts(self) -> list[str]: ...

    def restricted(self, allow: frozenset[str]) -> "Splitter | None": ...


CACHE_LIMIT = 1 << 18
LONG_WORD = 512        # characters: a word this long is merged by segments (encode_cut)


class Pipeline:
    """Text -> pieces -> model, with offsets; ids -> text through the decoder.

    ``model`` answers: ``encode_words(words, cache, cache_limit)``, ``tokenize(word)``
    (ids and their byte spans), ``merge(word)``, and ``whole_text()``: (merger, merges in
    use, cache words) for the C encoder of whole texts, or None where it cannot run.
    """

    vocab = Lazy[dict[int, bytes]]()   # a dict, or a Later made when first read

    def __init__(self, model, *, vocab: dict[int, bytes] | Later[dict[int, bytes]],
                 added: Splitter | None = None, normalize=None,
                 pre: "PreTokenizer | PatternParts | None" = None,
                 trim_offsets: tuple[bool, bool] | None = None,
                 decode: Callable[[list[str]], str] | None = None,
                 key_of: Callable[[int], str | None] | None = None,
                 id_of: Callable[[str], int | None] | None = None,
                 specials: frozenset[int] = frozenset(), stream_safe: bool = True):
        self.model = model                # a MergeModel or a word_model.PipelineModel
        self.vocab = vocab                # id -> the bytes a token stands for
        self.added = added
        self.normalize = normalize
        self.pre = pre                    # (a PatternParts: also the splitter, added)
        self.trim_offsets = trim_offsets  # (on, add_prefix_space) of a ByteLevel post-processor
        self._decode = decode
        self.key_of = key_of
        self.id_of = id_of                # a token's string -> id (key_of's inverse), or None
        self.specials = specials
        self.stream_safe = stream_safe
        self._setup_encoder()

    def reset(self) -> None:
        """Forget what was made from the model (its word caches, its C encoder): after
        the model changed (a trainer's tokenizer grows a merge)."""
        self._cache: dict[str, tuple[int, ...]] = {}
        self._ocache: dict[str, tuple] = {}
        # encode_with_offsets in C: (token lengths, token bytes) by id; the trimming
        # table (False: trimming that C cannot do); made when first needed
        self._tables: tuple[array, list[bytes]] | None = None
        self._trims: tuple[array, array, bool] | None | Literal[False] = False
        self._trims_made = False
        self._made = None   # the C encoder, made at first use (every thread shares it)

    def with_model(self, model) -> "Pipeline":
        """This pipeline over another model (a tokenizer as of a training step)."""
        clone = copy.copy(self)
        clone.model = model
        clone._setup_encoder()
        return clone

    def _setup_encoder(self) -> None:
        """Which texts go to the C encoder of whole texts (the route), decided once (again
        when the model or the special tokens change: :meth:`with_model`,
        :meth:`restricted`); the encoder itself is made at first use."""
        self.reset()
        model, pre = self.model, self.pre
        self._own = model.text_encoder(self.added)   # (SentencePiece's: see route)
        added, normalize = self.added, self.normalize
        # a pattern the native scanner runs, on byte-level tables: whole texts go to the
        # one-pass C encoder of _encode (Encoder), which reads this model's table, finds
        # the special tokens it is given and keeps a word cache every thread shares.
        # _encode_native: a text without special or added tokens.
        self._native = None
        self._whole_made: tuple | None = None   # (merger, limit, cache words, preset, specials)
        self._whole = False   # encode(text) is _encoder.encode(text) (specials in C)
        self._whole_if = False  # the same for a text the normalizer leaves as it is
        # _whole_if, on a text the normalizer changes: "specials" the C encoder takes its
        # normal form (it finds the added tokens there, as tokenizers does), "plain" it
        # takes it without added tokens when none is in the text, None neither
        self._normed_in_c: str | None = None
        self._cut: bool | None = None   # False: long words are merged whole
        if getattr(model, "end_of_word", b"") or not hasattr(model, "encode_cut"):
            self._cut = False   # a word's last symbol carries the suffix: no segments alone
        # the scanner id: the pattern's kind with the Unicode tables of the file's library
        preset = getattr(pre, "scanner_preset", None)
        # ids without offsets: the normalizer on plain text (hf_parts.Normalizer.text)
        # (a splitter of added tokens without a plain-text side, llama.cpp's or CLIP's,
        # cuts an NStr: fine without a normalizer)
        self._plain = pre is not None and (
            added is None or hasattr(added, "split_text") or normalize is None)
        if pre is not None and pre.tiling_pattern:
            scanner = native_scanner(scanner_kind(pre.tiling_pattern), pre.classes)
            preset = scanner.preset_id if scanner is not None else None
        whole = model.whole_text() if preset is not None and _encode is not None else None
        self._whole = self._own is not None
        if whole is None:
            return
        self._native = preset
        in_c = self._specials_in_c()
        self._whole = in_c is not None
        if in_c is None and getattr(normalize, "unchanged", None) is not None:
            in_c = self._specials_in_c(unchanged=True)
            self._whole_if = in_c is not None
            if self._whole_if:
                self._normed_in_c = self._after_normalizer()
        self._whole_made = (*whole, preset, in_c or None)

    @property
    def merger(self):
        """The C merge table the whole-text encoder reads (``_encode.Merger``), or None."""
        return self._whole_made[0] if self._whole_made is not None else None

    @property
    def _encoder(self):
        """The C encoder of whole texts (None: the model's own loop), made when first
        used; two threads may both make one: either serves."""
        enc = self._made or self._own
        if enc is None and self._whole_made is not None:
            merger, limit, words, preset, specials = self._whole_made
            enc = self._made = _encode.Encoder(merger, preset, limit, specials=specials,
                                               cache_words=words)
        return enc

    def matched_specials(self) -> list[str]:
        """The special tokens this pipeline finds in text (tiktoken's specials, a
        splitter's tokens marked special)."""
        return list(self.added.special_texts()) if self.added is not None else []

    def restricted(self, allow: frozenset[str]) -> "Pipeline":
        """This pipeline finding only ``allow`` of its special tokens in text (the
        others read as ordinary text; tokens a splitter holds that are not special,
        such as tokenizer.json's ``special: false`` added tokens, are always found)."""
        clone = copy.copy(self)
        if self.added is not None:
            clone.added = self.added.restricted(allow)
            if self.pre is self.added:   # a pattern's parts: its words cut at the kept tokens
                clone.pre = clone.added  # type: ignore[assignment]  # (a PatternParts)
        clone._setup_encoder()
        return clone

    def _specials_in_c(self, unchanged: bool = False) -> dict[str, int] | None:
        """The special/added tokens the C encoder finds itself (leftmost, longest) when
        that is how this file's library finds them: tiktoken's specials (all allowed);
        a tokenizer.json's added tokens when none strips, needs a whole word or is
        matched after a normalizer (unchanged: on texts the normalizer leaves as they
        are, where matching before or after it is the same). None: they are split here,
        in Python."""
        if self._own is not None:
            return None   # the model's own encoder finds them (SentencePiece's)
        if self.normalize is not None and not unchanged:
            return None
        if self.pre is not None and self.pre.native_by_text:
            return None   # the pre-tokenizer decides text by text (llama.cpp's)
        if self.added is None:
            return {}
        toks = getattr(self.added, "tokens", None)
        if toks is None:
            return None   # llama.cpp's or CLIP's splitter: run here, in Python
        if any(t.lstrip or t.rstrip or t.single_word for t in toks) or \
                len({t.normalized for t in toks}) > 1:
            return None   # two passes (raw, then normalized) or whitespace rules
        if unchanged and any(t.normalized and not self.normalize.unchanged(t.content)
                             for t in toks):
            return None   # looked for by its normal form, which the C encoder is not given
        return {t.content: t.id for t in toks}

    def _after_normalizer(self) -> str | None:
        """How the C encoder can take a normalized text (see _normed_in_c). tokenizers
        looks for tokens with ``normalized: true`` in the normalized text, by their
        normalized content (the C encoder's are their content: the same when the
        normalizer leaves it), and for the others in the raw text, before normalizing."""
        toks = getattr(self.added, "tokens", None) or []
        text = self.normalize.text   # (_whole_if: a normalizer that can tell)
        if all(t.normalized and text(t.content) == t.content for t in toks):
            return "specials"
        if not any(t.normalized for t in toks):
            return "plain"
        return None

    def _has_added(self, text: str) -> bool:
        """Some added token is in the text (their first characters first: Qwen2's all
        start with "<")."""
        toks = getattr(self.added, "tokens", None) or []
        firsts = {t.content[0] for t in toks}
        return any(c in text for c in firsts) and any(t.content in text for t in toks)

    @property
    def whole_text_encoder(self):
        """The C encoder when ``encode(text)`` is ``encoder.encode(text)`` for every text
        UTF-8 can hold (it raises UnicodeEncodeError on the others), else None."""
        return self._encoder if self._whole else None

    def route(self, texts: Sequence[str]):
        """The route of these texts, decided here alone: (the C encoder of whole texts,
        the texts to give it, ordinary), where ``encoder.encode_batch(given,
        ordinary=ordinary)`` gives ``encode(text)`` for each text UTF-8 can hold
        (UnicodeEncodeError on the others); None: the pieces, in Python (a pattern the
        native scanner does not run, a model not in C, added tokens matched with rules the
        encoder does not know). Texts a normalizer changes are normalized here, once: the
        texts it leaves go as they are (their added tokens found in C); changed ones
        normalized, with their added tokens when tokenizers looks for them after the
        normalizer, as plain text when it looks in the raw text and none is there
        (``_normed_in_c``). Every door asks it: encode, encode_with_offsets, batches,
        arrays, streams."""
        if self._encoder is None:
            return None
        if self._whole:
            return self._encoder, list(texts), False
        if not self._whole_if:
            return None
        normed = [self.normalize.text(t) for t in texts]
        if all(n is t or n == t for n, t in zip(normed, texts)):
            return self._encoder, list(texts), False
        if self._normed_in_c == "specials":
            return self._encoder, normed, False
        if self._normed_in_c == "plain" and not any(map(self._has_added, texts)):
            return self._encoder, normed, True
        return None

    # ----- pieces ---------------------------------------------------------------------
    def pieces(self, text: str, start: int = 0) -> Iterator[tuple[NStr, int | None]]:
        """(piece, None) for text the model tokenizes, (piece, id) for an added token."""
        assert self.pre is not None   # (SpmPipeline cuts its own pieces)
        whole = NStr.of(text, start)
        if self.added is not None:
            parts = self.added.split(whole)
        else:
            parts = iter([(self.normalize(whole) if self.normalize else whole, None)])
        for piece, tid in parts:
            if tid is not None:
                yield piece, tid
            elif piece.text:
                yield from ((p, None) for p in self.pre([piece]))

    # ----- encoding -------------------------------------------------------------------
    def word_ids(self, word: str) -> tuple[int, ...]:
        """The ids of one word of the pattern, through the word cache."""
        return tuple(self.model.encode_words([word], self._cache, CACHE_LIMIT))

    def encode(self, text: str) -> list[int]:
        plan = self.route((text,))
        if plan is not None:
            c, (given,), ordinary = plan
            try:
                return c.encode_ordinary(given) if ordinary else c.encode(given)
            except UnicodeEncodeError:   # lone surrogates: the pieces below, in Python
                pass
        out: list[int] = []
        words: list[Word] = []
        enc = self.model.encode_words
        if self._plain:   # ids only: no offsets kept
            return self._encode_plain(text)
        for piece, tid in self.pieces(text):
            if tid is None:
                words.append(self.model_word(piece.text))
                continue
            if words:
                out += enc(words, self._cache, CACHE_LIMIT)
                words = []
            out.append(tid)
        if words:
            out += enc(words, self._cache, CACHE_LIMIT)
        return out

    def _plain_parts(self, text: str) -> Iterator[tuple[str, int | None, bool]]:
        """(text, None, starts the text) for text the pre-tokenizer gets, normalized, and
        ("", id, ...) for an added token: the parts of encode without offsets."""
        norm = self.normalize
        if self.added is not None and hasattr(self.added, "split_text"):
            return self.added.split_text(text)
        if self.added is not None:
            return ((p.text, tid, i == 0)
                    for i, (p, tid) in enumerate(self.added.split(NStr.of(text))))
        if norm is not None:
            normed, keeps = norm.text_start(text)
            return iter([(normed, None, keeps)])
        return iter([(text, None, True)])

    @property
    def plain(self) -> bool:
        """encode cuts text without offsets (:meth:`plain_words` gives its words)."""
        return self._plain

    def plain_words(self, text: str) -> Iterator[tuple[list[str] | list[Word], int | None]]:
        """(the words the model gets, None) for each stretch of text and ([], id) for each
        added token, as encode without offsets cuts ``text`` (only when :attr:`plain`):
        pieces counted without offsets (analysis.dead_weight). A word is bytes where a
        byte-level piece is not UTF-8 (model.Word)."""
        pre = self.pre
        assert pre is not None and self._plain
        for piece, tid, at0 in self._plain_parts(text):
            if tid is not None:
                yield [], tid
            elif piece:
                yield pre.words_text(piece, at0), None

    def _encode_plain(self, text: str) -> list[int]:
        """encode without offsets: added tokens cut from the plain text, the normalizer on
        plain text, the pre-tokenizer's words straight from its regex or its Metaspace rule
        where it can give them (PreTokenizer.words_text), else from its steps."""
        out: list[int] = []
        pre = self.pre
        assert pre is not None   # encode() comes here only with a pre-tokenizer
        for piece, tid, at0 in self._plain_parts(text):
            if tid is not None:
                out.append(tid)
                continue
            elif not piece:
                continue
            elif self._native is not None and pre.native_ok(piece):
                got = self._encode_native(piece)
            else:
                got = self._encode_words(pre.words_text(piece, at0))
            if out:
                out += got
            else:   # (a whole text's millions of ids: not copied)
                out = got
        return out

    def _encode_words(self, words: list[str] | list[Word]) -> list[int]:
        """The ids of words; a very long one (a Metaspace file that does not split: the
        whole text) cut where no merge crosses and merged by segments, in C."""
        enc = self.model.encode_words
        if self._cut is False or not any(len(w) > LONG_WORD for w in words):
            return enc(words, self._cache, CACHE_LIMIT)
        out: list[int] = []
        run: list[Word] = []
        for w in words:   # (a bytes word, a byte-level piece, is merged whole)
            long = isinstance(w, str) and len(w) > LONG_WORD
            got = self.model.encode_cut(w) if long else None
            if got is None:
                run.append(w)
                if long:
                    self._cut = False   # this model cannot be cut
                continue
            if run:
                out += enc(run, self._cache, CACHE_LIMIT)
                run = []
            if out:
                out += got
            else:
                out = got
        if run:
            out += enc(run, self._cache, CACHE_LIMIT)
        return out

    def _encode_native(self, text: str) -> list[int]:
        assert self._encoder is not None   # chosen only when __init__ made it
        try:
            return self._encoder.encode_ordinary(text)
        except UnicodeEncodeError:   # a lone surrogate: UTF-8 cannot hold it
            assert self.pre is not None   # (the C encoder runs a pre-tokenizer's words)
            words = [p.text for p in self.pre([NStr.of(text)])]
            return self.model.encode_words(words, self._cache, CACHE_LIMIT)

    def encode_with_offsets(self, text: str):
        got = self._offsets_in_c(text)
        if got is not None:
            return got
        return self._offsets_by_piece(text)

    def _offsets_in_c(self, text: str) -> Encoding | None:
        """encode_with_offsets on the route encode takes (:meth:`route`): the ids of the
        whole text from the C encoder and each token's span read off its id's byte length
        (the tokens tile the text's UTF-8, or its normal form's, mapped back through the
        normalizer's alignment), trimmed as tokenizers trims; None: the pieces, in Python."""
        plan = self.route((text,))
        trim = self._trim_tables()
        if plan is None or trim is False:
            return None
        if self._tables is None:
            self._tables = token_tables(self.vocab)
        lengths, tokens = self._tables
        enc, (given,), ordinary = plan
        if given is text:
            got = enc.encode_offsets(text, lengths, tokens, trim=trim)
        else:   # its normal form: the spans mapped back through the alignment
            assert self.normalize is not None   # (route normalizes only with a normalizer)
            made = self.normalize.alignment(text) if self.normalize.alignment else None
            if made is not None:   # a Unicode form: its changed stretches only
                if made[0] != given:
                    return None
                starts, ends = made[1], made[2]
            else:
                ns = self.normalize(NStr.of(text))
                if ns.text != given:
                    return None
                a = ns.align
                if isinstance(a, int):
                    starts = array("q", range(a, a + len(given)))
                    ends = array("q", range(a + 1, a + len(given) + 1))
                else:
                    starts = array("q", [s for s, _ in a])
                    ends = array("q", [e for _, e in a])
            got = enc.encode_offsets(given, lengths, tokens, ordinary, (starts, ends), trim)
        if got is None:
            return None
        ids, toks, offs, marks = got
        special = [False] * len(ids)
        for k in marks:
            special[k] = ids[k] in self.specials
        return Encoding(ids, toks, offs, special)

    def _trim_tables(self) -> tuple[array, array, bool] | None | Literal[False]:
        """(leading, trailing spaces of each id's token, add_prefix_space) for the trimming
        in C (offsets.c); None: no trimming; False: trimming C cannot do (a model not in
        GPT-2's alphabet)."""
        if self._trims_made:
            return self._trims
        self._trims_made = True
        if self.trim_offsets is None or not self.trim_offsets[0]:
            self._trims = None
        elif self.key_of is not None and getattr(self.model, "byte_level", False):
            if self._tables is None:
                self._tables = token_tables(self.vocab)
            n = len(self._tables[0])
            lead, trail = array("i", bytes(4 * n)), array("i", bytes(4 * n))
            key_of = self.key_of
            for i in range(n):
                k = key_of(i)
                if k and (k[0] in _SPACE_ENDS or k[0].isspace() or
                          k[-1] in _SPACE_ENDS or k[-1].isspace()):
                    lead[i] = _spaces(k)
                    trail[i] = _spaces(reversed(k))
            self._trims = (lead, trail, self.trim_offsets[1])
        return self._trims

    def _offsets_by_piece(self, text: str) -> Encoding:
        """encode_with_offsets piece by piece (every kind of pipeline; the reference the
        C path is tested against)."""
        ids: list[int] = []
        offs: list[tuple[int, int]] = []
        special: list[bool] = []
        for piece, tid in self.pieces(text):
            if tid is not None:
                ids.append(tid)
                offs.append(piece.span(0, len(piece.text)))
                special.append(tid in self.specials)
                continue
            wids, spans = self._word(piece.text)
            ids += wids
            offs += [piece.span(s, e) for s, e in spans]
            special += [False] * len(wids)
        if self.trim_offsets is not None:
            offs = self._trim(ids, offs)
        vocab = self.vocab
        return Encoding(ids, [vocab.get(i, b"") for i in ids], offs, special)

    def _word(self, word: str) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
        """Ids of a piece and each token's character span inside it (cached). A piece in
        GPT-2's alphabet (after a ByteLevel step) has one character per byte."""
        hit = self._ocache.get(word)
        if hit is None:
            alpha = self.pre is not None and self.pre.alphabet
            own = getattr(self.model, "token_spans", None)   # (a merge-list model's own)
            if own is not None:
                ids, spans = own(word)
            else:
                ids, starts, ends = self.model.tokenize(model_word(word) if alpha else word)
                spans = tuple(zip(starts, ends)) if alpha else \
                    char_spans(word, starts, ends)
            if len(self._ocache) >= CACHE_LIMIT:
                self._ocache.clear()
            hit = self._ocache[word] = (ids, spans)
        return hit

    def _trim(self, ids: list[int], offs: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """tokenizers' ByteLevel post-processor: offsets leave out a token's leading and
        trailing spaces (but keep the one space add_prefix_space put before the first).
        The rule is C's (csrc/imported/offsets.c, over _trim_tables' spaces by id); the
        loop here is its fallback, for an install without the C extensions or keys
        outside GPT-2's alphabet."""
        assert self.trim_offsets is not None and self.key_of is not None   # both from hf_json
        on, prefix = self.trim_offsets
        if not on:
            return offs
        tables = self._trim_tables() if _encode is not None else None
        if tables and max(ids, default=-1) < len(tables[0]):
            return _encode.trim_offsets(ids, offs, *tables)
        out = []
        for k, (i, (s, e)) in enumerate(zip(ids, offs)):
            t = self.key_of(i) or ""
            lead = _spaces(t)
            trail = _spaces(reversed(t))
            if lead:
                if (k == 0 or s == 0) and prefix and lead == 1:
                    lead = 0
                s = min(s + lead, e)
            if trail and e >= trail:
                e = max(e - trail, s)
            out.append((s, e))
        return out

    def encode_iterable(self, chunks: Iterable[str],
                        chunk_chars: int = 1 << 16) -> Iterator[list[int]]:
        """A stream's ids, a list per part encoded: the buffer is cut where nothing after
        can change the words before, never inside a special token: a "words" pipeline's
        where its pattern allows (text/boundaries.py), a tokenizer.json's after a line break
        between a non-space and a letter or digit (no published pattern joins across
        that). A buffer that cannot be cut (one huge word) is tried again only once it
        has doubled, so the work stays linear. The ids equal ``encode`` of the whole
        text."""
        if not self.stream_safe:
            yield self.encode("".join(chunks))
            return
        parts: list[str] = []
        size, limit, done = 0, chunk_chars, 0
        hold = max(0, self.added.longest if self.added else 0)
        for chunk in chunks:
            parts.append(chunk)
            size += len(chunk)
            if size < limit:
                continue
            buf = "".join(parts)
            cut = getattr(self.pre, "stream_cut", _safe_cut)(buf, chunk_chars, hold)
            if cut > 0:
                yield self._encode_at(buf[:cut], done)
                done += cut
            parts, size = [buf[cut:]], len(buf) - cut
            limit = max(chunk_chars, 2 * size)
        buf = "".join(parts)
        if buf:
            yield self._encode_at(buf, done)

    def _encode_at(self, text: str, start: int) -> list[int]:
        """The ids of a stream's part that starts at character ``start`` of the whole:
        ``encode``'s, unless a step reads where a piece starts (Metaspace "first")."""
        if start == 0 or self.pre is None or not self.pre.needs_start:
            return self.encode(text)
        out: list[int] = []
        for piece, tid in self.pieces(text, start):
            out += [tid] if tid is not None else self._word(piece.text)[0]
        return out

    def played_pieces(self, text: str) -> Iterator[tuple[NStr, int | None]]:
        """The pieces word playback replays, one model run each: the pieces the model
        gets (a SentencePiece model merges a whole text part at once: see spm.py)."""
        return self.pieces(text)

    # ----- decoding -------------------------------------------------------------------
    def model_word(self, text: str) -> Word:
        """What the model encodes for a piece's text (see hf_parts.model_word)."""
        return model_word(text) if self.pre is not None and self.pre.alphabet else text

    def decodes_bytes(self) -> bool:
        """Whether decode is the tokens' bytes read as UTF-8 (no decoder rewrites them)."""
        return self._decode is None or self.key_of is None

    def decode(self, ids: Iterable[int]) -> str:
        if self._decode is None or self.key_of is None:
            return b"".join(self.vocab[i] for i in ids).decode("utf-8", errors="replace")
        return self._decode([self.key_of(i) or "" for i in ids])


class PatternParts:
    """A pattern's words and its special tokens (a :class:`Pretokenizer`, special token
    -> id) as one part that is both the pipeline's splitter (``added``) and its
    pre-tokenizer (``pre``): special tokens found leftmost-longest as they are (in C too),
    the text between them cut into the pattern's words."""

    alphabet = needs_start = native_by_text = False   # what a pre-tokenizer is asked
    kinds: tuple[str, ...] = ()   # (no tokenizer.json steps)
    tiling_pattern = None         # (the scanner is the Pretokenizer's own: scanner_preset)

    def __init__(self, words: Pretokenizer, special_map: dict[str, int]):
        self.words = words
        self.special_map = special_map
        self.longest = words.max_special_len
        self.tokens = [AddedToken(i, t, normalized=False) for t, i in special_map.items()]
        self.scanner_preset = words.native.preset_id if words.native is not None else None

    # ----- the splitter ---------------------------------------------------------------
    def special_texts(self) -> list[str]:
        return list(self.special_map)

    def restricted(self, allow: frozenset[str]) -> "PatternParts":
        kept = {t: i for t, i in self.special_map.items() if t in allow}
        return PatternParts(self.words.with_specials(list(kept)), kept)

    def split(self, text: NStr) -> Iterator[tuple[NStr, int | None]]:
        for p in self.words.pieces(text.text):
            yield text.slice(p.start, p.start + len(p.text)), \
                (self.special_map[p.text] if p.special else None)

    def split_text(self, text: str) -> Iterator[tuple[str, int | None, bool]]:
        for p in self.words.pieces(text):
            yield ("", self.special_map[p.text], False) if p.special else (p.text, None, False)

    # ----- the pre-tokenizer ----------------------------------------------------------
    def __call__(self, pieces: Iterable[NStr]) -> Iterator[NStr]:
        for piece in pieces:
            for s, e, _ in self.words.spans(piece.text):
                yield piece.slice(s, e)

    def native_ok(self, text: str) -> bool:
        return True

    def words_text(self, text: str, at_start: bool) -> list[str]:
        return self.words.findall(text)

    def stream_cut(self, buf: str, chunk_chars: int, hold: int) -> int:
        """Where a stream's buffer may be cut: where the pattern allows (boundaries.py)."""
        return stream_boundary(self.words, buf, chunk_chars)


_SPACE_ENDS = frozenset("Ġ")


def _spaces(chars) -> int:
    """Leading 'Ġ' or whitespace characters (what tokenizers' offset trimming counts)."""
    n = 0
    for c in chars:
        if c != "Ġ" and not c.isspace():
            break
        n += 1
    return n


def _safe_cut(buf: str, chunk_chars: int, hold: int) -> int:
    """The last line start after a break that ends every published pattern's words
    (``presets.line_break_ends_words``), short of the last ``hold`` characters (an added
    token could straddle them); 0 if none."""
    end = len(buf) - hold - 1
    k = buf.rfind("\n", 0, max(0, end))
    while k >= 0:
        if line_break_ends_words(buf, k):
            return k + 1
        k = buf.rfind("\n", 0, k)
    return 0
