"""Damaged GGUF files, at random: a real file (the ``gguf`` writer's, conftest.py) cut short
or with bytes overwritten (anywhere, in a string's length, inside a token or a merge).
The C reader of string arrays (pipe_load_gguf.c, the default) must give either a clear
FormatError naming the file, or the tokenizer the Python reader builds from the same
file, token for token and id for id; what it reads must be what the ``gguf`` package
reads wherever that package reads the file. Never another exception, never a crash.
"""
from __future__ import annotations

import os
import random
import struct
from pathlib import Path

import pytest

from bpe_gui.engine.errors import FormatError
from bpe_gui.engine.formats import gguf_fmt

from gguf_py import gguf_reader
from model_files import TEXTS

gguf = pytest.importorskip("gguf")

SHORT_TEXTS = [t for name, t in TEXTS.items() if name != "long"] + ["<|endoftext|>x y"]


def _load(path: Path, python: bool):
    """(tokenizer, None) or (None, FormatError) with the C or the Python reader."""
    old = os.environ.get("BPE_GUI_GGUF_PYTHON")
    os.environ["BPE_GUI_GGUF_PYTHON"] = "1" if python else "0"
    try:
        return gguf_fmt.load(path), None
    except FormatError as e:
        return None, e
    finally:
        if old is None:
            del os.environ["BPE_GUI_GGUF_PYTHON"]
        else:
            os.environ["BPE_GUI_GGUF_PYTHON"] = old


def _same_tokenizer(a, b) -> None:
    assert a.vocab == b.vocab
    assert list(a.merges) == list(b.merges)
    assert a.special_ids == b.special_ids
    for text in SHORT_TEXTS:
        assert a.encode(text, allowed_special="all") == b.encode(text, allowed_special="all"), text


def _oracle_strings(path: Path, keys: tuple[str, ...]) -> dict[str, list[str] | None]:
    """Each string array as the gguf package reads it, or None where it does not (the
    file read once for all the keys)."""
    try:
        fields = gguf_reader(path).fields
    except Exception:   # the oracle's own refusals (numpy, index, value errors)
        return dict.fromkeys(keys)
    out: dict[str, list[str] | None] = {}
    for key in keys:
        try:
            field = fields[key]
            out[key] = [bytes(field.parts[i]).decode("utf-8", "surrogateescape")
                        for i in field.data]
        except Exception:
            out[key] = None
    return out


def _mutants(data: bytes, tokens: gguf_fmt.GGUFStrings, merges: gguf_fmt.GGUFStrings,
             rng: random.Random, n: int):
    """(what, damaged bytes): n damaged copies of a file whose arrays are known."""
    from bpe_gui.engine.tokenizers.imported.word_model import model_class
    Model = model_class()
    spans = []
    for arr in (tokens, merges):
        raw = Model.gguf_offsets(arr.buf, arr.start, arr.length, arr.big)
        spans.append(struct.unpack(f"{arr.length + 1}Q", raw))
    key = b"tokenizer.ggml.token_type"
    types_at = data.index(key) + len(key) + 16   # value type, item type, count
    for k in range(n):
        kind = k % 8
        b = bytearray(data)
        if kind == 0:
            cut = rng.randrange(len(data))
            yield f"cut at {cut}", bytes(b[:cut])
            continue
        if kind == 1:
            where = [rng.randrange(spans[1][-1]) for _ in range(rng.randint(1, 4))]
            for w in where:
                b[w] = rng.randrange(256)
            yield f"bytes at {where}", bytes(b)
            continue
        offs = spans[rng.randrange(2)]
        i = rng.randrange(len(offs) - 1)
        off = offs[i]
        if kind == 2:   # a string's length lies
            n_true = offs[i + 1] - off - 8
            lie = rng.choice([0, 1, n_true + 1, max(n_true - 1, 0), 2**63, 2**64 - 1,
                              len(data), rng.randrange(2**32)])
            b[off:off + 8] = struct.pack("<Q", lie)
            yield f"string at {off} says {lie}", bytes(b)
        elif kind == 3:   # a byte inside a string (UTF-8 broken, a space moved, ...)
            if offs[i + 1] - off - 8 == 0:
                continue
            at = rng.randrange(off + 8, offs[i + 1])
            b[at] = rng.choice([0x20, 0x80, 0xC3, 0xFF, 0x00, ord("a")])
            yield f"byte {b[at]:#x} at {at}", bytes(b)
        elif kind == 4:   # the array's count
            start = offs[0]
            count = struct.unpack_from("<Q", data, start - 8)[0]
            lie = rng.choice([0, count - 1, count + 1, 2**40, 2**64 - 1])
            b[start - 8:start] = struct.pack("<Q", lie)
            yield f"count at {start - 8} says {lie}", bytes(b)
        elif kind == 5:   # token types (special tokens appear and go)
            ids = [rng.randrange(tokens.length) for _ in range(rng.randint(1, 8))]
            for t in ids:
                struct.pack_into("<i", b, types_at + 4 * t, rng.choice([1, 2, 3, 4, 5, 6]))
            yield f"types of {ids}", bytes(b)
        else:   # two strings of one length swapped, or the first copied over the second
            by_len: dict[int, list[int]] = {}
            for j in range(len(offs) - 1):
                by_len.setdefault(offs[j + 1] - offs[j], []).append(j)
            pairs = [v for v in by_len.values() if len(v) > 1]
            x, y = rng.sample(rng.choice(pairs), 2)
            sx, sy = data[offs[x]:offs[x + 1]], data[offs[y]:offs[y + 1]]
            b[offs[y]:offs[y + 1]] = sx
            if kind == 6:
                b[offs[x]:offs[x + 1]] = sy
            yield f"{'swap' if kind == 6 else 'copy'} {x} {y}", bytes(b)


@pytest.mark.parametrize("seed", [0] + [pytest.param(s, marks=pytest.mark.slow)
                                         for s in (1, 2, 3)])
def test_damaged_files_give_a_clear_error_or_the_same_tokenizer(gguf_files, tmp_path, seed):
    src = gguf_files["gpt2"].path
    data = src.read_bytes()
    os.environ.pop("BPE_GUI_GGUF_PYTHON", None)
    meta = gguf_fmt.read_metadata(src)
    tokens, merges = meta.values["tokenizer.ggml.tokens"], meta.values["tokenizer.ggml.merges"]
    assert isinstance(tokens, gguf_fmt.GGUFStrings)   # the C reader is the one tried
    rng = random.Random(seed)
    loaded = refused = 0
    for what, damaged in _mutants(data, tokens, merges, rng, 48):
        path = tmp_path / "damaged.gguf"
        path.write_bytes(damaged)
        ours, error = _load(path, python=False)
        theirs, their_error = _load(path, python=True)
        if error is not None:
            refused += 1
            assert str(path) in str(error), what
            assert their_error is not None, (what, error)
            continue
        loaded += 1
        assert their_error is None, (what, their_error)
        _same_tokenizer(ours, theirs)
        vocab = gguf_fmt.read_vocab(path)
        theirs_all = _oracle_strings(path, ("tokenizer.ggml.tokens", "tokenizer.ggml.merges"))
        for key, mine in (("tokenizer.ggml.tokens", vocab.tokens),
                          ("tokenizer.ggml.merges", vocab.merges)):
            expect = theirs_all[key]
            if expect is not None:
                assert list(mine) == expect, (what, key)
    assert loaded and refused   # both kinds of outcome were met


def test_the_c_reader_keeps_the_arrays_as_bytes(gguf_files):
    os.environ.pop("BPE_GUI_GGUF_PYTHON", None)
    v = gguf_fmt.read_vocab(gguf_files["gpt2"].path)
    assert isinstance(v.tokens, gguf_fmt.GGUFStrings)
    key = "tokenizer.ggml.tokens"
    expect = _oracle_strings(gguf_files["gpt2"].path, (key,))[key]
    assert expect is not None
    assert v.tokens == expect and list(v.tokens) == expect and v.tokens[5] == expect[5]
    assert v.tokens[-1] == expect[-1] and v.tokens[2:9] == expect[2:9]
    with pytest.raises(IndexError):
        v.tokens[len(expect)]


def test_a_token_that_is_not_utf8_is_named(gguf_files, tmp_path):
    src = gguf_files["gpt2"].path
    data = bytearray(src.read_bytes())
    os.environ.pop("BPE_GUI_GGUF_PYTHON", None)
    tokens = gguf_fmt.read_metadata(src).values["tokenizer.ggml.tokens"]
    target = next(i for i in range(len(tokens)) if len(tokens[i].encode()) >= 2)
    from bpe_gui.engine.tokenizers.imported.word_model import model_class
    offs = struct.unpack(f"{len(tokens) + 1}Q", model_class().gguf_offsets(
        tokens.buf, tokens.start, tokens.length, tokens.big))
    data[offs[target] + 8] = 0xFF
    path = tmp_path / "bad-utf8.gguf"
    path.write_bytes(bytes(data))
    for python in (False, True):
        tok, error = _load(path, python)
        assert error is not None and f"token {target} is not UTF-8" in str(error)
        assert "tokenizer.ggml.tokens" in str(error)
