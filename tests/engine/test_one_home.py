"""The engine's one home for rules the CLI and the window used to copy: building a
trainer from any corpus, byte sizes for people, the scanner's preset numbers."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from bpe_gui.engine import TrainSettings, Trainer
from bpe_gui.engine.corpus.counting import count_corpus
from bpe_gui.engine.display import human_size
from bpe_gui.engine.text.presets import KINDS, PRESET_IDS
from bpe_gui.engine.text.pretokenize import Pretokenizer
from bpe_gui.engine.train.trainer import TIE_RULES

TEXT = "low lower lowest newer newest wider widest " * 20 + "café naïve 你好 你好世界\n"


@dataclass
class Files:   # what the window's file corpus offers: paths and their encoding
    paths: list[str]
    encoding: str = "utf-8"


def _merges(trainer: Trainer) -> list:
    trainer.run(detail=False)
    return trainer.merges


@pytest.mark.parametrize("mode", ["byte", "char"])
def test_every_corpus_shape_trains_the_same_merges(tmp_path: Path, mode: str):
    s = TrainSettings(vocab_size=300 if mode == "byte" else 60, mode=mode, pattern="gpt2")
    f = tmp_path / "c.txt"
    f.write_text(TEXT, encoding="utf-8")
    table = count_corpus([f], Pretokenizer(s.pattern, s.special_tokens))
    want = _merges(Trainer.from_text(TEXT, s))
    assert want, "the corpus must give merges for the comparison to mean anything"
    assert _merges(Trainer.from_source(TEXT, s)) == want
    assert _merges(Trainer.from_source(f, s)) == want
    assert _merges(Trainer.from_source([str(f)], s)) == want
    assert _merges(Trainer.from_source(table, s)) == want
    assert _merges(Trainer.from_source(Files([str(f)]), s)) == want


def test_a_file_corpus_brings_its_encoding(tmp_path: Path):
    s = TrainSettings(vocab_size=280, pattern="gpt2")
    f = tmp_path / "latin.txt"
    f.write_bytes(TEXT.replace("你好", "").replace("世界", "").encode("latin-1"))
    utf8 = Trainer.from_text(f.read_bytes().decode("latin-1"), s)
    assert _merges(Trainer.from_source(Files([str(f)], "latin-1"), s)) == _merges(utf8)


@pytest.mark.parametrize("n, binary, text", [
    (512, False, "512 bytes"), (20_287_673, False, "20.3 MB"), (312_000_000, False, "312 MB"),
    (1_073_741_824, False, "1.07 GB"), (1536, True, "1.5 KiB"), (1 << 20, True, "1.0 MiB"),
    (3 << 30, True, "3.0 GiB"), (1023, True, "1023 bytes"), (1, False, "1 byte"),
    (1, True, "1 byte"), (0, False, "0 bytes")])
def test_human_size(n: int, binary: bool, text: str):
    assert human_size(n, binary=binary) == text


def test_preset_numbers_are_the_scanner_kinds_in_order():
    assert [PRESET_IDS[k] for k in KINDS] == list(range(len(KINDS)))
    assert {"gpt2", "cl100k", "o200k"} <= set(PRESET_IDS)


def test_the_command_line_offers_the_trainers_tie_rules():
    from bpe_gui.cli.train import TIE_BREAKS
    assert set(TIE_BREAKS) == set(TIE_RULES)


def test_patterns_from_files_are_read_in_one_place():
    """A file's pattern (tokenizer.json's Oniguruma, tiktoken's fancy-regex) becomes a
    `regex` pattern only through text.dialects.read_pattern: no reader translates on its
    own (one did, and our own export's \\x{558} then failed to compile in `check`)."""
    import re
    root = Path(__file__).resolve().parents[2] / "bpe_gui"
    reading = re.compile(r"""translate\([^)]*["'](?:oniguruma|fancy)["']\s*,\s*["']regex["']""")
    found = [str(p.relative_to(root)) for p in root.rglob("*.py")
             if p.name != "dialects.py" and reading.search(p.read_text("utf-8"))]
    assert found == []
