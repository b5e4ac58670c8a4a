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
    assert b.encode(TEXT + "<s> unseen lowering") == a.encode(TEXT + "<s> unseen lowering")


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
