"""``Tokenizer.encode_files``: corpus files -> a flat ids file, against tiktoken on OpenAI's
published cl100k and r50k (GPT-2) ranks and tokenizers on tokenizer.json files: the ids
are each document's ``encode_ordinary`` joined by the end-of-text id, whatever the block
size, the batch size and the threads; bad input is refused with the fix and leaves no file."""
from __future__ import annotations

import gzip
import json
import lzma
import random

import pytest

np = pytest.importorskip("numpy")
tiktoken = pytest.importorskip("tiktoken")
tiktoken_load = pytest.importorskip("tiktoken.load")

from bpe_gui.engine import load_tokenizer  # noqa: E402
from bpe_gui.engine.corpus import blocks  # noqa: E402
from bpe_gui.engine.errors import ArgumentError, CorpusError, EmptyCorpusError, \
    ExportError, NotUTF8Error  # noqa: E402
from bpe_gui.engine.tokenizers import ids_file  # noqa: E402

from tiktoken_files import npm_ranks  # noqa: E402


@pytest.fixture(scope="module", params=["cl100k_base", "r50k_base"])
def published(request, tmp_path_factory):
    got = npm_ranks(request.param, tmp_path_factory.mktemp(request.param))
    if got is None:
        pytest.skip("the npm package tiktoken is not here (BPE_GUI_TIKTOKEN_TGZ)")
    path, meta = got
    enc = tiktoken.Encoding(request.param, pat_str=meta["pat_str"],
                            mergeable_ranks=tiktoken_load.load_tiktoken_bpe(str(path)),
                            special_tokens=meta["special_tokens"])
    return load_tokenizer(path), enc


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 4 KB and batches of 8 KB a thread: a small text crosses many of each."""
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 4096)
    monkeypatch.setattr(ids_file, "BATCH_CHARS", 8192)


def joined(batches: list[list[int]], eot: int) -> list[int]:
    out: list[int] = []
    for ids in batches:
        out += ([eot] if out else []) + ids
    return out


def read_ids(path, meta) -> list[int]:
    return np.memmap(path, dtype=meta["dtype"], mode="r").tolist()


def corpus_files(tmp_path, corpora_dir):
    """An English excerpt (.xz as published), Chinese with special tokens' text in it, a
    .jsonl.gz with its text under "body" (one line blank, one text empty)."""
    en = corpora_dir / "en-gutenberg-20mb.txt.xz"
    zh_text = lzma.open(corpora_dir / "zh-four-classic-novels.txt.xz").read().decode()[:20000]
    zh_text = zh_text.replace("。", "。<|endoftext|>", 7) + "\n\n<|fim_prefix|> tail  "
    zh = tmp_path / "zh.txt"
    zh.write_text(zh_text, "utf-8")
    lines = ["café au lait\n\nsecond paragraph", "", "def f(x):\n    return x  # 🙂", "x" * 3000]
    jl = tmp_path / "docs.jsonl.gz"
    with gzip.open(jl, "wt", encoding="utf-8") as f:
        for k, t in enumerate(lines):
            f.write(json.dumps({"id": k, "body": t}) + "\n" + ("\n" if k == 0 else ""))
    return [en, zh, jl], [lzma.open(en).read().decode(), zh_text], lines


@pytest.mark.parametrize("separator", [None, "\n\n", "<|endoftext|>"])
@pytest.mark.parametrize("threads", [1, 3])
def test_ids_are_each_documents_encode_ordinary_joined_by_eot(
        published, tmp_path, corpora_dir, small_blocks, separator, threads):
    tok, enc = published
    paths, texts, lines = corpus_files(tmp_path, corpora_dir)
    docs = [d for t in texts for d in (t.split(separator) if separator else [t]) if d]
    docs += [t for t in lines if t]
    want = joined(enc.encode_ordinary_batch(docs), enc.eot_token)
    seen: list[tuple[int, int]] = []
    meta = tok.encode_files(paths, tmp_path / "ids.bin", field="body", separator=separator,
                            num_threads=threads, progress=lambda d, t: seen.append((d, t)))
    assert read_ids(tmp_path / "ids.bin", meta) == want
    assert meta["dtype"] == ("uint16" if enc.n_vocab <= 1 << 16 else "uint32")
    assert (tmp_path / "ids.bin").stat().st_size == len(want) * (2 if meta["dtype"] ==
                                                                 "uint16" else 4)
    assert json.loads((tmp_path / "ids.bin.json").read_text("utf-8")) == meta
    assert meta["count"] == len(want) and meta["documents"] == len(docs)
    assert meta["eot_id"] == enc.eot_token and meta["sources"] == [str(p) for p in paths]
    assert seen[-1][0] == seen[-1][1] == sum(p.stat().st_size for p in paths)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize("separator", ["\n\n", "ab", "oftext"])
def test_runs_of_separators_and_special_text_at_block_edges(published, tmp_path,
                                                            small_blocks, separator):
    """Documents that are empty, separators in runs of any length, at a file's ends and
    across blocks, and the end-of-text token's own text in a few blocks only (a batch
    with glued blocks and blocks of text that must stay text); "oftext" cuts that text,
    so a block holds it and none of its documents does."""
    tok, enc = published
    rng = random.Random(7)
    parts = ["word ", "a", "b", "\n", separator, separator * 2, separator * 3, "中文。",
             " x"] * 20 + ["<|endoftext|>"]
    text = separator * 2 + "".join(rng.choices(parts, k=6000)) + separator
    (tmp_path / "t.txt").write_text(text, "utf-8")
    docs = [d for d in text.split(separator) if d]
    meta = tok.encode_files([tmp_path / "t.txt"], tmp_path / "o.bin", separator=separator,
                            num_threads=2)
    assert read_ids(tmp_path / "o.bin", meta) == joined(enc.encode_ordinary_batch(docs),
                                                        enc.eot_token)
    assert meta["documents"] == len(docs)


def test_eot_given_and_uint32_when_it_does_not_fit(published, tmp_path):
    tok, enc = published
    (tmp_path / "a.txt").write_text("one doc", "utf-8")
    (tmp_path / "b.txt").write_text("two", "utf-8")
    meta = tok.encode_files([tmp_path / "a.txt", tmp_path / "b.txt"], tmp_path / "o.bin",
                            eot=70000)
    assert meta["dtype"] == "uint32"
    assert read_ids(tmp_path / "o.bin", meta) == joined(
        [enc.encode_ordinary("one doc"), enc.encode_ordinary("two")], 70000)


@pytest.mark.parametrize("case", ["llama3-ignore-merges", "gpt2-bytelevel-regex",
                                  "metaspace-first-fallback", "nfkc-lowercase"])
def test_tokenizer_json_against_tokenizers(tmp_path, corpora_dir, small_blocks, case):
    """A byte-level tokenizer.json whose text goes whole to the C encoder (cut in blocks)
    and ones whose documents are encoded whole (a prefix space, a normalizer)."""
    pytest.importorskip("tokenizers")
    from hf_files import CASES
    hf = CASES[case]()
    hf.save(str(tmp_path / "tokenizer.json"))
    tok = load_tokenizer(tmp_path / "tokenizer.json")
    text = lzma.open(corpora_dir / "en-tinyshakespeare.txt.xz").read().decode()[:30000]
    (tmp_path / "c.txt").write_text(text, "utf-8")
    docs = [d for d in text.split("\n\n") if d]
    want = joined([e.ids for e in hf.encode_batch(docs, add_special_tokens=False)], 1)
    meta = tok.encode_files([tmp_path / "c.txt"], tmp_path / "o.bin", separator="\n\n",
                            eot=1, num_threads=2)
    assert read_ids(tmp_path / "o.bin", meta) == want


def test_no_eot_token_names_the_argument(tmp_path):
    pytest.importorskip("tokenizers")
    from hf_files import CASES
    CASES["metaspace-first-fallback"]().save(str(tmp_path / "tokenizer.json"))
    tok = load_tokenizer(tmp_path / "tokenizer.json")
    (tmp_path / "a.txt").write_text("x", "utf-8")
    with pytest.raises(ArgumentError, match=r"eot=ID.*--eot-id"):
        tok.encode_files([tmp_path / "a.txt"], tmp_path / "o.bin")
    assert_nothing_written(tmp_path, "a.txt", "tokenizer.json")


def assert_nothing_written(folder, *keep):
    assert sorted(p.name for p in folder.iterdir()) == sorted(keep)


def test_bad_input_is_refused_and_leaves_no_file(published, tmp_path):
    tok, _ = published
    good = tmp_path / "good.txt"
    good.write_text("some text " * 1000, "utf-8")
    jl = tmp_path / "d.jsonl"
    jl.write_text('{"text": "a"}\n{"text": "b"}\n{"txt": "c"}\n', "utf-8")
    with pytest.raises(CorpusError, match=r"line 3 has no \"text\""):
        tok.encode_files([good, jl], tmp_path / "o.bin")
    bad = tmp_path / "bad.txt"
    bad.write_bytes("fine text ".encode() * 50 + b"\xff rest")
    with pytest.raises(NotUTF8Error, match="byte offset 500"):
        tok.encode_files([good, bad], tmp_path / "o.bin")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with pytest.raises(EmptyCorpusError, match="no text"):
        tok.encode_files([empty], tmp_path / "o.bin")
    with pytest.raises(ExportError, match="Cannot write .*no-such-folder"):
        tok.encode_files([good], tmp_path / "no-such-folder" / "o.bin")
    with pytest.raises(ArgumentError, match="empty separator"):
        tok.encode_files([good], tmp_path / "o.bin", separator="")
    with pytest.raises(ArgumentError, match="no files"):
        tok.encode_files([], tmp_path / "o.bin")
    assert_nothing_written(tmp_path, "good.txt", "d.jsonl", "bad.txt", "empty.txt")


def test_an_existing_output_stays_whole_on_failure(published, tmp_path):
    tok, _ = published
    (tmp_path / "o.bin").write_bytes(b"old")
    (tmp_path / "bad.txt").write_bytes(b"\xc3")
    with pytest.raises(NotUTF8Error):
        tok.encode_files([tmp_path / "bad.txt"], tmp_path / "o.bin")
    assert (tmp_path / "o.bin").read_bytes() == b"old"
    assert_nothing_written(tmp_path, "o.bin", "bad.txt")


def test_documents_split_at_a_separator_across_chunks():
    """The splitter of documents encoded whole: a separator cut by a chunk's end."""
    chunks = ["ab<|e", "nd|>cd<|end|", ">", "<|end|>e", "f<", "|end|>"]
    got = list(ids_file._documents(iter(chunks), "<|end|>"))
    assert got == "".join(chunks).split("<|end|>")
    assert list(ids_file._documents(iter(["a\n", "\nb\n\n\n", "\n"]), "\n\n")) == \
        "a\n\nb\n\n\n\n".split("\n\n")
    assert list(ids_file._documents(iter(["ab", "c"]), None)) == ["abc"]
