"""Arguments of the public API checked at the door.

Each function takes what a caller passed, and returns it (normalised where that is
harmless: a list of special tokens becomes a tuple) or raises the engine's own error
saying what was expected: :class:`ArgumentTypeError` (also a ``TypeError``) for a wrong
type, :class:`ArgumentError` (also a ``ValueError``) for an absurd value, and their
``Setting*`` twins (also :class:`SettingsError`) for training settings. Without these a
wrong argument fails deep inside (``'<' not supported between 'str' and 'int'``) or,
worse, quietly does something else (``special_tokens="<s>"`` made ``<``, ``s`` and ``>``
three special tokens).

Example::

    >>> special_tokens("<s>", "special_tokens")
    Traceback (most recent call last):
    ArgumentTypeError: special_tokens should be a list of strings, not one string: pass special_tokens=['<s>'].
"""
from __future__ import annotations

import io
import math
import os
from numbers import Integral, Real
from typing import Any, Iterable, Literal, NoReturn, Sequence, overload

from .errors import (ArgumentError, ArgumentTypeError, SettingArgumentError,
                     SettingTypeError)

MAX_ID = 2**31 - 1      # token ids are 32-bit in the C tables
MAX_COUNT = 2**63 - 1   # counts are 64-bit in the C tables
MODES = ("byte", "char")
END_OF_WORD = ("suffix", "prefix")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fail_type(name: str, expected: str, value: Any, hint: str = "",
               setting: bool = False) -> NoReturn:
    cls = SettingTypeError if setting else ArgumentTypeError
    raise cls(f"{name} should be {expected}, not {type(value).__name__} "
              f"({_shown(value)}).{' ' + hint if hint else ''}")


def _fail_value(message: str, setting: bool = False) -> NoReturn:
    raise (SettingArgumentError if setting else ArgumentError)(message)


def is_whole(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


# ----- plain values -------------------------------------------------------------------
def text(value: Any, name: str) -> str:
    """Text to encode or explain: a ``str`` (bytes are refused, with the fix)."""
    if isinstance(value, str):
        return value
    hint = ("Decode it first: data.decode('utf-8')." if isinstance(value, (bytes, bytearray))
            else "")
    _fail_type(name, "text (a str)", value, hint)


def texts(value: Any, name: str) -> Iterable[str]:
    """A stream of text (an open text file, a list of str): its chunks checked as read."""
    if isinstance(value, (bytes, bytearray)) or not isinstance(value, Iterable):
        _fail_type(name, "an iterable of str (e.g. a file opened in text mode)", value)
    return (c if isinstance(c, str) else text(c, f"each chunk of {name}") for c in value)


@overload
def whole(value: Any, name: str, lo: int = 0, hi: int = MAX_ID, *,
          setting: bool = False, none_ok: Literal[False] = False) -> int: ...
@overload
def whole(value: Any, name: str, lo: int = 0, hi: int = MAX_ID, *,
          setting: bool = False, none_ok: bool) -> int | None: ...
def whole(value: Any, name: str, lo: int = 0, hi: int = MAX_ID, *,
          setting: bool = False, none_ok: bool = False) -> int | None:
    """A whole number in [lo, hi] (``bool`` is not a number here)."""
    if value is None and none_ok:
        return None
    if not is_whole(value):
        expected = "a whole number" + (" or None" if none_ok else "")
        hint = "Convert it first: int(value)." if isinstance(value, (str, float)) else ""
        _fail_type(name, expected, value, hint, setting)
    value = int(value)
    if value > hi:
        why = {MAX_COUNT: " (counts are 64-bit)", MAX_ID: " (token ids are 32-bit)"}.get(hi, "")
        _fail_value(f"{name} = {value} is too large: it can be at most {hi:,}{why}.", setting)
    if value < lo:
        _fail_value(f"{name} = {value} is too small: it must be at least {lo}.", setting)
    return value


def real(value: Any, name: str, positive: bool = False) -> float:
    """A finite real number (> 0 when ``positive``)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        _fail_type(name, "a number", value)
    if not math.isfinite(value) or (positive and value <= 0):
        _fail_value(f"{name} = {value} should be a finite number"
                    f"{' above 0' if positive else ''}.")
    return float(value)


def choice(value: Any, name: str, choices: Iterable[str], setting: bool = False) -> str:
    choices = tuple(choices)
    if value not in choices:
        _fail_value(f"{name} = {_shown(value)} is not one of "
                    f"{', '.join(repr(c) for c in choices)}.", setting)
    return value


def string(value: Any, name: str, expected: str, setting: bool = False) -> str:
    if not isinstance(value, str):
        _fail_type(name, expected, value, setting=setting)
    return value


def flag(value: Any, name: str, setting: bool = False) -> bool:
    if not isinstance(value, bool):
        _fail_type(name, "True or False", value, setting=setting)
    return value


def special_tokens(value: Any, name: str = "special_tokens",
                   setting: bool = False) -> tuple[str, ...]:
    """A list of special tokens; one string is refused (it would be one token per
    character). Empty and repeated tokens are left to ``validate_special_tokens``."""
    if value is None:
        return ()
    if isinstance(value, str):
        raise (SettingTypeError if setting else ArgumentTypeError)(
            f"{name} should be a list of strings, not one string: pass "
            f"{name + '=' if name.isidentifier() else ''}[{_shown(value)}].")
    if isinstance(value, (bytes, bytearray, dict)) or not isinstance(value, Iterable):
        _fail_type(name, "a list of strings such as ['<|endoftext|>']", value, setting=setting)
    out = tuple(value)
    for k, s in enumerate(out):
        if not isinstance(s, str):
            _fail_type(f"{name}[{k}]", "a string such as '<|endoftext|>'", s, setting=setting)
    return out


def path(value: Any, name: str) -> str | os.PathLike:
    if isinstance(value, (str, os.PathLike)):
        return value
    _fail_type(name, "a file path (a str or pathlib.Path)", value)


def not_a_path(value: str, name: str, files_call: str) -> str:
    """Text that is not the name of an existing file: a str is text where a call takes
    text, and a file's name given there would be trained on as its letters."""
    if value and len(value) < 4096 and "\n" not in value and os.path.isfile(value):
        raise ArgumentError(
            f"{name} is text, and {value!r} names a file: the text would be its "
            f"{len(value)} characters, not the file's content. To train on the file, "
            f"pass pathlib.Path({value!r}) or call {files_call}.")
    return value


def paths(value: Any, name: str, none_ok: bool = True) -> Any:
    """One path or a list of paths (``None`` or ``()`` when ``none_ok``)."""
    if value is None and none_ok:
        return value
    if isinstance(value, (str, os.PathLike)):
        return value
    if isinstance(value, (bytes, bytearray, dict)) or not isinstance(value, Iterable):
        _fail_type(name, "a file path or a list of file paths", value)
    items = list(value)
    for k, p in enumerate(items):
        path(p, f"{name}[{k}]")
    return items


def texts_not_paths(items: Sequence[Any], name: str) -> None:
    """A list is read as file paths: an item that is no file and reads as text (a space,
    a line break, or longer than a file name) is refused with the call for texts."""
    for k, p in enumerate(items):
        if isinstance(p, str) and not os.path.exists(p) and (
                len(p) > 255 or any(c in p for c in " \n\t")):
            raise ArgumentError(
                f"{name}: a list is read as file paths, and item {k} ({_shown(p)}) is no "
                "file but reads as text. To train on texts, call Trainer.from_texts(texts) "
                "or train_from_iterator(texts, ...).")


def iterable_texts(value: Any, name: str) -> Any:
    """An iterable of texts, not one str or bytes; each item a text, named by its index
    when not (a list's now, a stream's as it is read: use the value returned)."""
    if isinstance(value, (str, bytes, bytearray)) or not isinstance(value, Iterable):
        _fail_type(name, "an iterable of texts (str), e.g. a list, a generator or an open "
                   "file", value, "One text: put it in a list, [text]." if
                   isinstance(value, str) else "")
    if isinstance(value, (list, tuple)):
        for k, t in enumerate(value):
            if not isinstance(t, str):
                text(t, f"{name}[{k}]")
        return value
    if isinstance(value, io.TextIOBase):   # (lines: str, and no step between them)
        return value
    return (t if isinstance(t, str) else text(t, f"{name}[{k}]") for k, t in enumerate(value))


def instance(value: Any, cls: type | tuple, name: str, expected: str,
             none_ok: bool = False) -> Any:
    if (value is None and none_ok) or isinstance(value, cls):
        return value
    _fail_type(name, expected, value)


# ----- a tokenizer's tables -----------------------------------------------------------
def vocab(value: Any, name: str = "vocab") -> Any:
    """id -> token bytes: whole-number ids in [0, MAX_ID], bytes tokens."""
    if not hasattr(value, "items") or not hasattr(value, "keys"):
        _fail_type(name, "a dict mapping each id (int) to its token (bytes), e.g. "
                   "{0: b'a', 1: b'b'}", value)
    if not all(type(k) is int for k in value.keys()):   # the fast path: plain ints
        for k in value.keys():
            if not is_whole(k):
                hint = ("Ids are numbers and tokens are bytes: {0: b'a'}, not {'a': 0}."
                        if isinstance(k, (str, bytes)) else "")
                _fail_type(f"{name} key {_shown(k)}", "a token id (a whole number)", k, hint)
    if value:
        lo, hi = min(value.keys()), max(value.keys())
        if lo < 0:
            _fail_value(f"{name} has the id {lo}; ids must be 0 or more.")
        if hi > MAX_ID:
            _fail_value(f"{name} has the id {hi}, too large: ids go up to {MAX_ID:,} "
                        "(token ids are 32-bit).")
    if not all(type(t) is bytes for t in value.values()):
        for i, t in value.items():
            if type(t) is not bytes:
                hint = ("Encode text first: 'ab'.encode('utf-8')." if isinstance(t, str)
                        else "")
                _fail_type(f"{name}[{i}]", "the token's bytes", t, hint)
    return value


def merges(value: Any, name: str = "merges") -> Any:
    """(left bytes, right bytes) pairs, in the order they were learned."""
    if isinstance(value, (str, bytes, bytearray, dict)) or not isinstance(value, Iterable):
        _fail_type(name, "a list of (left bytes, right bytes) pairs", value)
    value = value if isinstance(value, (list, tuple)) else list(value)
    for k, m in enumerate(value):
        if type(m) is tuple and len(m) == 2 and type(m[0]) is bytes and type(m[1]) is bytes:
            continue
        if isinstance(m, (tuple, list)) and len(m) == 2 and \
                all(isinstance(p, bytes) for p in m):
            continue
        hint = ("Each merge is a pair: (b'a', b'b')." if isinstance(m, (str, bytes))
                or (isinstance(m, (tuple, list)) and len(m) == 2) else "")
        _fail_type(f"{name}[{k}]", "a pair of token bytes such as (b'a', b'b')", m, hint)
    return value


def tokenizer_args(vocab_: Any, merges_: Any, specials: Any, pattern: Any, mode: Any,
                   end_of_word: Any, meta: Any) -> None:
    """Every argument of ``Tokenizer(...)``."""
    vocab(vocab_)
    merges(merges_)
    special_tokens(specials)
    string(pattern, "pattern", "a preset name (gpt2, cl100k, o200k, whitespace, cjk) or "
           "a regex")
    choice(mode, "mode", MODES)
    choice(end_of_word, "end_of_word", END_OF_WORD)
    instance(meta, dict, "meta", "a dict or None", none_ok=True)


def ids(value: Any, name: str) -> Any:
    """Token ids to decode: an iterable of whole numbers (checked as they are read)."""
    if isinstance(value, (str, bytes, bytearray)) or not isinstance(value, Iterable):
        _fail_type(name, "a list of token ids (whole numbers)", value)
    return value


def bad_id(value: Any, name: str) -> None:
    """Called where an id is missing from a vocabulary: refuse one that is not a number."""
    if not is_whole(value):
        _fail_type(f"{name} id {_shown(value)}", "a token id (a whole number)", value)


# ----- training -----------------------------------------------------------------------
def train_settings(s: Any) -> tuple[str, ...]:
    """The fields of a TrainSettings: types and sizes a machine can hold (what makes
    sense together is ``TrainSettings.validated``'s job). Returns the special tokens
    as a tuple."""
    whole(s.vocab_size, "vocab_size", -MAX_ID, MAX_ID, setting=True, none_ok=True)
    whole(s.num_merges, "num_merges", -MAX_ID, MAX_ID, setting=True, none_ok=True)
    whole(s.min_frequency, "min_frequency", -MAX_COUNT, MAX_COUNT, setting=True)
    whole(s.superbpe_from, "superbpe_from", -MAX_ID, MAX_ID, setting=True, none_ok=True)
    for key in ("mode", "end_of_word", "tie_rule", "special_text"):
        string(getattr(s, key), key, "a string", setting=True)
    string(s.pattern, "pattern", "a preset name (gpt2, cl100k, o200k, whitespace, cjk) or "
           "a regex", setting=True)
    flag(s.prune, "prune", setting=True)
    flag(s.lines, "lines", setting=True)
    return special_tokens(s.special_tokens, setting=True)
