"""Trainer.release_core: after training, the merge state goes; merges, records and
tokenizers stay exactly those of a trainer that keeps it, and stepping says why not."""
import pytest

from bpe_gui.engine.errors import SettingsError
from bpe_gui.engine.train import Trainer, TrainSettings, train_bpe

TEXT = ("the lower lowest newer newest wider widest low low low the the\n" * 20
        + "a b c aa bb cc aaa bbb ccc\n" * 7)


def _trained() -> Trainer:
    tr = Trainer.from_text(TEXT, TrainSettings(vocab_size=300, special_tokens=("<s>",)))
    tr.run(detail=False)
    return tr


def test_released_trainer_keeps_merges_and_tokenizer():
    kept, released = _trained(), _trained()
    released.release_core()
    assert released.merges == kept.merges and len(kept.merges) > 10
    assert released.vocab == kept.vocab
    assert released.corpus_tokens == kept.corpus_tokens
    a, b = kept.tokenizer(), released.tokenizer()
    assert a.merges == b.merges
    assert b.encode(TEXT + "<s> unseen lowering", allowed_special="all") == a.encode(TEXT + "<s> unseen lowering", allowed_special="all")


def test_released_trainer_refuses_steps_with_a_reason():
    tr = _trained()
    tr.release_core()
    for act in (tr.step, tr.undo, tr.best_pair):
        with pytest.raises(SettingsError, match="released"):
            act()


def test_train_bpe_gives_the_merges_of_a_kept_trainer(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text(TEXT, encoding="utf-8")
    vocab, merges = train_bpe(path, 300, ["<s>"])
    tr = train_bpe(path, 300, ["<s>"], return_trainer=True)
    assert merges == tr.merges and vocab == tr.vocab
    # a returned trainer keeps no undo log: going back is refused with a message, and
    # nothing changes
    with pytest.raises(SettingsError, match="only goes forward"):
        tr.undo()
    assert tr.merges == merges


@pytest.mark.parametrize("mode", ["byte", "char"])
def test_released_table_keeps_merges_and_counts_and_says_why_words_are_gone(mode):
    """release_table (train_bpe's, before training): the same merges, records, tokens
    and corpus bytes as a trainer that keeps its table; the words' texts are refused
    with a message naming the way to keep them."""
    settings = TrainSettings(vocab_size=300 if mode == "byte" else 60, mode=mode)
    kept = Trainer.from_text(TEXT, settings)
    released = Trainer.from_text(TEXT, settings)
    released.release_table()
    kept.run(detail=False)
    released.run(detail=False)
    assert released.merges == kept.merges and len(kept.merges) > 10
    assert released.steps == kept.steps
    assert released.corpus_bytes == kept.corpus_bytes == len(TEXT.encode("utf-8"))
    for read in (lambda: released.word_texts, lambda: released.table.words):
        with pytest.raises(SettingsError, match="let go of its pre-token table.*from_source"):
            read()


def test_train_bpe_lets_go_of_the_table(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text(TEXT, encoding="utf-8")
    tr = train_bpe(path, 300, ["<s>"], return_trainer=True)
    with pytest.raises(SettingsError, match="release_table"):
        print(tr.word_texts)
    assert tr.corpus_bytes == len(TEXT.encode("utf-8"))
