"""Mistral's ``tekken.json`` (NeMo, Pixtral, Ministral, Mistral Small 3, ...).

A pure parser: the file's bytes in, a :class:`TekkenFile` out. The file holds tiktoken
ranks in base64 (``vocab``: ``rank``, ``token_bytes``, ``token_str``), the split regex
(``config.pattern``, a tiktoken ``pat_str``), the sizes (``num_vocab_tokens``,
``default_vocab_size``, ``default_num_special_tokens``), a ``version`` ('v3', 'v7', 'v11',
'v13', ...) and, from v7 on, ``special_tokens`` (``rank``, ``token_str``,
``is_control``). How mistral-common's ``Tekkenizer`` reads it, and so how this reader
resolves it:

- the special tokens take the first ``default_num_special_tokens`` ids; a file without a
  ``special_tokens`` list (v3) gets mistral-common's 20 historical ones (``<unk>``, ``<s>``,
  ``</s>``, ``[INST]``, ...), and the rest up to that number are fillers
  ``<SPECIAL_{id}>``;
- only the first ``default_vocab_size - default_num_special_tokens`` ranks are used, and
  the token of rank r has id ``r + default_num_special_tokens``;
- text is encoded with tiktoken over those ranks with no special tokens at all: a special
  token's text in the input is encoded as ordinary text.

What mistral-common refuses is refused here too, with the entry named: a rank that is not
its entry's index (so a repeated rank), two entries with the same bytes, one of the first
256 ranks that is not its own byte, a version it does not know, special tokens that
repeat, more than the sizes allow.

The format is recognised cheaply by content (:func:`looks_like_tekken`, on the first
bytes), before the 15-19 MB are parsed.

Example::

    >>> t = read_tekken("tekken.json")
    >>> t.version, t.num_special_tokens, t.id_of_rank(0), t.special_tokens[1].token_str
    ('v3', 1000, 1000, '<s>')
"""
from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import FormatError
from ..io.reading import loads, read_bytes
from ..text.presets import TEKKEN_PATTERN

# mistral-common's TokenizerVersion members (a file of another version is refused by it)
KNOWN_VERSIONS = ("v1", "v2", "v3", "v7", "v11", "v13", "v15")
# Tekkenizer.DEPRECATED_SPECIAL_TOKENS: the special tokens of a file without its own list
DEPRECATED_SPECIAL_TOKENS = ("<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]",
                             "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]", "[/TOOL_RESULTS]",
                             "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]",
                             "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]",
                             "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]")
FILLER = "<SPECIAL_{id}>"
_HEAD_KEYS = re.compile(rb'"(?:num_vocab_tokens|default_num_special_tokens|default_vocab_size|'
                        rb'token_bytes)"\s*:')


class SpecialToken(NamedTuple):
    rank: int
    token_str: str
    is_control: bool


@dataclass(frozen=True)
class TekkenFile:
    """A tekken.json, resolved as mistral-common resolves it.

    ``ranks[r]``: the bytes of rank r, for the ranks in use (``vocab_size`` of them; the
    file's later entries are left out, as mistral-common cuts them); ``special_tokens``:
    every special token in id order, fillers included; ``pattern``: the tiktoken regex.
    """

    path: str | None
    pattern: str
    version: str
    num_vocab_tokens: int
    default_vocab_size: int
    num_special_tokens: int
    ranks: list[bytes]
    special_tokens: list[SpecialToken]
    special_tokens_listed: bool          # False: mistral-common's defaults (v3 files)
    file_entries: int                    # vocab entries in the file (before the cut)
    multimodal: tuple[str, ...] = ()     # 'image', 'audio' sections present

    @property
    def vocab_size(self) -> int:
        """Ranks in use: default_vocab_size - default_num_special_tokens."""
        return len(self.ranks)

    def id_of_rank(self, rank: int) -> int:
        return rank + self.num_special_tokens

    def mergeable_ranks(self) -> dict[bytes, int]:
        """What mistral-common gives ``tiktoken.Encoding`` as ``mergeable_ranks``."""
        return {b: r for r, b in enumerate(self.ranks)}


def looks_like_tekken(head: bytes) -> bool:
    """Whether a file's first bytes (a few KB suffice) are a tekken.json: a JSON object
    with tekken's own keys (``num_vocab_tokens``, ``token_bytes``, ...)."""
    head = head[:1 << 16]
    if head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"{":
        return False
    return b'"token_bytes"' in head or (b'"config"' in head and _HEAD_KEYS.search(head) is not None)


def _need(node: dict, key: str, kind, where: str, path) -> Any:
    if key not in node:
        raise FormatError(path, f"{where} has no {key!r}; this is not a complete tekken.json.",
                          key=f"{where}.{key}" if where else key)
    value = node[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        kname = getattr(kind, "__name__", str(kind))
        raise FormatError(path, f"is {type(value).__name__} {str(value)[:40]!r}, not {kname}.",
                          key=f"{where}.{key}" if where else key)
    return value


def parse_tekken(data: bytes, path: str | Path | None = None) -> TekkenFile:
    """A tekken.json's bytes -> TekkenFile; FormatError names ``path`` and the entry."""
    root = loads(data.decode("utf-8-sig", "strict") if isinstance(data, bytes) else data, path)
    if not isinstance(root, dict):
        raise FormatError(path, "is not a tekken.json: its JSON is not an object.")
    config = _need(root, "config", dict, "", path)
    pattern = _need(config, "pattern", str, "config", path)
    n_vocab = _need(config, "num_vocab_tokens", int, "config", path)
    size = _need(config, "default_vocab_size", int, "config", path)
    n_special = _need(config, "default_num_special_tokens", int, "config", path)
    version = config.get("version")
    if version not in KNOWN_VERSIONS:
        raise FormatError(path, f"config.version = {version!r} is not a tekken version "
                          f"mistral-common knows ({', '.join(KNOWN_VERSIONS)}).",
                          key="config.version")
    vocab = _need(root, "vocab", list, "", path)
    for key, v in (("num_vocab_tokens", n_vocab), ("default_vocab_size", size),
                   ("default_num_special_tokens", n_special)):
        if v < 0 or v > 1 << 26:
            raise FormatError(path, f"config.{key} = {v} is out of range (0 to {1 << 26:,}).",
                              key=f"config.{key}")
    if size > len(vocab) + n_special:
        raise FormatError(path, f"config.default_vocab_size = {size:,} is more than the "
                          f"{len(vocab):,} vocab entries and {n_special:,} special tokens hold.",
                          key="config.default_vocab_size")
    if size < n_special:
        raise FormatError(path, f"config.default_vocab_size = {size:,} is less than "
                          f"config.default_num_special_tokens = {n_special:,}.",
                          key="config.default_vocab_size")
    specials, listed = _specials(root, version, n_special, path)
    ranks = _ranks(vocab, size - n_special, path)
    mm = tuple(k for k in ("image", "audio", "multimodal") if root.get(k))
    return TekkenFile(None if path is None else str(path), pattern, version, n_vocab, size,
                      n_special, ranks, specials, listed, len(vocab), mm)


def _specials(root: dict, version: str, n_special: int, path) -> tuple[list[SpecialToken], bool]:
    given = root.get("special_tokens")
    if given is None:
        if int(version[1:]) > 7:
            raise FormatError(path, f"has no special_tokens, which a {version} tekken.json must "
                              "list (mistral-common refuses it).", key="special_tokens")
        out = [SpecialToken(i, s, True) for i, s in enumerate(DEPRECATED_SPECIAL_TOKENS)]
    else:
        if not isinstance(given, list):
            raise FormatError(path, "special_tokens should be a list.", key="special_tokens")
        out = []
        for i, item in enumerate(given):
            where = f"special_tokens[{i}]"
            if not isinstance(item, dict):
                raise FormatError(path, "should be an object with rank and token_str.",
                                  key=where)
            rank = _need(item, "rank", int, where, path)
            text = _need(item, "token_str", str, where, path)
            if rank != i:
                raise FormatError(path, f"has rank {rank}; special token {i} must have rank {i} "
                                  "(special tokens take the first ids in order).",
                                  key=f"{where}.rank")
            out.append(SpecialToken(rank, text, bool(item.get("is_control", True))))
    seen: dict[str, int] = {}
    for t in out:
        if t.token_str in seen:
            raise FormatError(path, f"the special token {t.token_str!r} is listed twice (ranks "
                              f"{seen[t.token_str]} and {t.rank}).",
                              key=f"special_tokens[{t.rank}]")
        seen[t.token_str] = t.rank
    if len(out) > n_special:
        raise FormatError(path, f"lists {len(out)} special tokens, more than "
                          f"config.default_num_special_tokens = {n_special}.",
                          key="special_tokens")
    out += [SpecialToken(i, FILLER.format(id=i), True) for i in range(len(out), n_special)]
    if len({t.token_str for t in out}) != len(out):   # a listed one spelled like a filler
        raise FormatError(path, "a special token is spelled like one of the fillers "
                          "<SPECIAL_N> mistral-common adds; special tokens must be unique.",
                          key="special_tokens")
    return out, given is not None


def _ranks(vocab: list, keep: int, path) -> list[bytes]:
    ranks: list[bytes] = []
    seen: dict[bytes, int] = {}
    b64 = base64.b64decode
    for i, item in enumerate(vocab[:keep]):
        if not isinstance(item, dict):
            raise FormatError(path, "should be an object with rank and token_bytes.",
                              key=f"vocab[{i}]")
        rank = item.get("rank")
        if rank != i or isinstance(rank, bool):
            where = f"vocab[{i}].rank"
            if isinstance(rank, int) and 0 <= rank < i:
                raise FormatError(path, f"rank {rank} repeats (entry {i} should have rank {i}); "
                                  "each rank is given once, in order.", key=where)
            raise FormatError(path, f"is {rank!r}; entry {i} should have rank {i} (ranks are "
                              "listed in order from 0).", key=where)
        text = item.get("token_bytes")
        if not isinstance(text, str):
            raise FormatError(path, "should be a base64 string.", key=f"vocab[{i}].token_bytes")
        try:
            token = b64(text, validate=True)
        except (binascii.Error, ValueError):
            raise FormatError(path, f"{text[:40]!r} is not valid base64.",
                              key=f"vocab[{i}].token_bytes") from None
        if i < 256 and token != bytes([i]):
            raise FormatError(path, f"rank {i} is {token!r}; the first 256 ranks must be the "
                              "single bytes 0-255 in order.", key=f"vocab[{i}].token_bytes")
        if not token:
            raise FormatError(path, "is empty; a token has at least one byte.",
                              key=f"vocab[{i}].token_bytes")
        prev = seen.setdefault(token, i)
        if prev != i:
            raise FormatError(path, f"rank {i} has the same bytes as rank {prev} ({token!r}); "
                              "each token's bytes are given once.", key=f"vocab[{i}].token_bytes")
        ranks.append(token)
    return ranks


def read_tekken(path: str | Path) -> TekkenFile:
    """The tekken.json at ``path``, refused from its first bytes if it is not one."""
    p = Path(path)
    data = read_bytes(p, "JSON")
    if not looks_like_tekken(data[:1 << 16]):
        raise FormatError(p, "is not a tekken.json (no config.num_vocab_tokens or "
                          "vocab[].token_bytes near its start).")
    return parse_tekken(data, p)


# ----- loading as a tokenizer -----------------------------------------------------------
# The split every published tekken.json gives (mistral-common's tekken_240718 and _240911,
# NeMo, Pixtral, Ministral): the native scanner's kind "tekken" (text/pattern_kinds.py),
# so its words never come from `regex` but for texts with lone surrogates, which run it
# with no time limit, as tiktoken does (a pattern of any other file runs with the limit
# that stops catastrophic backtracking, which costs the `regex` module ~3x on every call).
PUBLISHED_PATTERN = TEKKEN_PATTERN



def load(path: str | Path, special_tokens=None, *, pattern: str | None = None, **kwargs):
    """The tokenizer of a tekken.json, encoding as mistral-common's Tekkenizer: tiktoken
    over the ranks in use, the special tokens on the first ids (their text in the input
    is ordinary text), the token of rank r at id r + number of special tokens."""
    from ..tokenizers.imported.ranks import load_ranks
    p = Path(path)
    if special_tokens is not None:
        raise FormatError(p, "a tekken.json's special tokens are its own (the first ids); "
                          "they cannot be replaced. Leave out --special-token.")
    t = read_tekken(p)
    n = t.num_special_tokens
    lines = [f"{base64.b64encode(b).decode('ascii')} {r + n}" for r, b in enumerate(t.ranks)]
    data = ("\n".join(lines) + "\n").encode("ascii")
    specials = {s.token_str: s.rank for s in t.special_tokens}
    mm = f", {' and '.join(t.multimodal)} sections not used" if t.multimodal else ""
    meta = {"format": "tekken", "source": str(p), "name": p.stem, "version": t.version,
            "num_special_tokens": n, "vocab_entries_used": t.vocab_size,
            "vocab_entries_in_file": t.file_entries,
            "label": f"Mistral tekken.json ({t.version}, {n:,} special tokens on ids "
                     f"0-{n - 1:,}{mm})",
            # exports: tiktoken's rule takes a piece that is a token whole; the special
            # tokens are ids only, left out of written files (engine/formats/snapshot.py)
            "ignore_merges": True, "special_text_is_text": True, **kwargs.get("meta", {})}
    return load_ranks(p, data, pattern=pattern or t.pattern, specials=specials, meta=meta,
                      source=None if pattern else f"{p}, key 'config.pattern'",
                      match_specials=False,
                      trusted=pattern is None and t.pattern == PUBLISHED_PATTERN)
