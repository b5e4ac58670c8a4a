"""A loaded tokenizer's own files, kept so that it can be pickled and copied.

``load_tokenizer`` notes which files a reader read (``io.noting_reads``: the file itself
and what it reads beside it, e.g. a ``.tiktoken`` file's ``NAME.tiktoken.json``) and gives
the tokenizer a :class:`FileSource`. Pickling reads those files' bytes (a GGUF model file
only up to the end of its metadata: a vocab-only GGUF, as llama.cpp ships them) and the
pickle holds them, so it loads anywhere, in another process or on another machine, with
no path that must still exist: ``loading.from_snapshot`` writes them to a temporary
folder under their own names and loads them as ``load_tokenizer`` did. A file changed since it
was loaded is refused when pickling rather than sent as what the tokenizer is not.

A tokenizer trained here or read from GPT-2 files is plain data (vocabulary, merges) and
pickles as that instead (``Tokenizer.__reduce__``).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..errors import FormatError


@dataclass(frozen=True)
class Snapshot:
    """What a pickle of an imported tokenizer holds: its files by name, zlib-compressed
    (the first is the one ``load_tokenizer`` was given; a tokenizer.json of 17 MB pickles
    in 3 MB), the special tokens and options it was loaded with, and the path it came
    from (its ``meta['source']`` again once loaded)."""

    files: tuple[tuple[str, bytes], ...]
    special_tokens: tuple[str, ...] | None
    options: tuple[tuple[str, Any], ...]
    source: str


class FileSource:
    """The files a tokenizer was loaded from, as they were then (size and time)."""

    def __init__(self, paths: list[Path], special_tokens: list[str] | None,
                 options: dict[str, Any], rebuild: Callable[[Snapshot], Any]):
        first = paths[0]
        self.paths = list(dict.fromkeys(paths))   # (read twice: kept once)
        self.stamps = [_stamp(p) for p in self.paths]
        self.special_tokens = None if special_tokens is None else tuple(special_tokens)
        self.options = tuple(options.items())
        self.source = str(first)
        self.rebuild = rebuild   # loading.from_snapshot: the tokenizer a snapshot holds

    def snapshot(self) -> Snapshot:
        """The files' bytes now (FormatError if one changed since it was loaded)."""
        names: dict[str, bytes] = {}
        for p, stamp in zip(self.paths, self.stamps):
            if _stamp(p) != stamp:
                raise FormatError(p, "changed (or went) since the tokenizer was loaded from "
                                  "it, so a pickle of the tokenizer would not hold what it "
                                  "runs. Load the tokenizer again, then pickle it.")
            if p.name in names:
                raise FormatError(p, "has the name of another file the tokenizer was read "
                                  "from, in another folder; a pickle keeps files by name. "
                                  "Put the tokenizer's files in one folder.")
            names[p.name] = zlib.compress(_own_bytes(p), 1)
        return Snapshot(tuple(names.items()), self.special_tokens, self.options, self.source)

    def reduce(self) -> tuple[Callable[[Snapshot], Any], tuple[Snapshot]]:
        return self.rebuild, (self.snapshot(),)


def _stamp(p: Path) -> tuple[int, int] | None:
    try:
        st = p.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _own_bytes(p: Path) -> bytes:
    """The bytes that make the tokenizer: the whole file, or a GGUF file's header and
    metadata with no tensors (its weights are not the tokenizer)."""
    with open(p, "rb") as f:
        head = f.read(4)
    if head == b"GGUF":
        from .gguf_fmt import vocab_only
        return vocab_only(p)
    return p.read_bytes()


class Pickled:
    """The source of a tokenizer loaded from a pickle: the pickle's own files."""

    def __init__(self, snap: Snapshot, rebuild: Callable[[Snapshot], Any]):
        self.snap = snap
        self.rebuild = rebuild

    def reduce(self) -> tuple[Callable[[Snapshot], Any], tuple[Snapshot]]:
        return self.rebuild, (self.snap,)
