"""What every format module shares: a plain view of a tokenizer, atomic writes, strict reads.

Exports build each file's full content in memory first (so a tokenizer a format cannot
express fails before anything touches the disk), then :func:`write_files` replaces the
set of files all or none (``engine/atomic.py``).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import regex

from ..atomic import make_folder, remove_folders, replace_set
from ..errors import BPEError, ExportError, FormatError
from ..presets import PRESETS
from ..pretokenize import Pretokenizer, resolve_pattern
from ..tokenizer import EOW, UNK, Tokenizer



def byte_level_only(fmt: str, mode: str) -> str | None:
    """The rule of the formats that hold byte-level tokenizers only (GPT-2 files,
    tiktoken): why not, for a character-level one; None for a byte-level one."""
    if mode == "byte":
        return None
    return (f"{fmt} holds byte-level tokenizers only; this one is character-level. Export "
            "the native JSON or Hugging Face tokenizer.json instead, or train in byte mode.")

@dataclass
class Snapshot:
    """A tokenizer as plain data, cut at the step it is showing (``Tokenizer.at_step``).

    ``vocab`` holds every id in use (base symbols, special tokens, merged tokens);
    ``merge_ids[k]`` is the id merge k produces; ``counts[k]`` its pair count, or None
    when the tokenizer was not trained here.
    """

    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]
    merge_ids: list[int]
    special_tokens: list[str]
    special_ids: dict[str, int]
    mode: str
    end_of_word: str
    pattern: str                 # the regex itself
    pattern_setting: str         # preset name if it is one, else the regex
    counts: list[int | None]
    meta: dict = field(default_factory=dict)

    @cached_property
    def eow_id(self) -> int | None:
        return self.token_id(EOW) if self.mode == "char" else None

    @cached_property
    def unk_id(self) -> int | None:
        return self.token_id(UNK) if self.mode == "char" else None

    def token_id(self, token: bytes) -> int | None:
        """The lowest non-special id with these bytes (the one encoding uses)."""
        specials = set(self.special_ids.values())
        return min((i for i, t in self.vocab.items() if t == token and i not in specials),
                   default=None)

    def duplicates(self) -> dict[int, int]:
        """Ids whose bytes an earlier id already has -> that earlier id.

        Such an id is never produced by encoding (the tokenizer maps bytes to the first
        id), so formats keyed by token text keep the first one only.
        """
        first: dict[bytes, int] = {}
        dup: dict[int, int] = {}
        specials = set(self.special_ids.values())
        for i in sorted(self.vocab):
            if i in specials:
                continue
            t = self.vocab[i]
            if t in first:
                dup[i] = first[t]
            else:
                first[t] = i
        return dup


def snapshot(tok: Tokenizer) -> Snapshot:
    """The exportable view of ``tok`` at the step it shows."""
    n = tok.n_merges
    merges = [(bytes(a), bytes(b)) for a, b in tok.merges[:n]]
    # at_step() clones already hold only the tokens in use; drop later merges' tokens in
    # case a tokenizer shares its tables with one that has grown since
    later = {tok.token_to_id.get(a + b) for a, b in tok.merges[n:]}
    later -= {tok.token_to_id[a + b] for a, b in merges}
    vocab = {i: bytes(t) for i, t in tok.vocab.items() if i not in later}
    t2i = tok.token_to_id
    merge_ids = [t2i[a + b] for a, b in merges]
    meta = dict(tok.meta)
    counts = list(meta.get("merge_counts") or [])[:n]
    counts += [None] * (n - len(counts))
    setting = meta.get("pattern") or tok.pattern
    pattern, preset = resolve_pattern(setting)
    if pattern != tok.pattern:  # meta disagrees with the tokenizer: trust the tokenizer
        preset = preset_name(tok.pattern)
    setting = preset or tok.pattern  # a preset by its canonical name ('gpt4' -> 'cl100k')
    return Snapshot(vocab=vocab, merges=merges, merge_ids=merge_ids,
                    special_tokens=list(tok.special_tokens), special_ids=dict(tok.special_ids),
                    mode=tok.mode, end_of_word=tok.end_of_word, pattern=tok.pattern,
                    pattern_setting=setting, counts=counts, meta=meta)


def preset_name(pattern: str) -> str | None:
    """The preset a regex is, if any. Example: GPT2_PATTERN -> 'gpt2'."""
    return next((k for k, v in PRESETS.items() if v == pattern), None)


# Text on which a custom pattern must cut the same words in another regex engine
# (Oniguruma for tokenizers, fancy-regex for tiktoken) before it is exported there.
PROBE_TEXT = (
    "Hello, World! It's 3:45pm; we'll see... don't I'M 'quoted' x2 12345 3.14 -7\n"
    "  two  spaces\tand\ttabs \r\n\n\n trailing   \u00a0nbsp\u3000ideographic\u2028ls\n"
    "café naïve Ελληνικά русский עברית العربية हिन्दी 日本語のテキスト 中文，标点！한국어\n"
    "emoji 🙂👍🏽 👨\u200d👩\u200d👧 🇨🇳 def f(x):\n    return x**2  # comment\n"
    "a_b snake_case CamelCase ＡＢＣ１２３ ①②③ ½ \x1cq\x1d\x00 <|tag|> ----- ___ ...\n")


def words_differ(pattern: str, theirs: list[str]) -> str | None:
    """Where our words of PROBE_TEXT differ from another engine's, as a short note."""
    ours = Pretokenizer(pattern).words(PROBE_TEXT)
    if ours == theirs:
        return None
    k = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b),
             min(len(ours), len(theirs)))
    return (f"after {ours[max(0, k - 2):k]!r} it cuts {theirs[k:k + 2]!r} where this app cuts "
            f"{ours[k:k + 2]!r}")


# ----- file names -----------------------------------------------------------------------
def check_name(name: str) -> str:
    if not name or name.strip() != name or any(c in name for c in '/\\:*?"<>|\0'):
        raise ExportError(f"The export name {name!r} cannot be used in a file name. Use "
                          "letters, digits, '-', '_' or '.', e.g. 'tokenizer'.")
    return name


def prefixed(name: str, standard: str) -> str:
    """Standard file names get a 'NAME-' prefix unless the name is the default.

    Example: ('tokenizer', 'vocab.json') -> 'vocab.json'; ('shakespeare', 'vocab.json')
    -> 'shakespeare-vocab.json' (the prefix Hugging Face's ``model.save`` uses).
    """
    return standard if name == "tokenizer" else f"{name}-{standard}"


# ----- writing --------------------------------------------------------------------------
def ensure_folder(folder: str | Path) -> tuple[Path, list[Path]]:
    """Create ``folder`` if needed; returns it and the folders created (for cleanup)."""
    folder = Path(folder).expanduser()
    if folder.exists() and not folder.is_dir():
        raise ExportError(f"Cannot export to {folder}: it is a file, not a folder. Pick a "
                          "folder (or a new folder name) instead.")
    try:
        created = make_folder(folder)
    except OSError as e:
        raise ExportError(f"Cannot create the folder {folder} ({e.strerror or e}). Pick a "
                          "folder you can write to, or create it first.") from e
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ExportError(f"Cannot write to the folder {folder} (permission denied). Pick "
                          "another folder, or make this one writable.")
    return folder, created


def write_files(folder: str | Path, files: dict[str, bytes]) -> list[Path]:
    """Write all files or none (``engine/atomic.py``): the folder ends with either the old
    files or the new ones, never some of each, and no temporary file is left behind.

    On failure any folder this call created is removed again.
    """
    folder, created = ensure_folder(folder)
    try:
        return replace_set(folder, files)
    except OSError as e:
        remove_folders(created)
        raise ExportError(f"Cannot write the export to {folder} ({e.strerror or e}). Check "
                          "that the disk is not full and the folder is writable, or pick "
                          "another folder.") from e
    except BaseException:
        remove_folders(created)
        raise


# Characters that would be invisible or confusing raw in a JSON file (control, format and
# private-use characters, line/paragraph separators, spaces other than U+0020).
_INVISIBLE = regex.compile(r"(?! )[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]")


def _escape(m: "regex.Match[str]") -> str:
    c = ord(m.group())
    if c < 0x10000:
        return f"\\u{c:04x}"
    c -= 0x10000  # JSON spells characters beyond the BMP as a surrogate pair
    return f"\\u{0xD800 + (c >> 10):04x}\\u{0xDC00 + (c & 0x3FF):04x}"


def escape_invisible(json_text: str) -> str:
    """JSON text with invisible characters (only ever inside strings) as \\uXXXX escapes."""
    return json_text if json_text.isascii() else _INVISIBLE.sub(_escape, json_text)


def json_str(value: Any) -> str:
    """``json.dumps`` on one line with readable Unicode, invisible characters escaped.

    Example: json_str("a\u00a0b") -> '"a\\u00a0b"' (a no-break space shows as an escape).
    """
    return escape_invisible(json.dumps(value, ensure_ascii=False))


def json_bytes(obj: Any, indent: int | None = 2) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, indent=indent) + "\n").encode("utf-8")


def json_object_lines(pairs: list[tuple[str, int]]) -> bytes:
    """A JSON object with one ``"key": value`` per line (readable, diff-friendly)."""
    body = ",\n".join(f"  {json_str(k)}: {v}" for k, v in pairs)
    return ("{\n" + body + "\n}\n").encode("utf-8")


def model_kind(node: dict) -> str | None:
    """The model's type; without "type", guessed from its fields as tokenizers does
    (it tries each model in turn)."""
    kind = node.get("type")
    if kind is not None or "merges" in node:
        return kind if kind is not None else "BPE"
    if isinstance(node.get("vocab"), list):
        return "Unigram"   # [[piece, score], ...]
    if "max_input_chars_per_word" in node or "continuing_subword_prefix" in node:
        return "WordPiece"
    return "WordLevel" if isinstance(node.get("vocab"), dict) else None


def not_bpe(kind: Any) -> str:
    what = f"a {kind} model" if isinstance(kind, str) and kind else "not a BPE model"
    return (f"is {what}; only BPE tokenizers can be loaded (this app shows how BPE "
            "works: WordPiece, Unigram and WordLevel tokenizers cut text another way).")


def need(obj: dict, key: str, kind: type | tuple, path, what: str, where: str = ""):
    """``obj[key]`` if it has the right type, else a FormatError naming the key."""
    full = f"{where}.{key}" if where else key
    if key not in obj:
        raise FormatError(path, f"has no {full!r} ({what}).", key=full)
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise FormatError(path, f"{full!r} should be {what}, not {type(value).__name__}.",
                          key=full)
    return value


def build_tokenizer(path, vocab, merges, special_tokens, **kw) -> Tokenizer:
    """Tokenizer(...) with its complaints turned into a FormatError about ``path``."""
    try:
        return Tokenizer(vocab, merges, special_tokens, **kw)
    except BPEError as e:
        raise FormatError(path, str(e)) from None
