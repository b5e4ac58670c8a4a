"""Package faces that import each name at its first use.

A face names its package's public API; importing every module behind it at once would
make ``import bpe_gui.engine`` (and every command of the command line) pay for the whole
engine: compiled patterns, Unicode tables, dataclasses. A lazy face imports the module
behind a name when the name is first read, then keeps it on the package, so later reads
are plain attribute lookups.

Each face lists its names twice: under ``if TYPE_CHECKING:`` as ordinary imports (what
mypy and readers see) and in the table given here (what runs);
tests/test_package_faces.py checks that the two agree.

Example (a package's ``__init__.py``)::

    if TYPE_CHECKING:
        from .table import CountMeta, PretokenTable
    __getattr__, __dir__ = lazy_face(__name__, {".table": "CountMeta PretokenTable"})
"""
from __future__ import annotations

import importlib
import sys
from typing import Any, Callable


def lazy_face(package: str, where: dict[str, str]) -> tuple[Callable[[str], Any],
                                                            Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of package ``package`` whose names live in the
    modules ``where`` maps to them (a module relative to the package, e.g. ``".table"``
    -> its names, separated by spaces)."""
    owner = {name: module for module, names in where.items() for name in names.split()}

    def __getattr__(name: str) -> Any:
        module = owner.get(name)
        if module is None:   # (also how `from pkg import submodule` finds a submodule)
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(owner))

    return __getattr__, __dir__
