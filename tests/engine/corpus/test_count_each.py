"""Several files counted at once, a table each (corpus/count_each.py, what parity training
counts its languages' files with): each table equals a slow `regex` count of its file
alone, whether the file is counted by one thread among others or by all of them; an
empty file gives None; errors come in the files' order."""
from __future__ import annotations

import random

import pytest
import regex

from bpe_gui.engine.corpus import range_threads
from bpe_gui.engine.corpus.count_each import count_each
from bpe_gui.engine.errors import CorpusError
from bpe_gui.engine.text.pretokenize import Pretokenizer

from engine_oracle import word_counts

pytest.importorskip("bpe_gui.engine.corpus._count")
WORDS = ["the", "cat", "sat", " on", "mat", "naïve", "满纸荒唐言", "we'll", "  ", "7", "😀",
         "—", "?!", "\n", "\n\n"]


def text(seed: int, n: int) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(n)) + "\n"


def oracle(path, lines: bool) -> dict[str, int]:
    """Word counts of the file alone, each line on its own with ``lines``."""
    body = path.read_text(encoding="utf-8")
    counts: dict[str, int] = {}
    for piece in regex.split(r"(?<=\n)", body) if lines else [body]:
        for w, c in word_counts(piece, []).items():
            counts[w] = counts.get(w, 0) + c
    return counts


def as_dict(table) -> dict[str, int]:
    return dict(zip(table.words, table.counts))


@pytest.mark.parametrize("workers", [1, 2, 3])
@pytest.mark.parametrize("lines", [True, False])
def test_each_table_is_its_file_counted_alone(tmp_path, monkeypatch, workers, lines):
    # ranges of 200 bytes: the files below 200 * workers bytes are counted whole by one
    # thread each, the others by all the threads in ranges
    monkeypatch.setattr(range_threads, "MIN_RANGE", 200)
    monkeypatch.setattr("bpe_gui.engine.corpus.count_each.MIN_RANGE", 200)
    paths = []
    for i, n in enumerate([5, 40, 300, 3, 900, 60, 1]):
        p = tmp_path / f"f{i}.txt"
        p.write_text(text(i, n), encoding="utf-8")
        paths.append(p)
    sizes = [p.stat().st_size for p in paths]
    assert min(sizes) < 200 and max(sizes) > 600   # both ways of counting, at any workers
    got = list(count_each(paths, Pretokenizer("gpt2"), lines=lines, workers=workers))
    assert [as_dict(t) for t in got] == [oracle(p, lines) for p in paths]


def test_an_empty_file_gives_none_and_errors_come_in_order(tmp_path):
    full, empty = tmp_path / "full.txt", tmp_path / "empty.txt"
    full.write_text("the cat sat\n", encoding="utf-8")
    empty.write_text("", encoding="utf-8")
    got = list(count_each([empty, full], Pretokenizer("gpt2"), workers=2))
    assert got[0] is None and as_dict(got[1]) == {"the": 1, " cat": 1, " sat": 1, "\n": 1}
    missing = tmp_path / "missing.txt"
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\x00\x01\x02" * 100)
    seen = []
    with pytest.raises(CorpusError, match="missing.txt"):
        for t in count_each([full, missing, binary], Pretokenizer("gpt2"), workers=2):
            seen.append(t)
    assert len(seen) == 1   # the table before the first error came out
