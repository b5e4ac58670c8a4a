"""A model of characters (a tokenizer.json without ByteLevel: SentencePiece-style files)
makes a word's first symbols as tokenizers does, for characters of its vocabulary and not.

An ASCII character's symbol comes from the model's table of single keys (not hashed:
pipe_encode.c's initial_syms) while no key was added after it was filled; characters the
vocabulary lacks become the unknown token (fused or not) or byte-fallback tokens, and a
word's last character takes the end-of-word suffix when the model has one. Each model is
trained with ``tokenizers`` on text that lacks some ASCII letters, and compared with it.
"""
from __future__ import annotations

import random

import pytest

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import decoders, models, pre_tokenizers, trainers  # noqa: E402

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402

CORPUS = ["the cat sat on the mat with a hat", "a bad dog ran at the man",
          "them that then this thin think", "привет мир тест", "中文 测试"] * 20
MISSING = "qzxjQZXJ"   # ASCII letters the vocabulary never saw
BYTES = [f"<0x{b:02X}>" for b in range(256)]


def _model(byte_fallback: bool, fuse_unk: bool, suffix: str | None, split: bool = True):
    kw = {"end_of_word_suffix": suffix} if suffix else {}
    tk = tokenizers.Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=fuse_unk,
                                         byte_fallback=byte_fallback, **kw))
    tk.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first",
                                                split=split)
    tk.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first")
    tk.train_from_iterator(CORPUS, trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<unk>", *(BYTES if byte_fallback else [])],
        show_progress=False, **kw))
    return tk


def _texts() -> list[str]:
    rng = random.Random(3)
    pool = list("thecatsmonwbdrigk") + list(MISSING) + ["п", "中", "é", " ", "🙂", "!"]
    out = ["the quiz", "zzz cat", "xq", "a" * 60 + "z" * 5 + "t" * 40, "qhat", "thaz",
           "ZzZ the", "cat q", "q", "z!", "mat\u00e9q", "привет q мир", ""]
    for _ in range(300):
        out.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 50))))
    return out


@pytest.mark.parametrize("byte_fallback,fuse_unk,suffix", [
    (False, True, None), (False, False, None), (True, True, None), (False, True, "</w>"),
    (True, False, "</w>")])
def test_first_symbols_of_a_character_model_are_tokenizers(tmp_path, byte_fallback,
                                                           fuse_unk, suffix):
    tk = _model(byte_fallback, fuse_unk, suffix)
    vocab = tk.get_vocab()
    assert not any(c in vocab for c in MISSING)   # (the letters the texts test for)
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))
    ours = load_tokenizer(path)
    for text in _texts():
        assert ours.encode(text) == tk.encode(text, add_special_tokens=False).ids, text


@pytest.mark.parametrize("byte_fallback,fuse_unk,suffix", [
    (True, False, None), (False, True, "</w>")])
def test_a_long_text_of_a_character_model_is_tokenizers(tmp_path, byte_fallback, fuse_unk,
                                                        suffix):
    """A text of 64 KB or more that the pre-tokenizer leaves whole (Metaspace without
    split, as Llama 2-style files have it) is cut where no merge crosses and the pieces
    merged with a memo of pair ranks kept for the whole text (pipe_spm.c's
    pipe_encode_cut): its pairs come back piece after piece, each answered from the memo
    after its first time; the ids stay tokenizers'."""
    tk = _model(byte_fallback, fuse_unk, suffix, split=False)
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))
    ours = load_tokenizer(path)
    text = " ".join(_texts() * 12)
    assert len(text.encode("utf-8")) >= 1 << 16
    assert ours.encode(text) == tk.encode(text, add_special_tokens=False).ids



def test_segments_that_never_come_back_skip_the_cache_and_the_ids_stay(tmp_path):
    """pipe_encode_cut stops looking up (and copying in) the segments of a length class
    that have not come back (4096 lookups, fewer hits than 1 in 64), but for one in 32:
    random words make a class cold (a model of 420 tokens trained on random letters:
    segments of 8-100 bytes between cuts; in a build that printed its counts, 5,920
    segments of 8-15 bytes went past the cache here), then words that repeat come back
    to it. The ids are tokenizers' throughout, for the segments merged past the cache,
    those still sampled into it and those found there (a mutation that drops a token
    of a segment past the cache fails this test alone)."""
    rng = random.Random(11)
    letters = "abcdefghijklmnopqrst"

    def words(n):
        return " ".join("".join(rng.choice(letters) for _ in range(rng.randint(8, 40)))
                        for _ in range(n))

    tk = tokenizers.Tokenizer(models.BPE(unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first",
                                                split=False)
    tk.train_from_iterator([words(50) for _ in range(200)], trainers.BpeTrainer(
        vocab_size=420, special_tokens=["<unk>"], show_progress=False))
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))
    ours = load_tokenizer(path)
    again = words(300)
    text = " ".join([words(6000), again, again, words(6000), again, again, again])
    assert ours.encode(text) == tk.encode(text, add_special_tokens=False).ids


@pytest.mark.parametrize("byte_fallback,fuse_unk,suffix", [
    (True, False, None), (False, True, None), (False, False, "</w>")])
def test_long_words_of_a_character_model_are_tokenizers(tmp_path, byte_fallback, fuse_unk,
                                                        suffix):
    """Words of 33 to 1,024 symbols that no cut splits (the training text's words glued
    together: every pair of their letters merges) merge in the flat loop over their given
    symbols (the reference merge): ids and offsets are
    tokenizers', with byte-fallback symbols (four for one character, their spans inside
    it), unknown tokens fused or not and the end-of-word suffix among them. Longer words
    go past the flat loop; they are here too."""
    tk = _model(byte_fallback, fuse_unk, suffix, split=True)
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))
    ours = load_tokenizer(path)
    rng = random.Random(5)
    parts = [w for line in CORPUS[:5] for w in line.split()] + ["q", "zz", "🙂", "é"]
    words = []
    for size in (9, 12, 40, 120, 300, 700):
        for _ in range(6):
            words.append("".join(rng.choice(parts) for _ in range(size)))
    for word in words:
        theirs = tk.encode(word, add_special_tokens=False)
        enc = ours.encode_with_offsets(word)
        assert ours.encode(word) == theirs.ids, word
        assert enc.ids == theirs.ids, word
        assert enc.offsets == [tuple(o) for o in theirs.offsets], word
    text = " ".join(words * 40)   # one call of 64 KB or more: the memo kept for the text
    assert ours.encode(text) == tk.encode(text, add_special_tokens=False).ids
