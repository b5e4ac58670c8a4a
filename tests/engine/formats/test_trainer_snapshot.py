"""formats.trainer_snapshot (what `bpe-gui train` exports: a trainer's snapshot made from
its merges, without building its tokenizer) equals snapshot(trainer.tokenizer()), field
by field and as the files of every format, whatever the corpus, mode and settings."""
from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_gui.engine import TrainSettings, Trainer, train_bpe
from bpe_gui.engine.train import ParitySettings, ParityTrainer
from bpe_gui.engine.errors import ExportError
from bpe_gui.engine.formats import FORMATS, render_files, trainer_snapshot
from bpe_gui.engine.formats.snapshot import snapshot

# words whose merges can make the same bytes twice (a+bc and ab+c), a special token
# spelled as a byte ("a") or as a word, whitespace runs, several scripts
FRAGMENTS = ["a", "b", "c", "ab", "bc", "abc", "cab", " ", "  ", "\n", "你", "好", "é",
             "😀", "'s", " low", " lower", "est", "1", "23", "!", "<|endoftext|>", "\u2028"]


def _same(trainer: Trainer | ParityTrainer) -> None:
    fast, full = trainer_snapshot(trainer), snapshot(trainer.tokenizer())
    for f in dataclasses.fields(fast):
        assert getattr(fast, f.name) == getattr(full, f.name), f.name
    assert list(fast.vocab) == list(full.vocab)   # the same order too
    for fmt in FORMATS:
        try:
            want = render_files(full, [fmt])
        except ExportError as e:
            try:
                render_files(fast, [fmt])
            except ExportError as e2:
                assert str(e2) == str(e)
                continue
            raise AssertionError(f"{fmt}: only the tokenizer's snapshot fails") from None
        assert render_files(fast, [fmt]) == want, fmt


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=80).map("".join),
       rule=st.sampled_from(["greatest", "first-seen", "lowest-ids", "lowest-ids-hf"]),
       mode=st.sampled_from(["byte", "char"]), eow=st.sampled_from(["suffix", "prefix"]),
       specials=st.sampled_from([(), ("<|endoftext|>",), ("a", "<|endoftext|>"), ("ab",)]),
       merges=st.integers(0, 80), prune=st.booleans(), lines=st.booleans(),
       pattern=st.sampled_from(["gpt2", "cl100k", "whitespace"]))
def test_trainer_snapshot_is_the_tokenizers(text, rule, mode, eow, specials, merges, prune,
                                             lines, pattern):
    rest = text
    for special in specials:
        rest = rest.replace(special, "")
    if not rest.strip():
        return   # nothing to train on (its errors are tested elsewhere)
    s = TrainSettings(num_merges=merges, tie_rule=rule, mode=mode, end_of_word=eow,
                      special_tokens=specials, prune=prune, lines=lines, pattern=pattern)
    t = Trainer.from_text(text, s)
    t.run(detail=False)
    _same(t)
    assert len(t.steps) == t.n_steps   # records made: the same again
    _same(t)


def test_trainer_snapshot_of_train_bpe_and_after_an_undo(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text(" ".join(f"ab{i % 7}c abc cab{i % 5} bc" for i in range(400)) + "\n",
                      encoding="utf-8")
    t = train_bpe([corpus], 700, ["<|endoftext|>", "a"], return_trainer=True)
    _same(t)
    t.release_core()
    _same(t)
    t = Trainer.from_files(corpus, t.settings)
    t.run(detail=False)
    t.undo()
    t.undo()
    _same(t)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=40)
                      .map("".join), min_size=2, max_size=3),
       variant=st.sampled_from(["base", "window"]), merges=st.integers(0, 60),
       dev=st.booleans(), released=st.booleans())
def test_parity_trainer_snapshot_is_the_tokenizers(texts, variant, merges, dev, released):
    """A parity run (whose merges may make a token again: it keeps its first id), as
    `bpe-gui train --parity` exports it: after the core is released too."""
    train = {f"l{i}": t for i, t in enumerate(texts)}
    t = ParityTrainer.from_texts(train, {k: v[::-1] for k, v in train.items()} if dev else None,
                                 ParitySettings(num_merges=merges, variant=variant))
    t.run()
    if released:
        t.release_core()
    _same(t)
