"""Imported .tiktoken files encode exactly as ``tiktoken`` does, and the well-known
encodings are recognised by content (no network: tiktoken's own definitions are read
with its downloader stubbed out)."""
from __future__ import annotations

import random
import warnings

import pytest

tiktoken = pytest.importorskip("tiktoken")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from bpe_gui.engine.errors import FormatError, PatternAssumedWarning  # noqa: E402
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer  # noqa: E402
from bpe_gui.engine.formats import known_encodings as known  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402

from tiktoken_files import CORPUS, TEXTS, ranks_file, tiktoken_definitions, trained_ranks  # noqa: E402


def test_known_encodings_are_tiktoken_own():
    defs = tiktoken_definitions()
    ours = {k.name: k for k in known.KNOWN}
    for name, d in defs.items():
        k = ours[name]
        assert (k.sha256, k.pat_str, k.special_tokens) == (d["sha256"], d["pat_str"],
                                                           d["special_tokens"]), name


@pytest.mark.parametrize("crlf", [False, True])
def test_recognised_by_content(tmp_path, monkeypatch, crlf):
    ranks = trained_ranks()
    path = ranks_file(tmp_path, ranks, "renamed.tiktoken")
    fake = known.KnownEncoding("test_base", "Test encoding", known.content_hash(path.read_bytes()),
                               known.CL100K_PATTERN, {"<|endoftext|>": len(ranks) + 5})
    monkeypatch.setattr(known, "_BY_HASH", {fake.sha256: fake})
    if crlf:
        path = ranks_file(tmp_path, ranks, "crlf.tiktoken", crlf=True)
    tok = load_tokenizer(path)
    assert tok.meta["encoding"] == "test_base" and tok.meta["encoding_label"] == "Test encoding"
    assert tok.pattern == known.CL100K_PATTERN
    assert tok.special_ids == {"<|endoftext|>": len(ranks) + 5}
    enc = tiktoken.Encoding("t", pat_str=fake.pat_str, mergeable_ranks=ranks,
                            special_tokens=fake.special_tokens)
    for text in TEXTS:
        assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")


def test_unknown_file_says_so(tmp_path):
    path = ranks_file(tmp_path, trained_ranks())
    with pytest.warns(PatternAssumedWarning, match=r"cl100k \(GPT-4\) pattern, assumed.*"
                      "pattern=") as said:
        tok = load_tokenizer(path)
    assert len(said) == 1 and said[0].filename == __file__   # the caller's line
    assert tok.meta["encoding"] is None and tok.special_tokens == []
    enc = tiktoken.Encoding("g", pat_str=tiktoken_definitions()["cl100k_base"]["pat_str"],
                            mergeable_ranks=trained_ranks(), special_tokens={})
    assert tok.encode(TEXTS[0]) == enc.encode(TEXTS[0])   # what the warning says it ran


def test_a_pattern_given_is_no_guess_and_a_guess_can_be_refused(tmp_path):
    path = ranks_file(tmp_path, trained_ranks())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tok = load_tokenizer(path, pattern="gpt2")
        with pytest.raises(PatternAssumedWarning):
            load_tokenizer(path)
    enc = tiktoken.Encoding("g", pat_str=tiktoken_definitions()["r50k_base"]["pat_str"],
                            mergeable_ranks=trained_ranks(), special_tokens={})
    assert tok.encode(TEXTS[0]) == enc.encode(TEXTS[0])


@pytest.fixture(scope="module")
def odd_ranks():
    """Ranks with whole words no merge makes, and a shuffled tail: tiktoken's rules
    (whole piece first, then lowest-rank concatenation) differ from merge lists here."""
    extra = [b" hello", b" world hello", b"Hello,", b"\xd0\x9f\xd1\x80", b"\xe4\xbd\xa0\xe5"]
    ranks = trained_ranks(extra)
    rnd = random.Random(3)
    tail = [t for t, r in ranks.items() if r >= 300]
    ids = [ranks[t] for t in tail]
    rnd.shuffle(ids)
    ranks.update(dict(zip(tail, ids)))
    return ranks


@pytest.fixture(scope="module")
def odd_pair(odd_ranks, tmp_path_factory):
    d = tmp_path_factory.mktemp("odd")
    path = ranks_file(d, odd_ranks, "odd.tiktoken")
    specials = {"<|endoftext|>": len(odd_ranks), "<|fim_prefix|>": len(odd_ranks) + 1}
    (d / "odd.tiktoken.json").write_text(
        '{"pat_str": %s, "special_tokens": {"<|endoftext|>": %d, "<|fim_prefix|>": %d}}'
        % (__import__("json").dumps(known.CL100K_PATTERN), *specials.values()))
    enc = tiktoken.Encoding("odd", pat_str=known.CL100K_PATTERN, mergeable_ranks=odd_ranks,
                            special_tokens=specials)
    return enc, load_tokenizer(path)


@pytest.mark.parametrize("text", TEXTS)
def test_encodes_as_tiktoken(odd_pair, text):
    enc, tok = odd_pair
    assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
    got = tok.encode_with_offsets(text, allowed_special="all")
    assert got.ids == tok.encode(text, allowed_special="all")
    assert b"".join(got.tokens) == text.encode("utf-8")
    assert tok.decode(got.ids) == enc.decode(got.ids)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["hello", " hello", " world", "Hello,", "Пр", "ивет", "你",
                                 "好", " ", "\n", "🙂", "ab", "<|endoftext|>", "x"]),
                max_size=20))
def test_random_text_encodes_as_tiktoken(odd_pair, parts):
    enc, tok = odd_pair
    text = "".join(parts)
    assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")


def test_merges_derived_when_read(odd_pair, odd_ranks):
    _, tok = odd_pair
    whole = {b" hello", b" world hello", b"Hello,"}
    made = {a + b for a, b in tok.merges}
    for t in whole:   # a merge makes them, or they are whole-piece only; never a wrong split
        assert t in made or all(a + b != t for a, b in tok.merges)
    assert len(tok.merges) == tok.n_merges


def test_exports_encode_identically_after_import(tmp_path):
    t = Trainer.from_text(CORPUS, TrainSettings(vocab_size=400, pattern="o200k",
                                                special_tokens=["<|endoftext|>"]))
    t.run()
    export_tokenizer(t.tokenizer(), tmp_path, "tiktoken")
    tok = load_tokenizer(tmp_path / "tokenizer.tiktoken")
    ranks = tiktoken.load.load_tiktoken_bpe(str(tmp_path / "tokenizer.tiktoken"))
    enc = tiktoken.Encoding("e", pat_str=tok.pattern, mergeable_ranks=ranks,
                            special_tokens=tok.special_ids)
    for text in TEXTS:
        assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all") == \
            t.tokenizer().encode(text, allowed_special="all")


@pytest.mark.parametrize("line,expect", [("QQ== 0\nQQ== 1", "already given rank 0"),
                                         ("QQ== 0\nQg== 0", "rank 0 was already given"),
                                         ("QQ==  0", "part"), ("QQ== -1", "whole number")])
def test_bad_ranks_name_the_line(tmp_path, line, expect):
    p = tmp_path / "bad.tiktoken"
    p.write_text(line + "\n")
    with pytest.raises(FormatError, match=expect) as e:
        load_tokenizer(p)
    assert e.value.line is not None


def test_pure_python_model_matches(odd_pair, tmp_path, monkeypatch, odd_ranks):
    import sys
    enc, fast = odd_pair
    monkeypatch.setitem(sys.modules, "bpe_gui.engine.tokenizers.imported._pipeline", None)
    slow = load_tokenizer(fast.meta["source"])
    assert type(slow.pipeline.model.native).__module__.endswith("pymodel")
    for text in TEXTS:
        assert slow.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
        assert slow.encode_with_offsets(text, allowed_special="all").offsets == fast.encode_with_offsets(text, allowed_special="all").offsets
    assert list(slow.merges) == list(fast.merges)
