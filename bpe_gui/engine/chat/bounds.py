"""The memory a template's render may take, counted as it goes (sandbox.py calls these).

A template is untrusted code, and a time limit cannot stop one long C call: ``'%2000000000d'
% 1`` or ``tojson(indent=10**9)`` asks for gigabytes in one step. So every operation that
can make a value bigger than its inputs is checked *before* it runs, from its inputs'
sizes: the operators (``*``, ``**``, ``%``, ``+``, ``~``), every filter and every call
(``str`` methods by what each does with its arguments: widths, ``replace``, ``join`` ...),
and what a ``{{ }}`` prints. A value's size (:meth:`Budget.size`) is its characters, and a
container's the characters its text would take, each shared part counted where it is
repeated (a list holding one 4 MB string 1,000 times prints 4 GB). Nothing bigger than
``MAX_CHARS`` is made or printed, and the bytes of all that a render makes add up to at
most ``MAX_BYTES``, so what it holds at once is bounded too; the output is counted as it
grows. A refusal is a ``SecurityError`` the sandbox turns into one line.
"""
from __future__ import annotations

import re
import sys
from itertools import chain
from typing import Any, Callable, Iterable, Iterator

MAX_CHARS = 1 << 22          # a value made or printed, in characters (the prompt too)
MAX_ITEMS = 1 << 22          # items a `*` may build
MAX_BYTES = 256 << 20        # everything one render makes, added up (sys.getsizeof)
MAX_WIDTH = 1 << 16          # a width, a precision, an indent: more is never a prompt's
MAX_WRAP = 1 << 18           # characters wordwrap takes (its time is beyond the time limit)
_END = object()
_WIDTH = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d*)(?:\.(\*|\d*))?")
_DIGITS = re.compile(r"\d+")


class TooBig(Exception):
    """A refusal: what was asked and why it is not made (the sandbox names the line)."""


def _str_size(s: str, inside: bool) -> int:
    """A string's characters; inside a container, what its repr takes at most (quotes,
    and escapes when it holds characters repr escapes)."""
    if not inside:
        return len(s)
    return 2 * len(s) + 2 if s.isprintable() else 10 * len(s) + 2


class Budget:
    """What one render has made; :meth:`reset` before each render."""

    def __init__(self) -> None:
        self.reset()

    def reset(self, inputs: Any = None) -> None:
        """A new render of ``inputs`` (its variables): what it may make is MAX_CHARS and
        MAX_BYTES beyond what its inputs print as, so a long message renders and a
        template's own growth is held (a 10 MB message may be trimmed and printed)."""
        self.made, self.limit, self.max_bytes = 0, MAX_CHARS, MAX_BYTES
        self._sizes: dict[int, tuple[Any, int]] = {}   # id -> (the value kept alive, size)
        if inputs:
            extra = self.size(inputs, sys.maxsize)
            self.limit += extra
            self.max_bytes += 16 * extra   # (4 bytes a character, a few copies)

    # ----- sizes --------------------------------------------------------------------------
    def size(self, value: Any, limit: int | None = None, indent: int = 0) -> int:
        """The characters ``value`` prints as (a container: its repr, or its JSON with
        ``indent`` characters per level), or ``limit + 1`` once it passes ``limit``.
        A container sized before in this render is looked up, not walked again (a
        namespace, which a template may change, is always walked). Every item prints at
        least 3 characters (itself and ", "), counted as soon as its container is seen,
        so a walk stops as soon as the size is known to pass ``limit``; what an item
        prints beyond that is added when it is reached."""
        if isinstance(value, (str, bytes)):
            return len(value)
        limit = self.limit if limit is None else limit
        memo = not indent
        got = self._known(value) if memo else None
        if got is not None:
            return min(got, limit + 1)
        total, mutable = 0, False
        stack: list[tuple[Iterator[Any], int]] = [(iter((value,)), 0)]
        while stack and total <= limit:
            items, depth = stack[-1]
            v = next(items, _END)
            if v is _END:
                stack.pop()
                continue
            # (each item's first character and its ", " were counted with its container)
            if isinstance(v, str):
                total += _str_size(v, True) - 1
            elif isinstance(v, (bytes, bytearray)):
                total += 4 * len(v) + 2
            elif isinstance(v, (bool, int, float)) or v is None:
                total += 23 if isinstance(v, float) else \
                    v.bit_length() // 3 + 1 if isinstance(v, int) and not isinstance(v, bool) \
                    else 4
            elif memo and v is not value and (got := self._known(v)) is not None:
                total += got - 3
            else:
                held, n, changes = _items(v)
                mutable = mutable or changes
                if held is None:
                    total += 29
                else:
                    pad = indent * (depth + 1) + 1 if indent else 0
                    total += 1 + (3 + pad) * n + (indent * depth + 1 if indent else 0)
                    stack.append((iter(held), depth + 1))
        total += 3   # (the value itself was counted as an item)
        if total > limit:
            total = limit + 1
        if memo and not mutable and (total <= limit or limit >= self.limit) \
                and _items(value)[0] is not None:
            self._sizes[id(value)] = (value, total)
        return total

    def _known(self, v: Any) -> int | None:
        got = self._sizes.get(id(v))
        return got[1] if got is not None and got[0] is v else None

    # ----- checks ---------------------------------------------------------------------------
    def check(self, value: Any, what: str) -> None:
        """Refuse ``value`` as an input of an operation when it prints bigger than self.limit."""
        if self.size(value) > self.limit:
            raise TooBig(f"{what} would be more than {self.limit:,} characters")

    def checked(self, values: Iterable[Any], what: str) -> None:
        for v in values:
            if not isinstance(v, (str, bytes, int, float, bool)) and v is not None:
                self.check(v, what)

    def add(self, result: Any, what: str) -> Any:
        """Count a result the render made; refuse it when too big, or when the render has
        made too much in all."""
        if isinstance(result, (str, bytes, list, tuple, dict)):
            if isinstance(result, (str, bytes)) and len(result) > self.limit:
                raise TooBig(f"{what} makes {len(result):,} characters, more than "
                             f"{self.limit:,}")
            self.made += sys.getsizeof(result)
            if self.made > self.max_bytes:
                raise TooBig(f"the template builds more than {self.max_bytes >> 20} MB of text "
                             "and lists in one render")
        return result

    def output(self, parts: Iterable[Any]) -> str:
        """The template's output joined, counted as it grows (jinja's ``concat``)."""
        out: list[str] = []
        n = 0
        for p in parts:
            n += len(p)
            if n > self.limit:
                raise TooBig(f"the template writes more than {self.limit:,} characters")
            out.append(p)
        return self.add("".join(out), "the output")


_EMPTY: dict[Any, Any] = {}
_KEYS, _VALUES, _PAIRS = type(_EMPTY.keys()), type(_EMPTY.values()), type(_EMPTY.items())


def _items(v: Any) -> tuple[Iterable | None, int, bool]:
    """(what a container holds, for its size, or None for what is not one; how many;
    whether the template may change it)."""
    if isinstance(v, dict):
        return chain.from_iterable(v.items()), 2 * len(v), False
    if isinstance(v, _PAIRS):
        return chain.from_iterable(v), 2 * len(v), False
    if isinstance(v, (list, tuple, set, frozenset, _KEYS, _VALUES)):
        return v, len(v), False
    try:   # (jinja's namespace(); never an attribute lookup, which Undefined answers)
        attrs = object.__getattribute__(v, "__dict__").get("_Namespace__attrs")
    except AttributeError:
        attrs = None
    if isinstance(attrs, dict):
        return chain.from_iterable(attrs.items()), 2 * len(attrs), True
    return None, 0, False


# ----- what each operation may make, from its inputs ---------------------------------------
def width(n: Any, what: str) -> None:
    if isinstance(n, int) and not isinstance(n, bool) and abs(n) > MAX_WIDTH:
        raise TooBig(f"{what} {n:,} is wider than {MAX_WIDTH:,}")


def _number(g: str, what: str) -> int:
    n = int(g) if len(g) < 12 else MAX_WIDTH + 1
    width(n, what)
    return n


def percent(budget: Budget, fmt: str, args: Any) -> None:
    """``fmt % args``: no width or precision over MAX_WIDTH, written or given by ``*``,
    and no more than budget.limit made by repeating the arguments."""
    specs = _WIDTH.findall(fmt)
    nums = [g for pair in specs for g in pair if g and g != "*"]
    widest = max((_number(g, "a % format's width") for g in nums), default=0)
    values = args if isinstance(args, tuple) else (args,)
    if any("*" in pair for pair in specs):
        for a in values:
            width(a, "a % format's * width")
            if isinstance(a, int):
                widest = max(widest, abs(a))
    _repeated(budget, fmt, len(specs),
              list(args.values()) if isinstance(args, dict) else values, widest)


def _repeated(budget: Budget, fmt: str, n: int, values: Iterable, widest: int) -> None:
    """A format of ``n`` fields, each at most the largest value or the widest width."""
    room = budget.limit - len(fmt)
    largest = widest
    for v in values if n else ():
        largest = max(largest, budget.size(v))
        if n * largest > room:
            raise TooBig(f"the format would make more than {budget.limit:,} characters")


def format_spec(budget: Budget, fmt: str, args: tuple, kwargs: dict) -> None:
    """``fmt.format(...)``: no width over MAX_WIDTH, written or nested (``{:{w}}``), and no
    more than budget.limit made by repeating the arguments."""
    import string
    try:
        fields = list(string.Formatter().parse(fmt))
    except ValueError:
        return   # (str.format refuses it itself)
    widest = 0
    for _, _, spec, _ in fields:
        if not spec:
            continue
        for d in _DIGITS.findall(spec):
            widest = max(widest, _number(d, "a format's width"))
        if "{" in spec:
            for a in (*args, *kwargs.values()):
                width(a, "a format's nested width")
                if isinstance(a, int):
                    widest = max(widest, abs(a))
    _repeated(budget, fmt, sum(1 for f in fields if f[1] is not None),
              [*args, *kwargs.values()], widest)


def _arg(args: tuple, kwargs: dict, k: int, name: str, default: Any = None) -> Any:
    return args[k] if len(args) > k else kwargs.get(name, default)


def str_method(budget: Budget, obj: Any, args: tuple, kwargs: dict) -> None:
    """A ``str`` (or ``bytes``) method about to run: refuse what would make too much."""
    s, name = obj.__self__, obj.__name__
    if name in ("center", "ljust", "rjust", "zfill"):
        width(_arg(args, kwargs, 0, "width"), f"{name}'s width")
    elif name == "expandtabs":
        tab = _arg(args, kwargs, 0, "tabsize", 8)
        width(tab, "expandtabs' tab size")
        if isinstance(tab, int) and len(s) + s.count("\t" if isinstance(s, str) else b"\t") \
                * max(tab, 0) > budget.limit:
            raise TooBig(f"expandtabs would make more than {budget.limit:,} characters")
    elif name == "replace":
        old, new = _arg(args, kwargs, 0, "old"), _arg(args, kwargs, 1, "new")
        if isinstance(old, type(s)) and isinstance(new, type(s)):
            hits = len(s) + 1 if not old else s.count(old)
            count = _arg(args, kwargs, 2, "count", -1)
            if isinstance(count, int) and count >= 0:
                hits = min(hits, count)
            if len(s) + hits * max(len(new) - len(old), 0) > budget.limit:
                raise TooBig(f"replace would make more than {budget.limit:,} characters")
    elif name == "join":
        items = _arg(args, kwargs, 0, "iterable")
        if isinstance(items, (list, tuple)):
            total = len(s) * len(items)
            for x in items:
                total += budget.size(x, budget.limit - total)
                if total > budget.limit:
                    raise TooBig(f"join would make more than {budget.limit:,} characters")
    elif name == "translate":
        table = _arg(args, kwargs, 0, "table")
        longest = max((len(v) for v in table.values() if isinstance(v, (str, bytes))),
                      default=1) if isinstance(table, dict) else 1
        if len(s) * longest > budget.limit:
            raise TooBig(f"translate would make more than {budget.limit:,} characters")


def filter_args(budget: Budget, name: str, args: tuple, kwargs: dict) -> None:
    """A filter about to run (``args[0]`` its value): refuse what would make too much."""
    def arg(k: int, key: str, default: Any = None) -> Any:
        return _arg(args, kwargs, k, key, default)
    if name in ("center", "indent"):
        w, s = arg(1, "width"), arg(0, "s")
        if isinstance(w, str) and len(w) > MAX_WIDTH:
            raise TooBig(f"{name}'s width is a text of {len(w):,} characters")
        width(w, f"{name}'s width")
        # indent adds its width to every line, center pads to it
        step = len(w) if isinstance(w, str) else w if isinstance(w, int) else 0
        if isinstance(s, str) and max(step, 0) * (s.count("\n") + 1 if name == "indent"
                                                   else 1) + len(s) > budget.limit:
            raise TooBig(f"{name} would make more than {budget.limit:,} characters")
    elif name in ("batch", "slice"):
        width(arg(1, "linecount" if name == "batch" else "slices"), f"{name}'s count")
    elif name == "format" and isinstance(arg(0, "value"), str):
        percent(budget, args[0], kwargs or tuple(args[1:]))
    elif name == "wordwrap":
        wrap = arg(3, "wrapstring")
        s = arg(0, "s")
        if isinstance(s, str) and len(s) > MAX_WRAP:   # (textwrap is Python: ~3 s a MB)
            raise TooBig(f"wordwrap of {len(s):,} characters would run past the time limit "
                         f"(at most {MAX_WRAP:,})")
        if isinstance(wrap, str) and isinstance(s, str) and \
                len(s) * (len(wrap) + 1) > budget.limit:
            raise TooBig(f"wordwrap would make more than {budget.limit:,} characters")
    elif name == "replace":
        s, old, new = arg(0, "s"), arg(1, "old"), arg(2, "new")
        if all(isinstance(x, str) for x in (s, old, new)):
            str_method(budget, s.replace, (old, new, arg(3, "count", -1) or -1), {})
    elif name == "join":
        d = arg(1, "d", "")
        value = arg(0, "value")
        if isinstance(d, str) and isinstance(value, (list, tuple)) and \
                len(d) * len(value) > budget.limit:
            raise TooBig(f"join would make more than {budget.limit:,} characters")
    elif name == "tojson":
        indent = arg(2, "indent")
        seps = arg(3, "separators")
        if isinstance(indent, str) and len(indent) > 256:
            raise TooBig("tojson's indent is longer than 256 characters")
        width(indent, "tojson's indent")
        if isinstance(seps, (list, tuple)) and any(isinstance(x, str) and len(x) > 256
                                                   for x in seps):
            raise TooBig("tojson's separators are longer than 256 characters")
        step = len(indent) if isinstance(indent, str) else indent if \
            isinstance(indent, int) and not isinstance(indent, bool) else 0
        if step and budget.size(arg(0, "x"), budget.limit, indent=max(step, 0)) > budget.limit:
            raise TooBig(f"tojson would make more than {budget.limit:,} characters")
    budget.checked(args, f"the {name} filter's input")
    budget.checked(kwargs.values(), f"the {name} filter's input")


def lipsum(args: tuple, kwargs: dict) -> None:
    for k, key in enumerate(("n", "html", "min", "max")):
        if key != "html":
            width(_arg(args, kwargs, k, key), f"lipsum's {key}")


def sized_product(budget: Budget, left: Any, right: Any) -> None:
    """``left * right``: a text of at most the budget's limit, a list of at most
    MAX_ITEMS items, a number of at most MAX_ITEMS bits."""
    for a, b in ((left, right), (right, left)):
        if isinstance(a, (str, bytes, list, tuple)) and isinstance(b, int) and len(a) * b > \
                (budget.limit if isinstance(a, (str, bytes)) else MAX_ITEMS):
            raise TooBig(f"the template builds a sequence of {len(a) * b:,} items")
    if isinstance(left, int) and isinstance(right, int) and \
            left.bit_length() + right.bit_length() > MAX_ITEMS:
        raise TooBig("the template multiplies numbers too large")


def sized_power(left: Any, right: Any) -> None:
    if isinstance(left, int) and isinstance(right, int) and right > 0 \
            and abs(left) > 1 and right * abs(left).bit_length() > MAX_ITEMS:
        raise TooBig("the template raises a number too far")


def sized_sum(budget: Budget, left: Any, right: Any, what: str) -> None:
    """``left + right`` or ``left ~ right`` on sequences: at most budget.limit."""
    n = 0
    for v in (left, right):
        if isinstance(v, (str, bytes, list, tuple)):
            n += len(v) if isinstance(v, (str, bytes)) else budget.size(v)
    if n > budget.limit:
        raise TooBig(f"{what} would make more than {budget.limit:,} characters")


def guarded(budget: Budget, name: str, f: Callable) -> Callable:
    """A filter that checks its inputs first and counts what it makes."""
    import functools

    passes = getattr(f, "jinja_pass_arg", None) is not None

    @functools.wraps(f)
    def run(*args, **kwargs):
        filter_args(budget, name, args[1:] if passes else args, kwargs)
        return budget.add(f(*args, **kwargs), f"the {name} filter")
    return run
