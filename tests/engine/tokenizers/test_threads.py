"""One tokenizer shared by many threads encodes exactly as one thread does, with every
kind; ``encode_batch`` equals encoding one text after another.

Before: a trained tokenizer's native merge table served one thread at a time (75 of 80
calls from 8 threads raised RuntimeError('Merger is in use on another thread')).
"""
from __future__ import annotations

import json
import threading

import pytest

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")

import hf_files as hfp  # noqa: E402
import tiktoken_files as tti  # noqa: E402

from bpe_gui.engine.errors import BPEError  # noqa: E402
from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.formats import known_encodings as known  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402

WORDS = ["hello", " world", " Привет", " 你好世界", " 🙂", " 12345", "\n\n", "  ", "don't",
         " x" * 40, "^" * 30, " the", " quick", " brown", " fox"]


def _texts(n: int) -> list[str]:
    # each text its own: different words, so every thread fills and reads the caches
    return ["".join(WORDS[(i * 7 + k * 3) % len(WORDS)] + str(i * k) for k in range(300))
            for i in range(n)]


def _trained(pattern="cl100k", **kw):
    t = Trainer.from_text(tti.CORPUS, TrainSettings(vocab_size=420, pattern=pattern, **kw))
    t.run()
    return t.tokenizer()


def _tiktoken_file(tmp_path_factory, pattern):
    d = tmp_path_factory.mktemp("tt")
    path = tti.ranks_file(d, tti.trained_ranks(), "t.tiktoken")
    (d / "t.tiktoken.json").write_text(json.dumps({"pat_str": pattern,
                                                   "special_tokens": {"<|endoftext|>": 1000}}))
    return load_tokenizer(path)


KINDS = {
    "trained-native": lambda f: _trained(),
    "trained-regex": lambda f: _trained(r"\s+|\S+"),
    "trained-char": lambda f: _trained("gpt2", mode="char"),
    "tiktoken-o200k-native": lambda f: _tiktoken_file(f, known.O200K_PATTERN),
    "tiktoken-cl100k": lambda f: _tiktoken_file(f, known.CL100K_PATTERN),
    "tokenizer.json": lambda f: _saved(f, hfp.byte_level_llama3()),
    "tokenizer.json-metaspace": lambda f: _saved(f, hfp.metaspace_fallback()),
}


def _saved(tmp_path_factory, tk):
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    tk.save(str(path))
    return load_tokenizer(path)


@pytest.fixture(scope="module", params=sorted(KINDS))
def tok(request, tmp_path_factory):
    return KINDS[request.param](tmp_path_factory)


def test_many_threads_on_one_tokenizer(tok):
    texts = _texts(80)
    want = [tok.encode(t, allowed_special="all") for t in texts]
    tok = tok.copy_for_thread()()   # fresh caches: the threads fill them together
    got: dict[int, list[int]] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def work(k: int) -> None:
        start.wait()
        for i in range(k, len(texts), 8):
            try:
                got[i] = tok.encode(texts[i], allowed_special="all")
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [got[i] for i in range(len(texts))] == want


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_encode_batch_equals_one_by_one(tok, threads):
    texts = _texts(24) + ["", "x", "<|endoftext|>a"]
    assert tok.encode_batch(texts, threads=threads, allowed_special="all") == [tok.encode(t, allowed_special="all") for t in texts]


def test_encode_batch_refuses_bad_thread_counts():
    tok = _trained()
    for bad in (0, -1, 1.5, "2", True):
        with pytest.raises(BPEError, match="threads"):
            tok.encode_batch(["a"], threads=bad, allowed_special="all")


def test_trainer_steps_while_other_threads_encode():
    """Merges added to the shared native table while snapshots encode on other threads:
    the snapshots keep their step's ids."""
    t = Trainer.from_text(tti.CORPUS * 3, TrainSettings(vocab_size=600, pattern="cl100k"))
    t.run(until=50)
    snap = t.tokenizer().copy_for_thread()()
    texts = _texts(16)
    want = [snap.encode(x, allowed_special="all") for x in texts]
    got: list = []
    worker = threading.Thread(target=lambda: got.extend(snap.encode(x, allowed_special="all") for x in texts * 5))
    worker.start()
    t.run()                  # steps on, pushing merges into the same native table
    t.tokenizer()
    worker.join()
    assert got == want * 5
    assert snap.n_merges == 50
