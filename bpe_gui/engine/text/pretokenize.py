"""Pre-tokenization: special-token splitting, then a regex cuts each piece into words.

Training and encoding both go through :class:`Pretokenizer`, so the two can never
disagree about where a word begins.

Example (GPT-2 preset)::

    >>> Pretokenizer("gpt2").words("Hello world's 42!")
    ['Hello', ' world', "'s", ' 42', '!']
"""
from __future__ import annotations

import copy
import functools

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from .. import checks
from ..errors import PatternError, SettingsError
from .pattern_kinds import scanner_kind
from .presets import _PRESET_OF_PATTERN, NAMED_ALIASES, NAMED_PATTERNS, PRESET_ALIASES, PRESETS
from .scanner import native_scanner

if TYPE_CHECKING:   # (`regex` and the class tables are imported where a pattern is compiled)
    from typing import TypeAlias

    import regex

    from .unicode_versions import Classes

    _Pattern: TypeAlias = regex.Pattern   # (inside Pretokenizer, `regex` is its compiled pattern)

# Custom patterns are time-limited per call so a runaway pattern stops with a message
# (those proved linear excepted: Pretokenizer._limit).
# BPE_GUI_PATTERN_TIMEOUT (seconds) overrides it, e.g. to keep tests of runaway patterns fast.
def _timeout_from_env(default: float = 10.0) -> float:
    try:
        value = float(os.environ.get("BPE_GUI_PATTERN_TIMEOUT", default))
    except ValueError:
        return default
    return value if value > 0 else default


CUSTOM_TIMEOUT_S = _timeout_from_env()


def resolve_pattern(preset_or_pattern: str) -> tuple[str, str | None]:
    """Return ``(pattern, preset_name_or_None)`` for a preset name or a raw pattern.

    A raw pattern that is exactly a preset's (e.g. o200k's, as tiktoken files carry it)
    counts as that preset, so it runs on the native scanner. A published pattern's name
    (``llama3``, ``qwen2``, ``tekken``: presets.NAMED_PATTERNS) gives that pattern, with
    no preset name (the window's list and the table format know only PRESETS).

    Example: ``resolve_pattern("gpt4") -> (CL100K_PATTERN, "cl100k")``.
    """
    low = preset_or_pattern.lower()
    key = PRESET_ALIASES.get(low, low)
    if key in PRESETS:
        return PRESETS[key], key
    key = NAMED_ALIASES.get(low, low)
    if key in NAMED_PATTERNS:   # a published pattern's name (llama3, qwen2, tekken)
        return NAMED_PATTERNS[key], None
    return preset_or_pattern, _PRESET_OF_PATTERN.get(preset_or_pattern)


def pattern_names() -> list[str]:
    """Every name a pattern can be given by: the presets, the published patterns, and
    their other spellings."""
    return sorted({*PRESETS, *PRESET_ALIASES, *NAMED_PATTERNS, *NAMED_ALIASES})


def pattern_spellings() -> dict[str, tuple[str, ...]]:
    """Each pattern's name, the presets first and then the published patterns, with its
    other spellings. Example: ``pattern_spellings()["cl100k"] -> ("gpt-4", "gpt4")``."""
    out: dict[str, list[str]] = {name: [] for name in [*PRESETS, *NAMED_PATTERNS]}
    for alias, name in [*PRESET_ALIASES.items(), *NAMED_ALIASES.items()]:
        out[name].append(alias)
    return {name: tuple(sorted(aliases)) for name, aliases in out.items()}


def refuse_bare_name(pattern: str) -> None:
    """Raise PatternError for a pattern that is a plain word (letters, digits, - and _)
    but no pattern's name: as a regex it matches only that word, so a corpus would give
    no words and a text no tokens."""
    if _bare_name(pattern) and pattern.lower() not in pattern_names():
        raise PatternError(
            f"{pattern!r} is not the name of a pattern, and as a regular expression it matches "
            f"only the text {pattern!r} itself, so every other word would be left out. Give a "
            f"name ({', '.join([*PRESETS, *NAMED_PATTERNS])}) or a regular expression such as "
            "\\S+|\\s+.")


def _bare_name(text: str) -> bool:
    """Whether ``text`` is ``[A-Za-z][A-Za-z0-9_-]*`` (tested without compiling a regex)."""
    return text[:1].isascii() and text[:1].isalpha() and \
        all(c.isascii() and (c.isalnum() or c in "_-") for c in text)


def compile_pattern(pattern: str, classes: Classes | None = None) -> "regex.Pattern[str]":
    """Compile a pre-tokenizer pattern with the ``regex`` module, or raise PatternError.
    ``classes``: a library's Unicode tables for its classes (unicode_versions; None: the
    installed regex's), see dialects.pinned."""
    if not pattern:
        raise PatternError("The pre-tokenizer pattern is empty. Pick a preset or type a "
                           r"pattern such as \S+|\s+.")
    import regex

    from .dialects import DialectError, pinned
    try:
        return pinned(pattern, classes)  # regex-like (a PinnedPattern)
    except DialectError as e:
        raise PatternError(f"The pre-tokenizer pattern cannot be given the Unicode classes "
                           f"of {classes.label if classes else 'regex'}: {e}.") from e
    except regex.error as e:
        pos = f" at position {e.pos}" if getattr(e, "pos", None) is not None else ""
        raise PatternError(
            f"The pre-tokenizer pattern does not compile: {e.msg}{pos}. Fix the pattern "
            r"(it uses the `regex` module's syntax, so \p{L}, \p{N}, \p{Han} work)."
        ) from e


def validate_special_tokens(special_tokens: Sequence[str] | None) -> tuple[str, ...]:
    """Check special tokens: non-empty strings, no duplicates. Returns them as a tuple."""
    specials = checks.special_tokens(special_tokens, setting=True)   # one str: refused
    seen: set[str] = set()
    for i, s in enumerate(specials):
        if not isinstance(s, str):
            raise SettingsError(f"Special token #{i + 1} is {s!r}, not text. Give each "
                                "special token as a string such as <|endoftext|>.")
        if s == "":
            raise SettingsError(f"Special token #{i + 1} is empty. Remove it or give it "
                                "some text, e.g. <|endoftext|>.")
        if s in seen:
            raise SettingsError(f"Special token {s!r} is given twice. Remove the duplicate.")
        seen.add(s)
    return specials


def special_splitter(special_tokens: Sequence[str]) -> "regex.Pattern[str] | None":
    """A regex that finds special tokens, longest first where they overlap."""
    if not special_tokens:
        return None
    import regex
    alts = sorted(special_tokens, key=len, reverse=True)
    return regex.compile("|".join(regex.escape(s) for s in alts))


@dataclass(frozen=True)
class Piece:
    """A span of the input: either one special token or a run of ordinary text."""

    start: int
    text: str
    special: bool


# what a message about a pattern that ran too long says of the cause and the fix
RUNAWAY_ADVICE = ("It probably backtracks catastrophically: a repeat inside a repeat, such "
                  "as (a+)+, or a repeat followed by something that can fail at the end of a "
                  r"long run, such as \w+x; simplify it or pick a preset.")


def shown_pattern(pattern: str, most: int = 60) -> str:
    """A pattern as a message shows it: as typed (no escapes doubled), quoted, cut to
    ``most`` characters."""
    return f"'{pattern}'" if len(pattern) <= most else f"'{pattern[:most]}...'"


# what a pattern that leaves text out can end with to take the rest (unmatched_sentence)
TAKE_THE_REST = r"|\s+|\S"


def unmatched_sentence(n: int, total: int, where: str, then: str) -> str:
    """What ``Pretokenizer.unmatched`` found, said with the fix: 'the pattern matches no
    word in 25.3% of WHERE (n of total characters): THEN. To keep all text, ...'."""
    share = 100 * n / total if total else 0.0
    return (f"the pattern matches no word in {share:.1f}% of {where} ({n:,} of {total:,} "
            f"characters): {then}. To keep all text, end the pattern with an alternative "
            f"that takes the rest, e.g. {TAKE_THE_REST}")


class Pretokenizer:
    """Splits text on special tokens, then into words with a pattern.

    ``pattern`` is a preset name (gpt2, cl100k/gpt4, whitespace, cjk) or a raw regex
    (``regex`` syntax). ``classes``: the Unicode tables its classes mean, those of the
    library a tokenizer file belongs to (``unicode_versions.TIKTOKEN``...), or None for
    the installed ``regex``'s (trained tokenizers).
    """

    def __init__(self, pattern: str = "gpt2", special_tokens: Sequence[str] | None = None,
                 classes: Classes | None = None):
        checks.string(pattern, "pattern", "a preset name (gpt2, cl100k, o200k, whitespace, "
                      "cjk) or a regex", setting=True)
        self.pattern, self.preset = resolve_pattern(pattern)
        self.classes = classes
        # the kind of native scanner that runs this pattern (the gpt2, cl100k and o200k
        # presets, and the published spellings of those and of Llama 3's and Qwen2's:
        # pattern_kinds.py), else None
        self.kind = scanner_kind(self.pattern)
        if self.kind is None:   # (else the C scanner finds the words: `regex` made when read)
            self.regex = compile_pattern(self.pattern, classes)
        self.special_tokens = validate_special_tokens(special_tokens)
        self.timeout = None if self.preset or self.kind else CUSTOM_TIMEOUT_S
        # the C scanner (same words as the regex), else None
        self.source: str | None = None   # the file (and key) a pattern came from, if any
        # what finds the words when the pattern alone does not (an imported
        # tokenizer.json's pre-tokenizer steps): a BranchMatcher's methods, else None
        self.matcher: Any = None
        self.native = native_scanner(self.kind, classes)

    # counting only (training's special_text "word"): each special token is a word too
    special_words = False

    def with_specials(self, special_tokens: Sequence[str]) -> "Pretokenizer":
        """The same words, with other special tokens cut out of the text (a call that
        reads only some of them: tokenizers/special_policy.py)."""
        clone = copy.copy(self)
        clone.__dict__.pop("_special_re", None)
        clone.special_tokens = validate_special_tokens(special_tokens)
        return clone

    @functools.cached_property
    def regex(self) -> "_Pattern":
        """The pattern compiled with ``classes``' tables (pinning a published pattern to a
        library's Unicode version takes ~60 ms and ~8 MB of class tables): for a pattern
        the native scanner runs, made when first read (lone surrogates, playback)."""
        return compile_pattern(self.pattern, self.classes)

    @functools.cached_property
    def _special_re(self) -> "_Pattern | None":
        """special_splitter of the special tokens, compiled when first used (a file whose
        whole texts go to the C encoder never needs it: Llama 3's 256 took 0.06 s)."""
        return special_splitter(self.special_tokens)

    def pieces(self, text: str) -> Iterator[Piece]:
        """Cut text at special tokens. Example: 'a<s>b' -> Piece(0,'a'), Piece(1,'<s>',special), Piece(4,'b')."""
        if self._special_re is None:
            if text:
                yield Piece(0, text, False)
            return
        pos = 0
        for m in self._special_re.finditer(text):
            if m.start() > pos:
                yield Piece(pos, text[pos:m.start()], False)
            yield Piece(m.start(), m.group(), True)
            pos = m.end()
        if pos < len(text):
            yield Piece(pos, text[pos:], False)

    @functools.cached_property
    def _limit(self) -> float | None:
        """The time limit the `regex` module runs the pattern with: ``timeout``, but
        none for a pattern proved linear (backtracking.py), since with a limit `regex`
        reads the CPU clock at every word, which doubles the time of counting."""
        from .backtracking import needs_time_limit
        if self.timeout is None or not needs_time_limit(self.pattern):
            return None
        return self.timeout

    def _run(self, method, text: str, concurrent: bool = False):
        try:
            return method(text, timeout=self._limit, concurrent=concurrent)
        except TimeoutError as e:
            raise PatternError(
                (f"{self.source}: the" if self.source else "The") +
                f" pre-tokenizer pattern {shown_pattern(self.pattern)} ran for more than "
                f"{self.timeout:g} s on {len(text):,} characters, so it was stopped. "
                + RUNAWAY_ADVICE) from e

    def _finditer(self, text: str, **kw) -> list[tuple[int, int]]:
        return [m.span() for m in self.regex.finditer(text, **kw)]

    def findall(self, text: str, concurrent: bool = False) -> list[str]:
        """The words of a text that holds no special token: whole matches, in order.

        (Not ``regex.findall``, which returns the groups of a pattern that has capture
        groups: ``(\\w)\\w*|\\s+`` on 'hello world' must give 'hello', not 'h'.)
        """
        if self.native is not None:
            return self.native.words(text)
        if self.regex.groups:
            found = self._run(self._finditer, text, concurrent)
            return [text[a:b] for a, b in found if b > a]
        return [w for w in self._run(self.regex.findall, text, concurrent) if w]

    def words(self, text: str, concurrent: bool = False) -> list[str]:
        """The words of a text without special tokens (they are never split or merged),
        or with each one a word when ``special_words``."""
        out: list[str] = []
        for piece in self.pieces(text):
            if not piece.special:
                out.extend(self.findall(piece.text, concurrent))
            elif self.special_words:
                out.append(piece.text)
        return out

    def spans(self, text: str) -> Iterator[tuple[int, int, bool]]:
        """(start, end, is_special) of every word and special token, in order.

        Text that the pattern does not cover (possible with custom patterns) is skipped.
        """
        for piece in self.pieces(text):
            if piece.special:
                yield piece.start, piece.start + len(piece.text), True
                continue
            if self.native is not None:
                start = 0
                for end in self.native.word_ends(piece.text):
                    yield piece.start + start, piece.start + end, False
                    start = end
                continue
            # finditer is lazy, so it runs (and may time out) inside _run via list()
            for start, end in self._run(self._finditer, piece.text):
                if end > start:
                    yield piece.start + start, piece.start + end, False

    def unmatched(self, text: str) -> int:
        """Characters of ``text`` that no word and no special token covers: the text a
        custom pattern leaves out of training and encoding (0 for the presets, whose
        patterns take every character). One text: give each line of a corpus read one
        text per line on its own (``boundaries.lines_of``)."""
        if self.native is not None:
            return 0
        return len(text) - sum(e - s for s, e, _ in self.spans(text))

    @property
    def max_special_len(self) -> int:
        return max((len(s) for s in self.special_tokens), default=0)
