"""Rank-based long words cut where no token can cross (csrc/merge/token_boundaries.c) give tiktoken's ids.

The engine cuts a word of non-ASCII letters (a Chinese clause) at the positions no token
of the vocabulary spans and merges each piece alone; whether a token spans a position is
read from bit tables of the 2-5 byte strings inside tokens. A wrong table or a wrong
window near a word's ends would cut through a token and change the ids. Here the
vocabulary is trained on Chinese and other scripts, plus extra tokens cut from the text at
random byte offsets (2-9 bytes, across characters and inside them, as tiktoken allows
tokens no merge makes), and every text is compared with ``tiktoken`` on the same ranks.
"""
from __future__ import annotations

import json
import lzma
import random
from pathlib import Path

import pytest

tiktoken = pytest.importorskip("tiktoken")

import tiktoken_files as tti  # noqa: E402  (the .tiktoken writer)

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.formats import known_encodings as known  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "corpora"


def _texts() -> tuple[str, str]:
    with lzma.open(FIXTURES / "zh-four-classic-novels.txt.xz", "rt", encoding="utf-8") as f:
        zh = f.read(40_000)
    demo = (FIXTURES / "multi-utf8-demo.txt").read_text("utf-8")
    return zh, demo


def _ranks(text: str, seed: int) -> dict[bytes, int]:
    t = Trainer.from_text(text, TrainSettings(vocab_size=1500, pattern="cl100k"))
    t.run()
    tok = t.tokenizer()
    ranks = {tok.vocab[i]: i for i in sorted(tok.vocab) if i not in tok.special_ids.values()}
    data = text.encode("utf-8")
    rng = random.Random(seed)
    for _ in range(3000):   # byte strings across and inside characters, 2-9 bytes
        a = rng.randrange(len(data) - 9)
        ranks.setdefault(data[a:a + rng.randint(2, 9)], len(ranks))
    return ranks


@pytest.fixture(scope="module", params=["cl100k", "o200k"])
def pair(request, tmp_path_factory):
    zh, demo = _texts()
    pattern = known.CL100K_PATTERN if request.param == "cl100k" else known.O200K_PATTERN
    ranks = _ranks(zh[:20_000] + demo, seed=len(request.param))
    d = tmp_path_factory.mktemp("cut")
    path = tti.ranks_file(d, ranks, "cut.tiktoken")
    (d / "cut.tiktoken.json").write_text(json.dumps({"pat_str": pattern, "special_tokens": {}}))
    enc = tiktoken.Encoding("cut", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    return load_tokenizer(path), enc, zh, demo


def test_texts(pair):
    ours, enc, zh, demo = pair
    for text in (zh, demo):
        assert ours.encode(text) == enc.encode_ordinary(text)
        assert b"".join(ours.encode_with_offsets(text).tokens) == text.encode("utf-8")


def test_random_words(pair):
    """Words of 3-60 characters drawn from the texts' letters, each encoded alone (its
    first and last bytes are where the windows are cut short)."""
    ours, enc, zh, demo = pair
    letters = sorted({c for c in zh + demo if c.isalpha() and ord(c) > 127})
    rng = random.Random(7)
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 60)))
             for _ in range(3000)]
    assert [ours.encode(w) for w in words] == [enc.encode_ordinary(w) for w in words]
    text = " ".join(words)
    assert ours.encode(text) == enc.encode_ordinary(text)


def test_the_cache_of_pieces_grows(pair):
    """A scratch's cache of pieces starts small and takes the large table once 16,384
    pieces went in (token_boundaries.c, PIECE_GROW): words of random Han characters, each
    piece new, enough for several thousand pieces past the switch (counted once in a
    build that printed them), then words that come back, as tiktoken encodes them."""
    ours, enc, zh, demo = pair
    letters = sorted({c for c in zh if "\u4e00" <= c <= "\u9fff"})
    rng = random.Random(19)
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 40)))
             for _ in range(8000)]
    text = " ".join(words + words[:2000])
    assert ours.encode(text) == enc.encode_ordinary(text)


# ----- tokenizer.json: merge-based files get the same cut (every merge makes a token) -----
tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Regex, decoders, models, pre_tokenizers, trainers  # noqa: E402


def _hf_file(d: Path, text: str, shuffle_ids: bool) -> Path:
    """A ByteLevel BPE trained by tokenizers on the text; shuffle_ids: the same merges
    with the token ids permuted, so merge order no longer follows the ids (the file is
    not rank-consistent: only the merge list says what merges first)."""
    tk = tokenizers.Tokenizer(models.BPE(ignore_merges=False))
    tk.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(known.LLAMA3_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tk.decoder = decoders.ByteLevel()
    tk.train_from_iterator([text], trainers.BpeTrainer(
        vocab_size=1500, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = d / ("shuffled.json" if shuffle_ids else "tokenizer.json")
    tk.save(str(path))
    if shuffle_ids:
        data = json.loads(path.read_text("utf-8"))
        vocab = data["model"]["vocab"]
        ids = list(vocab.values())
        random.Random(5).shuffle(ids)
        data["model"]["vocab"] = dict(zip(vocab, ids))
        path.write_text(json.dumps(data), "utf-8")
    return path


@pytest.mark.parametrize("shuffle_ids", [False, True], ids=["trained", "ids-shuffled"])
def test_tokenizer_json_cut(tmp_path, shuffle_ids):
    zh, demo = _texts()
    path = _hf_file(tmp_path, zh[:20_000] + demo, shuffle_ids)
    ours, hf = load_tokenizer(path), tokenizers.Tokenizer.from_file(str(path))
    letters = sorted({c for c in zh + demo if c.isalpha() and ord(c) > 127})
    rng = random.Random(11)
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 60))) for _ in range(2000)]
    for text in (zh, demo, " ".join(words)):
        assert ours.encode(text) == hf.encode(text, add_special_tokens=False).ids
    assert [ours.encode(w) for w in words[:500]] == \
        [e.ids for e in hf.encode_batch(words[:500], add_special_tokens=False)]


# ----- random Unicode: words of 4-byte characters, cut by the byte windows -----
# (the bench's random-Unicode corner: most bytes of such characters are in no token but
# their own byte, so nearly every piece is one byte, taken without merging; pieces of two
# bytes take their one pair from the byte-pair table. Most characters go one at a time:
# the place after each settled by the tables of windows across a lead byte, its last byte
# alone by its prefix's joins. The random tokens below hold such windows of 2-6 bytes,
# whole characters, their ends with a space before: leaving out any one kind of them from
# those tables fails these tests.)

def _unicode_text(seed: int, n: int) -> str:
    import unicodedata
    rng = random.Random(seed)
    chars: list[str] = []
    while len(chars) < 4000:
        c = rng.randrange(0x20, 0x32400)
        if 0xD800 <= c < 0xF900:
            continue
        if unicodedata.category(chr(c)) not in ("Cn", "Co", "Cs"):
            chars.append(chr(c))
    return "".join("".join(rng.choice(chars) for _ in range(rng.randint(1, 12)))
                   + rng.choice([" ", " ", "\n", ""]) for _ in range(n))


def _unicode_ranks(text: str, seed: int, early: bool) -> dict[bytes, int]:
    """Single bytes, then strings cut from the text at random byte offsets (2-6 bytes:
    parts of characters, across them, whole ones), in random order; `early` puts a few
    before some single bytes' neighbours in rank (ranks need not follow lengths)."""
    data = text.encode("utf-8")
    rng = random.Random(seed)
    extra = list(dict.fromkeys(data[a:a + rng.randint(2, 6)]
                               for a in (rng.randrange(len(data) - 6) for _ in range(6000))))
    rng.shuffle(extra)
    order = [bytes([i]) for i in range(256)]
    if early:
        order = order[:128] + extra[:300] + order[128:] + extra[300:]
    else:
        order += extra
    return {t: r for r, t in enumerate(dict.fromkeys(order))}


@pytest.mark.parametrize("early", [False, True], ids=["late", "early"])
@pytest.mark.parametrize("pattern", ["cl100k", "o200k"])
def test_random_unicode_tiktoken(tmp_path, pattern, early):
    text = _unicode_text(3, 3000)
    ranks = _unicode_ranks(text, 4, early)
    pat = known.CL100K_PATTERN if pattern == "cl100k" else known.O200K_PATTERN
    path = tti.ranks_file(tmp_path, ranks, "uni.tiktoken")
    (tmp_path / "uni.tiktoken.json").write_text(json.dumps({"pat_str": pat, "special_tokens": {}}))
    enc = tiktoken.Encoding("uni", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    ours = load_tokenizer(path)
    other = _unicode_text(5, 3000)   # the same characters' bytes, other words
    for t in (text, other):
        assert ours.encode(t) == enc.encode_ordinary(t)
    words = other.split()
    assert [ours.encode(w) for w in words[:1500]] == [enc.encode_ordinary(w) for w in words[:1500]]


def test_random_unicode_tokenizer_json(tmp_path):
    text = _unicode_text(6, 4000)
    path = _hf_file(tmp_path, text, False)
    ours, hf = load_tokenizer(path), tokenizers.Tokenizer.from_file(str(path))
    other = _unicode_text(7, 3000)
    for t in (text, other):
        assert ours.encode(t) == hf.encode(t, add_special_tokens=False).ids
    words = other.split()[:1000]
    assert [ours.encode(w) for w in words] == \
        [e.ids for e in hf.encode_batch(words, add_special_tokens=False)]


def test_words_read_in_a_frame(tmp_path):
    """A word of up to 248 bytes is searched for cuts in a copy framed by bytes 0xFF, so
    that its first and last places are read as inner ones (token_boundaries.c,
    next_cut_padded). A window over the frame must settle nothing the word's own do not:
    here the vocabulary even has tokens with 0xFF beside the text's bytes (no UTF-8 text
    holds them; a file may), and words of 1-80 characters, some longer than the frame,
    are encoded alone and in a text, as tiktoken does."""
    text = _unicode_text(11, 3000)
    ranks = _unicode_ranks(text, 12, False)
    rng = random.Random(13)
    data = text.encode("utf-8")
    for _ in range(300):   # tokens of a frame byte and the text's bytes, either side
        a = rng.randrange(len(data) - 3)
        piece = data[a:a + rng.randint(1, 3)]
        for t in (b"\xff" + piece, piece + b"\xff", b"\xff" + piece + b"\xff"):
            ranks.setdefault(t, len(ranks))
    pat = known.CL100K_PATTERN
    path = tti.ranks_file(tmp_path, ranks, "framed.tiktoken")
    (tmp_path / "framed.tiktoken.json").write_text(json.dumps({"pat_str": pat, "special_tokens": {}}))
    enc = tiktoken.Encoding("framed", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    ours = load_tokenizer(path)
    letters = [c for c in _unicode_text(14, 2000) if c.isalpha() and ord(c) > 0x7FF]
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 80))) for _ in range(1500)]
    assert any(len(w.encode("utf-8")) > 248 for w in words)
    assert [ours.encode(w) for w in words] == [enc.encode_ordinary(w) for w in words]
    joined = " ".join(words)
    assert ours.encode(joined) == enc.encode_ordinary(joined)


def _short_words(seed: int, n: int) -> list[str]:
    """Words of one or two characters of 3 and 4 bytes, alone or after an ASCII byte
    (" 𠀀", "-中", "𠀀𠀁", " 中𠀀": token_boundaries.c's short_word), and words that start
    with a letter of 2 bytes before ones of 3 and 4 (cut when the last character has 3
    or 4 bytes), from the random text's characters."""
    chars = sorted(set(_unicode_text(seed, 2000)))
    wide = [c for c in chars if ord(c) > 0x7FF]
    two = [c for c in chars if 0x80 <= ord(c) <= 0x7FF]
    rng = random.Random(seed)
    words = []
    for _ in range(n):
        kind = rng.randrange(4)
        if kind == 0:
            w = "".join(rng.choice(wide) for _ in range(rng.randint(1, 2)))
        elif kind == 1:
            w = rng.choice(" -'(") + "".join(rng.choice(wide) for _ in range(rng.randint(1, 2)))
        elif kind == 2:
            w = rng.choice(two) + "".join(rng.choice(wide) for _ in range(rng.randint(2, 8)))
        else:
            w = "".join(rng.choice(wide) for _ in range(rng.randint(2, 8))) + rng.choice(two)
        words.append(w)
    return words


@pytest.mark.parametrize("early", [False, True], ids=["late", "early"])
def test_short_words_tiktoken(tmp_path, early):
    """Each word alone and in a text, against tiktoken, with tokens cut from those very
    words (whole characters, a character's last bytes with the ASCII byte before it,
    windows across two characters), so that the cuts and lone last bytes the short path
    relies on are often not there."""
    words = _short_words(21, 3000)
    text = _unicode_text(21, 2000) + "".join(words[:1000])
    ranks = _unicode_ranks(text, 22, early)
    pat = known.CL100K_PATTERN
    path = tti.ranks_file(tmp_path, ranks, "short.tiktoken")
    (tmp_path / "short.tiktoken.json").write_text(json.dumps({"pat_str": pat, "special_tokens": {}}))
    enc = tiktoken.Encoding("short", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    ours = load_tokenizer(path)
    assert [ours.encode(w) for w in words] == [enc.encode_ordinary(w) for w in words]
    joined = "\n".join(words)
    assert ours.encode(joined) == enc.encode_ordinary(joined)


def test_short_words_tokenizer_json(tmp_path):
    words = _short_words(23, 3000)
    path = _hf_file(tmp_path, _unicode_text(23, 3000) + "".join(words[:1500]), False)
    ours, hf = load_tokenizer(path), tokenizers.Tokenizer.from_file(str(path))
    assert [ours.encode(w) for w in words] == \
        [e.ids for e in hf.encode_batch(words, add_special_tokens=False)]
    joined = "\n".join(words)
    assert ours.encode(joined) == hf.encode(joined, add_special_tokens=False).ids
