"""GGUF files (llama.cpp, Ollama, LM Studio): the metadata section and the tokenizer in it.

A pure parser: bytes from a file object in, plain dataclasses out. Only the metadata
section is read (the header, then the key/value pairs); the tensor infos and the tensor
data after it (gigabytes) are never read. Layout, as ggml's ``gguf.cpp`` reads it
(``docs/MODEL_FILES.md`` has more)::

    "GGUF"  uint32 version (2 or 3)  uint64 tensor_count  uint64 kv_count
    kv_count times:  string key  uint32 type  value
    string = uint64 length + UTF-8 bytes;  array = uint32 item type + uint64 count + items

Why our own reader rather than the ``gguf`` package: ``gguf.GGUFReader`` maps the whole
file with numpy and parses the tensor infos too (numpy, PyYAML, requests and tqdm for
~200 lines of work), and a hostile file ends in a numpy or index error rather than a
message. Here every length is checked against the bytes left in the file before
anything is allocated or read, so a truncated file, an array longer than the file or a
string of 2^63 bytes is a FormatError naming the file and the key, in bounded memory
(at most ``MAX_METADATA_BYTES`` are read) and time (every step consumes bytes). The
``gguf`` package's writer builds the test files and its reader is the tests' oracle.

What llama.cpp refuses is refused too: version 1, versions above 3, an empty or repeated
key, an array of arrays, an unknown value type. Files of either byte order are read (a
big-endian file reads as version 0x03000000 the other way round, which is how ggml and
the ``gguf`` package tell it).

Example::

    >>> meta = read_metadata("ggml-vocab-gpt-2.gguf")
    >>> meta.values["tokenizer.ggml.model"], meta.types["tokenizer.ggml.tokens"]
    ('gpt2', 'ARRAY[STRING]')
    >>> vocab = read_vocab("ggml-vocab-gpt-2.gguf")
    >>> vocab.pre, len(vocab.tokens), vocab.merges[0]
    ('gpt-2', 50257, 'Ġ t')
"""
from __future__ import annotations

import os
import struct
import sys
from array import array
from dataclasses import dataclass, field
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from ..tokenizers.post import PostProcessor
from ..errors import FormatError
from ..io.reading import ReadInPlace, opened

MAGIC = b"GGUF"
VERSIONS = (2, 3)
# Published files' metadata (vocabulary, merges, chat templates) is under 32 MB (Gemma's
# 262k tokens and 515k merges: 15 MB); more is refused before it is read.
MAX_METADATA_BYTES = 256 << 20
MAX_KEY_BYTES = 1 << 16          # ggml has no limit; real keys are under 100 bytes
MAX_STRING_ARRAY = 1 << 24       # 16M strings (a vocabulary is under 1M)

# value types (ggml's enum gguf_type): name, struct code, size
TYPES: dict[int, tuple[str, str, int]] = {
    0: ("UINT8", "B", 1), 1: ("INT8", "b", 1), 2: ("UINT16", "H", 2), 3: ("INT16", "h", 2),
    4: ("UINT32", "I", 4), 5: ("INT32", "i", 4), 6: ("FLOAT32", "f", 4), 7: ("BOOL", "?", 1),
    8: ("STRING", "", 8), 9: ("ARRAY", "", 12), 10: ("UINT64", "Q", 8), 11: ("INT64", "q", 8),
    12: ("FLOAT64", "d", 8),
}
STRING, ARRAY = 8, 9
# array.array type codes of the same sizes (Q/q are 8 bytes on every platform Python runs on)
_ARRAY_CODES = {"B": "B", "b": "b", "H": "H", "h": "h", "I": "I", "i": "i", "f": "f",
                "?": "B", "Q": "Q", "q": "q", "d": "d"}

# llama.cpp's tokenizer models (tokenizer.ggml.model) and what they are
MODELS: dict[str, str] = {
    "gpt2": "byte-level BPE (merges, GPT-2 byte alphabet)",
    "llama": "SentencePiece-style BPE (scores, byte fallback)",
    "gemma4": "SentencePiece-style BPE with merges (Gemma 4)",
    "bert": "WordPiece",
    "t5": "Unigram (SentencePiece)",
    "rwkv": "RWKV trie (greedy longest match)",
    "plamo2": "PLaMo-2 (Aho-Corasick / Viterbi)",
    "no_vocab": "no vocabulary", "none": "no vocabulary",
}
BPE_MODELS = ("gpt2", "llama", "gemma4")

_ID_KEYS = {"bos": "bos_token_id", "eos": "eos_token_id", "eot": "eot_token_id",
            "eom": "eom_token_id", "unk": "unknown_token_id", "sep": "seperator_token_id",
            "pad": "padding_token_id", "mask": "mask_token_id", "cls": "cls_token_id",
            "fim_pre": "fim_pre_token_id", "fim_suf": "fim_suf_token_id",
            "fim_mid": "fim_mid_token_id", "fim_pad": "fim_pad_token_id",
            "fim_rep": "fim_rep_token_id", "fim_sep": "fim_sep_token_id"}
_FLAG_KEYS = ("add_bos_token", "add_eos_token", "add_sep_token", "add_space_prefix",
              "remove_extra_whitespaces")


def _c_model():
    from ..tokenizers.imported.word_model import model_class
    return model_class()


def _native_model():
    """The C model class when it has the GGUF readers (None: the pure-Python stand-in, or
    ``BPE_GUI_GGUF_PYTHON=1``, which the tests use to compare the two readers)."""
    if os.environ.get("BPE_GUI_GGUF_PYTHON") == "1":
        return None
    model = _c_model()
    return model if hasattr(model, "gguf_walk") else None


class GGUFStrings(ReadInPlace[str]):
    """A GGUF string array read in place: ``count`` strings (uint64 length + bytes each)
    from byte ``start`` of ``buf`` (the metadata as read; already checked to hold them
    all), in the file's byte order. No Python object per string: the C model is built
    from the bytes (``span``); an item is decoded when asked for (surrogate escapes for
    bytes that are not UTF-8, as the Python reader gives), a list only on iteration."""

    __slots__ = ("buf", "start", "length", "big", "_offsets")
    _what = "GGUF string array"

    def __init__(self, buf: bytearray, start: int, count: int, big: bool):
        self.buf, self.start, self.length, self.big = buf, start, count, big
        self._offsets: array | None = None

    @property
    def span(self) -> tuple[bytearray, int, int, bool]:
        """(buffer, start, count, big-endian): what the C loaders take."""
        return self.buf, self.start, self.length, self.big

    def __len__(self) -> int:
        return self.length

    def tolist(self) -> list[str]:
        return _c_model().gguf_strings(self.buf, self.start, self.length, self.big)

    def _item(self, i: int) -> str:
        if self._offsets is None:
            offsets = array("Q")
            offsets.frombytes(_c_model().gguf_offsets(self.buf, self.start, self.length, self.big))
            self._offsets = offsets
        a, b = self._offsets[i] + 8, self._offsets[i + 1]
        return bytes(self.buf[a:b]).decode("utf-8", "surrogateescape")

    def __repr__(self) -> str:
        return f"GGUFStrings({self.length:,} strings at byte {self.start:,})"


@dataclass(frozen=True)
class GGUFMetadata:
    """The metadata section of a GGUF file.

    ``values``: key -> value (int, float, bool, str, or for an array a list of str (a
    :class:`GGUFStrings` when the C reader read it) or an ``array.array`` of numbers; BOOL
    arrays as 0/1 bytes). Strings that are not UTF-8
    keep their bytes as surrogate escapes (``s.encode('utf-8', 'surrogateescape')``).
    ``types``: key -> ggml's type name ('UINT32', 'ARRAY[STRING]').
    ``end``: the byte offset where the metadata ends (the tensor infos start there).
    """

    path: str | None
    version: int
    byte_order: str              # "little" or "big"
    tensor_count: int
    values: dict[str, Any]
    types: dict[str, str]
    end: int

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


@dataclass(frozen=True)
class GGUFVocab:
    """The tokenizer keys of a GGUF file (``tokenizer.ggml.*``), as llama.cpp reads them.

    ``model``: 'gpt2' (byte-level BPE with merges), 'llama' (SentencePiece-style, scores),
    'gemma4', 'bert', 't5', ...; ``pre``: the pre-tokenizer name that picks llama.cpp's
    split regexes ('llama-bpe', 'qwen2', ...; None when the key is missing, which
    llama.cpp reads as 'default'). ``merges``: 'left right' strings in rank order.
    ``special_ids``: 'bos', 'eos', 'unk', 'pad', ... -> id (only those present).
    ``flags``: 'add_bos_token', 'add_space_prefix', ... -> bool (only those present).
    """

    path: str | None
    model: str
    pre: str | None
    tokens: Sequence[str]          # a list, or a GGUFStrings read in place
    token_types: list[int] | None
    scores: list[float] | None
    merges: Sequence[str] | None
    special_ids: dict[str, int] = field(default_factory=dict)
    flags: dict[str, bool] = field(default_factory=dict)
    precompiled_charsmap: bytes | None = None
    chat_template: str | None = None
    architecture: str | None = None
    name: str | None = None
    notes: list[str] = field(default_factory=list)   # what llama.cpp would warn about

    @property
    def model_description(self) -> str:
        return MODELS.get(self.model, f"an unknown tokenizer model {self.model!r}")

    def not_bpe(self) -> str | None:
        """Why this vocabulary is not a BPE one this app can run, or None if it is."""
        if self.model in BPE_MODELS:
            return None
        what = MODELS.get(self.model)
        if what is None:
            return (f"tokenizer.ggml.model = {self.model!r} is a tokenizer model llama.cpp "
                    "does not name; only BPE vocabularies (gpt2, llama, gemma4) open here.")
        return (f"holds a {what} vocabulary (tokenizer.ggml.model = {self.model!r}), not BPE: "
                "this app opens BPE tokenizers only (tokenizer.ggml.model gpt2, llama or "
                "gemma4).")


class _Cursor:
    """Reads a file's metadata section front to back, holding what it has read in one
    buffer, refusing any length that would run past the end of the file or the cap."""

    def __init__(self, f: IO[bytes], size: int, path, cap: int, native=None):
        self.native = native   # the C model class with gguf_walk, or None
        self.f = f
        self.size = size
        self.path = path
        self.cap = min(size, cap)
        self.buf = bytearray()
        self.pos = 0
        self.order = "<"
        self.key: str | None = None   # the key being read, named in errors

    def fail(self, message: str) -> FormatError:
        return FormatError(self.path, message, key=self.key)

    def need(self, n: int, what: str) -> None:
        end = self.pos + n
        if end > len(self.buf):
            if end > self.size:
                raise self.fail(f"the file ends inside {what}: it needs {n:,} bytes at byte "
                                f"offset {self.pos:,}, and the file has {self.size - self.pos:,} "
                                "left. The file is truncated or not a GGUF file.")
            if end > self.cap:
                raise self.fail(f"the metadata runs past {self.cap >> 20} MiB at {what}; "
                                "published GGUF files hold far less. The file is damaged or "
                                "not a GGUF file.")
            want = max(end - len(self.buf), min(4 << 20, self.cap - len(self.buf)))
            chunk = self.f.read(want)
            self.buf += chunk
            if len(self.buf) < end:   # the file shrank under us
                raise self.fail(f"the file ends inside {what} at byte offset {len(self.buf):,}.")

    def scalar(self, code: str, size: int, what: str):
        self.need(size, what)
        (v,) = struct.unpack_from(self.order + code, self.buf, self.pos)
        self.pos += size
        return v

    def u32(self, what: str) -> int:
        return self.scalar("I", 4, what)

    def u64(self, what: str) -> int:
        return self.scalar("Q", 8, what)

    def string(self, what: str, limit: int | None = None) -> str:
        n = self.u64(f"the length of {what}")
        if n > self.size - self.pos:
            raise self.fail(f"{what} claims {n:,} bytes, past the end of the file "
                            f"({self.size - self.pos:,} bytes left).")
        if limit is not None and n > limit:
            raise self.fail(f"{what} is {n:,} bytes long; at most {limit:,} are allowed.")
        self.need(n, what)
        s = bytes(self.buf[self.pos:self.pos + n]).decode("utf-8", "surrogateescape")
        self.pos += n
        return s

    def strings(self, count: int, what: str) -> Sequence[str]:
        """``count`` strings: the fast loop of vocabularies and merges (with the C
        reader, the array is checked in C and kept as bytes: a GGUFStrings)."""
        if self.native is not None:
            return self._strings_native(count, what)
        out: list[str] = []
        unpack = struct.Struct(self.order + "Q").unpack_from
        buf, pos = self.buf, self.pos
        for i in range(count):
            if pos + 8 > len(buf):
                self.pos = pos
                self.need(8, f"the length of {what}[{i}]")
                buf = self.buf
            (n,) = unpack(buf, pos)
            pos += 8
            if pos + n > len(buf):
                if n > self.size - pos:
                    raise self.fail(f"{what}[{i}] claims {n:,} bytes, past the end of the "
                                    f"file ({self.size - pos:,} bytes left).")
                self.pos = pos
                self.need(n, f"{what}[{i}]")
                buf = self.buf
            out.append(bytes(buf[pos:pos + n]).decode("utf-8", "surrogateescape"))
            pos += n
        self.pos = pos
        return out

    def _strings_native(self, count: int, what: str) -> GGUFStrings:
        walk = self.native.gguf_walk
        start, pos, i, big = self.pos, self.pos, 0, self.order == ">"
        while True:
            status, pos, i, claim = walk(self.buf, pos, i, count, big)
            if status == 0:
                break
            if status == 1:   # the length of string i is past the bytes read
                self.pos = pos
                self.need(8, f"the length of {what}[{i}]")
                continue
            pos += 8           # string i (its length read) is past the bytes read
            if claim > self.size - pos:
                raise self.fail(f"{what}[{i}] claims {claim:,} bytes, past the end of the "
                                f"file ({self.size - pos:,} bytes left).")
            self.pos = pos
            self.need(claim, f"{what}[{i}]")
            pos -= 8
        self.pos = pos
        return GGUFStrings(self.buf, start, count, big)


def _value(cur: _Cursor, vtype: int, what: str) -> tuple[Any, str]:
    if vtype not in TYPES:
        raise cur.fail(f"the value type {vtype} is not a GGUF type (0-12).")
    name, code, size = TYPES[vtype]
    if vtype == STRING:
        return cur.string(what), name
    if vtype != ARRAY:
        v = cur.scalar(code, size, what)
        return (bool(v) if vtype == 7 else v), name
    itype = cur.u32(f"the item type of {what}")
    count = cur.u64(f"the length of {what}")
    if itype == ARRAY:
        raise cur.fail("is an array of arrays, which GGUF readers (llama.cpp) refuse.")
    if itype not in TYPES:
        raise cur.fail(f"the array's item type {itype} is not a GGUF type (0-12).")
    iname, icode, isize = TYPES[itype]
    left = cur.size - cur.pos
    if count * isize > left:   # a string item takes 8 bytes at least
        raise cur.fail(f"the array claims {count:,} items of {iname}, at least "
                       f"{count * isize:,} bytes, past the end of the file ({left:,} bytes "
                       "left).")
    if itype == STRING:
        if count > MAX_STRING_ARRAY:
            raise cur.fail(f"the array holds {count:,} strings; at most {MAX_STRING_ARRAY:,} "
                           "are allowed.")
        return cur.strings(count, what), f"ARRAY[{iname}]"
    nbytes = count * isize
    cur.need(nbytes, what)
    arr = array(_ARRAY_CODES[icode])
    arr.frombytes(bytes(cur.buf[cur.pos:cur.pos + nbytes]))
    if (cur.order == ">") != (sys.byteorder == "big") and isize > 1:
        arr.byteswap()
    cur.pos += nbytes
    return arr, f"ARRAY[{iname}]"


def parse_metadata(f: IO[bytes], size: int, path: str | Path | None = None,
                   cap: int = MAX_METADATA_BYTES,
                   into: dict[str, Any] | None = None) -> GGUFMetadata:
    """The metadata of the GGUF file open as ``f`` (positioned at its start), ``size``
    bytes long. Reads at most ``cap`` bytes; raises FormatError naming ``path`` and the
    key at fault. ``into``: a dict that receives the values as they are read (so a
    caller that reads only a file's head keeps the keys before the cut)."""
    cur = _Cursor(f, size, path, cap, _native_model())
    if size < 4:
        raise FormatError(path, f"is {size} bytes long, too short for a GGUF file.")
    cur.need(4, "the magic")
    if bytes(cur.buf[:4]) != MAGIC:
        raise FormatError(path, f"does not start with GGUF's magic bytes 'GGUF' (it starts with "
                          f"{bytes(cur.buf[:4])!r}), so it is not a GGUF file.")
    cur.pos = 4
    version = cur.u32("the version")
    if version & 0xFFFF == 0 and version:   # written on a machine of the other byte order
        cur.order = ">"
        version = struct.unpack("<I", struct.pack(">I", version))[0]
    if version == 1:
        raise FormatError(path, "is a GGUF version 1 file, which llama.cpp no longer reads; "
                          "convert it again with a current llama.cpp.", key="version")
    if version not in VERSIONS:
        raise FormatError(path, f"is GGUF version {version}; versions 2 and 3 are known. "
                          "The file is damaged or newer than this app.", key="version")
    tensor_count = cur.u64("the tensor count")
    kv_count = cur.u64("the key/value count")
    left = size - cur.pos
    if kv_count * 13 > left:   # a key/value takes 13 bytes at least
        raise FormatError(path, f"claims {kv_count:,} metadata keys, more than its remaining "
                          f"{left:,} bytes can hold. The file is truncated or damaged.",
                          key="kv_count")
    if tensor_count * 24 > left:  # a tensor info takes 24 bytes at least
        raise FormatError(path, f"claims {tensor_count:,} tensors, more than its remaining "
                          f"{left:,} bytes can hold. The file is truncated or damaged.",
                          key="tensor_count")
    values: dict[str, Any] = {} if into is None else into
    types: dict[str, str] = {}
    for i in range(kv_count):
        cur.key = None
        key = cur.string(f"the name of key #{i}", MAX_KEY_BYTES)
        if not key:
            raise FormatError(path, f"key #{i} has an empty name.", key=f"#{i}")
        if key in values:
            raise FormatError(path, f"key #{i} repeats the key {key!r}.", key=key)
        cur.key = key
        vtype = cur.u32("the value type")
        values[key], types[key] = _value(cur, vtype, "the value")
    return GGUFMetadata(None if path is None else str(path), version,
                        "big" if cur.order == ">" else "little", tensor_count, values,
                        types, cur.pos)


def read_metadata(path: str | Path, cap: int = MAX_METADATA_BYTES) -> GGUFMetadata:
    """The metadata section of the GGUF file at ``path`` (the tensors are not read)."""
    p = Path(path)
    with opened(p, "a .gguf file") as f:
        return parse_metadata(f, os.fstat(f.fileno()).st_size, p, cap)


def vocab_only(path: str | Path) -> bytes:
    """The GGUF file at ``path`` with no tensors: its header (tensor count 0) and its
    metadata, which hold the whole tokenizer (what llama.cpp's vocab-only files are)."""
    meta = read_metadata(path)
    with open(path, "rb") as f:
        data = bytearray(f.read(meta.end))
    order = "<" if meta.byte_order == "little" else ">"
    data[8:16] = struct.pack(order + "Q", 0)
    return bytes(data)


# ----- the tokenizer ------------------------------------------------------------------
def _typed(meta: GGUFMetadata, key: str, want: tuple[str, ...], required: bool = False):
    if key not in meta.values:
        if required:
            raise FormatError(meta.path, "has no tokenizer (no key "
                              f"{key!r}); this GGUF file holds no vocabulary.", key=key)
        return None
    if meta.types[key] not in want:
        raise FormatError(meta.path, f"is of type {meta.types[key]}; llama.cpp expects "
                          f"{' or '.join(want)}.", key=key)
    return meta.values[key]


_INTS = ("UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "UINT64", "INT64")


def vocab_of(meta: GGUFMetadata) -> GGUFVocab:
    """The tokenizer keys of parsed metadata, checked (types, lengths, ids in range)."""
    t = "tokenizer.ggml."
    model = _typed(meta, t + "model", ("STRING",), required=True)
    tokens = _typed(meta, t + "tokens", ("ARRAY[STRING]",))
    if tokens is None:
        if model in ("no_vocab", "none"):
            tokens = []
        else:
            raise FormatError(meta.path, f"has tokenizer.ggml.model = {model!r} but no token "
                              "list.", key=t + "tokens")
    n = len(tokens)
    types = _typed(meta, t + "token_type", tuple(f"ARRAY[{x}]" for x in _INTS))
    scores = _typed(meta, t + "scores", ("ARRAY[FLOAT32]", "ARRAY[FLOAT64]"))
    for key, arr in ((t + "token_type", types), (t + "scores", scores)):
        if arr is not None and len(arr) != n:
            raise FormatError(meta.path, f"holds {len(arr):,} entries for {n:,} tokens.",
                              key=key)
    merges = _typed(meta, t + "merges", ("ARRAY[STRING]",))
    special: dict[str, int] = {}
    notes: list[str] = []
    for name, k in _ID_KEYS.items():
        v = _typed(meta, t + k, _INTS)
        if v is None:
            continue
        # llama.cpp stores ids as uint32; converters write 0xFFFFFFFF / -1 for "none"
        if v < 0 or v == 0xFFFFFFFF:
            continue
        if v >= n:   # llama.cpp warns and keeps its default
            notes.append(f"{t}{k} = {v} is not a token (the vocabulary has {n:,}); ignored, "
                         "as llama.cpp does.")
            continue
        special[name] = v
    flags = {}
    for k in _FLAG_KEYS:
        v = _typed(meta, t + k, ("BOOL",))
        if v is not None:
            flags[k] = bool(v)
    charsmap = _typed(meta, t + "precompiled_charsmap", ("ARRAY[UINT8]", "ARRAY[INT8]"))
    pre = _typed(meta, t + "pre", ("STRING",))
    template = _typed(meta, "tokenizer.chat_template", ("STRING",))
    return GGUFVocab(
        meta.path, model, pre, tokens,
        None if types is None else list(types),
        None if scores is None else list(scores),
        merges, special, flags,
        None if charsmap is None else charsmap.tobytes(),
        template,
        _typed(meta, "general.architecture", ("STRING",)),
        _typed(meta, "general.name", ("STRING",)), notes)


def read_vocab(path: str | Path) -> GGUFVocab:
    """The tokenizer of the GGUF file at ``path``."""
    return vocab_of(read_metadata(path))


def split_merge(merge: str) -> tuple[str, str]:
    """'Ġ t' -> ('Ġ', 't'), as llama.cpp splits a merge: at the first space after the
    first character (a token may itself be a space in a non-byte-level vocabulary). A
    merge without one is ('', ''), which llama.cpp keeps and never applies."""
    k = merge.find(" ", 1)
    if k < 0:
        return "", ""
    return merge[:k], merge[k + 1:]


# ----- loading as a tokenizer -----------------------------------------------------------
def not_run_yet(model: str, pre: str | None) -> str | None:
    """Why a BPE vocabulary (``model`` in BPE_MODELS) of this ``pre`` does not open in this
    version (a Gemma 4 vocabulary, a pre-tokenizer llama.cpp runs with code of its own), or
    None if it opens: what ``load`` refuses, known from the two keys alone (the sniffer and
    the local model list ask it)."""
    if model in ("llama", "gemma4"):
        return None
    if model != "gpt2":
        return f"{MODELS.get(model, model)} (tokenizer.ggml.model = {model!r})"
    from ..tokenizers.imported.llama_cpp import pre_type
    t = pre_type(pre)
    return t.why if t.kind is None else None


def load(path: str | Path, special_tokens=None, *, parse_special: bool = True, **kwargs):
    """:func:`load_file`, with the BOS / EOS llama.cpp adds around a prompt as the
    tokens ``encode(..., add_special_tokens=True)`` adds (off unless asked: llama.cpp's
    ``llama_tokenize`` takes no default)."""
    tok = load_file(path, special_tokens, parse_special=parse_special, **kwargs)
    meta = tok.meta if isinstance(tok.meta, dict) else {}
    ids = meta.get("special_token_ids") or {}
    by_id = {i: t for t, i in tok.special_ids.items()}

    def around(key: str, on: bool) -> tuple[tuple[int, str], ...]:
        i = ids.get(key)
        return ((i, by_id.get(i, "")),) if on and isinstance(i, int) else ()
    tok.post = PostProcessor(around("bos", bool(meta.get("add_bos"))),
                             around("eos", bool(meta.get("add_eos"))), default=False)
    return tok


def load_file(path: str | Path, special_tokens=None, *, parse_special: bool = True, **kwargs):
    """The tokenizer of a GGUF file, run as llama.cpp runs it: ``llama`` vocabularies
    (SentencePiece-style: scores, <0xNN> byte tokens): :func:`load_llama`; ``gpt2``
    vocabularies: tokenizers/imported/llama_vocab.py; other vocabularies are refused naming
    what they are. ``parse_special``: special tokens in the text become their ids
    (llama.cpp's ``llama-tokenize`` default); False: only user-defined ones do (its test
    setting)."""
    from ..tokenizers.imported.llama_vocab import LlamaVocab, build_bpe, build_gemma4
    p = Path(path)
    vocab = read_vocab(p)
    problem = vocab.not_bpe()
    if problem is not None:
        raise FormatError(p, problem, key="tokenizer.ggml.model")
    if vocab.model == "llama":
        return load_llama(p, vocab, special_tokens, parse_special=parse_special,
                          meta=kwargs.get("meta"), pattern=kwargs.get("pattern"))
    if vocab.model not in ("gpt2", "gemma4"):
        raise FormatError(p, f"holds a {vocab.model_description} vocabulary "
                          f"(tokenizer.ggml.model = {vocab.model!r}), which this app does not "
                          "run yet; open the model's tokenizer.json if it has one.",
                          key="tokenizer.ggml.model")
    if special_tokens is not None or kwargs.get("pattern") is not None:
        raise FormatError(p, "a GGUF file's special tokens and pre-tokenizer are the file's "
                          "own (its token types and tokenizer.ggml.pre); they cannot be "
                          "replaced. Leave out --special-token / --pattern / --preset.")
    if vocab.merges is None:
        raise FormatError(p, f"has no tokenizer.ggml.merges, which a {vocab.model} vocabulary "
                          "needs (llama.cpp refuses it too).", key="tokenizer.ggml.merges")
    lv = LlamaVocab(str(p), vocab.tokens, vocab.token_types, vocab.merges, vocab.pre,
                    dict(vocab.special_ids), dict(vocab.flags), vocab.name,
                    vocab.architecture, list(vocab.notes))
    if vocab.model == "gemma4":
        return build_gemma4(lv, parse_special=parse_special, meta=kwargs.get("meta"))
    return build_bpe(lv, parse_special=parse_special, meta=kwargs.get("meta"))


def load_llama(p: Path, vocab: GGUFVocab, special_tokens=None, *, parse_special: bool = True,
               meta: dict | None = None, pattern=None):
    """A ``llama`` vocabulary as llama.cpp's llm_tokenizer_spm runs it
    (tokenizers/imported/spm.py ``build_llama``)."""
    from ..tokenizers.imported.llama_vocab import LlamaVocab, specials_of, token_attrs
    from ..tokenizers.imported.spm import build_llama
    if special_tokens is not None or pattern is not None:
        raise FormatError(p, "a GGUF file's special tokens and pre-tokenizer are the file's "
                          "own (its token types); they cannot be replaced. Leave out "
                          "--special-token / --pattern / --preset.")
    add_prefix = vocab.flags.get("add_space_prefix", True)
    info = {"format": "gguf", "source": str(p), "model": "llama",
            "label": f"GGUF (llama.cpp): llama (SentencePiece-style BPE, {len(vocab.tokens):,} "
                     "tokens)",
            "add_space_prefix": add_prefix, "parse_special": parse_special,
            "add_bos": vocab.flags.get("add_bos_token", True),
            "add_eos": vocab.flags.get("add_eos_token", False),
            "special_token_ids": dict(vocab.special_ids), "notes": list(vocab.notes),
            **(meta or {})}
    if vocab.scores is None:
        info["notes"].append("tokenizer.ggml.scores is missing: every token scores 0, as "
                             "llama.cpp reads it.")
    tokens = list(vocab.tokens)
    # llama.cpp's corrections by name (end-of-generation texts are CONTROL too...)
    lv = LlamaVocab(str(p), tokens, vocab.token_types, [], vocab.pre, dict(vocab.special_ids),
                    dict(vocab.flags), vocab.name, vocab.architecture)
    attrs = token_attrs(lv, {t: i for i, t in enumerate(tokens)})
    try:
        return build_llama(tokens, vocab.scores, vocab.token_types,
                           add_space_prefix=add_prefix, parse_special=parse_special, meta=info,
                           attrs=attrs, specials=specials_of(lv, attrs, parse_special))
    except ValueError as e:
        raise FormatError(p, f"cannot be run: {e}.", key="tokenizer.ggml.tokens") from None
