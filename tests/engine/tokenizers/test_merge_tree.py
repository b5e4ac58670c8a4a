"""Words of 33 to 1024 symbols merge in the flat loop (csrc/merge/merge.c) where the CPU
has AVX2, others in the reference merge (merge/reference.c): ids equal tiktoken's and
tokenizers' on words of random letters (every rank once), on repeats (many equal ranks:
the leftmost must win) and on words long enough for several groups of blocks.
"""
from __future__ import annotations

import json
import random

import pytest

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")

import hf_files as hfp  # noqa: E402  (the tokenizer.json builders)
import tiktoken_files as tti  # noqa: E402  (the .tiktoken writer)

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.formats import known_encodings as known  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402


def _words(seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for k in [24, 31, 32, 33, 63, 64, 65, 200, 1023, 1024, 1025, 1100, 3000, 20000]:
        out.append("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(k)))
        out.append("".join(rng.choice("ab") for _ in range(k)))       # few pairs, many ties
        out.append(("the" * k)[:k])
        out.append("".join(rng.choice(["th", "e", "qu", "ick", "x"]) for _ in range(k))[:k])
    return out


@pytest.fixture(scope="module")
def tiktoken_pair(tmp_path_factory):
    text = " ".join(_words(1)[:40]) + tti.CORPUS
    t = Trainer.from_text(text, TrainSettings(vocab_size=900, pattern="cl100k"))
    t.run()
    tok = t.tokenizer()
    ranks = {tok.vocab[i]: i for i in sorted(tok.vocab) if i not in tok.special_ids.values()}
    d = tmp_path_factory.mktemp("tree")
    path = tti.ranks_file(d, ranks, "tree.tiktoken")
    (d / "tree.tiktoken.json").write_text(json.dumps({"pat_str": known.CL100K_PATTERN,
                                                      "special_tokens": {}}))
    enc = tiktoken.Encoding("tree", pat_str=known.CL100K_PATTERN, mergeable_ranks=ranks,
                            special_tokens={})
    return load_tokenizer(path), enc


def test_tiktoken_words(tiktoken_pair):
    ours, enc = tiktoken_pair
    for w in _words(2):
        assert ours.encode(w) == enc.encode_ordinary(w), len(w)


def test_tokenizer_json_words(tmp_path):
    tk = hfp.byte_level_llama3(False)
    tk.save(str(tmp_path / "tokenizer.json"))
    ours = load_tokenizer(tmp_path / "tokenizer.json")
    for w in _words(3):
        assert ours.encode(w) == tk.encode(w, add_special_tokens=False).ids, len(w)


def _naive(word: bytes, ranks: dict[tuple[bytes, bytes], int]) -> list[bytes]:
    """Merge the lowest-ranked pair, leftmost first, until none is left: the rule itself,
    quadratic and obviously right."""
    parts = [bytes([b]) for b in word]
    while True:
        found = [(ranks[p], i) for i, p in enumerate(zip(parts, parts[1:])) if p in ranks]
        if not found:
            return parts
        _, i = min(found)
        parts[i:i + 2] = [parts[i] + parts[i + 1]]


@pytest.mark.parametrize("steps", [0, 1, 37, 400, None])
def test_trained_as_of_a_step(steps):
    """Words of 33..1024 symbols merge in the flat loop, others in the reference merge: a trained tokenizer as of several steps (the merge limit) gives the
    naive rule's tokens, on words either side of both lengths."""
    text = " ".join(_words(4)[:44]) + " " + tti.CORPUS
    t = Trainer.from_text(text, TrainSettings(vocab_size=700, pattern="cl100k"))
    t.run()
    tok = t.tokenizer() if steps is None else t.tokenizer().at_step(steps)
    ranks = {pair: r for r, pair in enumerate(tok.merges)}
    by_bytes = {b: i for i, b in tok.vocab.items()}
    rng = random.Random(5)
    for k in [32, 33, 34, 100, 500, 1023, 1024, 1025, 1500]:
        for alphabet in ("abcdefghijklmnopqrstuvwxyz", "ab", "thequick"):
            w = "".join(rng.choice(alphabet) for _ in range(k))
            assert tok.encode(w) == [by_bytes[p] for p in _naive(w.encode(), ranks)], (k, alphabet)
