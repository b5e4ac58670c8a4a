"""Hugging Face's merges exactly with special tokens in the training text, and
``train_from_iterator`` fed as tokenizers' tutorial feeds it (batches of texts).

tokenizers reads special-token text in two ways, told apart here against its own
``BpeTrainer`` (the oracle: ByteLevel without a prefix space, all 256 bytes as the
initial alphabet, as test_hf_exact.py sets it up):

- the tokens given only to the trainer (``BpeTrainer(special_tokens=...)``): their text
  is ordinary text, cut into words by the pre-tokenizer (it learns ``<`` + ``|``):
  ``special_text="text"``;
- the tokens added to the tokenizer before training (``add_special_tokens``): the text
  is cut at each one and each one is counted as a word of its own, whole (its pieces
  merge, up to the token itself): ``special_text="word"``.

CS336's reading (cut at them, the token not counted: ``special_text="cut"``) is neither.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from bpe_gui.engine.errors import ArgumentTypeError
from bpe_gui.engine.train import Trainer, TrainSettings, train_from_iterator

from test_hf_exact import BYTE_OF, read_corpus

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

STORIES = Path(__file__).resolve().parents[2] / "fixtures" / "check_tutorial.txt"
EOT = "<|endoftext|>"
HF = {"tie_rule": "lowest-ids-hf", "lines": True}


def hf_tokenizer(added: bool, specials=(EOT,)) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    if added:
        tok.add_special_tokens(list(specials))
    return tok


def hf_trainer(vocab_size: int, specials=(EOT,)):
    return trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=0, show_progress=False,
                               special_tokens=list(specials),
                               initial_alphabet=pre_tokenizers.ByteLevel.alphabet())


def merges_of(tok: Tokenizer) -> list[tuple[bytes, bytes]]:
    merges = json.loads(tok.to_str())["model"]["merges"]
    pairs = [m if isinstance(m, list) else m.split(" ") for m in merges]
    return [(bytes(BYTE_OF[c] for c in a), bytes(BYTE_OF[c] for c in b)) for a, b in pairs]


def hf_file_merges(path: Path, vocab_size: int, added: bool, specials=(EOT,)):
    tok = hf_tokenizer(added, specials)
    tok.train([str(path)], hf_trainer(vocab_size, specials))
    return merges_of(tok)


def ours(path: Path, vocab_size: int, special_text: str, specials=(EOT,)):
    t = Trainer.from_files([path], TrainSettings(vocab_size=vocab_size, special_tokens=specials,
                                                 special_text=special_text, **HF))
    t.run()
    return t.merges


def stories(tmp_path: Path, corpora_dir: Path | None = None) -> Path:
    """The TinyStories-like sample (stories between <|endoftext|>), with some real
    English after it when the excerpts are here, so the merges go past the sample's."""
    text = STORIES.read_text(encoding="utf-8")
    if corpora_dir is not None:
        shakespeare = read_corpus(corpora_dir / "en-tinyshakespeare.txt.xz", 40_000)
        text += "".join(f"{EOT}{part}" for part in shakespeare.split("\n\n"))
    path = tmp_path / "stories.txt"
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("vocab_size", [400, 1200])
def test_tokens_given_to_the_trainer_only_read_as_text(tmp_path, corpora_dir, vocab_size):
    path = stories(tmp_path, corpora_dir)
    want = hf_file_merges(path, vocab_size, added=False)
    assert (b"<", b"|") in want                    # its text is ordinary text to it
    assert ours(path, vocab_size, "text") == want
    assert ours(path, vocab_size, "cut") != want   # CS336's reading parts from it


@pytest.mark.parametrize("vocab_size", [400, 1200])
def test_tokens_added_before_training_each_a_word(tmp_path, corpora_dir, vocab_size):
    path = stories(tmp_path, corpora_dir)
    want = hf_file_merges(path, vocab_size, added=True)
    assert (b"<|endofte", b"xt|>") in want or vocab_size < 1000   # the token rebuilt
    assert ours(path, vocab_size, "word") == want
    assert ours(path, vocab_size, "cut") != want
    assert ours(path, vocab_size, "text") != want


def test_two_special_tokens_both_orders(tmp_path):
    specials = ("<|endoftext|>", "<pad>")
    text = STORIES.read_text(encoding="utf-8").replace(". ", ". <pad>")
    path = tmp_path / "two.txt"
    path.write_bytes(text.encode("utf-8"))
    for added, how in ((False, "text"), (True, "word")):
        assert ours(path, 420, how, specials) == \
            hf_file_merges(path, 420, added, specials), how


# --- train_from_iterator: texts, or batches of texts -----------------------------------

def batches(texts: list[str], size: int):
    for i in range(0, len(texts), size):
        yield texts[i:i + size]


def test_batches_train_as_the_flat_texts_and_as_tokenizers_does(corpora_dir):
    texts = read_corpus(corpora_dir / "en-tinyshakespeare.txt.xz", 60_000).split("\n\n")
    flat = train_from_iterator(iter(texts), 600, tie_rule="lowest-ids-hf")
    seen: list[tuple] = []
    batched = train_from_iterator(batches(texts, 100), 600, tie_rule="lowest-ids-hf",
                                  length=len(texts), progress=lambda *a: seen.append(a))
    assert batched.merges == flat.merges
    assert ("pretokenize", len(texts), len(texts)) in seen   # texts read, out of length
    tok = hf_tokenizer(False, ())
    tok.train_from_iterator(batches(texts, 100), hf_trainer(600, ()), length=len(texts))
    assert flat.merges == merges_of(tok)       # each text one sequence, as tokenizers reads it
    tuples = train_from_iterator((tuple(b) for b in batches(texts, 7)), 600,
                                 tie_rule="lowest-ids-hf")
    assert tuples.merges == flat.merges


def test_special_tokens_through_train_from_iterator_both_orders():
    texts = STORIES.read_text(encoding="utf-8").split("\n")
    for added, how in ((False, "text"), (True, "word")):
        tok = hf_tokenizer(added)
        tok.train_from_iterator(batches(texts, 3), hf_trainer(400), length=len(texts))
        got = train_from_iterator(batches(texts, 3), 400, [EOT], tie_rule="lowest-ids-hf",
                                  special_text=how)
        assert got.merges == merges_of(tok), how


@pytest.mark.parametrize("items, said", [
    ([b"bytes"], r"train_from_iterator\(iterator\)\[0\] should be text .*not bytes"),
    (["ok", 7], r"train_from_iterator\(iterator\)\[1\] should be text .*not int"),
    ([["ok"], ["fine", None]], r"train_from_iterator\(iterator\)\[1\]\[1\] should be text "
                               r".*not NoneType"),
    ([{"text": "a"}], r"\[0\] should be text .*not dict"),
])
def test_bad_items_are_named_with_their_index_and_type(items, said):
    with pytest.raises(ArgumentTypeError, match=said):
        train_from_iterator(items, 300)


def test_a_bad_length_is_refused():
    from bpe_gui.engine.errors import BPEError
    for bad in (-1, "10", 2.5):
        with pytest.raises(BPEError, match="length"):
            train_from_iterator(["a b"], 300, length=bad)


def test_every_counting_route_counts_the_special_words_alike(tmp_path, corpora_dir,
                                                            monkeypatch):
    """The native scanner on one thread and on three (small blocks, byte ranges), and a
    pattern the `regex` module runs: each special token is one word, counted each time."""
    from bpe_gui.engine.corpus import blocks, count_corpus
    from bpe_gui.engine.train.trainer import counting_pretokenizer
    path = stories(tmp_path, corpora_dir)
    n = path.read_text(encoding="utf-8").count(EOT)
    s = TrainSettings(special_tokens=(EOT,), special_text="word", lines=True)
    one = count_corpus([path], counting_pretokenizer(s), lines=True, workers=1)
    words = dict(zip(one.words, one.freqs))
    assert words[EOT] == n
    assert words == {**dict(zip(*_cut(path))), EOT: n}   # the cut words, and the tokens
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 4 << 10)
    three = count_corpus([path], counting_pretokenizer(s), lines=True, workers=3)
    assert dict(zip(three.words, three.freqs)) == words
    from dataclasses import replace
    regex_s = replace(s, pattern=r"(?:'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+"
                                 r"| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)")   # (GPT-2's)
    pre = counting_pretokenizer(regex_s)
    assert pre.native is None
    by_regex = count_corpus([path], pre, lines=True)
    assert dict(zip(by_regex.words, by_regex.freqs)) == words


def _cut(path: Path):
    from bpe_gui.engine.corpus import count_corpus
    from bpe_gui.engine.text.pretokenize import Pretokenizer
    t = count_corpus([path], Pretokenizer("gpt2", [EOT]), lines=True)
    return t.words, t.freqs


def test_word_needs_the_corpus_not_a_count_table(tmp_path):
    from bpe_gui.engine.corpus import count_corpus, write_table
    from bpe_gui.engine.errors import SettingsError
    from bpe_gui.engine.text.pretokenize import Pretokenizer
    table = tmp_path / "t.counts.tsv"
    write_table(count_corpus(texts=[STORIES.read_text(encoding="utf-8")],
                             pre=Pretokenizer("gpt2", [EOT])), table)
    with pytest.raises(SettingsError, match="special_text 'word'.*train from the corpus"):
        Trainer.from_counts(table, TrainSettings(vocab_size=300, special_tokens=(EOT,),
                                                 special_text="word"))


def test_a_special_token_made_again_is_not_counted_in_the_vocabulary_size():
    """special_text 'word': the merge that makes <|endoftext|> again keeps the special
    token's id in tokenizers, so the vocabulary stops one merge later; stepping, the core's
    run, and going back to a smaller size all count it so."""
    text = STORIES.read_text(encoding="utf-8")
    s = TrainSettings(vocab_size=420, special_tokens=(EOT,), special_text="word", **HF)
    stepped = Trainer.from_text(text, s)
    stepped.run()
    fast = Trainer.from_text(text, s, undo=False)
    fast.run(detail=False)
    assert stepped.merges == fast.merges
    made = [k for k, m in enumerate(stepped.merges) if m[0] + m[1] == EOT.encode()]
    assert len(made) == 1 and len(stepped.merges) == 420 - 257 + 1
    k = made[0] + 1                       # the step that makes it
    for size, steps in ((257 + k, k + 1), (257 + k - 1, k - 1)):   # the size before it
        stepped.retarget(TrainSettings(**{**vars(s), "vocab_size": size}))
        assert (stepped.n_steps, stepped.is_done) == (steps, True)
        fresh = Trainer.from_text(text, TrainSettings(**{**vars(s), "vocab_size": size}))
        fresh.run()
        assert fresh.n_steps == steps


PIECES = ["a", "b", "ab", " ", "  ", ".", "!", "\n", "é", "1", "<|endoftext|>", "<pad>", "<"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=30).map("".join), min_size=1,
                max_size=12))
def test_random_texts_both_orders_as_tokenizers(texts):
    """Special tokens next to spaces, punctuation, each other and a lone '<': each order
    of tokenizers against ours, each text one sequence (train_from_iterator)."""
    specials = ["<|endoftext|>", "<pad>"]
    if not any(t.strip() for t in texts):
        return
    for added, how in ((False, "text"), (True, "word")):
        tok = hf_tokenizer(added, specials)
        tok.train_from_iterator(texts, hf_trainer(300, specials))
        got = train_from_iterator(texts, 300, specials, tie_rule="lowest-ids-hf",
                                  special_text=how)
        assert got.merges == merges_of(tok), how


def test_the_setting_through_the_spec_and_where_it_is_not_used():
    """One home: the spec writes it in its command, greys it (unused) with the reason the
    command line and the one-call functions refuse it with, and puts it back when unused."""
    from bpe_gui.engine.errors import SettingsError
    from bpe_gui.engine.train import (PARITY, SUPERBPE, TrainingSpec, train_on,
                                      train_superbpe, unused)
    s = TrainSettings(num_merges=5, special_tokens=(EOT,), special_text="word")
    spec = TrainingSpec(corpus=("c.txt",), settings=s)
    assert "special_text" not in unused(spec)
    assert spec.command() == ("bpe-gui train --num-merges=5 '--special-token=<|endoftext|>' "
                              "--special-text=word --out=tokenizer -- c.txt")
    assert "--special-text" not in TrainingSpec(corpus=("c.txt",), settings=TrainSettings(
        special_tokens=(EOT,))).command()                     # the default is not written
    bare = TrainingSpec(corpus=("c.txt",), settings=TrainSettings(special_text="text"))
    assert "no special tokens" in unused(bare)["special_text"]
    assert bare.validated().settings.special_text == "cut"
    assert "parity" in unused(TrainingSpec(mode=PARITY))["special_text"]
    assert "SuperBPE" in unused(TrainingSpec(mode=SUPERBPE, settings=s))["special_text"]
    with pytest.raises(SettingsError, match="SuperBPE cuts.*leave special_text at 'cut'"):
        train_superbpe(text="a b c " * 40, settings=TrainSettings(
            vocab_size=300, superbpe_from=3, special_tokens=(EOT,), special_text="text"))
    base = Trainer.from_text("a b c " * 40, TrainSettings(num_merges=3))
    base.run()
    with pytest.raises(SettingsError, match="tokenizer trained on decides it"):
        train_on(base.tokenizer(), text="a b", settings=TrainSettings(num_merges=2,
                                                                      special_text="word"))
    with pytest.raises(SettingsError, match="Unknown special_text 'words'"):
        TrainSettings(special_text="words")
