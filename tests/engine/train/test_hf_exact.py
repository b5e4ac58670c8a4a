"""Hugging Face's merges exactly: one text per line (``lines``) and tokenizers' tie rule
(``lowest-ids-hf``) against tokenizers' own ``BpeTrainer`` on real text.

The oracle is tokenizers itself: ``Tokenizer.train(files)`` with a ByteLevel
pre-tokenizer (no prefix space, GPT-2's split) and all 256 bytes as the initial alphabet.
Its merges are strings of GPT-2's byte characters; the map back to bytes is read from
tokenizers' own pre-tokenizer (``byte_map``), not from ours.
"""
from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest

from bpe_gui.engine.corpus import blocks, count_corpus
from bpe_gui.engine.text import lines_of
from bpe_gui.engine.text.pretokenize import Pretokenizer
from bpe_gui.engine.train import Trainer, TrainSettings

from engine_oracle import available_cores, count_ranges_here, using_core

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

SHARED = Path(__file__).resolve().parents[4] / "shared" / "corpora"
CORPORA = ["en-tinyshakespeare.txt.xz", "zh-four-classic-novels.txt.xz",
           "zh-en-d2l-zh-markdown.txt.xz", "code-python-stdlib.py.txt.xz",
           "multi-utf8-demo.txt"]
HF = {"tie_rule": "lowest-ids-hf", "lines": True}


def read_corpus(path: Path, chars: int | None = None) -> str:
    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as f:
        return f.read() if chars is None else f.read(chars)


def byte_map() -> dict[str, int]:
    """GPT-2 byte character -> byte, as tokenizers' ByteLevel writes each byte: every byte
    that valid UTF-8 holds, read off the pieces of characters of 1 to 4 bytes."""
    pre = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    out: dict[str, int] = {}
    for cp in list(range(0x80)) + list(range(0x80, 0x800, 7)) + list(range(0x800, 0x10000, 61)) \
            + list(range(0x10000, 0x110000, 4099)) + [0x7FF, 0xFFFF, 0x10FFFF]:
        if 0xD800 <= cp <= 0xDFFF:
            continue
        raw = chr(cp).encode("utf-8")
        text = "".join(piece for piece, _ in pre.pre_tokenize_str(chr(cp)))
        assert len(text) == len(raw)
        out.update(zip(text, raw))
    return out


BYTE_OF = byte_map()


def hf_merges(path: Path, vocab_size: int, min_frequency: int = 0) -> list[tuple[bytes, bytes]]:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                  show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train([str(path)], trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    pairs = [m if isinstance(m, list) else m.split(" ") for m in merges]
    return [(bytes(BYTE_OF[c] for c in a), bytes(BYTE_OF[c] for c in b)) for a, b in pairs]


def slice_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "slice.txt"
    path.write_bytes(text.encode("utf-8"))
    return path


def test_byte_map_covers_the_bytes_of_utf8():
    assert len(BYTE_OF) == 256 - 13    # all but C0, C1, F5-FF: never in UTF-8
    assert BYTE_OF["Ġ"] == 0x20 and BYTE_OF["Ċ"] == 0x0A and BYTE_OF["a"] == 0x61


@pytest.mark.parametrize("name", CORPORA)
def test_lines_and_hf_rule_give_bpe_trainers_merges(corpora_dir, tmp_path, name):
    path = corpora_dir / name
    if name.endswith(".xz"):
        path = slice_file(tmp_path, read_corpus(path, 150_000))
    want = hf_merges(path, 1500)
    t = Trainer.from_files([path], TrainSettings(vocab_size=1500, **HF))
    t.run()
    assert t.merges == want
    assert len(want) == 1500 - 256


def test_whole_files_or_another_rule_part_from_hf(corpora_dir, tmp_path):
    """Both halves matter: without lines, or with our own lowest-ids, the merges part."""
    path = slice_file(tmp_path, read_corpus(corpora_dir / "code-python-stdlib.py.txt.xz",
                                            150_000))
    want = hf_merges(path, 1000)
    for settings in (TrainSettings(vocab_size=1000, tie_rule="lowest-ids-hf"),
                     TrainSettings(vocab_size=1000, tie_rule="lowest-ids", lines=True)):
        t = Trainer.from_files([path], settings)
        t.run()
        assert t.merges != want


def test_min_frequency_stops_where_hf_stops(corpora_dir, tmp_path):
    path = slice_file(tmp_path, read_corpus(corpora_dir / "zh-four-classic-novels.txt.xz",
                                            30_000))
    want = hf_merges(path, 5000, min_frequency=20)
    assert len(want) < 5000 - 256   # it stopped early
    t = Trainer.from_files([path], TrainSettings(vocab_size=5000, min_frequency=20, **HF))
    t.run()
    assert t.merges == want


def test_small_blocks_on_threads_count_lines_alike(corpora_dir, tmp_path, monkeypatch):
    """Blocks of 16 KB (cut after a line's \\n) counted on 3 threads, and a line longer
    than a block (cut at a safe boundary inside it): still HF's merges."""
    text = read_corpus(corpora_dir / "zh-en-d2l-zh-markdown.txt.xz", 120_000)
    long_line = " ".join(text.replace("\n", " ").split()[:8000]) + "\r\n"
    path = slice_file(tmp_path, text[:60_000] + long_line + text[60_000:])
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 16 << 10)
    want = hf_merges(path, 1200)
    t = Trainer.from_files([path], TrainSettings(vocab_size=1200, **HF), workers=3)
    t.run()
    assert t.merges == want


@pytest.mark.parametrize("core", available_cores())
def test_both_cores_give_hf_merges(corpora_dir, tmp_path, core):
    path = slice_file(tmp_path, read_corpus(corpora_dir / "code-python-stdlib.py.txt.xz",
                                            6_000))
    want = hf_merges(path, 420)
    with using_core(core):
        t = Trainer.from_files([path], TrainSettings(vocab_size=420, **HF))
        t.run()
    assert t.merges == want


@pytest.mark.slow
def test_twenty_mb_of_english_gives_hf_merges(tmp_path):
    """The whole 20 MB corpus to 10,000 tokens (the shared corpora, where present)."""
    full = SHARED / "en-gutenberg-20mb.txt.xz"
    if not full.is_file():
        pytest.skip(f"{full} is not here")
    path = slice_file(tmp_path, read_corpus(full))
    want = hf_merges(path, 10_000)
    t = Trainer.from_files([path], TrainSettings(vocab_size=10_000, **HF))
    t.run()
    assert t.merges == want


# --- counting one text per line ---------------------------------------------------------

LINES_TEXT = ("First line  \nsecond\r\n\n\n   indented\tand tabbed \t\n"
              "trailing spaces   \nno newline at the end   ")


def hf_words(text: str) -> dict[bytes, int]:
    """tokenizers' pre-tokenizer on each line as its train(files) reads them."""
    pre = pre_tokenizers.ByteLevel(add_prefix_space=False)
    counts: dict[bytes, int] = {}
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        for piece, _ in pre.pre_tokenize_str(text[start:end]):
            w = bytes(BYTE_OF[c] for c in piece)
            counts[w] = counts.get(w, 0) + 1
        start = end
    return counts


def table_counts(table) -> dict[bytes, int]:
    return {w.encode("utf-8"): f for w, f in zip(table.words, table.freqs)}


def test_lines_count_the_words_hf_reads(tmp_path):
    want = hf_words(LINES_TEXT)
    assert b"  \n" in want and b"\r\n" in want   # a line's end stays in its last word
    assert table_counts(count_corpus(texts=[LINES_TEXT], lines=True)) == want
    path = tmp_path / "t.txt"
    path.write_bytes(LINES_TEXT.encode())
    assert table_counts(count_corpus([path], lines=True)) == want
    assert table_counts(count_corpus([path])) != want     # whole files: words span lines


def test_lines_with_a_regex_pattern_and_jsonl(tmp_path):
    """The `regex` path (a custom pattern) and .jsonl documents cut lines the same way."""
    pattern = r"\s+|\S+"
    pre = Pretokenizer(pattern)
    want: dict[str, int] = {}
    for line in LINES_TEXT.split("\n"):
        for piece in [line + "\n"] if line != LINES_TEXT.split("\n")[-1] else [line]:
            for w in pre.words(piece):
                want[w] = want.get(w, 0) + 1
    got = count_corpus(texts=[LINES_TEXT], pre=pre, lines=True)
    assert dict(zip(got.words, got.freqs)) == want
    doc = tmp_path / "d.jsonl"
    doc.write_text(json.dumps({"text": LINES_TEXT}) + "\n", encoding="utf-8")
    got = count_corpus([doc], pre=pre, lines=True)
    assert dict(zip(got.words, got.freqs)) == want
    native = count_corpus([doc], lines=True)
    assert table_counts(native) == hf_words(LINES_TEXT)


def test_lines_of_cuts_after_each_newline_only():
    text = "a\r\nb\u2028c\x0bd\n\ne"
    assert lines_of(text) == ["a\r\n", "b\u2028c\x0bd\n", "\n", "e"]
    assert "".join(lines_of(text)) == text
    assert lines_of("x\n") == ["x\n"] and lines_of("") == []


def test_ranges_count_lines_as_the_reader_does(corpora_dir, tmp_path):
    """The Dask tasks' path (byte ranges starting at line starts) equals the reader's."""
    from bpe_gui.engine.corpus.range_count import merge_partials, table_of
    path = slice_file(tmp_path, read_corpus(corpora_dir / "en-tinyshakespeare.txt.xz", 80_000))
    pre = Pretokenizer()
    here = count_corpus([path], pre, lines=True)
    ranged = table_of(merge_partials(*count_ranges_here([path], pre, 7_000, lines=True)))
    assert ranged.words == here.words and list(ranged.freqs) == list(here.freqs)


# --- what cannot work, said ------------------------------------------------------------

def test_a_table_counted_from_whole_texts_is_refused_for_lines(tmp_path):
    from bpe_gui.engine.corpus import write_table
    from bpe_gui.engine.errors import SettingsError
    whole = count_corpus(texts=[LINES_TEXT])
    with pytest.raises(SettingsError, match="counted from whole texts.*count_corpus"):
        Trainer(whole, TrainSettings(vocab_size=300, lines=True))
    path = tmp_path / "whole.counts.tsv"
    write_table(whole, path)
    with pytest.raises(SettingsError, match=r"counted from whole files.*--lines"):
        Trainer.from_counts(path, TrainSettings(vocab_size=300, lines=True))
    lined = tmp_path / "lines.counts.tsv"
    write_table(count_corpus(texts=[LINES_TEXT], lines=True), lined)
    with pytest.raises(SettingsError, match="one text per line.*lines=True"):
        Trainer.from_counts(lined, TrainSettings(vocab_size=300))
    t = Trainer.from_counts(lined)          # no settings: the table's own way
    assert t.settings.lines
    with pytest.raises(SettingsError, match="cannot be summed"):
        from bpe_gui.engine.corpus import read_tables
        read_tables([path, lined])


def test_superbpe_with_lines_is_refused():
    from bpe_gui.engine.errors import SettingsError
    with pytest.raises(SettingsError, match="SuperBPE.*lines"):
        TrainSettings(vocab_size=400, superbpe_from=10, lines=True).validated()
    with pytest.raises(TypeError, match="lines"):
        TrainSettings(lines="yes")  # type: ignore[arg-type]


def test_a_tie_is_explained_with_tokenizers_own_ids(corpora_dir, tmp_path):
    path = slice_file(tmp_path, read_corpus(corpora_dir / "code-python-stdlib.py.txt.xz",
                                            20_000))
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train([str(path)], trainers.BpeTrainer(
        vocab_size=500, min_frequency=0, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    char_of = {b: c for c, b in BYTE_OF.items()}
    t = Trainer.from_files([path], TrainSettings(vocab_size=500, **HF))
    tied = [rec for rec in t.run() if rec.n_tied > 1]
    assert tied
    for rec in tied[:20]:
        theirs = [tok.token_to_id("".join(char_of[x] for x in t.vocab_bytes[i])) for i in rec.pair]
        assert f"as Hugging Face numbers them ({theirs[0]}, {theirs[1]})" in \
            t.explain(rec, rec.tied)
