"""The one-pass C encoder of whole texts (csrc/merge/encoder.c, ``_encode.Encoder``):
its words, its special tokens, its shared cache, its array and batch APIs.

The encoder decides the common ASCII words of each published pattern from one 8-byte
load (csrc/scan/scan_fast.h, a hand-compiled scanner) and finds special tokens itself;
here ``regex`` running the pattern is the oracle for the words, tiktoken and HF
``tokenizers`` for the ids, and the Python path (the pattern's words through the word
model) for trained tokenizers.
"""
from __future__ import annotations

import functools
import importlib.util
import lzma
import random
import threading
from array import array
from pathlib import Path

import pytest
import regex

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")

import hf_files as hfp  # noqa: E402
import tiktoken_files as tti  # noqa: E402

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.formats import known_encodings as known  # noqa: E402
from bpe_gui.engine.text.presets import KIND_PATTERNS, PRESET_IDS  # noqa: E402
from bpe_gui.engine.tokenizers import _encode  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402

# characters of every class the one-load scanner tells apart, and some it leaves to the
# scanner (\v \f, controls, DEL, letters, marks, digits and spaces outside ASCII)
ASCII_PARTS = (["a", "b", "z", "A", "Q", "Z", "e", "l", "s", "t", "m", "d", "r", "v"] * 3 +
               ["0", "5", "9"] * 3 + [" "] * 8 + ["\n", "\r", "\t"] * 2 +
               list(".,;:!?\"#$%&()*+-/<=>@[\\]^_`{|}~'") + ["'s", "'ll", "'VE", "'Re", "'t"] +
               ["\v", "\f", "\x00", "\x1c", "\x7f", "é", "ß", "Ж", "ж", "\u0301", "٣",
                "\u00a0", "\u3000", "中", "🙂", "ſ", "\u212a"])


def _random_texts(n: int, seed: int, length=(1, 40)) -> list[str]:
    """n texts of ASCII_PARTS, each of a length in the range: the same for the same
    arguments, made once (two megabytes for a test and its cases)."""
    return list(_made_texts(n, seed, tuple(length)))


@functools.lru_cache(maxsize=8)
def _made_texts(n: int, seed: int, length: tuple[int, int]) -> tuple[str, ...]:
    rng = random.Random(seed)
    return tuple("".join(rng.choices(ASCII_PARTS, k=rng.randint(*length))) for _ in range(n))


@pytest.mark.parametrize("kind", ["gpt2", "cl100k", "o200k", "llama3", "qwen2"])
def test_one_load_words_agree_with_regex(kind):
    """Wherever the one-load scanner answers, its word is the pattern's first match."""
    pattern = regex.compile(KIND_PATTERNS[kind])
    preset = PRESET_IDS[kind]
    answered = 0
    for text in _random_texts(40_000, seed=len(kind), length=(4, 24)):
        data = text.encode("utf-8")
        if len(data) < 8:
            continue
        got = _encode._fast_word(preset, data)
        if got == 0:
            continue
        answered += 1
        want = len(pattern.match(text).group().encode("utf-8"))
        if got == 8:   # a letter run fills the 8 bytes: the word is longer
            assert want >= 8, (kind, text)
        elif got > 8:  # 16 bytes given: the run's end in the second 8
            assert want == got, (kind, text, got, want)
        elif got > 0:
            assert want == got, (kind, text, got, want)
    assert answered > 10_000   # it does answer most of these


@pytest.mark.parametrize("kind", ["cl100k", "o200k", "llama3", "qwen2"])
def test_one_load_words_every_first_byte(kind):
    """Every ASCII byte before a space, a letter, LF, a digit or punctuation, then
    letters (the one-byte words and prefixed letter runs decided inline, and what the
    cold path keeps): where the one-load scanner answers, the pattern's first match."""
    pattern = regex.compile(KIND_PATTERNS[kind])
    preset = PRESET_IDS[kind]
    answered = 0
    for b0 in map(chr, range(128)):
        for b1 in [" ", "a", "s", "t", "Q", "\n", "\r", "7", ",", "'", "\t", "é"]:
            for tail in ["bcdefgh", "s and so", "ll be it", "Xyz qwer", "  \nabc d", "12345678"]:
                text = b0 + b1 + tail
                got = _encode._fast_word(preset, text.encode("utf-8"))
                if got == 0:
                    continue
                answered += 1
                want = len(pattern.match(text).group().encode("utf-8"))
                assert want >= 8 if got == 8 else want == got, (kind, text, got, want)
    assert answered > 2_000


def _tiktoken_pair(tmp_path_factory, pattern, specials):
    d = tmp_path_factory.mktemp("enc")
    ranks = tti.trained_ranks()
    path = tti.ranks_file(d, ranks, "t.tiktoken")
    import json
    (d / "t.tiktoken.json").write_text(json.dumps({"pat_str": pattern, "special_tokens": specials}))
    enc = tiktoken.Encoding("t", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    return load_tokenizer(path), enc


def test_texts_of_two_and_three_byte_characters_as_tiktoken(tmp_path_factory):
    """A str of 2-byte characters goes to UTF-8 8 characters at a time when all 8 take
    2 bytes (Cyrillic, Greek) or all take 3 (Han, kana; no surrogate): runs of each of
    every length around 8, at every offset after ASCII, mixed with the other kinds and
    with characters at the edges of the ranges (U+0080, U+07FF, U+0800, U+D7FF, U+E000,
    U+FFFF), as tiktoken; a lone surrogate inside such a run is still refused."""
    ours, enc = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, {})
    rng = random.Random(7)
    kinds = {"cyrillic": "абвгдежзийклмнопрстуфхцчшщъыьэюя", "greek": "αβγδεζηθικλμνξοπρστυφχψω",
             "han": "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年",
             "kana": "あいうえおかきくけこさしすせそたちつてとアイウエオカキクケコ",
             "edges": "\u0080\u07ff\u0800\ud7ff\ue000\uffff\u00e9\u4e00"}
    texts = []
    for lead in range(0, 10):
        for name, chars in kinds.items():
            for k in (1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 40):
                run = "".join(rng.choice(chars) for _ in range(k))
                other = rng.choice([c for c in kinds if c != name])
                tail = "".join(rng.choice(kinds[other]) for _ in range(rng.randint(0, 9)))
                texts.append("a" * lead + run + tail + " b" + run[::-1])
    for text in texts:
        assert text.encode("utf-16-le").decode("utf-16-le") == text  # 2-byte str
        assert ours.encode(text, allowed_special="all") == enc.encode(text), text
    assert ours.encode_batch(texts, threads=2, allowed_special="all") == [enc.encode(t) for t in texts]
    bad = "a" * 3 + "中" * 12 + "\ud800" + "中" * 12
    with pytest.raises(UnicodeEncodeError):   # the C encoder refuses it ...
        ours.pipeline.whole_text_encoder.encode(bad)
    assert ours.encode(bad, allowed_special="all") == enc.encode(bad)   # ... and encode() cleans it as tiktoken


def test_characters_of_every_length_in_no_order_as_tiktoken(tmp_path_factory):
    """A str of 2- or 4-byte characters whose characters take 1, 2, 3 and 4 bytes of UTF-8
    in no order (random text of every plane) goes to UTF-8 right (util/utf8.h: 16 at a time
    with AVX-512, ASCII 4 or 8 at a time, the rest one by one): every length of text around
    the steps of 4, 8 and 16, the
    edges of each length's range, as tiktoken; the ids' bytes are the text's UTF-8; a lone
    surrogate at any place is refused."""
    ours, enc = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, {})
    rng = random.Random(41)
    edges = ["a", " ", "\u007f", "\u0080", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uffff",
             "é", "ж", "中", "ア"]
    astral = ["\U00010000", "\U0001f642", "\U00020000", "\U0010ffff", "\U000e0001"]
    texts = []
    for pool in (edges, edges + astral):   # a 2-byte str, then a 4-byte one
        for n in range(0, 42):
            for _ in range(6):
                t = "".join(rng.choice(pool) for _ in range(n))
                texts.append(t + (astral[0] if pool is not edges and t.isascii() else ""))
    for text in texts:
        ids = ours.encode(text, allowed_special="all")
        assert ids == enc.encode(text), ascii(text)
        assert b"".join(ours.vocab[i] for i in ids) == text.encode("utf-8")
    w = ours.pipeline.whole_text_encoder
    for pool in (edges, edges + astral):
        t = "".join(rng.choice(pool) for _ in range(20))
        for at in range(len(t) + 1):
            with pytest.raises(UnicodeEncodeError):
                w.encode(t[:at] + "\udc80" + t[at:])


def test_ascii_runs_in_wide_strs_as_tiktoken(tmp_path_factory):
    """ASCII kept as 2- or 4-byte characters (English with one curly quote) goes to UTF-8
    32 or 16 characters at a time (util/utf8.h, AVX-512), else 8 or 4: runs of every
    length up to 100 before and after a character of each UTF-8 length, as tiktoken; a
    lone surrogate at any place after a long ASCII run is refused."""
    ours, enc = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, {})
    w = ours.pipeline.whole_text_encoder
    for wide in ("\u2019", "\U0001f642"):   # makes the str 2-byte, 4-byte
        for odd in ("é", "中", "\U0001f642", "\u2019"):
            for k in range(0, 101):
                text = wide + "ab c" * (k // 4) + "abc"[:k % 4] + odd + " the end" * (k % 5)
                assert ours.encode(text) == enc.encode(text), (k, ascii(text))
        long = wide + "x" * 70
        for at in range(len(long) + 1):
            with pytest.raises(UnicodeEncodeError):
                w.encode(long[:at] + "\udc80" + long[at:])


@pytest.mark.parametrize("pattern", [known.CL100K_PATTERN, known.O200K_PATTERN],
                         ids=["cl100k", "o200k"])
def test_random_texts_as_tiktoken(tmp_path_factory, pattern):
    n = 1000
    ours, enc = _tiktoken_pair(tmp_path_factory, pattern,
                               {"<|endoftext|>": n, "<|end|>": n + 1, "<|endoftext|>x": n + 2})
    assert ours.pipeline.whole_text_encoder is not None
    texts = _random_texts(3000, seed=3, length=(1, 200))
    texts += [t + "<|endoftext|>" + u + "<|end|><|endoftext|>x<|endof" for t, u in
              zip(texts[:200], texts[200:400])]
    for t in texts:
        assert ours.encode(t, allowed_special="all") == enc.encode(t, allowed_special="all"), t
    joined = "".join(texts)
    assert ours.encode(joined, allowed_special="all") == enc.encode(joined, allowed_special="all")


def test_random_texts_as_tokenizers(tmp_path_factory):
    tk = hfp.byte_level_llama3(ignore_merges=False)   # added tokens as Llama 3's: special,
    tk.add_special_tokens(["<|begin|>", "<|begin|>x"])   # not normalized, no stripping
    d = tmp_path_factory.mktemp("hf")
    tk.save(str(d / "tokenizer.json"))
    ours = load_tokenizer(d / "tokenizer.json")
    assert ours.pipeline.whole_text_encoder is not None   # added tokens found in C
    texts = _random_texts(2000, seed=4, length=(1, 200))
    texts += [t + "<|begin|>x" + u + "<|eot_id|><|begin|>" for t, u in zip(texts[:100], texts[100:200])]
    for t in texts:
        assert ours.encode(t, allowed_special="all") == tk.encode(t, add_special_tokens=False).ids, t


@pytest.mark.parametrize("kind", ["gpt2", "cl100k", "o200k", "llama3", "qwen2"])
def test_trained_native_equals_python_path(kind):
    t = Trainer.from_text(tti.CORPUS, TrainSettings(vocab_size=400, pattern=KIND_PATTERNS[kind],
                                                    special_tokens=["<|x|>", "<|x|>y"]))
    t.run()
    tok = t.tokenizer()
    assert tok.pipeline.whole_text_encoder is not None
    for text in _random_texts(1500, seed=5, length=(1, 120)) + ["a<|x|>yb<|x|>"]:
        want = [i for p in tok.pre.pieces(text) for i in
                ([tok.special_ids[p.text]] if p.special else
                 [j for w in tok.pre.findall(p.text) for j in tok.model.merge(w)])]
        assert tok.encode(text, allowed_special="all") == want, text


def test_encode_to_array(tmp_path_factory):
    ours, enc = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, {"<|endoftext|>": 1000})
    for text in ["", "hello world<|endoftext|>", "x\ud800y", " Привет 你好 " * 50]:
        a = ours.encode_to_array(text, allowed_special="all")
        assert isinstance(a, array) and a.typecode == "I" and a.itemsize == 4
        assert a.tolist() == ours.encode(text, allowed_special="all")
    t = Trainer.from_text(tti.CORPUS, TrainSettings(vocab_size=300, pattern=r"\s+|\S+"))
    t.run()
    regex_tok = t.tokenizer()   # no C encoder: the list made into an array
    assert regex_tok.pipeline.whole_text_encoder is None
    assert regex_tok.encode_to_array("a b  c", allowed_special="all").tolist() == regex_tok.encode("a b  c", allowed_special="all")


def test_encode_to_array_around(tmp_path_factory):
    """The C encoder's ``around``: ids before and after the text's, in the one array (a
    post-processor's BOS/EOS), for both array calls, long texts included; bad halves are
    refused with the argument named, and a text it cannot take raises as without."""
    ours, enc = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, {"<|endoftext|>": 1000})
    w = ours.pipeline.whole_text_encoder
    for text in ["", "hello world<|endoftext|>", " Привет 你好 " * 50,
                 "English, with ’ and all " * 20_000]:
        for before, after in [((), ()), ((7,), ()), ((), [8, 9]), ([1, 2, 3], (4,))]:
            got = w.encode_to_array(text, (before, after)).tolist()
            assert got == [*before, *enc.encode(text, allowed_special="all"), *after]
            got = w.encode_ordinary_to_array(text, (before, after)).tolist()
            assert got == [*before, *enc.encode_ordinary(text), *after]
        assert w.encode_to_array(text, None).tolist() == enc.encode(text, allowed_special="all")
    with pytest.raises(TypeError, match="around"):
        w.encode_to_array("a", [(), ()])
    with pytest.raises(TypeError, match=r"around\[0\]"):
        w.encode_to_array("a", (5, ()))
    with pytest.raises(ValueError, match="out of range"):
        w.encode_to_array("a", ((), (-1,)))
    with pytest.raises(TypeError):
        w.encode_to_array("a", ((), ()), 3)
    with pytest.raises(UnicodeEncodeError):
        w.encode_to_array("x\ud800y", ((1,), (2,)))
    with pytest.raises(UnicodeEncodeError):   # after ids went into the array a chunk at a time
        w.encode_to_array("English, with ’ and all " * 20_000 + "\ud800", ((1,), (2,)))


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_encode_batch_native_threads(tmp_path_factory, threads):
    ours, enc = _tiktoken_pair(tmp_path_factory, known.O200K_PATTERN, {"<|endoftext|>": 1000})
    texts = _random_texts(300, seed=6, length=(0, 400)) + ["", "x\udc00<|endoftext|>y"]
    got = ours.encode_batch(texts, threads=threads, allowed_special="all")
    assert got == [ours.encode(t, allowed_special="all") for t in texts]
    assert got[:-1] == [enc.encode(t, allowed_special="all") for t in texts[:-1]]
    arrays = ours.pipeline.whole_text_encoder.encode_batch(texts[:-1], threads, as_array=True)
    assert [a.tolist() for a in arrays] == got[:-1]


@pytest.mark.parametrize("threads", [2, 3])
def test_encode_batch_lists_made_while_others_encode(tmp_path_factory, threads):
    """The lists are filled on the threads once every text is encoded (merge/batch.c):
    long and short texts mixed so the threads finish out of order, and a batch of 20,000
    tiny texts, each item as encode gives it, as lists and as arrays."""
    ours, enc = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, {"<|endoftext|>": 1000})
    big = _random_texts(40, seed=11, length=(20_000, 60_000))
    small = _random_texts(400, seed=12, length=(0, 300))
    texts = [t for pair in zip(big, small) for t in pair] + small[40:] + big[:3]
    want = [enc.encode(t, allowed_special="all") for t in texts]
    assert sum(map(len, want)) > 4 * 65_536
    native = ours.pipeline.whole_text_encoder
    for _ in range(2):
        assert ours.encode_batch(texts, threads=threads, allowed_special="all") == want
        assert [a.tolist() for a in native.encode_batch(texts, threads, as_array=True)] == want
    tiny = _random_texts(20_000, seed=13, length=(0, 12))
    assert ours.encode_batch(tiny, threads=threads, allowed_special="all") == [enc.encode(t, allowed_special="all")
                                                        for t in tiny]


@pytest.mark.parametrize("threads", [1, 3])
def test_encode_batch_lists_hold_one_reference_per_item(tmp_path_factory, threads):
    """The threads write the int objects into the lists without the GIL and their
    references are added after: each object's count rises by exactly the number of times
    it is in the lists (counted here in Python), and falls back when they are freed."""
    import sys
    ours, _ = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, {})
    native = ours.pipeline.whole_text_encoder
    texts = _random_texts(300, seed=14, length=(0, 500))
    objs = {id(x): x for t in texts for x in native.encode_ordinary(t) if x > 256}
    before = {k: sys.getrefcount(v) for k, v in objs.items()}
    lists = native.encode_batch(texts, threads, ordinary=True)
    uses: dict[int, int] = {}
    for one in lists:
        for x in one:
            uses[id(x)] = uses.get(id(x), 0) + 1
    assert objs and all(sys.getrefcount(v) == before[k] + uses.get(k, 0) for k, v in objs.items())
    del lists, one, x
    assert all(sys.getrefcount(v) == before[k] for k, v in objs.items())


def test_one_cache_for_every_thread_bounded(tmp_path_factory):
    """Threads share the encoder's cache (a word merged by one serves all), its memory is
    fixed, and each thread that encoded at once keeps one scratch."""
    ours, enc = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, {})
    merger = ours.pipeline.merger
    small = _encode.Encoder(merger, PRESET_IDS["cl100k"], cache_words=1024)
    texts = _random_texts(400, seed=8, length=(50, 300))
    want = [enc.encode_ordinary(t) for t in texts]
    errors: list = []

    def work(k):
        try:
            for _ in range(3):
                for i in range(k, len(texts), 4):
                    assert small.encode(texts[i]) == want[i]
        except AssertionError as e:   # reported on the main thread
            errors.append(e)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    assert 0 < small.cached_words <= 1024
    assert 1 <= small.idle[0] <= 4
    small.clear()
    assert small.cached_words == 0
    assert small.encode_batch(texts, 3) == want


def test_idle_tables_of_long_words_stay_within_their_bound(tmp_path_factory):
    """Each thread of a batch keeps a table of the long words it merged (here clauses of 80
    Han characters, each twice, so that the table takes it) for the next call. Idle,
    those tables are kept up to 64 MB in all (ENC_IDLE_LONGS): four threads made over
    that, and the scratch whose table would pass it goes idle without one. A second
    batch gives the same ids, and clear() gives every table back. Ids as tiktoken's."""
    ours, enc = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, {})
    native = _encode.Encoder(ours.pipeline.merger, PRESET_IDS["cl100k"])
    rng = random.Random(21)
    han = "".join(map(chr, range(0x4E00, 0x9FA5)))
    texts = []
    for _ in range(4):
        words = [" " + "".join(rng.choices(han, k=80)) for _ in range(12_000)]
        texts.append("".join(w + w for w in words))
    want = [enc.encode_ordinary(t) for t in texts]
    assert native.encode_batch(texts, 4, ordinary=True) == want
    scratches, kept = native.idle
    assert scratches == 4 and 0 < kept <= 64 << 20
    single = _encode.Encoder(ours.pipeline.merger, PRESET_IDS["cl100k"])
    single.encode_ordinary(texts[0])
    assert 4 * single.idle[1] > 64 << 20   # so four such tables would have passed it
    assert native.encode_batch(texts, 4, ordinary=True) == want
    native.clear()
    assert native.idle == (4, 0)
    assert native.encode_batch(texts[:1], 1, ordinary=True) == want[:1]


# ----- corner texts and real corpora: ids as the libraries', from one thread and many ----------
def _bench_corpora():
    """bench/corpora.py, the generator of the corner texts the benchmark times."""
    path = Path(__file__).resolve().parents[3] / "bench" / "corpora.py"
    spec = importlib.util.spec_from_file_location("bench_corpora_for_tests", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _real_texts(corpora_dir: Path, chars: int) -> dict[str, str]:
    out = {}
    for path in sorted(corpora_dir.iterdir()):
        if path.name.endswith(".txt.xz"):
            with lzma.open(path, "rt", encoding="utf-8") as f:
                out[path.name] = f.read(chars)
        elif path.suffix == ".txt":
            out[path.name] = path.read_text("utf-8")[:chars]
    return out


@pytest.fixture(scope="module")
def hard_texts(corpora_dir) -> dict[str, str]:
    """Every corner of bench/corpora.py (long words, whitespace runs, digits, emoji, random
    Unicode, decomposed accents; 40 KB each) and the start of every corpus."""
    real = _real_texts(corpora_dir, 120_000)
    corpora = _bench_corpora()
    english = real["en-tinyshakespeare.txt.xz"]
    corners = {name: corpora.corner_text(name, 40_000, english) for name in corpora.CORNERS}
    assert set(corners) >= {"long-words", "whitespace", "digits", "emoji", "unicode", "decomposed"}
    return {**corners, **real}


def _three_kinds(tmp_path_factory):
    """(name, our tokenizer, the library's encode) for cl100k's and o200k's patterns over a
    .tiktoken file, and a Llama-3-style byte-level tokenizer.json."""
    out = []
    for name, pattern in (("cl100k", known.CL100K_PATTERN), ("o200k", known.O200K_PATTERN)):
        ours, enc = _tiktoken_pair(tmp_path_factory, pattern, {"<|endoftext|>": 1000})
        out.append((name, ours, lambda t, enc=enc: enc.encode(t, allowed_special="all")))
    tk = hfp.byte_level_llama3(ignore_merges=False)
    d = tmp_path_factory.mktemp("hf3")
    tk.save(str(d / "tokenizer.json"))
    out.append(("llama3-json", load_tokenizer(d / "tokenizer.json"),
                lambda t: tk.encode(t, add_special_tokens=False).ids))
    return out


@pytest.mark.slow
def test_corners_and_corpora_as_the_libraries(tmp_path_factory, hard_texts):
    """ids equal tiktoken's / tokenizers' on every corner and corpus; encode_to_array
    holds the same ids; encode_batch over the lines equals encode line by line."""
    for name, ours, want_of in _three_kinds(tmp_path_factory):
        assert ours.pipeline.whole_text_encoder is not None, name
        for label, text in hard_texts.items():
            got = ours.encode(text, allowed_special="all")
            assert got == want_of(text), (name, label)
            assert ours.encode_to_array(text, allowed_special="all").tolist() == got, (name, label)
            lines = text.splitlines(keepends=True)[:300]
            assert ours.encode_batch(lines, threads=2, allowed_special="all") == [want_of(t) for t in lines], (name, label)


def test_long_texts_by_chunks_as_tiktoken(tmp_path_factory, corpora_dir):
    """A long str that is not ASCII goes to UTF-8 65,536 characters at a time, each chunk
    encoded up to a safe cut and the rest carried on: special tokens across the chunks'
    edges, a word longer than a chunk (no cut in it), runs of spaces, 1-, 2- and 4-byte
    strs, and a lone surrogate far in, as tiktoken."""
    from bpe_gui.engine.tokenizers._encode import ENC_CHUNK
    specials = {"<|endoftext|>": 1000, "<|x|>": 1001}
    ours, enc = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, specials)
    real = _real_texts(corpora_dir, 200_000)
    english = real["en-tinyshakespeare.txt.xz"]
    chinese = next(t for name, t in real.items() if name.startswith("zh"))
    bases = {"latin-1": english.replace("e", "\u00e9", 500), "ucs-2": chinese,
             "ucs-4": english.replace(" ", " \U0001f600 ", 300)}
    for name, base in bases.items():
        text = (base * (4 * ENC_CHUNK // len(base) + 2))[:4 * ENC_CHUNK + 77]
        # special tokens around each chunk's end, and one split by it
        for k in (1, 2, 3):
            at = k * ENC_CHUNK - 5 - k
            text = text[:at] + "<|endoftext|>" + text[at:]
        cases = [text, text.replace("<|x|>", ""), text[:ENC_CHUNK * 2 + 1],
                 text[:ENC_CHUNK] + "a" * (ENC_CHUNK + 999) + text[ENC_CHUNK:],
                 text[:ENC_CHUNK - 100] + " " * (3 * ENC_CHUNK) + text[ENC_CHUNK:],
                 text[:ENC_CHUNK * 2] + "<|x|>" * 30 + text[ENC_CHUNK * 2:]]
        for t in cases:
            assert not t.isascii()
            want = enc.encode(t, allowed_special="all")
            assert ours.encode(t, allowed_special="all") == want, name
            assert ours.encode_to_array(t, allowed_special="all").tolist() == want, name
    bad = text[:3 * ENC_CHUNK + 5] + "\ud800" + text[3 * ENC_CHUNK + 5:]
    with pytest.raises(UnicodeEncodeError):
        ours.pipeline.whole_text_encoder.encode(bad)
    assert ours.encode(bad, allowed_special="all") == enc.encode(bad, allowed_special="all")


@pytest.mark.slow
def test_a_text_of_megabytes_as_the_libraries(tmp_path_factory, hard_texts):
    """A text of over 1 MiB (every corner and corpus, twice) takes the long-text path: its
    ids in one block made at once, in huge pages: ids, array and the list built from the
    end as the libraries' (and encode_batch of two such texts)."""
    text = "".join(hard_texts.values()) * 2
    assert len(text.encode("utf-8")) > 1 << 20
    for name, ours, want_of in _three_kinds(tmp_path_factory):
        want = want_of(text)
        assert ours.encode(text, allowed_special="all") == want, name
        assert ours.encode_to_array(text, allowed_special="all").tolist() == want, name
        assert ours.encode_batch([text, text[1:]], threads=2, allowed_special="all") == [want, want_of(text[1:])], name


def test_a_texts_first_words_stay_cached_while_newer_ones_come_and_go(tmp_path_factory):
    """A full set of the shared cache keeps the word it got first and lets newcomers take
    turns in its other slot (a text's frequent words come early); a word pushed out goes
    to a victim set. Before, each newcomer pushed the older of the two out, and frequent
    words sharing a set pushed each other out over and over. Here: 60 words, then 6,000
    others in a cache of 4,096 slots (three newcomers a set): most of the 60 are still
    there, where the old rule kept about one in five. One newcomer in 32 does move to the
    front, the cache's way back from words no longer in use: after 50,000 more, most of
    the 60 have gone. The ids stay exact throughout."""
    ours, enc = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, {})
    cache = _encode.Encoder(ours.pipeline.merger, PRESET_IDS["cl100k"], cache_words=4096)
    rng = random.Random(29)
    letters = "abcdefghijklmnopqrstuvwxyz"
    # (words of up to 6 bytes: at most 6 ids, the most a slot holds)
    words = list(dict.fromkeys(" " + "".join(rng.choice(letters) for _ in range(rng.randint(3, 5)))
                               for _ in range(60_000)))
    first, later = words[:60], words[60:6060]
    for w in first:
        assert cache.encode(w) == enc.encode_ordinary(w)
    assert all(cache.holds(w.encode()) for w in first)
    text = "".join(later)
    assert cache.encode(text) == enc.encode_ordinary(text)
    kept = sum(cache.holds(w.encode()) for w in first)
    assert kept >= 50, f"only {kept} of the first 60 words are still cached"
    assert not cache.holds(b" not a word of the texts at all")
    with pytest.raises(TypeError, match="expected bytes, got str"):
        cache.holds(first[0])
    again = "".join(first + later[:500])
    assert cache.encode(again) == enc.encode_ordinary(again)
    # nor do they hold their sets for ever: ~24 newcomers a set later, most have gone.
    # (Words of a text that come back: each run of 300 new words said three times. Words
    # that never come back are mostly not stored at all, and leave the cache as it was:
    # see the next test.)
    newer = words[6060:]
    rest = "".join("".join(newer[i:i + 300]) * 3 for i in range(0, len(newer), 300))
    assert cache.encode(rest) == enc.encode_ordinary(rest)
    left = sum(cache.holds(w.encode()) for w in first)
    assert left <= 30, f"{left} of the first 60 words still cached after {len(newer)} others"


def test_words_that_never_come_back_mostly_stay_out_of_the_cache(tmp_path_factory):
    """A text whose words do not repeat (random letters, random Unicode) gains nothing
    from the shared cache and paid for every word it stored (the stores, the pages they
    first touch, a word pushed out for each). After a window of 1,024 merged words of
    which few were found, a merged word is stored only when it comes back, and one in 8
    besides; a text whose words do repeat is stored in full again. The ids stay exact
    throughout, and every thread's scratch keeps its own count."""
    ours, enc = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, {})
    cache = _encode.Encoder(ours.pipeline.merger, PRESET_IDS["cl100k"], cache_words=1 << 16)
    rng = random.Random(41)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = list(dict.fromkeys(" " + "".join(rng.choice(letters) for _ in range(rng.randint(3, 5)))
                               for _ in range(40_000)))
    once, twice = words[:20_000], words[20_000:26_000]
    text = "".join(once)
    assert cache.encode(text) == enc.encode_ordinary(text)
    stored = cache.cached_words
    # all of the first window, then about one in 8 (a set's second word may be pushed
    # out to a victim set, which cached_words does not count: never more than stored)
    assert stored <= 1024 + len(once) // 6, f"{stored} of {len(once)} words that never came back were stored"
    assert stored >= 1024 // 2
    assert cache.encode(text) == enc.encode_ordinary(text)   # (some found now, the rest merged)
    # words said again soon after are stored, and the rate that turned storing down turns
    # it up again: runs of 300 new words, each run three times
    again = "".join("".join(twice[i:i + 300]) * 3 for i in range(0, len(twice), 300))
    assert cache.encode(again) == enc.encode_ordinary(again)
    held = sum(cache.holds(w.encode()) for w in twice)
    assert held >= 0.9 * len(twice), f"only {held} of {len(twice)} words that came back are cached"
    # a fresh encoder stores a text of words that repeat in full from its first word
    fresh = _encode.Encoder(ours.pipeline.merger, PRESET_IDS["cl100k"], cache_words=1 << 16)
    assert fresh.encode(again) == enc.encode_ordinary(again)
    assert sum(fresh.holds(w.encode()) for w in twice) >= 0.9 * len(twice)


@pytest.mark.slow
@pytest.mark.parametrize("cache_words", [16, 4096])
def test_shared_cache_under_threads_equals_one_thread(tmp_path_factory, hard_texts, cache_words):
    """Six threads encode different texts (every script, every corner) at once through one
    encoder whose shared cache is tiny (each set overwritten by other threads' words all
    the time) or roomy; each gets the ids a fresh encoder gives on one thread, which are
    tiktoken's."""
    ours, enc = _tiktoken_pair(tmp_path_factory, known.O200K_PATTERN, {"<|endoftext|>": 1000})
    merger = ours.pipeline.merger
    pieces = [text[i:i + 3000] + ("<|endoftext|>" if i % 2 else "")
              for text in hard_texts.values() for i in range(0, min(len(text), 30_000), 3000)]
    oracle = _encode.Encoder(merger, PRESET_IDS["o200k"], specials={"<|endoftext|>": 1000})
    want = [oracle.encode(t) for t in pieces]
    assert want == [enc.encode(t, allowed_special="all") for t in pieces]

    shared = _encode.Encoder(merger, PRESET_IDS["o200k"], specials={"<|endoftext|>": 1000},
                             cache_words=cache_words)
    n = 6
    start = threading.Barrier(n)
    wrong: list = []

    def work(k: int) -> None:
        start.wait()
        for rnd in range(2):
            for i in range(k, len(pieces), n):
                try:
                    got = shared.encode(pieces[i]) if (i + rnd) % 2 else \
                        shared.encode_to_array(pieces[i]).tolist()
                except BaseException as e:  # noqa: BLE001 - reported on the main thread
                    wrong.append((i, repr(e)))
                    continue
                if got != want[i]:
                    wrong.append((i, len(got), len(want[i])))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
    assert 0 < shared.cached_words <= cache_words
    # and the native batch, its threads sharing the same cache
    assert shared.encode_batch(pieces, 4) == want
    assert [a.tolist() for a in shared.encode_batch(pieces, 3, as_array=True)] == want


def test_special_tokens_of_one_and_two_bytes_at_every_place(tmp_path_factory):
    """The encoder looks a place up among the special tokens only when its first two bytes
    begin one (or its byte is a one-byte token): one- and two-byte tokens, tokens at a
    text's last byte, and near misses ("<", "<|", "@") against tiktoken."""
    n = 1000
    specials = {"~": n, "@@": n + 1, "<|end|>": n + 2, "\u00e9\u00e9": n + 3}
    ours, enc = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, specials)
    assert ours.pipeline.whole_text_encoder is not None
    bits = ["~", "§", "@@", "@", "<|end|>", "<|end", "<|", "<", "éé", "é", " x", "int a<b;", "\n"]
    rng = random.Random(7)
    texts = ["".join(rng.choice(bits) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    texts += bits
    for t in texts:
        assert ours.encode(t, allowed_special="all") == enc.encode(t, allowed_special="all"), t
    joined = "".join(texts)
    assert ours.encode(joined, allowed_special="all") == enc.encode(joined, allowed_special="all")


def test_a_long_texts_list_is_made_where_its_ids_were_written(tmp_path_factory):
    """A text of 256 KB or more gets its list in the block its ids were written to (the
    ids become their objects in place, from the last): ASCII, 1-, 2- and 4-byte strs, with
    special tokens, as tiktoken; the list is a list like any other (it grows, shrinks,
    outlives the tokenizer); a lone surrogate far in raises and leaves the encoder as it
    was; threads each get their own block."""
    import gc
    import sys
    specials = {"<|endoftext|>": 1000}
    ours, enc = _tiktoken_pair(tmp_path_factory, known.CL100K_PATTERN, specials)
    native = ours.pipeline.whole_text_encoder
    rng = random.Random(11)
    words = ["the", " cat", " 42", "\n\n", " é", " Привет", " 你好", " \U0001f600", "<|endoftext|>",
             "    ", " x" * 3]
    base = "".join(rng.choice(words) for _ in range(120_000))
    ucs2 = base.replace("\U0001f600", "")
    texts = {"ascii": base.encode("ascii", "ignore").decode(),
             "latin-1": ucs2.replace("Привет", "").replace("你好", ""),
             "ucs-2": ucs2, "ucs-4": base}
    for name, text in texts.items():
        assert len(text.encode("utf-8")) >= 1 << 18, name
        want = enc.encode(text, allowed_special="all")
        got = native.encode(text)
        assert type(got) is list and got == want, name
        assert ours.encode_to_array(text, allowed_special="all").tolist() == want, name
        got.append(7)
        got.extend(range(1000))
        del got[:500]
        got.sort()
        assert len(got) == len(want) + 1001 - 500 and sys.getsizeof(got) > 8 * len(got)
    bad = texts["ucs-4"][:200_000] + "\ud800" + texts["ucs-4"][200_000:]
    with pytest.raises(UnicodeEncodeError):
        native.encode(bad)
    assert native.encode(" hello world") == enc.encode(" hello world")
    assert native.encode(texts["ascii"]) == enc.encode(texts["ascii"], allowed_special="all")
    results: dict[int, list] = {}
    names = list(texts)

    def work(encode, k: int) -> None:
        results[k] = encode(texts[names[k % 4]])

    threads = [threading.Thread(target=work, args=(native.encode, k)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, got in results.items():
        assert got == enc.encode(texts[names[k % 4]], allowed_special="all"), k
    kept = native.encode(texts["ucs-2"])
    del ours, native
    results.clear()
    gc.collect()
    assert kept == enc.encode(texts["ucs-2"], allowed_special="all")
