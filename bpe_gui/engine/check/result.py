"""A learner's trainer output, read as it was written: vocabulary, merges in order,
special tokens, and the pattern the file records (if any).

The check must see the merges exactly as the learner's trainer wrote them -- a merge
whose halves are not tokens yet, the same merge twice -- where the tokenizer loaders
(``formats.load_tokenizer``) refuse such files or tidy them (GPT-2's rule keeps only
the last copy of a merge). So GPT-2 files, ``tokenizer.json`` and pickles are read
here, leniently; a ``.tiktoken`` file holds no merge list, so it goes through the
loader, which derives the merges from the ranks.

Pickles (the CS336 assignment's ``(vocab, merges)``) are read by
:class:`SafeUnpickler`, which builds only dicts, lists, tuples, ints, bytes and str
and refuses anything else: no code in the file ever runs.

Example::

    >>> r = read_result("out/")            # vocab.json + merges.txt in a folder
    >>> r.format, len(r.merges), r.special_tokens
    ('gpt2', 240, ('<|endoftext|>',))
"""
from __future__ import annotations

import io
import pickle
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from ..display import gpt2_bytes, readable
from ..errors import FormatError
from ..formats import detect_format, load_tokenizer, tokenizer_file
from ..tokenizers.gpt2_files import merges_beside, read_merges, read_vocab, vocab_beside
from ..io.reading import read_json
from .. import Tokenizer

PICKLE_SUFFIXES = (".pkl", ".pickle", ".pck")
MAX_PICKLE_BYTES = 256 << 20
Pair = tuple[bytes, bytes]


@dataclass(frozen=True)
class LearnerResult:
    """What a learner's trainer produced.

    ``vocab`` id -> token bytes; ``merges`` in the order written; ``special_tokens``
    as the file lists them (or as found: tokens no merge makes); ``pattern`` the
    pre-tokenizer pattern the file records, None when it records none (GPT-2 files,
    pickles); ``notes`` what reading noticed (said in the report).
    """

    path: str
    format: str                        # "gpt2" | "hf" | "tiktoken" | "native" | "pickle"
    vocab: dict[int, bytes] = field(repr=False)
    merges: tuple[Pair, ...] = field(repr=False)
    special_tokens: tuple[str, ...] = ()
    pattern: str | None = None
    notes: tuple[str, ...] = ()
    # what the file records of its training (our own exports do), None where it does not
    mode: str | None = None
    end_of_word: str | None = None
    tie_rule: str | None = None
    lines: bool | None = None          # one text per line (TrainSettings.lines)

    @property
    def name(self) -> str:
        return Path(self.path).name

    def tokenizer(self, pattern: str | None = None,
                  special_tokens: Sequence[str] | None = None) -> Tokenizer:
        """A correct BPE tokenizer over this vocabulary and these merges (the reference
        for the learner's encoder). FormatError when the merges cannot make one (a
        merge whose halves are not tokens)."""
        specials = list(self.special_tokens if special_tokens is None else special_tokens)
        try:
            return Tokenizer(self.vocab, list(self.merges), specials,
                             pattern=pattern or self.pattern or "gpt2")
        except (ValueError, KeyError) as e:
            raise FormatError(self.path, f"its merges do not make a tokenizer ({e}). Run the "
                              "merge check first (it says which merge is wrong).") from None


def read_result(path: str | Path, special_tokens: Sequence[str] | None = None) -> LearnerResult:
    """Read a learner's result: a folder or file of GPT-2 ``vocab.json`` + ``merges.txt``,
    a ``tokenizer.json``, a ``.tiktoken`` (with its ``.tiktoken.json`` if beside it), or
    a pickle of ``(vocab, merges)``. ``special_tokens`` overrides the file's.

    Raises FormatError naming the file and what is wrong.
    """
    p = Path(path).expanduser()
    if not p.exists():
        raise FormatError(p, "file or folder not found. Check the path.")
    if p.is_dir():
        pickles = sorted(q for q in p.iterdir() if q.suffix.lower() in PICKLE_SUFFIXES)
        if len(pickles) == 1:
            p = pickles[0]
        elif len(pickles) > 1:
            raise FormatError(p, f"holds several pickles ({', '.join(q.name for q in pickles[:4])}); "
                              "pick one file.")
    if p.is_file() and (p.suffix.lower() in PICKLE_SUFFIXES or _looks_pickled(p)):
        result = read_pickle(p)
    else:
        fmt = detect_format(p)
        if fmt == "gpt2":
            result = read_gpt2(p)
        elif fmt == "hf":
            result = read_hf(p if p.is_file() else p / "tokenizer.json")
        elif fmt == "tiktoken":
            result = read_tiktoken(p)
        elif fmt == "native":
            result = read_native(tokenizer_file(p))
        else:
            raise FormatError(p, f"is a {fmt} file, which holds no trainer's merges to check. "
                              "Give vocab.json + merges.txt, tokenizer.json, a .tiktoken, "
                              "NAME.bpe-gui.json or a pickle of (vocab, merges).")
    if special_tokens is not None:
        result = replace(result, special_tokens=tuple(special_tokens))
    return result


def _looks_pickled(p: Path) -> bool:
    """A pickle of protocol 2 or later starts with the PROTO opcode."""
    try:
        with open(p, "rb") as f:
            return f.read(1) == b"\x80"
    except OSError:
        return False


# ----- GPT-2 files ------------------------------------------------------------------------
def read_gpt2(path: Path) -> LearnerResult:
    """vocab.json + merges.txt (either file, or their folder), merges as written."""
    if path.is_dir():
        vocab_path = next((q for q in (path / "vocab.json", path / "encoder.json") if q.is_file()),
                          None)
        if vocab_path is None:
            found = sorted(path.glob("*vocab.json"))
            if not found:
                raise FormatError(path, "holds no vocab.json.")
            vocab_path = found[0]
        merges_path = merges_beside(vocab_path)
    elif path.name.endswith("merges.txt") or path.suffix.lower() == ".bpe":
        merges_path, vocab_path = path, vocab_beside(path)
    else:
        vocab_path, merges_path = path, merges_beside(path)
    keys = read_vocab(vocab_path)
    lines = read_merges(merges_path)
    vocab: dict[int, bytes] = {}
    odd: list[str] = []   # keys outside GPT-2's alphabet: special tokens written as text
    for key, i in keys.items():
        try:
            vocab[i] = gpt2_bytes(key)
        except KeyError:
            vocab[i] = key.encode("utf-8")
            odd.append(key)
    merges = []
    for lineno, a, b in lines:
        try:
            merges.append((gpt2_bytes(a), gpt2_bytes(b)))
        except KeyError:
            raise FormatError(merges_path, f"the merge {a!r} {b!r} is not written in GPT-2's "
                              "byte alphabet (a space is Ġ).", line=lineno) from None
    specials = tuple(odd) + _unmade(vocab, merges, exclude=set(odd))
    return LearnerResult(str(vocab_path), "gpt2", vocab, tuple(merges), specials, None)


def _unmade(vocab: dict[int, bytes], merges: Sequence[Pair], exclude=frozenset()) -> tuple[str, ...]:
    """Tokens longer than one byte that no merge makes: special tokens (CS336 puts them
    in the vocabulary), in id order. Example: {256: b'<|endoftext|>', 257: b'st'} with
    merges [(b's', b't')] -> ('<|endoftext|>',)."""
    made = {a + b for a, b in merges}
    out = []
    for i in sorted(vocab):
        t = vocab[i]
        if len(t) > 1 and t not in made:
            text = t.decode("utf-8", "replace")
            if text not in exclude:
                out.append(text)
    return tuple(out)


# ----- tokenizer.json -----------------------------------------------------------------------
def read_hf(path: Path) -> LearnerResult:
    """A byte-level BPE tokenizer.json (as ``tokenizers`` saves one): model.vocab,
    model.merges as written, added_tokens, the Split pattern."""
    data = read_json(path)
    model = data.get("model") if isinstance(data, dict) else None
    if not isinstance(model, dict) or model.get("type", "BPE") != "BPE":
        kind = model.get("type") if isinstance(model, dict) else None
        raise FormatError(path, f"is not a BPE tokenizer.json (model type {kind!r}); only BPE "
                          "merges can be checked.", key="model.type")
    raw_vocab, raw_merges = model.get("vocab"), model.get("merges")
    if not isinstance(raw_vocab, dict) or not isinstance(raw_merges, list):
        raise FormatError(path, "needs model.vocab (an object) and model.merges (a list).",
                          key="model")
    added = {}
    for item in data.get("added_tokens") or []:
        if isinstance(item, dict) and isinstance(item.get("content"), str) \
                and isinstance(item.get("id"), int):
            added[item["content"]] = item["id"]
    vocab: dict[int, bytes] = {}
    for key, i in raw_vocab.items():
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise FormatError(path, f"the id {i!r} is not a whole number.", key=f"model.vocab.{key}")
        vocab[i] = key.encode("utf-8") if key in added else _hf_bytes(key, path)
    for s, i in added.items():
        vocab.setdefault(i, s.encode("utf-8"))
    merges = []
    for n, m in enumerate(raw_merges):
        parts = m.split(" ") if isinstance(m, str) else m
        if not isinstance(parts, list) or len(parts) != 2 or not all(isinstance(x, str) and x
                                                                      for x in parts):
            raise FormatError(path, f"merge {m!r} should be \"left right\" or [\"left\", "
                              "\"right\"].", key=f"model.merges[{n}]")
        merges.append((_hf_bytes(parts[0], path), _hf_bytes(parts[1], path)))
    return LearnerResult(str(path), "hf", vocab, tuple(merges), tuple(added),
                         _hf_pattern(data, path))


def _hf_bytes(key: str, path) -> bytes:
    try:
        return gpt2_bytes(key)
    except KeyError:
        raise FormatError(path, f"token {key!r} is not written in GPT-2's byte alphabet; only "
                          "byte-level tokenizer.json files (a ByteLevel pre-tokenizer) can be "
                          "checked.", key="model.vocab") from None


def _read_onig(text: str, path) -> str:
    from ..text.dialects import DialectError, read_pattern
    from ..text.unicode_versions import TOKENIZERS
    try:
        return read_pattern(text, "oniguruma", TOKENIZERS)[0]
    except DialectError as e:
        raise FormatError(path, f"the Split pattern cannot be read as Oniguruma (the "
                          f"tokenizers library) reads it: {e}. Fix the pattern in the file.",
                          key="pre_tokenizer") from None


def _hf_pattern(data: dict, path) -> str | None:
    """The word pattern a tokenizer.json records: its Split regex, or GPT-2's for a
    ByteLevel pre-tokenizer with use_regex (None: it splits no words)."""
    pre = data.get("pre_tokenizer")
    steps = pre.get("pretokenizers", []) if isinstance(pre, dict) and \
        pre.get("type") == "Sequence" else [pre]
    for s in steps:
        if not isinstance(s, dict):
            continue
        if s.get("type") == "Split":
            pat = s.get("pattern") or {}
            if isinstance(pat.get("Regex"), str):
                return _read_onig(pat["Regex"], path)
        if s.get("type") == "ByteLevel" and s.get("use_regex", True):
            return "gpt2"
    return None


# ----- .tiktoken ----------------------------------------------------------------------------
def read_tiktoken(path: Path) -> LearnerResult:
    """Ranks (+ the metadata beside them): the loader derives each merge from the ranks."""
    tok = load_tokenizer(path)
    meta_files = [path.with_name(path.name + ".json"), path.with_suffix(".json")]
    recorded = any(q.is_file() for q in meta_files) or tok.meta.get("encoding") is not None
    specials = set(tok.special_ids.values())
    vocab = {i: t for i, t in tok.vocab.items()}
    merges = tuple((a, b) for a, b in tok.merges)
    made = {a + b for a, b in merges}
    stray = [i for i, t in vocab.items() if len(t) > 1 and t not in made and i not in specials]
    notes: tuple[str, ...] = ()
    if stray:
        notes = (f"{len(stray)} token(s) longer than one byte are made by no merge of two "
                 f"lower ranks (first: id {min(stray)}, {readable(vocab[min(stray)])!r}).",)
    return LearnerResult(str(path), "tiktoken", vocab, merges, tuple(tok.special_tokens),
                         tok.pattern if recorded else None, notes)


# ----- this app's own file --------------------------------------------------------------
def read_native(path: Path) -> LearnerResult:
    """NAME.bpe-gui.json (what ``bpe-gui train`` and the window write): the merges, and
    the settings it was trained with, which the reference then uses."""
    tok = load_tokenizer(path)
    meta = tok.meta
    return LearnerResult(str(path), "native", dict(tok.vocab), tuple(tok.merges),
                         tuple(tok.special_tokens), tok.pattern, (),
                         meta.get("mode"), meta.get("end_of_word"), meta.get("tie_rule"),
                         meta.get("lines"))


# ----- pickles ------------------------------------------------------------------------------
class Refused(pickle.UnpicklingError):
    """A pickle that names a class or function (``str()``: which one)."""


class SafeUnpickler(pickle.Unpickler):
    """Builds dicts, lists, tuples, ints, bytes and str only. Those come from the
    pickle's own opcodes; anything else needs ``find_class`` (a class or function named
    in the file), which is refused -- except ``_codecs.encode``, the one way protocols
    0-2 write bytes -- so no code of the file runs."""

    ALLOWED = {("_codecs", "encode")}

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self.ALLOWED:
            return super().find_class(module, name)
        raise Refused(f"{module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        raise Refused("a persistent id")


def read_pickle(path: Path) -> LearnerResult:
    """The CS336 ``(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]])``, as a
    tuple or list of the two, or a dict with keys "vocab" and "merges"."""
    if path.stat().st_size > MAX_PICKLE_BYTES:
        raise FormatError(path, f"is over {MAX_PICKLE_BYTES >> 20} MB, far more than a vocabulary "
                          "and its merges; check that you picked the right file.")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise FormatError(path, f"cannot be read ({e.strerror}).") from None
    try:
        obj = SafeUnpickler(io.BytesIO(data)).load()
    except Refused as e:
        raise FormatError(path, f"holds something other than dicts, lists, tuples, ints, bytes "
                          f"and str ({e}), so it was not read: a pickle can run code. Save "
                          "plain data: pickle.dump((vocab, merges), f) with vocab a dict of "
                          "int -> bytes and merges a list of (bytes, bytes).") from None
    except Exception as e:   # truncated or not a pickle at all
        raise FormatError(path, f"is not a readable pickle ({type(e).__name__}: {e}).") from None
    if isinstance(obj, dict) and "vocab" in obj and "merges" in obj:
        obj = (obj["vocab"], obj["merges"])
    if not isinstance(obj, (tuple, list)) or len(obj) != 2:
        raise FormatError(path, f"holds a {type(obj).__name__}; the check reads (vocab, merges): "
                          "a tuple of the vocabulary dict and the merges list.")
    vocab, notes = _pickled_vocab(obj[0], path)
    merges = _pickled_merges(obj[1], path)
    return LearnerResult(str(path), "pickle", vocab, merges, _unmade(vocab, merges), None,
                         notes)


def _as_bytes(v: Any) -> bytes | None:
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    if isinstance(v, str):
        return v.encode("utf-8")
    return None


def _pickled_vocab(raw: Any, path) -> tuple[dict[int, bytes], tuple[str, ...]]:
    if not isinstance(raw, dict):
        raise FormatError(path, f"the vocabulary (first item) is a {type(raw).__name__}, not a "
                          "dict of int -> bytes.")
    vocab: dict[int, bytes] = {}
    texts = 0
    for i, t in raw.items():
        if isinstance(i, (bytes, str)) and isinstance(t, int):   # bytes -> id, the other way
            i, t = t, i
        b = _as_bytes(t)
        if isinstance(i, bool) or not isinstance(i, int) or i < 0 or b is None:
            raise FormatError(path, f"vocabulary entry {i!r}: {t!r} is not an id (int) -> token "
                              "(bytes).")
        texts += isinstance(t, str)
        vocab[i] = b
    notes = (f"{texts} vocabulary token(s) are str, read as their UTF-8 bytes.",) if texts else ()
    return vocab, notes


def _pickled_merges(raw: Any, path) -> tuple[Pair, ...]:
    if not isinstance(raw, (list, tuple)):
        raise FormatError(path, f"the merges (second item) are a {type(raw).__name__}, not a list "
                          "of (bytes, bytes).")
    out = []
    for n, m in enumerate(raw):
        a, b = (_as_bytes(m[0]), _as_bytes(m[1])) if isinstance(m, (list, tuple)) \
            and len(m) == 2 else (None, None)
        if not a or not b:
            raise FormatError(path, f"merge #{n + 1} ({m!r}) is not a pair of non-empty bytes.")
        out.append((a, b))
    return tuple(out)
