"""The GPT-2 spelling of what the byte-level exports write (vocab.json, merges.txt,
tokenizer.json's vocab and merges) against a token-at-a-time oracle (``gpt2_text``: one
translate per token), for every kind of tokenizer: trained (special tokens spelled as a
byte, as a merged token, as neither), as of an earlier step, GPT-2 files, a
tokenizer.json made by ``tokenizers``, a .tiktoken file. The exports spell each token
once and read the merges' halves from that spelling (gpt2.merge_half_texts); these
tests hold that shortcut to the plain rule."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_gui.engine import TrainSettings, Trainer
from bpe_gui.engine.display import gpt2_text
from bpe_gui.engine.errors import ExportError
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer, render_files
from bpe_gui.engine.formats.gpt2 import merge_half_texts, vocab_keys
from bpe_gui.engine.formats.snapshot import Snapshot, snapshot
from bpe_gui.engine.text.presets import GPT2_PATTERN

tokenizers = pytest.importorskip("tokenizers")

FRAGMENTS = ["a", "b", "ab", "abc", "ca", " ", "  ", "\n", "\"", "\\", "你", "好", "é",
             "<|endoftext|>", "\u00ad", "\u2028", " low", "est"]
TEXT = "the lower newest widest \"quoted\" back\\slash 你好 é\u00ad " * 40


def _duplicates(snap: Snapshot) -> dict[int, int]:
    """Ids whose bytes a lower non-special id has -> that id, one id at a time."""
    specials = set(snap.special_ids.values())
    first: dict[bytes, int] = {}
    dup = {}
    for i in sorted(snap.vocab):
        if i in specials:
            continue
        if snap.vocab[i] in first:
            dup[i] = first[snap.vocab[i]]
        else:
            first[snap.vocab[i]] = i
    return dup


def _check(snap: Snapshot) -> None:
    assert snap.duplicates() == _duplicates(snap)
    by_id = {i: s for s, i in snap.special_ids.items()}
    want_keys = {i: by_id[i] if i in by_id else gpt2_text(snap.vocab[i])
                 for i in sorted(snap.vocab) if i not in _duplicates(snap)}
    if len(set(want_keys.values())) < len(want_keys):
        # a special token that reads as another token's GPT-2 text: said, not written
        with pytest.raises(ExportError, match="reads the same as token id"):
            vocab_keys(snap)
        return
    keys = vocab_keys(snap)
    assert keys == want_keys and list(keys) == sorted(keys)
    halves = [gpt2_text(t) for m in snap.merges for t in m]
    assert merge_half_texts(snap, keys) == halves
    files = render_files(snap, ["gpt2", "hf"])[0]
    lines = files["merges.txt"].decode("utf-8").split("\n")
    assert lines[1:-1] == [f"{a} {b}" for a, b in zip(halves[::2], halves[1::2])]
    assert json.loads(files["vocab.json"]) == {k: i for i, k in want_keys.items()}
    model = json.loads(files["tokenizer.json"])["model"]
    assert model["merges"] == [[a, b] for a, b in zip(halves[::2], halves[1::2])]
    assert model["vocab"] == {k: i for i, k in want_keys.items()}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=60).map("".join),
       specials=st.sampled_from([(), ("<|endoftext|>",), ("a", "<|endoftext|>"), ("ab",),
                                 ("\"", "\\")]),
       merges=st.integers(0, 60), step=st.integers(0, 60))
def test_trained_tokenizers_and_earlier_steps(text, specials, merges, step):
    rest = text
    for special in specials:
        rest = rest.replace(special, "")
    if not rest.strip():
        return
    t = Trainer.from_text(text, TrainSettings(num_merges=merges, special_tokens=specials))
    t.run(detail=False)
    tok = t.tokenizer()
    _check(snapshot(tok))
    _check(snapshot(tok.at_step(min(step, tok.n_merges))))


def test_gpt2_files_and_tokenizers_own_tokenizer_json(tmp_path):
    t = Trainer.from_text(TEXT, TrainSettings(num_merges=120,
                                               special_tokens=("<|endoftext|>", "<pad>")))
    t.run(detail=False)
    export_tokenizer(t.tokenizer(), tmp_path / "gpt2", "gpt2")
    _check(snapshot(load_tokenizer(tmp_path / "gpt2" / "vocab.json")))
    # a tokenizer.json that tokenizers itself trained
    hf = tokenizers.Tokenizer(tokenizers.models.BPE())
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<|endoftext|>"],
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet())
    hf.train_from_iterator([TEXT], trainer)
    hf.save(str(tmp_path / "tokenizer.json"))
    _check(snapshot(load_tokenizer(tmp_path / "tokenizer.json")))


def test_a_tiktoken_file(tmp_path):
    pytest.importorskip("tiktoken")
    from tiktoken_files import ranks_file, trained_ranks
    _check(snapshot(load_tokenizer(ranks_file(tmp_path, trained_ranks()))))


def test_a_merge_that_makes_a_special_tokens_bytes():
    # (as trainer_snapshot has it: the merge yields the special token's id, the first with
    # those bytes; the special token's key is its own text, " x", where the half that
    # is the same bytes reads as GPT-2 spells them, "Ġx")
    vocab = {i: bytes([i]) for i in range(256)}
    vocab.update({256: b" x", 257: b" xy"})
    snap = Snapshot(vocab=vocab, merges=[(b" ", b"x"), (b" x", b"y")], merge_ids=[256, 257],
                    special_tokens=[" x"], special_ids={" x": 256}, mode="byte",
                    end_of_word="", pattern=GPT2_PATTERN, pattern_setting="gpt2",
                    counts=[2, 1], meta={})
    _check(snap)
    assert merge_half_texts(snap, vocab_keys(snap))[2] == "Ġx"
