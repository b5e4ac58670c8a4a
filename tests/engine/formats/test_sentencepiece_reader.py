"""The SentencePiece .model reader against sentencepiece itself, on models its trainer
made here; and hostile protobuf (fields that lie about their sizes) refused clearly."""
from __future__ import annotations

import math
import os
import struct
import tracemalloc
from pathlib import Path

import pytest

from bpe_gui.engine.errors import FormatError
from bpe_gui.engine.formats import sentencepiece_fmt as S
from bpe_gui.engine.formats.sentencepiece_fmt import looks_like_model, parse_model, read_model

spm = pytest.importorskip("sentencepiece")


def _proc(path: Path):
    return spm.SentencePieceProcessor(model_file=str(path))


@pytest.mark.parametrize("kind", ["bpe_llama", "bpe_nfkc", "bpe_suffix", "unigram"])
def test_pieces_scores_and_types_equal_sentencepieces(spm_models, kind):
    path = spm_models[kind].path
    m = read_model(path)
    sp = _proc(path)
    assert len(m.pieces) == sp.get_piece_size()
    for i, p in enumerate(m.pieces):
        assert p.piece == sp.id_to_piece(i)
        assert math.isclose(p.score, sp.get_score(i), rel_tol=0, abs_tol=1e-6)
        assert (p.type == S.UNKNOWN) == sp.is_unknown(i)
        assert (p.type == S.CONTROL) == sp.is_control(i)
        assert (p.type == S.BYTE) == sp.is_byte(i)
        assert (p.type == S.UNUSED) == sp.is_unused(i)
    t = m.trainer
    assert (t.unk_id, t.bos_id, t.eos_id, t.pad_id) == \
        (sp.unk_id(), sp.bos_id(), sp.eos_id(), sp.pad_id())


@pytest.mark.parametrize("kind", ["bpe_llama", "bpe_nfkc", "bpe_suffix", "unigram"])
def test_settings_are_the_ones_trained_with(spm_models, kind):
    model = spm_models[kind]
    m = read_model(model.path)
    o = model.options
    assert m.model_type == o["model_type"].upper()
    assert m.trainer.byte_fallback == o.get("byte_fallback", False)
    assert m.trainer.split_digits == o.get("split_digits", False)
    assert m.trainer.treat_whitespace_as_suffix == o.get("treat_whitespace_as_suffix", False)
    assert m.trainer.vocab_size == o["vocab_size"] == len(m.pieces)
    assert m.normalizer.name == o.get("normalization_rule_name", "nmt_nfkc")
    assert m.normalizer.add_dummy_prefix == o.get("add_dummy_prefix", True)
    assert m.normalizer.remove_extra_whitespaces == o.get("remove_extra_whitespaces", True)
    assert m.trainer.control_symbols == tuple(o.get("control_symbols", ()))
    assert m.trainer.user_defined_symbols == tuple(o.get("user_defined_symbols", ()))
    assert (m.not_bpe() is None) == (o["model_type"] == "bpe")


@pytest.mark.parametrize("kind", ["bpe_llama", "bpe_nfkc", "bpe_suffix"])
def test_the_precompiled_charsmap_is_sentencepieces_rule(spm_models, kind):
    """The charsmap in the model is, byte for byte, the compiled rule sentencepiece ships
    for that normalizer name (package_data/<name>.bin; empty for identity)."""
    m = read_model(spm_models[kind].path)
    rule = Path(spm.__file__).parent / "package_data" / f"{m.normalizer.name}.bin"
    expect = rule.read_bytes() if rule.exists() else b""
    assert m.normalizer.name != "identity" or expect == b""
    assert m.normalizer.precompiled_charsmap == expect


def test_user_defined_and_byte_pieces(spm_models):
    m = read_model(spm_models["bpe_llama"].path)
    assert [m.pieces[i].piece for i in m.ids_of(S.USER_DEFINED)] == ["<tool>"]
    assert [m.pieces[i].piece for i in m.ids_of(S.CONTROL)] == ["<s>", "</s>", "[INST]",
                                                                "[/INST]"]
    assert [m.pieces[i].piece for i in m.ids_of(S.BYTE)] == [f"<0x{b:02X}>" for b in range(256)]


def test_unigram_is_named(spm_models):
    m = read_model(spm_models["unigram"].path)
    assert m.model_type == "UNIGRAM"
    assert "a Unigram SentencePiece model" in m.not_bpe() and "not BPE" in m.not_bpe()


def test_recognised_by_content_under_any_name(spm_models, tmp_path):
    data = spm_models["bpe_llama"].path.read_bytes()
    for name in ("tokenizer.model.v7", "weights.bin", "x"):
        p = tmp_path / name
        p.write_bytes(data)
        assert looks_like_model(p.read_bytes()[:256])
        assert read_model(p).pieces[0].piece == "<unk>"


@pytest.mark.parametrize("head", [b"", b"\x0a", b"GGUF\x03\0\0\0", b'{"version": "1.0"}',
                                  b"IQ== 0\nIg== 1\n", os.urandom(64) * 0 + b"\x0a\x05\x12\x00",
                                  b"\x0a\x02\x0a\x00"])
def test_not_a_model(head):
    assert not looks_like_model(head)


# ----- hostile files ------------------------------------------------------------------
def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _len_field(num: int, payload: bytes, claim: int | None = None) -> bytes:
    return _varint(num << 3 | 2) + _varint(len(payload) if claim is None else claim) + payload


def _piece(text: str, score: float = 0.0, kind: int | None = None) -> bytes:
    body = _len_field(1, text.encode()) + b"\x15" + struct.pack("<f", score)
    if kind is not None:
        body += b"\x18" + _varint(kind)
    return _len_field(1, body)


def _model(*pieces: bytes, trainer: bytes = b"\x18\x02") -> bytes:
    return b"".join(pieces) + _len_field(2, trainer) + _len_field(3, b"\x0a\x08identity")


def _refused(data: bytes, tmp_path: Path, *words: str, key: str | None = None):
    p = tmp_path / "bad.model"
    p.write_bytes(data)
    with pytest.raises(FormatError) as e:
        read_model(p)
    msg = str(e.value)
    assert str(p) in msg
    for w in words:
        assert w in msg, msg
    if key is not None:
        assert e.value.key == key, e.value.key


def test_a_handmade_model_reads():
    m = parse_model(_model(_piece("<unk>", 0, 2), _piece("▁a", -1.0), _piece("b", -2.0)))
    assert [tuple(p) for p in m.pieces] == [("<unk>", 0.0, 2), ("▁a", -1.0, 1), ("b", -2.0, 1)]
    assert m.model_type == "BPE" and m.normalizer.name == "identity"


def test_a_piece_that_claims_more_bytes_than_its_message(tmp_path):
    body = _len_field(1, b"abc", claim=200) + b"\x15\0\0\0\0"
    _refused(_model(_piece("<unk>", 0, 2), _len_field(1, body)), tmp_path,
             "claims 200 bytes", "lies about its size", key="pieces[1].#1")


def test_a_message_that_claims_more_bytes_than_the_file(tmp_path):
    data = _piece("<unk>", 0, 2) + _varint(1 << 3 | 2) + _varint(2**40) + b"\x0a\x01a"
    _refused(data, tmp_path, "claims 1,099,511,627,776 bytes", key="ModelProto.#1")


def test_a_trainer_spec_that_lies(tmp_path):
    data = _piece("<unk>", 0, 2) + _len_field(2, b"\x18\x02", claim=10_000)
    _refused(data, tmp_path, "claims 10,000 bytes", key="ModelProto.#2")


def test_a_truncated_model_is_refused(spm_models, tmp_path):
    data = spm_models["bpe_llama"].path.read_bytes()
    for cut in (1, 2, 5, 17, len(data) // 3):
        _refused(data[:cut], tmp_path)


def test_a_varint_longer_than_ten_bytes(tmp_path):
    data = _piece("<unk>", 0, 2) + b"\x18" + b"\xff" * 11 + b"\x01"
    _refused(data, tmp_path, "longer than 10 bytes")


def test_a_group_wire_type(tmp_path):
    _refused(_piece("<unk>", 0, 2) + b"\x0b\x0c", tmp_path, "wire type 3")


def test_a_field_of_the_wrong_wire_type(tmp_path):
    _refused(_model(_piece("<unk>", 0, 2), trainer=b"\x1d\0\0\0\0"), tmp_path,
             "trainer_spec.model_type has wire type 5", key="trainer_spec.model_type")


@pytest.mark.parametrize("pieces, words, key", [
    ((_piece("<unk>", 0, 2), _piece("a"), _piece("a")), ["'a' is defined twice"],
     "pieces[2].piece"),
    ((_piece("<unk>", 0, 2), _piece("<unk>", 0, 2)), ["defined twice"], "pieces[1].piece"),
    ((_piece("<unk>", 0, 2), _piece("<u2>", 0, 2)), ["two pieces are <unk>"], "pieces[1].type"),
    ((_piece("a"), _piece("b")), ["no <unk>"], "pieces"),
    ((_piece("<unk>", 0, 2), _piece("<0x41>", 0, 6)), ["byte_fallback is false"],
     "pieces[1].type"),
    ((_piece("<unk>", 0, 2), _piece("", 0)), ["empty piece"], "pieces[1].piece"),
])
def test_what_sentencepiece_refuses_on_load(tmp_path, pieces, words, key):
    _refused(_model(*pieces), tmp_path, *words, key=key)


def test_byte_fallback_needs_all_256_bytes(tmp_path):
    pieces = [_piece("<unk>", 0, 2)] + [_piece(f"<0x{b:02X}>", 0, 6) for b in range(255)]
    _refused(_model(*pieces, trainer=b"\x18\x02\x98\x02\x01"), tmp_path, "255 of the 256",
             "<0xFF> is missing", key="trainer_spec.byte_fallback")


def test_a_gigabyte_file_is_refused_by_its_size(tmp_path):
    p = tmp_path / "huge.model"
    with open(p, "wb") as f:
        f.write(_piece("<unk>", 0, 2))
        f.truncate(1 << 30)
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match="MB"):
            read_model(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20   # by its size: not read (time: bench/bench_refusals.py)


def test_garbage_after_a_model_head_is_refused_quickly(tmp_path):
    p = tmp_path / "g.model"
    p.write_bytes(_piece("<unk>", 0, 2) + os.urandom(4 << 20))
    with pytest.raises(FormatError):   # (time: bench/bench_refusals.py)
        read_model(p)


def test_unknown_fields_are_skipped_as_protobuf_does():
    extra = _varint(99 << 3 | 0) + _varint(5) + _len_field(98, b"zz") \
        + _varint(97 << 3 | 1) + b"\0" * 8 + _varint(96 << 3 | 5) + b"\0" * 4
    m = parse_model(_model(_piece("<unk>", 0, 2), _piece("a")) + extra)
    assert len(m.pieces) == 2


def test_negative_ids_read_as_int32():
    trainer = b"\x18\x02" + b"\xd8\x02" + _varint((1 << 64) - 1)   # pad_id = -1, 10 bytes
    m = parse_model(_model(_piece("<unk>", 0, 2), trainer=trainer))
    assert m.trainer.pad_id == -1
