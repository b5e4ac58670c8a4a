"""Known mixtures of the fixture corpora, for the data-mixture tests: a byte-level BPE
trained by Hugging Face ``tokenizers`` on given shares of English, Chinese and Python
(training halves), and samples from the other halves (interleaved chunks of lines, so a
sample never holds a line the tokenizer was trained on)."""
from __future__ import annotations

import lzma
import os
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "corpora"
CORPORA = Path(os.environ.get("BPE_GUI_CORPORA_DIR", FIXTURES))
FILES = {"en": ("en-gutenberg-20mb.txt.xz", 200_000),
         "zh": ("zh-four-classic-novels.txt.xz", 100_000),
         "py": ("code-python-stdlib.py.txt.xz", 150_000)}
CHUNK_LINES = 10


def halves(name: str) -> tuple[str, str]:
    """(training half, sample half) of a category's text."""
    file, chars = FILES[name]
    with lzma.open(CORPORA / file, "rt", encoding="utf-8") as f:
        lines = f.read(chars).splitlines(keepends=True)
    chunks = ["".join(lines[i:i + CHUNK_LINES]) for i in range(0, len(lines), CHUNK_LINES)]
    return "".join(chunks[0::2]), "".join(chunks[1::2])


def take_bytes(text: str, n: int) -> str:
    """``n`` UTF-8 bytes of ``text`` (repeated if shorter), cut at a character."""
    b = text.encode("utf-8")
    return (b * (n // len(b) + 1))[:n].decode("utf-8", "ignore")


def train_mixture(shares: dict[str, float], total: int, merges: int, path: Path) -> Path:
    """tokenizer.json of a ByteLevel BPE trained on ``total`` bytes mixed by ``shares``
    (documents of 50 lines, newlines kept)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    docs = []
    for name, share in shares.items():
        lines = take_bytes(halves(name)[0], int(share * total)).splitlines(keepends=True)
        docs += ["".join(lines[i:i + 50]) for i in range(0, len(lines), 50)]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(docs, trainers.BpeTrainer(
        vocab_size=256 + merges, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.save(str(path))
    return path


def samples() -> dict[str, str]:
    return {name: halves(name)[1] for name in FILES}
