"""Independent oracles the GUI tests of tokenizer analysis share (issue #14): token
classes from tiktoken built from the same vocabulary, and a tokenizer file whose tokens
cross word boundaries (so many are unreachable under GPT-2's pattern)."""
from __future__ import annotations

import json
from pathlib import Path

import tiktoken

from bpe_gui.engine.formats import export_tokenizer
from bpe_gui.engine.train.trainer import Trainer, TrainSettings

GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
CROSSING = r"[\s\S]{1,6}"      # pieces across spaces: unreachable under GPT-2's pattern
CORPUS = ("The quick brown fox jumps over the lazy dog. It's 3:45pm; we'll see...\n"
          "Привет, мир! 你好世界，这是一个测试。 emoji 🙂👍🏽 lowest newest widest\n") * 8


def oracle(tok, pattern: str | None = None) -> dict[int, str]:
    """Each id's class, from tiktoken built from tok's vocabulary (ranks = ids) and
    pattern: decode, encode with tiktoken, compare."""
    special = dict(tok.special_ids)
    ranks: dict[bytes, int] = {}
    for i in sorted(tok.vocab):
        if i not in special.values():
            ranks.setdefault(tok.vocab[i], i)
    enc = tiktoken.Encoding("oracle", pat_str=pattern or tok.pattern, mergeable_ranks=ranks,
                            special_tokens=special)
    out = {}
    for i, b in tok.vocab.items():
        if i in special.values():
            out[i] = "special"
            continue
        try:
            text = b.decode("utf-8")
        except UnicodeDecodeError:
            out[i] = "undecodable"
            continue
        out[i] = "ok" if enc.encode(text, allowed_special="all") == [i] else "unreachable"
    return out


def crossing_tiktoken(tmp_path, vocab_size: int, pattern: str = CROSSING,
                      name: str = "tokenizer"):
    """A tiktoken file trained with pieces that cross spaces, read back with GPT-2's
    pattern: many of its tokens are unreachable (a space inside a word)."""
    text = CORPUS * 6 + " ".join(f"w{i} x{i * 7} {i}z" for i in range(3000))
    t = Trainer.from_text(text, TrainSettings(vocab_size=vocab_size, pattern=pattern))
    t.run(detail=False)
    files = export_tokenizer(t.tokenizer(), tmp_path, "tiktoken", name=name)
    meta = next(p for p in files if p.name.endswith(".json"))
    data = json.loads(meta.read_text(encoding="utf-8"))
    data["pat_str"] = data["pattern"] = GPT2
    meta.write_text(json.dumps(data), encoding="utf-8")
    return next(p for p in files if p.suffix == ".tiktoken")


BARE_TEXT = "call 1234567 now"


def bare_tiktoken(folder) -> tuple[Trainer, Path, list[int]]:
    """A .tiktoken of ranks alone (no NAME.tiktoken.json beside it), trained here with
    GPT-2's pattern, which keeps a run of digits whole where the assumed cl100k pattern
    cuts it every three: (the trainer, the file, BARE_TEXT's ids as trained). The
    trainer that made the file is the oracle of its ids."""
    mine = Trainer.from_text("call 1234567 or 7654321 now " * 40,
                             TrainSettings(vocab_size=290, pattern="gpt2"))
    mine.run()
    files = export_tokenizer(mine.tokenizer(), str(folder), "tiktoken", name="bare")
    ranks = next(p for p in files if p.name.endswith(".tiktoken"))
    for p in files:
        if p != ranks:
            p.unlink()   # the ranks alone
    return mine, ranks, mine.tokenizer().encode(BARE_TEXT, allowed_special="all")
