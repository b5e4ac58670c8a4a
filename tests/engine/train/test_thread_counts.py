"""Training on any number of counting threads gives the same merges: the slow oracle's
(tests/engine/engine_oracle.py) for whole documents, Hugging Face's BpeTrainer for
--lines. Blocks are made tiny, so every thread count splits the corpus into many blocks
that the threads take in a different order each run."""
from __future__ import annotations

import lzma

import pytest

from bpe_gui.engine import train_bpe
from bpe_gui.engine.corpus import blocks
from bpe_gui.engine.errors import BPEError

from engine_oracle import HAS_C_CORE, gpt2_chars, make_oracle

EOT = "<|endoftext|>"
THREADS = (1, 2, 3, 7)


@pytest.fixture(scope="module")
def mixed(corpora_dir) -> str:
    """English, Chinese with English, and Python, apart by the special token."""
    parts = []
    for name, n in (("en-tinyshakespeare.txt.xz", 6_000), ("zh-en-d2l-zh-markdown.txt.xz", 2_500),
                    ("code-python-stdlib.py.txt.xz", 4_000)):
        with lzma.open(corpora_dir / name, "rt", encoding="utf-8", newline="") as f:
            parts.append(f.read(n))
    return EOT.join(parts)


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 500)   # ~30 blocks for 7 threads to share


def oracle_merges(text: str, rule: str, n: int) -> list[tuple[bytes, bytes]]:
    o = make_oracle(text, (EOT,), rule=rule)
    assert o is not None
    o.train(num_merges=n)
    return [(o.tokens[a], o.tokens[b]) for a, b, _ in o.merges]


@pytest.mark.parametrize("rule", ["first-seen", "greatest"])
def test_every_thread_count_gives_the_oracles_merges(tmp_path, mixed, small_blocks, rule):
    """first-seen depends on the order in which words first appear, which threads that
    count blocks out of order must restore; greatest on the counts alone."""
    n = 120 if HAS_C_CORE else 30
    want = oracle_merges(mixed, rule, n)
    assert len(want) >= n - 5   # (a tie the greatest rule cannot break ends it early)
    path = tmp_path / "c.txt"
    path.write_bytes(mixed.encode("utf-8"))
    for threads in THREADS:
        _, merges = train_bpe(path, vocab_size=257 + n, special_tokens=[EOT], tie_rule=rule,
                              workers=threads)
        assert merges[:len(want)] == want, threads


def test_every_thread_count_gives_hf_merges_with_lines(tmp_path, mixed, small_blocks):
    tokenizers = pytest.importorskip("tokenizers")
    path = tmp_path / "c.txt"
    path.write_bytes(mixed.replace(EOT, "\n").encode("utf-8"))
    want = hf_merges(tokenizers, path, 600)
    assert len(want) == 600 - 256
    for threads in THREADS:
        _, merges = train_bpe(path, vocab_size=600, tie_rule="lowest-ids-hf", lines=True,
                              workers=threads)
        assert merges == want, threads


def test_a_bad_thread_count_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("a b c")
    for bad, words in ((0, "at least 1"), (5000, "at most 4,096"), ("2", "whole number")):
        with pytest.raises((BPEError, TypeError, ValueError)) as e:
            train_bpe(path, vocab_size=300, workers=bad)
        assert "workers" in str(e.value) and words in str(e.value), str(e.value)


def hf_merges(tokenizers, path, vocab_size: int) -> list[tuple[bytes, bytes]]:
    import json
    from tokenizers import models, pre_tokenizers, trainers
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train([str(path)], trainer)
    byte_of = {c: b for b, c in enumerate(gpt2_chars())}
    pairs = [m if isinstance(m, list) else m.split(" ")
             for m in json.loads(tok.to_str())["model"]["merges"]]
    return [(bytes(byte_of[c] for c in a), bytes(byte_of[c] for c in b)) for a, b in pairs]
