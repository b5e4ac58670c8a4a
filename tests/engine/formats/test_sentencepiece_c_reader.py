"""SentencePiece ``.model`` files are read in C (csrc/imported/pipe_load_spm.c, the default):
the same model as the Python reader's (``BPE_GUI_SPM_PYTHON=1``), piece for piece, and the
same tokenizer. Damaged files -- cut short, bytes overwritten anywhere, lengths that lie,
pieces defined twice, types changed -- get the Python reader's answer: its FormatError,
message and key, or, where it accepts the file, an equal model. The C reader never accepts
what the Python reader refuses. The window's tables (id -> bytes, bytes -> id) are made
when first read, once, and shared.
"""
from __future__ import annotations

import os
import random
import struct

import pytest

from bpe_gui.engine.errors import FormatError
from bpe_gui.engine.formats import sentencepiece_fmt as S
from bpe_gui.engine.tokenizers.imported import spm as spm_mod
from bpe_gui.engine.tokenizers.imported.word_model import model_class

from test_sentencepiece_models import TEXTS

C_READER = hasattr(model_class(), "spm_proto")
needs_c = pytest.mark.skipif(not C_READER, reason="the C extension is not built")
SHORT = [t for t in TEXTS.values() if len(t) < 500]


def _with(python: bool, fn, *args):
    """fn(*args) with the Python reader or the C one (the result, or the FormatError)."""
    old = os.environ.get("BPE_GUI_SPM_PYTHON")
    os.environ["BPE_GUI_SPM_PYTHON"] = "1" if python else "0"
    try:
        return fn(*args)
    except FormatError as e:
        return e
    finally:
        if old is None:
            del os.environ["BPE_GUI_SPM_PYTHON"]
        else:
            os.environ["BPE_GUI_SPM_PYTHON"] = old


def _same_model(a: S.SentencePieceModel, b: S.SentencePieceModel) -> None:
    assert len(a.pieces) == len(b.pieces)
    assert list(a.pieces) == list(b.pieces)
    assert (a.trainer, a.normalizer, a.denormalizer) == (b.trainer, b.normalizer, b.denormalizer)
    assert (a.has_trainer_spec, a.has_normalizer_spec, a.path) == \
        (b.has_trainer_spec, b.has_normalizer_spec, b.path)


def _same_answer(data: bytes, path: str, what: str) -> None:
    c = _with(False, S.parse_model, data, path)
    py = _with(True, S.parse_model, data, path)
    if isinstance(py, FormatError):
        assert isinstance(c, FormatError), f"{what}: the C reader accepted what Python refuses"
        assert (str(c), c.key) == (str(py), py.key), what
    else:
        assert not isinstance(c, FormatError), f"{what}: {c}"
        _same_model(c, py)


@pytest.fixture(scope="module")
def model_paths(spm_models, train_lines, tmp_path_factory, train_spm):
    out = {k: v.path for k, v in spm_models.items()}   # unigram too: read, then refused
    ud = train_spm(train_lines, tmp_path_factory.mktemp("cud"), "ud.model", model_type="bpe",
                   vocab_size=1400, byte_fallback=True, character_coverage=0.995,
                   user_defined_symbols=["<tool>", "</tool>", "foo bar", "▁▁", "ab"])
    out["bpe_ud"] = ud.path
    return out


@needs_c
@pytest.mark.parametrize("kind", ["bpe_llama", "bpe_nfkc", "bpe_suffix", "unigram", "bpe_ud"])
def test_the_c_reader_reads_what_the_python_reader_reads(model_paths, kind):
    data = model_paths[kind].read_bytes()
    c = _with(False, S.parse_model, data, str(model_paths[kind]))
    py = _with(True, S.parse_model, data, str(model_paths[kind]))
    assert isinstance(c.pieces, S.PieceList) and isinstance(py.pieces, list)
    _same_model(c, py)
    assert c.pieces[-1] == py.pieces[-1] and c.pieces[3:9] == py.pieces[3:9]
    for t in S.PIECE_TYPES:
        assert c.ids_of(t) == py.ids_of(t)


@pytest.mark.parametrize("kind", ["bpe_llama", "bpe_nfkc", "bpe_suffix", "bpe_ud"])
def test_the_tokenizer_is_the_same_from_either_reader(model_paths, kind):
    c = _with(False, S.load, model_paths[kind])
    py = _with(True, S.load, model_paths[kind])
    assert c.vocab == py.vocab and c.bytes_to_id == py.bytes_to_id
    assert c.special_ids == py.special_ids and c.meta == py.meta
    assert list(c.merges) == list(py.merges)
    assert list(c.pipeline.spec.pieces) == list(py.pipeline.spec.pieces)
    for text in SHORT:
        ids = py.encode(text, allowed_special="all")
        assert c.encode(text, allowed_special="all") == ids, text
        assert c.decode(ids) == py.decode(ids)
        assert c.encode_with_offsets(text, allowed_special="all").offsets == py.encode_with_offsets(text, allowed_special="all").offsets
    pb_c, pb_py = c.playback("Hello world 你好"), py.playback("Hello world 你好")
    assert pb_c.final_ids == pb_py.final_ids and pb_c.steps == pb_py.steps


def test_the_tables_are_made_when_first_read_once_and_shared(model_paths, monkeypatch):
    made = []
    real = spm_mod.shown_bytes
    monkeypatch.setattr(spm_mod, "shown_bytes", lambda spec: made.append(1) or real(spec))
    tok = S.load(model_paths["bpe_llama"])
    tok.encode("Hello world, 你好", allowed_special="all")
    assert made == []   # loading and encoding need only the C model
    vocab = tok.vocab
    assert made == [1]
    assert tok.pipeline.vocab is vocab and tok.model.vocab is vocab
    assert tok.merges[0] == (vocab[tok.merges.ids(0)[0]], vocab[tok.merges.ids(0)[1]])
    assert all(tok.bytes_to_id[b] <= i for i, b in vocab.items())
    assert made == [1]
    assert tok.decode(tok.encode("Hello world", allowed_special="all")) == "Hello world"


# ----- damaged files ------------------------------------------------------------------
def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _piece_spans(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each top-level field 1 (a piece message) of a sound model."""
    spans, pos = [], 0
    while pos < len(data):
        tag = data[pos]
        pos += 1
        n, k = 0, 0
        while True:
            b = data[pos]
            pos += 1
            n |= (b & 0x7F) << k
            k += 7
            if b < 0x80:
                break
        if tag == 0x0A:
            spans.append((pos, pos + n))
        pos += n
    return spans


def _mutants(data: bytes, rng: random.Random, n: int):
    spans = _piece_spans(data)
    for k in range(n):
        kind = k % 7
        b = bytearray(data)
        if kind == 0:
            cut = rng.randrange(len(data))
            yield f"cut at {cut}", bytes(b[:cut])
        elif kind == 1:   # bytes overwritten anywhere
            for _ in range(rng.randint(1, 3)):
                b[rng.randrange(len(b))] = rng.randrange(256)
            yield "bytes overwritten", bytes(b)
        elif kind == 2:   # a piece message's bytes overwritten (lengths, tags, types)
            s, e = spans[rng.randrange(len(spans))]
            w = rng.randrange(s - 1, e)
            b[w] = rng.choice([0x00, 0x07, 0x0B, 0x12, 0x15, 0x18, 0x7F, 0x80, 0xFF,
                               rng.randrange(256)])
            yield f"piece byte {w} overwritten", bytes(b)
        elif kind == 3:   # a piece given again (defined twice)
            s, e = spans[rng.randrange(len(spans))]
            i = rng.randrange(len(spans))
            at = spans[i][0] - 2
            yield "a piece twice", bytes(b[:at] + b"\x0a" + _varint(e - s) + b[s:e] + b[at:])
        elif kind == 4:   # a piece's type changed (BYTE, UNKNOWN, CONTROL, 0, 99)
            s, e = spans[rng.randrange(len(spans))]
            body = bytes(b[s:e]) + b"\x18" + _varint(rng.choice([0, 2, 3, 4, 5, 6, 99]))
            yield "a type changed", bytes(b[:s - 2]) + b"\x0a" + _varint(len(body)) + body + \
                bytes(b[e:])
        elif kind == 5:   # a length that lies, or a varint that never ends
            at = rng.randrange(len(b))
            junk = rng.choice([b"\x0a\xff\xff\xff\xff\x0f", b"\x12" + b"\xff" * 11,
                               b"\x0a\x03\x0a\x00\x15", b"\x0b\x0c", b"\x00\x01",
                               b"\x0a\x05\x1d\0\0\0\0"])
            yield "junk put in", bytes(b[:at]) + junk + bytes(b[at:])
        else:   # an empty piece text, or a score of the wrong wire type
            s, e = spans[rng.randrange(len(spans))]
            body = rng.choice([b"\x0a\x00\x15\0\0\0\0", b"\x0a\x01a\x10\x01", b"\x15\0\0\0\0"])
            yield "a piece's fields", bytes(b[:s - 2]) + b"\x0a" + _varint(len(body)) + body + \
                bytes(b[e:])


@pytest.mark.parametrize("kind", ["bpe_llama", "bpe_suffix"])
def test_damaged_files_get_the_python_readers_answer(model_paths, kind):
    data = model_paths[kind].read_bytes()
    rng = random.Random(kind)
    refused = 0
    for what, bad in _mutants(data, rng, 420):
        _same_answer(bad, "bad.model", what)
        refused += isinstance(_with(True, S.parse_model, bad, "bad.model"), FormatError)
    assert refused > 200   # the mutants do damage


def test_hand_made_hostile_models_get_the_python_readers_answer():
    def piece(text: bytes, score: float = 0.0, kind: int | None = None) -> bytes:
        body = b"\x0a" + _varint(len(text)) + text + b"\x15" + struct.pack("<f", score)
        if kind is not None:
            body += b"\x18" + _varint(kind)
        return b"\x0a" + _varint(len(body)) + body

    unk = piece(b"<unk>", 0, 2)
    bytes_ = b"".join(piece(f"<0x{b:02X}>".encode(), 0, 6) for b in range(256))
    fb = b"\x12\x05\x18\x02\x98\x02\x01"   # trainer_spec: BPE, byte_fallback
    cases = {
        "sound": unk + piece(b"a") + b"\x12\x02\x18\x02",
        "no pieces": b"\x12\x02\x18\x02",
        "no unk": piece(b"a") + piece(b"b"),
        "two unk": unk + piece(b"<u2>", 0, 2),
        "twice": unk + piece(b"a") + piece(b"a"),
        "twice in two groups": unk + piece(b"a") + piece(b"a", 0, 3),
        "byte without fallback": unk + piece(b"<0x41>", 0, 6),
        "byte of another form": unk + bytes_ + piece(b"<0x4g>", 0, 6) + fb,
        "lower-case byte": unk + bytes_[:-10] + piece(b"<0xff>", 0, 6) + fb,
        "255 bytes": unk + bytes_[:-10] + fb,
        "all bytes": unk + bytes_ + fb,
        "not UTF-8": unk + piece(b"\xff\xfe") + b"\x12\x02\x18\x02",
        "a huge type": unk + piece(b"a", 0, 2**40),
        "trainer twice": unk + b"\x12\x02\x18\x02" + b"\x12\x02\x18\x01",
        "a broken trainer, then a sound one": unk + b"\x12\x05\x1d\0\0\0\0" + b"\x12\x02\x18\x02",
        "a score of wire 0": unk + b"\x0a\x06\x0a\x02zq\x10\x01",
        "a type of wire 2": unk + b"\x0a\x07\x0a\x02zq\x1a\x01\x01",
        "a text of wire 5": unk + b"\x0a\x05\x0d\0\0\0\0",
        "two texts, the last empty": unk + b"\x0a\x06\x0a\x02zq\x0a\x00",
        "trainer lies": unk + b"\x12\x09\x18\x02",
        "trainer wire": unk + b"\x12\x05\x1d\0\0\0\0",
        "normalizer": unk + b"\x1a\x0a\x0a\x08identity",
        "denormalizer": unk + b"\x2a\x04\x0a\x02nf",
        "denormalizer lies": unk + b"\x2a\x04\x0a\x09nf",
        "field 0": unk + b"\x00\x01",
        "a 10-byte tag": unk + b"\x80" * 9 + b"\x01" + b"\x00",
        "an 11-byte varint": unk + b"\x18" + b"\xff" * 10 + b"\x01",
        "a 2**64 tag": unk + b"\x80" * 9 + b"\x02" + b"\x00",
        "a group": unk + b"\x0b\x0c",
        "unknown fields": unk + b"\xb8\x06\x05" + b"\x92\x06\x02zz" + b"\xb9\x06" + b"\0" * 8,
        "a piece of wire 0": unk + b"\x08\x01",
        "a spec of wire 5": unk + b"\x15\0\0\0\0",
    }
    for what, data in cases.items():
        _same_answer(data, "hand.model", what)
    assert isinstance(_with(True, S.parse_model, cases["all bytes"], "x"), S.SentencePieceModel)
