"""Which tokenizer file format a file is, from its first bytes and its size, not its name.

:func:`sniff` looks at a file's head (64 KiB is plenty; less works for most formats) and
says which format it is, without trusting the file name and without reading the rest:

==================  ===========================================================
format              recognised by
==================  ===========================================================
gguf                the magic 'GGUF' and a version 2 or 3
sentencepiece       a protobuf ModelProto: field 1 holding a piece (0A .. 0A ..)
tekken              a JSON object with tekken's keys (num_vocab_tokens, token_bytes)
hf                  a JSON object with tokenizer.json's keys (added_tokens, model ...)
native              a JSON object with "format": "bpe-gui"
tiktoken-meta       a JSON object with "pat_str"
gpt2-vocab          a JSON object of "token": id pairs (GPT-2's vocab.json)
gpt2-merges         '#version' and/or lines of two symbols (GPT-2's merges.txt)
clip                gzip (or text) of a header and merges with '</w>' (CLIP)
tiktoken            lines 'BASE64 RANK'
wordpiece-vocab     a vocab.txt of one token a line with [PAD] / [UNK] (BERT)
sentencepiece-vocab lines 'piece<TAB>score' (spm's .vocab listing, no model)
None                anything else (random bytes, weights, archives, text)
==================  ===========================================================

Where the head shows what kind of model it is (a GGUF's ``tokenizer.ggml.model``, a
tokenizer.json's ``model.type``), :attr:`Sniffed.kind` says so and :attr:`Sniffed.problem`
says why a non-BPE one cannot open ('a Unigram SentencePiece model: not BPE, ...').
:func:`sniff_file` reads what more it takes to know the kind (a .model's trainer_spec
sits at its end).
"""
from __future__ import annotations

import json
import os
import re
import struct
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from ..errors import FormatError
from . import clip_fmt, gguf_fmt, sentencepiece_fmt, tekken_fmt

HEAD_BYTES = 64 << 10

LABELS = {
    "gguf": "GGUF model file (llama.cpp, Ollama, LM Studio)",
    "sentencepiece": "SentencePiece model (.model)",
    "tekken": "Mistral tekken.json",
    "hf": "Hugging Face tokenizer.json",
    "native": "bpe-gui JSON",
    "tiktoken-meta": "tiktoken metadata (.tiktoken.json)",
    "gpt2-vocab": "GPT-2 vocab.json",
    "gpt2-merges": "GPT-2 merges.txt",
    "clip": "CLIP merges (bpe_simple_vocab_16e6.txt.gz)",
    "tiktoken": "tiktoken ranks (.tiktoken)",
    "wordpiece-vocab": "WordPiece vocab.txt (BERT)",
    "sentencepiece-vocab": "SentencePiece .vocab listing",
}


@dataclass(frozen=True)
class Sniffed:
    """``format``: a key of LABELS; ``kind``: 'BPE', 'Unigram', 'WordPiece', ... when the
    bytes seen tell (None when they do not); ``problem``: why this file cannot be opened
    as a BPE tokenizer, with what to do (None if nothing is known against it)."""

    format: str
    kind: str | None = None
    problem: str | None = None
    detail: str | None = None      # e.g. a GGUF's tokenizer.ggml.model / .pre

    @property
    def label(self) -> str:
        return LABELS[self.format]


_NOT_BPE_WHAT_TO_DO = {
    "Unigram": "Unigram models pick pieces by likelihood, which BPE merges cannot reproduce; "
               "use its own library (sentencepiece or tokenizers) for it.",
    "WordPiece": "WordPiece (BERT) takes the longest vocabulary prefix of each word, not BPE "
                 "merges; use tokenizers or transformers for it.",
    "WordLevel": "A word-level model maps whole words to ids, with no merges to show.",
}


def _not_bpe(what: str, kind: str) -> str:
    return f"is {what}: not BPE. This app opens BPE tokenizers only. " \
        + _NOT_BPE_WHAT_TO_DO.get(kind, "")


# ----- JSON heads ---------------------------------------------------------------------
_HF_KEYS = re.compile(rb'"(?:added_tokens|pre_tokenizer|normalizer|post_processor|decoder|'
                      rb'truncation|padding)"\s*:')
_HF_MODEL_TYPE = re.compile(rb'"model"\s*:\s*\{\s*"type"\s*:\s*"(\w+)"')
_VOCAB_START = re.compile(rb'\A\{\s*"(?:[^"\\]|\\.)*"\s*:\s*-?\d+\s*[,}]')


def _json_kind(head: bytes) -> Sniffed | None:
    body = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if body[:1] != b"{":
        return None
    if tekken_fmt.looks_like_tekken(head):
        return Sniffed("tekken", "BPE")
    if re.search(rb'"format"\s*:\s*"bpe-gui"', head):
        return Sniffed("native", "BPE")
    if _VOCAB_START.match(body):
        return Sniffed("gpt2-vocab", "BPE")
    if _HF_KEYS.search(head) or re.search(rb'"model"\s*:\s*\{', head):
        m = _HF_MODEL_TYPE.search(head)
        kind = m.group(1).decode() if m else None
        if kind in ("Unigram", "WordPiece", "WordLevel"):
            return Sniffed("hf", kind, _not_bpe(f"a {kind} tokenizer.json (model.type = "
                                                f"{json.dumps(kind)})", kind))
        return Sniffed("hf", kind)
    if re.search(rb'"pat_str"\s*:', head):
        return Sniffed("tiktoken-meta", "BPE")
    return None


# ----- text heads ---------------------------------------------------------------------
_RANK_LINE = re.compile(rb"[A-Za-z0-9+/]*=*[ ][0-9]+\r?")


def _text_kind(head: bytes, final: bool) -> Sniffed | None:
    if b"\0" in head:
        return None
    lines = head.split(b"\n")
    if not final:
        lines = lines[:-1]   # the last one may be cut
    lines = [x for x in lines[:2000]]
    if not lines:
        return None
    if len(lines) >= 2 and all(_RANK_LINE.fullmatch(x) for x in lines if x):
        return Sniffed("tiktoken", "BPE")
    try:
        head.decode("utf-8") if final else head[:max(0, len(head) - 4)].decode("utf-8")
    except UnicodeDecodeError:
        return None
    body = lines[1:] if lines[0].startswith(b"#") else lines
    body = [x for x in body if x]
    if len(body) >= 8 and all(len(x.split(b" ")) == 2 and b"\t" not in x for x in body[:400]):
        if clip_fmt.looks_like_clip_merges(b"#\n" + b"\n".join(body[:400]) + b"\n"):
            return Sniffed("clip", "BPE")
        return Sniffed("gpt2-merges", "BPE")
    if len(body) >= 8 and all(x.count(b"\t") == 1 for x in body[:400]):
        try:
            [float(x.split(b"\t")[1]) for x in body[:400]]
        except ValueError:
            return None
        return Sniffed("sentencepiece-vocab", None,
                       "is a SentencePiece .vocab listing (piece and score per line), which "
                       "holds no merge rules or settings: open the .model file beside it.")
    if lines[0].strip() in (b"[PAD]", b"<pad>", b"[UNK]", b"<unk>") and \
            any(x.strip() in (b"[CLS]", b"[SEP]", b"[MASK]", b"<s>") for x in lines[:1000]):
        return Sniffed("wordpiece-vocab", "WordPiece",
                       _not_bpe("a WordPiece vocabulary (BERT's vocab.txt)", "WordPiece"))
    return None


# ----- binary heads -------------------------------------------------------------------
def _gguf(head: bytes, size: int) -> Sniffed | None:
    if head[:4] != gguf_fmt.MAGIC or len(head) < 8:
        return None
    v = struct.unpack_from("<I", head, 4)[0]
    if v & 0xFFFF == 0:
        v = struct.unpack_from(">I", head, 4)[0]
    if v not in gguf_fmt.VERSIONS and v != 1:
        return None
    model, pre = peek_gguf_tokenizer(head, size)
    if model is None:
        return Sniffed("gguf")
    detail = f"tokenizer.ggml.model = {model!r}" + (f", pre = {pre!r}" if pre else "")
    if model in gguf_fmt.BPE_MODELS:
        return Sniffed("gguf", "BPE", None, detail)
    what = gguf_fmt.MODELS.get(model, f"an unknown model {model!r}")
    kind = {"t5": "Unigram", "bert": "WordPiece"}.get(model, what)
    return Sniffed("gguf", kind, _not_bpe(f"a GGUF file whose vocabulary is {what} "
                                          f"(tokenizer.ggml.model = {model!r})", kind), detail)


def peek_gguf_tokenizer(head: bytes, size: int) -> tuple[str | None, str | None]:
    """tokenizer.ggml.model and .pre, if they are among the keys the head holds (they come
    before the token list in the files llama.cpp's converter writes)."""
    found: dict = {}
    try:
        gguf_fmt.parse_metadata(BytesIO(head), size, None, cap=len(head), into=found)
    except FormatError:
        pass
    model, pre = found.get("tokenizer.ggml.model"), found.get("tokenizer.ggml.pre")
    return (model if isinstance(model, str) else None), (pre if isinstance(pre, str) else None)


def _sentencepiece(head: bytes) -> Sniffed | None:
    if not sentencepiece_fmt.looks_like_model(head):
        return None
    return Sniffed("sentencepiece", None)


def _clip_gz(head: bytes) -> Sniffed | None:
    text = clip_fmt.inflate_head(head, 1 << 16)
    if text is None:
        return None
    if clip_fmt.looks_like_clip_merges(text):
        return Sniffed("clip", "BPE")
    return None


def sniff(head: bytes, size: int | None = None) -> Sniffed | None:
    """The format of a file whose first bytes are ``head`` (``size``: the whole file's
    size, if known), or None if it is none of the known tokenizer formats."""
    size = len(head) if size is None else size
    final = len(head) >= size
    for probe in (lambda: _gguf(head, size), lambda: _clip_gz(head),
                  lambda: _json_kind(head), lambda: _sentencepiece(head),
                  lambda: _text_kind(head, final)):
        found = probe()
        if found is not None:
            return found
    return None


def sniff_file(path: str | Path) -> Sniffed | None:
    """:func:`sniff` on a file, then, for a SentencePiece model (whose model type sits at
    its end), the model read whole to name its kind."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            head = f.read(HEAD_BYTES)
            size = os.fstat(f.fileno()).st_size
    except OSError as e:
        raise FormatError(p, f"cannot be read ({e.strerror or e}).") from e
    found = sniff(head, size)
    if found is not None and found.format == "sentencepiece":
        model = sentencepiece_fmt.read_model(p)
        problem = model.not_bpe()
        kind = {"BPE": "BPE", "UNIGRAM": "Unigram"}.get(model.model_type, model.model_type)
        return Sniffed("sentencepiece", kind, problem,
                       f"trainer_spec.model_type = {model.model_type}, normalizer "
                       f"{model.normalizer.name!r}")
    if found is not None and found.format == "gguf" and found.kind is None:
        vocab = gguf_fmt.read_vocab(p)
        problem = vocab.not_bpe()
        kind = "BPE" if problem is None else {"t5": "Unigram", "bert": "WordPiece"}.get(
            vocab.model, vocab.model)
        return Sniffed("gguf", kind, problem, f"tokenizer.ggml.model = {vocab.model!r}, pre = "
                       f"{vocab.pre!r}")
    return found
