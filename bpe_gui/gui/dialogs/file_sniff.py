"""Does a file hold what its name says? A cheap look at its head for the import dialog.

The engine picks a tokenizer file's format by its name first (``detect_format``), and
the loader has the last word, with the line or key that is wrong. The dialog says the
format *before* loading: 5 KB of random bytes named ``tokenizer.json`` showed a green
"Format: Hugging Face tokenizer.json" (issue 30). So the dialog looks at the first
64 KiB of the file as the engine reads it (``engine.reading.sniff``: NUL bytes, UTF-16,
bad UTF-8, JSON that does not start with ``{``) and at what that format's file starts
with, and says "Not a tokenizer file: ..." otherwise. Nothing is read whole.

Where the engine's content sniffing of the model formats (GGUF, SentencePiece
``tokenizer.model``, Mistral's tekken, CLIP's merges; being written in
``engine/formats/``) plugs in: :func:`content_problem` is the one place; once the
engine recognises a file by its content, this module asks it instead of checking
heads by the name's format.

Example::

    content_problem(Path("tokenizer.json"), "hf")    # 5 KB of random bytes
    -> 'is binary (a NUL byte at byte offset 17), not a tokenizer file. ...'
"""
from __future__ import annotations

import re
from pathlib import Path

from ...engine.errors import BPEError
from ...engine.reading import HEAD_BYTES, loads, sniff

# what each format's file starts with, after a UTF-8 BOM and white space
_JSON_KEYS = re.compile(rb'"(?:version|truncation|padding|added_tokens|normalizer|'
                        rb'pre_tokenizer|post_processor|decoder|model)"\s*:')
_VOCAB_ENTRY = re.compile(rb'\{\s*(?:\}|"(?:[^"\\]|\\.)*"\s*:\s*-?\d)')
_RANKS_LINE = re.compile(rb"[A-Za-z0-9+/]+=*[ ]+[0-9]+\r?")
_MERGES_LINE = re.compile(rb"(?:#version.*|\S+ \S+)\r?")


def _head(path: Path) -> tuple[bytes, bool]:
    """The first HEAD_BYTES of the file, and whether that is the whole file."""
    with open(path, "rb") as f:
        head = f.read(HEAD_BYTES)
        return head, len(f.read(1)) == 0


def _kind(path: Path, fmt: str) -> str:
    """How the engine reads this file: 'JSON', 'ranks' or 'text'."""
    name = path.name.lower()
    if name.endswith(".json"):
        return "JSON"
    if fmt == "tiktoken":
        return "ranks"
    return "text"


def content_problem(path: Path, fmt: str) -> str | None:
    """Why the file at ``path`` is not a ``fmt`` file, judged from its head (a
    sentence, the file not named), or None if it may be one (the loader decides)."""
    try:
        head, whole = _head(path)
    except OSError as e:
        return f"cannot be read ({e.strerror or e})."
    kind = _kind(path, fmt)
    try:
        sniff(head, path, kind, final=whole)
    except BPEError as e:
        return why_not(e, path)
    body = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if not body:
        return "is empty."
    name = path.name.lower()
    if kind == "JSON":
        if whole:   # small: parsed whole, as the loader will
            try:
                data = loads(body, path)
            except BPEError as e:
                return why_not(e, path)
            return _json_problem(data, fmt, name)
        if fmt == "hf" and not _JSON_KEYS.search(body):
            return ("is JSON, but no key of a Hugging Face tokenizer.json (\"model\", "
                    "\"added_tokens\", \"pre_tokenizer\" ...) is in its first "
                    f"{HEAD_BYTES >> 10} KB.")
        if fmt == "gpt2" and not _VOCAB_ENTRY.match(body):
            return "is JSON, but not a vocabulary (\"token\": id, ...)."
        return None
    first = body.split(b"\n", 1)[0]
    if fmt == "tiktoken" and not _RANKS_LINE.fullmatch(first):
        return "is not a tiktoken ranks file (each line 'BASE64 RANK')."
    if fmt == "gpt2" and not _MERGES_LINE.fullmatch(first):
        return "is not a merges file (a '#version' line, then one pair per line)."
    return None


def _json_problem(data, fmt: str, name: str) -> str | None:
    if not isinstance(data, dict):
        return "is JSON, but a list or a value, not a tokenizer's object."
    if fmt == "hf" and "model" not in data:
        return "is JSON, but has no \"model\": not a Hugging Face tokenizer.json."
    if fmt == "gpt2" and name.endswith(".json") and not all(
            isinstance(v, int) and not isinstance(v, bool) for v in data.values()):
        return "is JSON, but not a vocabulary (\"token\": id, ...)."
    if fmt == "native" and data.get("format") != "bpe-gui":
        return "is JSON, but not a bpe-gui export (no \"format\": \"bpe-gui\")."
    if fmt == "tiktoken" and "pat_str" not in data and name.endswith(".json"):
        return "is JSON, but has no \"pat_str\": not a tiktoken pattern file."
    return None


def why_not(e: BPEError, path: Path) -> str:
    """The engine's message without the path and line it starts with."""
    text = str(e)
    for prefix in (str(path), path.name):
        if text.startswith(prefix):
            text = text[len(prefix):]
            break
    text = re.sub(r"^(?:, line \d+)?[:,]?\s*", "", text)
    # shown after "Not a tokenizer file: NAME": the engine's words say it once already
    return text.replace(", not a tokenizer file.", ".").replace(
        "is not a tokenizer file this app knows", "is none of the files this app knows")
