"""A pattern as its own library's regex engine reads it, in ``regex`` syntax, and back.

Tokenizer files carry patterns in the dialect of the library that runs them: a
``tokenizer.json`` in Oniguruma's (Hugging Face tokenizers, Ruby syntax), a ``.tiktoken``
pattern in fancy-regex's (tiktoken, over Rust's ``regex`` crate). The same text can mean
something else in the ``regex`` module this app runs patterns with: in Oniguruma
``\\p{N}{1,3}+`` is "``\\p{N}{1,3}``, one or more times" (not possessive), ``$`` ends
every line, ``(?m)`` is dot-all, ``\\h`` is a hex digit, ``(?i)`` in the middle of a group
holds to the group's end (later alternatives included); in fancy-regex ``$`` is only the
end of the text and ``\\Z`` also before a final newline... (docs/FORMATS.md lists each
difference and how it was checked).

:func:`translate` parses a pattern in one dialect into one tree of meanings and writes
it in another: ``translate(p, "oniguruma", "regex")`` on import, ``translate(p, "regex",
"oniguruma")`` on export. A pattern that means the same in both is returned as it is
(published patterns keep their spelling, so the native scanner still recognises them);
one that cannot be written in the target raises :class:`DialectError` naming the part.

:func:`pinned` compiles a pattern (``regex`` syntax) so that its Unicode classes are those
of a library's Unicode version (``unicode_versions.Classes``) rather than the installed
``regex``'s: each class is written as the installed ``regex``'s class less the code
points that are not in it in that version, plus those that are (``regex``'s version-1
set operations), which costs ~2.5x the plain pattern's time on non-ASCII text. ASCII
text, where no version differs, runs the plain pattern.

Example::

    >>> translate(r"\\p{N}{1,3}+", "oniguruma", "regex")
    '(?:\\\\p{N}{1,3})+'
    >>> translate(r"'s|\\s+$", "regex", "oniguruma")
    "'s|\\\\s+\\\\Z"
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Union, overload

import regex

from .pattern_kinds import scanner_kind
from .unicode_versions import Classes, class_delta, general_category

DIALECTS = ("regex", "oniguruma", "fancy")
INF = -1   # no upper bound


class DialectError(ValueError):
    """A pattern that cannot be read or written in a dialect; says which part and why.
    ``malformed``: the pattern is not valid in the dialect at all (else it is valid but
    holds a part that cannot be carried over)."""

    def __init__(self, message: str, malformed: bool = False):
        super().__init__(message)
        self.malformed = malformed


# ----- the tree ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Range:
    lo: int
    hi: int


@dataclass(frozen=True)
class Gc:
    """A general category (or several: ``LC``), exact in every Unicode version."""
    cats: tuple[str, ...]
    neg: bool = False


@dataclass(frozen=True)
class Prop:
    """A property the installed ``regex`` names (``Han``, ``Alphabetic``...), as ``regex``
    reads ``\\p{name}``."""
    name: str
    neg: bool = False


@dataclass(frozen=True)
class Named:
    """Classes whose meaning differs by dialect, by their meaning: ``space`` (White_Space:
    ``\\s`` everywhere), ``word`` (``regex``'s and fancy-regex's ``\\w``: Alphabetic, marks,
    Nd, Pc, Join_Control), ``onig_word`` (Oniguruma's ``\\w``: that without Join_Control,
    with U+00B2, U+00B3, U+00B9, U+00BC-U+00BE), ``onig_posix_word`` (its ``[[:word:]]``:
    without Join_Control), ``posix_<name>`` (``regex``'s Unicode ``[[:name:]]``)."""
    kind: str
    neg: bool = False


@dataclass(frozen=True)
class Cls:
    """``[items && ands[0] && ...]``, negated if ``neg``; ``ci``: case-insensitive."""
    items: tuple
    neg: bool = False
    ands: tuple = ()
    ci: bool = False


@dataclass(frozen=True)
class Lit:
    cp: int
    ci: bool = False


@dataclass(frozen=True)
class Dot:
    dotall: bool


@dataclass(frozen=True)
class Anchor:
    """``A`` start of text, ``z`` end, ``Z`` end or before a final newline, ``Zn`` the end
    after any newlines (fancy-regex's ``\\Z``), ``onig_bol`` Oniguruma's ``^`` (a line
    start, but not after a newline that ends the text), ``bol`` and
    ``eol`` start and end of a line, ``G``, and word boundaries ``b``/``B`` by ``word``
    (a Named kind: which \\w the dialect's \\b uses)."""
    kind: str
    word: str = ""


@dataclass(frozen=True)
class Group:
    """``cap`` (``name`` if named), ``nocap``, ``atomic``, ``la``, ``nla``, ``lb``, ``nlb``."""
    kind: str
    child: "Node"
    name: str = ""


@dataclass(frozen=True)
class Rep:
    child: "Node"
    lo: int
    hi: int          # INF: no bound
    mode: str        # greedy, lazy, poss


@dataclass(frozen=True)
class Backref:
    ref: Union[int, str]
    ci: bool = False


@dataclass(frozen=True)
class Seq:
    items: tuple


@dataclass(frozen=True)
class Alt:
    branches: tuple


Node = Union[Lit, Cls, Dot, Anchor, Group, Rep, Backref, Seq, Alt]


# ----- parsing -------------------------------------------------------------------------------
@dataclass
class _Flags:
    i: bool = False
    m: bool = False      # multi-line ^ $ (regex, fancy)
    s: bool = False      # dot-all
    x: bool = False

    def copy(self) -> "_Flags":
        return _Flags(self.i, self.m, self.s, self.x)


_SIMPLE_ESC = {"t": 9, "n": 10, "r": 13, "f": 12, "v": 11, "a": 7, "e": 27}
_META = set("\\.^$|?*+()[]{}")
_HEX = (Range(0x30, 0x39), Range(0x41, 0x46), Range(0x61, 0x66))
# fancy-regex's POSIX classes are ASCII (Rust regex-syntax)
_ASCII_POSIX = {
    "alnum": (Range(0x30, 0x39), Range(0x41, 0x5A), Range(0x61, 0x7A)),
    "alpha": (Range(0x41, 0x5A), Range(0x61, 0x7A)),
    "ascii": (Range(0, 0x7F),),
    "blank": (Range(9, 9), Range(32, 32)),
    "cntrl": (Range(0, 0x1F), Range(0x7F, 0x7F)),
    "digit": (Range(0x30, 0x39),),
    "graph": (Range(0x21, 0x7E),),
    "lower": (Range(0x61, 0x7A),),
    "print": (Range(0x20, 0x7E),),
    "punct": (Range(0x21, 0x2F), Range(0x3A, 0x40), Range(0x5B, 0x60), Range(0x7B, 0x7E)),
    "space": (Range(9, 13), Range(32, 32)),
    "upper": (Range(0x41, 0x5A),),
    "word": (Range(0x30, 0x39), Range(0x41, 0x5A), Range(0x5F, 0x5F), Range(0x61, 0x7A)),
    "xdigit": _HEX,
}
# Oniguruma's Unicode POSIX classes, as measured against tokenizers (docs/FORMATS.md)
_ONIG_POSIX: dict[str, tuple] = {
    "alpha": (Named("posix_alpha"),), "upper": (Named("posix_upper"),),
    "graph": (Named("posix_graph"),), "print": (Named("posix_print"),),
    "cntrl": (Named("posix_cntrl"),), "blank": (Named("posix_blank"),),
    "digit": (Gc(("Nd",)),), "alnum": (Named("posix_alpha"), Gc(("Nd",))),
    "word": (Named("onig_posix_word"),), "punct": (Gc(("P",)), Gc(("S",))),
    "space": (Named("space"),), "xdigit": _HEX, "ascii": (Range(0, 0x7F),),
}
# regex's POSIX classes (Unicode) kept as themselves
_REGEX_POSIX = ("alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower",
                "print", "punct", "space", "upper", "word", "xdigit")


class _Parser:
    def __init__(self, pattern: str, dialect: str):
        if dialect not in DIALECTS:
            raise ValueError(f"unknown regex dialect {dialect!r} (one of {', '.join(DIALECTS)})")
        self.p = pattern
        self.d = dialect
        self.i = 0
        # regex's version 1 (a pattern this module wrote with pinned classes): nested
        # sets and set operations in classes, inline flags scoped like fancy-regex's
        self.v1 = dialect == "regex" and pattern.startswith("(?V1)")
        if self.v1:
            self.i = len("(?V1)")

    # -- errors and helpers
    def fail(self, what: str, at: int | None = None, malformed: bool = False) -> DialectError:
        at = self.i if at is None else at
        label = {"regex": "the regex module", "oniguruma": "Oniguruma (Hugging Face tokenizers)",
                 "fancy": "fancy-regex (tiktoken)"}[self.d]
        return DialectError(f"{what} at position {at} of {self.p!r}, as {label} reads it",
                            malformed)

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.p[j] if j < len(self.p) else ""

    def eat(self, s: str) -> bool:
        if self.p.startswith(s, self.i):
            self.i += len(s)
            return True
        return False

    # -- entry
    def parse(self) -> Node:
        node = self.alternation(_Flags())
        if self.i < len(self.p):
            raise self.fail("an unbalanced ')'", malformed=True)
        return node

    def _set_flag(self, flags: _Flags, c: str, on: bool, at: int) -> None:
        if c == "i":
            flags.i = on
        elif c == "x":
            flags.x = on
        elif c == "m":
            if self.d == "oniguruma":
                flags.s = on    # Ruby: (?m) is dot-all
            else:
                flags.m = on
        elif c == "s" and self.d != "oniguruma":
            flags.s = on
        elif c == "u" and self.d != "oniguruma":
            pass   # Unicode: what a str pattern is anyway
        elif c in "V01" and self.d == "regex":
            raise self.fail("a version flag (V0/V1) after the start", at)
        else:
            raise self.fail(f"the flag {c!r} is not supported", at)

    def alternation(self, flags: _Flags) -> Node:
        branches = []
        while True:
            branches.append(self.sequence(flags))
            if not self.eat("|"):
                break
        return branches[0] if len(branches) == 1 else Alt(tuple(branches))

    def sequence(self, flags: _Flags) -> Node:
        items: list[Node] = []
        while self.i < len(self.p):
            c = self.peek()
            if c in "|)":
                break
            if flags.x and c in " \t\n\r\f\v":
                self.i += 1
                continue
            if flags.x and c == "#":
                while self.i < len(self.p) and self.p[self.i] != "\n":
                    self.i += 1
                continue
            if c == "(" and self._inline_flags(flags):
                # (?i) without ':' holds to the end of its group: in Oniguruma the rest
                # of the group is one item of this branch (its later alternatives
                # included: a(?i)b|c is a(?i:b|c)); in fancy-regex and regex the flags
                # change for the rest of the group, its later alternatives included
                if self.d == "oniguruma":
                    rest = self.alternation(flags)
                    items.append(Group("nocap", rest) if isinstance(rest, Alt) else rest)
                    break
                continue
            atom = self.atom(flags)
            if atom is None:
                continue
            items.append(self.quantifiers(atom, flags))
        return items[0] if len(items) == 1 else Seq(tuple(items))

    def _inline_flags(self, flags: _Flags) -> bool:
        """At '(': if it is '(?flags)', apply them and return True."""
        m = regex.match(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)", self.p[self.i:])
        if not m or not (m.group(1) or m.group(2)):
            return False
        at = self.i
        self.i += m.end()
        for c in m.group(1):
            self._set_flag(flags, c, True, at)
        for c in m.group(2) or "":
            self._set_flag(flags, c, False, at)
        return True

    def quantifiers(self, atom: Node, flags: _Flags) -> Node:
        count = 0
        while True:
            start = self.i
            c = self.peek()
            if c == "?":
                lo, hi, interval = 0, 1, False
            elif c == "*":
                lo, hi, interval = 0, INF, False
            elif c == "+":
                lo, hi, interval = 1, INF, False
            elif c == "{":
                m = regex.match(r"\{(\d*)(?:(,)(\d*))?\}", self.p[self.i:])
                if not m or (not m.group(1) and not m.group(3)):
                    return atom   # a literal '{' (fancy-regex refuses it in atom())
                lo = int(m.group(1) or 0)
                hi = lo if not m.group(2) else (int(m.group(3)) if m.group(3) else INF)
                if hi != INF and hi < lo:
                    raise self.fail("a repetition whose maximum is below its minimum", malformed=True)
                interval = True
                self.i += m.end() - 1
            else:
                return atom
            self.i += 1
            # Oniguruma refuses any repeated assertion, fancy-regex a repeated lookaround
            if (self.d == "oniguruma" and isinstance(atom, Anchor)
                    or self.d != "regex" and isinstance(atom, Group)
                    and atom.kind in ("la", "nla", "lb", "nlb")):
                raise self.fail("a repeated assertion (the library refuses it)", start,
                                malformed=True)
            mode = "greedy"
            if self.peek() == "?":
                self.i += 1
                if self.d == "oniguruma" and interval and lo == hi:
                    atom = Rep(Rep(atom, lo, hi, "greedy"), 0, 1, "greedy")  # {n}? is optional
                    count += 1
                    continue
                mode = "lazy"
            elif self.peek() == "+":
                self.i += 1
                if self.d == "oniguruma" and interval:
                    atom = Rep(Rep(atom, lo, hi, "greedy"), 1, INF, "greedy")  # {n,m}+: repeat
                    count += 1
                    continue
                mode = "poss"
            if count and self.d != "oniguruma":
                raise self.fail("a quantifier after a quantifier", start, malformed=True)
            atom = Rep(atom, lo, hi, mode)
            count += 1

    # -- atoms
    def atom(self, flags: _Flags) -> Node | None:
        c = self.peek()
        start = self.i
        if c == "(":
            return self.group(flags)
        if c == "[":
            return self.char_class(flags)
        if c == ".":
            self.i += 1
            return Dot(flags.s)
        if c == "^":   # Oniguruma's ^: not after a newline that ends the text
            self.i += 1
            return Anchor("onig_bol" if self.d == "oniguruma" else "bol" if flags.m else "A")
        if c == "$":
            self.i += 1
            if self.d == "oniguruma" or flags.m:
                return Anchor("eol")
            return Anchor("Z" if self.d == "regex" else "z")
        if c == "\\":
            return self.escape(flags, in_class=False)
        if c in "*+?":
            raise self.fail(f"a quantifier {c!r} with nothing to repeat", start, malformed=True)
        if c == "{" and self.d == "fancy":
            raise self.fail("a literal '{' (fancy-regex needs it escaped)")
        self.i += 1
        return Lit(ord(c), flags.i)

    def group(self, flags: _Flags) -> Node:
        start = self.i
        self.i += 1
        inner = flags.copy()
        kind, name = "cap", ""
        if self.eat("?"):
            if self.eat(":"):
                kind = "nocap"
            elif self.eat(">"):
                kind = "atomic"
            elif self.eat("="):
                kind = "la"
            elif self.eat("!"):
                kind = "nla"
            elif self.eat("<="):
                kind = "lb"
            elif self.eat("<!"):
                kind = "nlb"
            elif self.eat("#"):
                end = self.p.find(")", self.i)
                if end < 0:
                    raise self.fail("an unclosed comment", start, malformed=True)
                self.i = end + 1
                return None  # type: ignore[return-value]
            elif self.peek() in "<'" or (self.peek() == "P" and self.peek(1) == "<"):
                if self.peek() == "'" and self.d != "oniguruma":
                    raise self.fail("a group name in quotes", start)
                if self.peek() == "P":
                    self.i += 1
                close = ">" if self.peek() == "<" else "'"
                end = self.p.find(close, self.i + 1)
                if end < 0:
                    raise self.fail("an unclosed group name", start, malformed=True)
                name = self.p[self.i + 1:end]
                if not regex.fullmatch(r"[A-Za-z_]\w*", name):
                    raise self.fail(f"the group name {name!r}", start)
                self.i = end + 1
            elif self.peek() == "P" and self.peek(1) == "=":
                end = self.p.find(")", self.i)
                if self.d != "regex" or end < 0:
                    raise self.fail("(?P=name)", start)
                ref = self.p[self.i + 2:end]
                self.i = end + 1
                return Backref(ref, flags.i)
            else:
                m = regex.match(r"([a-zA-Z]*)(?:-([a-zA-Z]*))?:", self.p[self.i:])
                if not m:
                    raise self.fail("this kind of group ('(?" + self.p[self.i:self.i + 3] + "...')",
                                    start)
                for c in m.group(1):
                    self._set_flag(inner, c, True, start)
                for c in m.group(2) or "":
                    self._set_flag(inner, c, False, start)
                self.i += m.end()
                kind = "nocap"
        child = self.alternation(inner)
        if not self.eat(")"):
            raise self.fail("an unclosed '('", start, malformed=True)
        if kind == "nocap" and not isinstance(child, (Alt,)):
            return Group("nocap", child)
        return Group(kind, child, name)

    def _code(self, text: str, base: int, at: int) -> int:
        try:
            cp = int(text, base)
        except ValueError:
            raise self.fail("a malformed character code", at, malformed=True) from None
        if cp > 0x10FFFF:
            raise self.fail("a character code past U+10FFFF", at, malformed=True)
        return cp

    def escape(self, flags: _Flags, in_class: bool):
        """At '\\': a Lit, a class item (Range/Gc/Prop/Named/Cls), an Anchor, a Backref."""
        start = self.i
        self.i += 1
        c = self.peek()
        if not c:
            raise self.fail("a '\\' at the end", malformed=True)
        self.i += 1
        d = self.d
        if c in _SIMPLE_ESC and not (c == "e" and d == "regex"):
            return self._lit(_SIMPLE_ESC[c], flags, in_class)
        if c == "b" and in_class:
            return self._lit(8, flags, in_class)
        if c == "x":
            if self.peek() == "{":
                if d == "regex":
                    raise self.fail("\\x{...} (write \\uHHHH or \\UHHHHHHHH)", start)
                end = self.p.find("}", self.i)
                if end < 0:
                    raise self.fail("an unclosed \\x{", start, malformed=True)
                cp = self._code(self.p[self.i + 1:end].strip(), 16, start)
                self.i = end + 1
                return self._lit(cp, flags, in_class)
            m = regex.match(r"[0-9A-Fa-f]{1,2}", self.p[self.i:])
            if not m or (d == "regex" and len(m.group()) != 2):
                raise self.fail("a malformed \\x escape", start, malformed=True)
            self.i += m.end()
            return self._lit(int(m.group(), 16), flags, in_class)
        if c == "u" and d != "oniguruma" or c == "u" and regex.match(r"[0-9A-Fa-f]{4}",
                                                                      self.p[self.i:]):
            if self.peek() == "{" and d == "fancy":
                end = self.p.find("}", self.i)
                cp = self._code(self.p[self.i + 1:end], 16, start)
                self.i = end + 1
                return self._lit(cp, flags, in_class)
            m = regex.match(r"[0-9A-Fa-f]{4}", self.p[self.i:])
            if not m:
                raise self.fail("a malformed \\u escape", start, malformed=True)
            self.i += 4
            return self._lit(int(m.group(), 16), flags, in_class)
        if c == "U" and d != "oniguruma":
            m = regex.match(r"[0-9A-Fa-f]{8}", self.p[self.i:])
            if not m:
                raise self.fail("a malformed \\U escape", start, malformed=True)
            self.i += 8
            return self._lit(self._code(m.group(), 16, start), flags, in_class)
        if c == "o" and d == "oniguruma" and self.peek() == "{":
            end = self.p.find("}", self.i)
            cp = self._code(self.p[self.i + 1:end], 8, start)
            self.i = end + 1
            return self._lit(cp, flags, in_class)
        if c == "N" and d == "regex" and self.peek() == "{":
            end = self.p.find("}", self.i)
            try:
                cp = ord(unicodedata.lookup(self.p[self.i + 1:end]))
            except KeyError:
                raise self.fail("an unknown \\N{name}", start) from None
            self.i = end + 1
            return self._lit(cp, flags, in_class)
        if c == "c" and d == "oniguruma":
            ch = self.peek()
            self.i += 1
            return self._lit(ord(ch) & 0x1F, flags, in_class)
        if c.isdigit():
            return self._digits(c, flags, in_class, start)
        if c in "dDwWsShH":
            return self._shorthand(c, flags, in_class, start)
        if c in "pP":
            return self._property(c == "P", flags, in_class, start)
        if not in_class:
            if c == "A":
                return Anchor("A")
            if c == "z" and d != "regex":
                return Anchor("z")
            if c == "Z":   # fancy-regex: the end, whatever newlines come before it
                return Anchor({"regex": "z", "oniguruma": "Z", "fancy": "Zn"}[d])
            if c in "bB":
                return Anchor(c, {"regex": "word", "fancy": "word", "oniguruma": "onig_word"}[d])
            if c == "G":
                return Anchor("G")
            if c == "k" and d != "regex" and self.peek() == "<":
                end = self.p.find(">", self.i)
                ref = self.p[self.i + 1:end]
                self.i = end + 1
                return Backref(int(ref) if ref.isdigit() else ref, flags.i)
            if c == "N" and d != "regex":
                return Cls((Range(10, 10),), neg=True)
            if c == "O" and d == "oniguruma":
                return Cls((Range(0, 0x10FFFF),))
            if c == "R" and d != "fancy":
                return Group("atomic", Alt((Seq((Lit(13), Lit(10))), Cls((
                    Range(10, 13), Range(0x85, 0x85), Range(0x2028, 0x2029))))))
        if c.isalnum() or ord(c) > 127:
            raise self.fail(f"the escape \\{c} is not supported", start)
        return self._lit(ord(c), flags, in_class)

    def _lit(self, cp: int, flags: _Flags, in_class: bool):
        return Range(cp, cp) if in_class else Lit(cp, flags.i)

    def _digits(self, c: str, flags: _Flags, in_class: bool, start: int):
        digits = c + regex.match(r"\d{0,2}", self.p[self.i:]).group()
        if c == "0" or (len(digits) == 3 and all(x in "01234567" for x in digits)) or in_class:
            if self.d == "fancy" and not (c == "0" and len(digits) == 1):
                raise self.fail("an octal escape", start)
            m = regex.match(r"[0-7]{0,2}", self.p[self.i:])
            self.i += m.end()
            return self._lit(int(c + m.group(), 8), flags, in_class)
        m = regex.match(r"\d{0,1}", self.p[self.i:])
        self.i += m.end()
        return Backref(int(c + m.group()), flags.i)

    def _shorthand(self, c: str, flags: _Flags, in_class: bool, start: int):
        low, neg = c.lower(), c.isupper()
        if low == "d":
            item: object = Gc(("Nd",), neg)
        elif low == "s":
            item = Named("space", neg)
        elif low == "w":   # Oniguruma's \w in a class lacks the Latin-1 digits ² ³ ¹ ¼ ½ ¾
            item = Named(("onig_posix_word" if in_class else "onig_word")
                         if self.d == "oniguruma" else "word", neg)
        else:   # h: a hex digit in Oniguruma and fancy-regex
            if self.d == "regex":
                raise self.fail("\\h (the regex module reads it differently)", start)
            return Cls(_HEX, neg, ci=flags.i and not in_class)
        return item if in_class else Cls((item,), ci=flags.i)

    def _property(self, neg: bool, flags: _Flags, in_class: bool, start: int):
        if self.peek() == "{":
            end = self.p.find("}", self.i)
            if end < 0:
                raise self.fail("an unclosed \\p{", start, malformed=True)
            name = self.p[self.i + 1:end]
            self.i = end + 1
        else:
            if self.d == "oniguruma":
                raise self.fail("\\p without braces", start)
            name = self.peek()
            self.i += 1
        name = name.strip() if self.d == "oniguruma" else name
        if name.startswith("^"):
            neg, name = not neg, name[1:]
        if self.d == "oniguruma" and name.lower().replace("_", "") == "l&":
            raise self.fail("\\p{L&}", start)
        gc = general_category(name)
        if gc is not None:
            item: object = Gc(gc, neg)
        else:
            key = name.replace(" ", "").replace("_", "").lower()
            if key == "any":
                item = Range(0, 0x10FFFF) if not neg else Cls((Range(0, 0x10FFFF),), neg=True)
            else:
                try:
                    regex.compile(r"\p{" + name + "}")
                except regex.error:
                    raise self.fail(f"the property \\p{{{name}}}", start) from None
                item = Prop(name, neg)
        if isinstance(item, Cls):
            return item
        return item if in_class else Cls((item,), ci=flags.i)

    # -- classes
    def char_class(self, flags: _Flags) -> Cls:
        start = self.i
        if self.v1:   # the composite classes this module writes for some Named kinds
            for text, named in _composites():
                if self.p.startswith(text, self.i):
                    self.i += len(text)
                    return Cls((named,), ci=flags.i)
        self.i += 1
        neg = self.eat("^")
        items: list = []
        ands: list[Cls] = []
        first = True
        nested_ok = self.d != "regex" or self.v1
        while True:
            c = self.peek()
            if not c:
                raise self.fail("an unclosed '['", start, malformed=True)
            if c == "]" and not first:
                self.i += 1
                break
            first = False
            if c == "[" and self.peek(1) == ":":
                m = regex.match(r"\[:(\^?)([a-z]+):\]", self.p[self.i:])
                if m:
                    self.i += m.end()
                    items.extend(self._posix(m.group(2), bool(m.group(1)), start))
                    continue
            if c == "[" and nested_ok:
                items.append(self.char_class(flags))
                continue
            if nested_ok and self.p.startswith("&&", self.i):
                self.i += 2
                rest_start = self.i
                rest = self._class_rest(flags, rest_start)
                ands.append(rest)
                break
            if nested_ok and self.p[self.i:self.i + 2] == "--" and self.d != "oniguruma":
                self.i += 2
                rest = self._class_rest(flags, self.i)
                ands.append(Cls(rest.items, True, rest.ands) if not rest.neg else
                            Cls((rest,), True))
                break
            if nested_ok and self.d != "oniguruma" and self.p[self.i:self.i + 2] in ("~~", "||"):
                raise self.fail(f"the class operator {self.p[self.i:self.i + 2]!r}")
            if flags.x and self.d == "fancy" and c in " \t\n\r\f\v":
                self.i += 1
                continue
            lo = self._class_char(flags)
            if isinstance(lo, Range) and lo.lo == lo.hi and self.peek() == "-" and \
                    self.peek(1) not in ("]", ""):
                save = self.i
                self.i += 1
                if self.peek() == "[" and nested_ok:
                    self.i = save
                    items.append(lo)
                    continue
                hi = self._class_char(flags)
                if not (isinstance(hi, Range) and hi.lo == hi.hi):
                    raise self.fail("a range whose end is a class", save)
                if hi.lo < lo.lo:
                    raise self.fail("a range whose end comes before its start", save, malformed=True)
                items.append(Range(lo.lo, hi.lo))
                continue
            items.append(lo)
        if not items and not ands:
            raise self.fail("an empty class", start, malformed=True)
        if flags.i and self.d == "oniguruma" and _nested_negation(items, ands):
            raise self.fail("a case-insensitive class with a negated class inside "
                            "(Oniguruma folds its complement: (?i)[[^b]] matches b)", start)
        if any(isinstance(x, Cls) and x.ci for x in items):
            items = [Cls(x.items, x.neg, x.ands) if isinstance(x, Cls) else x for x in items]
        return Cls(tuple(items), neg, tuple(ands), flags.i)

    def _class_rest(self, flags: _Flags, start: int) -> Cls:
        """After '&&': the items to the closing ']' (which it eats), as a class."""
        items: list = []
        ands: list[Cls] = []
        while True:
            c = self.peek()
            if not c:
                raise self.fail("an unclosed '['", start, malformed=True)
            if c == "]":
                self.i += 1
                break
            if c == "[" and self.peek(1) == ":":
                m = regex.match(r"\[:(\^?)([a-z]+):\]", self.p[self.i:])
                if m:
                    self.i += m.end()
                    items.extend(self._posix(m.group(2), bool(m.group(1)), start))
                    continue
            if c == "[":
                items.append(self.char_class(flags))
                continue
            if self.p.startswith("&&", self.i):
                self.i += 2
                ands.append(self._class_rest(flags, self.i))
                break
            lo = self._class_char(flags)
            if isinstance(lo, Range) and self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.i += 1
                hi = self._class_char(flags)
                items.append(Range(lo.lo, hi.lo))
                continue
            items.append(lo)
        if not items:
            raise self.fail("an empty operand of '&&'", start, malformed=True)
        return Cls(tuple(items), False, tuple(ands))

    def _class_char(self, flags: _Flags):
        c = self.peek()
        if c == "\\":
            item = self.escape(flags, in_class=True)
            if isinstance(item, (Anchor, Backref, Lit)):
                raise self.fail("this escape inside a class")
            if isinstance(item, Cls) and not item.neg and not item.ands and len(item.items) == 1:
                return item.items[0]
            return item
        self.i += 1
        return Range(ord(c), ord(c))

    def _posix(self, name: str, neg: bool, start: int) -> tuple:
        body: tuple
        if self.d == "fancy":
            if name not in _ASCII_POSIX:
                raise self.fail(f"the class [:{name}:]", start)
            body = _ASCII_POSIX[name]
        elif self.d == "oniguruma":
            if name not in _ONIG_POSIX:
                raise self.fail(f"the class [:{name}:] (Oniguruma reads it in a way not "
                                "reproduced here)", start)
            body = _ONIG_POSIX[name]
        else:
            if name not in _REGEX_POSIX:
                raise self.fail(f"the class [:{name}:]", start)
            body = (Named("posix_" + name),)
        if not neg:
            return body
        return (Cls(tuple(body), neg=True),)


def _nested_negation(items, ands) -> bool:
    """Whether a class holds a negated class (or negated property) below its top."""
    for x in list(items) + [a for a in ands]:
        if isinstance(x, Cls):
            if x.neg or _nested_negation(x.items, x.ands):
                return True
    return any(a.neg for a in ands)


def parse(pattern: str, dialect: str) -> Node:
    """The meaning of a pattern as ``dialect`` reads it. Raises DialectError."""
    return normalize(_Parser(pattern, dialect).parse())


# ----- normal form (so that two spellings of one meaning compare equal) ------------------------
def normalize(node: Node) -> Node:
    return _norm(node, last=True)


def _holds_newline(node: Node) -> bool:
    if isinstance(node, Cls):
        return _class_has(node, 10)
    return isinstance(node, Lit) and node.cp == 10


def _norm(node: Node, last: bool) -> Node:
    if isinstance(node, Alt):
        return Alt(tuple(_norm(b, last) for b in node.branches))
    if isinstance(node, Seq):
        items = [_norm(x, last and k == len(node.items) - 1) for k, x in enumerate(node.items)]
        for k in range(1, len(items)):
            prev, cur = items[k - 1], items[k]
            # an end anchor right after a possessive run that takes newlines: the next
            # character (if any) is no newline, so "end", "before a final newline" and
            # "end of line" all mean the end of the text
            if isinstance(cur, Anchor) and cur.kind in ("z", "Z", "Zn", "eol") and \
                    isinstance(prev, Rep) and prev.mode == "poss" and prev.hi == INF and \
                    _holds_newline(prev.child):
                items[k] = Anchor("z")
        return Seq(tuple(items)) if len(items) != 1 else items[0]
    if isinstance(node, Rep):
        child = _norm(node.child, False)
        if _zero_width(child):
            # a repeated assertion asserts once (Oniguruma refuses the repetition): at
            # least once is the assertion, possibly none is nothing
            return child if node.lo > 0 else Seq(())
        mode = node.mode
        if mode == "lazy" and node.lo == node.hi:
            mode = "greedy"
        if mode == "poss" and last and _simple(child):
            mode = "greedy"   # nothing after it can fail: giving back is never tried
        return Rep(child, node.lo, node.hi, mode)
    if isinstance(node, Group):
        child = _norm(node.child, last and node.kind in ("cap", "nocap", "atomic"))
        if node.kind == "nocap" and not isinstance(child, Alt):
            return child
        return Group(node.kind, child, node.name)
    if isinstance(node, Cls):
        return _norm_cls(node)
    return node


def _norm_cls(c: Cls) -> Cls:
    """Nested classes in one form: [[x]] is [x] (with the outer case flag)."""
    items = tuple(_norm_cls(x) if isinstance(x, Cls) else x for x in c.items)
    ands = tuple(_norm_cls(a) for a in c.ands)
    if not c.neg and not ands and len(items) == 1 and isinstance(items[0], Cls):
        inner = items[0]
        return Cls(inner.items, inner.neg, inner.ands, c.ci)
    return Cls(items, c.neg, ands, c.ci)


def matches_empty(pattern: str, dialect: str = "regex") -> bool:
    """Whether a pattern can match empty text somewhere. The libraries iterate such
    matches otherwise than `regex` (after an empty match Oniguruma and fancy-regex move
    on a character, `regex` looks for a longer match at the same place), so exports
    refuse them. Example: r'\\A|\\w+' -> True; r'\\w+|\\s' -> False."""
    return _nullable(parse(pattern, dialect))


def _nullable(n: Node) -> bool:
    if isinstance(n, (Lit, Cls, Dot, Backref)):
        return isinstance(n, Backref)
    if isinstance(n, Anchor):
        return True
    if isinstance(n, Group):
        return n.kind in ("la", "nla", "lb", "nlb") or _nullable(n.child)
    if isinstance(n, Rep):
        return n.lo == 0 or _nullable(n.child)
    if isinstance(n, Seq):
        return all(_nullable(x) for x in n.items)
    if isinstance(n, Alt):
        return any(_nullable(x) for x in n.branches)
    return True


def _zero_width(node: Node) -> bool:
    """A node that never consumes text (assertions, and groups of them)."""
    if isinstance(node, Anchor):
        return True
    if isinstance(node, Group):
        return node.kind in ("la", "nla", "lb", "nlb") or _zero_width(node.child)
    if isinstance(node, Seq):
        return all(_zero_width(x) for x in node.items)
    if isinstance(node, Alt):
        return all(_zero_width(x) for x in node.branches)
    return False


def _simple(node: Node) -> bool:
    """A node whose every match is one fixed-shape run: no inner choice to give back."""
    return isinstance(node, (Lit, Cls, Dot))


def _class_has(node: Cls, cp: int) -> bool:
    """Whether a class holds a code point (as the installed regex reads it)."""
    w = _Writer("regex", None)
    text = w.cls(node, top=True)
    return regex.fullmatch(("(?V1)" if w.v1 else "") + text, chr(cp)) is not None


# ----- writing -------------------------------------------------------------------------------
def translate(pattern: str, source: str, target: str, widen: Classes | None = None) -> str:
    """``pattern`` as ``source`` reads it, written for ``target``; the pattern itself when
    both read it alike. Raises DialectError for a part either cannot hold.

    ``widen`` (an export of a pattern whose classes are the installed regex's): the
    target library's Unicode tables; each class that means something else there gets
    the code points it lacks (``[\\p{L}\\x{88F}...]``) or has too many
    (``&&[^...]``) written out, so the file means exactly our classes in that library
    (and in its later releases, whose classes only grow toward ours). :func:`unwiden`
    reads such a pattern back.

    Example: ``translate(r"\\s+$", "oniguruma", "regex")`` -> ``'\\\\s+(?m:$)'``.
    """
    return _translate(pattern, source, target, widen)


@lru_cache(maxsize=512)
def _translate(pattern: str, source: str, target: str, widen: Classes | None = None) -> str:
    tree = parse(pattern, source)
    if (source == "oniguruma") != (target == "oniguruma"):
        _check_folds(tree)   # Oniguruma folds case by several characters too
    if widen is not None:
        w = _Writer(target, None, widen)
        out = w.node(tree, ci=False, last=True)
        if w.widened:
            return ("(?V1)" if w.v1 else "") + out
    if source == target:
        return pattern
    try:
        if parse(pattern, target) == tree:
            return pattern
    except DialectError:
        pass
    if target == "regex":
        known = _known_spellings().get(tree)
        if known is not None:
            return known   # a published pattern's own text (the scanner knows it)
    w = _Writer(target, None)
    out = w.node(tree, ci=False, last=True)
    if w.v1:
        out = "(?V1)" + out
    # a check of this module (its tests check the composite classes and word boundaries,
    # which read back as other trees, against the libraries)
    if not w.composite and parse(out, target) != tree:
        raise DialectError(f"{pattern!r} cannot be written for {target} with the same "
                           "meaning (a check of the translation failed)")
    return out


@lru_cache(maxsize=1)
def _known_spellings() -> dict:
    """The meaning of each preset and published pattern -> its text."""
    from .presets import KIND_PATTERNS, MINBPE_GPT4_PATTERN, PRESETS
    out: dict = {}
    for p in [*PRESETS.values(), *KIND_PATTERNS.values(), MINBPE_GPT4_PATTERN]:
        out.setdefault(parse(p, "regex"), p)
    return out


class _Writer:
    """Writes a tree in a dialect's syntax. ``pin`` (regex only): write each class as
    what it is in that Unicode version (then ``v1`` is set where version-1 set syntax
    was needed: the caller adds ``(?V1)``)."""

    def __init__(self, dialect: str, pin: Classes | None, widen: Classes | None = None):
        self.d = dialect
        self.pin = pin
        self.widen = widen
        self.widened = False     # a class was written out for widen's version
        self.v1 = False
        self.composite = False   # a class or \b written as set operations or lookarounds

    def node(self, n: Node, ci: bool, last: bool = False) -> str:
        want = _uniform_ci(n)
        if want is not None and want != ci:
            flag = "i" if want else "-i"
            if isinstance(n, Group) and n.kind == "nocap":
                return f"(?{flag}:{self.node(n.child, want, last)})"
            return f"(?{flag}:{self.node(n, want, last)})"
        if isinstance(n, Alt):
            return "|".join(self.node(b, ci, last) for b in n.branches)
        if isinstance(n, Seq):
            out = []
            for k, x in enumerate(n.items):
                text = self.node(x, ci, last and k == len(n.items) - 1)
                out.append(f"(?:{text})" if isinstance(x, Alt) else text)
            return "".join(out)
        if isinstance(n, Lit):
            return self.lit(n.cp)
        if isinstance(n, Cls):
            return self.cls(n, top=True)
        if isinstance(n, Dot):
            if not n.dotall:
                return "."
            return "(?m:.)" if self.d == "oniguruma" else "(?s:.)"
        if isinstance(n, Anchor):
            return self.anchor(n)
        if isinstance(n, Group):
            inner = self.node(n.child, ci, last and n.kind in ("cap", "nocap"))
            if n.kind == "cap":
                if not n.name:
                    return f"({inner})"
                return f"(?P<{n.name}>{inner})" if self.d == "regex" else f"(?<{n.name}>{inner})"
            head = {"nocap": "?:", "atomic": "?>", "la": "?=", "nla": "?!", "lb": "?<=",
                    "nlb": "?<!"}[n.kind]
            return f"({head}{inner})"
        if isinstance(n, Rep):
            return self.rep(n, ci, last)
        if isinstance(n, Backref):
            if isinstance(n.ref, int):
                return f"\\{n.ref}"
            return f"(?P={n.ref})" if self.d == "regex" else f"\\k<{n.ref}>"
        raise TypeError(n)

    def rep(self, n: Rep, ci: bool, last: bool) -> str:
        child = self.node(n.child, ci)
        if not _single(n.child) or (isinstance(n.child, Cls) and child.startswith("(")):
            child = f"(?:{child})"
        lo, hi = n.lo, n.hi
        if (lo, hi) == (0, 1):
            q = "?"
        elif (lo, hi) == (0, INF):
            q = "*"
        elif (lo, hi) == (1, INF):
            q = "+"
        elif hi == INF:
            q = f"{{{lo},}}"
        elif lo == hi:
            q = f"{{{lo}}}"
        else:
            q = f"{{{lo},{hi}}}"
        interval = q.startswith("{")
        if n.mode == "lazy":
            if self.d == "oniguruma" and interval and lo == hi:
                return child + q     # X{n}? is "X{n}, optional" there; lazy X{n} is X{n}
            return child + q + "?"
        if n.mode == "poss":
            if self.d == "oniguruma" and interval:   # X{n,m}+ repeats there
                if last and _simple(n.child):
                    return child + q   # nothing after it can fail: no giving back
                return f"(?>{child}{q})"
            return child + q + "+"
        return child + q

    def anchor(self, n: Anchor) -> str:
        d, k = self.d, n.kind
        if k == "A":
            return r"\A"
        if k == "G":
            return r"\G"
        if k == "z":
            return r"\Z" if d == "regex" else r"\z"
        if k == "Z":
            if d == "fancy":   # (its \Z also skips several newlines)
                self.composite = True
                return r"(?=\n?\z)"
            return "$" if d == "regex" else r"\Z"
        if k == "Zn":
            if d == "fancy":
                return r"\Z"
            self.composite = True
            return r"(?=\n*\Z)" if d == "regex" else r"(?=\n*\z)"
        if k == "bol":
            if d == "oniguruma":
                self.composite = True
                return r"(?:\A|(?<=\n))"
            return "(?m:^)"
        if k == "onig_bol":
            if d == "oniguruma":
                return "^"
            self.composite = True
            return r"(?:\A|(?<=\n)(?=[\s\S]))"
        if k == "eol":
            return "$" if d == "oniguruma" else "(?m:$)"
        native = "onig_word" if d == "oniguruma" else "word"
        if n.word == native and self.pin is None:
            return "\\" + k
        self.composite = True
        w = self.cls(Cls((Named(n.word),)), top=False)
        if k == "b":
            return f"(?:(?<={w})(?!{w})|(?<!{w})(?={w}))"
        return f"(?:(?<={w})(?={w})|(?<!{w})(?!{w}))"

    # -- characters and classes
    def lit(self, cp: int) -> str:
        c = chr(cp)
        if c in _META:
            return "\\" + c
        return self.char(cp, in_class=False)

    def char(self, cp: int, in_class: bool) -> str:
        c = chr(cp)
        if cp in _NAMED_CTRL:
            return _NAMED_CTRL[cp]
        if 0x20 < cp < 0x7F:
            return "\\" + c if in_class and not c.isalnum() else c
        if cp == 0x20:
            return "\\ " if in_class else " "
        if cp > 0xFF and unicodedata.category(c)[0] not in "MCZ":
            return c
        if self.d == "regex":
            return f"\\x{cp:02x}" if cp <= 0xFF else f"\\u{cp:04x}" if cp <= 0xFFFF else \
                f"\\U{cp:08x}"
        return f"\\x{{{cp:X}}}"

    def cls(self, n: Cls, top: bool) -> str:
        """A class: as a shorthand (\\p{L}, \\s) when it is one such item, else [...]."""
        if self.widen is not None:
            extra = self._widening(n)
            if extra is not None:
                return extra
        if top and not n.neg and not n.ands and len(n.items) == 1 and \
                not isinstance(n.items[0], Cls):
            x = n.items[0]
            if isinstance(x, Range) and x.lo == x.hi:
                return self.lit(x.lo)
            if not isinstance(x, Range):
                return self.atom(x)
        body = "".join(self.item(x) for x in n.items)
        for a in n.ands:   # an operand: its items as they are, or a negated set
            body += "&&" + (self.cls(a, top=False) if a.neg or a.ands else
                             "".join(self.item(x) for x in a.items))
            if self.d == "regex":
                self.v1 = True
        return "[" + ("^" if n.neg else "") + body + "]"

    def _widening(self, n: Cls) -> str | None:
        """The class with what it lacks in widen's version added and what it has too
        much taken out (None if it means the same there)."""
        assert self.widen is not None
        body = Cls(n.items, False, n.ands)
        ours = class_mask(body, None)
        theirs = class_mask(body, self.widen.version)
        add, rem = ours & ~theirs, theirs & ~ours
        if not add and not rem:
            return None
        self.widened = True
        saved, self.widen = self.widen, None   # the body itself as it is
        inner = "".join(self.item(x) for x in n.items)
        for a in n.ands:
            inner += "&&" + (self.cls(a, top=False) if a.neg or a.ands else
                             "".join(self.item(x) for x in a.items))
        self.widen = saved
        if n.ands:
            inner = f"[{inner}]"
        inner += _ranges_text(_mask_points(add), self)
        if rem:
            inner = f"[{inner}]&&[^{_ranges_text(_mask_points(rem), self)}]"
            if self.d == "regex":
                self.v1 = True
        return "[" + ("^" if n.neg else "") + inner + "]"

    def item(self, x) -> str:
        if isinstance(x, Range):
            a = self.char(x.lo, True)
            return a if x.lo == x.hi else f"{a}-{self.char(x.hi, True)}"
        if isinstance(x, Cls):
            if self.d == "regex":
                self.v1 = True
            return self.cls(x, top=False)
        text = self.atom(x)
        if text.startswith("[") and self.d == "regex":
            self.v1 = True   # a nested set
        return text

    def atom(self, x) -> str:
        """\\p{..}, \\s, \\w... as the dialect writes it; pinned: that version's class."""
        base = self._atom_text(x)
        if self.pin is None or self.d != "regex" or isinstance(x, Range):
            return base
        if isinstance(x, Gc):
            rem, add = class_delta(_gc_text(x.cats), x.cats, self.pin.version)
        else:
            rem, add = class_delta(_atom_text_regex(replace(x, neg=False)), None,
                                   self.pin.version)
        if x.neg:
            rem, add = add, rem
        if not rem and not add:
            return base
        self.v1 = True
        out = base
        if rem:
            out = f"[{out}--[{_ranges_text(rem, self)}]]"
        if add:
            out = f"[{out}{_ranges_text(add, self)}]"
        return out

    def _atom_text(self, x) -> str:
        d = self.d
        if isinstance(x, Gc):
            if len(x.cats) == 1:
                return f"\\{'P' if x.neg else 'p'}{{{x.cats[0]}}}"
            inner = "".join(f"\\p{{{c}}}" for c in x.cats)
            return f"[^{inner}]" if x.neg else f"[{inner}]"
        if isinstance(x, Prop):
            return f"\\{'P' if x.neg else 'p'}{{{x.name}}}"
        if d == "regex":
            text = _atom_text_regex(x)
            if "--" in text:
                self.v1 = self.composite = True
            return text
        k, neg = x.kind, x.neg
        if k not in ("space", "onig_word" if d == "oniguruma" else "word"):
            self.composite = True
        if k == "space":
            return r"\S" if neg else r"\s"
        if k == ("onig_word" if d == "oniguruma" else "word"):
            return r"\W" if neg else r"\w"
        if k == "word":   # regex's \w in Oniguruma: with Join_Control, without ² ³ ¹ ¼ ½ ¾
            inner = r"[\w\x{200C}\x{200D}]&&[^\x{B2}\x{B3}\x{B9}\x{BC}-\x{BE}]"
            return f"[^{inner}]" if neg else f"[{inner}]"
        if k == "onig_posix_word" and d == "oniguruma":
            return "[[:^word:]]" if neg else "[[:word:]]"
        if k == "onig_posix_word":   # fancy-regex: \w without Join_Control
            inner = r"\w&&[^\x{200C}\x{200D}]"
            return f"[^{inner}]" if neg else f"[{inner}]"
        if k == "onig_word":         # fancy-regex: that plus ² ³ ¹ ¼ ½ ¾
            inner = r"[\w&&[^\x{200C}\x{200D}]]\x{B2}\x{B3}\x{B9}\x{BC}-\x{BE}"
            return f"[^{inner}]" if neg else f"[{inner}]"
        name = k[len("posix_"):]
        if d == "oniguruma" and name in ("alpha", "upper", "graph", "print", "cntrl", "blank"):
            return f"[[:{'^' if neg else ''}{name}:]]"
        if d == "fancy" and name in ("alpha", "upper", "lower"):
            prop = {"alpha": "Alphabetic", "upper": "Uppercase", "lower": "Lowercase"}[name]
            return f"\\{'P' if neg else 'p'}{{{prop}}}"
        raise DialectError(f"the class [[:{name}:]] cannot be written for {d} with the same "
                           "meaning")


def _gc_text(cats: tuple[str, ...]) -> str:
    if len(cats) == 1:
        return f"\\p{{{cats[0]}}}"
    return "[" + "".join(f"\\p{{{c}}}" for c in cats) + "]"


def _atom_text_regex(x) -> str:
    """A Named or Prop atom as the regex module writes it."""
    if isinstance(x, Prop):
        return f"\\{'P' if x.neg else 'p'}{{{x.name}}}"
    k, neg = x.kind, x.neg
    if k == "space":
        return r"\S" if neg else r"\s"
    if k == "word":
        return r"\W" if neg else r"\w"
    if k == "onig_word":
        inner = r"[\w--[\u200c\u200d]]\xb2\xb3\xb9\xbc-\xbe"
        return f"[^{inner}]" if neg else f"[{inner}]"
    if k == "onig_posix_word":
        inner = r"\w--[\u200c\u200d]"
        return f"[^{inner}]" if neg else f"[{inner}]"
    return f"[[:{'^' if neg else ''}{k[len('posix_'):]}:]]"


# ----- what a class holds, as a bit set (one byte per code point: 0 or 1) ------------------------
def _int_mask(m: bytes) -> int:
    return int.from_bytes(m, "little")


@lru_cache(maxsize=1)
def _all_ones() -> int:
    m = bytearray(b"\x01" * 0x110000)
    m[0xD800:0xE000] = bytes(0x800)
    return int.from_bytes(m, "little")


def _mask_points(x: int) -> frozenset[int]:
    from .unicode_versions import _ones
    return _ones(x.to_bytes(0x110000, "little"))


@lru_cache(maxsize=1024)
def _atom_mask(x, version: str | None) -> int:
    """One class item's code points, as the installed regex reads it (``version`` None)
    or in that Unicode version (general categories exactly; other properties as regex
    has them, less what the version has not assigned)."""
    from .unicode_versions import mask, regex_mask
    if isinstance(x, Range):
        m = bytearray(0x110000)
        m[x.lo:x.hi + 1] = b"\x01" * (x.hi - x.lo + 1)
        return _int_mask(bytes(m)) & _all_ones()
    pos = replace(x, neg=False)
    if isinstance(x, Gc) and version is not None:
        out = _int_mask(mask(version, x.cats))
    else:
        text = _gc_text(x.cats) if isinstance(x, Gc) else _atom_text_regex(pos)
        out = _int_mask(regex_mask(text))
        if version is not None:
            out &= _all_ones() & ~_int_mask(mask(version, ("Cn",)))
    return _all_ones() & ~out if x.neg else out


def class_mask(c: Cls, version: str | None) -> int:
    """A class's code points (case-insensitivity aside) as a bit set, one byte each."""
    out = 0
    for x in c.items:
        out |= class_mask(x, version) if isinstance(x, Cls) else _atom_mask(x, version)
    for a in c.ands:
        out &= class_mask(a, version)
    return _all_ones() & ~out if c.neg else out


def unwiden(pattern: str, classes: Classes) -> tuple[str, Classes] | None:
    """A pattern (regex syntax, read with ``classes``' tables) whose classes carry the code
    points of a later Unicode version written out (an export of :func:`translate` with
    ``widen``), as the plain pattern with that version's tables: (pattern, classes), or
    None if it is not one. So an exported tokenizer reads back onto the native scanner.

    Example: ``unwiden('[\\p{L}\\u088f...]+', TOKENIZERS)`` -> ``('\\\\p{L}+', Classes(..., '17.0.0'))``.
    """
    from .unicode_versions import VERSIONS
    try:
        tree = parse(pattern, "regex")
    except DialectError:
        return None
    later = [v for v in VERSIONS if _version_key(v) > _version_key(classes.version)]
    # the plainest reading wins: a file widened to Unicode 18 also reads as a version-17
    # pattern with 17..18's code points still written out (the classes mean the same),
    # so the first version that fits is not enough
    found: list[tuple[str, Classes]] = []
    for v in later:
        changed = [False]

        def strip(c: Cls) -> Cls | None:
            core = c
            # [[body]&&[^code points]] (what the body had too much there): the body
            if len(c.ands) == 1 and c.ands[0].neg and not c.ands[0].ands and \
                    all(isinstance(x, Range) for x in c.ands[0].items):
                body = c.items[0] if len(c.items) == 1 and isinstance(c.items[0], Cls) \
                    and not c.items[0].neg else Cls(c.items)
                core = Cls(body.items, c.neg, body.ands, c.ci)
            # [body + code points] (what it lacked there): the body
            atoms = [x for x in core.items if not isinstance(x, (Range, Cls))]
            if atoms and any(isinstance(x, Range) and x.hi >= 0x80 for x in core.items):
                moved = 0
                for x in atoms:
                    pos = replace(x, neg=False)
                    moved |= _atom_mask(pos, v) ^ _atom_mask(pos, classes.version)
                keep = [x for x in core.items if not (
                    isinstance(x, Range) and x.hi >= 0x80 and _atom_mask(x, None) & ~moved == 0)]
                core = Cls(tuple(keep), core.neg, core.ands, core.ci)
            if core == c:
                return c
            if class_mask(core, v) != class_mask(c, classes.version):
                return None
            changed[0] = True
            return core

        out = _map_classes(tree, strip)
        if out is not None and changed[0]:
            w = _Writer("regex", None)
            text = w.node(out, ci=False, last=True)
            text = ("(?V1)" if w.v1 else "") + text
            known = _known_spellings().get(normalize(out))
            found.append((known or text, Classes(classes.library, v, classes.long_s)))
    return min(found, key=lambda f: len(f[0])) if found else None


@lru_cache(maxsize=256)
def file_pattern(text: str, classes: Classes) -> tuple[str, Classes]:
    """A pattern read from a file (already in regex syntax) and its classes, as this app
    runs it: bpe-gui's own exports of a later version's classes (:func:`unwiden`) become
    the published pattern they are, with that version's tables, when it is one (worked
    out once a pattern: unwiden takes ~60 ms, each load of a tokenizer.json asks thrice)."""
    if scanner_kind(text) is not None or text in _known_spellings().values():
        return text, classes
    plain = unwiden(text, classes)
    if plain is not None and (scanner_kind(plain[0]) is not None or
                              plain[0] in _known_spellings().values()):
        return plain
    return text, classes


@overload
def read_pattern(text: str, dialect: str, classes: Classes) -> tuple[str, Classes]: ...
@overload
def read_pattern(text: str, dialect: str, classes: None) -> tuple[str, None]: ...
@overload
def read_pattern(text: str, dialect: str,
                 classes: Classes | None) -> tuple[str, Classes | None]: ...


def read_pattern(text: str, dialect: str,
                 classes: Classes | None) -> tuple[str, Classes | None]:
    """A pattern as a file holds it (``dialect``: "oniguruma" for tokenizer.json,
    "fancy" for tiktoken's pat_str) -> the pattern in ``regex`` syntax with the same
    meaning, and the Unicode tables to run it with (:func:`file_pattern`: our own exports'
    written-out classes read back). Every reader of a pattern from a file goes through
    here. Raises DialectError for a part the ``regex`` module cannot hold."""
    ours = translate(text, dialect, "regex")
    return (ours, None) if classes is None else file_pattern(ours, classes)


def _version_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def _map_classes(n: Node, f) -> Node | None:
    """The tree with f applied to each outermost class (None if f refuses one)."""
    if isinstance(n, Cls):
        return f(n)
    if isinstance(n, Seq):
        items = [_map_classes(x, f) for x in n.items]
        return None if any(x is None for x in items) else Seq(tuple(items))
    if isinstance(n, Alt):
        bs = [_map_classes(x, f) for x in n.branches]
        return None if any(x is None for x in bs) else Alt(tuple(bs))
    if isinstance(n, (Group, Rep)):
        child = _map_classes(n.child, f)
        return None if child is None else replace(n, child=child)
    return n


@lru_cache(maxsize=1)
def _composites() -> tuple[tuple[str, Named], ...]:
    """The regex texts (version 1) of the Named kinds written as set operations."""
    out = []
    for kind in ("onig_word", "onig_posix_word"):
        for neg in (False, True):
            out.append((_atom_text_regex(Named(kind, neg)), Named(kind, neg)))
    return tuple(sorted(out, key=lambda x: -len(x[0])))


def _ranges_text(cps: frozenset[int], w: _Writer) -> str:
    out = []
    xs = sorted(cps)
    k = 0
    while k < len(xs):
        j = k
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        a = w.char(xs[k], True)
        out.append(a if j == k else f"{a}-{w.char(xs[j], True)}")
        k = j + 1
    return "".join(out)


_NAMED_CTRL = {9: r"\t", 10: r"\n", 13: r"\r", 12: r"\f", 11: r"\v"}


@lru_cache(maxsize=1)
def _multi_folds() -> tuple[str, ...]:
    """The full case foldings that are several characters ('ss' of ß, 'st' of ﬅ...).

    Casefolding never shortens a character, so a block of 4096 code points whose folding
    is as long as itself holds none; only the few blocks that do are read one character
    at a time. The blocks are slices of one string of every code point (its lone
    surrogates fold to themselves): 15 ms of every tokenizer.json's first load (was 35
    with a block made per slice, 0.2-0.5 s one character at a time)."""
    from .unicode_classes import all_code_points
    every = all_code_points()
    out: set[str] = set()
    for lo in range(0, len(every), 4096):
        block = every[lo:lo + 4096]
        if len(block.casefold()) != len(block):
            out.update(f for f in map(str.casefold, block) if len(f) > 1)
    return tuple(sorted(out))


def _check_folds(n: Node) -> None:
    """Oniguruma folds case with multi-character foldings too (``(?i:ss)`` matches ß,
    ``(?i:ß)`` matches 'ss'), the regex module (scoped) and fancy-regex one character
    at a time: a case-insensitive part where that matters cannot be carried over."""
    for run in _ci_runs(n):
        for c in run:
            if len(c.casefold()) > 1:
                raise DialectError(f"the case-insensitive {run!r} holds {c!r}, which "
                                   "Oniguruma also matches as several characters")
        folded = run.casefold()
        for seq in _multi_folds():
            if seq in folded:
                raise DialectError(f"the case-insensitive {run!r} holds {seq!r}, which "
                                   "Oniguruma also matches as one character")


def _single(n: Node) -> bool:
    return isinstance(n, (Lit, Cls, Dot, Group, Backref))


def _uniform_ci(n: Node) -> bool | None:
    """True/False when every case-sensitive leaf under n agrees; None if mixed or none."""
    seen: set[bool] = set()
    _ci_leaves(n, seen)
    return seen.pop() if len(seen) == 1 else None


def _ci_leaves(n: Node, seen: set) -> None:
    if isinstance(n, (Lit, Backref)):
        seen.add(n.ci)
    elif isinstance(n, Cls):
        seen.add(n.ci)
    elif isinstance(n, (Seq,)):
        for x in n.items:
            _ci_leaves(x, seen)
    elif isinstance(n, Alt):
        for x in n.branches:
            _ci_leaves(x, seen)
    elif isinstance(n, (Group, Rep)):
        _ci_leaves(n.child, seen)


def _ci_runs(n: Node) -> list[str]:
    """The runs of case-insensitive literals in a tree (for the multi-fold check)."""
    out: list[str] = []
    if isinstance(n, Seq):
        run = ""
        for x in n.items:
            if isinstance(x, Lit) and x.ci:
                run += chr(x.cp)
                continue
            if run:
                out.append(run)
            run = ""
            out += _ci_runs(x)
        if run:
            out.append(run)
    elif isinstance(n, Alt):
        for b in n.branches:
            out += _ci_runs(b)
    elif isinstance(n, (Group, Rep)):
        out += _ci_runs(n.child)
    elif isinstance(n, Lit) and n.ci:
        out.append(chr(n.cp))
    elif isinstance(n, Cls) and n.ci:
        out += [chr(r.lo) for r in n.items if isinstance(r, Range) and r.lo == r.hi]
    return out


# ----- pinning a pattern to a Unicode version ----------------------------------------------------
@dataclass
class PinnedPattern:
    """A pattern whose classes mean those of a Unicode version: ``regex``-like
    ``finditer``/``findall``/``sub``/``search``/``match`` (with ``timeout``) that run the
    plain pattern on ASCII text and the pinned one on the rest."""
    pattern: str
    plain: "regex.Pattern[str]"
    wide: "regex.Pattern[str]"
    classes: Classes | None = None
    groups: int = field(init=False)

    def __post_init__(self) -> None:
        self.groups = self.plain.groups

    def _for(self, text: str) -> "regex.Pattern[str]":
        return self.plain if text.isascii() else self.wide

    def finditer(self, text: str, *a, **kw):
        return self._for(text).finditer(text, *a, **kw)

    def findall(self, text: str, *a, **kw):
        return self._for(text).findall(text, *a, **kw)

    def sub(self, repl, text: str, *a, **kw):
        return self._for(text).sub(repl, text, *a, **kw)

    def search(self, text: str, *a, **kw):
        return self._for(text).search(text, *a, **kw)

    def match(self, text: str, *a, **kw):
        return self._for(text).match(text, *a, **kw)

    def fullmatch(self, text: str, *a, **kw):
        return self._for(text).fullmatch(text, *a, **kw)


@lru_cache(maxsize=256)
def pinned(pattern: str, classes: Classes | None) -> "regex.Pattern[str] | PinnedPattern":
    """``pattern`` (regex syntax) compiled with the classes of ``classes``' Unicode
    version (None: the installed regex's, i.e. ``regex.compile``). Raises regex.error
    or DialectError for a pattern that does not compile."""
    plain = regex.compile(pattern)
    if classes is None:
        return plain
    text = pinned_text(pattern, classes)
    if text == pattern:
        return plain
    return PinnedPattern(pattern, plain, regex.compile(text), classes)


@lru_cache(maxsize=256)
def pinned_text(pattern: str, classes: Classes) -> str:
    """The pattern with its classes written out for ``classes``' Unicode version (the
    pattern itself when no class differs there)."""
    tree = parse(pattern, "regex")
    w = _Writer("regex", classes)
    out = w.node(tree, ci=False, last=True)
    return "(?V1)" + out if w.v1 else pattern
