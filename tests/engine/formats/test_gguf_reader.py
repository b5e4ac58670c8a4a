"""The GGUF metadata reader against the ``gguf`` package's reader on files its writer
made, and on hostile files: a clear FormatError naming the file and the key, in bounded
memory (how long a refusal takes: bench/bench_refusals.py)."""
from __future__ import annotations

import math
import os
import struct
import tracemalloc
from pathlib import Path

import pytest

from bpe_gui.engine.errors import FormatError
from bpe_gui.engine.formats import gguf_fmt
from bpe_gui.engine.formats.gguf_fmt import read_metadata, read_vocab, split_merge

gguf = pytest.importorskip("gguf")


@pytest.fixture(autouse=True, params=["c", "python"])
def reader(request, monkeypatch):
    """Every test here runs over both readers of string arrays: the C one (the arrays
    checked and kept as bytes, formats/gguf_fmt.GGUFStrings) and the Python one."""
    if request.param == "python":
        monkeypatch.setenv("BPE_GUI_GGUF_PYTHON", "1")
    else:
        monkeypatch.delenv("BPE_GUI_GGUF_PYTHON", raising=False)
    return request.param


def _oracle(path: Path) -> dict:
    """Every key's value as the gguf package reads it (its own header fields left out)."""
    reader = gguf.GGUFReader(str(path))
    return {k: f.contents() for k, f in reader.fields.items() if not k.startswith("GGUF.")}


def _plain(value):
    if isinstance(value, (str, int, float, bool)):
        return value
    return list(value)


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-6)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("name", ["gpt2", "gpt2_be", "llama", "values", "t5"])
def test_every_key_reads_as_the_gguf_package_reads_it(gguf_files, name):
    path = gguf_files[name].path
    meta = read_metadata(path)
    expect = _oracle(path)
    assert list(meta.values) == list(expect)
    for key, value in expect.items():
        mine = _plain(meta.values[key])
        if isinstance(value, list) and value and isinstance(value[0], bool):
            mine = [bool(x) for x in mine]
        assert _same(mine, value), key
    reader = gguf.GGUFReader(str(path))
    assert meta.version == int(reader.fields["GGUF.version"].contents())
    assert meta.tensor_count == len(reader.tensors)
    assert meta.byte_order == ("big" if name.endswith("_be") else "little")


def test_value_types_are_named(gguf_files):
    meta = read_metadata(gguf_files["values"].path)
    reader = gguf.GGUFReader(str(gguf_files["values"].path))
    for key, field in reader.fields.items():
        if key.startswith("GGUF."):
            continue
        names = [t.name for t in field.types]
        expect = names[0] if len(names) == 1 else f"{names[0]}[{names[1]}]"
        assert meta.types[key] == expect


def test_the_metadata_ends_where_the_tensor_infos_start(gguf_files):
    """The offset after the last key/value is where the gguf package's reader finds the
    tensor infos (a file with no tensors: its tensor data offset, before alignment)."""
    path = gguf_files["gpt2"].path
    meta = read_metadata(path)
    reader = gguf.GGUFReader(str(path))
    last = list(reader.fields.values())[-1]
    assert meta.end == last.offset + sum(p.nbytes for p in last.parts)


def test_gpt2_vocabulary(gguf_files, byte_bpe):
    v = read_vocab(gguf_files["gpt2"].path)
    eot = byte_bpe.tokens.index("<|endoftext|>")
    assert (v.model, v.pre, v.architecture) == ("gpt2", "qwen2", "qwen2")
    assert v.tokens == byte_bpe.tokens
    assert [split_merge(m) for m in v.merges] == byte_bpe.merges
    assert v.special_ids == {"bos": eot, "eos": eot}   # pad 0xFFFFFFFF means none
    assert v.flags == {"add_bos_token": False}
    assert v.token_types[eot] == gguf.TokenType.CONTROL
    assert v.chat_template.startswith("{% for")
    assert v.not_bpe() is None
    assert read_vocab(gguf_files["gpt2_be"].path).tokens == v.tokens


def test_llama_vocabulary_equals_its_sentencepiece_model(gguf_files, spm_models):
    sp = pytest.importorskip("sentencepiece")
    proc = sp.SentencePieceProcessor(model_file=str(spm_models["bpe_llama"].path))
    v = read_vocab(gguf_files["llama"].path)
    assert v.model == "llama" and v.merges is None
    assert v.tokens == [proc.id_to_piece(i) for i in range(proc.get_piece_size())]
    assert all(math.isclose(s, proc.get_score(i), rel_tol=1e-6)
               for i, s in enumerate(v.scores))
    assert v.special_ids == {"bos": proc.bos_id(), "eos": proc.eos_id(), "unk": proc.unk_id()}
    assert v.flags == {"add_bos_token": True, "add_eos_token": False, "add_space_prefix": True}
    assert [i for i, t in enumerate(v.token_types) if t == 6] == \
        [i for i in range(proc.get_piece_size()) if proc.is_byte(i)]


def test_a_unigram_vocabulary_is_named_not_bpe(gguf_files):
    v = read_vocab(gguf_files["t5"].path)
    assert "Unigram" in v.not_bpe() and "'t5'" in v.not_bpe()


def test_split_merge_as_llama_cpp():
    assert split_merge("Ġ t") == ("Ġ", "t")
    assert split_merge("  a") == (" ", "a")        # a space token on the left
    assert split_merge("▁ ▁▁") == ("▁", "▁▁")
    assert split_merge("ab") == ("", "")            # no space: a merge that never applies


# ----- hostile files ------------------------------------------------------------------
def _header(kv_count: int, version: int = 3, tensors: int = 0) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, tensors, kv_count)


def _string(s: bytes) -> bytes:
    return struct.pack("<Q", len(s)) + s


def _kv(key: str, vtype: int, payload: bytes) -> bytes:
    return _string(key.encode()) + struct.pack("<I", vtype) + payload


def _refused(path: Path, *words: str, key: str | None = None) -> FormatError:
    with pytest.raises(FormatError) as e:
        read_metadata(path)
    msg = str(e.value)
    assert str(path) in msg
    for w in words:
        assert w in msg, msg
    if key is not None:
        assert e.value.key == key
    return e.value


def test_a_truncated_file_is_refused_at_every_cut(gguf_files, tmp_path):
    """Cut anywhere inside the metadata (what comes after it, tensor infos and padding,
    is not read: a file cut there still gives its tokenizer)."""
    data = gguf_files["gpt2"].path.read_bytes()
    end = read_metadata(gguf_files["gpt2"].path).end
    cuts = sorted({0, 3, 4, 7, 8, 20, 23, 24, 30, 60, end // 3, end // 2, end - 1})
    for cut in cuts:
        p = tmp_path / f"cut{cut}.gguf"
        p.write_bytes(data[:cut])
        with pytest.raises(FormatError) as e:
            read_metadata(p)
        assert str(p) in str(e.value)


def test_an_array_longer_than_the_file(tmp_path):
    p = tmp_path / "a.gguf"
    payload = struct.pack("<IQ", 8, 10**12)   # 10^12 strings
    p.write_bytes(_header(1) + _kv("tokenizer.ggml.tokens", 9, payload) + b"\0" * 100)
    err = _refused(p, "1,000,000,000,000 items", "past the end of the file",
                   key="tokenizer.ggml.tokens")
    assert err.line is None


def test_an_array_of_numbers_longer_than_memory(tmp_path):
    p = tmp_path / "a.gguf"
    p.write_bytes(_header(1) + _kv("tokenizer.ggml.scores", 9, struct.pack("<IQ", 6, 2**62)))
    _refused(p, "past the end of the file", key="tokenizer.ggml.scores")


def test_a_string_of_2_to_the_63_bytes(tmp_path):
    p = tmp_path / "s.gguf"
    p.write_bytes(_header(1) + _kv("general.name", 8, struct.pack("<Q", 2**63) + b"x" * 50))
    _refused(p, "claims 9,223,372,036,854,775,808 bytes", key="general.name")


def test_a_key_name_of_2_to_the_63_bytes(tmp_path):
    p = tmp_path / "k.gguf"
    p.write_bytes(_header(1) + struct.pack("<Q", 2**63) + b"x" * 50)
    _refused(p, "the name of key #0", "past the end of the file")


def test_a_string_in_an_array_that_runs_past_the_end(tmp_path):
    p = tmp_path / "s.gguf"
    items = _string(b"ok") + struct.pack("<Q", 2**40) + b"tail"
    p.write_bytes(_header(1) + _kv("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 2) + items))
    _refused(p, "[1] claims", key="tokenizer.ggml.tokens")


def test_more_keys_than_the_file_holds(tmp_path):
    p = tmp_path / "k.gguf"
    p.write_bytes(_header(2**60) + b"\0" * 64)
    _refused(p, "1,152,921,504,606,846,976 metadata keys", key="kv_count")


@pytest.mark.parametrize("body, words, key", [
    (_kv("a", 13, b""), ["value type 13"], "a"),
    (_kv("a", 9, struct.pack("<IQ", 9, 1)), ["array of arrays"], "a"),
    (_kv("a", 9, struct.pack("<IQ", 77, 1)), ["item type 77"], "a"),
    (_kv("", 4, b"\0\0\0\0"), ["empty name"], "#0"),
])
def test_what_llama_cpp_refuses(tmp_path, body, words, key):
    p = tmp_path / "x.gguf"
    p.write_bytes(_header(1) + body + b"\0" * 32)
    _refused(p, *words, key=key)


def test_a_repeated_key(tmp_path):
    p = tmp_path / "x.gguf"
    kv = _kv("general.name", 8, _string(b"x"))
    p.write_bytes(_header(2) + kv + kv)
    _refused(p, "repeats the key 'general.name'", key="general.name")


@pytest.mark.parametrize("version, words", [(1, "version 1"), (4, "version 4"),
                                            (0, "version 0")])
def test_versions(tmp_path, version, words):
    p = tmp_path / "v.gguf"
    p.write_bytes(_header(0, version))
    _refused(p, words, key="version")


def test_not_gguf(tmp_path):
    p = tmp_path / "n.gguf"
    p.write_bytes(b"PK\3\4" + b"\0" * 100)
    _refused(p, "magic")


def test_a_gigabyte_of_garbage_after_the_magic(tmp_path):
    """A 1 GB file (sparse: random bytes, then holes) with GGUF's magic and version: refused
    from its first bytes, reading little of it (its time: bench/bench_refusals.py)."""
    rnd = os.urandom(1 << 20)
    for version in (3, None):
        p = tmp_path / f"garbage{version}.gguf"
        with open(p, "wb") as f:
            f.write(b"GGUF" + (struct.pack("<I", version) if version else b"") + rnd)
            f.truncate(1 << 30)
        tracemalloc.start()
        try:
            with pytest.raises(FormatError) as e:
                read_metadata(p)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert str(p) in str(e.value)
        assert peak < 64 << 20   # (time: bench/bench_refusals.py)


def test_plausible_garbage_is_cut_off_by_the_cap(tmp_path):
    """Keys that are each well-formed but go on past the metadata cap: refused at the cap
    (what is read is bounded even when every length is honest)."""
    p = tmp_path / "big.gguf"
    chunk = _kv("k", 8, _string(b"y" * 4000))
    n = 300
    body = b"".join(_kv(f"k{i}", 8, _string(b"y" * 4000)) for i in range(n))
    assert len(chunk) < 4100
    p.write_bytes(_header(n) + body)
    with pytest.raises(FormatError) as e:
        read_metadata(p, cap=256 << 10)
    assert "metadata runs past" in str(e.value)


def test_missing_and_folder(tmp_path):
    with pytest.raises(FormatError, match="not found"):
        read_metadata(tmp_path / "none.gguf")
    with pytest.raises(FormatError, match="folder"):
        read_metadata(tmp_path)


def test_no_tokenizer(tmp_path):
    p = tmp_path / "w.gguf"
    p.write_bytes(_header(1) + _kv("general.name", 8, _string(b"weights only")))
    with pytest.raises(FormatError, match="no tokenizer"):
        read_vocab(p)


def test_an_array_that_does_not_match_the_tokens(tmp_path):
    p = tmp_path / "m.gguf"
    toks = struct.pack("<IQ", 8, 2) + _string(b"a") + _string(b"b")
    scores = struct.pack("<IQ", 6, 3) + struct.pack("<3f", 0, 0, 0)
    p.write_bytes(_header(3) + _kv("tokenizer.ggml.model", 8, _string(b"llama"))
                  + _kv("tokenizer.ggml.tokens", 9, toks)
                  + _kv("tokenizer.ggml.scores", 9, scores))
    with pytest.raises(FormatError) as e:
        read_vocab(p)
    assert e.value.key == "tokenizer.ggml.scores" and "3 entries for 2 tokens" in str(e.value)


def test_a_special_id_past_the_vocabulary_is_ignored_as_llama_cpp_does(tmp_path):
    p = tmp_path / "s.gguf"
    toks = struct.pack("<IQ", 8, 2) + _string(b"a") + _string(b"b")
    p.write_bytes(_header(3) + _kv("tokenizer.ggml.model", 8, _string(b"gpt2"))
                  + _kv("tokenizer.ggml.tokens", 9, toks)
                  + _kv("tokenizer.ggml.bos_token_id", 4, struct.pack("<I", 7)))
    v = read_vocab(p)
    assert v.special_ids == {} and "bos_token_id = 7" in v.notes[0]


def test_the_models_gguf_knows(gguf_files):
    assert set(gguf_fmt.BPE_MODELS) <= set(gguf_fmt.MODELS)
    assert read_vocab(gguf_files["values"].path).tokens == ["a", "b", "ab"]
