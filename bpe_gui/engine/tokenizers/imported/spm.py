"""SentencePiece BPE, run as its own library runs it: a ``.model`` as sentencepiece's
``SentencePieceProcessor.encode`` does, a GGUF ``llama`` vocabulary as llama.cpp's
``llm_tokenizer_spm`` does (the rules: csrc/imported/pipe_spm.c).

:func:`build_spm` assembles a :class:`~.imported_tokenizer.PipelineTokenizer` from plain
data (:class:`SpmSpec`: the pieces, their scores and types, the normalizer's settings),
which the readers in ``engine/formats`` take from the file. Encoding goes to the C model
in one call (normalize, cut where no piece crosses, merge each segment); offsets are
characters of the input, as sentencepiece gives them (a byte-fallback character's span
on its last byte token, the others empty).

The model interface (:class:`SpmModel`) answers the questions every tokenizer answers:
the first symbols of a piece are its characters (a user-defined symbol is one), a pair's
rank is the score rank of the piece the two make, and word playback replays the merges
as sentencepiece makes them (highest score first, leftmost on ties), then the rule steps
(UNUSED pieces split back, byte fallback). The merge list the vocabulary browser and the
exports read is derived as Hugging Face's converter derives it (every split of a piece
into two pieces, by the piece's score).

Example::

    >>> tok = build_spm(spec)          # from formats/sentencepiece_fmt.py
    >>> tok.encode("Hello world")      # == SentencePieceProcessor.encode
"""
from __future__ import annotations

import array
import codecs
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

from ..model import MergeApplied, Playback, Word, clean_text, word_text
from .imported_tokenizer import LazyMerges, PipelineTokenizer
from .lazy import Later, Lazy
from .normalized import NStr
from ..pipeline import Pipeline
from .word_model import PipelineModel, model_class

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
SPACE = "\u2581"
UNK_SURFACE = " \u2047 "
WORDS = r"[^ ]+| +"   # the words shown (Tokenizer.pattern): text between spaces, space runs


def _per_byte(e: UnicodeError) -> tuple[str, int]:
    """sentencepiece's byte pieces: each byte that starts no valid UTF-8 character is one
    U+FFFD (Python's 'replace' gives one for a whole truncated sequence)."""
    assert isinstance(e, UnicodeDecodeError)
    return "\ufffd", e.start + 1


_PER_BYTE = "bpe_gui.spm_per_byte"
codecs.register_error(_PER_BYTE, _per_byte)


@dataclass(frozen=True)
class SpmSpec:
    """What a SentencePiece-style model holds, as plain data (ids are list positions).
    ``raw``: (file bytes, starts, lens, scores, types) when a reader kept the pieces where
    they lie in the file (sentencepiece_fmt's C reader): the C model is built from those,
    and ``pieces`` is a sequence that decodes a text when one is read."""

    pieces: Sequence[str]
    scores: Sequence[float]
    types: bytes                       # NORMAL .. BYTE per piece
    byte_fallback: bool
    charsmap: bytes = b""              # precompiled_charsmap (empty: identity)
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True
    treat_whitespace_as_suffix: bool = False
    llama: bool = False                # llama.cpp's rules (a GGUF `llama` vocabulary)
    unk_surface: str = UNK_SURFACE
    meta: dict = field(default_factory=dict)
    raw: tuple[bytes, bytes, bytes, bytes, bytes] | None = None


def native_model(spec: SpmSpec):
    """The C model (or its stand-in) of a spec; ValueError says why it cannot be built."""
    cls = model_class()
    if spec.raw is not None and hasattr(cls, "from_spm_proto"):
        native = cls.from_spm_proto(*spec.raw, spec.llama, spec.byte_fallback)
    else:
        scores = array.array("f", spec.scores).tobytes()
        native = cls.from_spm(list(spec.pieces), scores, bytes(spec.types), spec.llama,
                              spec.byte_fallback)
    native.spm_normalizer(spec.charsmap or None, spec.add_dummy_prefix,
                          spec.remove_extra_whitespaces, spec.escape_whitespaces,
                          spec.treat_whitespace_as_suffix)
    return native


def shown_bytes(spec: SpmSpec) -> dict[int, bytes]:
    """id -> the bytes a token stands for: '▁' as a space, <0xNN> as its byte."""
    vocab: dict[int, bytes] = {}
    for i, (p, t) in enumerate(zip(spec.pieces, spec.types)):
        if t == BYTE or (spec.llama and len(p) == 6 and p.startswith("<0x") and p.endswith(">")):
            try:
                vocab[i] = bytes([int(p[3:5], 16)])
                continue
            except ValueError:
                pass
        vocab[i] = p.replace(SPACE, " ").encode("utf-8", "surrogateescape")
    return vocab


class SpmModel(PipelineModel):
    """The model interface over a SentencePiece-style C model (see the module docstring)."""

    vocab = Lazy[dict[int, bytes]]()   # id -> bytes, made when first read (shown_bytes)

    def __init__(self, native, vocab: dict[int, bytes] | Later[dict[int, bytes]],
                 spec: SpmSpec):
        unk = -1 if spec.llama else bytes(spec.types).find(bytes([UNKNOWN]))
        super().__init__(native, vocab, byte_level=False,
                         byte_fallback=spec.byte_fallback, unk_id=unk)
        self.spec = spec
        self._merges: list[tuple[int, int, int]] | None = None
        self._slow = None   # the Python model, for playback's trace

    # ----- the merge list, derived -----------------------------------------------------
    def merge_list(self) -> list[tuple[int, int, int]]:
        """(left, right, new) for every split of a mergeable piece into two pieces, by the
        piece's score (highest first), a piece's splits by (left id, right id)."""
        if self._merges is None:
            spec = self.spec
            index: dict[str, int] = {}
            for i, p in enumerate(spec.pieces):
                if spec.llama or spec.types[i] in (NORMAL, USER_DEFINED, UNUSED):
                    index.setdefault(p, i)
            found = []
            for i, p in enumerate(spec.pieces):
                if len(p) < 2 or not (spec.llama or spec.types[i] in (NORMAL, UNUSED)):
                    continue
                local = sorted((index[p[:k]], index[p[k:]]) for k in range(1, len(p))
                               if p[:k] in index and p[k:] in index)
                found += [(-spec.scores[i], a, b, i) for a, b in local]
            found.sort(key=lambda x: x[0])   # stable: a piece's splits stay in id order
            self._merges = [(a, b, i) for _, a, b, i in found]
        return self._merges

    @property
    def n_merges(self) -> int:
        return len(self.merge_list())

    def merge_at(self, k: int) -> tuple[int, int, int]:
        return self.merge_list()[k]

    def key_text(self, i: int) -> str | None:
        return self.spec.pieces[i] if 0 <= i < len(self.spec.pieces) else None

    # ----- the model interface ---------------------------------------------------------
    def _py(self):
        if self._slow is None:
            from ._pyspm import SpmNative
            s = self.spec
            self._slow = SpmNative(list(s.pieces), list(s.scores), bytes(s.types), s.llama,
                                   s.byte_fallback)
        return self._slow

    @property
    def context_free(self) -> bool:  # type: ignore[override]  # a class attribute in WordModel
        """False when UNUSED pieces are split back after merging (see WordModel)."""
        return not self._py().has_unused

    def start(self, piece: Word) -> list[int]:
        piece = word_text(piece)   # (a SentencePiece model is given text only)
        py = self._py()
        return [py.table.get(piece[s:e], self.unk_id) for s, e, _ in py.symbols(piece)]

    def rank(self, left: int, right: int) -> tuple[int, int] | None:
        py = self._py()
        a, b = self.key_text(left), self.key_text(right)
        if a is None or b is None:
            return None
        p = py.candidate(a + b)
        return None if p < 0 else (py.srank[p], p)

    def whole(self, piece: Word) -> tuple[int, str] | None:
        return None

    def text_encoder(self, added) -> "SpmEncoder":
        return SpmEncoder(self.native, added, self.spec.add_dummy_prefix)

    def merge(self, piece: Word) -> tuple[int, ...]:
        return tuple(self.native.tokenize(word_text(piece))[0])

    def playback(self, piece: Word, word: str | None = None) -> Playback:
        piece = clean_text(word_text(piece))
        py = self._py()
        word = piece if word is None else word
        spans = [(s, e) for s, e, _ in py.symbols(piece)]
        ids = [py.table.get(piece[s:e], self.unk_id) for s, e in spans]

        tok = self.token   # a character that is no piece shows as <unk> until the fallback
        first_syms, first_ids = tuple(tok(i) for i in ids), tuple(ids)
        steps: list[MergeApplied] = []
        starts = list(range(len(ids)))   # each symbol's first start symbol

        def merged(pos: int, new: int, rank: int) -> None:
            pair = (tok(ids[pos]), tok(ids[pos + 1]))
            spans[pos:pos + 2] = [(spans[pos][0], spans[pos + 1][1])]
            ids[pos:pos + 2] = [new]
            steps.append(MergeApplied(rank, pair, tok(new), new, (pos,),
                                      ((starts[pos], starts.pop(pos + 1)),)))

        py.merge_spans(piece, merged)
        final = list(self.merge(piece))
        if final != ids:
            why = []
            if py.has_unused:
                why.append("pieces of type UNUSED are split back into the pair that made them")
            if any(i == self.unk_id for i in ids) or any(t not in py.table for t in
                                                         (piece[s:e] for s, e in spans)):
                why.append("a symbol that is no piece becomes its bytes' <0xNN> pieces "
                           "(byte fallback)" if self.spec.byte_fallback or self.spec.llama
                           else "symbols that are no piece become one <unk>")
            rule = "; ".join(why) or "the symbols are looked up as pieces"
            steps.append(MergeApplied(None, (), b"", -1, (0,), ((0, len(first_ids)),),
                                      rule[0].upper() + rule[1:] + ".",
                                      (tuple(final), tuple(map(self.token, final)))))
        return Playback(word, first_syms, first_ids, tuple(steps), self.n_merges)


class SpmEncoder:
    """Whole texts to ids through the C model, in the route interface of
    ``_encode.Encoder`` (Pipeline.route): the splitter's tokens (llama.cpp's special
    tokens) cut out first, each text part normalized and merged in one C call (the GIL
    released), the space prefix before a part that starts the text or follows a token
    cut out (llama.cpp's add_space_prefix; sentencepiece's dummy prefix)."""

    def __init__(self, native, added, prefix: bool):
        self.native, self.added, self.prefix = native, added, prefix

    def _parts(self, text: str) -> Iterator[tuple[NStr, int | None, bool]]:
        """(text part, None, prefix) and (token, id, False)."""
        if self.added is None:
            if text:
                yield NStr.of(text), None, self.prefix
            return
        after_token = True
        for part, tid in self.added.split(NStr.of(text)):
            if tid is not None:
                yield part, tid, False
                after_token = True
            elif part.text:
                yield part, None, after_token and self.prefix
                after_token = False

    def encode(self, text: str) -> list[int]:
        if self.added is None:   # (one C call, no parts made)
            return self.native.spm_encode(text, self.prefix)
        out: list[int] = []
        for part, tid, prefix in self._parts(text):
            out += [tid] if tid is not None else self.native.spm_encode(part.text, prefix)
        return out

    def encode_to_array(self, text: str, around=None) -> array.array:
        before, after = around or ((), ())
        return array.array("I", [*before, *self.encode(text), *after])

    def encode_batch(self, texts: list[str], threads: int = 1, as_array: bool = False,
                     ordinary: bool = False) -> list:
        one = self.encode_to_array if as_array else self.encode
        if threads < 2 or len(texts) < 2:
            return [one(t) for t in texts]
        from concurrent.futures import ThreadPoolExecutor   # (the C call drops the GIL)
        with ThreadPoolExecutor(max_workers=min(threads, len(texts))) as pool:
            return list(pool.map(one, texts))

    def encode_offsets(self, text: str, lengths, tokens: list[bytes], ordinary: bool = False,
                       align=None, trim=None):
        """(ids, tokens, character spans, indices of the tokens cut out): offsets as
        sentencepiece gives them (a byte-fallback character's span on its last byte
        token, the others empty)."""
        ids: list[int] = []
        offs: list[tuple[int, int]] = []
        marks: list[int] = []
        for part, tid, prefix in self._parts(text):
            if tid is not None:
                marks.append(len(ids))
                ids.append(tid)
                offs.append(part.span(0, len(part.text)))
                continue
            base = part.span(0, 0)[0]
            got, st, en = self.native.spm_encode_offsets(part.text, prefix)
            ids += got
            offs += [(s + base, e + base) for s, e in zip(st, en)]
        return ids, [tokens[i] if 0 <= i < len(tokens) else b"" for i in ids], offs, marks


class SpmPipeline(Pipeline):
    """The text as the SentencePiece-style model takes it: no pre-tokenizer, one C call."""

    vocab = Lazy[dict[int, bytes]]()

    def __init__(self, model: SpmModel, vocab: dict[int, bytes] | Later[dict[int, bytes]],
                 specials: frozenset[int], added=None):
        super().__init__(model, vocab=vocab, added=added, specials=specials,
                         key_of=model.key_text, stream_safe=False)   # ('▁the': its pieces)
        self.spec = model.spec
        self.native = model.native

    # ----- pieces --------------------------------------------------------------------
    def played_pieces(self, text: str, start: int = 0):
        """The text parts between special tokens, each whole and normalized: sentencepiece
        (and llama.cpp) merge a whole normalized text by score, so a word's merges
        interleave across the segments :meth:`pieces` cuts for speed (no piece crosses a
        cut, so the tokens are the same, not the order the merges happen in)."""
        for part, tid, prefix in self._own._parts(text):
            if tid is not None:
                yield part, tid
                continue
            norm, src = self.native.spm_normalize(part.text, prefix)
            base = part.span(0, 0)[0] + start
            yield NStr(norm, [(src[k] + base, src[k + 1] + base) for k in range(len(norm))]), None

    def pieces(self, text: str, start: int = 0):
        """The encoder's text parts, normalized and cut where no piece crosses."""
        for part, tid in self.played_pieces(text, start):
            if tid is not None:
                yield part, tid
                continue
            a = 0
            for b in self.native.spm_segments(part.text):
                spans = part.spans()[a:b]
                if spans:   # the segment's span runs to the source of the next character
                    spans[-1] = (spans[-1][0], max(spans[-1][0], spans[-1][1]))
                yield NStr(part.text[a:b], spans), None
                a = b

    # ----- decoding ----------------------------------------------------------------
    def decodes_bytes(self) -> bool:
        return False

    def decode(self, ids: Iterable[int]) -> str:
        """As sentencepiece decodes: '▁' as a space, byte pieces joined into UTF-8 (a byte
        that starts no valid character is one U+FFFD), control pieces left out, <unk> as
        ' ⁇ ', and the dummy prefix's space dropped: the first piece's leading '▁' while
        nothing is written yet (with remove_extra_whitespaces, every such leading '▁',
        as the spaces the normalizer removed). A GGUF llama vocabulary decodes as
        llama.cpp's pieces do."""
        if self.spec.llama:
            return self._decode_llama(ids)
        spec = self.spec
        out = bytearray()
        bos = True    # sentencepiece's is_bos_ws: a leading '▁' may still be dropped
        seen = False  # a '▁' was dropped from the last piece
        drop = spec.add_dummy_prefix or spec.remove_extra_whitespaces
        for i in ids:
            t = spec.types[i] if 0 <= i < len(spec.types) else NORMAL
            if t == BYTE:
                out += self.vocab[i]
                continue
            if seen or out:
                bos = False
            seen = False
            if t == CONTROL:
                continue
            if t == UNKNOWN:
                piece = spec.unk_surface
            else:
                piece = spec.pieces[i] if 0 <= i < len(spec.pieces) else ""
                if bos and drop and piece.startswith(SPACE):
                    piece = piece[1:]
                    seen = not spec.remove_extra_whitespaces
                piece = piece.replace(SPACE, " ")
            out += piece.encode("utf-8", "surrogateescape")
        return out.decode("utf-8", _PER_BYTE)

    def _decode_llama(self, ids: Iterable[int]) -> str:
        spec = self.spec
        out = bytearray()
        first = True
        for i in ids:
            t = spec.types[i] if 0 <= i < len(spec.types) else NORMAL
            if t == BYTE or i in self._byte_ids():
                out += self.vocab[i]
                first = False
                continue
            piece = spec.pieces[i] if 0 <= i < len(spec.pieces) else ""
            if spec.escape_whitespaces:
                if first and spec.add_dummy_prefix and piece.startswith(SPACE):
                    piece = piece[1:]
                piece = piece.replace(SPACE, " ")
            first = False
            out += piece.encode("utf-8", "surrogateescape")
        return out.decode("utf-8", "replace")

    def _byte_ids(self) -> set[int]:
        got = getattr(self, "_bytes", None)
        if got is None:
            spec = self.spec
            got = self._bytes = {i for i, p in enumerate(spec.pieces)
                                 if len(p) == 6 and p.startswith("<0x") and p.endswith(">")}
        return got


class SpmTokenizer(PipelineTokenizer):
    """A SentencePiece-style tokenizer: its id -> bytes and bytes -> id tables are made
    when first read (encoding needs only the C model; a 32k-piece model loads in a few
    milliseconds without them)."""

    vocab = Lazy[dict[int, bytes]]()
    bytes_to_id = Lazy[dict[bytes, int]]()
    pipeline: SpmPipeline

    def _skipped_ids(self) -> set[int]:
        """Control pieces only: sentencepiece writes <unk> as ' ⁇ ' whatever is skipped."""
        types = self.pipeline.spec.types
        return {i for i in self.special_ids.values() if types[i] == CONTROL}


def _token_ids(vocab: Later[dict[int, bytes]]) -> dict[bytes, int]:
    t2i: dict[bytes, int] = {}
    for i, b in vocab().items():
        t2i.setdefault(b, i)
    return t2i


def build_spm(spec: SpmSpec, *, added=None, special_ids: dict[str, int] | None = None,
              meta: dict | None = None) -> PipelineTokenizer:
    """The tokenizer of a SentencePiece-style model (ValueError: the model is refused).
    The C model is all encoding needs; the tables for the window (id -> bytes, bytes ->
    id) are made when first read."""
    native = native_model(spec)
    vocab = Later(lambda: shown_bytes(spec))
    model = SpmModel(native, vocab, spec)
    if special_ids is None:
        types = bytes(spec.types)
        special_ids = {spec.pieces[m.start()]: m.start()
                       for m in re.finditer(rb"[\x02\x03]", types)}   # CONTROL, UNKNOWN
    pipe = SpmPipeline(model, vocab, frozenset(special_ids.values()), added)
    merges = LazyMerges(lambda: model.n_merges, model.merge_at, vocab)
    # the words the window colours and plays back on a click: runs of non-spaces (a
    # word's playback starts from the '▁' the dummy prefix gives it, as in its text)
    return SpmTokenizer(pipe, vocab=vocab,  # (Lazy: made when read)
                        bytes_to_id=Later(lambda: _token_ids(vocab)),
                        merges=merges, special_ids=special_ids, pattern=WORDS,
                        meta=dict(meta or spec.meta))


def build_llama(tokens: list[str], scores: list[float] | None, types: list[int] | None, *,
                add_space_prefix: bool = True, parse_special: bool = True,
                meta: dict | None = None, attrs: list[int] | None = None,
                specials: list | None = None) -> PipelineTokenizer:
    """A GGUF ``llama`` vocabulary as llama.cpp's ``llama_tokenize`` runs it: tokens of
    type CONTROL, USER_DEFINED or UNKNOWN cut out of the text first (with
    ``parse_special``, llama-tokenize's default; without it only USER_DEFINED ones, the
    setting of llama.cpp's tokenizer tests), then each text part merged by score
    (llm_tokenizer_spm) with the space prefix before a part that starts the text or
    follows a special token. ``attrs``: the types that decide which tokens are cut out,
    after llama.cpp's corrections by name (llama_vocab.token_attrs: ``</s>`` of type
    USER_DEFINED is also CONTROL, so it is cut only with ``parse_special``); default the
    types. ``specials``: the tokens cut out as llama.cpp cuts them (``llama_cpp.Special``
    with LSTRIP / RSTRIP, llama_vocab.specials_of), in place of those ``attrs`` names.
    ValueError: what cannot be run."""
    from .added_tokens import AddedToken, AddedTokens
    n = len(tokens)
    kinds = [t if t in (NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE) else NORMAL
             for t in (types or [NORMAL] * n)]
    index = {t: i for i, t in enumerate(tokens)}   # llama.cpp's map: the last id of a text
    missing = [b for b in range(256)
               if f"<0x{b:02X}>" not in index and not (b < 0x80 and chr(b) in index)]
    if missing:
        raise ValueError(f"it has no token for the byte 0x{missing[0]:02X} (neither "
                         f"<0x{missing[0]:02X}> nor the byte itself), which llama.cpp needs "
                         "for text no token covers")
    spec = SpmSpec(list(tokens), list(scores) if scores is not None else [0.0] * n,
                   bytes(kinds), True, add_dummy_prefix=add_space_prefix,
                   remove_extra_whitespaces=False, llama=True, meta=dict(meta or {}))
    cutting = kinds if attrs is None else attrs
    # (a user-defined token is text to llama.cpp, cut out whatever parse_special says)
    cut = [AddedToken(i, t, normalized=False, special=k != USER_DEFINED) for i, (t, k) in
           enumerate(zip(tokens, cutting))
           if t and (k == USER_DEFINED or (parse_special and k in (CONTROL, UNKNOWN)))]
    every = {t: i for i, (t, k) in enumerate(zip(tokens, cutting))
             if t and k in (CONTROL, UNKNOWN)}
    if specials is not None:
        from .llama_cpp import LlamaSpecials
        return build_spm(spec, added=LlamaSpecials(specials) if specials else None,
                         special_ids=every)
    return build_spm(spec, added=AddedTokens(cut, None) if cut else None, special_ids=every)


__all__: Sequence[str] = ("SpmSpec", "SpmModel", "SpmPipeline", "SpmTokenizer", "build_spm",
                          "build_llama", "native_model")
