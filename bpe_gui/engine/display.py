"""Token bytes -> readable text, honest about whitespace and partial UTF-8 characters.

Example::

    >>> readable(b" the")
    '·the'
    >>> readable("你".encode()[:2])
    '<E4 BD>'
    >>> gpt2_text(b" the")
    'Ġthe'
"""
from __future__ import annotations

import codecs
import unicodedata
from functools import lru_cache
from itertools import accumulate
from typing import Sequence

# Visible stand-ins for whitespace in the encode view and vocabulary browser.
VISIBLE_WS = {" ": "·", "\n": "↵", "\t": "→", "\r": "\\r", "\u3000": "□"}


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character map (e.g. 0x20 -> 'Ġ').

    Printable Latin-1 bytes map to themselves; the other 68 bytes map, in byte order,
    to the code points 256, 257, ... so every byte has a visible, non-space glyph.
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


@lru_cache(maxsize=1)
def unicode_to_bytes() -> dict[str, int]:
    return {c: b for b, c in bytes_to_unicode().items()}


@lru_cache(maxsize=1)
def _gpt2_table() -> dict[int, str]:
    """Latin-1 code point -> GPT-2 character, for str.translate."""
    return {b: c for b, c in bytes_to_unicode().items()}


def gpt2_text(token: bytes) -> str:
    """Token bytes in GPT-2's byte-to-unicode alphabet (as in vocab.json).

    (Each byte is one Latin-1 character, mapped in one C-level translate: a 200k-token
    vocabulary is shown in this alphabet in tens of milliseconds.)
    """
    return token.decode("latin-1").translate(_gpt2_table())


@lru_cache(maxsize=1)
def _gpt2_charmap() -> str:
    """The 256 GPT-2 characters in byte order: a charmap codec's decoding table."""
    table = bytes_to_unicode()
    return "".join(table[b] for b in range(256))


def gpt2_texts(tokens: Sequence[bytes]) -> list[str]:
    """[gpt2_text(t) for t in tokens], in one decode of all of them (a vocabulary at
    once: the charmap codec maps each byte to its character in C, where translate
    looked each character up in a dict). Example: [b"a", b" b"] -> ['a', 'Ġb']."""
    text = codecs.charmap_decode(b"".join(tokens), "strict", _gpt2_charmap())[0]
    ends = list(accumulate(map(len, tokens)))
    return [text[a:b] for a, b in zip([0, *ends], ends)]


def gpt2_bytes(text: str) -> bytes:
    """Inverse of :func:`gpt2_text`; raises KeyError on a character outside the alphabet."""
    table = unicode_to_bytes()
    return bytes(table[c] for c in text)


def split_utf8(token: bytes) -> list[tuple[bool, bytes]]:
    """Cut bytes into runs of whole UTF-8 characters and runs of stray bytes.

    Example: b"a\\xe4\\xbd" -> [(True, b"a"), (False, b"\\xe4\\xbd")]
    """
    runs: list[tuple[bool, bytes]] = []
    i, n = 0, len(token)
    while i < n:
        j = i
        while j < n:
            b = token[j]
            size = 1 if b < 0x80 else 2 if 0xC2 <= b < 0xE0 else 3 if 0xE0 <= b < 0xF0 \
                else 4 if 0xF0 <= b < 0xF5 else 0
            if size == 0 or j + size > n:
                break
            try:
                token[j:j + size].decode("utf-8")
            except UnicodeDecodeError:
                break
            j += size
        if j > i:
            _append(runs, True, token[i:j])
            i = j
        else:
            _append(runs, False, token[i:i + 1])
            i += 1
    return runs


def _append(runs: list[tuple[bool, bytes]], ok: bool, chunk: bytes) -> None:
    if runs and runs[-1][0] == ok:
        runs[-1] = (ok, runs[-1][1] + chunk)
    else:
        runs.append((ok, chunk))


def is_partial(token: bytes) -> bool:
    """True if the token holds part of a UTF-8 character (not a whole-characters string):
    the one home of this rule."""
    try:
        token.decode("utf-8")
        return False
    except UnicodeDecodeError:
        return True


def is_one_char(token: bytes) -> bool:
    """True if the token is exactly one character of more than one byte (e.g. "你")."""
    try:
        return len(token) > 1 and len(token.decode("utf-8")) == 1
    except UnicodeDecodeError:
        return False


def hex_bytes(chunk: bytes) -> str:
    """Example: b"\\xe4\\xbd" -> '<E4 BD>'."""
    return "<" + chunk.hex(" ").upper() + ">"


def visible_ws(text: str) -> str:
    for c, shown in VISIBLE_WS.items():   # str.replace: C speed (translate is not, here)
        if c in text:
            text = text.replace(c, shown)
    return text


def visible_controls(text: str) -> str:
    r"""Control characters (other than the whitespace above) as escapes, since fonts draw
    them as empty boxes or nothing. Example: 'a\x1b' (ESC) -> 'a\x1b' (4 characters)."""
    if text.isprintable():
        return text
    return "".join(f"\\x{ord(c):02x}" if unicodedata.category(c) == "Cc"
                   and c not in VISIBLE_WS else c for c in text)


def readable(token: bytes, show_ws: bool = True, gpt2: bool = False) -> str:
    r"""A token as a person can read it: visible whitespace, hex for partial characters,
    escapes for control characters (b"\x00" -> '\x00', four characters)."""
    if gpt2:
        return gpt2_text(token)
    try:   # whole characters (nearly every token): one decode, no runs to cut
        text = visible_controls(token.decode("utf-8"))
        return visible_ws(text) if show_ws else text
    except UnicodeDecodeError:
        pass
    out = []
    for ok, chunk in split_utf8(token):
        if ok:
            text = visible_controls(chunk.decode("utf-8"))
            out.append(visible_ws(text) if show_ws else text)
        else:
            out.append(hex_bytes(chunk))
    return "".join(out)


def pair_text(a: bytes, b: bytes, gpt2: bool = False) -> str:
    """Example: (b" t", b"he") -> '·t he'."""
    return f"{readable(a, gpt2=gpt2)} {readable(b, gpt2=gpt2)}"


def human_size(n: int, *, binary: bool = False) -> str:
    """A byte count for people: decimal units (the window) or, with ``binary``, powers
    of 1024 (the command line).

    Example: 20_287_673 -> '20.3 MB'; 312_000_000 -> '312 MB'; 1_073_741_824 -> '1.07 GB';
    with ``binary``: 1_048_576 -> '1.0 MiB'; 512 -> '512 bytes'; 1 -> '1 byte'.
    """
    if binary:
        for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if n >= size:
                return f"{n / size:.1f} {unit}"
        return f"{n} byte{'' if n == 1 else 's'}"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            digits = 2 if unit == "GB" else 0 if n >= 100 * scale else 1
            return f"{n / scale:.{digits}f} {unit}"
    return f"{n} byte{'' if n == 1 else 's'}"


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless one (the window and the command line).

    Example: (1, "word") -> '1 word'; (1061, "pre-token") -> '1,061 pre-tokens'.
    """
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


@lru_cache(maxsize=1)   # (it reads every sys.path folder, and a process's install stays)
def bpe_gui_version() -> str | None:
    """The installed bpe-gui's release, or None when running from a source tree that was
    never installed (callers say so in their own words)."""
    found = _dist_info_version("bpe_gui")
    if found is None or isinstance(found, str):
        return found
    from importlib.metadata import PackageNotFoundError, version   # (14 ms to import)
    try:
        return version("bpe-gui")
    except PackageNotFoundError:
        return None


def _dist_info_version(name: str) -> str | None | bool:
    """The ``Version:`` of the first ``NAME-*.dist-info`` on ``sys.path`` (the one
    ``importlib.metadata`` finds), read without importing ``importlib.metadata`` and
    ``email``; None when no entry has one, False when one is there but unreadable (then
    ``importlib.metadata`` decides). ``name`` is normalised (lower case, ``_`` for ``-``)."""
    import os
    import sys
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except (OSError, TypeError, ValueError):
            continue
        for n in names:
            # NAME-VERSION.dist-info, NAME with "_" for "-" and "." (so no "-" in it)
            dist = n.partition("-")[0].lower().replace(".", "_")
            if dist != name or not n.endswith(".dist-info"):
                continue
            try:
                with open(os.path.join(entry or ".", n, "METADATA"), encoding="utf-8") as f:
                    for line in f:
                        if line.startswith("Version:"):
                            return line[len("Version:"):].strip() or False
                        if not line.strip():   # the headers end at the first empty line
                            break
            except OSError:
                pass
            return False
    return None
