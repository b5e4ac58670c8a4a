"""A piece of normalized text that remembers where each character came from.

Hugging Face ``tokenizers`` reports token offsets in the *original* text although its
normalizers and pre-tokenizers change the text (NFKC turns ``ﬁ`` into ``fi``, Metaspace
turns spaces into ``▁`` and prepends one). It keeps, for every normalized character, the
span of the original text it stands for, and every change follows one rule:

* a character that *replaces* one takes that character's span;
* a character that is *inserted* takes the span of the character before it
  (``(0, 0)`` at the very start);
* a span of several normalized characters covers from the first one's start to the
  last one's end.

:class:`NStr` does the same, in characters of a Python ``str``. Text that no step
changed keeps no per-character table at all (``align`` is then the offset of its first
character), so plain byte-level tokenizers pay nothing for it.

Example::

    >>> s = NStr.of("ﬁx").normalize("NFKC")
    >>> s.text, s.span(0, 2)       # 'f' and 'i' both stand for 'ﬁ'
    ('fix', (0, 1))
"""
from __future__ import annotations

import itertools
import unicodedata
from typing import Callable, Iterable, Literal

from array import array

from ...text import normal_forms
from ...text.normal_forms import is_normalized

Span = tuple[int, int]
Form = Literal["NFC", "NFD", "NFKC", "NFKD"]   # unicodedata's normal forms


class NStr:
    __slots__ = ("text", "align")

    def __init__(self, text: str, align: int | list[Span]):
        self.text = text
        self.align = align   # int: character i stands for (align + i, align + i + 1)

    @classmethod
    def of(cls, text: str, start: int = 0) -> "NStr":
        return cls(text, start)

    def __repr__(self) -> str:
        return f"NStr({self.text!r}, {self.span(0, len(self.text))})"

    def spans(self) -> list[Span]:
        a = self.align
        if isinstance(a, int):
            return [(a + i, a + i + 1) for i in range(len(self.text))]
        return a

    def span(self, i: int, j: int) -> Span:
        """Original span of normalized characters [i, j)."""
        a = self.align
        if isinstance(a, int):
            return (a + i, a + j)
        if j <= i:
            k = a[i][0] if i < len(a) else (a[-1][1] if a else 0)
            return (k, k)
        return (a[i][0], a[j - 1][1])

    @property
    def original_start(self) -> int:
        a = self.align
        if isinstance(a, int):
            return a
        return a[0][0] if a else 0

    def slice(self, i: int, j: int) -> "NStr":
        a = self.align
        return NStr(self.text[i:j], a + i if isinstance(a, int) else a[i:j])

    # ----- changes --------------------------------------------------------------------
    def transform(self, changes: Iterable[tuple[str, int]]) -> "NStr":
        """Apply ``(char, change)`` pairs as tokenizers does: change 0 replaces the next
        character, +1 inserts one, -n replaces the next character and drops n more."""
        old = self.spans()
        text: list[str] = []
        align: list[Span] = []
        k = 0
        for c, change in changes:
            if change > 0:
                align.append(old[k - 1] if k else (0, 0))
            else:
                align.append(old[k])
                k += 1 - change
            text.append(c)
        return NStr("".join(text), align)

    def map_chars(self, fn: Callable[[str], str]) -> "NStr":
        """Each character -> a string (its first character replaces it, the rest are inserted)."""
        out = []
        for c in self.text:
            r = fn(c)
            if not r:
                out.append(("", 0))   # never produced by the mappings used here
            out.extend((ch, int(n > 0)) for n, ch in enumerate(r))
        if all(ch == c for (ch, _), c in zip(out, self.text)) and len(out) == len(self.text):
            return self
        return self.transform(out)

    def prepend(self, s: str) -> "NStr":
        if not self.text or not s:
            return self
        first = self.spans()[0] if not isinstance(self.align, int) else \
            (self.align, self.align + 1)
        rest = self.align[0:] if not isinstance(self.align, int) else self.spans()
        return NStr(s + self.text, [first] * len(s) + list(rest))

    def replace(self, matches: Iterable[tuple[int, int]], content: str) -> "NStr":
        """Replace each match [s, e) with ``content``; the new characters take the span of
        the match's last character (tokenizers inserts them after removing the match)."""
        old = self.spans()
        text: list[str] = []
        align: list[Span] = []
        last = 0
        changed = False
        for s, e in matches:
            if content == self.text[s:e]:
                continue
            changed = True
            text.append(self.text[last:s])
            align.extend(old[last:s])
            at = old[e - 1] if e > 0 else (0, 0)
            text.append(content)
            align.extend([at] * len(content))
            last = e
        if not changed:
            return self
        text.append(self.text[last:])
        align.extend(old[last:])
        return NStr("".join(text), align)

    def normalize(self, form: Form) -> "NStr":
        """Unicode normalization (NFC, NFKC, NFD, NFKD) with tokenizers' alignments."""
        t = self.text
        if is_normalized(form, t):
            return self
        stretches = _changed_stretches(t, form)
        if stretches is None:
            return self.transform(_unicode_changes(t, form))
        changes: list[tuple[str, int]] = []
        last = 0
        for s, e, part in stretches:   # (the characters between them are kept as they are)
            changes.extend(zip(t[last:s], itertools.repeat(0)))
            changes.extend(part)
            last = e
        changes.extend(zip(t[last:], itertools.repeat(0)))
        return self.transform(changes)


def form_alignment(form: Form, text: str) -> tuple[str, array, array] | None:
    """``NStr.of(text).normalize(form)`` as (its text, the start and the end of the span of
    the original each of its characters stands for, as ``array('q')``), made from the
    stretches around the characters the form may change (the rest maps one to one):
    what the C encoder's encode_offsets reads. None: the text is in the form."""
    if is_normalized(form, text):
        return None
    stretches = _changed_stretches(text, form)
    if stretches is None:
        n = NStr.of(text).normalize(form)
        a = n.spans()
        return n.text, array("q", [x for x, _ in a]), array("q", [y for _, y in a])
    out: list[str] = []
    starts, ends = array("q"), array("q")
    last = k = 0   # k: the original's character next in line, as in NStr.transform
    for s, e, part in stretches:
        out.append(text[last:s])
        starts.extend(range(k, k + s - last))
        ends.extend(range(k + 1, k + s - last + 1))
        k += s - last
        for c, change in part:
            if change > 0:   # inserted: the span of the character before
                sp = (k - 1, k) if k else (0, 0)
            else:
                sp = (k, k + 1)
                k += 1 - change
            out.append(c)
            starts.append(sp[0])
            ends.append(sp[1])
        last = e
    out.append(text[last:])
    starts.extend(range(k, k + len(text) - last))
    ends.extend(range(k + 1, k + len(text) - last + 1))
    return "".join(out), starts, ends


def _changed_stretches(text: str, form: Form) -> list[tuple[int, int, list[tuple[str, int]]]] | None:
    """The stretches of ``text`` its normal form changes, each with its (char, change)
    pairs (``_unicode_changes`` of the stretch alone), in order; the characters between
    them are their own normal form and boundaries the form never crosses (see
    text/normal_forms.py: a *safe* character). None: without the scanner's tables."""
    spans = normal_forms.unsafe_stretches(form, text)
    if spans is None:
        return None
    out = []
    for k in range(0, len(spans), 2):
        s, e = spans[k], spans[k + 1]
        part = text[s:e]
        if unicodedata.is_normalized(form, part):
            continue
        out.append((s, e, _unicode_changes(part, form)))
    return out


def _segments(text: str, form: Form) -> list[tuple[int, int]]:
    """Cut text where normalizing the parts separately gives the same as the whole."""
    out = []
    start = 0
    for i in range(1, len(text) + 1):
        if i == len(text):
            out.append((start, i))
            break
        c = text[i]
        if unicodedata.combining(c):
            continue
        seg = text[start:i]
        joined = unicodedata.normalize(form, seg + c)
        if joined == unicodedata.normalize(form, seg) + unicodedata.normalize(form, c):
            out.append((start, i))
            start = i
    return out


def _unicode_changes(text: str, form: Form) -> list[tuple[str, int]]:
    """(char, change) pairs for normalizing ``text``: each output character is tied to the
    input character its decomposition came from, as the Rust unicode crate reports it."""
    decompose: Form = "NFKD" if "K" in form else "NFD"
    pairs: list[tuple[str, int]] = []
    for s, e in _segments(text, form):
        seg = text[s:e]
        # decomposed characters with the index of the input character they came from
        dec = [(d, i) for i in range(s, e) for d in unicodedata.normalize(decompose, text[i])]
        dec = _reorder(dec)
        out = unicodedata.normalize(form, seg)
        if form in ("NFC", "NFKC"):
            srcs, j = [], 0
            for r in out:
                srcs.append(dec[min(j, len(dec) - 1)][1] if dec else s)
                j += len(unicodedata.normalize("NFD", r))
        else:
            srcs = [i for _, i in dec] if len(dec) == len(out) else [s] * len(out)
        # turn sources into tokenizers' changes: the first character from an input
        # character replaces it (dropping input characters nothing came from), the rest
        # are inserted after it
        k = s
        prev = None
        for r, src in zip(out, srcs):
            if prev is not None and src < prev:
                # canonical reordering put a mark before one from an earlier character:
                # an insertion after the last source (sources never go back)
                src = prev
            if src == prev:
                pairs.append((r, 1))
                continue
            pairs.append((r, -(src - k)))
            k = src + 1
            prev = src
        if k < e:   # trailing input characters that vanished: drop them with the last one
            if pairs and prev is not None:
                c, ch = pairs[-1]
                pairs[-1] = (c, ch - (e - k)) if ch <= 0 else (c, ch)
            k = e
    return pairs


def _reorder(dec: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Canonical ordering: runs of combining marks sorted by combining class (stable)."""
    out: list[tuple[str, int]] = []
    run: list[tuple[str, int]] = []
    for item in dec:
        if unicodedata.combining(item[0]):
            run.append(item)
        else:
            out.extend(sorted(run, key=lambda x: unicodedata.combining(x[0])))
            run = []
            out.append(item)
    out.extend(sorted(run, key=lambda x: unicodedata.combining(x[0])))
    return out
