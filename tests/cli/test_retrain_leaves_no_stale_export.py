"""A retrain into a folder leaves no stale export beside the new one: the files an
earlier export of the same name wrote and this one does not are removed (was: a
`--format gpt2` retrain left tokenizer.json and tokenizer.bpe-gui.json, and
`encode --tokenizer DIR` silently used the old tokenizer). Files we did not write, or
that changed since we wrote them, stay."""
from __future__ import annotations

from pathlib import Path

import pytest

from bpe_gui.cli import main

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402

OLD = "the cat sat on the mat with the hat " * 30
NEW = "a quick brown fox jumps over a lazy dog " * 30
TEXT = "a lazy cat jumps over the hat"
RECORD = ".bpe-gui-exports.json"


def train(tmp_path: Path, text: str, *extra: str) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text(text, "utf-8")
    assert main(["train", str(corpus), "--vocab-size", "290", "--out", str(tmp_path / "out"),
                 "-q", *extra]) == 0


def hf_ids(folder: Path) -> list[int]:
    """tokenizers' own BPE over the GPT-2 files (the oracle for what the folder holds)."""
    tok = Tokenizer(models.BPE.from_file(str(folder / "vocab.json"),
                                         str(folder / "merges.txt")))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    return tok.encode(TEXT).ids


def test_a_gpt2_only_retrain_removes_the_earlier_exports_other_files(tmp_path, capsys):
    train(tmp_path, OLD)
    out = tmp_path / "out"
    (out / "notes.txt").write_text("mine", "utf-8")             # not ours: it stays
    train(tmp_path, NEW, "--format", "gpt2")
    said = capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [RECORD, "merges.txt", "notes.txt", "vocab.json"])
    assert f"removed:     {out / 'tokenizer.json'}" in said
    assert main(["encode", "--tokenizer", str(out), "--ids-only", TEXT]) == 0
    assert [int(i) for i in capsys.readouterr().out.split()] == hf_ids(out)


def test_a_file_changed_since_we_wrote_it_stays(tmp_path, capsys):
    train(tmp_path, OLD)
    out = tmp_path / "out"
    (out / "tokenizer.json").write_text("{}", "utf-8")   # someone else's now
    train(tmp_path, NEW, "--format", "gpt2")
    assert (out / "tokenizer.json").read_text("utf-8") == "{}"
    assert not (out / "tokenizer.bpe-gui.json").exists()


def test_another_export_name_is_left_alone(tmp_path):
    train(tmp_path, OLD, "--name", "first")
    train(tmp_path, NEW, "--name", "second", "--format", "hf")
    names = {p.name for p in (tmp_path / "out").iterdir()}
    assert {"first-tokenizer.json", "first.bpe-gui.json", "second-tokenizer.json"} <= names


def test_a_parity_retrain_removes_them_too(tmp_path):
    train(tmp_path, OLD)
    out = tmp_path / "out"
    (tmp_path / "en.txt").write_text(NEW, "utf-8")
    assert main(["train", "--parity", "base", "--language", f"en={tmp_path / 'en.txt'}",
                 "--ratio", "en=1", "--num-merges", "10", "--out", str(out), "-q",
                 "--format", "hf"]) == 0
    assert sorted(p.name for p in out.iterdir()) == [RECORD, "tokenizer.json"]


def test_one_format_at_a_time_removes_nothing(tmp_path):
    """The window exports one format at a time: each joins the folder's export."""
    from bpe_gui.engine.formats import export_tokenizer
    from bpe_gui.engine.train.trainer import Trainer, TrainSettings
    trainer = Trainer.from_text(NEW, TrainSettings(vocab_size=290))
    trainer.run()
    out = tmp_path / "out"
    export_tokenizer(trainer.tokenizer(), out, "hf")
    export_tokenizer(trainer.tokenizer(), out, "gpt2")
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [RECORD, "merges.txt", "tokenizer.json", "vocab.json"])
    train(tmp_path, OLD, "--format", "native")   # then a run: both are the earlier export's
    assert sorted(p.name for p in out.iterdir()) == sorted([RECORD, "tokenizer.bpe-gui.json"])
