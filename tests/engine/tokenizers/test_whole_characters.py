"""Words of 3-byte characters (Han, kana, Hangul) cut by character and merged from their
characters' tokens (csrc/merge/token_boundaries.c, "whole characters") give the reference
library's ids, on vocabularies built to break each rule the engine relies on.

The engine cuts between two characters only when no token crosses their boundary (a token
holding both whole, or starting with the end of one, or ending with the start of the
other), and starts a piece from a character's token instead of its three bytes only when
that character's bytes alone merge into it, no token cuts it where it stands, and no
merge using its token ranks at or below its own merges. Each vocabulary here adds tokens
that break one of these for characters of the text, with ranks among the earliest and the
latest, and the texts are encoded by ``tiktoken`` / ``tokenizers`` on the same files.
"""
from __future__ import annotations

import json
import lzma
import random
from pathlib import Path

import pytest

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")

import tiktoken_files as tti  # noqa: E402  (the .tiktoken writer)
from tokenizers import Regex, decoders, models, pre_tokenizers, trainers  # noqa: E402

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.formats import known_encodings as known  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "corpora"


def _zh() -> str:
    with lzma.open(FIXTURES / "zh-four-classic-novels.txt.xz", "rt", encoding="utf-8") as f:
        return f.read(30_000)


def _awkward(text: str, rng: random.Random, n: int) -> list[bytes]:
    """Byte strings around the boundaries of the text's 3-byte characters: two characters
    side by side; the last 1-2 bytes of one and the next whole (L); one whole and the first
    1-2 bytes of the next (R), also after a space; the last bytes of one and the first of
    the next (D); three characters."""
    chars = [c for c in text if len(c.encode("utf-8")) == 3]
    out = []
    for _ in range(n):
        i = rng.randrange(len(chars) - 3)
        a, b, c = (x.encode("utf-8") for x in chars[i:i + 3])
        k, j = rng.randint(1, 2), rng.randint(1, 2)
        out.append(rng.choice([a + b, a[-k:] + b, a + b[:j], b" " + b[:j], a[-k:] + b[:j],
                               a + b + c, a[-k:] + b + c]))
    return out


def _words(text: str, seed: int) -> list[str]:
    letters = sorted({c for c in text if len(c.encode("utf-8")) == 3 and c.isalpha()})
    rng = random.Random(seed)
    return [rng.choice(["", " ", "「"]) + "".join(rng.choice(letters) for _ in range(rng.randint(2, 40)))
            for _ in range(1500)]


@pytest.fixture(scope="module")
def zh() -> str:
    return _zh()


@pytest.mark.parametrize("early", [0.0, 0.5, 1.0], ids=["late", "mixed", "early"])
def test_tiktoken_awkward_ranks(tmp_path, zh, early):
    """A .tiktoken whose awkward tokens rank before (early) or after (late) the tokens of
    the characters themselves: before, a merge with a character's token ranks below the
    character's own merges, and the character must not be merged first."""
    rng = random.Random(int(early * 10) + 3)
    # the text's characters: some whole, with their first or last two bytes or both (so
    # alone they make one, two or three tokens)
    trained: list[bytes] = []
    seen: set[bytes] = set()
    for ch in zh:
        b = ch.encode("utf-8")
        if len(b) == 3 and b not in seen:
            seen.add(b)
            parts = rng.choice([(b[:2], b[1:], b), (b[:2], b), (b[1:], b), (b[:2],), (b[1:],), ()])
            trained += [t for t in parts if t not in trained[-3:]]
    seen = set(trained)
    extra = [t for t in dict.fromkeys(_awkward(zh, rng, 3000)) if t not in seen]
    order: list[bytes] = [bytes([i]) for i in range(256)]
    for t in trained:   # the extra tokens among the first (early) or after all (late)
        while extra and rng.random() < early:
            order.append(extra.pop())
        order.append(t)
    order += extra
    ranks = {t: r for r, t in enumerate(dict.fromkeys(order))}
    path = tti.ranks_file(tmp_path, ranks, "awkward.tiktoken")
    (tmp_path / "awkward.tiktoken.json").write_text(
        json.dumps({"pat_str": known.CL100K_PATTERN, "special_tokens": {}}))
    enc = tiktoken.Encoding("awkward", pat_str=known.CL100K_PATTERN, mergeable_ranks=ranks,
                            special_tokens={})
    ours = load_tokenizer(path)
    words = _words(zh, 5)
    assert [ours.encode(w) for w in words] == [enc.encode_ordinary(w) for w in words]
    for text in (zh, " ".join(words), "".join(words)):
        assert ours.encode(text) == enc.encode_ordinary(text)
    # the spans too: each token's bytes are its own (characters merged alone included)
    r = ours.encode_with_offsets(zh)
    assert r.tokens == [enc.decode_single_token_bytes(i) for i in r.ids]


def _bytes_to_unicode() -> dict[int, str]:
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


@pytest.mark.parametrize("where", ["first", "random", "last"])
def test_tokenizer_json_awkward_merges(tmp_path, zh, where):
    """A ByteLevel tokenizer.json trained by tokenizers, plus merges that make awkward
    tokens (L, R, D, pairs of characters) inserted first, at random places, or last in
    the merge list: a merge of a character's token placed before the character's own
    merges forbids merging that character first."""
    tk = tokenizers.Tokenizer(models.BPE(ignore_merges=False))
    tk.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(known.LLAMA3_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tk.decoder = decoders.ByteLevel()
    tk.train_from_iterator([zh], trainers.BpeTrainer(
        vocab_size=1200, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))
    data = json.loads(path.read_text("utf-8"))
    vocab: dict[str, int] = data["model"]["vocab"]
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in data["model"]["merges"]]
    u = _bytes_to_unicode()
    s = lambda b: "".join(u[x] for x in b)  # noqa: E731
    rng = random.Random(len(where))
    added = []
    for t in _awkward(zh, rng, 4000):
        # split it into two parts that are tokens (single bytes always are)
        cuts = [i for i in range(1, len(t)) if s(t[:i]) in vocab and s(t[i:]) in vocab]
        if not cuts or s(t) in vocab:
            continue
        i = rng.choice(cuts)
        vocab[s(t)] = len(vocab)
        added.append((s(t[:i]), s(t[i:])))
    assert len(added) > 300
    for pair in added:
        pos = {"first": 0, "last": len(merges), "random": rng.randrange(len(merges) + 1)}[where]
        merges.insert(pos, pair)
    data["model"]["merges"] = [list(m) for m in merges]
    path.write_text(json.dumps(data), "utf-8")
    ours, hf = load_tokenizer(path), tokenizers.Tokenizer.from_file(str(path))
    words = _words(zh, 9)
    assert [ours.encode(w) for w in words] == \
        [e.ids for e in hf.encode_batch(words, add_special_tokens=False)]
    for text in (zh, " ".join(words)):
        assert ours.encode(text) == hf.encode(text, add_special_tokens=False).ids
    r, e = ours.encode_with_offsets(zh), hf.encode(zh, add_special_tokens=False)
    assert r.ids == e.ids and r.offsets == e.offsets
