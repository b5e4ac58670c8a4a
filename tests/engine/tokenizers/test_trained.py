"""Tokenizer: encoding against tiktoken, round trips, offsets, streaming, steps, id layouts.

The vocabulary is trained here on real text (English + Chinese + code); tiktoken,
built from the same vocabulary, is the oracle for the ids.
"""
from __future__ import annotations

import itertools
import lzma
import random
import tracemalloc

import pytest
import tiktoken
from hypothesis import HealthCheck, given, settings, strategies as st

import bpe_gui.engine.tokenizers.merge_model as merge_module
from bpe_gui.engine import Encoding, TrainSettings, Tokenizer, Trainer

from engine_oracle import HAS_C_CORE

EOT = "<|endoftext|>"
SPECIALS = [EOT, "<|fim|>", "<|fim|>>"]  # the last two overlap: longest first
FAST = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _read_xz(path, n_chars: int, skip: int = 0) -> str:
    with lzma.open(path, "rt", encoding="utf-8") as f:
        f.read(skip)
        return f.read(n_chars)


@pytest.fixture(scope="session")
def texts(corpora_dir) -> dict[str, str]:
    """Training text and unseen held-out text of each kind."""
    en = _read_xz(corpora_dir / "en-tinyshakespeare.txt.xz", 700_000)
    zh = _read_xz(corpora_dir / "zh-four-classic-novels.txt.xz", 400_000)
    code = _read_xz(corpora_dir / "code-python-stdlib.py.txt.xz", 300_000)
    demo = (corpora_dir / "multi-utf8-demo.txt").read_text(encoding="utf-8")
    # the same shares as 600k/300k/200k of the full corpora, whatever the files hold
    en_cut, zh_cut, code_cut = len(en) * 6 // 7, len(zh) * 3 // 4, len(code) * 2 // 3
    return {
        "train": f"{en[:en_cut]}{EOT}{zh[:zh_cut]}{EOT}{code[:code_cut]}",
        "en": en[en_cut:],
        "zh": zh[zh_cut:],
        "code": code[code_cut:],
        "demo": demo,
        "emoji": "Emoji 😀😃😄 👩‍👩‍👧‍👦 🇫🇷 flags, skin 👍🏽, ZWJ, and ✨sparkles✨ 你好😀",
        "mixed": f"Hello 世界!{EOT}  tabs\t\tand\r\nCRLF  {EOT}{EOT}x<|fim|>>y<|fim|>z 12345 it's",
    }


# Without the C core (no compiler at install time) the pure-Python stand-in trains;
# it recounts every pair each step, so it gets a smaller job.
VOCAB = 2500 if HAS_C_CORE else 500


@pytest.fixture(scope="session")
def trainer(texts) -> Trainer:
    text = texts["train"] if HAS_C_CORE else texts["train"][:80_000]
    t = Trainer.from_text(text, TrainSettings(vocab_size=VOCAB, special_tokens=tuple(SPECIALS)))
    t.run(detail=False)
    assert len(t.vocab) == VOCAB
    return t


@pytest.fixture(scope="session")
def tok(trainer) -> Tokenizer:
    return Tokenizer(trainer.vocab, trainer.merges, special_tokens=SPECIALS)


def tiktoken_for(tok: Tokenizer) -> tiktoken.Encoding:
    specials = {s: tok.special_ids[s] for s in tok.special_tokens}
    ids = set(specials.values())
    ranks = {b: i for i, b in tok.vocab.items() if i not in ids}
    assert len(ranks) == len(tok.vocab) - len(ids), "duplicate token bytes"
    return tiktoken.Encoding("bpe-gui-test", pat_str=tok.pattern, mergeable_ranks=ranks,
                             special_tokens=specials)


@pytest.fixture(scope="session")
def tok_eot(tok) -> Tokenizer:
    """Only <|endoftext|> special: tiktoken does not pick the longest of overlapping
    special tokens (it tries them in hash order), so the oracle gets one."""
    other = {tok.special_ids[s] for s in SPECIALS[1:]}
    return Tokenizer({i: b for i, b in tok.vocab.items() if i not in other}, tok.merges,
                     special_tokens=[EOT])


@pytest.fixture(scope="session")
def tk(tok_eot) -> tiktoken.Encoding:
    return tiktoken_for(tok_eot)


# --- ids against tiktoken -------------------------------------------------------------

@pytest.mark.parametrize("kind", ["en", "zh", "code", "demo", "emoji", "mixed"])
def test_ids_equal_tiktoken(tok, tok_eot, tk, texts, kind):
    text = texts[kind][:150_000]
    ids = tok_eot.encode(text, allowed_special="all")
    assert ids == tk.encode(text, allowed_special="all")
    assert tok_eot.decode(ids) == text
    assert tok.decode(tok.encode(text, allowed_special="all")) == text


def test_tokenizer_from_trainer_equals_tokenizer_from_vocab(trainer, tok, texts):
    text = texts["en"][:20_000] + texts["mixed"]
    assert trainer.tokenizer().encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")


unicode_with_specials = st.lists(
    st.one_of(st.text(max_size=30), st.sampled_from(SPECIALS + ["<|endoftext", "|>", "<|fim"]),
              st.text(alphabet="你好世界 éè😀\n\t'sa1", max_size=20)),
    max_size=12).map("".join)


@FAST
@given(text=unicode_with_specials)
def test_round_trip_and_tiktoken_on_arbitrary_text(tok, tok_eot, tk, text):
    ids = tok.encode(text, allowed_special="all")
    assert tok.decode(ids) == text
    assert tok_eot.encode(text, allowed_special="all") == tk.encode(text, allowed_special="all")


def test_decode_partial_character_is_replacement_not_error(tok):
    ids = tok.encode("你", allowed_special="all")
    one_byte = [tok.bytes_to_id[bytes([b])] for b in "你".encode()[:2]]
    assert tok.decode(one_byte) == "\ufffd"
    assert tok.decode(ids + one_byte + ids) == "你\ufffd你"


def test_special_tokens_never_split(tok):
    assert tok.encode(EOT, allowed_special="all") == [tok.special_ids[EOT]]
    assert tok.encode("<|fim|>>", allowed_special="all") == [tok.special_ids["<|fim|>>"]]
    assert tok.encode("<|fim|>", allowed_special="all") == [tok.special_ids["<|fim|>"]]
    assert tok.special_ids[EOT] == 256  # ids: bytes, then specials in order, then merges


# --- offsets against a slow reference -------------------------------------------------

def reference_offsets(text: str, tokens: list[bytes]) -> list[tuple[int, int]]:
    """Each token's character span, from decoding byte prefixes of the text on its own.

    A token that holds part of a character covers that whole character.
    """
    data = text.encode("utf-8")
    assert b"".join(tokens) == data
    spans, pos = [], 0
    for t in tokens:
        b0, b1 = pos, pos + len(t)
        start = len(data[:b0].decode("utf-8", "ignore"))      # whole chars before the token
        end = len(data[:b1].decode("utf-8", "ignore"))        # whole chars up to its end
        if b1 < len(data) and data[b1] & 0xC0 == 0x80:        # ends inside a character
            end += 1
        spans.append((start, end))
        pos = b1
    return spans


def _check_offsets(tok: Tokenizer, text: str) -> Encoding:
    enc = tok.encode_with_offsets(text, allowed_special="all")
    assert enc.ids == tok.encode(text, allowed_special="all")
    assert enc.tokens == [tok.vocab[i] for i in enc.ids]
    assert enc.offsets == reference_offsets(text, enc.tokens)
    assert enc.special == [i in tok.special_ids.values() for i in enc.ids]
    assert len(enc) == len(enc.ids) == len(enc.offsets) == len(enc.special)
    return enc


@FAST
@given(text=unicode_with_specials)
def test_offsets_match_reference(tok, text):
    _check_offsets(tok, text)


@pytest.mark.parametrize("kind", ["zh", "emoji", "mixed", "demo"])
def test_offsets_on_real_text(tok, texts, kind):
    enc = _check_offsets(tok, texts[kind][:4000])
    assert any(b - a == 1 for a, b in enc.offsets)


def test_offsets_of_partial_characters(tok):
    # a fresh tokenizer with no merges cuts 你 into 3 byte tokens, all covering it
    base = tok.at_step(0)
    enc = base.encode_with_offsets("a你b", allowed_special="all")
    assert enc.offsets == [(0, 1), (1, 2), (1, 2), (1, 2), (2, 3)]


# --- streaming ------------------------------------------------------------------------

def _chunks(text: str, cuts: list[int]) -> list[str]:
    cuts = sorted({c % (len(text) + 1) for c in cuts})
    return [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]


@FAST
@given(text=unicode_with_specials, cuts=st.lists(st.integers(0, 10**6), max_size=12),
       chunk_chars=st.integers(1, 40))
def test_encode_iterable_equals_encode(tok, text, cuts, chunk_chars):
    pieces = _chunks(text, cuts)
    assert "".join(pieces) == text
    assert list(tok.encode_iterable(pieces, chunk_chars=chunk_chars, allowed_special="all")) == tok.encode(text, allowed_special="all")


@pytest.mark.parametrize("chunk_chars", [16, 300, 1 << 16])
def test_encode_iterable_file(tok, texts, tmp_path, chunk_chars):
    # specials that straddle line ends, CRLF kept as is (newline=""), no final newline
    text = (texts["mixed"] + "\r\n" + texts["en"][:30_000] + "<|endof\r\ntext|>" + EOT[:5]
            + "\n" + EOT[5:] + texts["zh"][:5000] + "<|fim|>\n>" + texts["emoji"])
    path = tmp_path / "stream.txt"
    path.write_bytes(text.encode("utf-8"))
    with open(path, encoding="utf-8", newline="") as f:
        streamed = list(tok.encode_iterable(f, chunk_chars=chunk_chars, allowed_special="all"))
    assert streamed == tok.encode(text, allowed_special="all")


def test_encode_iterable_is_lazy(tok):
    endless = itertools.cycle(["The quick brown fox 你好 ", "jumps over<|endoftext|>\n"])
    first = list(itertools.islice(tok.encode_iterable(endless, chunk_chars=256, allowed_special="all"), 1000))
    assert len(first) == 1000
    head = "".join(itertools.islice(itertools.cycle(["The quick brown fox 你好 ",
                                                     "jumps over<|endoftext|>\n"]), 200))
    assert tok.encode(head, allowed_special="all")[:1000] == first


def _generated_file(path, n_bytes: int) -> int:
    rng = random.Random(1234)
    words = ["the", "cat", "sat", "on", "a", "mat", "你好", "世界", "é", "😀", "42", "it's",
             "  ", "\t", EOT]
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 20))) + "\n"
             for _ in range(3000)]
    block = "".join(lines).encode("utf-8")
    with open(path, "wb") as f:
        for _ in range(n_bytes // len(block) + 1):
            f.write(block)
    return path.stat().st_size


@pytest.mark.slow
def test_encode_iterable_bounded_buffer(tok, tmp_path, monkeypatch):
    """Streaming ~20 MB: every piece of text encoded at once stays near chunk_chars."""
    path = tmp_path / "big.txt"
    size = _generated_file(path, 20_000_000)
    chunk_chars = 1 << 14
    longest = 0
    tok = Tokenizer(tok.vocab, tok.merges, special_tokens=SPECIALS)  # spied on: a copy
    real_encode = tok.encode

    def spy(text):
        nonlocal longest
        longest = max(longest, len(text))
        return real_encode(text)

    monkeypatch.setattr(tok, "encode", spy)   # every part goes through encode
    n = 0
    with open(path, encoding="utf-8", newline="") as f:
        for _ in tok.encode_iterable(f, chunk_chars=chunk_chars, allowed_special="all"):
            n += 1
    assert n > size // 10
    assert longest < 2 * chunk_chars


def _stream_peak(tok: Tokenizer, path, chunk_chars: int) -> int:
    tracemalloc.start()
    try:
        with open(path, encoding="utf-8", newline="") as f:
            for _ in tok.encode_iterable(f, chunk_chars=chunk_chars, allowed_special="all"):
                pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_encode_iterable_memory_does_not_grow_with_the_file(tok, tmp_path):
    small, big = tmp_path / "small.txt", tmp_path / "big.txt"
    _generated_file(small, 300_000)
    size = _generated_file(big, 2_400_000)
    tok = Tokenizer(tok.vocab, tok.merges, special_tokens=SPECIALS)
    tok.encode(small.read_text(encoding="utf-8"), allowed_special="all")  # warm the word cache first
    peak_small = _stream_peak(tok, small, 1 << 11)
    peak_big = _stream_peak(tok, big, 1 << 11)
    print(f"peak while streaming: {peak_small:,} B (small file), {peak_big:,} B (big file)")
    assert peak_big < 1.3 * peak_small + 100_000, (peak_small, peak_big)
    assert peak_big < size / 8, f"peak {peak_big:,} bytes while streaming {size:,} bytes"


# --- as of a step; other id layouts -----------------------------------------------------

@pytest.mark.parametrize("k", [0, 1, 7, 100, 200, "all"])
def test_at_step_equals_tokenizer_from_first_k_merges(trainer, tok, texts, k):
    k = len(tok.merges) if k == "all" else k
    n_init = trainer.n_initial
    vocab_k = {i: b for i, b in tok.vocab.items() if i < n_init + k}
    fresh = Tokenizer(vocab_k, tok.merges[:k], special_tokens=SPECIALS)
    at = tok.at_step(k)
    sample = texts["en"][:5000] + texts["zh"][:1000] + texts["mixed"]
    assert at.n_merges == k
    assert at.encode(sample, allowed_special="all") == fresh.encode(sample, allowed_special="all")
    assert trainer.tokenizer(at_step=k).encode(sample, allowed_special="all") == fresh.encode(sample, allowed_special="all")
    assert max(at.encode(sample, allowed_special="all")) < n_init + k
    assert at.decode(at.encode(sample, allowed_special="all")) == sample


def test_other_id_layout_gives_same_token_bytes(tok, texts):
    rng = random.Random(7)
    old_ids = list(tok.vocab)
    new_ids = rng.sample(range(10_000, 10_000 + 3 * len(old_ids)), len(old_ids))
    remap = dict(zip(old_ids, new_ids))
    assert remap[0] != 0 and remap[256] != 256
    vocab = {remap[i]: b for i, b in tok.vocab.items()}
    other = Tokenizer(vocab, tok.merges, special_tokens=SPECIALS)
    assert other.special_ids == {s: remap[i] for s, i in tok.special_ids.items()}
    for kind in ("en", "zh", "code", "emoji", "mixed"):
        text = texts[kind][:20_000]
        ids = other.encode(text, allowed_special="all")
        assert [vocab[i] for i in ids] == [tok.vocab[i] for i in tok.encode(text, allowed_special="all")]
        assert ids == [remap[i] for i in tok.encode(text, allowed_special="all")]
        assert other.decode(ids) == text
        assert other.encode_with_offsets(text, allowed_special="all").offsets == tok.encode_with_offsets(text, allowed_special="all").offsets


def test_specials_missing_from_vocab_get_new_ids(tok):
    vocab = {i: b for i, b in tok.vocab.items() if b != EOT.encode()}
    other = Tokenizer(vocab, tok.merges, special_tokens=[EOT, "<|fim|>", "<|fim|>>"])
    assert other.special_ids[EOT] == max(vocab) + 1
    assert other.decode(other.encode(f"a{EOT}b", allowed_special="all")) == f"a{EOT}b"


# --- char mode: the tokenizer cuts training words as the trainer did ------------------

@pytest.mark.parametrize("eow,pattern", [("suffix", "whitespace"), ("prefix", "gpt2"),
                                         ("suffix", "gpt2")])
def test_char_mode_tokenizer_agrees_with_trainer(texts, eow, pattern):
    text = texts["en"][:50_000 if HAS_C_CORE else 12_000]
    t = Trainer.from_text(text, TrainSettings(num_merges=300 if HAS_C_CORE else 60, mode="char",
                                              end_of_word=eow,
                                              pattern=pattern))
    t.run(detail=False)
    ctok = t.tokenizer()
    mismatches = []
    for w, word in enumerate(t.word_texts):
        if tuple(ctok.encode(word, allowed_special="all")) != t.word(w):
            mismatches.append(word)
    assert not mismatches[:5]
    enc = ctok.encode_with_offsets(text[:3000], allowed_special="all")
    assert all(0 <= a <= b <= 3000 for a, b in enc.offsets)
    assert [a for a, _ in enc.offsets] == sorted(a for a, _ in enc.offsets)


# --- the C merge loop equals the pure-Python one ------------------------------------

merge_text = st.lists(st.sampled_from(
    [" ", "  ", "\n", "\n\n", "\t", "\u3000", "\xa0", "\x1f", "word", "Word", "é", "你好", "'s",
     "'", "\"", ",", ".", "--", "...", "42", "x", "_", "😀", "<|endoftext|>", "aaaa"]),
    max_size=25).map("".join)


_MERGE_PAIRS: dict[tuple[int, str], tuple[Tokenizer, Tokenizer, Tokenizer]] = {}


def _fast_and_slow(tok: Tokenizer, pattern: str) -> tuple[Tokenizer, Tokenizer]:
    """A tokenizer merging in C and its twin merging in Python, built once a pattern
    (building the two took most of the test's time), their caches emptied before each
    text (Pipeline.reset) so that every word of it goes through both merge loops, as
    through tokenizers made afresh."""
    key = (id(tok), pattern)
    if key not in _MERGE_PAIRS:
        fast = Tokenizer(tok.vocab, tok.merges, special_tokens=SPECIALS, pattern=pattern)
        slow = Tokenizer(tok.vocab, tok.merges, special_tokens=SPECIALS, pattern=pattern)
        slow.model.merger = None   # the Python merge loop
        _MERGE_PAIRS[key] = (tok, fast, slow)   # (tok held: its id stays its own)
    _, fast, slow = _MERGE_PAIRS[key]
    fast.pipeline.reset()
    slow.pipeline.reset()
    return fast, slow


@pytest.mark.slow
@pytest.mark.skipif(merge_module._Merger is None, reason="C encoder not built")
@pytest.mark.parametrize("pattern", ["gpt2", "cjk", "whitespace", "cl100k", "o200k"])
@FAST
@given(text=st.one_of(merge_text, unicode_with_specials))
def test_c_encoder_equals_python_merge_loop(tok, pattern, text):
    fast, slow = _fast_and_slow(tok, pattern)
    assert fast.encode(text, allowed_special="all") == slow.encode(text, allowed_special="all")
    k = len(tok.merges) // 3
    fast_k, slow_k = fast.at_step(k), slow.at_step(k)
    assert fast_k.encode(text, allowed_special="all") == slow_k.encode(text, allowed_special="all")
    assert fast_k.encode_with_offsets(text, allowed_special="all") == slow_k.encode_with_offsets(text, allowed_special="all")


def naive_bpe(ids: list[int], merges: list[tuple[int, int, int]]) -> list[int]:
    """Every merge in the order learned, each applied left to right without overlaps."""
    for a, b, new in merges:
        out, i = [], 0
        while i < len(ids):
            if i + 1 < len(ids) and ids[i] == a and ids[i + 1] == b:
                out.append(new)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return ids


@settings(max_examples=100, deadline=None)
@given(text=st.lists(st.sampled_from(["a", "aa", "aaa", "b", "ab", "ba", " ", " aaaa", "é", "你"]),
                     min_size=1, max_size=30).map("".join),
       n=st.integers(1, 30))
def test_merge_order_with_overlaps_matches_naive_bpe_and_trainer(text, n):
    t = Trainer.from_text(text, TrainSettings(vocab_size=None, num_merges=n))
    t.run(detail=False)
    tk_ = t.tokenizer()
    merges = [(s.pair[0], s.pair[1], s.new_id) for s in t.steps]
    for w, word in enumerate(t.word_texts):
        ids = tk_.encode(word)
        assert tuple(ids) == t.word(w)
        assert ids == naive_bpe(list(word.encode("utf-8")), merges)


def lowest_rank_leftmost(ids: list[int], ranks: dict[tuple[int, int], tuple[int, int]],
                         limit: int) -> list[int]:
    """The reference merge rule, slowly: merge the leftmost pair of lowest rank < limit."""
    ids = list(ids)
    while True:
        found = [(ranks[p][0], i) for i, p in enumerate(zip(ids, ids[1:]))
                 if p in ranks and ranks[p][0] < limit]
        if not found:
            return ids
        _, i = min(found)
        ids[i:i + 2] = [ranks[(ids[i], ids[i + 1])][1]]


@pytest.mark.skipif(merge_module._Merger is None, reason="C encoder not built")
@settings(max_examples=150, deadline=None)
@given(words=st.lists(st.text(alphabet="aab ab你好é", min_size=1, max_size=120), min_size=1,
                      max_size=8),
       limit_frac=st.floats(0, 1), shuffle=st.randoms(use_true_random=False))
@pytest.mark.slow
def test_native_merge_paths_equal_the_reference_rule(words, limit_frac, shuffle):
    """Short words (scan), long ones (heap), the first merges from the byte-pair table,
    in a permuted byte layout, at any step: all equal the reference rule."""
    text = " ".join(words * 3)
    t = Trainer.from_text(text, TrainSettings(num_merges=120))
    t.run(detail=False)
    tok = t.tokenizer()
    layout = list(range(tok.n_merges + 256))
    shuffle.shuffle(layout)   # ids in another order (GPT-2's files do that to bytes)
    vocab = {layout[i]: b for i, b in tok.vocab.items() if i < len(layout)}
    perm = Tokenizer(vocab, tok.merges)
    limit = int(limit_frac * perm.n_merges)
    at = perm.at_step(limit)
    words_seen = set(perm.pre.words(text))
    for word in words_seen | {text[:200]}:  # (the whole text: a long run of symbols)
        ids = [perm.model.byte_ids[b] for b in word.encode()]
        want = lowest_rank_leftmost(ids, perm.model.ranks, limit)
        assert list(at.model.merger.merge(ids, limit)) == want
        if word in words_seen:
            assert at.encode(word, allowed_special="all") == want


# ---------------------------------------------------------------- regressions


@pytest.mark.regression
def test_tokenizer_without_merges_encodes():
    """_max_rank was only set when a merge was pushed: no merges -> AttributeError."""
    tok = Tokenizer({i: bytes([i]) for i in range(256)}, [])
    assert tok.encode("ab", allowed_special="all") == [97, 98] and tok.n_merges == 0


def merger_past_the_keys(big: int):
    """A merger of a, b, c whose first merges fit the long words' keys (rank << 10 |
    position: ranks below 2**21) and whose later ones are `big` + 1..3; and its merges as
    (a, b) -> (rank, new id) for lowest_rank_leftmost."""
    m = merge_module._Merger(list(range(256)))
    ranks: dict[tuple[int, int], tuple[int, int]] = {}
    for a, b, rank, new in [(ord("a"), ord("b"), 0, 256),        # the first merges fit
                            (ord("c"), ord("a"), big + 1, 258),  # later ones may not
                            (257, 258, big + 2, 259), (256, 256, big + 3, 257),
                            (ord("b"), ord("c"), 5, 260)]:
        m.add(a, b, rank, new)
        ranks[(a, b)] = (rank, new)
    return m, ranks


@pytest.mark.skipif(merge_module._Merger is None, reason="C encoder not built")
@pytest.mark.parametrize("big", [0, (1 << 21) - 4, 1 << 21, (1 << 26) - 8])
def test_long_words_with_ranks_past_the_flat_keys_equal_the_reference_rule(big):
    """Words of 33-1024 bytes merge in one flat array of keys (rank << 10 | position) on a
    CPU with AVX2; a rank of 2**21 or more does not fit in a key and the word goes to the
    reference merge, also when such a rank turns up only after some merges (ranks just under
    the bound, and a word of 1024 bytes, the longest the keys hold, stay in the array)."""
    m, ranks = merger_past_the_keys(big)
    for word in ["ab" * 20, "ab" * 16 + "cab" * 30, "abc" * 200, ("ab" * 7 + "c") * 40,
                 "cab" * 341 + "a", "c" * 1022 + "ab"]:
        ids = list(word.encode())
        want = lowest_rank_leftmost(ids, ranks, 1 << 30)
        assert len(want) < len(ids)
        assert m.encode_words([word], {}, 1 << 30, 0) == want, (big, word[:20])
        for limit in (1, 6, big + 2, big + 3):   # as of a training step
            assert m.encode_words([word], {}, limit, 0) == \
                lowest_rank_leftmost(ids, ranks, limit), (big, limit, word[:20])


@pytest.mark.skipif(merge_module._Merger is None, reason="C encoder not built")
@pytest.mark.parametrize("big", [0, (1 << 21) - 4, 1 << 21, (1 << 26) - 8])
def test_long_words_in_a_row_with_ranks_past_the_flat_keys(big):
    """Two long words in a row are merged side by side in the flat loop (one step of each
    in turn); a word whose ranks do not fit the keys leaves it alone, its neighbour goes
    on. Words of each kind one after another, in a text through the whole-text encoder:
    each word as the reference rule merges it, in the text's order."""
    from bpe_gui.engine.text.presets import PRESET_IDS
    m, ranks = merger_past_the_keys(big)
    fits, past = "ab" * 20, "ab" * 16 + "cab" * 30   # past: its later merges are big
    words = [fits, past, past + "ab", fits + "ab", "abc" * 200, "c" * 1022 + "ab",
             ("ab" * 7 + "c") * 40, "ab" * 10, fits * 3, past, "cab" * 341 + "a"]
    pieces = [words[0]] + [" " + w for w in words[1:]]
    for limit in (1 << 30, 6, big + 2, big + 3):
        enc = merge_module._encode.Encoder(m, PRESET_IDS["cl100k"], limit)
        want = [i for p in pieces for i in lowest_rank_leftmost(list(p.encode()), ranks, limit)]
        assert enc.encode(" ".join(words)) == want, (big, limit)
