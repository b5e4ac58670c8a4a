"""The engine's feature packages keep their faces: each package's ``__init__`` names its
public API, a ``_private`` module (or C extension) is imported only inside the package
that holds it, and the window, the command line and the tools import the engine only
through ``bpe_gui.engine``, a package's face, or a leaf module (errors, checks, display).

import-linter checks the layers between packages (pyproject.toml); it cannot say "private
to its package" for every package at once, so this test reads every import statement,
imports inside functions included.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

import bpe_gui

ROOT = Path(bpe_gui.__file__).resolve().parent
REPO = ROOT.parent
ENGINE = "bpe_gui.engine"
LEAVES = {"errors", "checks", "display", "extensions"}


def _module_name(path: Path, base: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(base).with_suffix("").parts)
    is_pkg = parts[-1] == "__init__"
    if is_pkg:
        parts.pop()
    return ".".join(parts), is_pkg


def imports(path: Path, name: str, is_pkg: bool) -> list[tuple[int, str]]:
    """(line, absolute dotted name) of everything an import statement names: the module
    and, for ``from M import x``, ``M.x`` too (x may be a submodule)."""
    package = name.split(".") if is_pkg else name.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.append((node.lineno, mod))
            out += [(node.lineno, f"{mod}.{a.name}") for a in node.names]
    return out


def private_owner(dotted: str) -> str | None:
    """The package a ``_private`` module or name belongs to, or None for a public name:
    a private module is private to the package holding it, and so is a module's private
    name (its siblings may use it, nothing outside the package).

    Example: 'bpe_gui.engine.corpus._count' -> 'bpe_gui.engine.corpus';
    'bpe_gui.engine.corpus.counting._regex_words' -> 'bpe_gui.engine.corpus'.
    """
    parts = dotted.split(".")
    for i, p in enumerate(parts):
        if i and p.startswith("_") and not p.startswith("__"):
            prefix = ".".join(parts[:i])
            spec = importlib.util.find_spec(prefix)
            is_package = spec is not None and spec.submodule_search_locations is not None
            return prefix if is_package else prefix.rpartition(".")[0]
    return None


def _our_files(folder: Path, base: Path):
    for p in sorted(folder.rglob("*.py")):
        yield p, *_module_name(p, base)


def test_private_modules_stay_inside_their_package():
    found = []
    for path, name, is_pkg in _our_files(ROOT, REPO):
        for line, dotted in imports(path, name, is_pkg):
            if not dotted.startswith(ENGINE + "."):
                continue
            owner = private_owner(dotted)
            if owner and not (name == owner or name.startswith(owner + ".")):
                found.append(f"{path.relative_to(REPO)}:{line} imports {dotted}")
    assert found == []


def face_problems(path: Path, name: str, is_pkg: bool) -> list[str]:
    """Imports of the engine deeper than a package face, from outside the engine."""
    bad = []
    for line, dotted in imports(path, name, is_pkg):
        if not dotted.startswith(ENGINE + "."):
            continue
        rest = dotted[len(ENGINE) + 1:].split(".")
        if rest[0] in LEAVES:
            continue
        try:   # `from bpe_gui.engine.text import X`: X is a name, not a module
            importlib.import_module(dotted)
        except ImportError:
            continue
        if len(rest) > 1:
            where = path.relative_to(REPO) if path.is_relative_to(REPO) else path.name
            bad.append(f"{where}:{line} imports {dotted}")
    return bad


@pytest.mark.parametrize("folder", ["bpe_gui/gui", "bpe_gui/cli", "tools"])
def test_the_window_and_command_line_import_package_faces_only(folder):
    found = []
    for path, name, is_pkg in _our_files(REPO / folder, REPO):
        found += face_problems(path, name, is_pkg)
    assert found == []


def test_the_face_check_sees_a_deep_import(tmp_path):
    """The check above would catch `from ...engine.train.trainer import Trainer`."""
    p = tmp_path / "panel.py"
    p.write_text("from bpe_gui.engine.train.trainer import Trainer\n"
                 "from bpe_gui.engine.train import Trainer\n"
                 "from bpe_gui.engine.errors import BPEError\n")
    assert face_problems(p, "bpe_gui.gui.panel", False) == [
        "panel.py:1 imports bpe_gui.engine.train.trainer"]


def engine_packages() -> list[str]:
    eng = ROOT / "engine"
    return sorted(f"{ENGINE}.{d.name}" for d in eng.iterdir()
                  if (d / "__init__.py").is_file())


@pytest.mark.parametrize("package", engine_packages())
def test_each_package_names_its_public_api(package):
    mod = importlib.import_module(package)
    assert mod.__doc__ and len(mod.__doc__.strip()) > 40, f"{package} says what it holds"
    names = getattr(mod, "__all__", None)
    assert names, f"{package}.__all__ names its public API"
    missing = [n for n in names if not hasattr(mod, n)]
    assert missing == []
    private = [n for n in names if n.startswith("_")]
    assert private == []


def test_a_public_name_never_hides_a_module_of_the_same_name():
    """``from .held_out import held_out`` in a face makes ``pkg.held_out`` the function,
    so ``import pkg.held_out as m`` would give the function, not the module."""
    clashes = []
    for package in engine_packages():
        mod = importlib.import_module(package)
        folder = Path(mod.__file__).parent
        modules = {p.stem for p in folder.glob("*.py")} | {d.name for d in folder.iterdir()
                                                          if (d / "__init__.py").is_file()}
        clashes += [f"{package}.{n}" for n in getattr(mod, "__all__", ()) if n in modules]
    assert clashes == []


def test_the_privacy_check_sees_a_private_import(tmp_path):
    """What the repository-wide check above would report, on a module written for it."""
    p = tmp_path / "x.py"
    p.write_text("from ..corpus import _count\nfrom .pretokenize import _private_name\n"
                 "from . import scanner\n")
    names = [d for _, d in imports(p, "bpe_gui.engine.text.x", False)]
    owners = {d: private_owner(d) for d in names}
    assert owners["bpe_gui.engine.corpus._count"] == "bpe_gui.engine.corpus"   # refused here
    assert owners["bpe_gui.engine.text.pretokenize._private_name"] == "bpe_gui.engine.text"
    assert owners["bpe_gui.engine.text.scanner"] is None


# faces that import their modules at once (none: the formats' registry is its exports
# and loading modules, behind a lazy face like every other)
NOT_LAZY: set[str] = set()


def lazy_face_tables(path: Path) -> tuple[set[tuple[str, str]], set[tuple[str, str]]] | None:
    """((module, name) imported under ``if TYPE_CHECKING:``, (module, name) in the table
    given to ``lazy_face``) of a face, or None if the face is not a lazy one."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typed: set[tuple[str, str]] = set()
    table: set[tuple[str, str]] = set()
    lazy = False
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and \
                node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom), f"{path}: only imports there"
                mod = "." * imp.level + (imp.module or "")
                typed |= {(mod, a.name) for a in imp.names}
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                getattr(node.value.func, "id", None) == "lazy_face":
            lazy = True
            where = ast.literal_eval(node.value.args[1])
            table |= {(mod, n) for mod, names in where.items() for n in names.split()}
    return (typed, table) if lazy else None


@pytest.mark.parametrize("package", engine_packages() + [ENGINE, f"{ENGINE}.tokenizers.imported",
                                                         f"{ENGINE}.formats.local_models"])
def test_a_lazy_face_imports_what_it_shows_mypy(package):
    """A lazy face's two lists of its names (the TYPE_CHECKING imports mypy reads and the
    table that runs) name the same modules and names, and every name is public."""
    mod = importlib.import_module(package)
    found = lazy_face_tables(Path(mod.__file__))
    if package in NOT_LAZY:
        assert found is None
        return
    assert found is not None, f"{package}: a face imports its names lazily (engine/_lazy.py)"
    typed, table = found
    assert typed == table
    assert {n for _, n in table} <= set(mod.__all__)


def test_the_lazy_face_check_sees_a_name_missing_from_the_table(tmp_path):
    p = tmp_path / "__init__.py"
    p.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                 "    from .a import X, Y\n"
                 "__getattr__, __dir__ = lazy_face(__name__, {'.a': 'X'})\n")
    typed, table = lazy_face_tables(p)
    assert typed - table == {(".a", "Y")}
