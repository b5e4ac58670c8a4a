"""Typed errors with fix-it messages.

Every error a user can cause derives from :class:`BPEError`; its ``str()`` is one
sentence saying what is wrong and how to fix it, fit for a dialog box or a CLI line.
Code that catches at a boundary (the GUI, the CLI) catches ``BPEError`` and shows
``str(err)``; anything else is a bug and may show a traceback.
"""
from __future__ import annotations

import os

from pathlib import Path
from typing import Callable

# the types of long work's callbacks (counting, training, loading): here, at the bottom
# of the engine, so every layer can take them
ProgressFn = Callable[[int, int], None]  # (done, total) in bytes or steps
CancelFn = Callable[[], bool]


class BPEError(Exception):
    """Base class for every user-facing error of the engine."""

    def __reduce__(self):
        # Pickle as the finished message plus attributes, not by calling __init__ again
        # (subclasses take other arguments): errors raised on a Dask worker reach the
        # client as themselves.
        return _rebuild, (type(self), self.args, self.__dict__)


def _rebuild(cls, args, state):
    err = cls.__new__(cls)
    Exception.__init__(err, *args)
    err.__dict__.update(state)
    return err


class CorpusError(BPEError):
    """The corpus cannot be read or is unusable (missing, empty, binary, not UTF-8)."""

    def __init__(self, message: str, path: str | Path | None = None):
        self.path = None if path is None else str(path)
        super().__init__(f"{self.path}: {message}" if self.path else message)


class EmptyCorpusError(CorpusError):
    """No words at all after pre-tokenization (a caller reading several files names the
    one that was empty)."""


class NotUTF8Error(CorpusError):
    """A file is not valid UTF-8; ``offset`` is the byte offset of the first bad byte."""

    def __init__(self, path: str | Path | None, offset: int, bad: bytes):
        self.offset = offset
        self.bad = bad
        # the text ends inside a character: not an encoding problem
        self.cut = _cut_character(bad) and _ends_at(path, offset + len(bad))
        if self.cut:   # (another encoding would not help: say what happened)
            shown = f" (bytes {bad.hex(' ')})" if bad else ""
            msg = (f"ends in the middle of a UTF-8 character at byte offset {offset}"
                   f"{shown}: the text was cut short (by head -c, a split or an unfinished "
                   "copy). Cut it at a line end instead, or use the whole file.")
        else:
            msg = (f"not valid UTF-8 at byte offset {offset} (bytes {bad.hex(' ')}). "
                   "Re-save the file as UTF-8, or open it with another encoding "
                   "(e.g. latin-1, gbk) so it can be converted.")
        self.reason = msg   # (without the path: the command line puts its own first)
        super().__init__(msg, path)


def _ends_at(path: str | Path | None, end: int) -> bool:
    """Whether the file at ``path`` (as stored: not a .gz or .xz) is ``end`` bytes long."""
    if path is None or str(path).endswith((".gz", ".xz")):
        return False
    try:
        return os.path.getsize(path) == end
    except OSError:
        return False


def _cut_character(bad: bytes) -> bool:
    """Whether ``bad`` (the bytes from the first undecodable one, up to 4) can be the
    start of a UTF-8 character whose end is missing."""
    if not bad:
        return True
    lead = bad[0]
    need = 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else \
        4 if 0xF0 <= lead <= 0xF4 else 0
    return len(bad) < need and all(0x80 <= b <= 0xBF for b in bad[1:])


class SettingsError(BPEError):
    """Training settings that cannot work (vocab size, special tokens, options)."""


class VocabSizeError(SettingsError):
    """A target vocabulary size below the base alphabet plus the special tokens
    (``TrainSettings.validated`` says so; the settings panel shows it at the size)."""


class PatternError(SettingsError):
    """A custom pre-tokenizer pattern that does not compile or runs away."""


class ArgumentError(BPEError, ValueError):
    """A public function or class given an argument it cannot use: an absurd value
    (also a ValueError). The message names the argument and what was expected."""


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument of the wrong type (also a TypeError), e.g. ``bytes`` where text is
    expected or a ``str`` where a list of special tokens is."""


class SettingArgumentError(SettingsError, ArgumentError):
    """A training setting of an absurd value (``vocab_size=10**30``)."""


class SettingTypeError(SettingArgumentError, ArgumentTypeError):
    """A training setting of the wrong type (``vocab_size="abc"``)."""


class FormatError(BPEError):
    """A tokenizer file that is malformed; names the file and the line or key."""

    def __init__(self, path: str | Path | None, message: str, line: int | None = None,
                 key: str | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        self.key = key
        where = self.path or "<input>"
        if line is not None:
            where += f", line {line}"
        if key is not None:
            where += f", key {key!r}"
        super().__init__(f"{where}: {message}")


class ExportError(BPEError):
    """An export that could not be written (folder missing, not writable, unsupported)."""


class EncodeError(BPEError):
    """Text that this tokenizer cannot encode (e.g. a disallowed special token)."""


class DisallowedSpecialError(EncodeError, ValueError):
    """Text holding a special token's text that the call did not allow (tiktoken raises
    a ValueError there too); ``token`` is the special token found."""

    def __init__(self, message: str, token: str = ""):
        super().__init__(message)
        self.token = token


class DecodeError(BPEError, ValueError):
    """Ids that this tokenizer cannot decode."""


class _KeyLike(KeyError):
    """Also a KeyError, as tiktoken raises for an unknown id or token, whose str() is the
    message itself (KeyError's own quotes it as a key)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class UnknownIdError(DecodeError, _KeyLike):
    """A token id that is not in the vocabulary; ``id`` is the first one found (a
    ValueError, and a KeyError as tiktoken's)."""

    def __init__(self, message: str, token_id: int = -1):
        super().__init__(message)
        self.id = token_id


class UnknownTokenError(ArgumentError, _KeyLike):
    """Text or bytes that are no single token (``encode_single_token``), a special token
    the tokenizer lacks, a model name no encoding is known for (a ValueError, and a
    KeyError as tiktoken's)."""


class PatternAssumedWarning(UserWarning):
    """A tokenizer file that does not say how it splits text (a bare ``.tiktoken`` of no
    well-known encoding) was loaded with an assumed pattern, which the message names;
    pass ``pattern=`` to say which (``warnings.simplefilter("error",
    PatternAssumedWarning)`` makes the guess an error)."""


class Cancelled(Exception):
    """Raised inside long work when the cancel callback says so (not a BPEError: the
    user asked for it)."""
