"""Does a file hold what its name says? The import dialog asks the engine's sniffer.

The engine picks a tokenizer file's format by its name first (``detect_format``), and
the loader has the last word, with the line or key that is wrong. The dialog says the
format *before* loading: 5 KB of random bytes named ``tokenizer.json`` showed a green
"Format: Hugging Face tokenizer.json" (issue 30). Now the file's head goes to the
engine's content sniffer (``engine.formats.sniff_file``: GGUF, SentencePiece, tekken,
CLIP, tokenizer.json, GPT-2 files, tiktoken ranks, bpe-gui JSON, by their bytes, never
their name), and the dialog shows a green "Format: ..." only when the content is the
format the name says; otherwise a red line says what the file is instead: no tokenizer
at all ("Not a tokenizer file: NAME is binary ..."), a model that is not BPE, or another
format than its name.

Example::

    content_problem(Path("tokenizer.json"), "hf")    # 5 KB of random bytes
    -> 'Not a tokenizer file: tokenizer.json is binary (a NUL byte at byte offset 17) ...'
"""
from __future__ import annotations

import re
from pathlib import Path

from ...engine.errors import BPEError
from ...engine.formats import FORMATS, Sniffed, sniff_file
from ...engine.io import read_bytes

# what the sniffer finds -> the format key that loads it (detect_format's keys)
LOADED_AS = {"hf": "hf", "native": "native", "tiktoken-meta": "tiktoken",
             "tiktoken": "tiktoken", "gpt2-vocab": "gpt2", "gpt2-merges": "gpt2"}
SMALL = 1 << 20   # files this small are read (bounded) to say why they are no tokenizer
KNOWN = ("a tokenizer.json, GPT-2 vocab.json + merges.txt, a .tiktoken ranks file, a "
         "bpe-gui export, a GGUF or SentencePiece model, tekken.json or CLIP merges")


def content_problem(path: Path, fmt: str) -> str | None:
    """The red line for a file whose content is not the ``fmt`` its name says, or None
    when it is (the loader then decides)."""
    try:
        found = sniff_file(path)
    except BPEError as e:
        return f"Not a tokenizer file: {path.name} {why_not(e, path)}"
    if found is None:
        return f"Not a tokenizer file: {path.name} {_why_none(path)}"
    if found.problem:
        return f"{path.name}: {found.label}; {_strip_is(found.problem)}"
    loads_as = LOADED_AS.get(found.format)
    if loads_as is None:   # a model file this window does not import yet
        return (f"{path.name} is a {found.label}: this window cannot import that yet. "
                "Import the model's tokenizer.json instead, if it has one.")
    if loads_as != fmt:
        return (f"Not a {FORMATS.get(fmt, fmt)} file: {path.name} holds a {found.label}"
                f"{_rename_hint(found)}.")
    return None


def not_importable(path: Path) -> str | None:
    """What the sniffer says of a file ``detect_format`` refused by its name (a .gguf, a
    SentencePiece .model ...), or None if it found nothing."""
    try:
        found = sniff_file(path)
    except BPEError:
        return None
    if found is None:
        return None
    if found.problem:
        return f"{path.name}: {found.label}; {_strip_is(found.problem)}"
    return (f"{path.name} is a {found.label}: this window cannot import that yet. "
            "Import the model's tokenizer.json instead, if it has one.")


def _rename_hint(found: Sniffed) -> str:
    names = {"hf": "tokenizer.json", "gpt2-vocab": "vocab.json (merges.txt beside it)",
             "gpt2-merges": "merges.txt (vocab.json beside it)",
             "tiktoken": "NAME.tiktoken", "native": "NAME.bpe-gui.json"}
    return f": name it {names[found.format]}" if found.format in names else ""


def _why_none(path: Path) -> str:
    """Why a file the sniffer does not know is no tokenizer: the engine's reading of a
    small file says what is wrong with it (binary, UTF-16, not UTF-8), else what it is
    not."""
    try:
        if path.stat().st_size <= SMALL:
            read_bytes(path, "JSON" if path.name.lower().endswith(".json") else "text")
    except BPEError as e:
        return why_not(e, path)
    except OSError as e:
        return f"cannot be read ({e.strerror or e})."
    return f"holds none of the formats this app knows ({KNOWN})."


def _strip_is(problem: str) -> str:
    return problem[3:] if problem.startswith("is ") else problem


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
