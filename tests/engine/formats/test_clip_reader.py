"""CLIP's merges file: the merges as the file gives them, the vocabulary as CLIP's
SimpleTokenizer builds it, and gzip files that are damaged or bombs refused."""
from __future__ import annotations

import gzip
import tracemalloc

import pytest

from bpe_gui.engine.errors import FormatError
from bpe_gui.engine.formats import clip_fmt
from bpe_gui.engine.formats.clip_fmt import (N_MERGES, byte_alphabet, looks_like_clip_merges,
                                             parse_clip_merges, read_clip_merges)


@pytest.mark.parametrize("which", ["gz", "plain"])
def test_merges_are_the_trained_ones(clip_file, which):
    m = read_clip_merges(getattr(clip_file, which))
    assert m.merges == clip_file.merges
    assert m.file_merges == len(clip_file.merges)
    assert m.header.endswith("#version: 0.2")


def test_the_vocabulary_as_clip_builds_it(clip_file):
    """256 byte characters, the same with '</w>', the merges joined, the two specials;
    every merged token is one the trainer made."""
    m = read_clip_merges(clip_file.gz)
    vocab = m.vocab()
    assert len(vocab) == 512 + len(m.merges) + 2
    assert sorted(vocab[:256]) == sorted(byte_alphabet())
    assert vocab[256:512] == [c + "</w>" for c in vocab[:256]]
    assert vocab[-2:] == ["<start_of_text>", "<end_of_text>"]
    assert all(vocab[512 + i] == a + b for i, (a, b) in enumerate(clip_file.merges))
    assert len(set(vocab)) == len(vocab)


def test_open_clips_own_tokenizer_agrees(clip_file):
    """With open_clip installed: its SimpleTokenizer over the same file has this vocabulary."""
    oc = pytest.importorskip("open_clip.tokenizer")
    st = oc.SimpleTokenizer(bpe_path=str(clip_file.gz))
    vocab = read_clip_merges(clip_file.gz).vocab()
    assert [st.encoder[t] for t in vocab] == list(range(len(vocab)))


def test_only_the_first_n_merges_are_used(clip_file):
    text = clip_file.plain.read_text("utf-8")
    m = parse_clip_merges(text.encode(), n_merges=10)
    assert m.merges == clip_file.merges[:10] and m.file_merges == len(clip_file.merges)
    assert N_MERGES == 48894


def test_recognised_by_content(clip_file):
    head = clip_fmt.inflate_head(clip_file.gz.read_bytes()[:4096], 1 << 16)
    assert head is not None and looks_like_clip_merges(head)
    assert looks_like_clip_merges(clip_file.plain.read_bytes()[:8192])
    assert not looks_like_clip_merges(b"#version: 0.2\n" + b"a b\n" * 50)   # GPT-2's


def test_a_bad_line(clip_file, tmp_path):
    lines = clip_file.plain.read_text("utf-8").split("\n")
    lines[5] = "three parts here"
    p = tmp_path / "m.txt"
    p.write_text("\n".join(lines), "utf-8")
    with pytest.raises(FormatError) as e:
        read_clip_merges(p)
    assert e.value.line == 6 and "not a merge" in str(e.value)


def test_a_truncated_gzip(clip_file, tmp_path):
    data = clip_file.gz.read_bytes()
    p = tmp_path / "t.gz"
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(FormatError, match="truncated gzip"):
        read_clip_merges(p)


def test_a_gzip_bomb_is_not_unpacked(tmp_path):
    p = tmp_path / "bomb.txt.gz"
    p.write_bytes(gzip.compress(b"a b\n" * (50 << 20), compresslevel=9))   # 200 MB inside
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match="inflates to more than"):
            read_clip_merges(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # inflated up to the cap (64 MiB) and no further: less than what is inside, which
    # inflated whole would be 200 MiB before any copy (time: bench/bench_refusals.py)
    assert peak < 200 << 20


def test_not_gzip_not_text(tmp_path):
    p = tmp_path / "x.gz"
    p.write_bytes(b"\x1f\x8b" + b"\xff" * 100)
    with pytest.raises(FormatError, match="not a valid gzip"):
        read_clip_merges(p)
