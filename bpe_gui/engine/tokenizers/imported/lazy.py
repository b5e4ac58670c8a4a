"""Tables made when first read: :class:`Later` (a value made once, shared) and
:class:`Lazy` (an attribute that may hold a Later). A loaded tokenizer's id -> bytes and
bytes -> id tables are Python dicts of one entry per token (16 MB for cl100k, 32 MB for
o200k), which encoding never reads: the C model holds what it needs; the window, decoding
with offsets and exports read them, and they are made then.
"""
from __future__ import annotations

from typing import Callable, Generic, TypeVar, overload

T = TypeVar("T")


class Later(Generic[T]):
    """A value made when first asked for (``later()``), then kept: one table several
    objects share (a SentencePiece model's id -> bytes, which encoding never reads)."""

    __slots__ = ("_make", "_value")

    def __init__(self, make: Callable[[], T]):
        self._make: Callable[[], T] | None = make
        self._value: T | None = None

    def __call__(self) -> T:
        if self._make is not None:
            self._value, self._make = self._make(), None
        return self._value  # type: ignore[return-value]


class Lazy(Generic[T]):
    """An attribute that may be set to a :class:`Later`: made when first read."""

    def __set_name__(self, owner, name: str) -> None:
        self._slot = "_lazy_" + name

    @overload
    def __get__(self, obj: None, cls=None) -> "Lazy[T]": ...
    @overload
    def __get__(self, obj: object, cls=None) -> T: ...

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        value = obj.__dict__[self._slot]
        if isinstance(value, Later):
            value = obj.__dict__[self._slot] = value()
        return value

    def __set__(self, obj, value: "T | Later[T]") -> None:
        obj.__dict__[self._slot] = value


def lazy_tables(make: Callable[[], tuple[dict[int, bytes], dict[bytes, int]]]
                ) -> tuple[Later[dict[int, bytes]], Later[dict[bytes, int]]]:
    """(id -> bytes, bytes -> id) as two Laters that ``make`` fills together when either
    is first read."""
    both = Later(make)
    return Later(lambda: both()[0]), Later(lambda: both()[1])
