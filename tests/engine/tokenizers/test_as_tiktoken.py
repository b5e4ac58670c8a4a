"""``tok.as_tiktoken()`` on every kind of tokenizer (test_every_door.py's ``door``: the
published files and the kinds test_conformance.py builds), each held to its own library:
tiktoken's calls with tiktoken's defaults give the library's ids, decode as the kind
decodes, offsets as a slow reference finds them, KeyError for an unknown id or token, a
pickled copy. Where the kind is tiktoken's (OpenAI's files, a known encoding), tiktoken
itself built from the face's ``_pat_str``, ``_mergeable_ranks`` and ``_special_tokens``
gives the same ids.
"""
from __future__ import annotations

import pickle

import pytest

from test_every_door import HERE_ONLY, door  # noqa: F401  (the fixture: every kind)

EOT = "<|endoftext|>"


def _offsets_reference(enc, ids: list[int]) -> list[int]:
    """Where each token starts (tiktoken's tests' slow reference, on the tokens' bytes):
    how far the text and its tokens before that one, decoded dropping partial
    characters, agree."""
    data = [enc.decode_single_token_bytes(i) for i in ids]
    text = b"".join(data).decode("utf-8")
    out = []
    for k in range(len(ids)):
        prefix = b"".join(data[:k]).decode("utf-8", "ignore")
        n = 0
        while n < len(prefix) and n < len(text) and prefix[n] == text[n]:
            n += 1
        out.append(n)
    return out


def test_the_tiktoken_face_gives_the_librarys_ids(door):  # noqa: F811
    tok = door.tok
    enc = tok.as_tiktoken()
    for text in door.texts:
        if door.ordinary is not None:
            want = door.ordinary(text)
            assert enc.encode_ordinary(text) == want, (door.name, text[:40])
            assert enc.encode(text, disallowed_special=()) == want, (door.name, text[:40])
            assert enc.encode_ordinary_batch([text, text], num_threads=2) == [want, want]
            assert enc.encode_batch([text], disallowed_special=()) == [want]
            assert enc.encode_to_numpy(text, disallowed_special=()).tolist() == want
        if door.reading is not None:
            assert enc.encode(text, allowed_special="all") == door.reading(text), door.name
        if EOT in text and EOT in tok._matchable():   # tiktoken's default refuses it
            with pytest.raises(ValueError, match="allowed_special"):
                enc.encode(text)
            with pytest.raises(ValueError):
                enc.encode_batch([text])


def test_the_tiktoken_face_decodes_as_the_kind_does(door):  # noqa: F811
    tok = door.tok
    enc = tok.as_tiktoken()
    batch = [enc.encode(t, allowed_special="all") for t in door.texts]
    assert enc.decode_batch(batch) == [tok.decode(ids, skip_special_tokens=False)
                                       for ids in batch]
    assert enc.decode_bytes_batch(batch) == [b"".join(enc.decode_tokens_bytes(ids))
                                             for ids in batch]
    for ids in batch:
        data = enc.decode_bytes(ids)
        for i in ids:
            assert enc.encode_single_token(enc.decode_single_token_bytes(i)) == \
                tok.bytes_to_id[tok.vocab[i]]
        if data.decode("utf-8", "ignore").encode() == data:
            text, starts = enc.decode_with_offsets(ids)
            assert text == data.decode("utf-8")
            assert starts == _offsets_reference(enc, ids), door.name
    assert enc.is_special_token(next(iter(tok.special_ids.values()), -1)) == bool(tok.special_ids)


def test_the_tiktoken_face_raises_as_tiktoken_does(door):  # noqa: F811
    enc = door.tok.as_tiktoken()
    for call in (lambda: enc.decode([enc.n_vocab + 7]),
                 lambda: enc.decode_single_token_bytes(enc.n_vocab),
                 lambda: enc.decode_bytes([0, enc.n_vocab + 1]),
                 lambda: enc.encode_single_token(b"\xff\xfe" * 20)):
        with pytest.raises(KeyError) as got:
            call()
        assert isinstance(got.value, ValueError)   # (native callers catch ValueError)
        assert not str(got.value).startswith(("'", '"'))   # read as written, not quoted


def test_a_pickled_tiktoken_face_encodes_the_same(door):  # noqa: F811
    if door.name in HERE_ONLY:
        pytest.skip(f"{door.name} exists in this process only")
    enc = door.tok.as_tiktoken()
    twin = pickle.loads(pickle.dumps(enc))
    assert twin.name == enc.name
    for text in door.texts:
        assert twin.encode_ordinary(text) == enc.encode_ordinary(text), door.name


def test_tiktoken_over_the_faces_tables_gives_the_same_ids(door):  # noqa: F811
    """_pat_str, _mergeable_ranks and _special_tokens are tiktoken's arguments."""
    if door.name not in ("cl100k", "o200k", "known"):
        pytest.skip(f"{door.name} is not a tiktoken encoding")
    tiktoken = pytest.importorskip("tiktoken")
    enc = door.tok.as_tiktoken()
    theirs = tiktoken.Encoding(enc.name, pat_str=enc._pat_str,
                               mergeable_ranks=enc._mergeable_ranks,
                               special_tokens=enc._special_tokens)
    assert sorted(enc.token_byte_values()) == sorted(theirs.token_byte_values())
    for text in door.texts:
        assert enc.encode(text, allowed_special="all") == \
            theirs.encode(text, allowed_special="all"), door.name
        assert enc.encode_with_unstable(text, allowed_special="all")[0] == \
            theirs.encode_with_unstable(text, allowed_special="all")[0]
