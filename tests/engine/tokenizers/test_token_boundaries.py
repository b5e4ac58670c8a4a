"""Rank-based long words cut where no token can cross (csrc/merge/token_boundaries.c) give tiktoken's ids.

The engine cuts a word of non-ASCII letters (a Chinese clause) at the positions no token
of the vocabulary spans and merges each piece alone; whether a token spans a position is
read from bit tables of the 2-5 byte strings inside tokens. A wrong table or a wrong
window near a word's ends would cut through a token and change the ids. Here the
vocabulary is trained on Chinese and other scripts, plus extra tokens cut from the text at
random byte offsets (2-9 bytes, across characters and inside them, as tiktoken allows
tokens no merge makes), and every text is compared with ``tiktoken`` on the same ranks.
"""
from __future__ import annotations

import json
import lzma
import random
from pathlib import Path

import pytest

tiktoken = pytest.importorskip("tiktoken")

import tiktoken_files as tti  # noqa: E402  (the .tiktoken writer)

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.formats import known_encodings as known  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "corpora"


def _texts() -> tuple[str, str]:
    with lzma.open(FIXTURES / "zh-four-classic-novels.txt.xz", "rt", encoding="utf-8") as f:
        zh = f.read(40_000)
    demo = (FIXTURES / "multi-utf8-demo.txt").read_text("utf-8")
    return zh, demo


def _ranks(text: str, seed: int) -> dict[bytes, int]:
    t = Trainer.from_text(text, TrainSettings(vocab_size=1500, pattern="cl100k"))
    t.run()
    tok = t.tokenizer()
    ranks = {tok.vocab[i]: i for i in sorted(tok.vocab) if i not in tok.special_ids.values()}
    data = text.encode("utf-8")
    rng = random.Random(seed)
    for _ in range(3000):   # byte strings across and inside characters, 2-9 bytes
        a = rng.randrange(len(data) - 9)
        ranks.setdefault(data[a:a + rng.randint(2, 9)], len(ranks))
    return ranks


@pytest.fixture(scope="module", params=["cl100k", "o200k"])
def pair(request, tmp_path_factory):
    zh, demo = _texts()
    pattern = known.CL100K_PATTERN if request.param == "cl100k" else known.O200K_PATTERN
    ranks = _ranks(zh[:20_000] + demo, seed=len(request.param))
    d = tmp_path_factory.mktemp("cut")
    path = tti.ranks_file(d, ranks, "cut.tiktoken")
    (d / "cut.tiktoken.json").write_text(json.dumps({"pat_str": pattern, "special_tokens": {}}))
    enc = tiktoken.Encoding("cut", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    return load_tokenizer(path), enc, zh, demo


def test_texts(pair):
    ours, enc, zh, demo = pair
    for text in (zh, demo):
        assert ours.encode(text) == enc.encode_ordinary(text)
        assert b"".join(ours.encode_with_offsets(text).tokens) == text.encode("utf-8")


def test_random_words(pair):
    """Words of 3-60 characters drawn from the texts' letters, each encoded alone (its
    first and last bytes are where the windows are cut short)."""
    ours, enc, zh, demo = pair
    letters = sorted({c for c in zh + demo if c.isalpha() and ord(c) > 127})
    rng = random.Random(7)
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 60)))
             for _ in range(3000)]
    assert [ours.encode(w) for w in words] == [enc.encode_ordinary(w) for w in words]
    text = " ".join(words)
    assert ours.encode(text) == enc.encode_ordinary(text)


# ----- tokenizer.json: merge-based files get the same cut (every merge makes a token) -----
tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Regex, decoders, models, pre_tokenizers, trainers  # noqa: E402


def _hf_file(d: Path, text: str, shuffle_ids: bool) -> Path:
    """A ByteLevel BPE trained by tokenizers on the text; shuffle_ids: the same merges
    with the token ids permuted, so merge order no longer follows the ids (the file is
    not rank-consistent: only the merge list says what merges first)."""
    tk = tokenizers.Tokenizer(models.BPE(ignore_merges=False))
    tk.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(known.LLAMA3_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tk.decoder = decoders.ByteLevel()
    tk.train_from_iterator([text], trainers.BpeTrainer(
        vocab_size=1500, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = d / ("shuffled.json" if shuffle_ids else "tokenizer.json")
    tk.save(str(path))
    if shuffle_ids:
        data = json.loads(path.read_text("utf-8"))
        vocab = data["model"]["vocab"]
        ids = list(vocab.values())
        random.Random(5).shuffle(ids)
        data["model"]["vocab"] = dict(zip(vocab, ids))
        path.write_text(json.dumps(data), "utf-8")
    return path


@pytest.mark.parametrize("shuffle_ids", [False, True], ids=["trained", "ids-shuffled"])
def test_tokenizer_json_cut(tmp_path, shuffle_ids):
    zh, demo = _texts()
    path = _hf_file(tmp_path, zh[:20_000] + demo, shuffle_ids)
    ours, hf = load_tokenizer(path), tokenizers.Tokenizer.from_file(str(path))
    letters = sorted({c for c in zh + demo if c.isalpha() and ord(c) > 127})
    rng = random.Random(11)
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 60))) for _ in range(2000)]
    for text in (zh, demo, " ".join(words)):
        assert ours.encode(text) == hf.encode(text, add_special_tokens=False).ids
    assert [ours.encode(w) for w in words[:500]] == \
        [e.ids for e in hf.encode_batch(words[:500], add_special_tokens=False)]
