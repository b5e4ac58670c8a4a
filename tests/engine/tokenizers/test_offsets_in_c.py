"""encode_with_offsets through the C encoder (``_encode.Encoder.encode_offsets``): the ids
of the whole text, each token placed by its id's byte length, mapped back through a
normalizer's alignment and trimmed as ``tokenizers`` trims.

Oracles: ``tokenizers`` (ids and offsets of tokenizer.json files), ``tiktoken`` (ids, and
spans worked out here from ``decode_single_token_bytes`` of each id, checked against
``decode_with_offsets``' starts), and the piece-by-piece paths the C path replaced
(``Pipeline._offsets_by_piece``). Each test also checks
the C path was taken, so a broken one cannot hide behind the slow path.
"""
from __future__ import annotations

import random
from array import array

import pytest

tokenizers = pytest.importorskip("tokenizers")
tiktoken = pytest.importorskip("tiktoken")

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.tokenizers import Encoding  # noqa: E402
from bpe_gui.engine.tokenizers.model import clean_with_map  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402

from hf_files import CASES, AT, normalized_split, with_added  # noqa: E402
from tiktoken_files import ranks_file, trained_ranks  # noqa: E402

pytestmark = pytest.mark.skipif(
    __import__("importlib").util.find_spec("bpe_gui.engine.tokenizers._encode") is None,
    reason="the C encoder is not built")

# fragments texts are made of: Chinese (long words of 3-byte characters), mixed scripts,
# emoji (4-byte, ZWJ sequences), decomposed and compatibility characters (NFC, NFKC
# change them), whitespace runs, digits, and special tokens
FRAGMENTS = ["你好世界，这是一个测试。", "中文分词很有趣", "我们在学习字节对编码的分词方法", " ",
             "  ", "\n", "\n\n", "\t", "Hello", " world", "It's", " don't", "Привет", " мир",
             "مرحبا", "🙂", "👍🏽", "👨\u200d👩\u200d👧", "🇨🇳", "e\u0301", "cafe\u0301", "ﬁne",
             "Å", "A\u030a", "１２３", "12345", "3.14", "!!", "...", "x", "é", "\u3000",
             "<|im_start|>", "<|im_end|>", "<|begin_of_text|>", "<|eot_id|>",
             "<|endoftext|>", "<|fim_prefix|>", "\u00a0", "ΣΑΣ", "İ", "ｶﾞ"]


def texts(seed: int, n: int = 40, parts: int = 30) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(FRAGMENTS) for _ in range(rnd.randint(1, parts)))
            for _ in range(n)]


# ----- tokenizer.json: tokenizers' ids and offsets --------------------------------------
# the cases whose pipeline encodes whole texts in C (a native-scanner tiling pattern on
# byte-level tables): there encode_with_offsets must take the C path
C_CASES = ["llama3-ignore-merges", "llama3-without-ignore-merges", "qwen2-split",
           "gpt2-bytelevel-regex", "nfc", "nfc-split-added"]
EXTRA_CASES = {
    # Qwen2's shape with its added tokens, one of them not special
    "qwen2-like": lambda: with_added(normalized_split(tokenizers.normalizers.NFC()), [
        AT("<|im_start|>", special=True, normalized=False),
        AT("<|im_end|>", special=True, normalized=False),
        AT("<|endoftext|>", special=False, normalized=False)]),
}


@pytest.fixture(scope="module", params=C_CASES + sorted(EXTRA_CASES))
def hf_pair(request, tmp_path_factory):
    tk = {**CASES, **EXTRA_CASES}[request.param]()
    path = tmp_path_factory.mktemp(request.param) / "tokenizer.json"
    tk.save(str(path))
    return request.param, tk, load_tokenizer(path)


def hf_same(tk, ours, text: str) -> Encoding:
    theirs = tk.encode(text, add_special_tokens=False)
    enc = ours.encode_with_offsets(text, allowed_special="all")
    assert enc.ids == theirs.ids == ours.encode(text, allowed_special="all"), text
    assert enc.offsets == [tuple(o) for o in theirs.offsets], text
    vocab = ours.vocab
    assert enc.tokens == [vocab.get(i, b"") for i in enc.ids]
    # special: an added token marked special, found in the text as itself
    added = {t.content: i for i, t in tk.get_added_tokens_decoder().items() if t.special}
    assert enc.special == [added.get(text[s:e]) == i
                           for i, (s, e) in zip(theirs.ids, theirs.offsets)], text
    return enc


def test_tokenizer_json_offsets_equal_tokenizers(hf_pair):
    name, tk, ours = hf_pair
    took = 0
    for text in texts(1) + [FRAGMENTS[0] * 40, "".join(FRAGMENTS)]:
        hf_same(tk, ours, text)
        took += ours.pipeline._offsets_in_c(text) is not None
    assert took > 0, f"{name}: encode_with_offsets never took the C path"


def test_tokenizer_json_c_path_equals_the_pieces(hf_pair):
    """Where the C path answers, it answers what the piece-by-piece path answers."""
    name, tk, ours = hf_pair
    pipe = ours.pipeline
    for text in texts(2, 60):
        got = pipe._offsets_in_c(text)
        if got is not None:
            assert got == pipe._offsets_by_piece(text), text


def test_long_text_across_the_encoders_chunks(hf_pair):
    """More than 2 * ENC_CHUNK characters (turned into UTF-8 a chunk at a time), special
    tokens and long Chinese words across the chunks' edges."""
    from bpe_gui.engine.tokenizers import _encode
    name, tk, ours = hf_pair
    rnd = random.Random(3)
    # all fragments; and those no normalizer here changes (the C path's for every case:
    # a changed text with added tokens matched before the normalizer goes by pieces)
    kept = [f for f in FRAGMENTS if f == __import__("unicodedata").normalize("NFKC", f)]
    for fragments, c_path in ((FRAGMENTS, False), (kept, True)):
        parts, size = [], 0
        while size < 2 * _encode.ENC_CHUNK + 5000:
            p = rnd.choice(fragments)
            parts.append(p)
            size += len(p)
        text = "".join(parts)
        enc = hf_same(tk, ours, text)
        assert ours.pipeline._offsets_in_c(text) is not None or not c_path
        assert len(enc.ids) > 50_000


def test_normalized_text_maps_back_through_the_alignment(tmp_path):
    """NFC changes the text: the C encoder takes its normal form, and the spans come back
    through the normalizer's alignment (a composed character covers its decomposed run)."""
    tk = CASES["nfc"]()
    tk.save(str(tmp_path / "tokenizer.json"))
    ours = load_tokenizer(tmp_path / "tokenizer.json")
    for text in ["cafe\u0301 e\u0301e\u0301 A\u030a 你好e\u0301", "e\u0301" * 50,
                 "x\u0301\u0302 \u1100\u1161\u11a8 한국어", "Å Å\u0301 ﬁ"]:
        enc = hf_same(tk, ours, text)
        assert ours.pipeline._offsets_in_c(text) is not None, text
        assert len(enc.ids)


def test_trimmed_offsets_as_tokenizers_trims(tmp_path):
    """GPT-2's file: a ByteLevel post-processor with trim_offsets (spans leave out a
    token's leading spaces), done in C from each id's leading and trailing spaces."""
    tk = CASES["gpt2-bytelevel-regex"]()
    tk.save(str(tmp_path / "tokenizer.json"))
    ours = load_tokenizer(tmp_path / "tokenizer.json")
    assert ours.pipeline._trim_tables()
    for text in ["  a  b   c", " hello world ", "x    ", "   ", "a\u3000 b", "<|endoftext|> x"]:
        hf_same(tk, ours, text)
        assert ours.pipeline._offsets_in_c(text) is not None


def test_lone_surrogates_keep_offsets_in_the_string_given(hf_pair):
    """UTF-8 cannot hold a lone surrogate: the text is cleaned (as tiktoken does) and
    the spans mapped back to the string given; the C path runs on the clean text."""
    name, tk, ours = hf_pair
    for text in ["a\ud83d b你好", "x\ude00\ud83d\ude00y 中文", "\ud800" * 3 + "<|im_end|>é"]:
        enc = ours.encode_with_offsets(text, allowed_special="all")
        clean, starts = clean_with_map(text)
        slow = ours.pipeline._offsets_by_piece(clean)
        assert enc.ids == slow.ids == ours.encode(text, allowed_special="all")
        assert enc.offsets == [(starts[s], starts[e]) for s, e in slow.offsets]


# ----- .tiktoken files: tiktoken's ids, spans from its token bytes ---------------------
def byte_spans(text: str, token_bytes: list[bytes]) -> list[tuple[int, int]]:
    """The characters each token's bytes touch, worked out the slow, obvious way."""
    char_of = [i for i, c in enumerate(text) for _ in c.encode("utf-8")]
    out, pos = [], 0
    for t in token_bytes:
        out.append((char_of[pos], char_of[pos + len(t) - 1] + 1))
        pos += len(t)
    assert pos == len(char_of)
    return out


@pytest.fixture(scope="module")
def tiktoken_pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("tt")
    ranks = trained_ranks()
    specials = {"<|endoftext|>": len(ranks), "<|fim_prefix|>": len(ranks) + 1}
    from bpe_gui.engine.formats import known_encodings as known
    path = ranks_file(d, ranks, "odd.tiktoken")
    (d / "odd.tiktoken.json").write_text(
        '{"pat_str": %s, "special_tokens": {"<|endoftext|>": %d, "<|fim_prefix|>": %d}}'
        % (__import__("json").dumps(known.CL100K_PATTERN), *specials.values()))
    enc = tiktoken.Encoding("odd", pat_str=known.CL100K_PATTERN, mergeable_ranks=ranks,
                            special_tokens=specials)
    return enc, load_tokenizer(path)


def test_tiktoken_offsets_from_tiktokens_token_bytes(tiktoken_pair):
    enc, tok = tiktoken_pair
    for text in texts(4) + [FRAGMENTS[2] * 30]:
        ids = enc.encode(text, allowed_special="all")
        got = tok.encode_with_offsets(text, allowed_special="all")
        assert got.ids == ids
        tb = [enc.decode_single_token_bytes(i) for i in ids]
        assert got.tokens == tb
        assert got.offsets == byte_spans(text, tb)
        _, starts = enc.decode_with_offsets(ids)   # tiktoken's own starts agree
        assert [s for s, _ in got.offsets] == starts
        specials = set(enc._special_tokens.values())
        assert got.special == [i in specials for i in ids]
        assert tok.pipeline._offsets_in_c(text) is not None


# ----- trained tokenizers: the word-by-word path ---------------------------------------
@pytest.fixture(scope="module", params=["cl100k", "o200k", "gpt2", "qwen2"])
def trained_tok(request):
    from bpe_gui.engine.text.presets import KIND_PATTERNS
    pattern = KIND_PATTERNS.get(request.param, request.param)   # (a recognised regex)
    corpus = " ".join(texts(5, 60) * 3)   # (words seen once are pruned)
    t = Trainer.from_text(corpus, TrainSettings(vocab_size=600, pattern=pattern,
                                                special_tokens=["<|endoftext|>", "<|eot_id|>"]))
    t.run()
    return t.tokenizer()


def test_trained_offsets_equal_the_word_path(trained_tok):
    tok = trained_tok
    assert tok.pipeline.whole_text_encoder is not None
    for text in texts(6):
        got = tok.encode_with_offsets(text, allowed_special="all")
        assert got == tok.pipeline._offsets_by_piece(text), text
        assert got.ids == tok.encode(text, allowed_special="all")
        assert got.offsets == byte_spans(text, [tok.vocab[i] for i in got.ids])
    for step in (0, 10, 200):   # a tokenizer as of a step: its own encoder and tables
        past = tok.at_step(step)
        for text in texts(7, 10):
            assert past.encode_with_offsets(text, allowed_special="all") == \
                past.pipeline._offsets_by_piece(text)


# ----- the C function itself --------------------------------------------------------------
def test_lengths_that_do_not_tile_the_text_give_none(tiktoken_pair):
    """A lengths table that does not add up to the text's bytes: None (the caller's slow
    path runs), never spans out of the text."""
    _, tok = tiktoken_pair
    pipe = tok.pipeline
    tok.encode_with_offsets("x", allowed_special="all")
    lengths, tokens = pipe._tables
    enc = pipe._encoder
    text = "你好世界 hello <|endoftext|> 🙂"
    good = enc.encode_offsets(text, lengths, tokens)
    assert good is not None and good[3] == [good[0].index(tok.special_ids["<|endoftext|>"])]
    # a special token found is as long as the text it matched, whatever its id's length
    odd = array("i", lengths)
    odd[tok.special_ids["<|endoftext|>"]] = 1
    assert enc.encode_offsets(text, odd, tokens) == good
    for bad in (array("i", [n + 1 for n in lengths]), array("i", [max(0, n - 1) for n in lengths]),
                array("i", lengths[:10])):
        assert enc.encode_offsets(text, bad, tokens) is None
    assert enc.encode_offsets(text, lengths, tokens[:10]) is None
    with pytest.raises(UnicodeEncodeError):
        enc.encode_offsets("a\ud800", lengths, tokens)
    with pytest.raises(ValueError):
        enc.encode_offsets(text, lengths, tokens, align=(array("q", [0]), array("q", [1])))


def test_model_tokenize_kept_scratch_gives_what_a_fresh_model_gives(tmp_path):
    """_pipeline.Model.tokenize keeps one scratch between calls: word after word, and
    after a giant word whose arrays it gives back, its answers are a fresh model's."""
    tk = CASES["qwen2-split"]()
    tk.save(str(tmp_path / "tokenizer.json"))
    path = tmp_path / "tokenizer.json"
    a = load_tokenizer(path).pipeline.model.native
    words = [w for t in texts(8, 30) for w in t.split()] + ["中" * 70_000] + \
        [w for t in texts(9, 30) for w in t.split()]
    for w in words:
        got = a.tokenize(w)
        if len(w) > 1000:
            assert got == load_tokenizer(path).pipeline.model.native.tokenize(w)
        assert list(got[0]) == a.encode_words([w], {}, 1 << 10)


# ----- normal forms' alignment from their changed stretches -----------------------------
@pytest.mark.parametrize("form", ["NFC", "NFKC", "NFD", "NFKD"])
def test_form_alignment_equals_the_whole_texts_changes(form):
    """NStr.normalize and form_alignment work on the stretches around the characters a
    form may change; the reference is every character's change worked out on the whole
    text (_unicode_changes), as before."""
    from bpe_gui.engine.tokenizers.imported.normalized import (
        NStr, _unicode_changes, form_alignment)
    import unicodedata
    rnd = random.Random(form)
    frag = ["e\u0301", "A\u030a", "\u1100\u1161\u11a8", "\u1100", "\u1161", "x\u0301\u0302",
            "\u0302", "ﬁ", "Å", "ｶﾞ", "ｶ", "ﾞ", " ", "中", "한", "\u0327\u0301c", "🙂",
            "\U0001d15e", "½", "\u0344", "q\u0323\u0307", "\u0f73", "abc"]
    for _ in range(300):
        t = "".join(rnd.choice(frag) for _ in range(rnd.randint(1, 60)))
        whole = NStr.of(t) if unicodedata.is_normalized(form, t) else \
            NStr.of(t).transform(_unicode_changes(t, form))
        fast = NStr.of(t).normalize(form)
        assert (fast.text, fast.spans()) == (whole.text, whole.spans()), t
        made = form_alignment(form, t)
        if made is None:
            assert whole.text == t
        else:
            assert made[0] == whole.text and list(zip(made[1], made[2])) == whole.spans(), t
