"""Long runs of ASCII whitespace (spaces, tabs, newlines, \\r, \\v, \\f) give the reference
libraries' ids: merged in the flat loop up to 1024 bytes, by the reference merge past it.
The vocabularies here hold many mixed whitespace tokens (trained on runs,
plus random whitespace strings that no merge makes, as tiktoken allows), and the texts
are runs of every mix and length, compared with ``tiktoken`` / ``tokenizers`` building
the same tokenizer.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")

import tiktoken_files as tti  # noqa: E402  (the .tiktoken writer)
from tokenizers import Regex, decoders, models, pre_tokenizers, trainers  # noqa: E402

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.formats import known_encodings as known  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402

WS = " \t\n\r\x0b\x0c"


def _run(rng: random.Random, k: int) -> str:
    mode = rng.randrange(5)
    if mode == 0:   # mostly spaces (the bench's corner)
        return "".join(rng.choice(" \t\n") if rng.random() < 0.3 else " " for _ in range(k))
    if mode == 1:   # every whitespace byte
        return "".join(rng.choice(WS) for _ in range(k))
    if mode == 2:   # indentation: newline, then spaces or tabs
        return "".join("\n" + rng.choice(" \t") * rng.randint(0, 16) for _ in range(k // 8 + 1))[:k]
    if mode == 3:   # one byte repeated, once broken
        s = [rng.choice(WS)] * k
        s[rng.randrange(k)] = rng.choice(WS)
        return "".join(s)
    return "\r\n" * (k // 2)


def _text(seed: int, n: int, hi: int = 700) -> str:
    rng = random.Random(seed)
    return "".join(_run(rng, rng.randint(1, hi)) + rng.choice(["x", "word", "if", "}", "42", "été", ""])
                   for _ in range(n))


def _runs(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [_run(rng, rng.randint(24, 400)) for _ in range(n)]


def _ranks(seed: int) -> dict[bytes, int]:
    t = Trainer.from_text(_text(seed, 300, 80) + tti.CORPUS,
                          TrainSettings(vocab_size=700, pattern="cl100k"))
    t.run()
    tok = t.tokenizer()
    ranks = {tok.vocab[i]: i for i in sorted(tok.vocab) if i not in tok.special_ids.values()}
    rng = random.Random(seed)
    for _ in range(400):   # whitespace strings of 2-40 bytes: some no merge makes
        k = rng.randint(2, 40)
        ranks.setdefault("".join(rng.choice(WS) for _ in range(k)).encode(), len(ranks))
    for k in range(2, 65):   # runs of one byte, as the published files have
        for c in " \t\n":
            ranks.setdefault((c * k).encode(), len(ranks))
    return ranks


@pytest.fixture(scope="module", params=["cl100k", "o200k"])
def tiktoken_pair(request, tmp_path_factory):
    pattern = known.CL100K_PATTERN if request.param == "cl100k" else known.O200K_PATTERN
    ranks = _ranks(seed=len(request.param))
    d = tmp_path_factory.mktemp("ws")
    path = tti.ranks_file(d, ranks, "ws.tiktoken")
    (d / "ws.tiktoken.json").write_text(json.dumps({"pat_str": pattern, "special_tokens": {}}))
    enc = tiktoken.Encoding("ws", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    return load_tokenizer(path), enc


def test_tiktoken_texts(tiktoken_pair):
    ours, enc = tiktoken_pair
    for seed in range(3):
        text = _text(100 + seed, 300)
        assert ours.encode(text) == enc.encode_ordinary(text)


def test_tiktoken_runs_alone(tiktoken_pair):
    """Each run a text of its own: one word (the pattern's \\s+ and \\s*[\\r\\n]+ cut
    it at most once), its first and last bytes where the cuts begin and end."""
    ours, enc = tiktoken_pair
    runs = _runs(5, 1500)
    assert [ours.encode(r) for r in runs] == [enc.encode_ordinary(r) for r in runs]


def test_tiktoken_giant_run(tiktoken_pair):
    ours, enc = tiktoken_pair
    rng = random.Random(9)
    text = "a" + "".join(_run(rng, 5000) for _ in range(4)) + "b"
    assert ours.encode(text) == enc.encode_ordinary(text)


def _hf_file(d: Path, seed: int) -> Path:
    """A ByteLevel BPE trained by tokenizers on whitespace runs (Llama 3's pattern)."""
    tk = tokenizers.Tokenizer(models.BPE(ignore_merges=False))
    tk.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(known.LLAMA3_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tk.decoder = decoders.ByteLevel()
    tk.train_from_iterator([_text(seed, 400, 90), tti.CORPUS], trainers.BpeTrainer(
        vocab_size=1200, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = d / "tokenizer.json"
    tk.save(str(path))
    return path


def test_tokenizer_json(tmp_path):
    path = _hf_file(tmp_path, 3)
    ours, hf = load_tokenizer(path), tokenizers.Tokenizer.from_file(str(path))
    for text in (_text(200, 300), _text(201, 40, 5000)):
        assert ours.encode(text) == hf.encode(text, add_special_tokens=False).ids
    runs = _runs(6, 1000)
    assert [ours.encode(r) for r in runs] == \
        [e.ids for e in hf.encode_batch(runs, add_special_tokens=False)]


def test_trained_tokenizer_and_its_steps():
    """A tokenizer trained here, whose merge table grows with the steps: encoded early
    (the symbols of whitespace then are few; enough runs that the engine works them out),
    after more steps (new merges make new symbols: what was worked out before must be
    forgotten) and as of an earlier step (a merge limit: fewer merges than the table
    holds)."""
    t = Trainer.from_text(_text(7, 300, 90) + tti.CORPUS,
                          TrainSettings(vocab_size=600, pattern="cl100k"))
    early, text = _text(301, 1000), _text(300, 200)

    def check(tok, size, texts):
        ranks = {tok.vocab[i]: i for i in sorted(tok.vocab)
                 if i not in tok.special_ids.values() and i < size}
        enc = tiktoken.Encoding("t", pat_str=known.CL100K_PATTERN, mergeable_ranks=ranks,
                                special_tokens={})
        for x in texts:
            assert tok.encode(x) == enc.encode_ordinary(x), size

    t.run(until=60)
    check(t.tokenizer(), 256 + 60, [early])
    t.run()
    check(t.tokenizer(), 10**9, [text, early])
    check(t.tokenizer(at_step=150), 256 + 150, [text])


# ---- a run by its tokens' pairs (whitespace_runs.c, "a run by its last tokens") ----
# Without a merge limit a run is not merged: its tokens are read off pairs of symbols
# (the last token of each prefix is the symbol ending there that merges alone into itself
# or whose bytes with the previous token's merge into those two). These vocabularies are
# made to trip that: tokens in random order (a token ranked below its parts, merged first
# once they exist), tokens made by several splits (pairs of equal rank, where the leftmost
# wins), tokens whose own bytes merge into others, compared with the library and, for the
# .tiktoken files, with a slow merge written here.

def _slow_bpe(ranks: dict[bytes, int], piece: bytes, whole: bool = True) -> list[int]:
    """The lowest rank, leftmost, of the two symbols' bytes together, until none; a piece
    that is a token is that token (tiktoken's rule) when `whole`."""
    if whole and piece in ranks:
        return [ranks[piece]]
    parts = [piece[i:i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        best = min(((ranks.get(parts[i] + parts[i + 1], None), i) for i in range(len(parts) - 1)
                    if parts[i] + parts[i + 1] in ranks), default=None)
        if best is None:
            break
        i = best[1]
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return [ranks[p] for p in parts]


def _shuffled_ranks(seed: int) -> dict[bytes, int]:
    rng = random.Random(seed)
    toks = {c * k for k in range(2, 40) for c in " \t\n" if rng.random() < 0.85}
    while len(toks) < 420:
        toks.add("".join(rng.choice("   \t\n\r") for _ in range(rng.randint(2, 14))))
    order = sorted(toks)
    rng.shuffle(order)
    ranks = {bytes([i]): i for i in range(256)}
    for t in order:
        ranks[t.encode()] = len(ranks)
    return ranks


def _warm(tok) -> None:
    """Enough long runs (tens of KB) that the engine works out the symbols of whitespace."""
    tok.encode(_text(11, 400))


@pytest.fixture(scope="module", params=[0, 1, 2])
def shuffled_pair(request, tmp_path_factory):
    ranks = _shuffled_ranks(request.param)
    d = tmp_path_factory.mktemp("wsr")
    path = tti.ranks_file(d, ranks, "wsr.tiktoken")
    (d / "wsr.tiktoken.json").write_text(json.dumps({"pat_str": known.CL100K_PATTERN,
                                                     "special_tokens": {}}))
    enc = tiktoken.Encoding("wsr", pat_str=known.CL100K_PATTERN, mergeable_ranks=ranks,
                            special_tokens={})
    tok = load_tokenizer(path)
    _warm(tok)
    return tok, enc, ranks


def test_shuffled_ranks_runs(shuffled_pair):
    ours, enc, ranks = shuffled_pair
    runs = _runs(12, 1200)
    got = [ours.encode(r) for r in runs]
    assert got == [enc.encode_ordinary(r) for r in runs]
    import regex
    pat = regex.compile(known.CL100K_PATTERN)
    for r, ids in zip(runs[:300], got):
        assert ids == [i for p in pat.findall(r) for i in _slow_bpe(ranks, p.encode())], repr(r)


def _short_runs(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [r for r in (_run(rng, rng.randint(1, 90)) for _ in range(n)) if r]


def test_shuffled_ranks_texts(shuffled_pair):
    ours, enc, _ = shuffled_pair
    for seed in range(3):
        text = _text(400 + seed, 300, 1500)
        assert ours.encode(text) == enc.encode_ordinary(text)


def _random_merges_file(d: Path, seed: int) -> Path:
    """A ByteLevel tokenizer.json whose merges over whitespace were drawn at random: pairs
    of tokens made so far, several merges making one token, the list shuffled so that a
    merge may come before the merges that make its parts."""
    rng = random.Random(seed)
    b2u = {b: _byte_char(b) for b in range(256)}
    vocab = {b2u[b]: b for b in range(256)}
    ws = [b2u[ord(c)] for c in " \t\n\r"]
    made = list(ws)
    merges: list[tuple[str, str]] = []
    seen = set()
    for k in range(2, 33):   # runs of one byte, built by doubling and adding one
        for c in ws[:3]:
            if rng.random() < 0.8:
                a, b = c * (k - 1), c
                if a in vocab and (a, b) not in seen:
                    seen.add((a, b))
                    merges.append((a, b))
                    vocab.setdefault(a + b, len(vocab))
                    made.append(a + b)
    while len(merges) < 700:
        a, b = rng.choice(made), rng.choice(made)
        if len(a) + len(b) > 24 or (a, b) in seen:
            continue
        seen.add((a, b))
        merges.append((a, b))
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
            made.append(a + b)
    head, tail = merges[:len(merges) // 3], merges[len(merges) // 3:]
    rng.shuffle(tail)
    tk = tokenizers.Tokenizer(models.BPE(vocab=vocab, merges=head + tail, ignore_merges=False))
    tk.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(known.LLAMA3_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tk.decoder = decoders.ByteLevel()
    path = d / "tokenizer.json"
    tk.save(str(path))
    return path


def _byte_char(b: int) -> str:
    """GPT-2's byte -> character table."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    if b in keep:
        return chr(b)
    return chr(256 + sum(1 for x in range(b) if x not in keep))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_merges_tokenizer_json(tmp_path, seed):
    path = _random_merges_file(tmp_path, seed)
    ours, hf = load_tokenizer(path), tokenizers.Tokenizer.from_file(str(path))
    _warm(ours)
    runs = _runs(20 + seed, 1200)
    assert [ours.encode(r) for r in runs] == \
        [e.ids for e in hf.encode_batch(runs, add_special_tokens=False)]
    text = _text(500 + seed, 300, 1500)
    assert ours.encode(text) == hf.encode(text, add_special_tokens=False).ids


def test_limit_at_each_whitespace_merge():
    """As of each step whose merge makes a whitespace token, and the step after: a merge
    limit equal to a whitespace merge's rank (the pieces' table renumbers the ranks; the
    limit must fall between the same two of them)."""
    t = Trainer.from_text(_text(8, 300, 90) + tti.CORPUS,
                          TrainSettings(vocab_size=500, pattern="cl100k"))
    t.run()
    full = t.tokenizer()
    text = _text(302, 150)
    full.encode(_text(11, 200))   # enough long runs that the symbols of whitespace are made
    steps = [k for k, (a, b) in enumerate(full.merges)
             if (a + b).isspace()]
    assert len(steps) > 20
    for k in steps[::3]:
        for at in (k, k + 1):
            tok = t.tokenizer(at_step=at)
            ranks = {tok.vocab[i]: i for i in sorted(tok.vocab)
                     if i not in tok.special_ids.values() and i < 256 + at}
            enc = tiktoken.Encoding("t", pat_str=known.CL100K_PATTERN, mergeable_ranks=ranks,
                                    special_tokens={})
            assert tok.encode(text) == enc.encode_ordinary(text), at


def test_threads_racing_to_make_the_symbols_and_fill_the_memo(shuffled_pair, tmp_path):
    """A fresh tokenizer whose first texts are long runs encoded on four native threads at
    once: the pairs' memo and the word caches are filled by all of them."""
    _, enc, ranks = shuffled_pair
    path = tti.ranks_file(tmp_path, ranks, "t.tiktoken")
    (tmp_path / "t.tiktoken.json").write_text(json.dumps({"pat_str": known.CL100K_PATTERN,
                                                          "special_tokens": {}}))
    fresh = load_tokenizer(path)
    texts = [_text(600 + k, 120, 1500) for k in range(16)]
    assert fresh.encode_batch(texts, threads=4) == [enc.encode_ordinary(t) for t in texts]
