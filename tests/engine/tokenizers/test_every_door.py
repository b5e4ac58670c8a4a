"""One engine behind every door (issue 78): every kind of tokenizer gives its own library's
ids through every way in -- encode, encode_ordinary, batches, arrays, offsets, streams of
lines, a pickled copy, a deep copy, a worker process started with spawn, and the command
line's ``encode --json``.

The kinds start from published files where there are some: OpenAI's cl100k and o200k
ranks (the npm package tiktoken, tiktoken_files.py), Meta's Llama 3 ``tokenizer.model``
(the llama-models package), a Llama 3 ``tokenizer.json`` made from it by transformers'
converter with Meta's BOS template, GPT-2's files as CS336's tests build them (OpenAI's
r50k ranks, the merges recovered by a loop written here), mistral-common's own tekken
file, llama.cpp's vocab-only GGUF files with their ``.inp``/``.out`` expected ids; then the
kinds test_conformance.py builds with each format's library. Each kind's oracle is its own
library called with its defaults: tiktoken refuses typed special text, tokenizers reads it
and adds its template's BOS, CS336's ``Tokenizer(vocab, merges, special_tokens)`` reads it.
"""
from __future__ import annotations

import copy
import json
import multiprocessing
import pickle
from typing import Callable

import pytest

tiktoken = pytest.importorskip("tiktoken")
tiktoken_load = pytest.importorskip("tiktoken.load")
tokenizers = pytest.importorskip("tokenizers")

from bpe_gui.engine.errors import DisallowedSpecialError  # noqa: E402
from bpe_gui.engine.formats import export_tokenizer  # noqa: E402

from published_kinds import EOT, PUBLISHED, TEXTS, Door, published, refused  # noqa: E402
from test_conformance import KINDS, build  # noqa: E402

# a kind that exists in this process only (a known encoding monkeypatched into the
# registry): another process or a pickle does not know it
HERE_ONLY = ("known",)


@pytest.fixture(scope="module", params=PUBLISHED + KINDS)
def door(request, tmp_path_factory) -> Door:
    d = tmp_path_factory.mktemp(request.param)
    if request.param in PUBLISHED:
        return published(request.param, d)
    with pytest.MonkeyPatch.context() as mp:
        k = build(request.param, d, mp)
    return Door(k.name, k.tok, TEXTS + [f"a{EOT}b {EOT}"], refused(k.default or k.oracle),
                k.ordinary)


def doors(tok) -> dict[str, Callable[[str], list[int]]]:
    """Every way in that takes the library's defaults."""
    return {
        "encode": tok.encode,
        "encode_with_offsets": lambda s: tok.encode_with_offsets(s).ids,
        "encode_to_array": lambda s: tok.encode_to_array(s).tolist(),
        "encode_batch": lambda s: tok.encode_batch([s, "x"], num_threads=2)[0],
        "encode_iterable(lines)": lambda s: list(tok.encode_iterable(s.splitlines(True))),
        "encode_iterable(small chunks)":
            lambda s: list(tok.encode_iterable([s[i:i + 7] for i in range(0, len(s), 7)],
                                               chunk_chars=16)),
    }


def answer(call: Callable[[str], list[int]], text: str) -> list[int] | None:
    try:
        return call(text)
    except DisallowedSpecialError:
        return None


@pytest.mark.regression
def test_every_door_gives_the_librarys_ids(door):
    """encode_iterable dropped a template's BOS, pickle and deepcopy raised TypeError,
    and a tokenizer built with special_tokens refused their text (CS336's tests)."""
    copies = {} if door.name in HERE_ONLY else \
        {"pickled": pickle.loads(pickle.dumps(door.tok)), "deepcopy": copy.deepcopy(door.tok)}
    for text in door.texts:
        want = door.oracle(text)
        for way, call in doors(door.tok).items():
            assert answer(call, text) == want, (door.name, way, text[:40])
        for way, twin in copies.items():
            assert answer(twin.encode, text) == want, (door.name, way, text[:40])


def test_every_ordinary_door_gives_the_librarys_ids(door):
    if door.ordinary is None:
        pytest.skip(f"{door.name}'s library has no call that reads no special token")
    tok = door.tok
    for text in door.texts:
        want = door.ordinary(text)
        assert tok.encode_ordinary(text) == want, (door.name, text[:40])
        assert tok.encode_ordinary_batch([text, text], num_threads=2) == [want, want]
        assert list(tok.encode_iterable(text.splitlines(True), disallowed_special=(),
                                        add_special_tokens=False)) == want


def _in_worker(tok, texts):   # (run in a spawned process: module level, picklable)
    out = []
    for t in texts:
        try:
            out.append(tok.encode(t))
        except DisallowedSpecialError:
            out.append(None)
    return out


@pytest.fixture(scope="module")
def spawned():
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        yield pool


@pytest.mark.slow
def test_a_spawned_worker_gives_the_same_ids(door, spawned):
    if door.name in HERE_ONLY:
        pytest.skip(f"{door.name} exists in this process only")
    got = spawned.apply(_in_worker, (door.tok, door.texts))
    assert got == [door.oracle(t) for t in door.texts], door.name


@pytest.mark.slow
@pytest.mark.regression
def test_the_command_line_gives_the_librarys_ids(door, tmp_path):
    """encode --json left out a template's BOS and read typed special text the library
    refuses."""
    from test_cli import err, run
    if door.name in HERE_ONLY:
        pytest.skip(f"{door.name} exists in this process only")
    path = door.path or getattr(door.tok.source, "paths", [None])[0]
    if path is None:
        path = export_tokenizer(door.tok, tmp_path, "native")[0]
    texts = [t for t in door.texts if t]
    p = run("encode", "--tokenizer", str(path), "--json", "-q", *texts, cwd=tmp_path)
    wants = [door.oracle(t) for t in texts]
    if any(w is None for w in wants):   # a text the library refuses: so does the command
        assert p.returncode == 2 and "--allowed-special" in err(p), door.name
        texts = [t for t, w in zip(texts, wants) if w is not None]
        wants = [w for w in wants if w is not None]
        p = run("encode", "--tokenizer", str(path), "--json", "-q", *texts, cwd=tmp_path)
    assert p.returncode == 0, err(p)
    got = json.loads(p.stdout)
    assert got["schema"].startswith("bpe-gui.encode/")
    assert [e["ids"] for e in got["encodings"]] == wants, door.name
