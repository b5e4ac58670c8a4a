"""SentencePiece ``.model`` files (Llama 1/2, Mistral 7B, Gemma, Phi-3, ...): a ModelProto.

A pure parser of protobuf's wire format (no protobuf dependency): bytes in, plain
dataclasses out. The schema is sentencepiece's ``sentencepiece_model.proto``: a
ModelProto holds ``pieces`` (field 1: piece, score, type), ``trainer_spec`` (field 2:
model_type, byte_fallback, split_digits, the special pieces ...), ``normalizer_spec``
(field 3: name, precompiled_charsmap, add_dummy_prefix, remove_extra_whitespaces,
escape_whitespaces) and ``denormalizer_spec`` (field 5). Fields this reader does not
know are skipped, as protobuf does. Every length is checked against the bytes left in
the message that holds it, so a field that lies about its size is a FormatError naming
the file and the field (``pieces[12].piece``), never a read past the end.

The pieces are read in C where the extension is built (csrc/imported/pipe_load_spm.c):
their texts stay where they lie in the file's bytes (:class:`PieceList`: a ``Piece`` is
made when one is read), the spec messages are read here. The C reader only accepts or
refuses: a file it refuses is read again by the Python reader below, which names the
field and what is wrong, so a damaged file gets the same message either way
(``BPE_GUI_SPM_PYTHON=1``: the Python reader always, as the tests compare them).

The file is recognised by its content (:func:`looks_like_model`), not its name:
mistral-common names them ``tokenizer.model.v1``, ``.model.v3``, ``.model.v7``.

What sentencepiece itself refuses on load (``ModelInterface::InitializePieces``) is
refused here too, with its reason: an empty piece, a piece defined twice, no ``<unk>``
or two, a BYTE piece that is not ``<0xNN>`` or appears without ``byte_fallback``, and
``byte_fallback`` without all 256 byte pieces.

Example::

    >>> m = read_model("tokenizer.model")
    >>> m.model_type, m.trainer.byte_fallback, m.normalizer.name, m.pieces[3]
    ('BPE', True, 'identity', Piece(piece='<0x00>', score=0.0, type=6))
"""
from __future__ import annotations

import os
import re
import struct
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields as dc_fields
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import FormatError
from ..io.reading import ReadInPlace, opened
from ..tokenizers.imported.spm import SpmSpec, build_spm
from ..tokenizers.imported.word_model import model_class

MAX_FILE_BYTES = 256 << 20   # published models are under 10 MB (Gemma's: 4.2 MB)

# ModelProto.SentencePiece.Type
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
PIECE_TYPES = {1: "NORMAL", 2: "UNKNOWN", 3: "CONTROL", 4: "USER_DEFINED", 5: "UNUSED",
               6: "BYTE"}
# TrainerSpec.ModelType
MODEL_TYPES = {1: "UNIGRAM", 2: "BPE", 3: "WORD", 4: "CHAR"}
_BYTE_PIECE = re.compile(r"<0x[0-9A-F]{2}>")


class Piece(NamedTuple):   # a tuple: a 256k-piece model makes 256k of them
    piece: str          # not UTF-8 bytes (never seen) are kept as surrogate escapes
    score: float
    type: int           # NORMAL .. BYTE (an unknown value reads as NORMAL, as protobuf does)


class PieceList(ReadInPlace[Piece]):
    """The pieces as the C reader left them: each text (start, length) in the file's bytes,
    the scores (float32) and types (a byte each). ``pieces[i]`` is made when read; the
    texts are decoded together the first time they are all wanted (:meth:`texts`)."""

    __slots__ = ("data", "starts", "lens", "scores", "types", "_texts")
    _what = "piece"

    def __init__(self, data: bytes, starts: bytes, lens: bytes, scores: bytes, types: bytes):
        self.data, self.types = data, types
        self.starts, self.lens = array("I"), array("I")
        self.starts.frombytes(starts)
        self.lens.frombytes(lens)
        self.scores = array("f")
        self.scores.frombytes(scores)
        self._texts: list[str] | None = None

    @property
    def raw(self) -> tuple[bytes, bytes, bytes, bytes, bytes]:
        """(data, starts, lens, scores, types): what the C model is built from."""
        return (self.data, self.starts.tobytes(), self.lens.tobytes(), self.scores.tobytes(),
                self.types)

    def texts(self) -> list[str]:
        """Every piece's text (bytes not UTF-8 as surrogate escapes), decoded once."""
        if self._texts is None:
            self._texts = model_class().spm_proto_texts(self.data, self.starts, self.lens)
        return self._texts

    def text(self, i: int) -> str:
        if self._texts is not None:
            return self._texts[i]
        a = self.starts[i]
        return self.data[a:a + self.lens[i]].decode("utf-8", "surrogateescape")

    def __len__(self) -> int:
        return len(self.types)

    def _item(self, i: int) -> Piece:
        return Piece(self.text(i), self.scores[i], self.types[i])

    def tolist(self) -> list[Piece]:
        return list(self)

    def __iter__(self) -> Iterator[Piece]:
        return map(Piece, self.texts(), self.scores, self.types)

    def __repr__(self) -> str:
        return f"PieceList({len(self)} pieces)"


class PieceTexts(ReadInPlace[str]):
    """The pieces' texts of a :class:`PieceList`, as a tokenizer's spec reads them: one is
    decoded alone until something wants them all (iteration, a slice), then all at once."""

    __slots__ = ("pieces",)
    _what = "piece"

    def __init__(self, pieces: PieceList):
        self.pieces = pieces

    def __len__(self) -> int:
        return len(self.pieces)

    def _item(self, i: int) -> str:
        return self.pieces.text(i)

    def tolist(self) -> list[str]:
        return self.pieces.texts()


@dataclass(frozen=True)
class TrainerSpec:
    """The trainer settings kept in the model (defaults as in the .proto). Of these,
    encoding reads ``model_type``, ``byte_fallback``, ``treat_whitespace_as_suffix``,
    ``unk_surface`` and the special ids; the others are what training did (``split_digits``
    and ``split_by_*`` cut the training text; encoding follows from the merged pieces)."""

    model_type: int = 1
    vocab_size: int = 8000
    byte_fallback: bool = False
    split_digits: bool = False
    split_by_whitespace: bool = True
    split_by_number: bool = True
    split_by_unicode_script: bool = True
    treat_whitespace_as_suffix: bool = False
    allow_whitespace_only_pieces: bool = False
    max_sentencepiece_length: int = 16
    character_coverage: float = 0.9995
    unk_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    pad_id: int = -1
    unk_piece: str = "<unk>"
    bos_piece: str = "<s>"
    eos_piece: str = "</s>"
    pad_piece: str = "<pad>"
    unk_surface: str = " \u2047 "
    control_symbols: tuple[str, ...] = ()
    user_defined_symbols: tuple[str, ...] = ()
    pretokenization_delimiter: str = ""
    model_prefix: str = ""


@dataclass(frozen=True)
class NormalizerSpec:
    """``name``: 'nmt_nfkc', 'nfkc', 'nmt_nfkc_cf', 'nfkc_cf', 'identity' or a user rule;
    ``precompiled_charsmap``: the compiled rule (a double-array trie of source strings and
    the normalized strings); empty for 'identity'."""

    name: str | None = None
    precompiled_charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True
    normalization_rule_tsv: str | None = None


@dataclass(frozen=True)
class SentencePieceModel:
    path: str | None
    pieces: list[Piece] | PieceList   # a PieceList where the C reader read them
    trainer: TrainerSpec
    normalizer: NormalizerSpec
    denormalizer: NormalizerSpec | None = None
    has_trainer_spec: bool = True
    has_normalizer_spec: bool = True

    @property
    def model_type(self) -> str:
        return MODEL_TYPES.get(self.trainer.model_type, f"type {self.trainer.model_type}")

    def ids_of(self, kind: int) -> list[int]:
        if isinstance(self.pieces, PieceList):
            return [m.start() for m in re.finditer(re.escape(bytes([kind])), self.pieces.types)]
        return [i for i, p in enumerate(self.pieces) if p.type == kind]

    def not_bpe(self) -> str | None:
        """Why this is not a model this app can run (BPE), or None if it is."""
        if self.trainer.model_type == 2:
            return None
        what = {1: "a Unigram SentencePiece model", 3: "a word-level SentencePiece model",
                4: "a character-level SentencePiece model"}.get(
            self.trainer.model_type, f"a SentencePiece model of type {self.trainer.model_type}")
        return (f"is {what} (trainer_spec.model_type = {self.model_type}): not BPE. This app "
                "opens BPE tokenizers only; Unigram models pick pieces by likelihood, which "
                "BPE merges cannot reproduce. Use sentencepiece itself for this model.")


# ----- protobuf wire format -----------------------------------------------------------
class _Lie(Exception):
    def __init__(self, where: str, message: str):
        self.where = where
        super().__init__(message)


def _varint(buf: bytes, pos: int, end: int, where: str) -> tuple[int, int]:
    result = shift = 0
    start = pos
    while True:
        if pos >= end:
            raise _Lie(where, f"a number (varint) at byte offset {start} runs past the end of "
                       "its message")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise _Lie(where, f"a number (varint) at byte offset {start} is longer than 10 "
                       "bytes")


def _fields(buf: bytes, pos: int, end: int, where: str):
    """(field number, wire type, value) of the message in buf[pos:end]; a LEN field's value
    is its (start, end) span, checked to lie inside the message."""
    while pos < end:
        tag, pos = _varint(buf, pos, end, where)
        num, wire = tag >> 3, tag & 7
        value: Any
        if num == 0:
            raise _Lie(where, f"field number 0 at byte offset {pos - 1} (not protobuf)")
        if wire == 0:
            value, pos = _varint(buf, pos, end, f"{where}.#{num}")
        elif wire == 1:
            if pos + 8 > end:
                raise _Lie(f"{where}.#{num}", "an 8-byte field runs past the end of its message")
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 5:
            if pos + 4 > end:
                raise _Lie(f"{where}.#{num}", "a 4-byte field runs past the end of its message")
            value, pos = buf[pos:pos + 4], pos + 4
        elif wire == 2:
            n, pos = _varint(buf, pos, end, f"{where}.#{num}")
            if n > end - pos:
                raise _Lie(f"{where}.#{num}", f"field {num} claims {n:,} bytes at byte offset "
                           f"{pos}, but its message has {end - pos:,} left: the field lies "
                           "about its size (the file is truncated or damaged)")
            value, pos = (pos, pos + n), pos + n
        else:
            raise _Lie(f"{where}.#{num}", f"wire type {wire} at byte offset {pos} is not one "
                       "a SentencePiece model uses (a group or no protobuf at all)")
        yield num, wire, value


def _int32(v: int) -> int:
    """An int32 field as protobuf reads it: the varint's low 32 bits, signed."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def _text(buf: bytes, span: tuple[int, int]) -> str:
    return buf[span[0]:span[1]].decode("utf-8", "surrogateescape")


def _float(raw: bytes) -> float:
    return struct.unpack("<f", raw)[0]


# field number -> (attribute, kind) for the two spec messages
_TRAINER = {3: ("model_type", "int"), 4: ("vocab_size", "int"), 35: ("byte_fallback", "bool"),
            25: ("split_digits", "bool"), 22: ("split_by_whitespace", "bool"),
            23: ("split_by_number", "bool"), 21: ("split_by_unicode_script", "bool"),
            24: ("treat_whitespace_as_suffix", "bool"),
            26: ("allow_whitespace_only_pieces", "bool"),
            20: ("max_sentencepiece_length", "int"), 10: ("character_coverage", "float"),
            40: ("unk_id", "int"), 41: ("bos_id", "int"), 42: ("eos_id", "int"),
            43: ("pad_id", "int"), 45: ("unk_piece", "str"), 46: ("bos_piece", "str"),
            47: ("eos_piece", "str"), 48: ("pad_piece", "str"), 44: ("unk_surface", "str"),
            30: ("control_symbols", "strs"), 31: ("user_defined_symbols", "strs"),
            53: ("pretokenization_delimiter", "str"), 2: ("model_prefix", "str")}
_NORMALIZER = {1: ("name", "str"), 2: ("precompiled_charsmap", "bytes"),
               3: ("add_dummy_prefix", "bool"), 4: ("remove_extra_whitespaces", "bool"),
               5: ("escape_whitespaces", "bool"), 6: ("normalization_rule_tsv", "str")}
_WIRE = {"int": 0, "bool": 0, "float": 5, "str": 2, "strs": 2, "bytes": 2}


def _message(buf: bytes, span: tuple[int, int], schema: dict, cls, where: str):
    values: dict[str, Any] = {}
    lists: dict[str, list] = {}
    for num, wire, value in _fields(buf, span[0], span[1], where):
        spec = schema.get(num)
        if spec is None:
            continue   # a field this reader does not need: skipped, as protobuf does
        name, kind = spec
        if wire != _WIRE[kind]:
            raise _Lie(f"{where}.{name}", f"{where}.{name} has wire type {wire}, not "
                       f"{_WIRE[kind]} as the schema says")
        if kind == "int":
            values[name] = _int32(value)
        elif kind == "bool":
            values[name] = value != 0
        elif kind == "float":
            values[name] = _float(value)
        elif kind == "str":
            values[name] = _text(buf, value)
        elif kind == "bytes":
            values[name] = buf[value[0]:value[1]]
        else:
            lists.setdefault(name, []).append(_text(buf, value))
    values.update({k: tuple(v) for k, v in lists.items()})
    known = {f.name for f in dc_fields(cls)}
    return cls(**{k: v for k, v in values.items() if k in known})


_SCORE = struct.Struct("<f")


def _piece(buf: bytes, span: tuple[int, int], i: int) -> Piece:
    start, end = span
    # the shape every writer gives: 0A len piece [15 score] [18 type], lengths < 128
    if end - start >= 3 and buf[start] == 0x0A and buf[start + 1] < 0x80:
        k = start + 2 + buf[start + 1]
        if 0 < buf[start + 1] and k <= end:
            score, kind, q = 0.0, NORMAL, k
            if q + 5 <= end and buf[q] == 0x15:
                score = _SCORE.unpack_from(buf, q + 1)[0]
                q += 5
            if q + 2 <= end and buf[q] == 0x18 and buf[q + 1] < 0x80:
                kind = buf[q + 1] if buf[q + 1] in PIECE_TYPES else NORMAL
                q += 2
            if q == end:
                return Piece(buf[start + 2:k].decode("utf-8", "surrogateescape"), score, kind)
    text, score, kind = None, 0.0, NORMAL
    where = f"pieces[{i}]"
    for num, wire, value in _fields(buf, span[0], span[1], where):
        if num == 1 and wire == 2:
            text = _text(buf, value)
        elif num == 2 and wire == 5:
            score = _float(value)
        elif num == 3 and wire == 0:
            kind = value if value in PIECE_TYPES else NORMAL
        elif num in (1, 2, 3):
            raise _Lie(f"{where}.{('piece', 'score', 'type')[num - 1]}",
                       f"{where} field {num} has wire type {wire}, not the schema's")
    if not text:
        raise _Lie(f"{where}.piece", f"{where} has an empty piece; sentencepiece refuses "
                   "such a model ('piece must not be empty')")
    return Piece(text, score, kind)


def parse_model(data: bytes, path: str | Path | None = None) -> SentencePieceModel:
    """A ModelProto's bytes -> SentencePieceModel; FormatError names ``path`` and the field."""
    fast = _parse_native(data, path)
    if fast is not None:
        return fast
    try:
        return _check(_parse(data, path), path)
    except _Lie as e:
        raise FormatError(path, f"is not a valid SentencePiece model: {e}.", key=e.where) \
            from None


def _native_reader():
    """The C model class when it has the .model reader (None: the pure-Python stand-in,
    or ``BPE_GUI_SPM_PYTHON=1``, which the tests use to compare the two readers)."""
    if os.environ.get("BPE_GUI_SPM_PYTHON") == "1":
        return None
    model = model_class()
    return model if hasattr(model, "spm_proto") else None


def _parse_native(data: bytes, path) -> SentencePieceModel | None:
    """The model read in C, or None where the C reader refuses it (or is not built): then
    the Python reader reads it, and says what is wrong."""
    reader = _native_reader()
    got = reader.spm_proto(data) if reader is not None else None
    if got is None:
        return None
    starts, lens, scores, types, (t_span, n_span, d_span) = got
    try:
        trainer = TrainerSpec() if t_span is None else \
            _message(data, t_span, _TRAINER, TrainerSpec, "trainer_spec")
        normalizer = NormalizerSpec() if n_span is None else \
            _message(data, n_span, _NORMALIZER, NormalizerSpec, "normalizer_spec")
        denormalizer = None if d_span is None else \
            _message(data, d_span, _NORMALIZER, NormalizerSpec, "denormalizer_spec")
    except _Lie:
        return None
    if not reader.spm_proto_ok(data, starts, lens, types, trainer.byte_fallback):
        return None
    return SentencePieceModel(None if path is None else str(path),
                              PieceList(bytes(data), starts, lens, scores, types), trainer,
                              normalizer, denormalizer, t_span is not None, n_span is not None)


def _parse(data: bytes, path) -> SentencePieceModel:
    pieces: list[Piece] = []
    trainer, normalizer, denormalizer = TrainerSpec(), NormalizerSpec(), None
    seen_trainer = seen_normalizer = False
    pos, end = 0, len(data)
    # the pieces first, as every writer orders them: tag 0A and a length under 16 KiB
    while pos + 2 < end and data[pos] == 0x0A:
        n, q = data[pos + 1], pos + 2
        if n >= 0x80:
            if data[q] >= 0x80:
                break
            n, q = (n & 0x7F) | data[q] << 7, q + 1
        if q + n > end:
            break   # _fields below says how it lies
        pieces.append(_piece(data, (q, q + n), len(pieces)))
        pos = q + n
    for num, wire, value in _fields(data, pos, end, "ModelProto"):
        if num in (1, 2, 3, 5) and wire != 2:
            raise _Lie(f"ModelProto.#{num}", f"field {num} of ModelProto has wire type {wire}, "
                       "not 2 (a message)")
        if num == 1:
            pieces.append(_piece(data, value, len(pieces)))
        elif num == 2:   # protobuf merges a message given twice; real files give it once
            trainer = _message(data, value, _TRAINER, TrainerSpec, "trainer_spec")
            seen_trainer = True
        elif num == 3:
            normalizer = _message(data, value, _NORMALIZER, NormalizerSpec, "normalizer_spec")
            seen_normalizer = True
        elif num == 5:
            denormalizer = _message(data, value, _NORMALIZER, NormalizerSpec,
                                    "denormalizer_spec")
    return SentencePieceModel(None if path is None else str(path), pieces, trainer,
                              normalizer, denormalizer, seen_trainer, seen_normalizer)


def _check(m: SentencePieceModel, path) -> SentencePieceModel:
    """What sentencepiece refuses on load (ModelInterface::InitializePieces)."""
    if not m.pieces:
        raise FormatError(path, "holds no pieces, so it is not a SentencePiece model (or an "
                          "empty one).", key="pieces")
    normal: dict[str, int] = {}
    reserved: dict[str, int] = {}
    unk = -1
    bytes_found = set()
    for i, p in enumerate(m.pieces):
        group = normal if p.type in (NORMAL, USER_DEFINED, UNUSED) else reserved
        if p.piece in group:
            raise FormatError(path, f"the piece {p.piece!r} is defined twice (ids "
                              f"{group[p.piece]} and {i}); sentencepiece refuses such a model.",
                              key=f"pieces[{i}].piece")
        group[p.piece] = i
        if p.type == UNKNOWN:
            if unk >= 0:
                raise FormatError(path, f"two pieces are <unk> (ids {unk} and {i}); "
                                  "sentencepiece refuses such a model.", key=f"pieces[{i}].type")
            unk = i
        if p.type == BYTE:
            if not m.trainer.byte_fallback:
                raise FormatError(path, f"piece {i} ({p.piece!r}) is a byte piece but "
                                  "trainer_spec.byte_fallback is false; sentencepiece refuses "
                                  "such a model.", key=f"pieces[{i}].type")
            if not _BYTE_PIECE.fullmatch(p.piece):
                raise FormatError(path, f"byte piece {i} ({p.piece!r}) is not of the form "
                                  "<0xNN>.", key=f"pieces[{i}].piece")
            bytes_found.add(int(p.piece[3:5], 16))
    if unk < 0:
        raise FormatError(path, "has no <unk> piece (type UNKNOWN); sentencepiece refuses such "
                          "a model.", key="pieces")
    if m.trainer.byte_fallback and len(bytes_found) != 256:
        missing = min(set(range(256)) - bytes_found)
        raise FormatError(path, f"has trainer_spec.byte_fallback but only {len(bytes_found)} "
                          f"of the 256 byte pieces (<0x{missing:02X}> is missing).",
                          key="trainer_spec.byte_fallback")
    return m


# The last model read, by (path, size, mtime): opening a file reads it twice, once to name
# its kind (sniff_file) and once to load it (a 32k-piece model: ~2 ms in C, ~0.1 s in
# Python).
_LAST: list = [None, None]


def read_model(path: str | Path) -> SentencePieceModel:
    """The SentencePiece model at ``path`` (the same file read again: the same object)."""
    p = Path(path)
    with opened(p, "a tokenizer.model file") as f:
        st = os.fstat(f.fileno())
        size = st.st_size
        key = (str(p), st.st_ino, size, st.st_mtime_ns)
        if _LAST[0] == key:
            return _LAST[1]
        if size > MAX_FILE_BYTES:
            raise FormatError(p, f"is {size / 1e6:,.0f} MB; SentencePiece models are under "
                              f"{MAX_FILE_BYTES >> 20} MiB here (published ones under 10 MB). "
                              "Check that you picked the right file.")
        data = f.read(size + 1)   # (a read of MAX_FILE_BYTES allocates that much)
        if len(data) > size:      # it grew since: as much as the limit lets in
            data += f.read(MAX_FILE_BYTES + 1 - len(data))
    if not looks_like_model(data[:4096]):
        raise FormatError(p, "is not a SentencePiece model: it does not start with a protobuf "
                          "ModelProto piece.")
    model = parse_model(data, p)
    _LAST[:] = [key, model]
    return model


# ----- loading as a tokenizer -----------------------------------------------------------
def spec_of(m: SentencePieceModel):
    """The model as :class:`~bpe_gui.engine.tokenizers.imported.spm.SpmSpec` (plain data)."""
    n, t = m.normalizer, m.trainer
    label = f"SentencePiece BPE ({len(m.pieces):,} pieces, normalizer {n.name or 'none'!r}" + \
        (", byte fallback" if t.byte_fallback else "") + ")"
    ps = m.pieces
    if isinstance(ps, PieceList):   # read in C: the arrays as they are, texts when asked
        texts: Sequence[str] = PieceTexts(ps)
        scores: Sequence[float] = ps.scores
        types, raw = ps.types, ps.raw
    else:
        texts, scores = [p.piece for p in ps], [p.score for p in ps]
        types, raw = bytes(p.type for p in ps), None
    meta = {"format": "sentencepiece", "source": m.path, "model": "BPE (SentencePiece)",
            "normalizer": n.name, "byte_fallback": t.byte_fallback,
            "add_dummy_prefix": n.add_dummy_prefix,
            "remove_extra_whitespaces": n.remove_extra_whitespaces,
            "user_defined_symbols": types.count(USER_DEFINED),
            "add_bos": False, "bos_id": t.bos_id, "eos_id": t.eos_id, "label": label}
    return SpmSpec(texts, scores, types, t.byte_fallback,
                   n.precompiled_charsmap, n.add_dummy_prefix, n.remove_extra_whitespaces,
                   n.escape_whitespaces, t.treat_whitespace_as_suffix,
                   unk_surface=t.unk_surface, meta=meta, raw=raw)


def load(path: str | Path, special_tokens=None, **kwargs):
    """The tokenizer of a SentencePiece BPE ``.model``: ids as
    ``SentencePieceProcessor.encode`` gives them (no BOS/EOS: the caller's ``add_bos``).
    Unigram, word and char models are refused naming what they are."""
    p = Path(path)
    m = read_model(p)
    problem = m.not_bpe()
    if problem is not None:
        raise FormatError(p, problem, key="trainer_spec.model_type")
    if special_tokens is not None or kwargs.get("pattern") is not None:
        raise FormatError(p, "a SentencePiece model has no pre-tokenizer pattern and matches "
                          "no special tokens in text (sentencepiece encodes '<s>' as text); "
                          "leave out --special-token / --pattern / --preset.")
    spec = spec_of(m)
    if kwargs.get("meta"):
        spec.meta.update(kwargs["meta"])
    try:
        return build_spm(spec)
    except ValueError as e:
        key = "normalizer_spec.precompiled_charsmap" if "charsmap" in str(e) else "pieces"
        raise FormatError(p, f"cannot be run: {e}.", key=key) from None


def looks_like_model(head: bytes) -> bool:
    """Whether these first bytes start a ModelProto: field 1 (a SentencePiece message)
    whose own first field is a non-empty UTF-8 piece, then a score or type or its end."""
    try:
        tag, pos = _varint(head, 0, len(head), "")
        if tag != 0x0A:
            return False
        n, pos = _varint(head, pos, len(head), "")
        if not 2 <= n <= 4096:
            return False
        end = min(pos + n, len(head))
        tag, pos = _varint(head, pos, end, "")
        if tag != 0x0A:
            return False
        k, pos = _varint(head, pos, end, "")
        if k == 0 or pos + k > end:
            return False
        head[pos:pos + k].decode("utf-8")
        after = pos + k
        return after >= end or head[after] in (0x15, 0x18)   # score, type or the end
    except (_Lie, UnicodeDecodeError):
        return False


__all__ = ["Piece", "PieceList", "TrainerSpec", "NormalizerSpec", "SentencePieceModel", "parse_model",
           "read_model", "looks_like_model", "PIECE_TYPES", "MODEL_TYPES", "load", "spec_of"]
