"""Long words merged sixteen at a time in AVX-512 lanes (csrc/merge/lanes.c) give each
word the ids its own library gives, and the same ids as the flat loop (lanes off).

The encoder puts every long word (33-1024 bytes, merged whole) that misses the caches into
a batch, leaves a hole of one id per byte for its ids, and merges the batch at 64 words or
at the end of the text (encoder.c, word_lanes / lanes_flush); a batch of fewer than 4 words
is merged word by word, and the holes are at most 65,536 ids from the batch's first. The
texts here make each of those happen: batches of 3, 4, 16, 17, 64 and 65 long words of
lengths that end at different steps, long words far apart, a text long enough to be turned
into UTF-8 a chunk at a time, words that come back, and words the lanes do not take. Each
is checked for a merge-based table (trained, tokenizer.json), a rank-based one (.tiktoken)
and a merge limit (as of a training step), against tiktoken and tokenizers.
"""
from __future__ import annotations

import contextlib
import json
import random

import pytest

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")

import hf_files as hfp  # noqa: E402
import tiktoken_files as tti  # noqa: E402

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.formats import known_encodings as known  # noqa: E402
from bpe_gui.engine.tokenizers import merge_model  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402

_encode = pytest.importorskip("bpe_gui.engine.tokenizers._encode")
if merge_model._Encoder is None:
    pytest.skip("C encoder not built", allow_module_level=True)

LETTERS = "abcdefghilmnoprstuy"


@contextlib.contextmanager
def lanes(on: bool):
    before = _encode._use_lanes(on)
    try:
        yield
    finally:
        _encode._use_lanes(before)


def long_word(rng: random.Random, lo=33, hi=1024) -> str:
    return "".join(rng.choice(LETTERS) for _ in range(rng.randint(lo, hi)))


def batch_text(n_long: int, seed: int) -> str:
    """n_long long words (33-1024 letters: lanes of one group end at different steps)
    between short words, whitespace runs and words the lanes do not take."""
    rng = random.Random(seed)
    parts = []
    for k in range(n_long):
        parts.append(long_word(rng, 33, rng.choice([40, 120, 1024])))
        parts.append(" ".join(long_word(rng, 1, 8) for _ in range(rng.randint(0, 3))))
        if k % 9 == 4:
            parts.append("x" * 1500)                       # longer than the lanes take
        if k % 11 == 6:
            parts.append(long_word(rng, 40, 60) + "你好")   # ends outside ASCII: cut
        if k % 13 == 8 and k:
            parts.append(parts[-2 - (parts[-2] == "")])      # comes back
        if k % 7 == 2:
            parts.append("\n" + " " * 50)
    return " ".join(p for p in parts if p)


TEXTS = {f"batch-{n}": batch_text(n, n) for n in (1, 3, 4, 16, 17, 64, 65, 150)}
# long words 70,000 short words apart: each batch is flushed before the next joins it
TEXTS["far-apart"] = " ".join(
    long_word(random.Random(k)) + " " + " ".join(["ab"] * 70_000 if k < 5 else [])
    for k in range(6))
# not ASCII and over 2 * ENC_CHUNK characters: the text's UTF-8 is made a chunk at a time
# (a batch is merged before the chunk's bytes move)
TEXTS["chunked"] = "é " + batch_text(600, 7)
assert len(TEXTS["chunked"]) > 2 * _encode.ENC_CHUNK


def corpus() -> str:
    rng = random.Random(3)
    return " ".join(long_word(rng, 2, 12) for _ in range(6000))


@pytest.fixture(scope="module")
def trained():
    t = Trainer.from_text(corpus(), TrainSettings(vocab_size=1200, pattern="cl100k"))
    t.run()
    tok = t.tokenizer()
    ranks = {tok.vocab[i]: i for i in sorted(tok.vocab) if i not in tok.special_ids.values()}
    return tok, ranks


def tiktoken_oracle(pattern: str, ranks: dict[bytes, int]):
    enc = tiktoken.Encoding("t", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    return lambda s: enc.encode(s, disallowed_special=())


@pytest.fixture(scope="module", params=["trained", "at-step", "tiktoken", "tokenizer.json"])
def kind(request, trained, tmp_path_factory):
    tok, ranks = trained
    if request.param == "trained":   # merge-based: the trainer's merges
        return tok, tiktoken_oracle(tok.pattern, ranks)
    if request.param == "at-step":   # a merge limit
        step = tok.n_merges * 2 // 3
        cut = {b: r for b, r in ranks.items() if r < 256 + step}
        return tok.at_step(step), tiktoken_oracle(tok.pattern, cut)
    d = tmp_path_factory.mktemp(request.param)
    if request.param == "tiktoken":   # rank-based: a .tiktoken file
        path = tti.ranks_file(d, ranks, "letters.tiktoken")
        (d / "letters.tiktoken.json").write_text(json.dumps(
            {"pat_str": known.CL100K_PATTERN, "special_tokens": {}}))
        ours = load_tokenizer(path)
        assert ours.pipeline._native is not None
        return ours, tiktoken_oracle(known.CL100K_PATTERN, ranks)
    with pytest.MonkeyPatch.context() as mp:   # merge-based: a byte-level tokenizer.json
        mp.setattr(hfp, "CORPUS", hfp.CORPUS + [corpus()])
        tk = hfp.byte_level_llama3()
    tk.save(str(d / "tokenizer.json"))
    ours = load_tokenizer(d / "tokenizer.json")
    assert ours.pipeline._native is not None
    return ours, lambda s: tk.encode(s, add_special_tokens=False).ids


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_lanes_give_each_word_its_library_ids(kind, name):
    tok, oracle = kind
    text = TEXTS[name]
    want = oracle(text)
    with lanes(True):
        assert tok.encode(text) == want
    with lanes(False):
        assert tok.encode(text) == want


def test_lanes_on_threads_and_in_batches(kind):
    tok, oracle = kind
    texts = [TEXTS["batch-65"], TEXTS["batch-17"], TEXTS["batch-4"]] * 2
    with lanes(True):
        assert tok.encode_batch(texts, threads=2) == [oracle(t) for t in texts]


def test_a_warm_tokenizer_takes_words_that_come_back_from_its_table(kind):
    """A second encode finds the long words in the per-thread table (no hole for them)."""
    tok, oracle = kind
    text = TEXTS["batch-64"]
    with lanes(True):
        first, again = tok.encode(text), tok.encode(text + " " + text)
    assert first == oracle(text)
    assert again == oracle(text + " " + text)


@pytest.mark.skipif(not _encode.LANES_CPU, reason="no AVX-512 here: the lanes are not built")
@pytest.mark.parametrize("big", [0, (1 << 21) - 4, 1 << 21, (1 << 26) - 8])
def test_words_whose_ranks_do_not_fit_leave_the_lanes(big):
    """A rank of 2**21 or more does not fit a lane's key (rank << 10 | position): the word
    goes back to be merged alone (the flat loop gives it to the reference merge), also when
    the rank turns up only after some merges; the other words of its group go on."""
    from bpe_gui.engine.text.presets import PRESET_IDS
    from test_trained import lowest_rank_leftmost, merger_past_the_keys
    m, ranks = merger_past_the_keys(big)
    rng = random.Random(big)
    words = []
    for _ in range(40):   # fits, fits only at first, does not fit from the start
        unit = rng.choice(["ab", "abc", "cab", "ab" * 7 + "c", "c"])
        words.append((unit * 1024)[:rng.randint(33, 1024)])
    text = " ".join(words)
    pieces = [words[0]] + [" " + w for w in words[1:]]
    for limit in (1 << 30, 6, big + 2, big + 3):
        want = [i for p in pieces for i in lowest_rank_leftmost(list(p.encode()), ranks, limit)]
        for on in (True, False):
            with lanes(on):
                enc = merge_model._Encoder(m, PRESET_IDS["cl100k"], limit)
                assert enc.encode(text) == want, (big, limit, on)
