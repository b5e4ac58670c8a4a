"""Long repetitive words encode exactly as the reference libraries do, with every kind
of tokenizer (one merge engine: heap merging for long words).

Imported tokenizers merged a word by rescanning every pair after each merge: a word of n
symbols took O(n^2) (``"x" * 1_000_000`` with cl100k: minutes; these 200k-character words
never finished). Each word here is compared with ``tiktoken`` or ``tokenizers`` building
the same tokenizer (no timing is asserted: a quadratic path would simply not end).
"""
from __future__ import annotations

import json
import random
import string

import pytest

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")

import hf_files as hfp  # noqa: E402  (the tokenizer.json builders)
import tiktoken_files as tti  # noqa: E402  (the .tiktoken builders)
from tokenizers import models, pre_tokenizers  # noqa: E402

from bpe_gui.engine.formats import export_tokenizer, load_tokenizer  # noqa: E402
from bpe_gui.engine.formats import known_encodings as known  # noqa: E402
from bpe_gui.engine.tokenizers.trained import Tokenizer  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402

N = 200_000
LONG = {
    "x": "x" * N,
    "spaces": " " * (N + 3),
    "caret": "^" * (N + 3),
    "ab": "ab" * (N // 2),
    "hello": " hello" * (N // 6),
    "chinese": "你好" * (N // 8),
    "emoji": "🙂" * (N // 8),
    "digits-and-space": ("1234 " * (N // 5)) + "x" * N,
    "newlines": "a" + "\n" * N + "b",
}


def _trained(pattern: str) -> Tokenizer:
    t = Trainer.from_text(tti.CORPUS + " xxxx ^^^^ ab ab " * 20 + "    " * 50,
                          TrainSettings(vocab_size=450, pattern=pattern))
    t.run()
    return t.tokenizer()


def _ranks(tok: Tokenizer) -> dict[bytes, int]:
    return {tok.vocab[i]: i for i in sorted(tok.vocab) if i not in tok.special_ids.values()}


@pytest.fixture(scope="module")
def trained_cl100k():
    tok = _trained("cl100k")
    return tok, tiktoken.Encoding("t", pat_str=tok.pattern, mergeable_ranks=_ranks(tok),
                                  special_tokens={})


@pytest.mark.parametrize("name", sorted(LONG))
def test_trained_native_scanner(trained_cl100k, name):
    tok, enc = trained_cl100k
    assert tok.encode(LONG[name], allowed_special="all") == enc.encode(LONG[name], disallowed_special=())


def test_more_distinct_long_words_than_the_table_first_holds(trained_cl100k):
    """Each thread keeps the words of more than 32 bytes in a table whose slots grow as
    they come (from 1,024): 20,000 distinct ones, encoded twice (the slots grown five
    times, every word found again), give tiktoken's ids both times."""
    tok, enc = trained_cl100k
    rng = random.Random(65)
    text = "".join(" " + "".join(rng.choices(string.ascii_lowercase, k=40))
                   for _ in range(20_000))
    want = enc.encode(text, disallowed_special=())
    assert tok.encode(text) == want
    assert tok.encode(text) == want


@pytest.mark.parametrize("name", ["x", "spaces", "ab", "chinese"])
def test_trained_regex_pattern(name):
    pattern = r"\s+(?!\S)|\s+|[^\s]+"   # a custom pattern: the regex path and encode_words
    tok = _trained(pattern)
    enc = tiktoken.Encoding("t", pat_str=pattern, mergeable_ranks=_ranks(tok),
                            special_tokens={})
    assert tok.encode(LONG[name], allowed_special="all") == enc.encode(LONG[name], disallowed_special=())


@pytest.fixture(scope="module")
def gpt2_files(tmp_path_factory):
    tok = _trained("gpt2")
    d = tmp_path_factory.mktemp("gpt2")
    export_tokenizer(tok, d, "gpt2")
    hf = tokenizers.Tokenizer(models.BPE.from_file(str(d / "vocab.json"), str(d / "merges.txt")))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    return Tokenizer.from_files(d / "vocab.json", d / "merges.txt"), hf


@pytest.mark.parametrize("name", sorted(LONG))
def test_gpt2_files(gpt2_files, name):
    ours, hf = gpt2_files
    assert ours.encode(LONG[name], allowed_special="all") == hf.encode(LONG[name], add_special_tokens=False).ids


# a pattern no scanner kind runs (cl100k's with digits in twos): regex.findall's words
CUSTOM_PATTERN = known.CL100K_PATTERN.replace(r"\p{N}{1,3}", r"\p{N}{1,2}")
TIKTOKEN_PATTERNS = {"custom-regex": CUSTOM_PATTERN, "cl100k-native": known.CL100K_PATTERN,
                     "o200k-native": known.O200K_PATTERN}


@pytest.fixture(scope="module", params=sorted(TIKTOKEN_PATTERNS))
def tiktoken_file(request, tmp_path_factory):
    pattern = TIKTOKEN_PATTERNS[request.param]
    # tokens that long runs merge into, level by level (without them a run has no merge
    # at all, and even a quadratic loop ends after one scan)
    runs = [c * k for c in (b"x", b" ", b"^", b"ab", "你好".encode(), "🙂".encode())
            for k in (2, 4, 8, 16)]
    ranks = tti.trained_ranks(runs + [b"\xe4\xbd\xa0\xe5"])
    d = tmp_path_factory.mktemp("tiktoken")
    path = tti.ranks_file(d, ranks, "long.tiktoken")
    (d / "long.tiktoken.json").write_text(json.dumps({"pat_str": pattern,
                                                      "special_tokens": {}}))
    enc = tiktoken.Encoding("long", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    tok = load_tokenizer(path)
    # cl100k's and o200k's patterns run on the native scanner: whole texts go to the C
    # merge engine; the custom one is cut by regex
    assert (tok.pipeline._native is not None) == request.param.endswith("-native")
    return tok, enc


@pytest.mark.parametrize("name", sorted(LONG))
def test_tiktoken_file(tiktoken_file, name):
    ours, enc = tiktoken_file
    text = LONG[name]
    assert ours.encode(text, allowed_special="all") == enc.encode(text, disallowed_special=())
    assert b"".join(ours.encode_with_offsets(text, allowed_special="all").tokens) == text.encode("utf-8")


HF_KINDS = {"llama3-bytelevel": hfp.byte_level_llama3,
            "bytelevel-without-ignore-merges": lambda: hfp.byte_level_llama3(False),
            "gpt2-bytelevel": hfp.gpt2_style,
            "metaspace-byte-fallback": hfp.metaspace_fallback,
            # as bpe-gui's exporter writes Llama 3's Split: Removed + invert (matches only)
            "split-removed-inverted": lambda: hfp.splits(pre_tokenizers.Split(
                tokenizers.Regex(hfp.LLAMA3_PATTERN), behavior="removed", invert=True)),
            # a Split with a preset's pattern (o200k): whole texts go to the native engine
            "split-o200k-native": lambda: hfp.splits(pre_tokenizers.Split(
                tokenizers.Regex(known.O200K_PATTERN), behavior="isolated")),
            # matches that leave gaps (they are pieces too): the regex shortcut steps aside
            "split-isolated-with-gaps": lambda: hfp.splits(pre_tokenizers.Split(
                tokenizers.Regex(r"\p{L}+|\d"), behavior="isolated"))}


RUNS = [c * 64 for c in ("x", " ", "^", "ab", "你好", "🙂")] * 4


@pytest.fixture(scope="module", params=sorted(HF_KINDS))
def hf_pair(request, tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:   # train on long runs too: merges of runs
        mp.setattr(hfp, "CORPUS", hfp.CORPUS + RUNS)
        tk = HF_KINDS[request.param]()
    path = tmp_path_factory.mktemp(request.param) / "tokenizer.json"
    tk.save(str(path))
    ours = load_tokenizer(path)
    # a byte-level pre-tokenizer whose pattern the scanner runs (GPT-2's ByteLevel,
    # o200k's and Llama 3's Splits): whole texts go to the native engine
    assert (ours.pipeline._native is not None) == \
        (request.param not in ("metaspace-byte-fallback", "split-isolated-with-gaps"))
    return tk, ours


@pytest.mark.parametrize("text", hfp.SAMPLES + hfp.EXTRA)
def test_tokenizer_json_short_texts(hf_pair, text):
    """encode (ids only: words straight from the Split's regex where that is exact) equals
    tokenizers, and encode_with_offsets' ids."""
    tk, ours = hf_pair
    want = tk.encode(text, add_special_tokens=False).ids
    assert ours.encode(text, allowed_special="all") == want
    assert ours.encode_with_offsets(text, allowed_special="all").ids == want


@pytest.mark.parametrize("name", ["x", "spaces", "caret", "ab", "chinese", "emoji"])
def test_tokenizer_json(hf_pair, name):
    tk, ours = hf_pair
    text = LONG[name]
    theirs = tk.encode(text, add_special_tokens=False)
    assert ours.encode(text, allowed_special="all") == theirs.ids
    assert ours.encode_with_offsets(text, allowed_special="all").offsets == [tuple(o) for o in theirs.offsets]


@pytest.mark.parametrize("text", tti.TEXTS + ["xx" * 9 + "^" * 7, "  \n\n  x"])
def test_tiktoken_file_short_texts(tiktoken_file, text):
    """The native whole-text path keeps tiktoken's whole-piece rule."""
    ours, enc = tiktoken_file
    assert ours.encode(text, allowed_special="all") == enc.encode(text, disallowed_special=())


SHORTER = ["x" * 3000, " " * 3001, "^" * 3001, "ab" * 1500, "你好" * 500, "🙂" * 400]


def _without_the_c_pipeline(monkeypatch) -> None:
    """Load tokenizers without the C extension (pipeline/pymodel.py, its heap for long
    words)."""
    import sys
    monkeypatch.setitem(sys.modules, "bpe_gui.engine.tokenizers.imported._pipeline", None)


def test_pure_python_model_merges_long_words_the_same(hf_pair, tmp_path, monkeypatch):
    """Without the C extension (pipeline/pymodel.py, its heap for long words): each
    tokenizer.json kind (each tiktoken file's: the test below)."""
    tk, _ = hf_pair
    tk.save(str(tmp_path / "tokenizer.json"))
    _without_the_c_pipeline(monkeypatch)
    slow_hf = load_tokenizer(tmp_path / "tokenizer.json")
    assert type(slow_hf.pipeline.model.native).__module__.endswith("pymodel")
    for text in SHORTER:
        assert slow_hf.encode(text) == tk.encode(text, add_special_tokens=False).ids


def test_pure_python_model_merges_long_words_the_same_tiktoken(tiktoken_file, tmp_path,
                                                               monkeypatch):
    """The same for each tiktoken file."""
    _, enc = tiktoken_file
    tti_path = tti.ranks_file(tmp_path, enc._mergeable_ranks, "r.tiktoken")
    (tmp_path / "r.tiktoken.json").write_text(json.dumps({"pat_str": enc._pat_str,
                                                          "special_tokens": {}}))
    _without_the_c_pipeline(monkeypatch)
    slow_tt = load_tokenizer(tti_path)
    assert type(slow_tt.pipeline.model.native).__module__.endswith("pymodel")
    for text in SHORTER:
        assert slow_tt.encode(text) == enc.encode(text, disallowed_special=())


# ------------------------------------------------------ long words one after another
# Long words in a row, next to shorter ones, longer than the flat loop takes, whitespace
# runs and words cut where no token crosses (long_texts.ROW, which the conformance suite
# runs over every kind too).
from long_texts import ROW  # noqa: E402


def test_long_words_in_a_row_trained(trained_cl100k):
    tok, enc = trained_cl100k
    assert tok.encode(ROW, allowed_special="all") == enc.encode(ROW, disallowed_special=())
    ranks = _ranks(tok)
    for step in (0, 7, 60, tok.n_merges // 2):   # as of a training step (a merge limit)
        cut = {b: r for b, r in ranks.items() if r < 256 + step}
        at = tiktoken.Encoding("t", pat_str=tok.pattern, mergeable_ranks=cut, special_tokens={})
        assert tok.at_step(step).encode(ROW) == at.encode(ROW, disallowed_special=()), step


def test_long_words_in_a_row_gpt2_files(gpt2_files):
    ours, hf = gpt2_files
    assert ours.encode(ROW, allowed_special="all") == hf.encode(ROW, add_special_tokens=False).ids


def test_long_words_in_a_row_tiktoken_file(tiktoken_file):
    ours, enc = tiktoken_file
    assert ours.encode(ROW, allowed_special="all") == enc.encode(ROW, disallowed_special=())
    assert ours.encode_batch([ROW, ROW[1000:]], threads=2, allowed_special="all") == \
        [enc.encode(t, disallowed_special=()) for t in (ROW, ROW[1000:])]


def test_long_words_in_a_row_tokenizer_json(hf_pair):
    tk, ours = hf_pair
    assert ours.encode(ROW, allowed_special="all") == tk.encode(ROW, add_special_tokens=False).ids
