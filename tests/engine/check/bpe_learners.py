"""Learners' trainers and encoders for the "Check my BPE" tests: one correct trainer,
written here the way CS336 and minbpe write one (bytes tuples, a Counter of pairs,
``max`` by count then pair), and deliberately wrong ones, each the correct one with one
mistake in a few lines; the same for encoders. Plus writers of a learner's result in
each format the check reads (pickle, GPT-2 files, tokenizer.json through
``tokenizers``, .tiktoken).

None of it uses the engine's trainer or tokenizer: they are what is being checked
against.
"""
from __future__ import annotations

import base64
import json
import pickle
from collections import Counter
from pathlib import Path
from typing import Callable

import regex

from bpe_gui.engine.display import gpt2_text

GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
WHITESPACE = r"\S+|\s+"
EOT = "<|endoftext|>"
TUTORIAL = Path(__file__).resolve().parents[2] / "fixtures" / "check_tutorial.txt"
Word = tuple[bytes, ...]
Pair = tuple[bytes, bytes]


def tutorial_text() -> str:
    return TUTORIAL.read_text(encoding="utf-8")


# ----- the correct trainer, and its parts a mistake replaces -------------------------------
def split_specials(text: str, specials) -> list[str]:
    return regex.split("|".join(map(regex.escape, specials)), text) if specials else [text]


def pretokenize(docs: list[str], pattern: str = GPT2) -> Counter:
    return Counter(w for d in docs for w in regex.findall(pattern, d))


def as_bytes(word: str) -> Word:
    return tuple(bytes([b]) for b in word.encode("utf-8"))


def count_pairs(words: dict[Word, int]) -> Counter:
    counts: Counter = Counter()
    for w, f in words.items():
        for pair in zip(w, w[1:]):
            counts[pair] += f
    return counts


def greatest(counts: Counter) -> Pair:
    return max(counts, key=lambda p: (counts[p], p))


def merge(word: Word, pair: Pair) -> Word:
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def train(text: str, vocab_size: int, specials=(EOT,), *, docs=split_specials,
          words_of=pretokenize, symbols=as_bytes, count=count_pairs, pick=greatest,
          record=lambda pair: pair, n_merges=None):
    """CS336's train_bpe: (vocab, merges). The keyword arguments are the parts the
    wrong trainers replace; by default it is correct."""
    words = Counter()
    for w, f in words_of(docs(text, specials)).items():
        words[symbols(w)] += f
    vocab = {i: bytes([i]) for i in range(256)}
    for s in specials:
        vocab[len(vocab)] = s.encode("utf-8")
    merges = []
    for _ in range(vocab_size - len(vocab) if n_merges is None else n_merges(vocab_size)):
        counts = count(words)
        counts = Counter({p: c for p, c in counts.items() if c > 0})
        if not counts:
            break
        pair = pick(counts)
        merges.append(record(pair))
        vocab[len(vocab)] = pair[0] + pair[1]
        words = Counter({merge(w, pair): f for w, f in words.items()})
    return vocab, merges


# ----- deliberately wrong trainers: one mistake each ---------------------------------------
def first_seen(counts: Counter) -> Pair:
    return max(counts, key=counts.get)   # max(dict) keeps the first of equal counts


def least(counts: Counter) -> Pair:
    return min(counts, key=lambda p: (-counts[p], p))


def no_special_split(text, specials):
    return [text]                         # the special token is read as text


def whole_documents(docs):
    return Counter(docs)                  # no pre-tokenization: a document is one word


def by_whitespace(docs):
    return pretokenize(docs, WHITESPACE)


def as_chars(word: str) -> Word:
    return tuple(c.encode("utf-8") for c in word)


def count_runs_halved(words):
    counts: Counter = Counter()
    for w, f in words.items():            # each distinct pair counted without overlaps,
        free: dict[Pair, int] = {}        # left to right as merge() takes them: one pass
        for i, pair in enumerate(zip(w, w[1:])):   # (merge() per pair was quadratic)
            if i >= free.get(pair, 0):    # not overlapping the last one counted
                counts[pair] += f
                free[pair] = i + 2
    return counts


def record_from_token(pair: Pair) -> Pair:
    token = pair[0] + pair[1]             # the merge written from the new token
    return token[:1], token[1:]


def ignore_specials_in_size(vocab_size: int) -> int:
    return vocab_size - 256               # the special tokens are not counted


WRONG_TRAINERS: dict[str, dict] = {
    "tie-first-seen": dict(pick=first_seen),
    "tie-least": dict(pick=least),
    "specials": dict(docs=no_special_split),
    "boundaries": dict(words_of=whole_documents),
    "overlap": dict(count=count_runs_halved),
    "pattern": dict(words_of=by_whitespace),
    "chars": dict(symbols=as_chars),
    "not-a-pair": dict(record=record_from_token),
    "vocab-size": dict(n_merges=ignore_specials_in_size),
}


# ----- encoders ----------------------------------------------------------------------------
def encode(text: str, vocab, merges, specials=(EOT,), *, pattern=GPT2, split=True,
           pick: Callable = min) -> list[int]:
    """CS336's Tokenizer.encode, correct by default: split at special tokens, cut words,
    in each word merge the lowest-rank pair everywhere, then the next."""
    ranks = {m: r for r, m in enumerate(merges)}
    ids = {t: i for i, t in sorted(vocab.items(), reverse=True)}
    out = []
    parts = regex.split("(" + "|".join(map(regex.escape, specials)) + ")", text) \
        if split and specials else [text]
    for part in parts:
        if split and part in specials:
            out.append(ids[part.encode("utf-8")])
            continue
        for w in regex.findall(pattern, part):
            word = as_bytes(w)
            while len(word) > 1:
                present = [ranks[p] for p in zip(word, word[1:]) if p in ranks]
                if not present:
                    break
                word = merge(word, merges[pick(present)])
            out += [ids[t] for t in word]
    return out


WRONG_ENCODERS: dict[str, dict] = {
    "order": dict(pick=max),              # the highest rank first
    "special": dict(split=False),         # special tokens encoded as text
    "pattern": dict(pattern=WHITESPACE),  # another pattern
}


# ----- a learner's result in each format ---------------------------------------------------
def write_pickle(folder: Path, vocab, merges) -> Path:
    path = folder / "bpe.pkl"
    with open(path, "wb") as f:
        pickle.dump((vocab, merges), f)
    return path


def write_gpt2(folder: Path, vocab, merges, specials=(EOT,)) -> Path:
    keys = {(t.decode() if t.decode("utf-8", "replace") in specials else gpt2_text(t)): i
            for i, t in vocab.items()}
    (folder / "vocab.json").write_text(json.dumps(keys, ensure_ascii=False), encoding="utf-8")
    lines = ["#version: 0.2"] + [f"{gpt2_text(a)} {gpt2_text(b)}" for a, b in merges]
    (folder / "merges.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / "vocab.json"


def write_hf(folder: Path, vocab, merges, specials=(EOT,)) -> Path:
    """tokenizer.json made by the ``tokenizers`` library from the learner's vocab/merges."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    str_vocab = {gpt2_text(t): i for i, t in vocab.items()
                 if t.decode("utf-8", "replace") not in specials}
    tok = Tokenizer(models.BPE(str_vocab, [(gpt2_text(a), gpt2_text(b)) for a, b in merges]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(list(specials))
    path = folder / "tokenizer.json"
    tok.save(str(path))
    return path


def write_tiktoken(folder: Path, vocab, merges, specials=(EOT,), with_meta=True) -> Path:
    """NAME.tiktoken (base64 rank lines; ranks = the learner's ids), and the pattern and
    special tokens beside it."""
    special_bytes = {s.encode("utf-8") for s in specials}
    lines = [f"{base64.b64encode(t).decode()} {i}" for i, t in sorted(vocab.items())
             if t not in special_bytes]
    path = folder / "bpe.tiktoken"
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    if with_meta:
        ids = {t.decode(): i for i, t in vocab.items() if t in special_bytes}
        (folder / "bpe.tiktoken.json").write_text(json.dumps(
            {"pat_str": GPT2, "special_tokens": ids}), encoding="utf-8")
    return path
