"""Import: a tokenizer file or folder recognised by content (sniff.py) or name, and
loaded by its format's module; what a file is before loading it."""
from __future__ import annotations

import os
import re
import tempfile
import zlib
from pathlib import Path
from typing import Sequence

from .. import checks
from ..errors import ArgumentError, FormatError
from ..tokenizers.base import BaseTokenizer
from . import clip_fmt, gguf_fmt, gpt2, hf, native, sentencepiece_fmt, sniff, tekken_fmt, \
    tiktoken_fmt
from ..tokenizers import gpt2_files
from ..io.reading import noting_reads, read_json
from .sources import FileSource, Pickled, Snapshot

IMPORTABLE = ("gpt2", "hf", "tiktoken", "native", "gguf", "tekken", "clip", "sentencepiece")
# what each importable format is, for the import dialog, the status bar and the CLI
IMPORT_LABELS: dict[str, str] = {
    "gpt2": "GPT-2 vocab.json + merges.txt", "hf": "Hugging Face tokenizer.json",
    "tiktoken": "tiktoken ranks (.tiktoken)", "native": "bpe-gui JSON",
    "gguf": "GGUF model file (llama.cpp, Ollama, LM Studio)",
    "tekken": "Mistral tekken.json", "clip": "CLIP merges (bpe_simple_vocab_16e6.txt.gz)",
    "sentencepiece": "SentencePiece model (.model)", "csv": "Merges with counts (CSV)",
}
_LOADERS = {"gpt2": gpt2, "hf": hf, "tiktoken": tiktoken_fmt, "native": native,
            "gguf": gguf_fmt, "tekken": tekken_fmt, "clip": clip_fmt,
            "sentencepiece": sentencepiece_fmt}
# sniffed formats whose content says little (any text of two words a line looks like
# merges): a file name that names another format wins over them
_WEAK = ("gpt2-merges",)
# the sniffer's formats (formats/sniff.py) -> the loader's
_SNIFFED = {"gguf": "gguf", "sentencepiece": "sentencepiece", "tekken": "tekken", "hf": "hf",
            "native": "native", "tiktoken-meta": "tiktoken", "gpt2-vocab": "gpt2",
            "gpt2-merges": "gpt2", "clip": "clip", "tiktoken": "tiktoken"}


# ----- import ---------------------------------------------------------------------------
_FOLDER_ORDER = (("native", "*" + native.SUFFIX), ("hf", "*tokenizer.json"),
                 ("gpt2", "*vocab.json"), ("gpt2", gpt2_files.OPENAI_VOCAB),
                 ("tiktoken", "*" + tiktoken_fmt.SUFFIX), ("tekken", "tekken*.json"),
                 ("gguf", "*.gguf"), ("clip", "bpe_simple_vocab_*.txt.gz"))


def _pick_in_folder(folder: Path) -> tuple[str, Path]:
    """The tokenizer file to load from a folder: the richest format present."""
    for fmt, glob in _FOLDER_ORDER:
        found = sorted(p for p in folder.glob(glob) if p.is_file())
        if fmt == "gpt2":
            found = [p for p in found if gpt2_files.merges_beside(p).is_file()]
        if len(found) == 1:
            return fmt, found[0]
        if len(found) > 1:
            raise FormatError(folder, f"holds several {IMPORT_LABELS[fmt]} files "
                              f"({', '.join(p.name for p in found[:4])}); pick one file.")
    raise FormatError(folder, "holds no tokenizer files (vocab.json + merges.txt or "
                      "encoder.json + vocab.bpe, tokenizer.json, NAME.tiktoken, tekken.json, "
                      "a .gguf, bpe_simple_vocab_16e6.txt.gz or NAME.bpe-gui.json).")


def detect_format(path: str | Path) -> str:
    """'gpt2' | 'hf' | 'tiktoken' | 'native' | 'gguf' | 'tekken' | 'clip' |
    'sentencepiece' | 'csv' for a file or a folder.

    Decided by the file's content first (formats/sniff.py: a GGUF's magic, a tekken's
    keys, JSON keys, lines of ranks or merges...), by its name where the content says
    nothing (a merges CSV). A file of a kind this app cannot run (a Unigram or WordPiece
    model, a GGUF of another vocabulary) raises FormatError naming it and what to do.
    """
    return _detect(Path(path))[0]


def _detect(p: Path) -> tuple[str, str | None]:
    """(format, the sniffer's finer format or None)."""
    if p.is_dir():
        return _pick_in_folder(p)[0], None
    if not p.exists():
        raise FormatError(p, "file not found. Check the path, or pick the file again.")
    found = sniff.sniff_file(p)
    if found is not None:
        fmt = _SNIFFED.get(found.format)
        # the loaders of tokenizer.json, GGUF and SentencePiece refuse other models
        # naming the key
        if found.problem is not None and fmt not in ("hf", "gguf", "sentencepiece"):
            raise FormatError(p, found.problem)
        if found.format in _WEAK:   # lines of two words: a name that says more wins
            try:
                named: str | None = _by_name(p)
            except FormatError:
                named = fmt
            if named is not None and named != fmt:
                return named, None
        if fmt is not None:
            return fmt, found.format
    return _by_name(p), None


def _by_name(p: Path) -> str:
    name = p.name.lower()
    if name.endswith(native.SUFFIX):
        return "native"
    if name.endswith(tiktoken_fmt.SUFFIX) or name.endswith(tiktoken_fmt.META_SUFFIX):
        return "tiktoken"
    if name.endswith("tokenizer.json"):
        return "hf"
    if name.endswith("vocab.json") or name.endswith("merges.txt") \
            or name in (gpt2_files.OPENAI_VOCAB, gpt2_files.OPENAI_MERGES):
        return "gpt2"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith(".model") and _looks_like_ranks(p):
        return "tiktoken"   # Llama 3's tokenizer.model is a tiktoken ranks file
    if _looks_like_spm(p):   # by content: mistral-common's are tokenizer.model.v3 ...
        return "sentencepiece"
    if _head(p, 4) == gguf_fmt.MAGIC:
        return "gguf"
    if name.endswith(".json"):
        data = read_json(p)
        if isinstance(data, dict):
            if data.get("format") == native.FORMAT:
                return "native"
            # a vocab first: GPT-2's own has tokens spelled "model" and "pat_str"
            if data and all(isinstance(v, int) for v in data.values()):
                return "gpt2"
            if "model" in data:
                return "hf"
            if "pat_str" in data:
                return "tiktoken"
        raise FormatError(p, "is JSON, but of no tokenizer format this app knows (a "
                          "tokenizer.json has \"model\", a tekken.json \"config\" and "
                          "\"vocab\", a GPT-2 vocab.json token: id pairs).")
    if name.endswith(".model"):
        raise FormatError(p, "is neither a tiktoken ranks file (lines 'BASE64 RANK') nor a "
                          "SentencePiece model (a protobuf ModelProto). Check that you picked "
                          "the right file.")
    inner = re.sub(r"\.(gz|xz|bz2|zst)$", "", name)
    if inner != name:
        kind = {"gz": "gzip", "bz2": "bzip2", "zst": "zstd"}.get(name[len(inner) + 1:], "xz")
        raise FormatError(p, f"is compressed ({kind}); tokenizer files are "
                          f"opened uncompressed: decompress it (it holds {inner}) and open "
                          "that.")
    raise FormatError(p, "is not a tokenizer file this app knows. It opens tokenizer.json, "
                      "vocab.json + merges.txt, NAME.tiktoken, tekken.json, SentencePiece "
                      ".model files, GGUF model files (.gguf), CLIP's "
                      "bpe_simple_vocab_16e6.txt.gz and bpe-gui's .json.")


def _looks_like_ranks(p: Path) -> bool:
    """A first line 'BASE64 RANK' (a SentencePiece .model is binary protobuf instead)."""
    try:
        with open(p, "rb") as f:
            head = f.read(256).split(b"\n", 1)[0]
    except OSError:
        return False
    return re.fullmatch(rb"[A-Za-z0-9+/]+=*[ ][0-9]+\r?", head) is not None


def _head(p: Path, n: int) -> bytes:
    try:
        with open(p, "rb") as f:
            return f.read(n)
    except OSError:
        return b""


def _looks_like_spm(p: Path) -> bool:
    try:
        with open(p, "rb") as f:
            return sentencepiece_fmt.looks_like_model(f.read(4096))
    except OSError:
        return False


def tokenizer_file(folder: str | Path) -> Path:
    """The file :func:`load_tokenizer` reads from a folder (the richest format there);
    a file is itself. FormatError as load_tokenizer raises it."""
    p = Path(folder).expanduser()
    return _pick_in_folder(p)[1] if p.is_dir() else p


def load_tokenizer(path: str | Path, special_tokens: Sequence[str] | None = None, *,
                   extra_special_tokens: Sequence[str] | None = None,
                   **kwargs) -> BaseTokenizer:
    """Load a tokenizer from a file or a folder holding one.

    ``path``: a folder (with vocab.json + merges.txt, tokenizer.json, NAME.tiktoken or
    NAME.bpe-gui.json), a vocab.json or merges.txt (the other one beside it; also
    under OpenAI's names for GPT-2's files, encoder.json and vocab.bpe), a
    tokenizer.json, a NAME.tiktoken (NAME.tiktoken.json or NAME.json beside it), or a
    bpe-gui .json. ``special_tokens`` overrides the special tokens the files list;
    ``extra_special_tokens`` adds to them, as tiktoken's ``Encoding(special_tokens={**own,
    text: id})`` and tokenizers' ``add_special_tokens`` do: the file's keep their ids, a new
    one gets the next id after the vocabulary (in a tokenizer.json a text that is already
    a token keeps that token's id, as tokenizers keeps it; a merge-list file refuses it).
    Raises FormatError naming the file and the line or key at fault. Every kind is a
    :class:`~bpe_gui.engine.tokenizers.base.BaseTokenizer` (docs/API.md).
    """
    checks.path(path, "load_tokenizer(path)")
    if special_tokens is not None:
        special_tokens = list(checks.special_tokens(special_tokens))
    if extra_special_tokens is not None:
        extra = list(dict.fromkeys(checks.special_tokens(extra_special_tokens,
                                                         "extra_special_tokens")))
        if "" in extra:
            raise ArgumentError("extra_special_tokens (--special-token on the command line) "
                                "holds an empty token; give each special token some text, "
                                "e.g. <|tool|>.")
    if extra_special_tokens:
        if special_tokens is None and _format_of(path) in ("hf", "tiktoken"):
            # (their loaders add them to the file's, as their libraries do)
            return _load(path, None, extra_special_tokens=extra, **kwargs)
        base = special_tokens if special_tokens is not None else \
            _file_specials(path, extra, kwargs)
        special_tokens = [*base, *(t for t in extra if t not in base)]
    return _load(path, special_tokens, **kwargs)


def _file_specials(path: str | Path, extra: list[str], kwargs: dict) -> list[str]:
    """The special tokens a merge-list file lists, after checking that no text of
    ``extra`` is one of its ordinary tokens (the merges read that token's bytes as
    ordinary ones)."""
    tok = _load(path, None, **kwargs)
    for text in extra:
        i = tok.bytes_to_id.get(text.encode("utf-8"))
        if text not in tok.special_ids and i is not None:
            raise FormatError(Path(path), f"the special token {text!r} to add is already an "
                              f"ordinary token of this vocabulary (id {i}), and a merge-list "
                              "file cannot make one token both. Give a text no token has (a "
                              ".tiktoken or tokenizer.json file takes it, as its library does).")
    return list(tok.special_tokens)


def _format_of(path: str | Path) -> str:
    p = Path(path).expanduser()
    return _detect(p)[0] if p.exists() else ""


def _missing(given: str | Path, p: Path) -> str:
    """Why a path names nothing here, as the user wrote it: a URL (Path folds its //), a
    link to nothing, or no file."""
    if "://" in str(given):
        return ("is a URL, and tokenizers are opened from files on this machine: download "
                "the file first (e.g. huggingface-cli download REPO tokenizer.json) and open "
                "that.")
    if p.is_symlink():
        return (f"is a link to {os.readlink(p)}, which does not exist. Fix the link, or "
                "open the file it should point to.")
    return "file or folder not found. Check the path."


def _load(path: str | Path, special_tokens: list[str] | None, **kwargs) -> BaseTokenizer:
    p = Path(path).expanduser()
    if not p.exists():
        raise FormatError(path, _missing(path, p))
    fmt, fine = _detect(p)
    if p.is_dir():
        p = _pick_in_folder(p)[1]
    if fmt == "gpt2":
        if fine == "gpt2-merges" or p.name.endswith("merges.txt") or p.suffix.lower() == ".bpe":
            other, p_is = gpt2_files.vocab_beside(p), "GPT-2 merges.txt"
            vocab, merges = other, p
        else:
            other, p_is = gpt2_files.merges_beside(p), "GPT-2 vocab.json (token: id pairs)"
            vocab, merges = p, None
        try:
            return gpt2.load(vocab, merges, special_tokens, **kwargs)
        except FormatError as e:   # (the other half missing: say why it was looked for)
            if e.path != str(other) or other.exists():
                raise
            raise FormatError(other, f"file not found, and {p.name} (given) is read as a "
                              f"{p_is}, which needs it beside it: put it there, or open the "
                              "tokenizer's own file (tokenizer.json, .tiktoken ...).") from None
    if fmt == "tiktoken" and (fine == "tiktoken-meta" or p.suffix == ".json"):
        # the metadata: load the ranks beside it
        stem = p.name[: -len(tiktoken_fmt.META_SUFFIX)] if p.name.endswith(
            tiktoken_fmt.META_SUFFIX) else p.stem
        p = p.with_name(stem + tiktoken_fmt.SUFFIX)
    if fmt == "csv":
        raise FormatError(p, "a merges CSV holds no vocabulary, so it cannot be loaded as a "
                          "tokenizer. Load the vocab.json, tokenizer.json or .bpe-gui.json "
                          "exported with it.")
    loader = getattr(_LOADERS[fmt], "load", None)
    if loader is None:   # a format read here whose tokenizer is not built yet
        raise FormatError(p, f"is a {IMPORT_LABELS[fmt]}, which this version reads but "
                          "does not run; open the model's tokenizer.json if it has one.")
    with noting_reads() as seen:
        tok = loader(p, special_tokens, **kwargs)
    tok.source = FileSource([p, *seen], special_tokens, kwargs, from_snapshot)   # (to pickle it)
    return tok


def from_snapshot(snap: Snapshot) -> BaseTokenizer:
    """The tokenizer a pickle holds (sources.py): its files written under their own names
    to a temporary folder, loaded as ``load_tokenizer`` loaded them, the folder removed."""
    files = _unpickled_files(snap)
    with tempfile.TemporaryDirectory(prefix="bpe-gui-tokenizer-") as d:
        for name, data in files:
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        main = Path(d) / files[0][0]
        tok = load_tokenizer(main, None if snap.special_tokens is None
                             else list(snap.special_tokens), **dict(snap.options))
    meta = tok.meta if isinstance(tok.meta, dict) else None
    if meta is not None and "source" in meta:
        meta["source"] = snap.source
    tok.source = Pickled(snap, from_snapshot)   # (its files are gone: pickled from these bytes)
    return tok


def _unpickled_files(snap: Snapshot) -> list[tuple[str, bytes]]:
    """A pickle's files, each checked before one is written: a plain file name (no
    folder: nothing lands outside the folder made for them) and bytes that decompress;
    FormatError naming the pickle for one that was changed since it was made."""
    files = getattr(snap, "files", None)

    def bad(why: str) -> FormatError:
        return FormatError(f"pickled tokenizer {getattr(snap, 'source', '')}".rstrip(),
                           f"{why}: the pickle was changed after it was made, or is not "
                           "a bpe-gui tokenizer's. Pickle the tokenizer again.")
    if not isinstance(snap, Snapshot) or not isinstance(files, tuple) or not files:
        raise bad("it holds no tokenizer file")
    out = []
    for item in files:
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], bytes)):
            raise bad(f"{repr(item)[:60]} is not a file's name and bytes")
        name, data = item
        if name in ("", ".", "..") or any(c in name for c in "/\\\0"):
            raise bad(f"the file name {name!r} is not a plain name")
        try:
            out.append((name, zlib.decompress(data)))
        except zlib.error as e:
            raise bad(f"the bytes of {name} do not decompress ({e})") from None
    return out


def describe_source(tok) -> str:
    """What a loaded tokenizer was read from, for the status bar, the vocabulary browser
    and ``bpe-gui encode``: 'GGUF (llama.cpp): gpt2 BPE, pre-tokenizer 'qwen2'',
    'tiktoken ranks (.tiktoken) — cl100k_base (GPT-4, GPT-3.5)', ... ('' if unknown)."""
    meta = tok.meta if isinstance(tok.meta, dict) else {}
    label = meta.get("label") or IMPORT_LABELS.get(str(meta.get("format", "")), "")
    known = meta.get("encoding_label")
    return f"{label} — {known}" if label and known else (label or known or "")


# content-sniffed kinds that say a file is a tokenizer whatever its name (dropped files)
_TOKENIZER_KINDS = ("gguf", "sentencepiece", "tekken", "hf", "native", "tiktoken-meta",
                    "gpt2-vocab", "clip", "tiktoken")


def looks_like_tokenizer(path: str | Path) -> bool:
    """Whether a file's content is a tokenizer file (of any kind, runnable here or not),
    from its first bytes: a dropped ``tokenizer.model.v3`` or ``model.gguf`` is a
    tokenizer, a dropped ``notes.txt`` is a corpus."""
    p = Path(path)
    if not p.is_file():
        return False
    try:
        with open(p, "rb") as f:
            found = sniff.sniff(f.read(sniff.HEAD_BYTES), p.stat().st_size)
    except (OSError, FormatError):
        return False
    return found is not None and found.format in _TOKENIZER_KINDS


def describe_file(path: str | Path) -> tuple[str | None, str]:
    """(format or None, one line saying what the file is) before loading it, for the
    import dialog: 'GGUF model file (llama.cpp, Ollama, LM Studio): tokenizer.ggml.model =
    'gpt2', pre = 'qwen2'', or why it cannot open ('is a Unigram SentencePiece model: not
    BPE ...'). The loader has the last word."""
    p = Path(path)
    try:
        fmt = detect_format(p)
        found = None if p.is_dir() else sniff.sniff_file(p)
    except FormatError as e:
        return None, str(e)
    if found is not None and found.problem is not None:
        return None, f"{p}: {found.problem}"
    detail = f" ({found.detail})" if found is not None and found.detail else ""
    return fmt, f"{IMPORT_LABELS.get(fmt, fmt)}{detail}"
