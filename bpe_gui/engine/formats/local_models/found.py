"""What a search for local models finds, and the careful reading it is built from.

:class:`LocalModel` is one model (its name as its tool shows it, the tokenizer file
``load_tokenizer`` takes, size, format, source); :class:`ModelRoot` is a folder looked
in; :class:`ModelScan` is the whole answer. :class:`Walk` does every read of a search:
folder listings cut at ``MAX_ENTRIES``, file heads of ``HEAD_BYTES``, small JSON files
up to ``MAX_JSON_BYTES``, a deadline and a cancel check, and a note (never an exception)
for whatever cannot be read. Nothing here follows a folder link twice or recurses: each
layout walks a fixed depth, so a link loop cannot trap it.
"""
from __future__ import annotations

import json
import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import sniff as sniffing

HEAD_BYTES = sniffing.HEAD_BYTES   # a file's head, enough to tell its format and kind
MAX_ENTRIES = 10_000               # a folder listing is cut here (with a note)
MAX_JSON_BYTES = 1 << 20           # manifests, pointers and settings are a few KB
TIME_LIMIT = 20.0                  # seconds for one search, then it stops with a note

HF, OLLAMA, LM_STUDIO, LLAMA_CPP = "Hugging Face", "Ollama", "LM Studio", "llama.cpp"
SOURCES = (HF, OLLAMA, LM_STUDIO, LLAMA_CPP)

# sniff's format keys, shortened for a table column
FORMAT_LABELS = {
    "hf": "tokenizer.json", "gguf": "GGUF", "sentencepiece": "SentencePiece",
    "tekken": "tekken.json", "gpt2-vocab": "GPT-2 files", "tiktoken": "tiktoken",
    "clip": "CLIP merges", "native": "bpe-gui", "unknown": "unknown",
}


@dataclass(frozen=True)
class ModelRoot:
    """A folder searched: its ``source`` (one of SOURCES), its ``layout`` ('hf-hub':
    models--ORG--NAME/snapshots; 'ollama': manifests + blobs; 'folders': PUBLISHER/REPO
    folders of files; 'llama.cpp': the flat cache of manifest=...json and .gguf files),
    and ``why`` this folder (the variable or default that named it)."""

    source: str
    layout: str
    path: Path
    why: str


@dataclass(frozen=True)
class LocalModel:
    """A model on this machine whose tokenizer can be opened by name.

    ``name``: as its tool names it ('meta-llama/Llama-3.2-1B', 'llama3.2:1b',
    'lmstudio-community/Qwen2.5-7B-Instruct-GGUF'); ``tokenizer``: the file to give
    ``load_tokenizer``; ``folder``: the model's own folder (an HF snapshot, an LM Studio
    folder, Ollama's manifest); ``size``: bytes on disk of the whole model (weights
    included); ``format``: sniff's key of the tokenizer file ('hf', 'gguf', ...);
    ``kind``/``problem``: 'BPE', 'Unigram' ... and why it will not open, when its head
    tells; ``detail``: a line more (revision, GGUF tokenizer model, download state).
    """

    name: str
    source: str
    format: str
    tokenizer: Path
    folder: Path
    size: int
    kind: str | None = None
    problem: str | None = None
    detail: str = ""

    @property
    def format_label(self) -> str:
        """'GGUF', 'tokenizer.json' ..., with the kind when it is not BPE ('GGUF · Unigram')."""
        label = FORMAT_LABELS.get(self.format, self.format)
        if self.kind and self.kind != "BPE" and self.problem:
            label += f" · {self.kind}"
        return label

    def as_json(self) -> dict:
        return {"name": self.name, "source": self.source, "format": self.format,
                "format_label": self.format_label, "kind": self.kind,
                "tokenizer": str(self.tokenizer), "folder": str(self.folder),
                "size": self.size, "detail": self.detail, "problem": self.problem}


@dataclass(frozen=True)
class ModelScan:
    """What :func:`find_models` found: the models (sorted by name), the folders it
    looked in with what each held ('3 models', 'not there', 'cannot be read'), notes on
    what it skipped and why, and whether it looked at everything (False when the time
    limit or a cancel stopped it)."""

    models: tuple[LocalModel, ...]
    roots: tuple[ModelRoot, ...]
    looked: tuple[str, ...]          # one line per root, in roots' order
    notes: tuple[str, ...] = ()
    complete: bool = True


@dataclass
class Walk:
    """The reads of one search, each bounded, each failure a note."""

    deadline: float
    cancelled: Callable[[], bool] = lambda: False
    notes: list[str] = field(default_factory=list)
    home: Path | None = None

    @classmethod
    def starting_now(cls, time_limit: float, cancelled=None, home=None) -> "Walk":
        return cls(time.monotonic() + time_limit, cancelled or (lambda: False), [], home)

    def over(self) -> bool:
        return time.monotonic() > self.deadline or bool(self.cancelled())

    def show(self, path: Path | str) -> str:
        """The path as the user reads it ('~/.ollama/models' for one under home)."""
        p = str(path)
        if self.home is not None:
            h = str(self.home).rstrip(os.sep)
            if h and (p == h or p.startswith(h + os.sep)):
                return "~" + p[len(h):]
        return p

    def note(self, path: Path | str, message: str) -> None:
        self.notes.append(f"{self.show(path)}: {message}")

    def listdir(self, folder: Path, quiet_missing: bool = False) -> list[os.DirEntry] | None:
        """The folder's entries (at most MAX_ENTRIES, sorted by name), or None with a
        note if it cannot be listed."""
        try:
            out = []
            with os.scandir(folder) as it:
                for entry in it:
                    out.append(entry)
                    if len(out) >= MAX_ENTRIES:
                        self.note(folder, f"holds more than {MAX_ENTRIES:,} entries; only "
                                  "the first were looked at.")
                        break
            return sorted(out, key=lambda e: e.name)
        except FileNotFoundError:
            if not quiet_missing:
                self.note(folder, "is gone (removed while it was being read?).")
            return None
        except NotADirectoryError:
            self.note(folder, "is not a folder.")
            return None
        except OSError as e:
            self.note(folder, f"cannot be read ({_why(e)}).")
            return None

    def head(self, path: Path) -> tuple[bytes, int] | None:
        """The first HEAD_BYTES of a file and its size, or None with a note."""
        try:
            with open(path, "rb") as f:
                head = f.read(HEAD_BYTES)
                return head, os.fstat(f.fileno()).st_size
        except FileNotFoundError:
            if os.path.islink(path):
                self.note(path, "is a broken link (the file it points to is gone; download "
                          "the model again).")
            else:
                self.note(path, "is gone (removed while it was being read?).")
        except IsADirectoryError:
            self.note(path, "is a folder where a file was expected.")
        except OSError as e:
            self.note(path, f"cannot be read ({_why(e)}).")
        return None

    def small_json(self, path: Path, what: str) -> object | None:
        """A small JSON file (a manifest, a settings file), or None with a note."""
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_JSON_BYTES + 1)
        except OSError as e:
            self.note(path, f"cannot be read ({_why(e)}).")
            return None
        if len(data) > MAX_JSON_BYTES:
            self.note(path, f"is over {MAX_JSON_BYTES >> 20} MiB, too big for a {what}; "
                      "skipped.")
            return None
        try:
            return json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            self.note(path, f"is not a valid {what} (not JSON: {str(e)[:80]}); skipped.")
            return None


def _why(e: OSError) -> str:
    return e.strerror.lower() if e.strerror else type(e).__name__


def entry_size(entry: os.DirEntry, follow: bool = True) -> int:
    """Size of a listed file (0 if it cannot be stat'ed: a broken link, a race)."""
    try:
        st = entry.stat(follow_symlinks=follow)
    except OSError:
        return 0
    return st.st_size if not stat.S_ISDIR(st.st_mode) else 0


def is_file(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


# ----- which file of a folder is the tokenizer ------------------------------------------
_SHARD = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$", re.IGNORECASE)
_MISTRAL_MODEL = re.compile(r"^tokenizer\.model\.v(\d+)$")
SUBFOLDERS = ("tokenizer", "original")   # Stable Diffusion's tokenizer/, Llama 3's original/


def is_gguf_name(name: str) -> bool:
    return name.lower().endswith(".gguf")


def is_mmproj(name: str) -> bool:
    """A vision projector GGUF (mmproj-*.gguf): weights, no vocabulary."""
    return "mmproj" in name.lower()


def first_shard(name: str) -> bool:
    """Not a later part of a split GGUF ('-00002-of-00003.gguf')."""
    m = _SHARD.search(name)
    return m is None or int(m.group(1)) == 1


def tokenizer_gguf(entries: list[os.DirEntry]) -> tuple[os.DirEntry | None, int]:
    """The GGUF to read the vocabulary from (the smallest model file, its first part if
    split: quantizations of one model share the vocabulary) and how many model GGUFs
    there are."""
    ggufs = [e for e in entries if is_gguf_name(e.name) and not is_mmproj(e.name)
             and is_file(e)]
    firsts = [e for e in ggufs if first_shard(e.name)]
    if not firsts:
        return None, 0
    n_models = len(firsts)
    return min(firsts, key=lambda e: (entry_size(e), e.name)), n_models


def tokenizer_in(entries: list[os.DirEntry]) -> tuple[Path | None, str]:
    """The tokenizer file among a folder's entries, in the order a model's files are
    best opened (tokenizer.json, tekken.json, tokenizer.model[.vN], vocab.json with
    merges.txt, NAME.tiktoken, other .model, then a GGUF), and a detail ('4 GGUF
    files'). Example: [config.json, tokenizer.json, tokenizer.model] -> tokenizer.json."""
    by_name = {e.name: e for e in entries if is_file(e)}
    for name in ("tokenizer.json", "tekken.json", "tokenizer.model"):
        if name in by_name:
            return Path(by_name[name].path), ""
    versions = sorted((int(m.group(1)), n) for n in by_name
                      if (m := _MISTRAL_MODEL.match(n)))
    if versions:
        return Path(by_name[versions[-1][1]].path), ""
    if "vocab.json" in by_name and "merges.txt" in by_name:
        return Path(by_name["vocab.json"].path), ""
    for suffix in (".tiktoken", ".model"):
        found = sorted(n for n in by_name if n.endswith(suffix))
        if found:
            return Path(by_name[found[0]].path), ""
    gguf, n = tokenizer_gguf(list(by_name.values()))
    if gguf is not None:
        return Path(gguf.path), (f"{n} GGUF files; the vocabulary is read from the "
                                 f"smallest" if n > 1 else "")
    return None, ""


def describe_files(entries: list[os.DirEntry], limit: int = 4) -> str:
    names = [e.name for e in entries]
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more if names else "nothing"


def model_from_file(walk: Walk, name: str, source: str, tokenizer: Path, folder: Path,
                    size: int, detail: str = "") -> LocalModel | None:
    """A LocalModel whose tokenizer file's head says its format (None, with a note, if
    the file cannot be read)."""
    got = walk.head(tokenizer)
    if got is None:
        return None
    head, file_size = got
    found = sniffing.sniff(head, file_size)
    if found is None:
        return LocalModel(name, source, "unknown", tokenizer, folder, size, None,
                          f"{tokenizer.name} is not a tokenizer file this app knows (its "
                          "first bytes match none of the formats); the download may be "
                          "damaged.", detail)
    if found.detail:
        detail = "; ".join(x for x in (found.detail, detail) if x)
    fmt = "gpt2-vocab" if found.format == "gpt2-merges" else found.format
    problem = found.problem or not_opened_here(found) or _gguf_not_run(found, head, file_size)
    return LocalModel(name, source, fmt, tokenizer, folder, size, found.kind, problem, detail)


# sniff's format keys -> load_tokenizer's (formats.IMPORTABLE)
_LOADER_KEYS = {"gpt2-vocab": "gpt2", "gpt2-merges": "gpt2", "tiktoken-meta": "tiktoken"}


def _gguf_not_run(found: sniffing.Sniffed, head: bytes, size: int) -> str | None:
    """Why a GGUF of a BPE vocabulary will not open in this version (a SentencePiece-style
    or Gemma 4 vocabulary, a pre-tokenizer not run yet), from its head's two keys; None if
    it opens (or is no GGUF)."""
    if found.format != "gguf" or found.kind != "BPE":
        return None
    from .. import gguf_fmt
    model, pre = sniffing.peek_gguf_tokenizer(head, size)
    why = None if model is None else gguf_fmt.not_run_yet(model, pre)
    if why is None:
        return None
    return (f"is a GGUF model file whose tokenizer this version of bpe-gui cannot open yet: "
            f"{why}. The same model's tokenizer.json opens: download it from the model's "
            "Hugging Face repository (hf download ORG/NAME tokenizer.json) and pick it in "
            "Import tokenizer, or with --tokenizer PATH.")


def not_opened_here(found: sniffing.Sniffed) -> str | None:
    """Why a file of a format this version's ``load_tokenizer`` has no reader for (yet)
    will not open, and what opens instead; None if it has one. Asked of the registry
    (formats.IMPORTABLE), so a reader that lands later is used at once."""
    from .. import IMPORTABLE   # the registry's face (imported late)
    if _LOADER_KEYS.get(found.format, found.format) in IMPORTABLE:
        return None
    return (f"is a {found.label}, which this version of bpe-gui cannot open yet. The same model's tokenizer.json opens: download it from the model's Hugging "
            "Face repository (hf download ORG/NAME tokenizer.json) and pick it in Import "
            "tokenizer, or with --tokenizer PATH.")
