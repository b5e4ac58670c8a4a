"""Normalizers and pre-tokenizers of a Hugging Face ``tokenizer.json``, as ``tokenizers``
runs them, on :class:`NStr` pieces (so offsets point into the original text).

Regexes are read as Oniguruma reads them (``text.dialects``: ``X{1,3}+`` repeats, ``$``
ends a line...) and their classes are those of tokenizers' Unicode version
(``unicode_versions.TOKENIZERS``); a pattern Oniguruma reads in a way this app cannot
reproduce is refused, naming it.

Each part is built from its JSON node by :func:`normalizer` / :func:`pre_tokenizer`;
anything else raises :class:`Unsupported` naming the JSON path, e.g.
``pre_tokenizer.pretokenizers[2].type = "Digits" is not supported``.

Example::

    >>> pre = pre_tokenizer({"type": "Metaspace", "replacement": "▁",
    ...                      "prepend_scheme": "first", "split": True}, "pre_tokenizer")
    >>> [p.text for p in pre([NStr.of("Hey you")])]
    ['▁Hey', '▁you']
"""
from __future__ import annotations

import base64
import binascii
import json
from array import array
from functools import lru_cache, partial
from typing import Any, Callable

import regex

from ...display import gpt2_text, unicode_to_bytes
from ...text.dialects import DialectError, pinned, read_pattern
from ...text.graphemes import grapheme_classes
from ...text.normal_forms import is_normalized
from ...text.normal_forms import normalize as normal_form
from ...text.pattern_kinds import scanner_kind
from ...text.scanner import native_scanner
from ...text.unicode_versions import TOKENIZERS, Classes
from .normalized import Form, NStr, form_alignment
from .file_patterns import FilePattern, onig_spans
from ..model import Word
from .word_model import charsmap_module

Pieces = list[NStr]
# The regex ByteLevel(use_regex=True) splits with (GPT-2's, as tokenizers writes it).
BYTE_LEVEL_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


class Unsupported(Exception):
    """A component this app cannot run exactly; ``key`` is its JSON path."""

    def __init__(self, key: str, message: str):
        self.key = key
        super().__init__(message)


def refuse(node: dict, where: str, supported: str) -> Unsupported:
    kind = node.get("type") if isinstance(node, dict) else None
    return Unsupported(f"{where}.type", f'{where}.type = {json.dumps(kind)} is not supported '
                       f"(supported: {supported})")


def need(node: dict, key: str, kind, where: str, default: Any = ...) -> Any:
    if key not in node:
        if default is not ...:
            return default
        raise Unsupported(f"{where}.{key}", f"{where} has no {key!r}")
    value = node[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise Unsupported(f"{where}.{key}", f"{where}.{key} = {json.dumps(value)} should be "
                          f"{getattr(kind, '__name__', kind)}")
    return value


# ----- patterns -------------------------------------------------------------------------
def compile_pattern(node: Any, where: str, source: str = "",
                    classes: Classes | None = TOKENIZERS) -> FilePattern:
    """A Split/Replace pattern: {"Regex": ...} (Oniguruma's syntax, translated to the
    `regex` module's with the same meaning and pinned to ``classes``' Unicode version)
    or {"String": ...} (literal text). ``source``: the file, named if it runs away."""
    if isinstance(node, dict) and isinstance(node.get("String"), str):
        return FilePattern(regex.compile(regex.escape(node["String"])), where, source, True)
    if isinstance(node, dict) and isinstance(node.get("Regex"), str):
        try:
            text, classes = read_pattern(node["Regex"], "oniguruma", classes)
            if scanner_kind(text) is not None:   # a published pattern the scanner runs
                return _lazy_pinned(text, f"{where}.Regex", source, classes)
            compiled = pinned(text, classes)
        except DialectError as e:
            what = "does not compile" if e.malformed else "cannot be run as tokenizers runs it"
            raise Unsupported(f"{where}.Regex", f"{where}.Regex {what}: {e}") from None
        except regex.error as e:
            raise Unsupported(f"{where}.Regex", f"{where}.Regex does not compile here ({e})") \
                from None
        return FilePattern(compiled, f"{where}.Regex", source, classes=classes)
    if isinstance(node, str):   # some writers give the string itself
        return FilePattern(regex.compile(regex.escape(node)), where, source, True)
    raise Unsupported(where, f"{where} should be {{\"Regex\": ...}} or {{\"String\": ...}}")


def find_matches(pattern, text: str) -> list[tuple[int, int, bool]]:
    """The whole text as (start, end, is_match) parts, as tokenizers' Pattern does
    with Oniguruma: each search starts where the previous match ended, and an empty
    match right there is skipped by moving on one character (so the empty regex ""
    matches between every two characters, each a part, and after an empty match the
    next search does not look for a longer one at the same place, as `regex`'s finditer
    would).

    Example: pattern ',' on 'a,b' -> [(0, 1, False), (1, 2, True), (2, 3, False)]
    """
    if not text:
        return [(0, 0, False)]
    out, prev = [], 0
    native = _native(pattern.pattern, getattr(pattern, "classes", None))
    if native is not None:   # GPT-2's, cl100k's, Llama 3's... : words that tile the text
        for e in native.word_ends(text):
            out.append((prev, e, True))
            prev = e
        return out
    for s, e in _onig_spans(pattern, text):
        if prev != s:
            out.append((prev, s, False))
        out.append((s, e, True))
        prev = e
    if prev != len(text):
        out.append((prev, len(text), False))
    return out


def _onig_spans(pattern, text: str) -> list[tuple[int, int]]:
    """Oniguruma's iteration of matches (onig's find_iter, as tokenizers runs it)."""
    if isinstance(pattern, FilePattern):
        return pattern.onig_spans(text)
    return onig_spans(pattern, text)


@lru_cache(maxsize=16)
def _native(pattern: str, classes: Classes | None):
    """The native scanner of a pattern it recognises (pattern_kinds.py), with the
    classes of ``classes``' Unicode version, else None."""
    return native_scanner(scanner_kind(pattern), classes)


BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


def split_spans(parts: list[tuple[int, int, bool]], behavior: str) -> list[tuple[int, int]]:
    """Where a Split with ``behavior`` cuts, from find_matches' parts (empty ones dropped).

    Example (parts of 'a,,b' at ','): MergedWithPrevious -> [(0, 2), (2, 3), (3, 4)];
    Contiguous -> [(0, 1), (1, 3), (3, 4)]; Removed -> [(0, 1), (3, 4)]
    """
    if behavior == "Removed":
        out = [(s, e) for s, e, m in parts if not m]
    elif behavior == "Isolated":
        out = [(s, e) for s, e, _ in parts]
    elif behavior == "Contiguous":
        out, prev = [], False
        for s, e, m in parts:
            if m == prev and out:
                out[-1] = (out[-1][0], e)
            else:
                out.append((s, e))
            prev = m
    elif behavior == "MergedWithPrevious":
        out, prev = [], False
        for s, e, m in parts:
            if m and not prev and out:
                out[-1] = (out[-1][0], e)
            else:
                out.append((s, e))
            prev = m
    else:  # MergedWithNext: the same from the right
        out, prev = [], False
        for s, e, m in reversed(parts):
            if m and not prev and out:
                out[-1] = (s, out[-1][1])
            else:
                out.append((s, e))
            prev = m
        out.reverse()
    return [(s, e) for s, e in out if e > s]


def split_pieces(pieces: Pieces, pattern, behavior: str, invert: bool = False) -> Pieces:
    out: Pieces = []
    for p in pieces:
        parts = find_matches(pattern, p.text)
        if invert:
            parts = [(s, e, not m) for s, e, m in parts]
        out.extend(p.slice(s, e) for s, e in split_spans(parts, behavior))
    return out


def split_texts(texts: list[str], pattern, behavior: str, invert: bool = False) -> list[str]:
    """split_pieces on plain strings (ids only: no offsets, no piece objects)."""
    out: list[str] = []
    native = _native(pattern.pattern, getattr(pattern, "classes", None)) \
        if behavior == "Isolated" and not invert else None
    if native is not None:   # its words tile each text: they are the pieces, found in C
        for t in texts:
            out += native.words(t)
        return out
    if behavior == "Removed" and invert and \
            _native(pattern.pattern, getattr(pattern, "classes", None)) is None:
        for t in texts:   # the matches are the pieces (the gaps removed)
            out += [t[a:b] for a, b in _onig_spans(pattern, t) if b > a]
        return out
    for t in texts:
        parts = find_matches(pattern, t)
        if invert:
            parts = [(s, e, not m) for s, e, m in parts]
        out.extend(t[s:e] for s, e in split_spans(parts, behavior))
    return out


def _split_step(pattern, behavior: str, invert: bool = False):
    """A Split step (pieces -> pieces), with ``plain`` (strings -> strings) beside it."""
    step = partial(split_pieces, pattern=pattern, behavior=behavior, invert=invert)
    step.plain = partial(split_texts, pattern=pattern, behavior=behavior,  # type: ignore
                         invert=invert)
    return step


# ----- normalizers ----------------------------------------------------------------------
NORMALIZERS = "NFC, NFKC, NFD, NFKD, Lowercase, Replace, Prepend, Precompiled, Sequence"


class Normalizer:
    """A normalizer two ways: on an :class:`NStr` (offsets kept: ``norm(piece)``) and on a
    plain ``str`` (ids only: ``norm.text(s)``, the same text, no per-character table).
    ``text_start(s)`` also says whether the result's first character still comes from
    the piece's first character (what Metaspace's ``prepend_scheme: first`` reads); only
    a Replace that rewrites the piece's start can move it."""

    def __init__(self, on_nstr: Callable[[NStr], NStr], on_text: Callable[[str], str],
                 moves_start: Callable[[str], bool] | None = None,
                 unchanged: Callable[[str], bool] | None = None):
        self._nstr = on_nstr
        self.text = on_text
        self._moves = moves_start
        # alignment(t): (normal form, starts, ends by character as array('q')) as
        # ``self(NStr.of(t))`` gives them, quickly, or None when t is unchanged (the lone
        # Unicode forms; None: use an NStr)
        self.alignment: Callable[[str], tuple[str, array, array] | None] | None = None
        # unchanged(t): the normalizer leaves t, and every part of t, as it is (the
        # Unicode forms, and sequences of them; None: not known cheaply)
        self.unchanged = unchanged

    def __call__(self, s: NStr) -> NStr:
        return self._nstr(s)

    @property
    def moves_start(self) -> bool:
        """Whether this step may rewrite a piece's start (a Replace that can)."""
        return self._moves is not None

    def text_start(self, t: str) -> tuple[str, bool]:
        """(normalized text, its first character comes from t's first)."""
        if self._moves is None:
            return self.text(t), True
        return self.text(t), not self._moves(t)


def normalizer(node: Any, where: str = "normalizer", source: str = "") -> Normalizer | None:
    """``source``: the file, named if one of its regexes runs away."""
    if node is None:
        return None
    if not isinstance(node, dict):
        raise Unsupported(where, f"{where} should be an object or null")
    kind = node.get("type")
    if kind in ("NFC", "NFKC", "NFD", "NFKD"):
        form: Form = kind
        made = Normalizer(lambda s: s.normalize(form), partial(_unicode_text, form),
                          unchanged=partial(is_normalized, form))
        made.alignment = partial(form_alignment, form)
        return made
    if kind == "Lowercase":
        return Normalizer(lambda s: s if s.text.islower() and s.text.isascii() else
                          s.map_chars(_lower), _lower_text)
    if kind == "Replace":
        pat = compile_pattern(node.get("pattern"), f"{where}.pattern", source)
        content = need(node, "content", str, where)
        return Normalizer(lambda s: s.replace(_match_spans(pat, s.text), content),
                          partial(_replace_text, pat, content),
                          partial(_replace_moves_start, pat, content))
    if kind == "Prepend":
        text = need(node, "prepend", str, where)
        return Normalizer(lambda s: s.prepend(text), lambda t: text + t if t and text else t)
    if kind == "Precompiled":
        return _precompiled(node, where)
    if kind == "Sequence":
        items = need(node, "normalizers", list, where)
        found = [normalizer(n, f"{where}.normalizers[{i}]", source) for i, n in enumerate(items)]
        steps = [f for f in found if f is not None]

        def run(s: NStr) -> NStr:
            for f in steps:
                s = f(s)
            return s

        def run_text(t: str) -> str:
            for f in steps:
                t = f.text(t)
            return t

        if not any(f.moves_start for f in steps):
            checks = [f.unchanged for f in steps]
            unchanged = None if any(c is None for c in checks) else \
                (lambda t: all(c(t) for c in checks))   # type: ignore[misc]
            return Normalizer(run, run_text, unchanged=unchanged)

        def moves(t: str) -> bool:
            moved = False
            for f in steps:
                t, keeps = f.text_start(t)
                moved = moved or not keeps
            return moved
        return Normalizer(run, run_text, moves)
    raise refuse(node, where, NORMALIZERS)


def _unicode_text(form: Form, t: str) -> str:
    return normal_form(form, t)   # (t itself when it is in the form)


def _lower_text(t: str) -> str:
    # str.lower() applies the final-sigma rule; tokenizers lowercases one character at a time
    return t.lower() if "\u03a3" not in t else "".join(_lower(c) for c in t)


def _replace_text(pattern, content: str, t: str) -> str:
    out, last = [], 0
    for s, e in _match_spans(pattern, t):
        if t[s:e] == content:
            continue
        out.append(t[last:s])
        out.append(content)
        last = e
    if not out:
        return t
    out.append(t[last:])
    return "".join(out)


def _replace_moves_start(pattern, content: str, t: str) -> bool:
    """Whether a Replace gives the text's first character another source: a match at 0
    that changes it, when its last character is not the first (NStr.replace gives the
    new text the match's last character) or nothing replaces it."""
    for s, e in _match_spans(pattern, t):
        return s == 0 and t[s:e] != content and (e > 1 or not content)
    return False


def _precompiled(node: dict, where: str) -> Normalizer:
    """tokenizers' Precompiled normalizer (a SentencePiece charsmap, in base64): cut into
    grapheme clusters, a short cluster that starts with a rule's source becomes its
    normalized text, else each character its own (csrc/imported/charsmap.h)."""
    raw = need(node, "precompiled_charsmap", str, where)
    try:
        blob = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        raise Unsupported(f"{where}.precompiled_charsmap", f"{where}.precompiled_charsmap is "
                          "not base64") from None
    native = charsmap_module()
    if not native.has_grapheme_classes():
        native.set_grapheme_classes(grapheme_classes())
    try:
        cm = native.Charsmap(blob)
    except ValueError as e:
        raise Unsupported(f"{where}.precompiled_charsmap", f"{where}.precompiled_charsmap is "
                          f"damaged: {e}") from None

    def on_nstr(s: NStr) -> NStr:
        if not s.text:
            return s
        text, changes = cm.normalize_hf(s.text, True)
        if text == s.text and not any(changes):
            return s
        return s.transform(zip(text, changes))

    return Normalizer(on_nstr, lambda t: cm.normalize_hf(t) if t else t)


def _lower(c: str) -> str:
    # Rust lowercases one character at a time (no final-sigma rule): so does this
    return c.lower()


def _match_spans(pattern, text: str) -> list[tuple[int, int]]:
    return [(s, e) for s, e, m in find_matches(pattern, text) if m]


# ----- pieces after a ByteLevel step: GPT-2's alphabet ----------------------------------
# A Split, Digits or Punctuation after ByteLevel sees each byte as one character of GPT-2's
# alphabet (tokenizers transforms the text there), so it may cut inside a character's
# UTF-8 ('你' is 'ä½ł': Digits isolates '½'). Such pieces are NStr over that alphabet
# (each character aligned to the original character its byte belongs to); the model gets
# :func:`model_word` of them.


def to_alphabet(p: NStr) -> NStr:
    """The piece in GPT-2's alphabet, one character per byte, offsets kept."""
    text = p.text
    alpha = gpt2_text(text.encode("utf-8"))
    if isinstance(p.align, int) and len(alpha) == len(text):
        return NStr(alpha, p.align)
    spans = p.spans()
    align = [sp for ch, sp in zip(text, spans) for _ in range(len(ch.encode("utf-8")))]
    return NStr(alpha, align)


def model_word(alpha: str) -> Word:
    """What the model encodes for a piece in GPT-2's alphabet: its text when its bytes are
    UTF-8, else the bytes themselves (the type says which: no character is a flag)."""
    table = unicode_to_bytes()
    raw = bytes(table[c] for c in alpha)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


def _after_byte_level(split):
    """A Split/Digits/Punctuation step after ByteLevel: on the pieces in the alphabet."""
    def run(pieces: Pieces) -> Pieces:
        return split([p if getattr(p, "alphabet", False) else _Alpha.from_piece(p)
                      for p in pieces])
    return run


class _Alpha(NStr):
    """An NStr in GPT-2's alphabet (its slices are too)."""
    __slots__ = ()
    alphabet = True

    @classmethod
    def from_piece(cls, p: NStr) -> "_Alpha":
        a = to_alphabet(p)
        return cls(a.text, a.align)

    def slice(self, i: int, j: int) -> "_Alpha":
        s = super().slice(i, j)
        return _Alpha(s.text, s.align)


# ----- Digits and Punctuation -------------------------------------------------------------
# tokenizers' Digits splits on char::is_numeric (Nd, Nl, No); Punctuation on ASCII
# punctuation (is_ascii_punctuation: !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~) or Unicode P*
_DIGIT = regex.compile(r"\p{N}")
_PUNCT = regex.compile(r"[\p{P}!-/:-@\[-`{-~]")
_WORDS = regex.compile(r"\w+|[^\w\s]+")
_SPACE_RUN = regex.compile(r"\s+")


# ----- pre-tokenizers -------------------------------------------------------------------
PRE_TOKENIZERS = ("Split, ByteLevel, Metaspace, Digits, Punctuation, Whitespace, "
                  "WhitespaceSplit, Sequence")


class PreTokenizer:
    """Runs the pre-tokenizer steps; ``byte_level`` if a ByteLevel step ends them."""

    # native_ok answers text by text (a subclass that says no for some texts): whole
    # texts cannot go to the one-pass C encoder
    native_by_text = False

    def __init__(self, steps: list[Callable[[Pieces], Pieces]], byte_level: bool,
                 add_prefix_space: bool, replacement: str | None, tiling=None,
                 metaspace: tuple[str, str, bool] | None = None, needs_start: bool = False,
                 alphabet: bool = False, classes: Classes | None = TOKENIZERS):
        self.classes = classes    # the Unicode tables of its patterns' classes
        self.steps = steps
        self.alphabet = alphabet   # pieces come out in GPT-2's alphabet (see model_word)
        self.byte_level = byte_level
        self.add_prefix_space = add_prefix_space
        self.replacement = replacement   # Metaspace's, shown as a space
        self._tiling = tiling   # (pattern, gaps are pieces too) when its matches are the pieces
        self._metaspace = metaspace   # (replacement, scheme, split) when Metaspace is all
        # a step reads where a piece starts in the original text (Metaspace "first")
        self.needs_start = needs_start
        self.kinds: tuple[str, ...] = ()   # its steps' types, in order (Sequence flattened)

    @property
    def rules_pattern(self) -> str | None:
        """A regex whose alternatives name the kinds of piece a lone Whitespace,
        WhitespaceSplit, Digits or Punctuation step makes (for the words view's rule
        names; the pieces themselves come from the steps), else None."""
        return _RULES.get(self.kinds) if len(self.kinds) == 1 else None

    @property
    def tiling_pattern(self) -> str | None:
        """The regex whose matches are the pieces (see words), or None."""
        return self._tiling[0].pattern if self._tiling is not None else None

    def native_ok(self, text: str) -> bool:
        """Whether the pipeline's native path (the tiling pattern's scanner and the C
        merger on the whole text) gives this text's pieces (a subclass may say no, and
        then sets ``native_by_text``)."""
        return True

    def words(self, text: str) -> list[str] | None:
        """The pieces' texts, without offsets, when one regex's matches are the pieces
        (Llama 3's Split + ByteLevel, GPT-2's ByteLevel) and they cover the whole text:
        ``findall`` in C instead of a piece object per word. None: use the steps."""
        if self._tiling is None:
            return None
        pattern, gaps_too = self._tiling
        native = _native(pattern.pattern, self.classes)   # a pattern the scanner runs: in C
        words = native.words(text) if native is not None else pattern.findall(text)
        if gaps_too and sum(map(len, words)) != len(text):
            return None   # gaps between matches are pieces too: the steps place them
        return [w for w in words if w]

    def words_text(self, text: str, at_start: bool) -> list[str] | list[Word]:
        """The pieces' texts of a plain ``str`` (ids only): from the tiling regex, from
        Metaspace's rule on the string, else the steps on a piece without a table.
        ``at_start``: the text begins at the original text's first character."""
        if self._metaspace is not None:
            rep, scheme, split = self._metaspace
            if " " in text:
                text = text.replace(" ", rep)
            if text and (scheme == "always" or (scheme == "first" and at_start)) \
                    and not text.startswith(rep):
                text = rep + text
            if not split or rep not in text:
                return [text] if text else []
            parts = text.split(rep)
            return ([parts[0]] if parts[0] else []) + [rep + p for p in parts[1:]]
        words = self.words(text)
        if words is None and not self.alphabet and \
                all(hasattr(step, "plain") for step in self.steps):
            words = [text]   # every step has a plain-string form: no piece objects
            for step in self.steps:
                words = step.plain(words)   # type: ignore[attr-defined]
        if words is not None:
            return words
        return [model_word(p.text) if self.alphabet else p.text
                for p in self([NStr.of(text, 0 if at_start else 1)])]

    def __call__(self, pieces: Pieces) -> Pieces:
        for step in self.steps:
            pieces = step(pieces)
        return pieces


# the kinds of piece of a lone step, as alternatives of a regex (names only: see
# PreTokenizer.rules_pattern)
_RULES = {("Whitespace",): r"\w+|[^\w\s]+", ("WhitespaceSplit",): r"\S+",
          ("Digits",): r"\p{N}+|\P{N}+", ("Punctuation",): r"\p{P}+|\P{P}+"}


def pre_tokenizer(node: Any, where: str = "pre_tokenizer", source: str = "") -> PreTokenizer:
    flat: list[tuple[dict, str]] = []
    _flatten(node, where, flat)
    steps: list[Callable[[Pieces], Pieces]] = []
    byte_level, prefix, replacement = False, False, None
    alphabet = False
    for k, (n, w) in enumerate(flat):
        kind = n.get("type")
        if byte_level and kind not in ("Split", "Digits", "Punctuation", "Whitespace",
                                       "WhitespaceSplit"):
            raise Unsupported(f"{w}.type", f'{w}.type = {json.dumps(kind)} after a ByteLevel '
                              "pre-tokenizer is not supported (only Split, Digits and "
                              "Punctuation may follow it)")
        step = _splitter(n, w, kind, source)
        if step is not None:
            if byte_level:   # it sees GPT-2's alphabet, as in tokenizers
                step, alphabet = _after_byte_level(step), True
            steps.append(step)
        elif kind == "ByteLevel":
            byte_level = True
            prefix = need(n, "add_prefix_space", bool, w, True)
            use_regex = need(n, "use_regex", bool, w, True)
            steps.append(_byte_level(prefix, use_regex, TOKENIZERS))
        elif kind == "Metaspace":
            rep = need(n, "replacement", str, w, "▁")
            if len(rep) != 1:
                raise Unsupported(f"{w}.replacement", f"{w}.replacement should be one character")
            scheme = _prepend_scheme(n, w)
            split = need(n, "split", bool, w, True)
            replacement = rep
            steps.append(_metaspace(rep, scheme, split))
        else:
            raise refuse(n, w, PRE_TOKENIZERS)
    meta = None
    if len(flat) == 1 and flat[0][0].get("type") == "Metaspace" and replacement is not None:
        n, w = flat[0]
        meta = (replacement, _prepend_scheme(n, w), bool(need(n, "split", bool, w, True)))
    first = any(n.get("type") == "Metaspace" and _prepend_scheme(n, w) == "first"
                for n, w in flat)
    made = PreTokenizer(steps, byte_level, prefix, replacement, _tiling(flat, source), meta,
                        first, alphabet)
    made.kinds = tuple(str(n.get("type")) for n, _ in flat)
    return made


def _splitter(n: dict, w: str, kind, source: str):
    """The step of a Split, Digits or Punctuation node (None for other kinds)."""
    if kind == "Split":
        pat = compile_pattern(n.get("pattern"), f"{w}.pattern", source)
        behavior = need(n, "behavior", str, w)
        if behavior not in BEHAVIORS:
            raise Unsupported(f"{w}.behavior", f"{w}.behavior = {json.dumps(behavior)} is "
                              f"not one of {', '.join(BEHAVIORS)}")
        invert = need(n, "invert", bool, w, False)
        return _split_step(pat, behavior, invert)
    if kind == "Digits":
        single = need(n, "individual_digits", bool, w, False)
        return _split_step(_DIGIT, "Isolated" if single else "Contiguous")
    if kind == "Whitespace":     # tokenizers: the matches of \w+|[^\w\s]+
        return _split_step(_WORDS, "Removed", invert=True)
    if kind == "WhitespaceSplit":
        return _split_step(_SPACE_RUN, "Removed")
    if kind == "Punctuation":
        behavior = need(n, "behavior", str, w, "Isolated")
        if behavior not in BEHAVIORS:
            raise Unsupported(f"{w}.behavior", f"{w}.behavior = {json.dumps(behavior)} is "
                              f"not one of {', '.join(BEHAVIORS)}")
        return _split_step(_PUNCT, behavior)
    return None


def _tiling(flat: list[tuple[dict, str]], source: str = ""):
    """(pattern, gaps are pieces too) for the shapes whose pieces are a regex's matches:
    one Split then ByteLevel without prefix or regex (Llama 3; the Split Isolated, or
    Removed and inverted: the gaps dropped), or ByteLevel alone with its regex and no
    prefix (GPT-2). Else None. ``source``: the file, named if the regex runs away."""
    kinds = [n.get("type") for n, _ in flat]
    last = flat[-1][0] if flat else {}
    plain_bl = kinds[-1:] == ["ByteLevel"] and last.get("add_prefix_space") is False
    if kinds == ["Split", "ByteLevel"] and plain_bl and last.get("use_regex") is False:
        split = flat[0][0]
        shape = (split.get("behavior"), split.get("invert", False))
        if shape in (("Isolated", False), ("Removed", True)):
            where = f"{flat[0][1]}.pattern"   # the same step as the Split's own (a runaway names it)
            return compile_pattern(split.get("pattern"), where, source), shape[0] == "Isolated"
    if kinds == ["ByteLevel"] and plain_bl and last.get("use_regex", True):
        return byte_level_regex(TOKENIZERS), True
    return None


def _flatten(node: Any, where: str, out: list) -> None:
    if node is None:
        return
    if not isinstance(node, dict):
        raise Unsupported(where, f"{where} should be an object or null")
    if node.get("type") == "Sequence":
        items = need(node, "pretokenizers", list, where)
        for i, child in enumerate(items):
            _flatten(child, f"{where}.pretokenizers[{i}]", out)
    else:
        out.append((node, where))


def _prepend_scheme(n: dict, w: str) -> str:
    if "prepend_scheme" in n:
        scheme = need(n, "prepend_scheme", str, w)
        if scheme not in ("always", "never", "first"):
            raise Unsupported(f"{w}.prepend_scheme", f"{w}.prepend_scheme = {json.dumps(scheme)}"
                              " is not one of always, never, first")
        return scheme
    # files older than prepend_scheme say add_prefix_space
    return "always" if need(n, "add_prefix_space", bool, w, True) else "never"


@lru_cache(maxsize=4)
def byte_level_regex(classes: Classes | None) -> FilePattern:
    """ByteLevel's own regex (GPT-2's) with the classes of ``classes``' version."""
    return _lazy_pinned(BYTE_LEVEL_PATTERN, "ByteLevel", "", classes, literal=True)


def _lazy_pinned(text: str, where: str, source: str, classes: Classes | None,
                 literal: bool = False) -> FilePattern:
    """A published pattern (one pattern_kinds recognises: it compiles and pins in every
    version, tests/engine/text/test_scan_versions.py), pinned when it first runs: the
    native scanner finds its words."""
    return FilePattern(lambda: pinned(text, classes), where, source, literal, classes, text=text)


def _byte_level(add_prefix_space: bool, use_regex: bool, classes: Classes | None):
    pattern = byte_level_regex(classes)

    def run(pieces: Pieces) -> Pieces:
        if add_prefix_space:
            pieces = [p if p.text.startswith(" ") else p.prepend(" ") for p in pieces]
        if use_regex:
            pieces = split_pieces(pieces, pattern, "Isolated")
        return pieces

    def plain(texts: list[str]) -> list[str]:
        if add_prefix_space:
            texts = [t if t.startswith(" ") else " " + t for t in texts]
        return split_texts(texts, pattern, "Isolated") if use_regex else texts
    run.plain = plain   # type: ignore[attr-defined]
    return run


def _metaspace(rep: str, scheme: str, split: bool):
    space = regex.compile(" ")
    mark = regex.compile(regex.escape(rep))

    def run(pieces: Pieces) -> Pieces:
        out = []
        for p in pieces:
            if " " in p.text:
                p = p.replace(_match_spans(space, p.text), rep)
            if scheme == "always" or (scheme == "first" and p.original_start == 0):
                if not p.text.startswith(rep):
                    p = p.prepend(rep)
            out.append(p)
        return split_pieces(out, mark, "MergedWithNext") if split else out

    def plain(texts: list[str]) -> list[str]:   # ("first" needs where a piece starts)
        out = [t.replace(" ", rep) if " " in t else t for t in texts]
        if scheme == "always":
            out = [t if t.startswith(rep) else rep + t for t in out]
        return split_texts(out, mark, "MergedWithNext") if split else out
    if scheme != "first":
        run.plain = plain   # type: ignore[attr-defined]
    return run
